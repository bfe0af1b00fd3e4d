"""The per-run evidence budget (lab.resultset.evidence_budget): what a run may write into its result set.

Unit: the size parser (a Hypothesis property: any string it takes is a finite positive number of bytes
within bounds, anything else a ValueError), the budget's incremental count (a file written again
counts once, logs measured by lstat, a resumed set's evidence counted from the start) and its one stop.
End to end, with a budget of a few KiB against the fast reference rows: ``memlab run``, ``compose``,
``lifecycle run`` and ``frontdoor run`` stop with exit 2 (never 1), say the set, the KiB against the
budget, the largest files and the fix, and keep every observation saved; ``--resume`` with the same
budget stops again, with a bigger one completes the run to the figures of a run never stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from lab.cli import main
from lab.cli.options import EVIDENCE_BUDGET
from lab.resultset.evidence_budget import (DEFAULT_LIMIT, MAX_LIMIT, EvidenceBudget, EvidenceOverBudget,
                                           parse_size)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from kills import memlab  # noqa: E402
from test_lifecycle_resume import figures  # noqa: E402

COMMANDS = (("run",), ("compose",), ("lifecycle", "run"), ("frontdoor", "run"))


@pytest.mark.parametrize("text, size", [("1", 1), ("2048", 2048), ("2K", 2048), ("2k", 2048), ("500M", 500 << 20),
                                        ("4G", 4 << 30), ("4GiB", 4 << 30), ("4gb", 4 << 30), ("1.5K", 1536),
                                        (" 3 MiB ", 3 << 20), ("1T", 1 << 40), ("100B", 100)])
def test_sizes_are_read_in_powers_of_1024(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "0K", "0.0001K", "-1", "1.5", "2X", "4Gi", "iB", "1e9", "nan", "inf",
                                  "1.1T", "2T", "1" * 30, "٣K", "4 G B", "K"])
def test_a_size_out_of_form_or_bounds_is_refused_saying_the_form(text):
    with pytest.raises(ValueError, match="a size in bytes"):
        parse_size(text)


@given(st.text(max_size=30) | st.from_regex(r"\s*\d{1,14}(\.\d{1,6})?\s*([KMGTkmgt](i?[bB])?|B)?\s*", fullmatch=True))
def test_any_size_taken_is_a_finite_positive_int_within_bounds(text):
    try:
        size = parse_size(text)
    except ValueError as exc:
        assert "a size in bytes" in str(exc)
        return
    assert type(size) is int and 0 < size <= MAX_LIMIT


@given(st.integers(1, 1023), st.sampled_from([("", 1), ("K", 1 << 10), ("MiB", 1 << 20), ("g", 1 << 30)]))
def test_every_whole_size_with_a_unit_is_taken_exactly(number, unit):
    assert parse_size(f"{number}{unit[0]}") == number * unit[1]


def test_the_options_default_is_the_budgets():
    assert EVIDENCE_BUDGET == DEFAULT_LIMIT == parse_size("2G")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_each_command_offers_the_option_and_refuses_a_bad_size_as_a_usage_error(command):
    runner = CliRunner()
    assert "--evidence-budget SIZE" in runner.invoke(main, [*command, "--help"]).output
    done = runner.invoke(main, [*command, "--evidence-budget", "0", "--out", "/nonexistent/never"])
    assert done.exit_code == 2 and "Invalid value for '--evidence-budget'" in done.output
    assert "fix: e.g. --evidence-budget 4G" in done.output


def write(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    return path


def test_the_budget_counts_each_file_once_and_the_logs_as_they_are(tmp_path):
    budget = EvidenceBudget(tmp_path, limit=1000)
    obs = write(tmp_path / "observations" / "r" / "T1.json", 300)
    assert budget.charge(obs) == 300
    write(obs, 200)
    assert budget.charge(obs) == 200  # written again: its new size, once
    write(tmp_path / "logs" / "r" / "T1-1.log", 100)
    assert budget.charge() == 300  # a log is measured at each charge
    write(tmp_path / "elsewhere" / "big", 5000)
    os.symlink(tmp_path / "elsewhere", tmp_path / "logs" / "r" / "dir")
    os.symlink(tmp_path / "elsewhere" / "big", tmp_path / "logs" / "r" / "big.log")
    assert budget.charge() < 1000  # a link is neither followed nor entered: its own few bytes


def test_the_budget_stops_the_run_once_and_names_the_largest_files(tmp_path):
    stopped = []
    budget = EvidenceBudget(tmp_path, limit=1000, on_over=lambda: stopped.append(1))
    budget.charge(write(tmp_path / "observations" / "r" / "seed.json", 600))
    write(tmp_path / "logs" / "r" / "seed-1.log", 300)
    with pytest.raises(EvidenceOverBudget) as over:
        budget.charge(write(tmp_path / "observations" / "r" / "C1.json", 200))
    assert stopped == [1] and over.value.written == 1100 and over.value.limit == 1000
    assert [name for _, name in over.value.largest] == ["observations/r/seed.json", "logs/r/seed-1.log",
                                                        "observations/r/C1.json"]
    text = over.value.describe("memlab run --resume")
    assert f"written into {tmp_path}" in text and "observations/r/seed.json" in text
    assert f"`memlab run --resume {tmp_path} --evidence-budget <bigger>`" in text
    assert budget.charge(write(tmp_path / "observations" / "r" / "C2.json", 200)) == 1300  # once: the run winds down
    assert stopped == [1]


def test_a_resumed_set_counts_what_it_already_holds(tmp_path):
    write(tmp_path / "observations" / "r" / "seed.json", 900)
    write(tmp_path / "observations" / "r" / "dumps" / "ab.json", 50)
    with pytest.raises(EvidenceOverBudget):
        EvidenceBudget(tmp_path, limit=1000).charge(write(tmp_path / "observations" / "r" / "C1.json", 100))


def digests(folder: Path) -> dict[str, str]:
    """Every observation file under ``folder`` -> the SHA-256 of its bytes."""
    return {str(p.relative_to(folder / "observations")): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((folder / "observations").rglob("*.json"))}


def verdicts(out: Path) -> dict[str, object]:
    """What an at-rest set states: each row's cells' verdicts and its level."""
    rows = {}
    for path in sorted((out / "rows").glob("*.json")):
        row = json.loads(path.read_text())
        rows[path.name] = ({c: cell.get("verdict") for c, cell in row["cells"].items()}, row.get("level"),
                           row.get("evaluable"))
    return rows


def stopped(done, out: Path, resume: str | None) -> None:
    """The run stopped on its budget: exit 2, the message, run.json interrupted by the budget."""
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    said = " ".join((done.stdout + done.stderr).split())
    assert f"written into {out}, over its" in said and "largest files: observations/" in said
    if resume:
        assert f"`{resume} {out} --evidence-budget <bigger>`" in said
        run = json.loads((out / "run.json").read_text())
        assert run["status"] == "interrupted" and run["stopped"]["by"] == "evidence-budget"
    assert "Traceback" not in done.stderr


@pytest.fixture
def env(cache):
    return dict(os.environ)


AT_REST = ("run", "--runtime", "local", "--sut", "reference-naive", "--no-reports", "--nonce", "evidence-budget")


def test_an_at_rest_run_past_its_budget_exits_2_keeps_its_trials_and_resumes_to_the_same_set(tmp_path, env):
    whole, out = tmp_path / "whole", tmp_path / "cut"
    assert memlab(*AT_REST, "--out", whole, env=env).returncode == 0
    stopped(memlab(*AT_REST, "--out", out, "--evidence-budget", "40K", env=env), out, "memlab run --resume")
    kept = digests(out)
    assert "reference-naive/seed.json" in kept and len(kept) < len(digests(whole))
    assert memlab("verify", out, env=env).returncode == 3  # PARTIAL: readable, pinned, never called complete
    again = memlab("run", "--resume", out, "--no-reports", "--evidence-budget", "40K", env=env)
    stopped(again, out, "memlab run --resume")  # the set's evidence counts: the same budget stops again
    done = memlab("run", "--resume", out, "--no-reports", "--evidence-budget", "10M", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert memlab("verify", out, env=env).returncode == 0
    assert all(digests(out)[name] == digest for name, digest in kept.items())  # nothing saved was lost
    assert verdicts(out) == verdicts(whole) and "stopped" not in json.loads((out / "run.json").read_text())


def test_a_composition_past_its_budget_exits_2_naming_its_own_resume(tmp_path, env):
    out = tmp_path / "cut"
    done = memlab("compose", "--runtime", "local", "--sut", "reference-naive", "--no-reports", "--out", out,
                  "--evidence-budget", "40K", env=env)
    stopped(done, out, "memlab compose --resume")
    assert (out / "observations" / "reference-naive" / "seed.json").is_file()
    assert memlab("verify", out, env=env).returncode == 3


LIFECYCLE = ("lifecycle", "run", "--sut", "lifecycle-strict", "--runtime", "local", "--seeds", "2")


def test_a_lifecycle_run_past_its_budget_exits_2_and_resumes_to_the_figures_of_a_whole_run(tmp_path, env):
    whole, out = tmp_path / "whole", tmp_path / "cut"
    assert memlab(*LIFECYCLE, "--out", whole, env=env).returncode == 0
    stopped(memlab(*LIFECYCLE, "--out", out, "--evidence-budget", "30K", env=env), out,
            "memlab lifecycle run --resume")
    kept = digests(out)
    assert kept and len(kept) < len(digests(whole))
    assert memlab("verify", out, env=env).returncode == 3
    stopped(memlab("lifecycle", "run", "--resume", out, "--evidence-budget", "30K", env=env), out,
            "memlab lifecycle run --resume")
    done = memlab("lifecycle", "run", "--resume", out, "--evidence-budget", "10M", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert memlab("verify", out, env=env).returncode == 0
    assert all(digests(out)[name] == digest for name, digest in kept.items())
    assert figures(out) == figures(whole)


def test_a_frontdoor_run_past_its_budget_exits_2_and_keeps_the_row_it_wrote(tmp_path, env):
    out = tmp_path / "cut"
    done = memlab("frontdoor", "run", "--reference", "naive", "--reference", "label", "--out", out,
                  "--evidence-budget", "20K", env=env)
    assert done.returncode == 2 and "largest files: rows/naive.json" in " ".join(done.stderr.split())
    assert "run again into a new --out with a bigger --evidence-budget" in " ".join(done.stderr.split())
    assert json.loads((out / "rows" / "naive.json").read_text())["store"] == "naive"
    assert not (out / "rows" / "label.json").exists()
