"""Open JSON records: pydantic models that keep a key they do not know, read a JSON ``1`` as a number
(never ``true``), give back exactly the keys they were given (``to_json``), and say what is wrong with
a value in the words of JSON (``field 'metric' is a str, not a number or null``).

The base of the lab's typed result files (the at-rest row, :mod:`lab.judge.row`; the manifest,
:mod:`lab.resultset.manifest`; the run records, :mod:`lab.resultset.run_record` and
:mod:`lab.lifecycle.run_record`; the lifecycle row, :mod:`lab.lifecycle.row_record`, and manifest,
:mod:`lab.lifecycle.manifest_record`), so that what is written and what is read are one definition;
:func:`read_by_schema` reads one by the schema it names. At the bottom of the lab, so that every role
may import it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

_TYPES = {"string": (str,), "number": (int, float), "bool": (bool,), "object": (dict,), "list": (list,),
          "null": (type(None),)}
_SAID = {"string": "a string", "number": "a number", "bool": "true or false", "object": "an object",
         "list": "a list", "null": "null"}


def kind(kinds: str) -> Any:
    """A value of the JSON kinds ``kinds`` (``"number|null"``), kept as written."""
    names = kinds.split("|")
    allowed = tuple(t for name in names for t in _TYPES[name])

    def check(value: Any) -> Any:
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            raise PydanticCustomError("json_kind", "is a {got}, not {want}",
                                      {"got": type(value).__name__, "want": " or ".join(_SAID[n] for n in names)})
        return value
    return Annotated[Any, BeforeValidator(check)]


Str, Num, Bool, Obj, Lst = (kind(f"{k}|null") for k in ("string", "number", "bool", "object", "list"))
String, Boolean, List, Object = kind("string"), kind("bool"), kind("list"), kind("object")


class OpenRecord(BaseModel):
    """A JSON object: open, strict, frozen; anything but an object is refused in its own words."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise PydanticCustomError("json_kind", "is a {got}, not an object", {"got": type(data).__name__})
        return data

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data: the keys that were set (or read), and only those."""
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)


def read_by_schema(data: Any, readers: dict[str, type[OpenRecord]], error: type[Exception], implied: str) -> Any:
    """``data`` (parsed JSON) read by the model its ``schema`` names in ``readers`` (``implied`` when it names
    none); ``error`` with what is wrong, naming the field."""
    schema = data.get("schema", implied) if isinstance(data, dict) else implied
    model = readers.get(schema) if isinstance(schema, str) else None
    if model is None:
        raise error(f"schema {schema!r} is not one this lab reads ({', '.join(readers)})")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(said(exc.errors()[0])) from None


def said(error: Any) -> str:
    """One validation error in JSON's words, naming the field by its path (``cells.T1.variants[0]``)."""
    loc = error["loc"]
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")
    path = path.replace("schema_", "schema")
    if error["type"] == "missing":
        return f"field '{path}' is missing"
    if error["type"] == "json_kind":
        return f"field '{path}' {error['msg']}" if path else f"not a JSON object ({error['msg']})"
    if not error["type"].endswith("_type"):  # a rule of the record's own, in its own words
        return error["msg"]
    got = type(error.get("input")).__name__
    want = {"dict_type": "an object", "list_type": "a list"}.get(error["type"], error["msg"])
    return f"field '{path}' is a {got}, not {want}"
