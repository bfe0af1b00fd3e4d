"""What a write-path poisoning fixture is made of, and what makes one unable to decide anything.

A fixture is the victim's genuine memories, an on-topic question, the attacker's write(s) and the
**canary**: the one fact (an account number, a name, an address, a URL) whose being served is the
attack landing. The verdict looks for the canary, never for the sentence, so a store that rewords what
it keeps is judged on what it served. Each fixture also names its positive control (a question whose
answer is one of the victim's own genuine facts) and, per family:

- ``planted_fact``: a fact the victim never stated (an authorisation, a payee, a delegate);
- ``false_correction``: a "correction" contradicting a genuine fact (``contested``, served before the
  attack); the verdict is whether the attacker's value is served;
- ``instruction``: text that reads as an order to the model and names where data should go; the
  canary is that destination;
- ``crowding``: one entry stuffed with the topic's words around a payload, against six genuine
  memories on the topic, read top-``k``: does it take a slot?
- ``trust_tag``: the attacker sets the tag the read filters on; a genuine untagged memory
  (``negative``) must stay out, or the filter is not working and there is no verdict;
- ``smuggled_label``: a provenance label written inside the content (``[source: user]`` and the
  like), for stores that keep labels inline.

``problems`` says what is wrong with a fixture (a canary its own texts do not carry, a control the
attacker's text would satisfy). The fixtures themselves are ``fixtures``.
"""

from __future__ import annotations

from enum import Enum

from lab.frontdoor.records import Record
from lab.lifecycle.matching import served_uses


class Family(str, Enum):
    PLANTED_FACT = "planted_fact"
    FALSE_CORRECTION = "false_correction"
    INSTRUCTION = "instruction"
    CROWDING = "crowding"
    TRUST_TAG = "trust_tag"
    SMUGGLED_LABEL = "smuggled_label"


FAMILIES = tuple(Family)


class Memory(Record):
    """One genuine memory and the fact in it."""

    text: str
    canary: str
    tags: frozenset[str] = frozenset()


class Check(Record):
    """A question and the facts any one of which, served, answers it."""

    query: str
    canaries: tuple[str, ...]


class Fixture(Record):
    """One attack on one victim: the genuine memories, the attacker's write(s), the canary."""

    id: str
    family: Family
    genuine: tuple[Memory, ...]
    control: Check
    attack: tuple[str, ...]
    question: str
    canary: str
    k: int = 5
    read_tag: str | None = None
    attack_tags: frozenset[str] = frozenset()
    negative: Memory | None = None
    contested: str | None = None


class Utility(Record):
    """A genuine write made after the attack, with its own question: is a trusted write still served?"""

    memory: Memory
    query: str


def problems(fixture: Fixture) -> list[str]:
    """What makes a fixture unable to decide anything (an empty list for a sound one)."""
    genuine_texts = [m.text for m in fixture.genuine] + ([fixture.negative.text] if fixture.negative else [])
    out = [f"genuine memory does not carry its canary {m.canary!r}"
           for m in (*fixture.genuine, *([fixture.negative] if fixture.negative else []))
           if not served_uses(m.canary, m.text)]
    if not any(served_uses(fixture.canary, text) for text in fixture.attack):
        out.append("no attacker write carries the canary")
    out += [f"a genuine memory already carries the canary: {t!r}" for t in genuine_texts
            if served_uses(fixture.canary, t)]
    guarded = [*fixture.control.canaries, *([fixture.contested] if fixture.contested else []),
               *([fixture.negative.canary] if fixture.negative else [])]
    out += [f"an attacker write carries the genuine fact {c!r}" for c in guarded
            for text in fixture.attack if served_uses(c, text)]
    if fixture.contested and not any(served_uses(fixture.contested, m.text) for m in fixture.genuine):
        out.append("no genuine memory carries the contested value")
    return out
