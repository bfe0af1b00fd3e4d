"""The ``derived:`` field of a store layout: values the store computes from its own content with no
key (a digest of a row, a hash chain), declared as data so the editor can recompute them after an
edit (:mod:`edits.derived`) -- what a keyless adversary who can write the store would do.

One entry per stored value::

    derived:
      - field: hash                # where it is stored: a column, or {field: payload, path: [sha]}
        table: events              # the table that holds it (default: the layout's table)
        digest: sha256             # sha256 | sha1 | sha512 | md5 | blake2b | sha3_256
        encoding: hex              # hex | base64
        form: json                 # json: canonical JSON (sorted keys, no spaces, ASCII) of the object
                                   #   {name: column value}; text: the one column's UTF-8 text or bytes
        of: [event_id, payload]    # the columns digested (a mapping {name: column} renames them)
        json: [payload]            # columns parsed as JSON before they are digested
        source: {table: records, match: {record_id: id}}
                                   # digest another table's row: the one whose `id` equals this row's
                                   # `record_id` (default: this row)
        where: {event_type: [memory.record_created]}   # only rows whose columns hold these values
        orphans: delete            # keep (default) | delete: a row whose source row is gone is deleted
        chain: {link: prev_hash, order: sequence, group: run_id, renumber: true}
                                   # a hash chain: `link` holds the previous row's value (null on the
                                   # first), rows in `order` within each `group`; renumber: the order
                                   # column kept contiguous (a chain that checks its sequence)

Example::

    >>> parse_derived([{"field": "hash", "digest": "sha256", "of": ["body"], "form": "text"}], {"table": "t"})
    [{'field': 'hash', 'path': [], 'table': 't', 'digest': 'sha256', 'encoding': 'hex', 'form': 'text', 'of': {'body': 'body'}, 'json': [], 'source': None, 'where': {}, 'orphans': 'keep', 'chain': None}]
    >>> parse_derived([{"field": "hash", "digest": "crc32", "of": ["body"]}], {"table": "t"})
    Traceback (most recent call last):
    edits.layout_fields.LayoutError: store.derived[0].digest: unknown digest 'crc32' (fix: use one of ['blake2b', 'md5', 'sha1', 'sha256', 'sha3_256', 'sha512'])
"""

from __future__ import annotations

from typing import Any

from edits.layout_fields import LayoutError, path_of

RECOMPUTED = "derived=recomputed"  # the variant: the case's edit with every derived value it made wrong recomputed
DIGESTS = ("blake2b", "md5", "sha1", "sha256", "sha3_256", "sha512")
ENCODINGS = ("hex", "base64")
FORMS = ("json", "text")
_KEYS = {"field", "table", "digest", "encoding", "form", "of", "json", "source", "where", "orphans", "chain"}
_CHAIN_KEYS = {"link", "order", "group", "renumber"}


def parse_derived(value: Any, store: dict) -> list[dict[str, Any]]:
    """Validate ``store.derived`` into plain data (what the layout keeps and writes to JSON)."""
    if store.get("records") is not None:
        raise LayoutError("derived", "derived values are declared on stores of one row per record, not with records:",
                          "drop derived, or records:")
    if not isinstance(value, list) or not value:
        raise LayoutError("derived", "must be a list of derived values", "e.g. derived: [{field: hash, ...}]")
    return [_entry(f"derived[{i}]", item, store) for i, item in enumerate(value)]


