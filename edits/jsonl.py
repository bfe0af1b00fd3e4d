"""Generic editor for JSON-lines stores: one JSON object per line, fields by name.

A line is a record when it is a JSON object holding the layout's context and
payload fields (top-level names); any other line (a header, a blank line) is
kept untouched. The order is a field or ``@position`` (the line's place in the
file; contexts may interleave). With no identity fields a record's identity is
(context, index in the context). Edits rewrite only the bytes of the field
values they change, so the rest of the line keeps its exact formatting.
A replace replaces the token wherever it sits in the record's line; where the line holds it in
several places (two fields, or two paths of one), each place is a variant of its own
(``place=<field>``, ``place=<field>.<path>``: :mod:`edits.places`). A set_meta has one place per
field (a top-level name), so no variant. A forge appends the
forged line after the context's last line (``@position``) or at the end of the
file (order field).

Example::

    >>> import json, pathlib, tempfile
    >>> from edits import jsonl, layout, model
    >>> vol = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (vol / "memory.jsonl").write_text("".join(json.dumps(r) + "\\n" for r in [
    ...     {"id": "a1", "thread": "A", "role": "user", "text": "mA1-q hello FACT-A1"},
    ...     {"id": "a2", "thread": "A", "role": "assistant", "text": "mA2-q hi"}]))
    >>> lay = layout.parse_layout({"backend": "jsonl", "volume": "store", "file": "memory.jsonl",
    ...                            "context": "thread", "identity": ["id"], "order": "@position",
    ...                            "payload": "text", "metadata": {"role": "role"}})
    >>> done = jsonl.JsonlEditor(lay, vol).apply(model.EditSpec("demo", "A", "mA1-q", meta_field="role", op="set_meta"))
    >>> print(done.statements[0].replace(" -> ", "\\n -> "))
    memory.jsonl: replace line 1: {"id": "a1", "thread": "A", "role": "user", "text": "mA1-q hello FACT-A1"}
     -> {"id": "a1", "thread": "A", "role": "assistant", "text": "mA1-q hello FACT-A1"}
"""

from __future__ import annotations

import json
from json.decoder import scanstring
from typing import Any

from edits.lines import LineEditor, LineFile
from edits.model import EditError, Record
from edits.places import Place, PlaceVariants, chosen, replace_at, token_places
from edits.plan import Outcome, Plan
from edits.records import decode_payload, sort_records
from edits.registry import FILE, Backend, register
from edits.values import fresh_identity, next_order

_DECODER = json.JSONDecoder()
_WS = " \t\r"


def field_spans(line: str) -> dict[str, tuple[int, int]]:
    """Character spans of each top-level field's value in a JSON object line."""
    def skip(k: int) -> int:
        while k < len(line) and line[k] in _WS:
            k += 1
        return k
    i = skip(0)
    if line[i:i + 1] != "{":
        raise ValueError("not a JSON object")
    spans: dict[str, tuple[int, int]] = {}
    i = skip(i + 1)
    while line[i:i + 1] != "}":
        if line[i:i + 1] != '"':
            raise ValueError(f"expected a key at column {i + 1}")
        key, i = scanstring(line, i + 1)
        i = skip(i)
        if line[i:i + 1] != ":":
            raise ValueError(f"expected ':' at column {i + 1}")
        start = skip(i + 1)
        _, end = _DECODER.raw_decode(line, start)
        spans[key] = (start, end)
        i = skip(end)
        if line[i:i + 1] == ",":
            i = skip(i + 1)
    return spans


def set_fields(line: str, tokens: dict[str, str]) -> str:
    """``line`` with the raw JSON ``tokens`` put in place of those fields' values (added if missing)."""
    spans = field_spans(line)
    for key, (start, end) in sorted(((k, spans[k]) for k in tokens if k in spans), key=lambda kv: -kv[1][0]):
        line = line[:start] + tokens[key] + line[end:]
    missing = [k for k in tokens if k not in spans]
    if missing:
        close = line.rstrip(_WS).rfind("}")
        item, colon = (", ", ": ") if '", "' in line or '": ' in line else (",", ":")
        extra = item.join(json.dumps(k) + colon + tokens[k] for k in missing)
        line = line[:close] + (item if spans else "") + extra + line[close:]
    return line


