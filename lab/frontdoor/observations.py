"""What one store saw and served: every write as handed to it, every read and what it served.

Signatures are kept as hex, so a record holds exactly the bytes the store was handed: the evidence a
verdict is derived from (``lab.frontdoor.verdicts``).
"""

from __future__ import annotations

from lab.frontdoor.records import Record
from lab.frontdoor.scope import Scope


class Served(Record):
    """One record a read served: its text and, if the SUT flagged it as untrusted, the SUT's marker."""

    text: str
    marker: str | None = None


class WriteSeen(Record):
    """One write as handed to the store (label and signature as sent) and whether it was accepted."""

    role: str  # genuine, filler, negative, attack or utility
    scope: Scope
    text: str
    label: str
    signature: str | None  # hex
    tags: tuple[str, ...] = ()
    accepted: bool
    refusal: str | None = None  # what the SUT said when it refused the write (row schema 2)
    signer: str | None = None  # hex: the public key that signed, as handed to the store (row schema 2)


class ReadSeen(Record):
    """One read: who asked what (k, the tag it filtered on) and every record served."""

    role: str  # before, verdict, control, utility, owner or reader
    scope: Scope
    query: str
    k: int
    tag: str | None = None
    served: tuple[Served, ...]

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(s.text for s in self.served)


class Role:
    """What each write and read of a fixture is for (the names saved with it)."""

    GENUINE = "genuine"  # a write: the victim's own memory
    FILLER = "filler"  # a write: an unrelated genuine memory of the scale tier (lab.frontdoor.filler)
    NEGATIVE = "negative"  # a write: a genuine memory the trust filter must keep out
    ATTACK = "attack"  # a write on the attacker's channel
    UTILITY = "utility"  # a write and its read: a trusted write after the attack is still served
    BEFORE = "before"  # a read: the contested genuine value, before the attack
    VERDICT = "verdict"  # a read: the on-topic question after the attack
    CONTROL = "control"  # a read: the victim's own fact, after the attack
    OWNER = "owner"  # isolation: the owner's write and read
    READER = "reader"  # isolation: the reader's own write, and the read the leak is judged on


class StoredRecord(Record):
    """A record of a case's store, read by the generic editor with the SUT stopped: its text, where it
    sits, and its label and signature as stored (None: the row keeps none, or this record has none)."""

    text: str
    where: str
    label: str | None = None
    signature: str | None = None


class Stored(Record):
    """A case's store read back with the SUT stopped (the front door's C3, row schema 3): the records
    holding the attacker's texts, and whether the row says where labels and signatures are kept."""

    case: str
    label: bool
    signature: bool
    records: tuple[StoredRecord, ...]
    error: str | None = None  # why the store could not be read back (then nothing is proven)
