"""``memlab frontdoor``: the front door (docs/front-door.md). ``run`` measures the calibration stores
(in memlab's own process), a row of the lab through its SUT's driver (``--sut``, live and restarted) or a
team's shim on every poisoning fixture and isolation probe, and writes a result set that ``memlab
verify`` recomputes.

Exit codes of ``run``: 0 held (no SERVED cell outside the beyond-reach cells, no LEAKED probe, and every
counted cell and probe with a verdict), 1 a finding (or a row without a verdict: never held), 2 an
error (bad input, a folder it may not write, a harness failure, the --evidence-budget passed: one
line, never a traceback), 130 interrupted. The front door's code is imported when a command runs, so ``--help`` loads none of it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from lab.cli.console import console, fail, reader_may_leave
from lab import RUNTIME_NAMES
from lab.cli.options import EVIDENCE_BUDGET, evidence_budget_option, profiles_option, sign_key_option
from lab.report.inert import inert

#: The calibration stores as --reference names them (lab.frontdoor.reference.REFERENCE_STORES, with the
#: level each is built at; tests/frontdoor/test_frontdoor_cli.py holds the two equal).
REFERENCE_HELP = "naive (P0), label (P1), signed (P2), signed-content (P3)"


@click.group("frontdoor")
def frontdoor() -> None:
    """The front door: what an attacker plants through a store's write API, and what another context reads."""


@frontdoor.command("run")
@click.option("--reference", "references", multiple=True, metavar="STORE",
              help=f"A calibration store to measure (repeatable): {REFERENCE_HELP}.")
@click.option("--sut", "patterns", multiple=True, metavar="ROW",
              help="A row of the lab through its SUT's driver (repeatable; globs allowed; rows whose profile "
                   "takes the frontdoor measurement).")
@click.option("--position", type=click.Choice(["live", "restarted", "both"]), default="both", show_default=True,
              help="For --sut rows and --http shims: live (one SUT process) or restarted (the SUT stopped and "
                   "started on its volumes, or the shim's service restarted, before every judged read); both: "
                   "each its own row (a shim without POST /frontdoor/restart is then measured live only, and "
                   "the run says so).")
@click.option("--runtime", "runtime_name", type=click.Choice(RUNTIME_NAMES), default="auto", show_default=True,
              help="Where --sut rows run (auto: the lab's own pure-Python SUTs locally; other SUTs in containers "
                   "where an engine answers, else locally; the first line says which and why).")
@profiles_option
@click.option("--http", "shims", multiple=True, metavar="CONFIG",
              type=click.Path(dir_okay=False, path_type=Path),
              help="A team's service behind a front-door shim, by its config (repeatable; docs/front-door.md).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The result-set folder: new or empty (a set already there is never replaced).")
@click.option("--filler", type=click.IntRange(0, 10_000), default=0, show_default=True, metavar="N",
              help="The scale tier: N unrelated genuine memories written before every fixture, so the victim's "
                   "memories are read among many (0: the fixtures alone).")
@click.option("--reword", is_flag=True,
              help="Also write each statement-like attack in three rewordings that keep its canary (framed, "
                   "re-cased, annotated), so a store recognising the fixtures' exact sentences is not held.")
