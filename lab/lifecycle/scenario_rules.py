"""The scenario rules that need the whole scenario: what was written where, and distinctiveness.

Replays the ledger (the one definition of the lifecycle) over a parsed scenario. Errors: a
delete of a key never written in that scope before the step, or deleted since with nothing
written after; a rescope of a key with no current value there (never written, deleted or
expired). In memlab's own shape also errors, in the peer's shape (``lenient``) warnings, as the
peer takes them: a correct of a key with no current value (run as a write: the peer's correct
is one), and a must_use key with no current value at its query (that requirement is NOT TESTED,
the peer's "authoring error?"). Warnings: two written values the judge cannot tell apart
(equal, or one inside the other, after ``folds.normalise`` on token boundaries); a prompt that
contains a written value (a no-memory agent has it too).
"""

from __future__ import annotations

from dataclasses import replace

from lab.lifecycle.folds import normalise
from lab.lifecycle.ledger import Label, Ledger
from lab.lifecycle.matching import same_after_folding, served_uses
from lab.lifecycle.scenario import Scenario, ScenarioError, ScenarioWarning, Scope, Step
from lab.lifecycle.scenario_parser import field_name
from lab.lifecycle.scenario_read import Where

DISTINCT_FIX = ('make every value a distinctive token that contains no other value of the scenario, '
                'e.g. "teal-falcon-7Q" or "Lisbon office on Rua Augusta"')
_WHY = {None: "it was never written there", Label.DELETED: "it was deleted", Label.EXPIRED: "its TTL ran out"}


def _scope(scope: Scope) -> str:
    return f"(tenant {scope.tenant_id!r}, user {scope.user_id!r})"


class _Place:
    """File, line and field of a step's sub-field, for errors and warnings (either step shape)."""

    def __init__(self, scenario: Scenario, lines: dict[Where, int]):
        self.path, self.lines = scenario.path, lines

    def at(self, step: Step, *sub: str | int) -> tuple[str, int, str]:
        """(path, line, field) of ``steps[i].<op>.<sub...>`` (memlab's shape) or ``steps[i].<sub...>``
        (the peer's, fields beside ``op``), the step's line if the field is not in the file."""
        own: Where = ("steps", step.index, step.op, *sub)
        peer: Where = ("steps", step.index, *sub)
        where = peer if peer in self.lines and own not in self.lines else own
        return self.path, self.lines.get(where, step.line), field_name(where)


#: The rule problems a peer-shaped scenario is forgiven, with how it is taken.
FORGIVEN = {"correct": "it is run as a write, as memorycheck runs every correct",
            "query": "that requirement is NOT TESTED, as memorycheck reports it"}


def check(scenario: Scenario, lines: dict[Where, int], lenient: bool = False
          ) -> tuple[Scenario, list[ScenarioError], list[ScenarioWarning]]:
    """The scenario as it will run, and every rule error and warning (``lines``: field path -> line;
    ``lenient``: the file is in the peer's shape)."""
    place, ledger, errors, warnings, steps = _Place(scenario, lines), Ledger(), [], [], []
    for step in scenario.steps:
        problems = [(place.at(step, *sub), message, fix) for sub, message, fix in _references(ledger, step)]
        if lenient and problems and step.op in FORGIVEN:
            warnings += [ScenarioWarning(*at, f"{message} ({FORGIVEN[step.op]})", fix) for at, message, fix in problems]
            step = replace(step, op="write") if step.op == "correct" else step
        else:
            errors += [ScenarioError(*at, message, fix) for at, message, fix in problems]
        ledger.apply(step)
        steps.append(step)
    scenario = replace(scenario, steps=tuple(steps))
    return scenario, errors, warnings + _distinct(scenario, place) + _prompts(scenario, place)


def _references(ledger: Ledger, step: Step) -> list[tuple[tuple, str, str]]:
    """(sub-field, message, fix) for each reference of ``step`` the ledger cannot honour."""
    if step.op == "query":
        return [(("expect", "must_use", i), f"key {key!r} has no current value in scope {_scope(step.scope)} "
                 f"at this query: {_WHY[ledger.state(step.scope, key)]}",
                 "write it before this query, or remove it from must_use")
                for i, key in enumerate(step.must_use) if ledger.current(step.scope, key) is None]
    if step.op not in ("delete", "correct", "rescope"):
        return []
    state, where = ledger.state(step.scope, str(step.key)), f"in scope {_scope(step.scope)}"
    if state is None:
        return [(("key",), f"key {step.key!r} was never written {where} before this step",
                 "write it earlier in that scope, or fix the key or the step's as:")]
    if state is Label.DELETED and step.op == "delete":
        return [(("key",), f"key {step.key!r} is already deleted {where}, nothing written since",
                 "remove this delete, or write the key again before it")]
    if state is Label.DELETED and step.op == "correct":
        return [(("key",), f"key {step.key!r} was deleted {where}: there is nothing to correct",
                 "re-add it with write: instead of correct:")]
    if state is not Label.CURRENT and step.op == "rescope":
        return [(("key",), f"key {step.key!r} has no current value {where} to move: {_WHY[state]}",
                 "rescope it while it is current, or drop this step")]
    return []


def _distinct(scenario: Scenario, place: _Place) -> list[ScenarioWarning]:
    """Warn when the judge cannot tell two written values apart."""
    writes = [s for s in scenario.steps if s.op in ("write", "correct")]
    warnings = []
    for j, later in enumerate(writes):
        for earlier in writes[:j]:
            a, b = str(earlier.value), str(later.value)
            if normalise(a) == normalise(b):
                message = f"the same value as step {earlier.index} (line {earlier.line}) after normalisation"
            elif folded := same_after_folding(a, b):
                message = (f"the same value as step {earlier.index} (line {earlier.line}), {a!r}, once folded "
                           f"({folded}: as a search index may serve it); where one is current and the other served "
                           "in that form, the query is NOT TESTED")
            elif served_uses(a, b):
                message = f"contains the value of step {earlier.index} (line {earlier.line}), {a!r}"
            elif served_uses(b, a):
                message = f"appears inside the value of step {earlier.index} (line {earlier.line}), {a!r}"
            else:
                continue
            warnings.append(ScenarioWarning(*place.at(later, "value"), f"non-distinctive value {b!r}: {message}; "
                                            "the judge cannot tell which one the served text used", DISTINCT_FIX))
    return warnings


def _prompts(scenario: Scenario, place: _Place) -> list[ScenarioWarning]:
    """Warn when a prompt contains a written value."""
    values = [s for s in scenario.steps if s.op in ("write", "correct")]
    return [ScenarioWarning(*place.at(query, "prompt"), f"the prompt contains the value of step {w.index} "
                            f"(line {w.line}), {w.value!r}: a no-memory agent has it too",
                            "ask without the value, e.g. 'Where is my office?'")
            for query in scenario.steps if query.op == "query"
            for w in values if served_uses(str(w.value), str(query.prompt))]
