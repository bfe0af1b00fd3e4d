"""Whether the attacker's writes landed as sent: the pure half of the front door's C3
(``lab.frontdoor.stored`` reads the stopped store), used by the verdicts and by ``memlab verify``."""

from __future__ import annotations

from collections.abc import Sequence

from lab.frontdoor.observations import Stored, WriteSeen


def folded(text: str) -> str:
    """A text with its spacing and case folded: what a store keeping the write with its whitespace
    collapsed or its first letter raised (atmem's notes) still holds of it."""
    return " ".join(text.split()).casefold()


def holds(sent: str, kept: str, fold: bool = True) -> bool:
    """Whether a stored text ``kept`` holds the text ``sent`` (``fold``: spacing and case folded, row
    schema 4; else character for character, as schemas 1-3 were judged)."""
    return folded(sent) in folded(kept) if fold else sent in kept


def not_as_sent(attacks: Sequence[WriteSeen], stored: Stored, fold: bool = True) -> str | None:
    """Why an accepted attack write did not land as sent (None: each did), from the case's ``stored``
    records: absent, or under another label or signature than the write carried."""
    if stored.error is not None:
        return f"proven stored (C3): the stopped store could not be read: {stored.error}"
    for write in attacks:
        if not write.accepted:
            continue
        found = [r for r in stored.records if holds(write.text, r.text, fold)]
        if not found:
            return "proven stored (C3): an accepted attack write is not in the stopped store"
        if stored.label and not any(r.label == write.label for r in found):
            return (f"proven stored (C3): the attack write was stored with label {found[0].label!r}, "
                    f"not the {write.label!r} sent")
        if stored.signature and not any((r.signature or None) == write.signature for r in found):
            return "proven stored (C3): the attack write was stored with another signature than was sent"
    return None


def refused_yet_stored(attacks: Sequence[WriteSeen], stored: Stored, fold: bool = True) -> bool:
    """Whether a refused attack write is in the stopped store all the same."""
    return any(not w.accepted and any(holds(w.text, r.text, fold) for r in stored.records) for w in attacks)
