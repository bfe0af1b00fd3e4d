"""Forms a sealed payload's reader accepts besides the one its writer seals (``payload.forms``).

A SUT that encrypts a payload may still *read* another form of it: LangGraph's
EncryptedSerializer reads any checkpoint whose ``type`` column lacks "+aes" with its plain
serde. A keyless adversary cannot read the ciphertext, but it can author the context's state
in such a form and put it where the sealed one was. The layout declares each form as data
(:class:`edits.layout_fields.PayloadForm`)::

      payload:
        field: checkpoint
        format: opaque                       # what the writer stores: ciphertext
        forms:
          - name: plain-msgpack              # the variant form=plain-msgpack of a record-level op
            format: msgpack                  # how the form encodes: msgpack | json
            path: [channel_values, messages] # where its record list sits
            set: {type: msgpack}             # the columns that mark a row as in this form
            template: langgraph-checkpoint-v4  # edits/templates/<name>.json: its structure

The **template** is committed data, never SUT code: a ``document`` (the form's value with an
empty record list; the string ``$version`` stands for the row's version) and an ``element``
(one record as the SUT stores a seeded one; the ``records:`` paths say where its text,
identity and metadata sit). ``{"$ext": code, "value": v}`` is a MessagePack extension
holding ``v``. Each template's ``about`` says where its structure was taken from.

**The plaintext** is what the adversary knows without the key: the context's records as the
lab seeded them (``EditSpec.seeded``), each the template's element with the seeded text and
an identity derived from the context and its place (:func:`authored_id`). The spec's operation
is made on that list (:data:`FORM_OPS`) -- ``replace`` replaces the fact in the target,
``delete`` removes the target, ``swap`` exchanges two records, ``forge`` appends a copy of the
target with the forged marker and a fresh identity, ``set_meta`` sets a metadata path of the
target -- and the current version row of the target's context gets the encoded form in its
payload field and the form's ``set`` values in its columns, in one UPDATE. Every other row and
column stays.

Delete, swap, forge and set_meta have no expression on the sealed form, so the lab makes the
first form the own spec of a case asking for one and the editor offers the others
(:func:`lab.cases.forms.authoring`); a replace keeps its bit flip and is offered every form.

**Reading**: a version row in a form (its columns hold the form's ``set`` values) is read as
that form's records, list elements with ``locator.form`` naming the form; the other rows stay
opaque version rows (:mod:`edits.version_rows`). :func:`genuine_view` gives the records a row
holding the genuine plaintext reads as, for C3.

Example (a sealed thread; the form variant authors its plaintext with the fact replaced)::

    >>> import pathlib, sqlite3, tempfile
    >>> from dataclasses import replace
    >>> from edits import base, layout, model
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> db = sqlite3.connect(vol / "cp.db")
    >>> _ = db.execute("CREATE TABLE cp (thread TEXT, v TEXT, type TEXT, blob BLOB)")
    >>> _ = db.execute("INSERT INTO cp VALUES ('A', '1', 'msgpack+aes', x'10aa55')")
    >>> db.commit(); db.close()
    >>> form = {"name": "plain-msgpack", "format": "msgpack", "path": ["channel_values", "messages"],
    ...         "set": {"type": "msgpack"}, "template": "langgraph-checkpoint-v4"}
    >>> lay = layout.parse_layout({"backend": "sqlite", "volume": "store", "file": "cp.db", "table": "cp",
    ...     "context": "thread", "order": "@position",
    ...     "payload": {"field": "blob", "format": "opaque", "forms": [form]},
    ...     "records": {"text": [2, "content"], "identity": [[2, "id"]], "version": "v"}})
    >>> editor = base.editor_for(lay, {"store": vol}, versions={"1": "mA1-aaaaaa"})
    >>> spec = model.EditSpec("demo", "A", "mA1-aaaaaa", find="FA-1", replace="FX-9", unit="state", op="replace",
    ...                       seeded=("[mA0-bbbbbb] note", "[mA1-aaaaaa] fact FA-1"))
    >>> editor.variants(spec, editor.records())
    ['form=plain-msgpack']
    >>> editor.apply(replace(spec, variant="form=plain-msgpack")).detail["operation"]
    'author the 2 seeded records of A in form plain-msgpack, replace FA-1 by FX-9 in record 1'
    >>> [(r.payload, r.locator["form"]) for r in editor.records()]
    [('[mA0-bbbbbb] note', 'plain-msgpack'), ('[mA1-aaaaaa] fact FX-9', 'plain-msgpack')]
"""

from __future__ import annotations

import copy
import functools
import json
import uuid
from dataclasses import dataclass, replace
from typing import Any

