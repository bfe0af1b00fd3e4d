"""The lifecycle table is legible on the terminal it is printed on: at 80 columns in its compact form
(one code per check, the key under it), and in its full form on a terminal as wide as the full table
(one column narrower: the compact form again). Every published lifecycle row
(each position its own line) printed through a pseudo-terminal of that size, then read back: every
check's status and every gate must be there and be the row's. No Docker."""

from __future__ import annotations

import json
import re
import sys

from test_terminal_width import ROOT, in_terminal

from lab.lifecycle.judgement import CHECKS
from lab.report.lifecycle import STATUS_CODES

ROWS = sorted((ROOT / "results" / "published").glob("*/lifecycle/rows/*.json"))
PRINT = ("import json, sys\nfrom lab.report.lifecycle import print_report\nfrom lab.report.terminal import stdout_console\n"
         "print_report([json.load(open(p)) for p in sys.argv[1:]], {}, stdout_console())")
GATES = "PASS|FAIL|INCONCLUSIVE|error"
LINE = re.compile(r"^(?P<name>\S*)\s+(?P<codes>(?:[PFn]\s+){4}[PFn])\s+\d+/\d+\s+\S+\s+(?P<gate>" + GATES + r")\s*$")


def expected() -> dict[str, tuple[list[str], str]]:
    """row@position -> (each check's status, in the checks' order; the row's status)."""
    out = {}
    for path in ROWS:
        row = json.loads(path.read_text())
        out[f"{row['row']}@{row['position']}"] = ([row["checks"][c]["status"] for c in CHECKS], row["status"])
    return out


def show(columns: int) -> str:
    return in_terminal([sys.executable, "-c", PRINT, *map(str, ROWS)], columns)


def test_at_80_columns_every_check_of_every_row_reads_back_from_its_code():
    text = show(80)
    assert max(len(line) for line in text.splitlines()[:len(ROWS) + 6]) <= 80
    assert "P PASS passed" in text and "SL scope_leakage (P1)" in text  # the key under the table
    read, name = {}, None
    body = text.split("─" * 20, 1)[1].splitlines()[1:]
    for line in body:
        found = LINE.match(line)
        if found:
            name = found["name"]
            read[name] = ([STATUS_CODES.label(c) for c in found["codes"].split()], found["gate"])
        elif name is not None and line.strip() and "PASS passed" not in line and re.fullmatch(r"\S+", line.strip()):
            read[name + line.strip()] = read.pop(name)  # a folded row name: the rest of it on the next line
            name += line.strip()
        else:
            name = None
        if "PASS passed" in line:
            break
    assert read == expected()


def full_width() -> int:
    """The columns the full table of every published row takes (it grows with the longest row name)."""
    from rich.console import Console

    from lab.report.compact import natural_width
    from lab.report.lifecycle import table
    return natural_width(Console(), table([json.loads(p.read_text()) for p in ROWS]))


def test_as_wide_as_the_full_table_it_shows_every_status_and_gate_and_one_column_less_is_compact():
    width = full_width()
    assert "SL DR SR EL" in show(width - 1)
    text = show(width)
    assert "SL DR SR EL" not in text  # the full form, not the compact one
    read = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 1 + len(CHECKS) + 4 and cells[0] and "@" in cells[0]:
            read[cells[0]] = (cells[1:1 + len(CHECKS)], cells[1 + len(CHECKS) + 2])
    assert read == expected()
