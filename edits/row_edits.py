"""The edits of whole version rows (:mod:`edits.version_rows`): a rollback deletes the rows newer
than the state before the target's write; on an opaque payload a replace flips one bit of the
current row's payload and a transplant copies a donor row's payload over it (see
:mod:`edits.version_rows` for which row each takes)."""

from __future__ import annotations

from typing import Any

from edits.model import EditError, EditSpec, Record
from edits.ops import REPLACE, ROLLBACK, TRANSPLANT
from edits.plan import Outcome
from edits.records import find_one
from edits.sqlnames import quote as _q


class RowEdits:
    """The whole-row edits, a mixin of :class:`edits.version_rows.VersionRows` (its ``rows``,
    ``current_rows``, ``records``, ``_row_of``, ``_raw``, ``_set_payload`` and ``_run_steps``)."""

    def _roll_back(self, target: Record, op: str) -> Outcome:
        """Rollback: delete every version row of the context newer than the row current after the
        seeding write before the target's (and their cascade rows)."""
        context = target.context
        labelled = [(r, self.versions[str(r["version"])]) for r in self.rows()
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
        doomed = [r for r in self.rows() if r["context"] == context and _rank(r["version"]) > _rank(keep["version"])]
        statements, cascade = self._drop_versions(doomed, keep)
        return Outcome(statements, [str(r["version"]) for r in doomed],
                       {"kept_current": keep["version"], "deleted_versions": [r["version"] for r in doomed],
                        "cascade": cascade})

    def _drop_versions(self, doomed: list[dict[str, Any]], keep: dict[str, Any]) -> tuple[list[str], list[str]]:
        """Delete the ``doomed`` version rows (``keep`` is current afterwards) with their cascade rows, in
        one transaction; (statements run, the cascaded tables)."""
        steps: list[tuple[str, list[Any], bool]] = []
        for row in doomed:
            where, args = self._where_addr(row["addr"])
            steps.append((f"DELETE FROM {_sql_name(self.layout.table)} WHERE {where}", args, True))
            for c in self.spec.cascade:
                where = " AND ".join(f"{_q(k)} = {self.PARAM}" for k in c.key)
                steps.append((f"DELETE FROM {_sql_name(c.table)} WHERE {where}",
                              [row["fields"][k] for k in c.key], False))
        return self._run_steps(steps), [c.table for c in self.spec.cascade]

    def _state_edit(self, spec: EditSpec) -> Outcome:
        """An edit of whole version rows (opaque payloads): replace (a bit flipped), rollback, transplant."""
        if spec.op not in (REPLACE, ROLLBACK, TRANSPLANT):
            raise EditError(f"{spec.op}: the records sit inside an opaque payload; a keyless edit "
                            "cannot address one of them")
        recs = self.records()
        target = find_one(recs, spec.target, "target")
        if spec.op == ROLLBACK:
            return self._roll_back(target, spec.op)
        current = self.current_rows()
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
        stmts = self._run_steps([self._set_payload(victim, self._raw(donor))])
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
        stmts = self._run_steps([self._set_payload(row, raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1:])])
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
