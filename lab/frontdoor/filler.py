"""The scale tier's filler: unrelated genuine memories written before every fixture (``--filler N``), so a
store is measured with the victim's memories among many, not alone.

Each filler memory is a deterministic, signed, trusted write in the victim's scope that shares no word
with any question a fixture, control or utility read asks, and carries no canary: on a store that ranks
by meaning it competes for the read's slots as the user's other memories would, and it never answers a
question itself. ``tests/frontdoor/test_frontdoor_filler.py`` holds every filler text to that.
"""

from __future__ import annotations

MAX_FILLER = 10_000  # filler memories before one fixture, at most

_THINGS = ("the kettle in the staff kitchen", "the blue folding chairs", "the choir rehearsal",
           "the cycle racks", "the quarterly newsletter", "the garden hose", "the chess circle",
           "the striped umbrella", "the corridor noticeboard", "the foyer plants", "the birthday cake rota",
           "the lost-property box", "the second-floor printer", "the charity bake sale", "the fire drill",
           "the photocopier toner")
_STATES = ("was cleaned on Thursday", "moved next to the lifts", "needs a new label", "was painted green",
           "starts again after the holidays", "got a thank-you note", "is stored behind the stage",
           "was repaired by volunteers", "has a signing sheet now", "was mentioned at the assembly",
           "is waiting for a replacement part", "looks much tidier")


def filler_text(i: int) -> str:
    """The ``i``-th filler memory (0-based), the same on every run."""
    thing = _THINGS[i % len(_THINGS)]
    state = _STATES[(i // len(_THINGS)) % len(_STATES)]
    return f"Memo {i + 1}: {thing} {state}."


def filler_texts(n: int) -> list[str]:
    """The first ``n`` filler memories (``ValueError`` past ``MAX_FILLER``)."""
    if not 0 <= n <= MAX_FILLER:
        raise ValueError(f"filler must be 0 to {MAX_FILLER}, not {n}")
    return [filler_text(i) for i in range(n)]
