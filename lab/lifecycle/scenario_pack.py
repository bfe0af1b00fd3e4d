"""Scenario packs: a scenario file, or a folder of them, loaded and checked (the file format is
``lab.lifecycle.scenario``'s docstring; fields by ``scenario_yaml``, whole-scenario rules by
``scenario_rules``)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from lab.lifecycle.scenario import BUNDLED_PACK, Scenario, ScenarioError, ScenarioWarning
from lab.lifecycle.scenario_rules import check
from lab.lifecycle.scenario_yaml import Parser, read_scenario


@dataclass(frozen=True)
class PackLoad:
    """What a pack holds: the valid scenarios, the errors, the warnings, and the ids of the
    scenarios written in the peer's shape."""

    scenarios: tuple[Scenario, ...]
    errors: tuple[ScenarioError, ...]
    warnings: tuple[ScenarioWarning, ...]
    peer: tuple[str, ...] = ()


def load_scenario(path: Path | str) -> Scenario:
    """Load and validate one scenario file; raise its first ScenarioError."""
    found = scan_scenario(path)
    if found.errors:
        raise found.errors[0]
    return found.scenarios[0]


def scan_scenario(path: Path | str) -> PackLoad:
    """One file as a pack of one: the scenario (if valid), all its errors and warnings."""
    parser = Parser(Path(path))
    try:
        scenario, lines = read_scenario(parser)
    except ScenarioError as exc:
        return PackLoad((), (exc,), tuple(parser.warnings))
    scenario, errors, warnings = check(scenario, lines, parser.lenient)
    return PackLoad(() if errors else (scenario,), tuple(errors), tuple(parser.warnings + warnings),
                    (scenario.id,) if parser.lenient and not errors else ())


def pack_files(where: Path) -> list[Path]:
    """The scenario files of a pack: a file itself, or every *.yaml / *.yml of a folder, sorted."""
    if where.is_file():
        return [where]
    return sorted(p for p in where.iterdir() if p.is_file() and p.suffix.lower() in (".yaml", ".yml"))


def load_pack(where: Path | str = BUNDLED_PACK) -> PackLoad:
    """A scenario file, or every *.yaml and *.yml file of a folder (sorted). Duplicate ids and an
    empty folder are errors; a peer-shaped file whose id is taken runs as ``<id>-2`` (the peer runs
    both), with a warning."""
    where = Path(where)
    if not where.is_dir() and not where.is_file():
        return PackLoad((), (ScenarioError(where, None, "(folder)", "not a folder or a scenario file",
                                           "point at a folder of scenario *.yaml files, or at one file"),), ())
    files = pack_files(where)
    if not files:
        return PackLoad((), (ScenarioError(where, None, "(folder)", "no *.yaml or *.yml scenario files",
                                           "add scenario files, or point at the right folder"),), ())
    scenarios, errors, warnings, peer, seen = [], [], [], [], {}
    for path in files:
        found = scan_scenario(path)
        errors += found.errors
        warnings += found.warnings
        for scenario in found.scenarios:
            if scenario.id in seen:
                problem = (path, _id_line(path), "id", f"duplicate scenario id {scenario.id!r} (also in "
                           f"{seen[scenario.id]})", "give every scenario its own id")
                if scenario.id not in found.peer:
                    errors.append(ScenarioError(*problem))
                    continue
                scenario = replace(scenario, id=_free_id(scenario.id, seen))
                warnings.append(ScenarioWarning(*problem[:3], f"{problem[3]} (run as {scenario.id!r}, as "
                                                "memorycheck runs both)", problem[4]))
            if found.peer:
                peer.append(scenario.id)
            seen[scenario.id] = path.name
            scenarios.append(scenario)
    return PackLoad(tuple(scenarios), tuple(errors), tuple(warnings), tuple(peer))


def _free_id(sid: str, taken: dict[str, str]) -> str:
    n = 2
    while f"{sid[:60]}-{n}" in taken:
        n += 1
    return f"{sid[:60]}-{n}"


def _id_line(path: Path) -> int | None:
    return next((n for n, text in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
                 if text.startswith("id:")), None)