from edits import msgpack, paths
from edits.layout_fields import TEMPLATES, PayloadForm
from edits.elements import element_record, replace_strings, set_element_meta, setting
from edits.layout_records import ElementRecords, element_places
from edits.model import AppliedEdit, EditError, EditSpec, Record
from edits.ops import DELETE, FORGE, REPLACE, SET_META, SWAP
from edits.plan import plan
from edits.records import changed_bytes_in, find_one, read_files
from edits.sqlnames import quote as _q
from edits.values import fresh_identity

PREFIX = "form="
FORM_OPS = (REPLACE, DELETE, SWAP, FORGE, SET_META)  # the record-level operations a form variant makes
_NAMESPACE = uuid.UUID("6d656d6c-6162-4066-8f72-6d7300000000")


@dataclass(frozen=True)
class Template:
    """A form's structure: the ``document`` with an empty record list, and one ``element``."""

    name: str
    document: Any
    element: Any


@functools.lru_cache(maxsize=None)
def load_template(name: str) -> Template:
    """``edits/templates/<name>.json``, decoded (``$ext`` objects as MessagePack extensions)."""
    path = TEMPLATES / f"{name}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EditError(f"form template {path}: {exc}") from None
    if not isinstance(data, dict) or "document" not in data or "element" not in data:
        raise EditError(f"form template {path}: needs a document and an element")
    return Template(name, _decode(data["document"]), _decode(data["element"]))


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$ext", "value"}:
        return msgpack.Ext(int(value["$ext"]), b"", _decode(value["value"]))
    if isinstance(value, dict):
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def authored_id(context: str, index: int) -> str:
    """The identity the adversary gives the ``index``-th seeded record of ``context`` (a UUID)."""
    return str(uuid.uuid5(_NAMESPACE, f"{context}/{index}"))


def genuine_elements(template: Template, spec: ElementRecords, context: str, seeded: list[str]) -> list[Any]:
    """The seeded records of ``context`` as elements of the form: text and identity set in the template's."""
    out = []
    for i, text in enumerate(seeded):
        element = paths.set_path(copy.deepcopy(template.element), spec.text, text)
        for path in spec.identity:
            element = paths.set_path(element, path, authored_id(context, i))
        out.append(element)
    return out


def encode(form: PayloadForm, template: Template, version: Any, elements: list[Any]) -> Any:
    """The form's stored value: the template's document, its record list ``elements``."""
    doc = _substitute(copy.deepcopy(template.document), {"$version": version})
    doc = paths.set_path(doc, form.path, elements) if form.path else elements
    return msgpack.pack(doc) if form.format == "msgpack" else json.dumps(doc, ensure_ascii=False)


def _substitute(value: Any, names: dict[str, Any]) -> Any:
    if isinstance(value, str) and value in names:
        return names[value]
    if isinstance(value, dict):
        return {k: _substitute(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, names) for v in value]
    return value


def genuine_view(layout: dict[str, Any], form_name: str, context: str, seeded: list[str]) -> list[dict[str, Any]]:
    """The records (``Record.to_json()``, no locator) of a row holding the genuine plaintext of
    ``context`` in form ``form_name`` of a layout given as ``StoreLayout.to_json()`` (for C3)."""
    forms = {f["name"]: f for f in (layout.get("payload") or {}).get("forms", [])}
    if form_name not in forms or not layout.get("records"):
        raise EditError(f"the layout declares no form {form_name!r}")
    raw = layout["records"]
    spec = ElementRecords(text=tuple(raw["text"]), version=raw["version"],
                          identity=tuple(tuple(p) for p in raw.get("identity", [])),
                          metadata={k: tuple(v) for k, v in raw.get("metadata", {}).items()},
                          places={k: element_places(f"records.places.{k}", v) for k, v in raw.get("places", {}).items()})
    template = load_template(forms[form_name]["template"])
    return [element_record(spec, context, i, e, {}).to_json()
            for i, e in enumerate(genuine_elements(template, spec, context, list(seeded)))]


