"""The field checks of a scenario file, shared by both step shapes (``scenario_yaml``'s, memlab's own,
and ``scenario_peer``'s): ``Parser`` raises an error with file, line and fix, or in a file in the
peer's shape forgives what the peer accepts, with a warning (``scenario_yaml`` says which is which).
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

from lab.lifecycle.folds import normalise
from lab.lifecycle.scenario import ScenarioError, ScenarioWarning, Scope
from lab.lifecycle.scenario_read import Oddity, Where

SCOPE_FIELDS = ("tenant_id", "user_id")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_NOT_ID = re.compile(r"[^A-Za-z0-9._-]+")


def field_name(where: Where) -> str:
    """A field path as people write it: ``steps[2].write.value``."""
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top)"


def kind(value: Any) -> str:
    """What YAML made of a value, in words (for 'must be text, not ...')."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean (YAML reads yes/no/on/off/true/false so)"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "a date"
    return {dict: "a mapping", list: "a list", str: "text"}.get(type(value), type(value).__name__)


def quote_fix(value: Any) -> str:
    """How to write a non-text value as the text it was meant to be."""
    if isinstance(value, bool):
        return 'quote the word, e.g. "yes": unquoted yes/no/on/off/true/false are booleans in YAML'
    if value is None:
        return 'write the text in quotes: an empty value, ~ or null is null in YAML'
    if isinstance(value, (dict, list)):
        return "write it as one piece of text, in quotes"
    return f'quote it: "{value}"'


def is_peer_shaped(data: Any) -> bool:
    """Whether any step of the document is written in the peer's shape (``- op: NAME``)."""
    steps = data.get("steps") if isinstance(data, dict) else None
    return isinstance(steps, list) and any(isinstance(s, dict) and "op" in s for s in steps)


