"""Text a SUT or the harness wrote reaches the terminal as text, never as Rich markup: no Docker."""

import io

import pytest
from rich.console import Console

import lab.cli.console as cli
from lab.cases import CASE_IDS
from lab.judge.row import AtRestRow
from lab.report.terminal import print_matrix

REASON = 'open: the SUT refused\n  | ERROR store: cannot lock [/vol/store] ([bold]busy[/])'


def _row(reason: str) -> AtRestRow:
    cells = {cid: {"verdict": "REJECTED", "detection_point": "read"} for cid in CASE_IDS}
    cells[CASE_IDS[0]] = {"verdict": "error", "detection_point": "read", "reason": reason}
    return AtRestRow.model_validate({"row": "toy", "detection_point": "read", "cells": cells, "metric": None,
                                     "level": None, "controls": {"C1": {"ok": True}, "C2": {"ok": True}},
                                     "evaluable": False, "not_evaluable_reason": "C1 failed: [/vol/keys] unreadable"})


def test_a_reason_quoting_a_closing_tag_prints_as_text():
    out = io.StringIO()
    print_matrix([_row(REASON)], Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "cannot lock [/vol/store] ([bold]busy[/])" in text
    assert "C1 failed: [/vol/keys] unreadable" in text


def test_the_cli_prints_an_error_quoting_a_closing_tag_as_text(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=out, width=200, color_system=None))
    with pytest.raises(SystemExit) as done:
        cli.fail("harness failure: OSError: [/vol/store] is busy")
    assert done.value.code == 2
    assert "memlab: harness failure: OSError: [/vol/store] is busy" in out.getvalue()