class FormRows:
    """The forms of an opaque payload, a mixin of :class:`edits.lists.ListEditor` (reading a row in
    a form as its records, the ``form=<name>`` variants and their edit; its ``store`` a SQL table's)."""

    def form_variants(self, spec: EditSpec) -> list[str]:
        """``form=<name>`` for each declared form (but the one ``spec`` is already written in), for a
        record-level operation whose seeded texts are known."""
        if spec.op not in FORM_OPS or not spec.seeded or self.layout.payload.format != "opaque":
            return []
        return [PREFIX + f.name for f in self.layout.payload.forms if PREFIX + f.name != spec.variant]

    def is_form_variant(self, spec: EditSpec) -> bool:
        """True when ``spec`` names a ``form=<name>`` variant (offered or not: :meth:`apply_form` checks)."""
        return (spec.variant or "").startswith(PREFIX)

    def form_of(self, row: dict[str, Any]) -> PayloadForm | None:
        """The form a version row is in (every ``set`` column holds the form's value), or None."""
        held = row["payload"]["fields"] if row.get("payload") else {}
        return next((f for f in self.layout.payload.forms if all(held.get(c) == v for c, v in f.set)), None)

    def sealed_records(self) -> list[Record]:
        """The opaque version rows, a row in a form read as its records instead."""
        if not self.layout.payload.forms:
            return self.row_records()
        out = []
        for row, rec in zip(self.store.rows(), self.row_records()):
            form = self.form_of(row)
            if form is None:
                out.append(rec)
                continue
            found = paths.get_path(paths.parse(self._raw(row), form.format), form.path)
            if not isinstance(found, list):
                raise EditError(f"{self.layout.table} version {row['version']}: in form {form.name}, but no "
                                f"record list at {list(form.path)}")
            out += [element_record(self.spec, row["context"], i, e, {**rec.locator, "index": i, "form": form.name})
                    for i, e in enumerate(found)]
        return out

    def apply_form(self, spec: EditSpec) -> AppliedEdit:
        """Author the target context's seeded records in the variant's form, make the spec's operation on
        them, and store the form over the context's current version row (see the module)."""
        offered = self.form_variants(replace(spec, variant=None))
        if spec.variant not in offered:
            raise EditError(f"{spec.op}: the {self.backend} editor offers no variant {spec.variant!r} for this "
                            f"store (it offers {offered or 'none'})")
        if self.spec.payload_row is not None:
            raise EditError(f"{spec.op}: a form over a payload in another table (records.payload_row) is not written")
        form = next(f for f in self.layout.payload.forms if PREFIX + f.name == spec.variant)
        holder = find_one(self.records(), spec.target, "target")
        context = spec.context or holder.context
        row = self.store.current_rows()[context]
        missing = [c for c, _ in form.set if c not in row["fields"]]
        if missing:
            raise EditError(f"{spec.op}: table {self.layout.table!r} has no column(s) {missing} that form "
                            f"{form.name} sets")
        template = load_template(form.template)
        items = genuine_elements(template, self.spec, context, list(spec.seeded))
        authored = [element_record(self.spec, context, i, e, {}) for i, e in enumerate(items)]
        p = plan(replace(spec, unit="record", variant=None), authored, self.layout.metadata)
        operation = _edit_list(p, items, self.spec)
        dialect = self.store.sql  # the SQL dialect editor
        where, args = dialect._where_addr(row["addr"])
        values = [(self.layout.payload.field, encode(form, template, row["version"], items)), *form.set]
        sql = (f"UPDATE {'.'.join(_q(t) for t in self.layout.table.split('.'))} SET "
               f"{', '.join(f'{_q(c)} = {dialect.PARAM}' for c, _ in values)} WHERE {where}")
        before = read_files(self.files())
        statements = self.store.run_steps([(sql, [v for _, v in values] + args, True)])
        return AppliedEdit(case=spec.case, backend=self.backend, statements=statements,
                           touched=[str(row["version"])], bytes_changed=changed_bytes_in(before),
                           detail={"row": {**row["addr"], "version": row["version"]}, "form": form.name,
                                   "set": dict(form.set), "template": form.template,
                                   "operation": f"author the {len(authored)} seeded records of {context} in form "
                                                f"{form.name}, {operation}"})


def _edit_list(p, items: list[Any], spec: ElementRecords) -> str:
    """The spec's operation on the authored list, in place; what was done."""
    op, i = p.spec.op, p.target.order
    if op == REPLACE:
        items[i] = replace_strings(items[i], p.spec.find, p.spec.replace)
        return f"replace {p.spec.find} by {p.spec.replace} in record {i}"
    if op == DELETE:
        del items[i]
        return f"leave out record {i}"
    if op == SWAP:
        j = p.other.order
        items[i], items[j] = items[j], items[i]
        return f"exchange records {i} and {j}"
    if op == FORGE:
        new = replace_strings(items[i], p.spec.find, p.spec.replace)
        for path in spec.identity:
            new = paths.set_path(new, path, fresh_identity(paths.get_path(e, path) for e in items))
        items.append(new)
        return f"append a copy of record {i} with {p.spec.replace} and a fresh identity"
    items[i], stored = set_element_meta(spec, items[i], p.spec.meta_field, p.target.metadata.get(p.spec.meta_field),
                                        p.meta_value)
    return setting(stored, f"record {i}")

