"""Generic editor for Redis stores: one hash per record, found by a key pattern (records that are
elements of a list inside RedisJSON documents, ``records:``, are :mod:`edits.redis_json`'s).

The layout's ``key`` names a record's key with ``{context}`` and ``{id}``
(``mem:{context}:rec:{id}``); the hash fields hold the payload, the order and the
metadata. ``replace`` replaces the token in every field that holds it; where several fields (or
several paths of the JSON text in one) hold it, each is a variant of its own (``place=<field>``,
:mod:`edits.places`). ``set_meta`` has one place per metadata field (a hash field), so no variant. The
editor speaks Redis's own protocol (redis-py) to a server the lab started on the SUT's
data volume while the SUT is stopped, and returns every command it sent.

Example (``redis_url``: a running server -- the lab starts one on the SUT's data volume;
``tests/edits/test_doctests.py`` gives one)::

    >>> import redis
    >>> from edits import layout, model, redis as redis_editor
    >>> client = redis.Redis.from_url(redis_url)
    >>> _ = client.hset("doc:A:rec:1", mapping={"text": "mA1-q FACT-A1", "seq": 1, "role": "user"})
    >>> _ = client.hset("doc:A:rec:2", mapping={"text": "mA2-q hi", "seq": 2, "role": "assistant"})
    >>> lay = layout.parse_layout({"backend": "redis", "volume": "data", "service": "cache",
    ...                            "key": "doc:{context}:rec:{id}", "identity": [], "order": "seq",
    ...                            "payload": "text", "metadata": {"role": "role"}})
    >>> editor = redis_editor.RedisEditor(lay, redis_url)
    >>> [r.key() for r in editor.records()]
    ['doc:A:rec:1', 'doc:A:rec:2']
    >>> editor.apply(model.EditSpec("demo", "A", "mA2-q", meta_field="role", op="set_meta")).statements
    ['MULTI', 'HSET doc:A:rec:2 role user', 'EXEC']
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from edits.layout import StoreLayout
from edits.layout_fields import LayoutError
from edits.model import EditError, Record
from edits.places import PlaceVariants
from edits.plan import EditorBase, Outcome, Plan
from edits.records import contains, decode_payload, replace_same_length, sort_records
from edits.redis_json import cascade_patterns, key_regex, latest_pattern, list_editor, send
from edits.registry import SERVICE, Backend, Field, register
from edits.values import fresh_identity, next_order


class RedisEditor(PlaceVariants, EditorBase):
    """Edits the hashes matching ``layout.key`` on one Redis server."""

    backend = "redis"
    unordered_fields = True  # a hash's field order is the server's (its encoding), not the writer's

    def __init__(self, layout: StoreLayout, url: str):
        redis = _import_client()  # here, not above: finding the backends imports this module, not the client

        self.layout, self.url = layout, url
        self.client = redis.Redis.from_url(url, decode_responses=False)
        self.key_re = key_regex(layout.key)

    def files(self) -> list[Path]:
        """None: the server owns the files; C3 diffs the volume after the server stops."""
        return []

    def records(self) -> list[Record]:
        """Every matching hash as a Record, sorted by (context, order)."""
        redis = _import_client()

        pattern = self.layout.key.replace("{context}", "*").replace("{id}", "*")
        out = []
        try:
            for raw_key in self.client.scan_iter(match=pattern, count=500):
                key = raw_key.decode()
                match = self.key_re.match(key)
                if match and self.client.type(raw_key) == b"hash":
                    out.append(self._record(key, match, self.client.hgetall(raw_key)))
        except redis.RedisError as exc:
            raise EditError(f"redis at {self.url}: {exc}") from exc
        return sort_records(out)

    def _record(self, key: str, match: re.Match, raw: dict[bytes, bytes]) -> Record:
        lay = self.layout
        fields = {k.decode(): _text(v) for k, v in raw.items()}
        order = fields.get(lay.order)
        return Record(context=match["context"], identity=tuple(fields.get(f) for f in lay.identity) or (key,),
                      order=int(order) if isinstance(order, str) and order.lstrip("-").isdigit() else order,
                      payload=decode_payload(fields.get(lay.payload.field, ""), lay.payload),
                      metadata={n: fields.get(f) for n, f in lay.metadata.items()}, fields=fields,
                      locator={"key": key, "id": match["id"]})

    def _send(self, commands: list[tuple[str, ...]]) -> list[str]:
        """Run commands in one MULTI/EXEC transaction; return them as redis-cli would show them."""
        return send(self.client, commands)

    def _hset(self, key: str, values: dict[str, Any]) -> tuple[str, ...]:
        flat = [str(part) for pair in values.items() for part in pair]
        return ("HSET", key, *flat)

    def _kept(self) -> set[str]:
        """Fields that stay with a record's slot: identity, order, and a context field if there is one."""
        ctx = self.layout.context
        return {*self.layout.identity, self.layout.order} | ({ctx} if not ctx.startswith("{") else set())

    def _replace(self, p: Plan) -> Outcome:
        values = self._variant_values(p.target, p.spec) if p.spec.variant else {
            f: replace_same_length(v, p.spec.find, p.spec.replace) for f, v in p.target.fields.items()
            if contains(v, p.spec.find)}
        return Outcome(self._send([self._hset(p.target.locator["key"], values)]), [p.target.key()],
                       {"fields": sorted(values), **({"place": p.spec.variant} if p.spec.variant else {})})

    def _delete(self, p: Plan) -> Outcome:
        return Outcome(self._send([("DEL", p.target.locator["key"])]), [p.target.key()])

    def _swap(self, p: Plan) -> Outcome:
        a, b, order = p.target, p.other, self.layout.order
        commands = [self._hset(a.locator["key"], {order: b.fields[order]}),
                    self._hset(b.locator["key"], {order: a.fields[order]})]
        return Outcome(self._send(commands), [a.key(), b.key()], {"swapped": [order]})

    def _forge(self, p: Plan) -> Outcome:
        new_id = str(fresh_identity(r.locator["id"] for r in p.records))
        key = self.layout.key.replace("{context}", p.target.context).replace("{id}", new_id)
        values = dict(p.target.fields)
        values[self.layout.order] = next_order(r.order for r in p.in_context(p.target.context))
        for field_name in self.layout.identity:
            values[field_name] = new_id
        values = {f: replace_same_length(v, p.spec.find, p.spec.replace) if contains(v, p.spec.find) else v
                  for f, v in values.items()}
        return Outcome(self._send([self._hset(key, values)]), [key], {"template": p.target.key(), "new": key})

    def _transplant(self, p: Plan) -> Outcome:
        copied = {f: v for f, v in p.other.fields.items() if f not in self._kept()}
        stale = [f for f in p.target.fields if f not in copied and f not in self._kept()]
        commands = [self._hset(p.target.locator["key"], copied)]
        if stale:
            commands.append(("HDEL", p.target.locator["key"], *stale))
        return Outcome(self._send(commands), [p.target.key()], {"donor": p.other.key(), "copied": sorted(copied)})

    def _set_meta(self, p: Plan) -> Outcome:
        field_name = self.layout.metadata[p.spec.meta_field]
        return Outcome(self._send([self._hset(p.target.locator["key"], {field_name: p.meta_value})]),
                       [p.target.key()], {"field": field_name, "new": p.meta_value})


def _text(value: bytes) -> Any:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value


def _key_pattern(value: Any, store: dict) -> str:
    if not isinstance(value, str) or "{context}" not in value or "{id}" not in value:
        raise LayoutError("key", "redis records need a key pattern with {context} and {id}",
                          'e.g. key: "mem:{context}:rec:{id}"')
    return value


def _import_client():
    """The storage client: the one place the editor imports it (and what registry.warm calls ahead)."""
    import redis

    return redis


BACKEND = register(Backend(
    "redis", SERVICE, editor=RedisEditor, list_editor=list_editor, context_field=False,
    client=_import_client,
    fields=(Field("key", required=True, parse=_key_pattern, fix='a pattern with {context} and {id}, e.g. '
                                                                '"mem:{context}:rec:{id}"'),
            Field("latest", parse=latest_pattern), Field("cascade_keys", parse=cascade_patterns))))
