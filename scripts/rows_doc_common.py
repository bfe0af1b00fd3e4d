"""What scripts/framework_rows_doc.py and scripts/integrity_rows_doc.py share: a published row's
records, the installed version of its SUT and its matrix as a Markdown table.

Importing this module puts the repository root on ``sys.path`` (the scripts run as
``python scripts/<name>.py``), so a script may import the lab after it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.cases import CASE_IDS  # noqa: E402

SHORT = {"REJECTED": "REJ", "REPORTED": "REP", "ACCEPTED": "ACC", "n/a": "n/a", "error": "ERR"}


def cell(c: dict) -> str:
    """A cell's verdict in short, ``·a`` marking a detection at audit only."""
    short = SHORT.get(c["verdict"], c["verdict"])
    return short + ("·a" if c["verdict"] == "REPORTED" and c.get("detection_point") == "audit" else "")


def published_rows(name: str) -> list[dict]:
    """The row records of results/published/<name>/rows/, by detection point ([] when not measured)."""
    folder = ROOT / "results" / "published" / name / "rows"
    return sorted((json.loads(p.read_text()) for p in folder.glob("*.json")),
                  key=lambda r: r["detection_point"]) if folder.is_dir() else []


def installed_version(row: dict) -> str:
    """The version of the row's SUT package the run had installed (``?`` when it did not say)."""
    pkgs = (row.get("runtime") or {}).get("packages") or {}
    return next((v for k, v in pkgs.items() if k.lower() == str(row["sut"]["package"]).lower()), "?")


def matrix(rows: list[dict]) -> list[str]:
    """The Markdown table of the rows: one line a detection point, its cells, controls, metric and level."""
    out = ["| point | " + " | ".join(CASE_IDS) + " | C1 | C2 | metric | level |",
           "|---" * (len(CASE_IDS) + 5) + "|"]
    for r in rows:
        metric = "—" if r.get("metric") is None else f"{r['metric']:.2f}"
        out.append(f"| {r['detection_point']} | " + " | ".join(cell(r["cells"][c]) for c in CASE_IDS) +
                   f" | {'ok' if r['controls']['C1']['ok'] else 'FAIL'} | "
                   f"{'ok' if r['controls']['C2']['ok'] else 'FAIL'} | {metric} | {r.get('level') or '—'} |")
    return out


def write_page(path: Path, text: str) -> None:
    """Write the generated page at ``path``; with ``--check``, write nothing and exit 1 when the committed
    page is not ``text`` (``tests/unit/test_rows_docs.py`` holds every page to its script this way)."""
    if "--check" not in sys.argv[1:]:
        path.write_text(text, encoding="utf-8")
        return
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        print(f"{path.relative_to(ROOT)} is not what {Path(sys.argv[0]).name} writes from the published sets and "
              f"the profiles: run it (python3 scripts/{Path(sys.argv[0]).name})", file=sys.stderr)
        sys.exit(1)

