"""README's Benchmarks section is what the benchmarks printed: it equals the rendering of the saved
outputs in bench/figures/ (scripts/bench_readme.py), and every benchmark under bench/ is in it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("bench_readme", ROOT / "scripts" / "bench_readme.py")
bench_readme = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench_readme)


def test_readme_benchmarks_are_the_saved_outputs():
    done = subprocess.run([sys.executable, "scripts/bench_readme.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_every_benchmark_is_run_and_its_output_saved():
    scripts = {p.relative_to(ROOT).as_posix() for p in (ROOT / "bench").glob("*.py")
               if '__name__ == "__main__"' in p.read_text(encoding="utf-8")}
    assert scripts == {command[0] for command, _ in bench_readme.BENCHES.values()}
    for name in bench_readme.BENCHES:
        saved = (ROOT / "bench" / "figures" / f"{name}.txt").read_text(encoding="utf-8")
        header, _, body = saved.partition("\n")
        assert " ".join(bench_readme.BENCHES[name][0]) in header and "load average" in header and body.strip()


def test_the_section_is_replaced_up_to_the_next_heading_and_nothing_else():
    readme = "# x\n\n## Benchmarks\n\nold figures\n\n## Next\n\nkept\n"
    out = bench_readme.with_section(readme)
    assert out.startswith("# x\n\n## Benchmarks\n\n") and out.endswith("\n## Next\n\nkept\n")
    assert "old figures" not in out and bench_readme.INTRO in out
    assert bench_readme.with_section(out) == out
