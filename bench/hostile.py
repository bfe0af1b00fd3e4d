"""Hostile classes beyond a tampered set's bytes, tried against memlab's writers and readers.

A class is one thing a hostile folder, set, store, SUT, machine or signal does, played against the
real commands (a new process each, as a user runs them): a link planted where memlab writes, text a
terminal would obey, a field of the wrong type, a store file linked out of its volume, a full or
read-only disk, a folder one may not read, SIGTERM mid-run. It *holds* when memlab does what the
class names (refuses with exit 2 naming the path and the fix, writes nothing through the link, prints
the text inert, keeps a set that verifies or says PARTIAL) and never prints a traceback.
``bench/tamper.py`` runs these after its verify table; ``tests/adversarial/test_hostile_classes.py`` asserts each.
The classes live in ``hostile_writes``, ``hostile_reads``, ``hostile_machine`` and ``hostile_iii``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_base import Bed, Hostile, tried  # noqa: E402,F401 (re-exported for the tests)
from hostile_iii import BOUNDARY  # noqa: E402
from hostile_machine import MACHINE  # noqa: E402
from hostile_reads import READS  # noqa: E402
from hostile_writes import WRITES  # noqa: E402

#: Every hostile class, by kind: writers, readers, stores and SUTs, the machine and signals.
CLASSES: tuple[Hostile, ...] = (*WRITES, *READS, *MACHINE, *BOUNDARY)


def table(bed: Bed, out=print) -> list[tuple[Hostile, bool, str]]:
    """Try every class on ``bed``; print a line each; the outcomes."""
    outcomes = []
    for hostile in CLASSES:
        held, said = tried(hostile, bed)
        outcomes.append((hostile, held, said))
        out(f"{'held' if held else 'NOT HELD':<9} {hostile.kind:<8} {hostile.name:<70} {said[:110]}")
    return outcomes
