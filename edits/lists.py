"""Generic editor for records that are elements of a list inside one stored value (sqlite, postgres, redis).

The layout's ``records:`` block (see :mod:`edits.layout_records`) says: each row of the
table is one *version* of a context's state (the rows: :mod:`edits.version_rows`); the
newest version row of a context is current; every element of the list at
``payload.path`` inside its payload (JSON or MessagePack) is one record, with its
text, identity and metadata at paths inside the element. One editor, :class:`ListEditor`, serves
every store of them: it holds the store of its version rows -- a SQL table read and written through
its dialect editor (:class:`edits.version_rows.SqlVersions`, built by :func:`edits.sqlite.list_editor`
and :func:`edits.postgres.list_editor`) or RedisJSON documents
(:class:`edits.redis_json.JsonVersions`) -- and takes the element edits
(:class:`edits.elements.ElementEdits`, also under :mod:`edits.jsonfiles`), the whole-row edits
(:mod:`edits.row_edits`) and the other forms of a sealed payload (:mod:`edits.forms`) as its own.
LangGraph's checkpointers keep memory this way (a message = an element of
``channel_values.messages`` in the newest checkpoint).

Every edit rewrites the payload of one current version row (re-encoded; a
MessagePack blob only when it re-encodes byte for byte, and the token a replace
writes has the length of what it replaces, so a replace changes only those bytes):

- ``replace`` replaces the token in the target element; ``delete`` removes the element;
  ``swap`` exchanges two elements; ``forge`` appends a copy of the template element with
  fresh identity values and the marker replaced; ``transplant`` puts a copy of the donor
  element in the victim's place with the victim's identity values; ``set_meta`` sets a
  metadata path inside the element.
- ``rollback`` deletes the version rows newer than the state before the target's write
  (:mod:`edits.version_rows`, which also edits opaque payloads, whole rows only).

The other expressions a readable payload allows (``EditSpec.variant``, offered by ``variants``
by operation):

- rollback ``element``: the newest element removed inside the current version row, which stays
  current;
- delete and forge ``version=new``: the element removed or the forged one appended in a *new*
  newest version row of the adversary's authorship -- a copy of the current row with a fresh
  version value (counted up from the newest, also where the payload holds the old one), its parent
  link (``records.parent``) to the genuine newest -- the genuine rows untouched. Not offered where
  the list sits in another table's row (``records.payload_row``) or on PostgreSQL;
- swap ``swap=contents``: the texts (``records.text``) of the two elements exchanged, each keeping
  its identity and metadata in its place (the default exchanges the whole elements);
- set_meta ``place=<path>``: where the layout declares a field at several places of the element,
  one place alone set (the default sets them all, consistently).

Deleting a record from the middle of a list cannot be expressed by removing whole version rows: a
context's list only grows, so every genuine version lacking that record lacks the later ones too
(that is a rollback). Nor can re-pointing parent links reorder records (a swap): they order the
versions, and the newest version's list is served whatever its parents are.

Example::

    >>> import sqlite3, tempfile, pathlib
    >>> from edits import base, layout, model, msgpack
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> db = sqlite3.connect(vol / "cp.db")
    >>> _ = db.execute("CREATE TABLE cp (thread TEXT, v TEXT, blob BLOB)")
    >>> msgs = [{"id": f"id{i}", "role": "user", "text": f"[mA{i}-abcdef] note {i}"} for i in range(3)]
    >>> _ = db.execute("INSERT INTO cp VALUES ('A', '001', ?)", (msgpack.pack({"messages": msgs}),))
    >>> db.commit(); db.close()
    >>> lay = layout.parse_layout({"backend": "sqlite", "volume": "store", "file": "cp.db", "table": "cp",
    ...                            "context": "thread", "order": "@position",
    ...                            "payload": {"field": "blob", "format": "msgpack", "path": ["messages"]},
    ...                            "records": {"text": ["text"], "identity": [["id"]], "metadata": {"role": ["role"]},
    ...                                        "version": "v"}})
    >>> editor = base.editor_for(lay, {"store": vol})
    >>> [r.key() for r in editor.records()]
    ['id0', 'id1', 'id2']
    >>> editor.apply(model.EditSpec("demo", "A", "mA1-abcdef", op="delete")).detail
    {'row': {'rowid': 1, 'version': '001'}, 'operation': 'remove element 1 of messages'}
    >>> [r.key() for r in editor.records()]
    ['id0', 'id2']
"""

