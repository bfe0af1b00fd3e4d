"""Lifecycle scenarios: YAML files (one scenario each), loaded strictly, with file:line errors.

A scenario in memlab's own shape (this example is loaded by the tests)::

    id: correction-basic                  # letters, digits, . _ - (unique in the pack)
    title: A correction supersedes the first value
    tags: [correction]                    # optional
    subject: {tenant_id: acme, user_id: alice}
    steps:
      - write: {key: office, value: "Lisbon office on Rua Augusta", ttl_steps: 3}  # ttl optional
      - correct: {key: office, value: "Porto office on Rua das Flores"}
      - query:
          prompt: Where is my office?
          expect: {must_use: [office]}    # optional: keys whose current value must be served
      - write: {key: office, value: "Braga desk by the Bom Jesus stairs"}
        as: {user_id: bob}                # on any step but advance_time: merged over the subject
      - rescope: {key: office, to: {tenant_id: globex}}   # `to` is merged over the step's scope
        as: {user_id: bob}
      - delete: {key: office}
      - advance_time: {steps: 2}

Each step is a mapping with exactly one op key (write, correct, delete, rescope, advance_time,
query) whose value is the op's fields, plus an optional sibling ``as:``. The peer gate's shape,
``- op: write`` with the op's fields beside ``op`` (memorycheck's packs, unchanged), is read
too (``scenario_peer``); one pack may mix files of both shapes.

Errors (``ScenarioError``: file, line, field, message, fix): unknown fields at any level,
missing fields, wrong types (ttl_steps and steps are positive integers, booleans are not; text
fields are strings, so quote ``yes``, ``7`` or dates), duplicate keys, more than 100 aliases or
too many nodes once they are expanded, too deep a nesting (``scenario_read``), a document that
is not a mapping; a delete or correct of a key never written in that scope, or one deleted
since; a rescope of a key with no current value there; a must_use key with no current value at
that query. A file in the peer's shape is read as the peer reads it: where the peer accepts what
memlab's shape refuses, that is a warning and the value is taken the peer's way
(``scenario_yaml``). Warnings (``ScenarioWarning``, same fields): a value the judge cannot tell
apart from another (one contains the other after ``folds.normalise``, on token boundaries), or a
prompt that contains a value (a no-memory agent would "use" it).

This module holds the types; ``scenario_pack`` loads a file or a folder (``load_scenario``,
``load_pack``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BUNDLED_PACK = Path(__file__).resolve().parents[2] / "scenarios" / "lifecycle"
OPS = ("write", "correct", "delete", "rescope", "advance_time", "query")


def _format(path: str, line: int | None, field: str, message: str, fix: str) -> str:
    return f"{path}:{line}: {field}: {message}\n  fix: {fix}" if line else f"{path}: {field}: {message}\n  fix: {fix}"


class ScenarioError(ValueError):
    """A scenario is invalid: file, line, field, what is wrong and how to fix it."""

    def __init__(self, path: Path | str, line: int | None, field: str, message: str, fix: str):
        super().__init__(_format(str(path), line, field, message, fix))
        self.path, self.line, self.field, self.message, self.fix = str(path), line, field, message, fix


@dataclass(frozen=True)
class ScenarioWarning:
    """A scenario loads but measures less than it seems to (same fields as ScenarioError)."""

    path: str
    line: int | None
    field: str
    message: str
    fix: str

    def __str__(self) -> str:
        return _format(self.path, self.line, self.field, f"warning: {self.message}", self.fix)


@dataclass(frozen=True)
class Scope:
    """The querying / acting scope."""

    tenant_id: str
    user_id: str

    def folded(self) -> str:
        """Tenant and user as one context id, ``tenant/user``, for a SUT that keeps only one: each
        part's ``%`` and ``/`` percent-encoded, so two scopes never fold to one id (``a/b`` + ``c``
        is ``a%2Fb/c``, ``a`` + ``b/c`` is ``a/b%2Fc``); ids without them read as before."""
        return f"{_escape_slash(self.tenant_id)}/{_escape_slash(self.user_id)}"


def _escape_slash(part: str) -> str:
    return part.replace("%", "%25").replace("/", "%2F")


@dataclass(frozen=True)
class Step:
    """One step, its scope resolved (the subject, or ``as:`` merged over it)."""

    index: int
    line: int
    op: str
    scope: Scope
    key: str | None = None
    value: str | None = None
    ttl_steps: int | None = None
    to: Scope | None = None
    steps: int | None = None
    prompt: str | None = None
    must_use: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """A validated scenario."""

    id: str
    title: str
    tags: tuple[str, ...]
    subject: Scope
    steps: tuple[Step, ...]
    path: str

    def to_json(self) -> dict[str, Any]:
        """The scenario as loaded, as plain data (for the result set)."""
        out = asdict(self)
        for step in out["steps"]:
            step["must_use"] = list(step["must_use"])
        out["tags"] = list(self.tags)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Scenario:
        """The inverse of ``to_json``."""
        steps = tuple(Step(**{**s, "scope": Scope(**s["scope"]), "must_use": tuple(s["must_use"]),
                              "to": Scope(**s["to"]) if s.get("to") else None}) for s in data["steps"])
        return cls(data["id"], data["title"], tuple(data["tags"]), Scope(**data["subject"]), steps,
                   data["path"])
