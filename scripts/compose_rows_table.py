"""Write docs/composition.md's table of the published compositions from the committed sets
(results/published/<row>/compose/): nothing in it is typed by hand. Run after publishing a row:

    python scripts/compose_rows_table.py          # rewrites the table in docs/composition.md
    python scripts/compose_rows_table.py --check  # exit 1 when the table is not the sets'
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import marked_table  # noqa: E402

from lab.resultset.composition import load_rows  # noqa: E402

DOC = ROOT / "docs" / "composition.md"
BEGIN, END = "<!-- compose-rows: scripts/compose_rows_table.py -->", "<!-- /compose-rows -->"


def table() -> str:
    """Per published composition and detection point: what its search held (one edit per sequence, or pairs of
    edits and restore moves too), sequences tried, the count per outcome, and the findings (each sequence once,
    its edit's variants folded into the case: ``T3(.v1,.v2)+write``)."""
    lines = ["| row | point | search | sequences | finding · held · single lands · shorter lands · inconclusive | findings |",
             "|---|---|---|---|---|---|"]
    for folder in sorted((ROOT / "results" / "published").glob("*/compose")):
        for row in load_rows(folder):
            c = row.counts
            found = _folded(["+".join(s.sequence) for s in row.findings]) or "none"
            search = " + ".join(["pairs" if row.edits == 2 else "one edit"] + ["restores"] * row.restores)
            lines.append(f"| `{row.row}` | {row.detection_point} | {search} | {len(row.sequences)} | "
                         f"{c['finding']} · {c['held']} · {c['single-lands']} · {c['shorter-lands']} · {c['inconclusive']} | "
                         f"{found} |")
    return "\n".join(lines)


def _folded(names: list[str]) -> str:
    """``T3+write, T3.v1+write`` as ``T3(.v1)+write``: one entry per sequence shape, its variants in brackets."""
    shapes: dict[str, list[str]] = {}
    for name in names:
        moves = name.split("+")
        edit = next(m for m in moves if m[:1] == "T")
        case, _, variant = edit.partition(".")
        shape = "+".join(case if m == edit else m for m in moves)
        shapes.setdefault(shape, []).append(f".{variant}" if variant else "")
    out = []
    for shape, variants in shapes.items():
        extra = [v for v in variants if v]
        if extra:
            case = next(m for m in shape.split("+") if m[:1] == "T")
            shown = ("" if "" in variants else "only ") + ",".join(extra)
            shape = shape.replace(case, f"{case}({shown})", 1)
        out.append(f"`{shape}`")
    return ", ".join(out)


if __name__ == "__main__":
    sys.exit(marked_table.main(DOC, BEGIN, END, table, __doc__.splitlines()[0]))
