"""Generic editor for a JSON document store: one file holding every record, as a JSON object that
maps record keys to record objects (``{"id": {...}, ...}``) or as a JSON list of record objects.

Fields are top-level names inside a record object. ``identity: ["@key"]`` names the mapping key
as the record's identity (kept by a transplant, fresh on a forge); ``order: "@position"`` is the record's
place in the document. An edit parses the document, changes exactly one record (or the place of
two), and writes the document back with the indentation it had (2 spaces when it was indented,
compact otherwise) and key order kept, in the same file (inode, owner and mode kept).
A replace replaces the token anywhere in the record object; where it sits in several places (fields,
or paths inside one), each is a variant of its own (``place=<field>``, ``place=<field>.<path>``:
:mod:`edits.places`). A set_meta has one place per metadata field (a top-level name), so no variant.

Example::

    >>> import json, tempfile, pathlib
    >>> from edits import jsondoc, layout, model
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (vol / "store.json").write_text(json.dumps({
    ...     "a1": {"ctx": "A", "seq": 1, "text": "mA1-q hello FACT-A1", "sig": "x"},
    ...     "a2": {"ctx": "A", "seq": 2, "text": "mA2-q hi", "sig": "y"}}, indent=2))
    >>> lay = layout.parse_layout({"backend": "json", "volume": "store", "file": "store.json",
    ...                            "context": "ctx", "identity": ["@key"], "order": "seq", "payload": "text"})
    >>> done = jsondoc.JsonDocEditor(lay, vol).apply(model.EditSpec("demo", "A", "mA1-q", op="delete"))
    >>> done.statements
    ['store.json: delete record "a1": {"ctx": "A", "seq": 1, "text": "mA1-q hello FACT-A1", "sig": "x"}']
    >>> list(json.loads((vol / "store.json").read_text()))
    ['a2']
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from edits.layout import StoreLayout
from edits.model import EditError, Record
from edits.places import PlaceVariants
from edits.plan import EditorBase, Outcome, Plan
from edits.records import decode_payload, replace_same_length, sort_records
from edits.registry import FILE, Backend, register
from edits.values import fresh_identity, next_order

KEY = "@key"


class JsonDocEditor(PlaceVariants, EditorBase):
    """Edits the records of the JSON document ``layout.file`` of one volume."""

    backend = "json"

    def __init__(self, layout: StoreLayout, volume_path: Path):
        self.layout = layout
        self.path = Path(volume_path) / layout.file

    def files(self) -> list[Path]:
        """The one document."""
        return [self.path]

    # -- reading ------------------------------------------------------------
    def _load(self) -> Any:
        if not self.path.is_file():
            raise EditError(f"{self.layout.file}: no such file in the volume")
        text = self.path.read_text(encoding="utf-8")
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise EditError(f"{self.layout.file}: not a JSON document: {exc}") from exc
        if not isinstance(doc, (dict, list)):
            raise EditError(f"{self.layout.file}: the document is neither an object of records nor a list")
        if isinstance(doc, list) and KEY in self.layout.identity:
            raise EditError("identity @key needs a document that maps keys to records, not a list")
        self.indent = 2 if "\n " in text else None
        return doc

    def _items(self, doc: Any) -> list[tuple[Any, dict]]:
        pairs = list(doc.items()) if isinstance(doc, dict) else list(enumerate(doc))
        return [(k, v) for k, v in pairs if isinstance(v, dict) and self.layout.context in v
                and self.layout.payload.field in v]

    def records(self) -> list[Record]:
        """Every record object as a Record, sorted by (context, order)."""
        lay, doc = self.layout, self._load()
        out = []
        for position, (key, obj) in enumerate(self._items(doc)):
            identity = tuple(key if f == KEY else obj.get(f) for f in lay.identity) or (position,)
            out.append(Record(context=str(obj[lay.context]), identity=identity,
                              order=position if lay.ordered_by_position else obj.get(lay.order),
                              payload=decode_payload(obj[lay.payload.field], lay.payload),
                              metadata={n: obj.get(f) for n, f in lay.metadata.items()}, fields=obj,
                              locator={"file": lay.file, "key": key}))
        return sort_records(out)

    # -- writing ------------------------------------------------------------
    def _save(self, doc: Any) -> None:
        text = json.dumps(doc, indent=self.indent, ensure_ascii=False)
        with open(self.path, "r+b") as fh:
            fh.write((text + ("\n" if self.indent else "")).encode("utf-8"))
            fh.truncate()

    def _kept(self) -> list[str]:
        lay = self.layout
        return [f for f in (*lay.identity, lay.context, *([] if lay.ordered_by_position else [lay.order]))
                if f != KEY]

    def _op(self, verb: str, key: Any, obj: Any) -> str:
        return f"{self.layout.file}: {verb} record {json.dumps(key)}: {json.dumps(obj, ensure_ascii=False)}"

    def _replace(self, p: Plan) -> Outcome:
        doc, key = self._load(), p.target.locator["key"]
        old = doc[key]
        if p.spec.variant:
            new = {**old, **self._variant_values(p.target, p.spec)}
        else:
            new = json.loads(replace_same_length(json.dumps(old, ensure_ascii=False), p.spec.find, p.spec.replace))
        doc[key] = new
        self._save(doc)
        return Outcome([self._op("replace", key, new)], [p.target.key()],
                       {"place": p.spec.variant} if p.spec.variant else {})

    def _delete(self, p: Plan) -> Outcome:
        doc, key = self._load(), p.target.locator["key"]
        old = doc.pop(key)
        self._save(doc)
        return Outcome([self._op("delete", key, old)], [p.target.key()])

    def _swap(self, p: Plan) -> Outcome:
        doc, a, b = self._load(), p.target.locator["key"], p.other.locator["key"]
        if not self.layout.ordered_by_position:
            order = self.layout.order
            doc[a][order], doc[b][order] = doc[b][order], doc[a][order]
            stmts = [f"{self.layout.file}: swap {order} of records {json.dumps(a)} and {json.dumps(b)}"]
        elif isinstance(doc, list):
            doc[a], doc[b] = doc[b], doc[a]
            stmts = [f"{self.layout.file}: swap list positions {a} and {b}"]
        else:
            keys = list(doc)
            i, j = keys.index(a), keys.index(b)
            keys[i], keys[j] = keys[j], keys[i]
            doc = {k: doc[k] for k in keys}
            stmts = [f"{self.layout.file}: swap the places of records {json.dumps(a)} and {json.dumps(b)}"]
        self._save(doc)
        return Outcome(stmts, [p.target.key(), p.other.key()])

    def _forge(self, p: Plan) -> Outcome:
        lay, doc = self.layout, self._load()
        new = copy.deepcopy(p.target.fields)
        for f in lay.identity:
            if f not in (KEY, lay.context):
                new[f] = fresh_identity(r.fields.get(f) for r in p.records)
        if not lay.ordered_by_position and lay.order not in lay.identity:
            new[lay.order] = next_order(r.order for r in p.in_context(p.target.context))
        new = json.loads(replace_same_length(json.dumps(new, ensure_ascii=False), p.spec.find, p.spec.replace))
        last = p.in_context(p.target.context)[-1].locator["key"]
        if isinstance(doc, list):
            doc.insert(last + 1 if lay.ordered_by_position else len(doc), new)
            key = last + 1 if lay.ordered_by_position else len(doc) - 1
        else:
            key = fresh_identity(list(doc)) if KEY in lay.identity else f"{p.target.locator['key']}-forged"
            keys = list(doc)
            at = keys.index(last) + 1 if lay.ordered_by_position else len(keys)
            items = list(doc.items())
            items.insert(at, (key, new))
            doc = dict(items)
        self._save(doc)
        ident = "|".join(str(key if f == KEY else new.get(f)) for f in lay.identity) if lay.identity else str(key)
        return Outcome([self._op("insert", key, new)], [ident], {"template": p.target.key(), "new": ident})

    def _transplant(self, p: Plan) -> Outcome:
        doc, key = self._load(), p.target.locator["key"]
        new = copy.deepcopy(p.other.fields)
        for f in self._kept():
            if f in p.target.fields:
                new[f] = p.target.fields[f]
        doc[key] = new
        self._save(doc)
        return Outcome([self._op("replace", key, new)], [p.target.key()], {"donor": p.other.key()})

    def _set_meta(self, p: Plan) -> Outcome:
        doc, key = self._load(), p.target.locator["key"]
        field = self.layout.metadata[p.spec.meta_field]
        doc[key][field] = p.meta_value
        self._save(doc)
        return Outcome([self._op("replace", key, doc[key])], [p.target.key()],
                       {"field": field, "old": p.target.metadata.get(p.spec.meta_field), "new": p.meta_value})


BACKEND = register(Backend("json", FILE, editor=JsonDocEditor))
