"""The version rows of a list editor (:class:`edits.lists.ListEditor`), and the edits of whole rows
(:mod:`edits.version_rows`): a rollback deletes the rows newer than the state before the target's
write; on an opaque payload a replace flips one bit of the current row's payload and a transplant
copies a donor row's payload over it (see :mod:`edits.version_rows` for which row each takes); a
``version=new`` edit adds a version row."""

from __future__ import annotations

from typing import Any

from edits import paths
from edits.model import EditError, EditSpec, Record
from edits.ops import REPLACE, ROLLBACK, TRANSPLANT
from edits.plan import Outcome
from edits.records import find_one
from edits.sqlnames import quote as _q
from edits.values import next_version


class RowEdits:
    """The version rows and the whole-row edits, a mixin of :class:`edits.lists.ListEditor` (its
    ``store``, ``spec``, ``versions``, ``opaque`` and ``records``)."""

    def row_records(self) -> list[Record]:
        """Every version row as a Record (an opaque payload's records), labelled by the reported versions."""
        lay = self.layout
        return [Record(context=r["context"], identity=(r["version"],), order=r["version"], payload="",
                       fields=r["fields"], label=self.versions.get(str(r["version"])),
                       locator={"file": lay.file, "table": lay.table, **r["addr"], "version": r["version"]})
                for r in self.store.rows()]

    def _raw(self, row: dict[str, Any]) -> Any:
        """The stored payload value of a version row."""
        if row["payload"] is None:
            raise EditError(f"{self.layout.table} {_at(row)}: no payload row")
        return row["payload"]["fields"][self.layout.payload.field]

    def _row_of(self, rec: Record) -> dict[str, Any]:
        rows = [r for r in self.store.rows() if all(rec.locator.get(k) == v for k, v in r["addr"].items())]
        if not rows:
            raise EditError(f"the version row of record {rec.key()} is gone")
        return rows[0]

    def _set_payload(self, row: dict[str, Any], value: Any) -> tuple:
        """The step that stores ``value`` as the payload of a version row (in its payload row)."""
        self._raw(row)
        return self.store.payload_step(row, value)

    def adds_versions(self) -> bool:
        """Whether a new version row can be written here: a readable payload in the version row itself
        (a payload in another table's row, ``payload_row``, would need a new row there and the key that
        names it rewritten; PostgreSQL's JSON columns need their adapter: neither is built)."""
        return not self.opaque and self.spec.payload_row is None and self.backend != "postgres"

    def _add_version(self, row: dict[str, Any], tree: Any, operation: str) -> tuple[list[str], dict[str, Any]]:
        """A new newest version row of ``row``'s context, of the adversary's authorship: a copy of ``row``
        with a fresh version value (greater than every version of the context, and put wherever the
        payload held the old one), the parent link (``records.parent``) to ``row``, the payload ``tree``."""
        if not self.adds_versions():
            raise EditError(f"{self.backend}: no new version row can be written for this layout")
        taken = [r["version"] for r in self.store.rows() if r["context"] == row["context"]]
        try:
            old, new = row["version"], next_version(max(taken, key=_rank), taken)
        except ValueError as exc:
            raise EditError(f"{self.layout.table} {_at(row)}: {exc}") from None
        if isinstance(old, str):
            tree = paths.map_strings(tree, lambda s: new if s == old else s)
        fields = {**row["fields"], self.spec.version: new,
                  self.layout.payload.field: paths.encode_like(self._raw(row), tree, self.layout.payload.format)}
        if self.spec.parent:
            fields[self.spec.parent] = old
        statements = self.store.run_steps(self.store.insert_version(row, fields))
        return statements, {"row": {**row["addr"], "version": old}, "new_version": new,
                            **({"parent": old} if self.spec.parent else {}),
                            "operation": f"{operation}, in a new version row {new} after {old}"}

    def _roll_back(self, target: Record, op: str) -> Outcome:
        """Rollback: delete every version row of the context newer than the row current after the
        seeding write before the target's (and their cascade rows)."""
        context = target.context
        labelled = [(r, self.versions[str(r["version"])]) for r in self.store.rows()
                    if r["context"] == context and str(r["version"]) in self.versions]
        marks = [m for _, m in labelled]
        mark = target.label or next((m for m in marks if m in target.payload), None)
        if not self.versions or mark not in marks:
            raise EditError(f"{op} on version rows needs the version the SUT reported for each seeding write "
                            f"(none known for the target {target.key()})")
        k = marks.index(mark)
        if k == 0:
            raise EditError(f"{op}: the target is the first record of its context; no earlier state to keep")
        keep = labelled[k - 1][0]
        doomed = [r for r in self.store.rows() if r["context"] == context and _rank(r["version"]) > _rank(keep["version"])]
        statements, cascade = self.store.drop_versions(doomed, keep)
        return Outcome(statements, [str(r["version"]) for r in doomed],
                       {"kept_current": keep["version"], "deleted_versions": [r["version"] for r in doomed],
                        "cascade": cascade})

    def _state_edit(self, spec: EditSpec) -> Outcome:
        """An edit of whole version rows (opaque payloads): replace (a bit flipped), rollback, transplant."""
        if spec.op not in (REPLACE, ROLLBACK, TRANSPLANT):
            raise EditError(f"{spec.op}: the records sit inside an opaque payload; a keyless edit "
                            "cannot address one of them")
        recs = self.records()
        target = find_one(recs, spec.target, "target")
        if spec.op == ROLLBACK:
            return self._roll_back(target, spec.op)
        current = self.store.current_rows()
        victim = current[spec.context or target.context]
        if spec.op == REPLACE:
            return self._flip_bit(victim, spec.op)
        donor_rec = find_one(recs, spec.donor or "", "donor")
        if donor_rec.context != victim["context"]:  # another context: its current state
            donor = current[donor_rec.context]
        else:  # the victim's own context: the donor's own (older) version row
            donor = self._row_of(donor_rec)
            if donor["addr"] == victim["addr"]:
                raise EditError(f"{spec.op}: the donor row is the victim's own row")
        stmts = self.store.run_steps([self._set_payload(victim, self._raw(donor))])
        return Outcome(stmts, [str(victim["version"])],
                       {"row": {**victim["addr"], "version": victim["version"]},
                        "donor": {**donor["addr"], "version": donor["version"]},
                        "operation": f"copy {self.layout.payload.field} of the donor version row over the victim's"})

    def _flip_bit(self, row: dict[str, Any], op: str) -> Outcome:
        """A replace on an opaque payload: flip the lowest bit of the payload's middle byte."""
        raw = bytes(self._raw(row))
        if not raw:
            raise EditError(f"{op}: the current version row has an empty payload")
        at = len(raw) // 2
        stmts = self.store.run_steps([self._set_payload(row, raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1:])])
        return Outcome(stmts, [str(row["version"])], {"row": {**row["addr"], "version": row["version"]},
                                                      "operation": f"flip bit 0 of byte {at} of {len(raw)}"})


def _rank(value: Any) -> tuple:
    """A version value's place in the order: numbers by value, before anything else by text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, str(value))


def _sql_name(table: str) -> str:
    """A table name as SQL; ``schema.table`` quoted part by part."""
    return ".".join(_q(part) for part in table.split("."))


def _at(row: dict[str, Any]) -> str:
    """A version row's address for messages (rowid 3, pk {...})."""
    return ", ".join(f"{k} {v}" for k, v in row["addr"].items())
