"""Filters for a verdict matrix, without a script: a checkbox that keeps only the rows with a failing
(ACCEPTED) cell and fades the other cells, and one radio button per SUT that keeps only its rows.

Each row of the matrix carries classes (:func:`row_classes`) and the page a style block
(:func:`filter_css`) of ``body:has(#f-… :checked)`` rules, so the filters work in a file, a CI
artifact or a mail attachment alike, as the rest of the page does.
"""

from __future__ import annotations

import re
from html import escape
from typing import TYPE_CHECKING

from lab.cases import CASE_IDS

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow


def sut_of(row: AtRestRow) -> str:
    """The SUT a row measures: its package (the row name when it states none)."""
    return str((row.sut or {}).get("package") or row.row or "?")


def _key(sut: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", sut.lower()).strip("-") or "x"


def failing(row: AtRestRow) -> bool:
    """Whether any case of the row was ACCEPTED (the edit served as genuine)."""
    return any(row.cell(c).verdict == "ACCEPTED" for c in CASE_IDS)


def row_classes(row: AtRestRow) -> str:
    """``sut-<key>`` and ``clean`` (no ACCEPTED cell) for one row."""
    return f"sut-{_key(sut_of(row))}" + ("" if failing(row) else " clean")


def filter_bar(rows: list[AtRestRow]) -> str:
    """The checkbox and the SUT radio buttons (one per SUT among ``rows``, in order of appearance)."""
    suts = list(dict.fromkeys(sut_of(r) for r in rows))
    radios = "".join(f'<label><input type="radio" name="f-sut" id="f-sut-{_key(s)}"> {escape(s)}</label> '
                     for s in suts)
    return ('<form class="filters" id="filters"><label><input type="checkbox" id="f-fail"> only rows with a '
            'failing cell (ACC), the others faded</label><br>SUT: <label><input type="radio" name="f-sut" '
            f'id="f-sut-all" checked> all</label> {radios}</form>')


def filter_css(rows: list[AtRestRow]) -> str:
    """The rules that make the filters work."""
    keys = list(dict.fromkeys(_key(sut_of(r)) for r in rows))
    per_sut = "".join(f"body:has(#f-sut-{k}:checked) #matrix tbody tr:not(.sut-{k}){{display:none}}" for k in keys)
    return (".filters{margin:4px 0 8px;color:#57606a}.filters label{margin-right:10px;white-space:nowrap}"
            "body:has(#f-fail:checked) #matrix tbody tr.clean{display:none}"
            "body:has(#f-fail:checked) #matrix a.cell:not(.acc){opacity:.25}" + per_sut)
