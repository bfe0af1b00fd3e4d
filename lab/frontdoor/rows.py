"""Reading a saved row by the schema it names, so that a later row schema does not orphan the sets
written under an earlier one: each schema this lab reads has its reader here, and a new schema adds one
beside the old (which keeps reading, or converting, what the old sets hold).

A reader returns the result and the stated figures that do not follow from its saved verdicts, each
named (``cell instruction × signed: stated SERVED 5/5 (served), recomputed 0/5 (held)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lab.frontdoor.results import DERIVED, SCHEMA, SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, FrontdoorResult


class UnknownSchema(ValueError):
    """A row whose schema this lab has no reader for (a newer lab wrote it)."""


def _keyed(items: Any, key: Callable[[dict[str, Any]], str]) -> dict[str, Any]:
    return {key(i): i for i in items if isinstance(i, dict)} if isinstance(items, list) else {}


def _compare(what: str, stated: Any, again: list[dict[str, Any]], key: Callable[[dict[str, Any]], str]) -> list[str]:
    if not isinstance(stated, list):
        return [f"{what}s: missing or not a list"]
    said, out = _keyed(stated, key), []
    for name, item in _keyed(again, key).items():
        was = said.pop(name, None)
        if was is None:
            out.append(f"{what} {name}: not stated")
        elif was != item:
            out.append(f"{what} {name}: stated {was.get('figure')} ({was.get('status')}), recomputed "
                       f"{item['figure']} ({item['status']})" + _which(was, item))
    out += [f"{what} {name}: stated, but no outcome of the row is in it" for name in said]
    if len(stated) != len(again) and not out:
        out.append(f"{what}s: {len(stated)} stated, {len(again)} recomputed")
    return out


def _which(was: dict[str, Any], item: dict[str, Any]) -> str:
    keys = sorted(k for k in set(was) | set(item) if was.get(k) != item.get(k))
    return f" [{', '.join(keys)}]"


def figure_differences(data: dict[str, Any], again: dict[str, Any]) -> list[str]:
    """Each stated figure (cells, level, probes) that differs from ``again`` (the figures recomputed)."""
    out = _compare("cell", data.get("cells"), again["cells"], lambda c: f"{c.get('family')} × {c.get('channel')}")
    if data.get("level") != again["level"]:
        out.append(f"level: stated {data.get('level')!r}, recomputed {again['level']!r}")
    return out + _compare("probe", data.get("probes"), again["probes"], lambda t: str(t.get("probe")))


def _v1(data: dict[str, Any]) -> dict[str, Any]:
    later = [k for k in ("position", "sut") if k in data]
    if later:
        raise ValueError(f"a row of schema {SCHEMA_V1} with {', '.join(later)}, which came with {SCHEMA_V2}")
    return _v2(data)


def _v2(data: dict[str, Any]) -> dict[str, Any]:
    poisoning = data.get("poisoning") if isinstance(data.get("poisoning"), list) else []
    later = sorted({k for o in poisoning if isinstance(o, dict) for k in ("case", "stored", "variant") if k in o}
                   | ({"filler"} & set(data)))
    if later:
        raise ValueError(f"a row of schema {data.get('schema')} with {', '.join(later)}, which came with {SCHEMA_V3}")
    return data


def _read(data: dict[str, Any]) -> tuple[FrontdoorResult, list[str]]:
    try:
        return FrontdoorResult.from_json(data), [f"{k}: missing" for k in DERIVED if k not in data]
    except ValueError as exc:
        result = FrontdoorResult.model_validate({k: v for k, v in data.items() if k not in DERIVED})
        return result, figure_differences(data, result.derived()) or [str(exc)]  # the order, say


#: Row schema -> its reader: saved data to (result, figures that do not follow); a ``ValueError``
#: (pydantic's included) when the data is no row of that schema.
READERS: dict[str, Callable[[dict[str, Any]], tuple[FrontdoorResult, list[str]]]] = {
    SCHEMA_V1: lambda data: _read(_v1(data)), SCHEMA_V2: lambda data: _read(_v2(data)), SCHEMA_V3: _read,
    SCHEMA: _read}
# Schemas 2 and 3 only added fields with defaults (position live, no SUT side, no refusal; no case, not
# read back), so one reader reads all three; a row keeps its schema and its figures. Schema 4 changed
# rules, not fields (verdicts.Rules: isolation both ways, stored text folded, a defence needing no trust
# filter control); FrontdoorResult.recheck judges a row by the rules of its own schema (results.rules_of).


def read_row(data: Any) -> tuple[FrontdoorResult, list[str]]:
    """The result a saved row holds and its stated figures that do not follow, read by its own
    schema's reader (``UnknownSchema`` for a schema this lab does not read)."""
    schema = data.get("schema") if isinstance(data, dict) else None
    reader = READERS.get(schema) if isinstance(schema, str) else None
    if reader is None:
        raise UnknownSchema(f"schema {schema!r} is not one this memlab reads ({', '.join(READERS)}); "
                            "a newer memlab wrote it: read it with that one")
    return reader(data)