def _entry(at: str, item: Any, store: dict) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise LayoutError(at, "must be a mapping", "give field, digest and of")
    unknown = sorted(set(item) - _KEYS)
    if unknown:
        raise LayoutError(f"{at}.{unknown[0]}", "unknown field", f"use one of {sorted(_KEYS)}")
    column, path = _field(f"{at}.field", item.get("field"))
    digest = _choice(f"{at}.digest", item.get("digest"), DIGESTS, None)
    encoding = _choice(f"{at}.encoding", item.get("encoding"), ENCODINGS, "hex")
    form = _choice(f"{at}.form", item.get("form"), FORMS, "json")
    of = _columns(f"{at}.of", item.get("of"))
    if form == "text" and len(of) != 1:
        raise LayoutError(f"{at}.of", "form text digests one column", "name one column, or use form: json")
    table = item.get("table", store.get("table"))
    if not isinstance(table, str) or not table:
        raise LayoutError(f"{at}.table", "must name a table", "e.g. table: audit_log")
    entry = {"field": column, "path": list(path), "table": table, "digest": digest, "encoding": encoding,
             "form": form, "of": of, "json": _names(f"{at}.json", item.get("json", [])),
             "source": _source(f"{at}.source", item.get("source")), "where": _where(f"{at}.where", item.get("where")),
             "orphans": _choice(f"{at}.orphans", item.get("orphans"), ("keep", "delete"), "keep"),
             "chain": _chain(f"{at}.chain", item.get("chain"))}
    if entry["orphans"] == "delete" and entry["source"] is None:
        raise LayoutError(f"{at}.orphans", "delete needs a source (the row whose absence makes an orphan)",
                          "declare source: {table, match}, or drop orphans")
    if entry["chain"] and entry["source"]:
        raise LayoutError(f"{at}.chain", "a chain digests its own rows, not a source's", "drop source or chain")
    return entry


def _field(at: str, value: Any) -> tuple[str, tuple[str, ...]]:
    if isinstance(value, str) and value:
        return value, ()
    if isinstance(value, dict) and isinstance(value.get("field"), str) and set(value) == {"field", "path"}:
        return value["field"], path_of(f"{at}.path", value["path"])
    raise LayoutError(at, "must be a column or {field, path}", "e.g. field: hash, or field: {field: payload, path: [sha]}")


def _choice(at: str, value: Any, allowed: tuple[str, ...], default: str | None) -> str:
    if value is None and default is not None:
        return default
    if value not in allowed:
        what = at.rsplit(".", 1)[-1]
        raise LayoutError(at, f"unknown {what} {value!r}" if value is not None else "required",
                          f"use one of {list(allowed)}")
    return str(value)


def _names(at: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise LayoutError(at, "must be a list of column names", "e.g. [payload]")
    return list(value)


def _columns(at: str, value: Any) -> dict[str, str]:
    if isinstance(value, dict) and value and all(isinstance(k, str) and isinstance(v, str) and v
                                                 for k, v in value.items()):
        return dict(value)
    if isinstance(value, list) and value:
        return {n: n for n in _names(at, value)}
    raise LayoutError(at, "must name the columns digested", "e.g. of: [id, content], or of: {name: column}")


def _source(at: str, value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if (not isinstance(value, dict) or set(value) != {"table", "match"} or not isinstance(value["table"], str)
            or not isinstance(value["match"], dict) or not value["match"]
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in value["match"].items())):
        raise LayoutError(at, "must be {table, match: {this row's column: source column}}",
                          "e.g. source: {table: records, match: {record_id: id}}")
    return {"table": value["table"], "match": dict(value["match"])}


def _where(at: str, value: Any) -> dict[str, list[Any]]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise LayoutError(at, "must map columns to the values they hold", "e.g. where: {event_type: [created]}")
    return {k: list(v) if isinstance(v, list) else [v] for k, v in value.items()}


def _chain(at: str, value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not value.get("link") or not value.get("order") or set(value) - _CHAIN_KEYS:
        raise LayoutError(at, f"must be a mapping of {sorted(_CHAIN_KEYS)} with link and order",
                          "e.g. chain: {link: prev_hash, order: sequence, group: run_id}")
    if not all(isinstance(value.get(k), str) for k in ("link", "order")) or \
            not isinstance(value.get("group", ""), str) or not isinstance(value.get("renumber", False), bool):
        raise LayoutError(at, "link, order and group name columns; renumber is true or false",
                          "e.g. chain: {link: prev_hash, order: sequence, group: run_id, renumber: true}")
    return {"link": value["link"], "order": value["order"], "group": value.get("group") or None,
            "renumber": bool(value.get("renumber", False))}