from __future__ import annotations

from typing import Any

from edits import msgpack, paths
from edits.elements import ElementEdits, element_record
from edits.forms import FormRows  # forms: the other forms an opaque payload's reader accepts
from edits.model import AppliedEdit, EditError, EditSpec, Record
from edits.ops import DELETE, FORGE, ROLLBACK, SET_META, SWAP
from edits.places import meta_variants
from edits.plan import SWAP_CONTENTS, EditorBase, Outcome, Plan  # SWAP_CONTENTS: the texts, each element's identity kept
from edits.records import changed_bytes_in, read_files, sort_records
from edits.row_edits import RowEdits, _at


LAST_ELEMENT = "element"  # rollback: the newest element removed inside the newest version row
NEW_VERSION = "version=new"  # delete, forge: the edit in a new newest version row, the genuine ones untouched


class ListEditor(ElementEdits, RowEdits, FormRows, EditorBase):
    """Records = elements of a list inside the current version row of each context, the rows read and
    written through ``store`` (see the module), whose ``layout``, ``backend``, ``files``, ``rows``,
    ``current_rows``, ``run_steps``, ``payload_step``, ``insert_version``, ``drop_versions``,
    ``variants`` and ``apply_variant`` it uses. ``versions``: version value -> marker of the seeding
    write that made it current (:mod:`edits.version_rows`)."""

    def __init__(self, store: Any, versions: dict[str, str] | None = None):
        if store.layout.records is None:
            raise ValueError(f"the {store.backend} list editor needs a layout with records:")
        self.store, self.layout, self.backend = store, store.layout, store.backend
        self.spec = store.layout.records
        self.versions: dict[str, str] = {str(k): v for k, v in (versions or {}).items()}
        self.opaque = store.layout.payload.format == "opaque"

    def files(self) -> list:
        """The files an edit may write: the store's."""
        return self.store.files()

    def variants(self, spec: EditSpec, records: list[Record]) -> list[str]:
        """The other expressions of an operation on a readable payload (see the module): rollback
        ``element``, delete and forge ``version=new`` (where a version row can be added), swap
        ``swap=contents``, set_meta one ``place=`` per place of a field kept at several."""
        if self.opaque or spec.unit == "state":  # a sealed payload's: the store's, the forms its reader accepts
            return [*self.store.variants(spec, records), *self.form_variants(spec)]
        if spec.op == SET_META:
            return meta_variants(self.spec.places_of(spec.meta_field)) if spec.meta_field in self.spec.metadata else []
        new = [NEW_VERSION] if self.adds_versions() else []
        return {ROLLBACK: [LAST_ELEMENT], DELETE: new, SWAP: [SWAP_CONTENTS], FORGE: new}.get(spec.op, [])

    def records(self) -> list[Record]:
        """Elements of every context's current row; for an opaque payload, every version row."""
        if self.opaque:
            return self.sealed_records()  # forms: a row in a form the reader accepts reads as its records
        out = []
        for row in self.store.current_rows().values():
            for i, element in enumerate(self._elements(row)):
                out.append(self._element_record(row, i, element))
        return sort_records(out)

    def _tree(self, row: dict[str, Any]) -> Any:
        try:
            return paths.parse(self._raw(row), self.layout.payload.format)
        except EditError as exc:
            raise EditError(f"{self.layout.table} {_at(row)}: {exc}") from None

    def _elements(self, row: dict[str, Any], tree: Any = None) -> list[Any]:
        if row["payload"] is None and tree is None:
            return []  # no payload row yet (a context's first, empty state)
        found = paths.get_path(self._tree(row) if tree is None else tree, self.layout.payload.path)
        if found is paths.MISSING:
            return []  # a version row with no list yet (a context's first, empty state)
        if not isinstance(found, list):
            raise EditError(f"{self.layout.table} {_at(row)}: the value at "
                            f"{list(self.layout.payload.path)} is not a list")
        return found

    def _element_record(self, row: dict[str, Any], index: int, element: Any) -> Record:
        spec, lay = self.spec, self.layout
        return element_record(spec, row["context"], index, element,
                              {"file": lay.file, "table": lay.table, **row["addr"], "version": row["version"],
                               **({"parent": row["fields"].get(spec.parent)} if spec.parent else {}),
                               "index": index})

    # -- applying ---------------------------------------------------------

    def apply(self, spec: EditSpec) -> AppliedEdit:
        """Apply one edit: element edits on a readable payload, version-row edits on an opaque one."""
        if self.opaque and self.is_form_variant(spec):  # forms: a form the reader accepts (edits.forms)
            return self.apply_form(spec)
        if self.opaque or spec.unit == "state":
            if not self.opaque or spec.unit != "state":
                raise EditError(f"{spec.op}: unit {spec.unit!r} does not fit a "
                                f"{self.layout.payload.format} payload (opaque payloads take unit state)")
            before = read_files(self.files())
            out = self._state_edit(spec)
            return AppliedEdit(case=spec.case, backend=self.backend, statements=out.statements,
                               touched=out.touched, bytes_changed=changed_bytes_in(before), detail=out.detail)
        return super().apply(spec)

    def _apply_variant(self, spec: EditSpec) -> AppliedEdit | None:
        """The store's variant applied as a whole edit (a SQL table's ``derived=recomputed``), or None."""
        return self.store.apply_variant(self, spec)

    def _rewrite(self, row: dict[str, Any], change, variant: str | None = None) -> tuple[list[str], dict[str, Any]]:
        """Decode the row's payload, let ``change(list)`` edit its list, re-encode and store it (variant
        ``version=new``: in a new newest version row instead, the genuine row untouched)."""
        raw = self._raw(row)
        fmt = self.layout.payload.format
        if fmt == "msgpack" and not msgpack.roundtrips(raw):
            raise EditError(f"{self.layout.table} {_at(row)}: the MessagePack payload does not "
                            "re-encode byte for byte; refusing to rewrite it")
        tree = self._tree(row)
        items = list(self._elements(row, tree))
        operation = change(items)
        path = self.layout.payload.path
        if variant == NEW_VERSION:
            return self._add_version(row, paths.set_path(tree, path, items), operation)
        new = paths.write(raw, path, items, fmt) if path else paths.encode_like(raw, items, fmt)
        statements = self.store.run_steps([self._set_payload(row, new)])
        held = {"payload_row": {"table": row["payload"]["table"], **row["payload"]["addr"]}} if self.spec.payload_row else {}
        return statements, {"row": {**row["addr"], "version": row["version"]}, **held, "operation": operation}

    def _list_name(self) -> str:
        return ".".join(self.layout.payload.path) or f"the {self.layout.payload.field} list"

    def _edit_list(self, record: Record, change, variant: str | None = None) -> tuple[list[str], dict[str, Any]]:
        return self._rewrite(self._row_of(record), change, variant)

    def _element_of(self, record: Record) -> Any:
        return self._elements(self._row_of(record))[record.order]

    def _all_elements(self) -> list[Any]:
        return [e for r in self.store.current_rows().values() for e in self._elements(r)]

    def _where(self, record: Record) -> str:
        return _at(self._row_of(record))

    def _rollback(self, p: Plan) -> Outcome:
        """The version rows newer than the state before the target's write deleted (variant
        ``element``: the newest element removed inside the current row instead)."""
        if p.spec.variant == LAST_ELEMENT:
            return self._delete(p)
        return self._roll_back(p.target, p.spec.op)