@click.option("--json", "json_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the summary (status, exit code, each row's level, findings) to this file.")
@evidence_budget_option
@sign_key_option
def run_cmd(references: tuple[str, ...], patterns: tuple[str, ...], position: str, runtime_name: str,
            profiles_dir: Path, shims: tuple[Path, ...], out: Path, filler: int, reword: bool,
            json_file: Path | None, sign_key: Any, evidence_budget: int = EVIDENCE_BUDGET) -> None:
    """Measure each --reference store, each --sut row (through its SUT's driver) and each --http shim on
    every poisoning fixture and isolation probe; write a verifiable result set and its reports. Exit 0
    held, 1 a finding (or no verdict), 2 error, 130 interrupted."""
    from lab.frontdoor.reference import REFERENCE_STORES
    from lab.frontdoor.saved import RUNTIME_LINE, SHIM_RUNTIME_LINE

    names = list(dict.fromkeys(references))
    known = ", ".join(REFERENCE_STORES)
    if not names and not shims and not patterns:
        fail(f"name what to measure: --reference STORE (the calibration stores: {known}), --sut ROW or "
             "--http CONFIG")
    unknown = [name for name in names if name not in REFERENCE_STORES]
    if unknown:
        fail(f"unknown --reference {', '.join(unknown)}: the calibration stores are {known}")
    stores = {name: REFERENCE_STORES[name] for name in names}
    opened: list[Any] = []  # the shims' connections and the rows' SUT processes, closed when the run ends
    try:  # from here a crash is a harness failure, exit 2 (never 1, which CI reads as a finding)
        rows, choice = _rows(patterns, runtime_name, profiles_dir) if patterns else ([], None)
        notes: list[str] = []
        stores.update(_shims(shims, set(stores), opened, position, notes))
        lines = [(RUNTIME_LINE, names), (choice.line() if choice else "", rows), (SHIM_RUNTIME_LINE, shims)]
        for line, wanted in [*lines, *((note, True) for note in notes)]:
            if wanted:
                console.print(line, highlight=False, soft_wrap=True)
        runtime = ", ".join(kind for kind, wanted in (("in-process", names),
                                                      (choice.runtime.name if choice else "", rows),
                                                      ("http", shims)) if wanted)
        stores.update(_drivers(rows, choice, position, set(stores), opened, out))
        code = _run(stores, {n: REFERENCE_STORES[n].level for n in names}, runtime, out, json_file, sign_key,
                    filler, reword, settle=lambda: [store.close() for store in reversed(opened)],
                    evidence_budget=evidence_budget)
    except KeyboardInterrupt:
        fail(f"interrupted: {out} holds what was written and is not pinned; run again into a new --out", 130)
    except OSError as exc:
        from lab.cli.oserrors import describe
        fail(describe(exc) or f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a store or the harness failed: said in one line, exit 2 (never 1)
        from lab.resultset.evidence_budget import EvidenceOverBudget
        fail(exc.describe(None) if isinstance(exc, EvidenceOverBudget)
             else f"harness failure: {type(exc).__name__}: {exc}")
    finally:
        for store in reversed(opened):  # the rows' SUTs before their registry
            store.close()
    sys.exit(code)


def _rows(patterns: tuple[str, ...], runtime_name: str, profiles_dir: Path) -> tuple[list, Any]:
    """The rows --sut selects, each one the front door measures and this runtime can run (else exit 2)."""
    from lab.cli.measured_rows import rows_to_measure

    return rows_to_measure(profiles_dir, patterns, runtime_name, "frontdoor")


def _drivers(rows: list, choice: Any, position: str, taken: set[str], opened: list[Any],
             out: Path | None) -> dict[str, Any]:
    """Each row's store (one SUT process per row, started with its first case; added to ``opened``) and
    its targets, one per position."""
    from lab.frontdoor.driver_store import DriverStore
    from lab.frontdoor.targets import driver_targets
    from lab.runtime.housekeeping import RunRegistry, new_run_id

    positions = ("live", "restarted") if position == "both" else (position,)
    if not rows:
        return {}
    registry = RunRegistry(new_run_id())
    opened.append(registry)
    out_targets: dict[str, Any] = {}
    for profile in rows:
        store = DriverStore(profile, choice.runtime, registry, logs_dir=out / "logs" / profile.row if out else None)
        opened.append(store)
        targets = driver_targets(store, positions, choice.runtime.name)
        clash = sorted(set(targets) & (taken | set(out_targets)))
        if clash:
            fail(f"two stores are named {clash[0]!r}: a shim config names a row of the lab; rename the shim")
        out_targets.update(targets)
    return out_targets


def _shims(configs: tuple[Path, ...], taken: set[str], opened: list[Any], position: str = "live",
           notes: list[str] | None = None) -> dict[str, Any]:
    """Each shim's config read (exit 2 on a bad one) as its rows: ``<name>`` live (a factory resetting its
    service) and ``<name>@restarted`` where asked and the service restarts (else a line in ``notes``);
    each store opened is added to ``opened``. A shim asked only for the restarted position that cannot
    restart is exit 2."""
    from lab.frontdoor.http_store import shim_store
    from lab.frontdoor.targets import Target
    from lab.profile import ProfileError

    out: dict[str, Any] = {}
    for path in configs:
        try:
            store = shim_store(path)
        except (ProfileError, ValueError, OSError) as exc:
            fail(str(exc))
        name = store.config.name
        if name in taken or name in out:
            fail(f"two stores are named {name!r} ({path}): give each shim config its own name")
        opened.append(store)
        if position in ("live", "both"):
            out[name] = store.fresh
        if position == "live":
            continue
        if store.restarts():
            out[f"{name}@restarted"] = Target(make=store.fresh, restart=store.restart)
        elif position == "restarted":
            fail(f"{path}: the restarted position needs POST /frontdoor/restart, which {name} does not offer "
                 "(404)\n  fix: implement it (docs/front-door.md, \"Your own service through a shim\"), or run "
                 "--position live")
        elif notes is not None:
            notes.append(f"restarted position: not measured for {inert(name, markup=False)}: it offers no POST "
                         "/frontdoor/restart (docs/front-door.md)")
    return out


def _run(stores: dict[str, Any], expected: dict[str, str], runtime: str, out: Path, json_file: Path | None,
         sign_key: Any, filler: int = 0, reword: bool = False, settle: Any = lambda: None,
         evidence_budget: int = EVIDENCE_BUDGET) -> int:
    """Measure, write the set, its reports, summary and signature; print the report; the exit code
    (``settle``: the SUTs stopped once measured, before their logs are pinned; ``evidence_budget``: the
    bytes the set may take)."""
    from lab.cli.progress import RunProgress
    from lab.frontdoor.outcome import outcome, summary
    from lab.frontdoor.writer import FrontdoorSet
    from lab.report import frontdoor_text
    from lab.report.frontdoor_files import write_frontdoor_reports
    from lab.resultset.files import write_json
    from lab.resultset.lock import OutRefused

    try:
        fset = FrontdoorSet(out, evidence_budget)
    except OutRefused as exc:
        fail(str(exc))
    with fset, RunProgress(console, total=len(stores)) as bar:
        run, results = fset.run(stores, expected, progress=lambda r: bar.step(r.store, f"level {r.level()}"),
                                runtime=runtime, filler=filler, reword=reword,
                                cases=lambda store, done, total: bar.step(store, f"case {done}/{total}", advance=0),
                                settle=settle)
        write_frontdoor_reports(out, results, run)
        done = summary(run.run_id, [outcome(r) for r in results])
        write_json(out / "summary.json", done.to_json())
        if json_file is not None:
            write_json(json_file, done.to_json())
        if sign_key is not None:  # cryptography's signing only when a key signs
            from lab.resultset import signing
            record = signing.sign(out, sign_key)
            console.print(f"signed manifest.json with {record['key_id']}", highlight=False)
    with reader_may_leave():
        click.echo(frontdoor_text.render(results, run), nl=False)
    console.print(f"result set: {inert(out)} (memlab verify {inert(out)}); status {done.status}, exit {done.exit}",
                  highlight=False, soft_wrap=True)
    return done.exit


@frontdoor.command("doctor")
@click.option("--reference", "reference", metavar="STORE", default=None,
              help=f"A calibration store: {REFERENCE_HELP}.")
@click.option("--sut", "row", metavar="ROW", default=None,
              help="A row of the lab whose profile takes the frontdoor measurement, through its SUT's driver.")
@click.option("--runtime", "runtime_name", type=click.Choice(RUNTIME_NAMES), default="auto", show_default=True,
              help="Where a --sut row runs (as for run; the first line says which and why).")
@profiles_option
@click.option("--http", "shim", metavar="CONFIG", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="A team's service behind a front-door shim, by its config.")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
def doctor_cmd(reference: str | None, row: str | None, runtime_name: str, profiles_dir: Path, shim: Path | None,
               as_json: bool) -> None:
    """Before a run: can the store be measured (a genuine write served unmarked), and which channels and
    probes can it tell apart? Exit 0 it can be measured, 1 it cannot, 2 bad input or a shim or driver error."""
    import json

    from lab.frontdoor.doctor import Check, diagnose
    from lab.frontdoor.reference import REFERENCE_STORES

    if sum(x is not None for x in (reference, row, shim)) != 1:
        fail("name one store: --reference STORE, --sut ROW or --http CONFIG")
    if reference is not None and reference not in REFERENCE_STORES:
        fail(f"unknown --reference {reference}: the calibration stores are {', '.join(REFERENCE_STORES)}")
    opened: list[Any] = []
    try:
        if row is not None:
            rows, choice = _rows((row,), runtime_name, profiles_dir)
            click.echo(choice.line(), err=True)
            stores = _drivers(rows, choice, "live", set(), opened, None)  # logs in the run's scratch
            target = next(iter(stores.values()))
            make, message = target.make, target.message
        else:
            make = REFERENCE_STORES[reference] if reference else next(iter(_shims((shim,), set(), opened).values()))
            message = None
        checks = diagnose(make, message)
        if shim is not None:  # the restarted position is the shim's to offer
            restarts = opened[-1].restarts()
            checks.append(Check("restarts", restarts, "POST /frontdoor/restart answers: the restarted position "
                                "is measured" if restarts else "no POST /frontdoor/restart: measured live only"))
    except Exception as exc:  # the shim or driver failed or answered in another shape: one line, exit 2
        fail(f"harness failure: {type(exc).__name__}: {exc}")
    finally:
        for store in reversed(opened):
            store.close()
    ok = checks[0].ok
    if as_json:
        click.echo(json.dumps({"ok": ok, "checks": [c.__dict__ for c in checks]}, indent=1))
    else:
        for check in checks:
            click.echo(inert(f"{'ok  ' if check.ok else 'NO  '}{check.name:<11} {check.detail}", markup=False))
        click.echo(f"doctor: {'the store can be measured' if ok else 'the store cannot be measured'}")
    sys.exit(0 if ok else 1)
