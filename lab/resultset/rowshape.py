"""The shape of a row as the reports read it: each field's JSON type, so that a row of another shape
(a tampered or foreign one: ``metric`` a string, ``controls.C1`` without ``ok``, a cell's ``evidence``
a list) is refused where it is loaded, naming the field, and no report meets it.

A field absent is fine where a report does without it; present, it has its type (None where
written). :func:`row_problem` says what is wrong, or None.

    >>> row_problem({"row": "r", "detection_point": "read", "metric": "0.9"})
    "field 'metric' is a str, not a number or null"
"""

from __future__ import annotations

from typing import Any

NUMBER = (int, float)
#: Type name -> the Python types of a JSON value of that name.
KINDS: dict[str, tuple[type, ...]] = {"string": (str,), "number": NUMBER, "bool": (bool,), "object": (dict,),
                                      "list": (list,), "null": (type(None),)}

#: Row field -> its JSON type(s).
ROW = {"row": "string", "detection_point": "string", "metric": "number|null", "level": "string|null",
       "title": "string|null", "sut": "object|null", "configuration": "object|null", "runtime": "object|null",
       "lab": "object|null", "groups": "object|null", "counts": "object|null", "evaluable": "bool|null",
       "not_evaluable_reason": "string|null", "observations": "string|null", "dut_boundary": "string|null",
       "position": "string|null", "store": "object|null", "volumes": "object|null", "capabilities": "object|null",
       "signals_documented": "list|null", "run_id": "string|null", "date": "string|null",
       "method_revision": "string|null", "notes": "string|null", "sut_stopped_during_edits": "bool|null",
       "cells": "object", "controls": "object"}
#: Cell field -> its JSON type(s) (a variant's fields too).
CELL = {"verdict": "string", "reason": "string|null", "detection_point": "string|null",
        "observation_class": "string|null", "decided_by": "string|null", "evidence": "object|null",
        "effect": "object|null", "audit": "object|null", "signals": "list|null", "variants": "list|null",
        "case": "string|null", "variant": "string|null", "trial": "string|null"}
#: Evidence field -> its JSON type(s).
EVIDENCE = {"c3": "object|null", "intended": "object|null", "observation": "string|null", "refusal": "object|null",
            "served": "list|null", "signals": "list|null", "statements": "list|null", "timings": "object|null"}
#: Control field -> its JSON type(s).
CONTROL = {"ok": "bool", "reason": "string|null"}
#: C3's field (in a cell's evidence) -> its JSON type(s).
C3 = {"ok": "bool|null", "reasons": "list|null", "files": "object|null", "evidence": "object|null"}
#: The runtime's field -> its JSON type(s).
RUNTIME = {"runtime": "string|null", "python": "string|null", "packages": "object|null", "detail": "object|null"}
#: Objects whose every value has one type: field -> the type of each value.
EACH = {"groups": "number|null", "volumes": "object|null"}


def _wrong(value: Any, kinds: str) -> bool:
    allowed = tuple(t for k in kinds.split("|") for t in KINDS[k])
    return not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed)


def _fields(where: str, data: dict[str, Any], table: dict[str, str], required: tuple[str, ...] = ()) -> str | None:
    for name, kinds in table.items():
        if name not in data:
            if name in required:
                return f"field '{where}{name}' is missing"
            continue
        if _wrong(data[name], kinds):
            said = kinds.replace("|", " or ").replace("number", "a number").replace("string", "a string") \
                .replace("object", "an object").replace("list", "a list").replace("bool", "true or false")
            return f"field '{where}{name}' is a {type(data[name]).__name__}, not {said}"
    return None


def _each(where: str, mapping: Any, kinds: str) -> str | None:
    """The first value of the object ``mapping`` (when it is one) not of ``kinds``."""
    if not isinstance(mapping, dict):
        return None
    return next((_fields(f"{where}.", mapping, {key: kinds}) for key in mapping
                 if _fields(f"{where}.", mapping, {key: kinds})), None)


def _cell(where: str, cell: dict[str, Any]) -> str | None:
    problem = _fields(where, cell, CELL, ("verdict",))
    if problem is None and isinstance(cell.get("evidence"), dict):
        problem = _fields(f"{where}evidence.", cell["evidence"], EVIDENCE)
        c3 = cell["evidence"].get("c3")
        if problem is None and isinstance(c3, dict):
            problem = _fields(f"{where}evidence.c3.", c3, C3) or _each(f"{where}evidence.c3.files", c3.get("files"),
                                                                        "list|null")
    for i, variant in enumerate(cell.get("variants") or []):
        if problem is not None:
            break
        problem = (f"field '{where}variants[{i}]' is a {type(variant).__name__}, not an object"
                   if not isinstance(variant, dict) else _cell(f"{where}variants[{i}].", variant))
    return problem


def row_problem(row: dict[str, Any]) -> str | None:
    """What keeps ``row`` (an object) from a memlab row's field types, or None."""
    problem = _fields("", row, ROW) or (isinstance(row.get("runtime"), dict)
                                         and _fields("runtime.", row["runtime"], RUNTIME)) or None
    for name, kinds in EACH.items():
        problem = problem or _each(name, row.get(name), kinds)
    if problem is not None:
        return problem
    for cid, cell in (row.get("cells") or {}).items():
        if isinstance(cell, dict) and (problem := _cell(f"cells.{cid}.", cell)):
            return problem
    for cid in ("C1", "C2"):
        control = (row.get("controls") or {}).get(cid)
        if isinstance(control, dict) and (problem := _fields(f"controls.{cid}.", control, CONTROL, ("ok",))):
            return problem
    return None
