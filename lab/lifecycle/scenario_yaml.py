"""Scenario files to Scenario objects: the safe YAML reader and the field-level validator.

The reader composes the YAML into nodes (as ``lab.profile`` does) to keep the line of every
field and list item, and refuses what a scenario never needs: aliases (so no alias bomb), more
than MAX_NODES nodes, nesting deeper than MAX_DEPTH, duplicate keys, merge keys (``<<``),
several documents. The validator then checks every field (unknown fields at any level, required
fields, types) and resolves each step's scope. The rules that need the whole scenario (what was
written where, distinctive values) are in ``scenario_rules``. The file format is documented in
``lab.lifecycle.scenario``.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

import yaml

from lab.lifecycle.judge import normalise
from lab.lifecycle.scenario import OPS, Scenario, ScenarioError, Scope, Step

MAX_BYTES, MAX_NODES, MAX_DEPTH = 1_000_000, 10_000, 10
SCOPE_FIELDS = ("tenant_id", "user_id")
TOP = {"id": True, "title": True, "tags": False, "subject": True, "steps": True}  # field: required
FIELDS: dict[str, dict[str, bool]] = {
    "write": {"key": True, "value": True, "ttl_steps": False}, "correct": {"key": True, "value": True},
    "delete": {"key": True}, "rescope": {"key": True, "to": True}, "advance_time": {"steps": True},
    "query": {"prompt": True, "expect": False}}
EXAMPLES = {"write": '{key: office, value: "Lisbon office on Rua Augusta"}', "delete": "{key: office}",
            "correct": '{key: office, value: "Porto office on Rua das Flores"}',
            "rescope": "{key: office, to: {user_id: bob}}", "advance_time": "{steps: 2}",
            "query": "{prompt: Where is my office?, expect: {must_use: [office]}}"}
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
Where = tuple[str | int, ...]


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


def _quote_fix(value: Any) -> str:
    if isinstance(value, bool):
        return 'quote the word, e.g. "yes": unquoted yes/no/on/off/true/false are booleans in YAML'
    if value is None:
        return 'write the text in quotes: an empty value, ~ or null is null in YAML'
    if isinstance(value, (dict, list)):
        return "write it as one piece of text, in quotes"
    return f'quote it: "{value}"'


class _Loader(yaml.SafeLoader):
    """A safe loader that refuses aliases and caps the node count and nesting depth."""

    def __init__(self, stream: str, path: Path):
        super().__init__(stream)
        self.path, self.nodes, self.depth = path, 0, 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        """Compose one node, refusing an alias and counting nodes and depth."""
        mark = self.peek_event().start_mark
        if self.check_event(yaml.AliasEvent):
            raise ScenarioError(self.path, mark.line + 1, "(yaml)", "YAML aliases (*name) are not allowed",
                                "write the value out in full instead of referring to an anchor")
        self.nodes, self.depth = self.nodes + 1, self.depth + 1
        if self.nodes > MAX_NODES or self.depth > MAX_DEPTH:
            what = f"more than {MAX_NODES} nodes" if self.nodes > MAX_NODES else f"nested deeper than {MAX_DEPTH}"
            raise ScenarioError(self.path, mark.line + 1, "(yaml)", f"the document has {what}",
                                "a scenario is a short, flat list of steps: split or simplify it")
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _index(path: Path, node: Any, where: Where, lines: dict[Where, int]) -> None:
    """Record the line of every field and item; refuse duplicate, merge and non-text keys."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if key_node.tag != "tag:yaml.org,2002:str":
                raise ScenarioError(path, line, field_name(where), "a key that is not a plain name (a merge key "
                                    "<<, a number, a boolean or a complex key)", "write every field out as a plain name")
            if key_node.value in seen:
                raise ScenarioError(path, line, field_name(where + (key_node.value,)),
                                    f"duplicate key (first at line {seen[key_node.value]})", "keep one of them")
            seen[key_node.value] = lines[where + (key_node.value,)] = line
            _index(path, value_node, where + (key_node.value,), lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[where + (i,)] = item.start_mark.line + 1
            _index(path, item, where + (i,), lines)


def read_yaml(path: Path) -> tuple[Any, dict[Where, int]]:
    """The file's one YAML document as data, and the line of every field path."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except OSError as exc:
        raise ScenarioError(path, None, "(file)", f"cannot read: {exc.strerror}", "check the path") from exc
    except UnicodeDecodeError as exc:
        raise ScenarioError(path, None, "(file)", "not UTF-8 text", "save the file as UTF-8") from exc
    if len(raw) > MAX_BYTES:
        raise ScenarioError(path, None, "(file)", f"larger than {MAX_BYTES} bytes", "split the scenario")
    loader = _Loader(text, path)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ScenarioError(path, 1, "(top)", "the file is empty", "start with 'id: <name>'")
        lines: dict[Where, int] = {(): node.start_mark.line + 1}
        _index(path, node, (), lines)
        return loader.construct_document(node), lines
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        raise ScenarioError(path, mark.line + 1 if mark else None, "(yaml)",
                            f"not valid YAML: {getattr(exc, 'problem', None) or exc}",
                            "fix the YAML syntax at that line (one document per file)") from exc
    finally:
        loader.dispose()


class Parser:
    """Validate one file's fields into a Scenario (``scenario()`` also returns the line index)."""

    def __init__(self, path: Path):
        self.path, self.lines = path, {}

    def fail(self, where: Where, message: str, fix: str) -> ScenarioError:
        """An error at the line of ``where`` (or of its nearest enclosing field)."""
        probe = where
        while probe and probe not in self.lines:
            probe = probe[:-1]
        return ScenarioError(self.path, self.lines.get(probe), field_name(where), message, fix)

    def scenario(self) -> tuple[Scenario, dict[Where, int]]:
        """The validated Scenario and the line of every field path."""
        data, self.lines = read_yaml(self.path)
        self.fields(data, (), TOP, "id: <name>, title: <text>, subject: {tenant_id, user_id}, steps: [...]")
        sid = self.text(data["id"], ("id",))
        if not _ID.match(sid):
            raise self.fail(("id",), f"{sid!r} is not a usable id",
                            "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit")
        tags = data.get("tags", [])
        if not isinstance(tags, list) or len(set(map(str, tags))) != len(tags):
            raise self.fail(("tags",), "must be a list of distinct tags", "e.g. tags: [correction, deletion]")
        subject = self.scope(data["subject"], ("subject",), None)
        steps = data["steps"]
        if not isinstance(steps, list) or not steps:
            raise self.fail(("steps",), "must be a non-empty list of steps", "e.g. steps: [{write: {key: k, value: v}}]")
        return Scenario(sid, self.text(data["title"], ("title",)),
                        tuple(self.text(t, ("tags", i)) for i, t in enumerate(tags)), subject,
                        tuple(self.step(i, item, subject) for i, item in enumerate(steps)),
                        str(self.path)), self.lines

    def fields(self, value: Any, where: Where, spec: dict[str, bool], example: str) -> dict:
        """A mapping with only the fields of ``spec`` and every required one."""
        if not isinstance(value, dict):
            raise self.fail(where, f"must be a mapping, not {kind(value)}", f"write {example}")
        for name in value:
            if name not in spec:
                raise self.fail(where + (name,), "unknown field",
                                f"remove it, or use one of: {', '.join(spec)} (e.g. {example})")
        for name, required in spec.items():
            if required and name not in value:
                raise self.fail(where, f"missing field {name!r}", f"add it, e.g. {example}")
        return value

    def text(self, value: Any, where: Where) -> str:
        """Non-empty text (a number, boolean, date or null is refused, not converted)."""
        if not isinstance(value, str):
            raise self.fail(where, f"must be text, not {kind(value)}", _quote_fix(value))
        if not value.strip():
            raise self.fail(where, "is empty", "write the text")
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
        if not body:
            raise self.fail(where, "is empty", "name tenant_id and/or user_id, or remove it")
        merged = {f: self.text(body[f], where + (f,)) if f in body else getattr(base, f) for f in SCOPE_FIELDS}
        return Scope(**merged)

    def step(self, index: int, item: Any, subject: Scope) -> Step:
        """One step: exactly one op key with its fields, and an optional ``as:``."""
        where: Where = ("steps", index)
        if not isinstance(item, dict):
            raise self.fail(where, f"a step is a one-key mapping {{op: {{fields}}}}, not {kind(item)}",
                            f"e.g. - write: {EXAMPLES['write']}")
        ops = [k for k in item if k != "as"]
        for name in ops:
            if name not in OPS:
                raise self.fail(where + (name,), f"unknown op {name!r}", f"use one of: {', '.join(OPS)} "
                                f"(a step is {{op: {{fields}}}}, e.g. - write: {EXAMPLES['write']})")
        if len(ops) != 1:
            raise self.fail(where, f"a step has exactly one op, found {len(ops)}",
                            "split it into one step per op" if ops else f"add one, e.g. - write: {EXAMPLES['write']}")
        op, inner = ops[0], where + (ops[0],)
        body = self.fields(item[op], inner, FIELDS[op], f"{op}: {EXAMPLES[op]}")
        scope = subject
        if "as" in item:
            if op == "advance_time":
                raise self.fail(where + ("as",), "advance_time moves the one logical clock: it has no scope",
                                "remove as: from this step")
            scope = self.scope(item["as"], where + ("as",), subject)
        found: dict[str, Any] = {n: self.text(body[n], inner + (n,)) for n in ("key", "value", "prompt") if n in body}
        if "value" in found and not normalise(found["value"]):
            raise self.fail(inner + ("value",), "has no letters or digits: the judge cannot match it",
                            'use a distinctive token, e.g. "teal-falcon-7Q"')
        found.update({n: self.positive(body[n], inner + (n,)) for n in ("ttl_steps", "steps") if n in body})
        if "to" in body:
            found["to"] = self.scope(body["to"], inner + ("to",), scope)
            if found["to"] == scope:
                raise self.fail(inner + ("to",), "the target is the step's own scope",
                                "name another tenant_id and/or user_id")
        if "expect" in body:
            found["must_use"] = self.must_use(body["expect"], inner + ("expect",))
        return Step(index=index, line=self.lines[where], op=op, scope=scope, **found)

    def must_use(self, value: Any, where: Where) -> tuple[str, ...]:
        """``expect: {must_use: [keys]}``: a non-empty list of distinct keys."""
        keys = self.fields(value, where, {"must_use": True}, "expect: {must_use: [office]}")["must_use"]
        if not isinstance(keys, list) or not keys:
            raise self.fail(where + ("must_use",), "must be a non-empty list of keys",
                            "e.g. must_use: [office], or remove expect:")
        out = tuple(self.text(k, where + ("must_use", i)) for i, k in enumerate(keys))
        if len(set(out)) != len(out):
            raise self.fail(where + ("must_use",), "names a key twice", "name each key once")
        return out
