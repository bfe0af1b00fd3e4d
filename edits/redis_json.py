"""Generic editor for list-element records inside RedisJSON documents (``backend: redis`` with ``records:``).

Each JSON document whose key matches the layout's ``key`` (``{context}`` and ``{id}`` in it) is
one *version* of a context's state, ordered by the document's ``records.version`` member; every
element of the list at ``payload.path`` inside the member ``payload.field`` of the current
version is one record (:class:`JsonVersions` reads and writes the documents; the
:class:`edits.lists.ListEditor` that holds it does the elements and the whole versions). Two
optional Redis fields say how a store keeps its index keys:

- ``latest``: a string key per context (``{context}`` in it) naming the current document's
  key. When declared, that pointer decides which version is current (not the greatest
  version), and a rollback points it at the version it keeps.
- ``cascade_keys``: key patterns (``{context}``, ``{version}``, Redis glob ``*``) of the keys
  that belong to a version -- its pending writes, the sorted set indexing them -- deleted
  with it on a rollback.

Element edits rewrite the member with ``JSON.SET key $["member"] value``; a rollback deletes
documents, their cascade keys and re-points ``latest``; a new version document (variant
``version=new``) is the current one's copy under the key with the new version as ``{id}``, and
``latest`` points at it: one MULTI/EXEC, every command returned. A search index over the
documents (RediSearch) follows the edits by itself. LangGraph's RedisSaver keeps memory this way.

Example (``redis_url``: a Redis server with the JSON module; ``tests/edits/test_redis_json.py`` gives one)::

    >>> import json, redis
    >>> from edits import base, layout, model
    >>> client = redis.Redis.from_url(redis_url)
    >>> msgs = [{"id": f"id{i}", "text": f"[mA{i}-abcdef] note {i}"} for i in range(3)]
    >>> _ = client.json().set("doc:A:1", "$", {"v": "1", "state": {"messages": msgs[:2]}})
    >>> _ = client.json().set("doc:A:2", "$", {"v": "2", "state": {"messages": msgs}})
    >>> _ = client.set("latest:A", "doc:A:2")
    >>> lay = layout.parse_layout({"backend": "redis", "volume": "data", "service": "stack",
    ...                            "key": "doc:{context}:{id}", "latest": "latest:{context}", "order": "@position",
    ...                            "payload": {"field": "state", "format": "json", "path": ["messages"]},
    ...                            "records": {"text": ["text"], "identity": [["id"]], "version": "v"}})
    >>> editor = base.editor_for(lay, {}, {"stack": redis_url}, versions={"1": "mA1-abcdef", "2": "mA2-abcdef"})
    >>> [r.key() for r in editor.records()]
    ['id0', 'id1', 'id2']
    >>> out = editor.apply(model.EditSpec("demo", "A", "mA1-abcdef", op="delete"))
    >>> out.statements[1].split()[:2], out.detail["operation"]
    (['JSON.SET', 'doc:A:2'], 'remove element 1 of messages')
    >>> editor.apply(model.EditSpec("demo", "A", "mA2-abcdef", op="rollback")).statements
    ['MULTI', 'DEL doc:A:2', 'SET latest:A doc:A:1', 'EXEC']
    >>> [r.key() for r in editor.records()]
    ['id0', 'id1']
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from edits.layout import StoreLayout
from edits.layout_fields import LayoutError
from edits.lists import ListEditor
from edits.model import EditError, EditSpec, Record
from edits.row_edits import _rank


def list_editor(layout: StoreLayout, url: str, versions: dict[str, str] | None = None) -> ListEditor:
    """List-element records in RedisJSON version documents on one Redis server (see the module)."""
    return ListEditor(JsonVersions(layout, url), versions)


class JsonVersions:
    """The version documents of a list editor (:class:`edits.lists.ListEditor`) on one Redis server."""

    backend = "redis"
    sql = None  # no SQL table: no form of a sealed payload is written here (edits.forms)

    def __init__(self, layout: StoreLayout, url: str):
        import redis  # here, not above: finding the backends imports this module, not the client

        self.layout, self.url, self.spec = layout, url, layout.records
        self.client = redis.Redis.from_url(url, decode_responses=True)
        self.key_re = key_regex(layout.key)
        self.latest = layout.options.get("latest")
        self.cascade = tuple(layout.options.get("cascade_keys") or ())

    def files(self) -> list[Path]:
        """None: the server owns the files; C3 diffs the volume after the server stops."""
        return []

    def variants(self, spec: EditSpec, records: list[Record]) -> list[str]:
        """None of a sealed payload's edit."""
        return []

    def apply_variant(self, editor, spec: EditSpec) -> None:
        """None applied as a whole edit."""
        return None

    def rows(self) -> list[dict[str, Any]]:
        """Every version document: {"addr": {"key"}, "context", "version", "fields", "payload"}."""
        import redis

        field, out = self.layout.payload.field, []
        try:
            for key in self.client.scan_iter(match=_glob(self.layout.key, context="*", id="*"), count=500):
                match = self.key_re.match(key)
                if not match or self.client.type(key) != "ReJSON-RL":
                    continue
                doc = self.client.json().get(key)
                if not isinstance(doc, dict) or self.spec.version not in doc:
                    raise EditError(f"JSON document {key}: no member {self.spec.version!r} (records.version)")
                payload = {"table": "json", "addr": {"key": key},
                           "fields": {field: json.dumps(doc[field])}} if field in doc else None
                out.append({"addr": {"key": key}, "context": match["context"], "version": doc[self.spec.version],
                            "fields": {k: v for k, v in doc.items() if k != field}, "payload": payload})
        except redis.RedisError as exc:
            raise EditError(f"redis at {self.url}: {exc}") from exc
        return sorted(out, key=lambda r: (r["context"], _rank(r["version"])))

    def current_rows(self) -> dict[str, dict[str, Any]]:
        """The current version of each context: the one ``latest`` names, else the greatest version."""
        rows = self.rows()
        if not self.latest:
            return {r["context"]: r for r in rows}
        by_key = {r["addr"]["key"]: r for r in rows}
        named = {ctx: self.client.get(self.latest.replace("{context}", ctx)) for ctx in {r["context"] for r in rows}}
        return {ctx: by_key[key] for ctx, key in sorted(named.items()) if key in by_key}

    def payload_step(self, row: dict[str, Any], value: Any) -> tuple[str, ...]:
        """The JSON.SET that stores ``value`` (JSON text) as the payload member of a version document."""
        return ("JSON.SET", row["addr"]["key"], f"$[{json.dumps(self.layout.payload.field)}]", value)

    def insert_version(self, row: dict[str, Any], fields: dict[str, Any]) -> list[tuple[str, ...]]:
        """The JSON.SET of a new version document (the current one's key with the new version as its
        ``{id}``, members in the current one's order) and, with ``latest``, the pointer set to it."""
        old_key, field = row["addr"]["key"], self.layout.payload.field
        match = self.key_re.match(old_key)
        if match is None or "id" not in match.groupdict() or match["id"] != str(row["version"]):
            raise EditError(f"JSON document {old_key}: its key's {{id}} is not its version "
                            f"{row['version']!r}; no key to give a new version")
        key = old_key[:match.start("id")] + str(fields[self.spec.version]) + old_key[match.end("id"):]
        doc = self.client.json().get(old_key)
        new = {k: json.loads(fields[k]) if k == field else fields.get(k, v) for k, v in {**doc, **fields}.items()}
        steps = [("JSON.SET", key, "$", json.dumps(new))]
        if self.latest:
            steps.append(("SET", self.latest.replace("{context}", row["context"]), key))
        return steps

    def run_steps(self, steps: list[tuple[str, ...]]) -> list[str]:
        """Send the commands in one MULTI/EXEC; return them as redis-cli would show them."""
        return send(self.client, steps)

    def drop_versions(self, doomed: list[dict[str, Any]], keep: dict[str, Any]) -> tuple[list[str], list[str]]:
        """Delete the doomed documents and their cascade keys; point ``latest`` at the kept one."""
        steps: list[tuple[str, ...]] = []
        for row in doomed:
            steps.append(("DEL", row["addr"]["key"]))
            for pattern in self.cascade:
                glob = _glob(pattern, context=row["context"], version=str(row["version"]))
                steps += [("DEL", key) for key in sorted(self.client.scan_iter(match=glob, count=500))]
        if self.latest:
            steps.append(("SET", self.latest.replace("{context}", keep["context"]), keep["addr"]["key"]))
        return self.run_steps(steps), list(self.cascade)


