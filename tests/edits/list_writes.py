"""The write sequence of the list-element stores (tests/edits/test_list_editor*.py): what each
version row holds, whichever backend and layout the test writes it to."""

from __future__ import annotations

from typing import Any, Callable, Iterator, NamedTuple

from edit_stores import CONTEXTS


class Write(NamedTuple):
    """One version row: write ``step`` of context ``ctx``, its ``stage`` (``input`` or ``done``), its
    number ``n`` over all rows, its version ``v`` and the context's list as the row holds it."""

    step: int
    ctx: str
    stage: str
    n: int
    v: str
    messages: list[Any]


def list_writes(message: Callable[[str, int], Any], steps: int = 5) -> Iterator[Write]:
    """Writes 1..steps, the contexts interleaved; each an ``input`` row holding the list as it was,
    then a ``done`` row whose list has ``message(ctx, step)`` appended (a fresh list per row)."""
    n, lists = 0, {c: [] for c in CONTEXTS}
    for i in range(1, steps + 1):
        for ctx in CONTEXTS:
            for stage in ("input", "done"):
                n += 1
                if stage == "done":
                    lists[ctx].append(message(ctx, i))
                yield Write(i, ctx, stage, n, f"{n:08d}", list(lists[ctx]))
