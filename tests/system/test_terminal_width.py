"""The verdict matrix is legible on the terminal it is printed on: at 80 columns in its compact form
(one code per case, the key under it), at 200 in its full form. Printed through a pseudo-terminal
of that size, as a user's terminal would show it (rich finds the width from the terminal, colour
on), then read back: every verdict of every row must be there and mean what the row says. No Docker.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from lab.cases import CASE_IDS, GROUPS
from lab.cases.revisions import not_measured
from lab.judge.row import read_row
from lab.report.compact import Code, Codes
from lab.report.terminal import VERDICT_CODES, cell_text
from lab.resultset.loading import load_rows

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "results" / "published"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
PRINT = ("import json, sys\nfrom lab.judge.row import read_row\nfrom lab.report.terminal import print_matrix, "
         "stdout_console\nprint_matrix([read_row(r) for r in json.load(open(sys.argv[1]))], stdout_console())")


def in_terminal(argv: list[str], columns: int) -> str:
    """What ``argv`` shows on a terminal ``columns`` wide (escape sequences removed)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "TTY_COMPATIBLE")}
    proc = subprocess.Popen(argv, cwd=ROOT, env={**env, "TERM": "xterm-256color"}, stdin=slave, stdout=slave,
                            stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every end of the terminal is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert proc.wait(timeout=60) == 0, b"".join(chunks).decode(errors="replace")[-2000:]
    return ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")


def expected(rows: list[dict]) -> list[tuple[str, str, list[str], list[str], str]]:
    """(row, point, cell labels in case order, C1 and C2, metric) of each row, in the matrix's order."""
    out = []
    for row in sorted(rows, key=lambda r: (r["row"], r["detection_point"])):
        controls = ["ok" if row["controls"][c]["ok"] else "FAIL" for c in ("C1", "C2")]
        metric = "—" if row.get("metric") is None else f"{row['metric']:.2f}"
        out.append((row["row"], row["detection_point"], [cell_text(read_row(row).cell(c))[0] for c in CASE_IDS],
                    controls, metric))
    return out


def read_full(text: str) -> list[tuple[str, str, list[str], list[str], str]]:
    """The rows of the full form: one line per row, its cells between box rules."""
    out = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 2 + len(CASE_IDS) + 4:
            out.append((cells[0], cells[1], cells[2:2 + len(CASE_IDS)], cells[-4:-2], cells[-2]))
    return out


def read_compact(text: str) -> list[tuple[str, str, list[str], list[str], str]]:
    """The rows of the compact form: a line per row (its name may wrap onto the next lines), a
    column per group of cases holding a code per case, decoded by the codes' key."""
    body = text.split("─" * 20, 1)[1].splitlines()[1:]
    out: list[list] = []
    for line in body:
        words = line.split()
        if len(words) == 2 + len(GROUPS) + 4:
            labels = [VERDICT_CODES.label(code) for group in words[2:2 + len(GROUPS)] for code in group]
            out.append([words[0], words[1], labels, words[-4:-2], words[-2]])
        elif len(words) == 1 and out and not line.startswith(" "):
            out[-1][0] += words[0]  # the rest of a wrapped row name
        else:
            break  # the key under the table
    return [tuple(r) for r in out]


def every_verdict_rows(path: Path) -> Path:
    """Rows with every verdict (and a case not measured), a failed control, no metric and a long name, as JSON
    at ``path``."""
    verdicts = [{"verdict": "REJECTED", "detection_point": "read"}, {"verdict": "REPORTED", "detection_point": "read"},
                {"verdict": "REPORTED", "detection_point": "audit"}, {"verdict": "ACCEPTED"},
                {"verdict": "error", "reason": "the edit did not land"}, {"verdict": "n/a"}]
    rows = []
    for i, name in enumerate(("memory-blackbox-md+restart+ledger-off", "reference-sealed-postgres", "toy")):
        cells = {cid: verdicts[(i + k) % len(verdicts)] for k, cid in enumerate(CASE_IDS)}
        if i == 2:  # a case a set's older method revision lacks: the cell its row is read with, not measured
            cells[CASE_IDS[-1]] = not_measured("an-older-revision", CASE_IDS[-1])
        rows.append({"row": name, "detection_point": "read", "cells": cells, "evaluable": True,
                     "controls": {"C1": {"ok": i != 1}, "C2": {"ok": True}},
                     "metric": None if i == 1 else 0.5 * i, "level": "L0"})
    path.write_text(json.dumps(rows))
    return path


def sources(tmp_path: Path) -> list[tuple[list[str], list[dict]]]:
    """``memlab show`` on two published sets (the CLI's own console), and rows with every verdict."""
    out = [([sys.executable, "-m", "lab.cli", "show", str(PUBLISHED / name)], load_rows(PUBLISHED / name))
           for name in ("acrf-memory-guard-readme-entry", "memory-blackbox-md")]
    made = every_verdict_rows(tmp_path / "rows.json")
    out.append(([sys.executable, "-c", PRINT, str(made)], json.loads(made.read_text())))
    return out


def test_the_sources_hold_every_verdict(tmp_path):
    labels = {label for _, rows in sources(tmp_path) for row in expected(rows) for label in row[2]}
    assert labels == {c.label for c in VERDICT_CODES.codes}


def test_at_80_columns_the_compact_matrix_keeps_every_verdict(tmp_path):
    for argv, rows in sources(tmp_path):
        text = in_terminal(argv, 80)
        assert max(len(line) for line in text.splitlines()) <= 80, text
        assert "…" not in text and "┃" not in text, text  # nothing cut; not the full form squeezed
        assert read_compact(text) == expected(rows), text
        key = " ".join(text.split())
        shown = {label for row in expected(rows) for label in row[2]}
        for code in VERDICT_CODES.codes:  # an optional code (n/m) is explained where a cell shows it
            explained = f"{code.short} {code.label} {code.meaning}" in key
            assert explained == (not code.optional or code.label in shown), key


def test_at_200_columns_the_full_matrix_is_printed(tmp_path):
    for argv, rows in sources(tmp_path):
        text = in_terminal(argv, 200)
        assert "…" not in text, text
        assert read_full(text) == expected(rows), text
        assert "REJ refused · REP reported at read" in text


def test_codes_that_differ_only_by_case_are_refused():
    with pytest.raises(ValueError):
        Codes([Code("ACC", "A", "accepted"), Code("REP·a", "a", "reported at audit")])
    assert Codes([Code("ACC", "A", "accepted")]).styled("???") == "[magenta]?[/]"