class Parser:
    """The field checks of one file, for ``scenario_yaml.read_scenario`` and each step's reader
    (``scenario_yaml.memlab_step``, ``scenario_peer.peer_step``): ``lines`` the line of every field path,
    ``warnings`` what a peer-shaped file was forgiven and ``lenient`` whether it was."""

    def __init__(self, path: Path):
        self.path, self.lines = path, {}
        self.lenient, self.warnings = False, []

    def fail(self, where: Where, message: str, fix: str) -> ScenarioError:
        """An error at the line of ``where`` (or of its nearest enclosing field)."""
        return ScenarioError(self.path, self.line(where), field_name(where), message, fix)

    def line(self, where: Where) -> int | None:
        """The line of ``where``, or of its nearest enclosing field."""
        probe = where
        while probe and probe not in self.lines:
            probe = probe[:-1]
        return self.lines.get(probe)

    def forgive(self, where: Where, message: str, fix: str, why: str = "memorycheck accepts it",
                line: int | None = None) -> None:
        """A lenient file: warn (``why`` says how the value is taken); a strict one: raise. ``line``
        when it is not the line of ``where``."""
        line = line or self.line(where)
        if not self.lenient:
            raise ScenarioError(self.path, line, field_name(where), message, fix)
        self.warnings.append(ScenarioWarning(str(self.path), line, field_name(where), f"{message} ({why})", fix))

    def oddity(self, odd: Oddity) -> None:
        """A duplicate or non-text key: refused in memlab's shape, taken as PyYAML takes it in the peer's."""
        if odd.kind == "duplicate":
            self.forgive(odd.where, f"duplicate key (first at line {odd.first_line})", "keep one of them",
                         "the last one is taken, as memorycheck takes it", odd.line)
        else:
            self.forgive(odd.where, "a key that is not a plain name (a number, a boolean or a complex key)",
                         "write every field out as a plain name", "it is ignored, as memorycheck ignores it",
                         odd.line)

    def scenario_id(self, value: Any) -> str:
        """The id (a number is taken as its text); in a peer-shaped file an unusable id is made usable."""
        sid = str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else self.text(value, ("id",))
        if _ID.match(sid):
            return sid
        fix = "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        usable = _NOT_ID.sub("-", sid).lstrip("._-")[:64] or self.path.stem
        if not _ID.match(usable):
            raise self.fail(("id",), f"{sid!r} is not a usable id", fix)
        self.forgive(("id",), f"{sid!r} is not a usable id", fix, f"it is run as {usable!r}")
        return usable

    def tags(self, tags: Any) -> tuple[str, ...]:
        """A list of distinct tags (a peer-shaped file: a single tag, or repeats, are forgiven)."""
        if isinstance(tags, list) and len(set(map(str, tags))) == len(tags):
            return tuple(self.text(t, ("tags", i)) for i, t in enumerate(tags))
        self.forgive(("tags",), "must be a list of distinct tags", "e.g. tags: [correction, deletion]",
                     "taken as the distinct tags it names")
        items = tags if isinstance(tags, list) else [tags]
        return tuple(dict.fromkeys(str(t) for t in items if t is not None))

    def fields(self, value: Any, where: Where, spec: dict[str, bool], example: str,
               beside: tuple[str, ...] = ()) -> dict:
        """A mapping with the fields of ``spec`` (and ``beside``), every required one present."""
        if not isinstance(value, dict):
            raise self.fail(where, f"must be a mapping, not {kind(value)}", f"write {example}")
        for name in value:
            if name not in spec and name not in beside and isinstance(name, str):
                self.forgive(where + (name,), "unknown field",
                             f"remove it, or use one of: {', '.join(spec)} (e.g. {example})",
                             "it is ignored, as memorycheck ignores it")
        for name, required in spec.items():
            if required and name not in value:
                raise self.fail(where, f"missing field {name!r}", f"add it, e.g. {example}")
        return value

    def text(self, value: Any, where: Where) -> str:
        """Non-empty text; a number, boolean, date or null is refused (a peer-shaped file: taken as
        the text Python's ``str`` makes of it, as memorycheck takes it, with a warning)."""
        if not isinstance(value, str):
            self.forgive(where, f"must be text, not {kind(value)}", quote_fix(value), f"taken as {str(value)!r}")
            return str(value)
        if not value.strip():
            self.forgive(where, "is empty", "write the text", "taken as it is")
        return value

    def positive(self, value: Any, where: Where) -> int:
        """A positive integer (a boolean is not one)."""
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            shown = repr(value) if isinstance(value, int) and not isinstance(value, bool) else kind(value)
            raise self.fail(where, f"must be a positive integer, not {shown}", f"e.g. {where[-1]}: 2")
        return value

    def scope(self, value: Any, where: Where, base: Scope | None) -> Scope:
        """A full scope (``base`` None: the subject) or a partial one merged over ``base``."""
        spec = {f: base is None for f in SCOPE_FIELDS}
        body = self.fields(value, where, spec, "{tenant_id: acme, user_id: alice}")
        if not any(f in body for f in SCOPE_FIELDS):
            self.forgive(where, "is empty", "name tenant_id and/or user_id, or remove it", "the scope is unchanged")
        merged = {f: self.text(body[f], where + (f,)) if f in body else getattr(base, f) for f in SCOPE_FIELDS}
        return Scope(**merged)

    def judged_value(self, value: str, where: Where) -> str:
        """A value the judge can match: one with letters or digits."""
        if not normalise(value):
            self.forgive(where, "has no letters or digits: the judge cannot match it",
                         'use a distinctive token, e.g. "teal-falcon-7Q"',
                         "it is kept, and never counts as served")
        return value

    def target(self, value: Any, where: Where, scope: Scope) -> Scope:
        """A rescope's ``to``, merged over the step's scope; never the step's own scope."""
        to = self.scope(value, where, scope)
        if to == scope:
            raise self.fail(where, "the target is the step's own scope", "name another tenant_id and/or user_id")
        return to
