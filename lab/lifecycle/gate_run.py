"""One lifecycle gate run: targets (SUT rows or an HTTP shim, each at a position) x scenarios x
seeds -> a result set.

A short nest of phases, each with its own teardown: open the target's adapter (fresh volumes)
-> run the pack at the target's position (each observation saved as it ends) -> close the
adapter -> derive the (row, position) from what was saved. The positions of one row are two
targets, measured one after the other on volumes of their own. A target that cannot be opened
(its environment does not build, its SUT does not start) is a row with a harness error; the
other targets still run. Ctrl-C kills the run's SUT processes and still derives and pins what
was measured.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from lab.lifecycle.adapters import AdapterError
from lab.lifecycle.adapters.driver import DriverAdapter
from lab.lifecycle.results import LifecycleSet, row_key, run_status
from lab.lifecycle.run_record import lifecycle_run_json
from lab.lifecycle.runner import NO_RESTART, POSITIONS, run_pack
from lab.lifecycle.scenario import Scenario
from lab.logs import get_logger
from lab.resultset.evidence_budget import DEFAULT_LIMIT, EvidenceBudget, EvidenceOverBudget
from lab.resultset.files import begin_lab_revision, lab_revision, write_json
from lab.runtime import Runtime
from lab.runtime.housekeeping import RunRegistry, new_run_id

if TYPE_CHECKING:  # the HTTP adapter (and httpx) only when a shim is gated
    from lab.lifecycle.adapters.http_config import HttpConfig

log = get_logger(__name__)


@dataclass
class Target:
    """Something the gate measures: a row name, what it states about itself (its ``position``
    too), and its adapter."""

    row: str
    meta: dict[str, Any]
    open: Callable[[RunRegistry], Any]  # -> a started Adapter (a context manager that closes it)
    todo: set[tuple[str, int]] | None = None  # the (scenario, seed) runs to measure; None: all (a resume: the missing)

    @property
    def key(self) -> str:
        """``<row>@<position>``: its name in the result set."""
        return row_key(self.meta)

    @property
    def position(self) -> str:
        """live or restarted."""
        return self.meta.get("position", "live")


@dataclass
class GateRun:
    """What a lifecycle run wrote and how it ended."""

    out: Path
    run: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False
    terminated: bool = False  # the interrupt was SIGTERM
    over_budget: EvidenceOverBudget | None = None  # the run passed its evidence budget (a harness error)


def sut_target(profile: Any, runtime: Runtime, out: Path, position: str = "live",
               meta: dict[str, Any] | None = None) -> Target:
    """A SUT row (a profile taking the lifecycle measurement) on ``runtime``, at ``position``
    (``meta``: what a resumed run's run.json states about it)."""
    spec = profile.lifecycle
    meta = meta if meta is not None else {
        "row": profile.row, "position": position, "sut": dict(profile.sut), "adapter": "driver",
        "capabilities": sorted(spec.capabilities), "scope": spec.scope, "isolation": spec.isolation,
        "runtime": runtime.name,
        # the at-rest profile states its erasure kind; a lifecycle-only row's driver does (at open)
        "erasure": profile.capabilities.erasure if "at_rest" in profile.measurements else None}
    logs = out / "logs" / row_key(meta)
    return Target(profile.row, meta, lambda registry: DriverAdapter(profile, runtime, registry, logs_dir=logs).start())


def http_target(config: HttpConfig, position: str = "live", meta: dict[str, Any] | None = None,
                unapplied_delete: str = "finding") -> Target:
    """A team's own service behind an HTTP shim (docs/lifecycle-http.md); only live: ``restarted``
    raises ValueError (NO_RESTART, with the fix). ``meta``: what a resumed run's run.json states;
    ``unapplied_delete``: a delete acknowledged and never applied judged (``finding``) or an ``error``."""
    if position != "live":
        raise ValueError(NO_RESTART.format(name=f"http:{config.name}"))
    adapter_caps = sorted({"erase"} | {name for name, on in config.capabilities.items() if on})
    meta = meta if meta is not None else {
        "row": config.name, "position": position, "sut": {"package": config.name, "config": config.to_json()},
        "adapter": "http", "capabilities": adapter_caps, "scope": "separate" if "tenants" in adapter_caps else "folded",
        "isolation": "sut",  # the team's service behind its shim keeps contexts apart, or does not
        "runtime": "http", "erasure": "record", "config_path": str(config.path), "unapplied_delete": unapplied_delete}
    from lab.lifecycle.adapters.http import HttpAdapter

    # a set written before the choice was recorded resumes as it ran: an unapplied delete was an error then
    return Target(config.name, meta, lambda registry: HttpAdapter(
        config, unapplied_delete=meta.get("unapplied_delete", "error")))


def positions(choice: str) -> tuple[str, ...]:
    """``live``, ``restarted`` or ``both`` (live, then restarted) as the positions to measure."""
    if choice == "both":
        return POSITIONS
    if choice not in POSITIONS:
        raise ValueError(f"unknown position {choice!r}; use live, restarted or both")
    return (choice,)


def run_gate(targets: list[Target], scenarios: list[Scenario], seeds: int, fail_on: str, out: Path,
             runtime_name: str, progress: Callable[[str, str], None] = lambda row, step: None,
             resume: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
             evidence_budget: int = DEFAULT_LIMIT) -> GateRun:
    """Run every scenario once per seed on every target and write a lifecycle result set; ``resume``:
    the run.json of the run in ``out`` that did not complete (its targets' metas are the targets'),
    whose missing runs only are measured; ``options``: what a resume needs besides (e.g. profiles);
    ``evidence_budget``: the bytes the run may write (past it: stopped as Ctrl-C stops it, ``over_budget``)."""
    results = LifecycleSet(out, resume=resume is not None)
    results.budget = EvidenceBudget(out, evidence_budget)
    registry = RunRegistry(new_run_id())
    if resume is None:
        revision = begin_lab_revision()  # git's status asked while the scenarios are written
        results.save_scenarios(scenarios)
        run = {"kind": "lifecycle", "run_id": registry.run_id, "started": _now(), "finished": None,
               "status": "running", "runtime": runtime_name, "lab": revision(), "fail_on": fail_on,
               "seeds": seeds, "scenarios": len(scenarios), "options": dict(options or {}),
               "rows": [t.meta for t in targets]}
    else:
        run = resume
        run["resumed"] = [*run.get("resumed", []), {"at": _now(), "lab": lab_revision(), "registry": registry.run_id}]
        run["status"], run["finished"] = "running", None
        run.pop("stopped", None)
    write_json(out / "run.json", lifecycle_run_json(run))
    outcome = GateRun(out, run)
    try:
        for target in targets:
            if target.todo is None or target.todo:
                _measure(target, scenarios, seeds, results, run, registry, progress)
        run["status"] = "completed"
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM turned into one by the CLI
        registry.kill_all()
        run["status"], outcome.interrupted = "interrupted", True
        outcome.terminated = getattr(exc, "signal", "") == "SIGTERM"
    except EvidenceOverBudget as exc:  # the scenario that passed it is saved; the rest wait for a --resume
        registry.kill_all()
        run.update(status="interrupted", stopped=exc.record())
        outcome.interrupted, outcome.over_budget = True, exc
    finally:
        run["finished"] = _now()
        write_json(out / "run.json", lifecycle_run_json(run))
        outcome.rows = [results.write_row(t.meta, fail_on) for t in targets]
        run["verdict"] = run_status(outcome.rows)
        write_json(out / "run.json", lifecycle_run_json(run))
        results.write_manifest(run)
        registry.close()
    return outcome


def _measure(target: Target, scenarios: list[Scenario], seeds: int, results: LifecycleSet,
             run: dict[str, Any], registry: RunRegistry, progress: Callable[[str, str], None]) -> None:
    """One target: open its adapter, run the pack, close it; a failure to open is the row's error."""
    save = results.saver(target.key)
    started = time.monotonic()
    try:
        adapter = target.open(registry)
    except Exception as exc:  # noqa: BLE001 -- an environment or SUT that cannot start is this row's error
        log.error("lifecycle.target_failed", row=target.key, error=str(exc))
        message = str(exc) if isinstance(exc, AdapterError) else f"{type(exc).__name__}: {exc}"
        _unmeasured(target, scenarios, seeds, save, f"the SUT could not be opened: {message}")
        progress(target.key, "open failed")
        return
    with adapter:
        target.meta["describe"] = adapter.describe()
        if target.meta.get("erasure") is None:
            target.meta["erasure"] = target.meta["describe"].get("erasure")
        target.meta["open_seconds"] = round(time.monotonic() - started, 3)
        write_json(results.root / "run.json", lifecycle_run_json(run))
        try:
            run_pack(adapter, scenarios, range(seeds), save=save, progress=lambda step: progress(target.key, step),
                     position=target.position, only=target.todo)
        except AdapterError as exc:  # the position cannot be taken (an adapter that cannot restart)
            _unmeasured(target, scenarios, seeds, save, str(exc))
            progress(target.key, "position failed")
    target.meta["seconds"] = round(time.monotonic() - started, 3)


def _unmeasured(target: Target, scenarios: list[Scenario], seeds: int, save: Callable[[dict], Any],
                message: str) -> None:
    """Every scenario of the pack unmeasured on this target, said per scenario (the row's error)."""
    for scenario in scenarios:
        for seed in range(seeds):
            if target.todo is not None and (scenario.id, seed) not in target.todo:
                continue
            save({"scenario": scenario.id, "seed": seed, "namespace": None, "position": target.position,
                  "adapter": target.row, "steps": [], "queries": [], "skipped": [],
                  "error": {"stage": "open", "message": message}})


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
