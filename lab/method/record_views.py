"""The records the generic editor read, as C3 and the observation hold them: ``Record.to_json()``.

A trial reads one store two or three times (before and after its edit; a restore case before, after
the SUT's op and after the restore), and the reads differ in the few records the edit touched. A
later read here shares every record it finds unchanged with the earlier read: the view is the
earlier read's own object, so a trial holds one store and what changed, never two whole stores.
Unchanged means the same as written and as C3 compares: the same JSON types throughout (``1``,
``1.0`` and ``true`` are equal in Python, and differ in a saved file and in a record's signature).

    >>> before = [{"payload": "a", "n": 1}, {"payload": "b", "n": 2}]
    >>> after = shared([{"payload": "a", "n": 1}, {"payload": "b", "n": 2.0}], before)
    >>> after[0] is before[0], after[1] is before[1], after == before
    (True, False, True)
"""

from __future__ import annotations

from typing import Any

from lab.judge.json_same import same

Rec = dict[str, Any]


def views(read: list, earlier: list[Rec] | None = None) -> list[Rec]:
    """The JSON views of the Records ``read``, each Record let go once viewed (``read`` is emptied);
    with ``earlier``, each view unchanged from one of ``earlier``'s is that one (see the module)."""
    out = []
    for i in range(len(read)):
        out.append(read[i].to_json())
        read[i] = None  # the Record goes as its view comes: never both whole
    read.clear()
    return shared(out, earlier) if earlier is not None else out


def shared(recs: list[Rec], earlier: list[Rec]) -> list[Rec]:
    """``recs``, each record unchanged from one of ``earlier``'s replaced (in place) by that one.

    Walks both in step; where they part (a record edited, inserted or deleted) it finds its place
    in ``earlier`` again by the record's context and payload. No record of ``earlier`` is shared
    twice, so no two records of the result are one object where the read gave two."""
    at: dict[tuple, int] | None = None
    j = 0
    for i, rec in enumerate(recs):
        if j < len(earlier) and same(rec, earlier[j]):
            recs[i], j = earlier[j], j + 1
            continue
        if at is None:  # the first parting: an index of where each record of earlier sits
            at = {}
            for k, old in enumerate(earlier):
                at.setdefault(_key(old), k)
        k = at.get(_key(rec))
        if k is not None and k >= j and same(rec, earlier[k]):  # forward only: each shared once
            recs[i], j = earlier[k], k + 1
    return recs


def _key(rec: Rec) -> tuple:
    return rec.get("context"), repr(rec.get("payload"))


