"""The restore family (T9 a genuine write, T10 an erasure): C3 over what the SUT's own operation
changed between the copy of the store and putting the copy back (the copy's equality with the
restored store is the judge's, common to every restore case)."""

from __future__ import annotations


def changed_exactly(op: str, verb: str, kind: str):
    """C3: the SUT's ``op`` (as the message names it) ``kind`` ('added' | 'removed') exactly the
    named records and did nothing else; ``verb`` is the infinitive for the message."""
    other = "removed" if kind == "added" else "added"

    def rule(view, named, before, mid) -> list[str]:
        added, removed = view.between(before, mid)
        got = {"added": added, "removed": removed}
        if got[kind] != sorted(named) or got[other]:
            return [f"the {op} should {verb} exactly {named}; it {kind} {got[kind]}, {other} {got[other]}"]
        return []
    return rule