class JsonlEditor(PlaceVariants, LineEditor):
    """Edits the JSON-lines file ``layout.file`` of one volume."""

    backend = "jsonl"

    def files(self) -> list:
        """The one JSON-lines file."""
        return [self.root / self.layout.file]

    def records(self) -> list[Record]:
        """Every record line as a Record, sorted by (context, order)."""
        lay = self.layout
        path = self.root / lay.file
        if not path.is_file():
            raise EditError(f"{lay.file}: no such file in the volume")
        f = LineFile(path, lay.file)
        self.loaded = {lay.file: f}
        out, seen = [], {}
        for n, body in enumerate(f.bodies, start=1):
            try:
                obj = json.loads(body)
            except ValueError:
                continue
            if not isinstance(obj, dict) or lay.context not in obj or lay.payload.field not in obj:
                continue
            ctx = str(obj[lay.context])
            index = seen[ctx] = seen.get(ctx, -1) + 1
            identity = tuple(obj.get(k) for k in lay.identity) or (ctx, index)
            out.append(Record(context=ctx, identity=identity,
                              order=n if lay.ordered_by_position else obj.get(lay.order),
                              payload=decode_payload(obj[lay.payload.field], lay.payload),
                              metadata={k: obj.get(v) for k, v in lay.metadata.items()},
                              fields=obj, locator={"file": lay.file, "line": n}))
        return sort_records(out)

    def _tokens(self, body: str) -> dict[str, str]:
        spans = field_spans(body)
        return {k: body[s:e] for k, (s, e) in spans.items()}

    def _kept(self) -> list[str]:
        lay = self.layout
        return [*lay.identity, lay.context, *([] if lay.ordered_by_position else [lay.order])]

    def _dump(self, value: Any, like: str) -> str:
        return json.dumps(value, ensure_ascii=like.isascii())

    def _replace(self, p: Plan) -> Outcome:
        """The token replaced; a variant replaces it at its one place of the line, every other byte kept."""
        if p.spec.variant is None:
            return super()._replace(p)
        f, i = self._line(p.target)
        body = f.bodies[i]
        for place in chosen(token_places(p.target.fields, p.spec.find), p.spec.variant):
            body = self._replaced_at(body, place, p.spec.find, p.spec.replace)
        f.replace(i, body)
        return self._done(f, [p.target.key()], place=p.spec.variant)

    def _replaced_at(self, body: str, place: Place, find: str, replace: str) -> str:
        """The line with ``find`` replaced at ``place`` only (inside a field that holds JSON
        text, the text is re-encoded, and only when that gives back its exact characters)."""
        value = json.loads(body)[place.field]
        if not (place.path and isinstance(value, str)):
            return replace_at(body, (place.field, *place.path), find, replace)
        start, end = field_spans(body)[place.field]
        if self._dump(value, body) != body[start:end]:
            raise EditError(f"{place.name()}: the JSON text in field {place.field!r} does not re-encode "
                            "to its own characters; refusing to rewrite it")
        return body[:start] + self._dump(replace_at(value, place.path, find, replace), body) + body[end:]

    def _swap(self, p: Plan) -> Outcome:
        lay = self.layout
        if lay.ordered_by_position:
            return super()._swap(p)
        f, i = self._line(p.target)
        _, j = self._line(p.other)
        a, b = f.bodies[i], f.bodies[j]
        if lay.order in lay.identity:
            f.replace(i, self._transplanted(p, a, b))
            f.replace(j, self._transplanted(p, b, a))
        else:
            order_a, order_b = self._tokens(a).get(lay.order), self._tokens(b).get(lay.order)
            if order_a is None or order_b is None:
                raise EditError(f"{p.spec.op}: a record has no order field {lay.order!r}")
            f.replace(i, set_fields(a, {lay.order: order_b}))
            f.replace(j, set_fields(b, {lay.order: order_a}))
        return self._done(f, [p.target.key(), p.other.key()])

    def _forged(self, p: Plan, body: str) -> tuple[str, int]:
        lay, tokens = self.layout, {}
        for name in [k for k in lay.identity if k != lay.context]:
            tokens[name] = self._dump(fresh_identity(r.fields.get(name) for r in p.records), body)
        if not lay.ordered_by_position and lay.order not in lay.identity:
            tokens[lay.order] = self._dump(next_order(r.order for r in p.in_context(p.target.context)), body)
        self.new_identity = tuple(json.loads(tokens[k]) if k in tokens else p.target.fields.get(k)
                                  for k in lay.identity)
        if lay.ordered_by_position:
            after = p.in_context(p.target.context)[-1].locator["line"] - 1
        else:
            after = len(self.loaded[lay.file].bodies) - 1
        return set_fields(body, tokens) if tokens else body, after

    def _new_key(self, p: Plan, index: int) -> str:
        if self.layout.identity:
            return "|".join(str(v) for v in self.new_identity)
        return super()._new_key(p, index)

    def _transplanted(self, p: Plan, victim: str, donor: str) -> str:
        own = self._tokens(victim)
        return set_fields(donor, {k: own[k] for k in self._kept() if k in own})

    def _with_meta(self, p: Plan, body: str) -> str:
        name = self.layout.metadata[p.spec.meta_field]
        return set_fields(body, {name: self._dump(p.meta_value, body)})


BACKEND = register(Backend("jsonl", FILE, editor=JsonlEditor))
