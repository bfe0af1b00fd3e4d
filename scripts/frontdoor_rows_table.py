"""Write the README's table of the front door's published rows from the committed sets
(results/published/<row>/frontdoor/): nothing in it is typed by hand. Run after publishing a row:

    python scripts/frontdoor_rows_table.py          # rewrites the table in README.md
    python scripts/frontdoor_rows_table.py --check  # exit 1 when README.md's table is not the sets'
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import marked_table  # noqa: E402

from lab.frontdoor.rows import read_row  # noqa: E402

README = ROOT / "README.md"
BEGIN, END = "<!-- frontdoor-rows: scripts/frontdoor_rows_table.py -->", "<!-- /frontdoor-rows -->"
KEPT_BY = {"sut": "the SUT", "driver": "the driver's key", "separate-store": "a store per scope"}


def table() -> str:
    """The Markdown table: each published row's level per position, what its live row served per channel,
    its leaking probes and who keeps contexts apart, and its attack writes proven stored."""
    rows: dict[str, dict] = {}
    for path in sorted((ROOT / "results" / "published").glob("*/frontdoor/rows/*.json")):
        result, _ = read_row(json.loads(path.read_text()))
        row, position = path.stem.rsplit("@", 1)
        rows.setdefault(row, {})[position] = result
    lines = ["| row | level live · restarted | served live: untrusted · forged · signed | contexts kept apart by: "
             "probes leaking (live) | proven stored |", "|---|---|---|---|---|"]
    for row, by in sorted(rows.items()):
        live, restarted = by["live"], by["restarted"]
        channels = live.channels()
        served = " · ".join(_served(channels[c]) for c in ("untrusted", "forged", "signed"))
        leaks = ", ".join(f"`{t.probe}` {t.leaks}/{t.total}" for t in live.probes() if t.leaks) or "none leaked"
        proven = live.proven()
        lines.append(f"| `{row}` | {live.level()} · {restarted.level()} | {served} | "
                     f"{KEPT_BY.get(live.enforcer, live.enforcer)}: {leaks} | "
                     f"{f'{proven[0]}/{proven[1]}' if proven else 'not read back'} |")
    return "\n".join(lines)


def _served(cell: dict) -> str:
    """``served/total`` of a channel, its fixtures without a verdict beside (never counted as held); — where
    the SUT keeps no label (one write for the three channels)."""
    if not cell["total"]:
        return "—"
    unjudged = cell.get("no_verdict", 0)
    return f"{cell['served']}/{cell['total']}" + (f" ({unjudged} n/a)" if unjudged else "")


if __name__ == "__main__":
    sys.exit(marked_table.main(README, BEGIN, END, table, __doc__.splitlines()[0]))
