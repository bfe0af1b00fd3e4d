"""The partition of a sharded run (``memlab run --shard K/N``), as a shard records it in run.json.

**The rule.** The unit of work is the row: the selected rows' names, sorted, are dealt out
round-robin, the row at position *i* (from 0) going to shard ``i mod N + 1``. It depends only
on the selection, never on the machine, so every shard computes the same partition and
``memlab merge`` computes it again to check what each shard measured.

**Why rows, not trials.** Every trial of a row is measured against the one store its seeding
wrote: each case starts from a copy of it, the editors address the records by the ids and
versions the SUT gave at seeding, and ``memlab verify`` checks that every case's store dump
is the same seeded store. Seeding cannot be repeated byte for byte on another machine, even
from the same nonce: SUTs choose record ids, timestamps and salts themselves (the reference
JSON-lines store draws a UUID per record, the Markdown one stamps the time). Trials of one row
measured on two shards would be trials of two different seeded stores set side by side as
one, which the set's evidence would contradict. So a shard measures whole rows, and the
trials of a row spread over a machine's ``--jobs`` instead.

A shard's run.json carries ``shard``: its ``index`` and ``count``, the whole ``selection``
(sorted), the rows ``assigned`` to it, the rows it ``skipped`` here (with why) and the
``options`` that must be the same on every shard.
"""

from __future__ import annotations

import re
from typing import Any

SPEC = re.compile(r"^([1-9][0-9]{0,3})/([1-9][0-9]{0,3})$")
RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class ShardSpecError(ValueError):
    """A ``--shard`` or ``--run-id`` value that cannot be used; the message says how to write it."""


def parse_spec(text: str) -> tuple[int, int]:
    """``"K/N"`` as ``(K, N)`` with 1 <= K <= N."""
    found = SPEC.match(text.strip())
    if not found:
        raise ShardSpecError(f"--shard {text!r}: write K/N, shard K of N counted from 1 (e.g. --shard 2/3)")
    index, count = int(found.group(1)), int(found.group(2))
    if index > count:
        raise ShardSpecError(f"--shard {text}: shard {index} of {count} does not exist; K runs from 1 to {count}")
    return index, count


def check_run_id(text: str) -> str:
    """A run id every shard can share: letters, digits, '.', '_' and '-', at most 100."""
    if not RUN_ID.match(text):
        raise ShardSpecError(f"--run-id {text!r}: use 1-100 letters, digits, '.', '_' or '-', starting with a "
                             "letter or digit (e.g. the CI run's id)")
    return text


def partition(names: list[str], index: int, count: int) -> list[str]:
    """The rows of shard ``index`` of ``count``: the sorted ``names`` dealt out round-robin.

    >>> partition(["c", "a", "d", "b", "e"], 1, 2), partition(["c", "a", "d", "b", "e"], 2, 2)
    (['a', 'c', 'e'], ['b', 'd'])
    """
    return [name for i, name in enumerate(sorted(set(names))) if i % count == index - 1]


def shard_record(index: int, count: int, selection: list[str], options: dict[str, Any]) -> dict[str, Any]:
    """The ``shard`` block of a shard's run.json (``skipped`` filled in by the caller as rows are skipped)."""
    return {"index": index, "count": count, "selection": sorted(set(selection)),
            "assigned": partition(selection, index, count), "skipped": {}, "options": dict(options)}