def send(client: Any, commands: list[tuple[str, ...]]) -> list[str]:
    """Run commands in one MULTI/EXEC transaction; return them as redis-cli would show them."""
    import redis

    pipe = client.pipeline(transaction=True)
    for cmd in commands:
        pipe.execute_command(*cmd)
    try:
        pipe.execute()
    except redis.RedisError as exc:
        raise EditError(f"redis refused the edit: {exc}") from exc
    return ["MULTI", *(" ".join(shlex.quote(str(part)) for part in cmd) for cmd in commands), "EXEC"]


def key_regex(pattern: str) -> re.Pattern:
    """A regular expression of a key pattern: ``{context}`` and ``{id}`` as named groups."""
    parts = [re.escape(p) for p in re.split(r"\{context\}|\{id\}", pattern or "")]
    names = re.findall(r"\{(context|id)\}", pattern or "")
    return re.compile(parts[0] + "".join(f"(?P<{n}>.+?)" + p for n, p in zip(names, parts[1:])) + "$")


def _glob(pattern: str, **values: str) -> str:
    """A key pattern as a Redis glob: each ``{name}`` by its value (escaped unless it is ``*``)."""
    for name, value in values.items():
        pattern = pattern.replace("{" + name + "}", value if value == "*" else re.sub(r"([*?\[\]\\])", r"\\\1", value))
    return pattern


def latest_pattern(value: Any, store: dict) -> str:
    """``latest``: a key pattern with ``{context}``, read with ``records:`` only."""
    if not isinstance(value, str) or "{context}" not in value or store.get("records") is None:
        raise LayoutError("latest", "a pointer key with {context}, for list-element records (records:)",
                          'e.g. latest: "checkpoint_latest:{context}"')
    return value


def cascade_patterns(value: Any, store: dict) -> list[str]:
    """``cascade_keys``: key patterns with ``{version}``, read with ``records:`` only."""
    if not isinstance(value, list) or not value or store.get("records") is None \
            or not all(isinstance(v, str) and "{version}" in v for v in value):
        raise LayoutError("cascade_keys", "a list of key patterns with {version} (and {context}), for records:",
                          'e.g. cascade_keys: ["writes:{context}:{version}:*"]')
    return list(value)
