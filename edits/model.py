"""Plain records shared by every generic editor: what a record is, what edit is
intended, and what edit was actually applied.

Nothing here knows any SUT. Records are found by the *markers* the lab wrote
into each seeded text (see ``lab.cases.seedplan``), so an editor never needs to know
which SUT produced the store.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Record:
    """One record as generic tooling sees it in the raw store.

    ``identity`` holds the values of the layout's identity fields (kept by a
    transplant); ``order`` the value of the order key (or the position for
    position-ordered stores); ``payload`` the decoded text the SUT serves;
    ``metadata`` maps semantic names (owner, role, source, timestamp) to values;
    ``fields`` every stored field of the record (for C3 "nothing else changed");
    ``locator`` says where it lives (file, table, rowid, line) for reports;
    ``label`` is the seeded marker the lab attributes to a record whose payload it
    cannot read (an opaque version row, see ``edits.version_rows``), else None.
    ``scope`` holds the values of the other fields of a context made of several
    (``context: [session_id, app_name, user_id]``), in the layout's order; the record is in
    the context ``(context, *scope)``.
    """

    context: str
    identity: tuple
    order: Any
    payload: str
    metadata: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)
    locator: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    derived: dict[str, Any] | None = None  # the store's declared derived values in this context (edits.derived)
    scope: tuple = ()

    def key(self) -> str:
        """Stable key of the record's identity, for diffs."""
        return "|".join(str(v) for v in self.identity)

    def whole_context(self) -> tuple:
        """The context with its scope: what a record of the same context shares with it."""
        return (self.context, *self.scope)

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe view (bytes shown as hex)."""
        return {
            "context": self.context,
            "identity": [_jsonable(v) for v in self.identity],
            "order": _jsonable(self.order),
            "payload": self.payload,
            "metadata": {k: _jsonable(v) for k, v in self.metadata.items()},
            "fields": {k: _jsonable(v) for k, v in self.fields.items()},
            "locator": {k: _jsonable(v) for k, v in self.locator.items()},
            **({"label": self.label} if self.label is not None else {}),
            **({"derived": self.derived} if self.derived is not None else {}),
            **({"scope": [_jsonable(v) for v in self.scope]} if self.scope else {}),
        }


@dataclass(frozen=True)
class EditSpec:
    """The intended edit: one operation (``op``, :mod:`edits.ops`) of a case, addressed by seeded markers.

    ``case`` is the case the edit measures (the lab's id: an editor only reports it back); ``op``
    what the editor does:

    - ``replace``: in the record whose payload contains ``target``, replace ``find`` by
      ``replace`` (same length) wherever it sits in the stored bytes.
    - ``delete``: delete the record carrying ``target``; ``rollback``: take the store back to
      before its write (see :mod:`edits.ops`).
    - ``swap``: exchange the positions of the records carrying ``target`` and ``second``.
    - ``forge``: insert a copy of the record carrying ``target`` (the template) with fresh
      identity, the next order value, and ``find`` replaced by ``replace``
      (same length) in its payload.
    - ``transplant``: copy the record carrying ``donor`` over the record carrying
      ``target``, keeping the victim's identity, context and order.
    - ``set_meta``: set metadata ``meta_field`` of the record carrying ``target`` to
      ``meta_value`` (or, when None, a value derived by ``edits.values``);
      payload untouched.

    **The op is the spec's own.** A spec names its op; the model knows no case. ``to_json`` leaves the op
    out where it is ``implied`` (the op the lab's case asks for by default, which the lab gives), and
    ``from_json`` gives a spec saved without one that op: so the JSON of every spec is what it was
    before specs had an ``op``, the observations saved then (every published result set) read back
    with their case's op and verify byte for byte, and only a spec asking its case for another op than
    its own says so. A spec with no op names no operation: an editor refuses it (EditError).

    ``unit`` is ``record`` (the above) or ``state``: on a store whose records sit
    inside an opaque payload (ciphertext), the edit acts on whole *version rows*
    of a context's state instead -- see ``edits.version_rows`` for what each op does.

    ``variant`` names one other expression of the op that the editor offers for this
    store (``Editor.variants``): None is the editor's default expression; a name such as
    ``place=body`` (replace/set_meta in one place of several) is the editor's own, and an editor
    refuses a name it did not offer (EditError).

    ``seeded`` is what the adversary knows of the target context without the SUT's keys: the
    texts the lab seeded into it, in write order (set only on a layout whose opaque payload
    declares other forms its reader accepts; a ``form=<name>`` variant writes them in that
    form, see ``edits.forms``).

    ``sidecar`` is ``<volume>:emptied`` or ``<volume>:removed``: with the edit, every file of another
    volume the adversary holds (a ledger, trace, receipt or anchor beside the store) truncated to 0
    bytes or removed, by a volume-level operation (``edits.sidecars``), not by the store's editor;
    ``<volume>/<folder>:<op>`` does the same to a sidecar folder the profile declares in a held volume.
    """

    case: str
    context: str
    target: str
    second: str | None = None
    donor: str | None = None
    find: str | None = None
    replace: str | None = None
    meta_field: str | None = None
    meta_value: Any = None
    unit: str = "record"
    variant: str | None = None
    seeded: tuple[str, ...] | None = None
    sidecar: str | None = None
    op: str | None = None

    def to_json(self, implied: str | None = None) -> dict[str, Any]:
        """A JSON-safe view (``unit`` only when it is not the default ``record``, ``variant``,
        ``seeded`` and ``sidecar`` only when set, ``op`` only when set and not ``implied``)."""
        return {k: _jsonable(v) for k, v in self.__dict__.items()
                if (k != "unit" or v != "record") and (k not in ("variant", "seeded", "sidecar") or v is not None)
                and (k != "op" or v not in (None, implied))}

    @classmethod
    def from_json(cls, data: dict[str, Any], implied: str | None = None) -> "EditSpec":
        """The spec ``to_json`` gave (the fields this class has; a missing one takes its default, a
        missing ``op`` ``implied``)."""
        names = set(cls.__dataclass_fields__)
        return cls(**{"op": implied, **{k: v for k, v in data.items() if k in names}})


@dataclass(frozen=True)
class AppliedEdit:
    """What the editor actually did, saved beside the intended edit.

    ``statements`` are the exact SQL statements (with parameters) or file
    operations run; ``touched`` the keys of the records touched;
    ``bytes_changed`` a count of changed bytes in the files written.
    """

    case: str
    backend: str
    statements: list[str]
    touched: list[str]
    bytes_changed: int = 0
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe view."""
        return {
            "case": self.case,
            "backend": self.backend,
            "statements": list(self.statements),
            "touched": list(self.touched),
            "bytes_changed": self.bytes_changed,
            "detail": {k: _jsonable(v) for k, v in self.detail.items()},
        }


class EditError(Exception):
    """An edit could not be applied (record not found, layout mismatch...)."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, (uuid.UUID, datetime.date, datetime.time, decimal.Decimal)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value
