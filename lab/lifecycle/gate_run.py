"""One lifecycle gate run: targets (SUT rows or an HTTP shim) x scenarios x seeds -> a result set.

A short nest of phases, each with its own teardown: open the target's adapter -> run the pack
(each observation saved as it ends) -> close the adapter -> derive the row from what was
saved. A target that cannot be opened (its environment does not build, its SUT does not
start) is a row with a harness error; the other targets still run. Ctrl-C kills the run's SUT
processes and still derives and pins what was measured.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import structlog

from lab.lifecycle.adapters import AdapterError
from lab.lifecycle.adapters.driver import DriverAdapter
from lab.lifecycle.adapters.http import HttpAdapter
from lab.lifecycle.adapters.http_config import HttpConfig
from lab.lifecycle.results import LifecycleSet, run_status
from lab.lifecycle.runner import run_pack
from lab.lifecycle.scenario import Scenario
from lab.resultset.results import lab_revision, write_json
from lab.runtime import Runtime
from lab.runtime.housekeeping import RunRegistry, new_run_id

log = structlog.get_logger(__name__)


@dataclass
class Target:
    """Something the gate measures: a row name, what it states about itself, and its adapter."""

    row: str
    meta: dict[str, Any]
    open: Callable[[RunRegistry], Any]  # -> a started Adapter (a context manager that closes it)


@dataclass
class GateRun:
    """What a lifecycle run wrote and how it ended."""

    out: Path
    run: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False


def sut_target(profile: Any, runtime: Runtime, out: Path) -> Target:
    """A SUT row (a profile taking the lifecycle measurement) on ``runtime``."""
    spec = profile.lifecycle
    meta = {"row": profile.row, "mode": "live", "sut": dict(profile.sut), "adapter": "driver",
            "capabilities": sorted(spec.capabilities), "scope": spec.scope, "runtime": runtime.name}
    return Target(profile.row, meta, lambda registry: DriverAdapter(profile, runtime, registry,
                                                                    logs_dir=out / "logs" / profile.row).start())


def http_target(config: HttpConfig) -> Target:
    """A team's own service behind the HTTP shim contract (docs/lifecycle-http.md)."""
    adapter_caps = sorted(name for name, on in config.capabilities.items() if on)
    meta = {"row": config.name, "mode": "live", "sut": {"package": config.name, "config": config.to_json()},
            "adapter": "http", "capabilities": adapter_caps,
            "scope": "separate" if "tenants" in adapter_caps else "folded", "runtime": "http"}
    return Target(config.name, meta, lambda registry: HttpAdapter(config))


def run_gate(targets: list[Target], scenarios: list[Scenario], seeds: int, fail_on: str, out: Path,
             runtime_name: str, progress: Callable[[str, str], None] = lambda row, step: None) -> GateRun:
    """Run every scenario once per seed on every target and write a lifecycle result set."""
    results = LifecycleSet(out)
    results.save_scenarios(scenarios)
    registry = RunRegistry(new_run_id())
    run = {"kind": "lifecycle", "run_id": registry.run_id, "started": _now(), "finished": None,
           "status": "running", "runtime": runtime_name, "lab": lab_revision(), "fail_on": fail_on,
           "seeds": seeds, "scenarios": len(scenarios), "rows": [t.meta for t in targets]}
    write_json(out / "run.json", run)
    outcome = GateRun(out, run)
    try:
        for target in targets:
            _measure(target, scenarios, seeds, results, run, registry, progress)
        run["status"] = "completed"
    except KeyboardInterrupt:
        registry.kill_all()
        run["status"], outcome.interrupted = "interrupted", True
    finally:
        run["finished"] = _now()
        write_json(out / "run.json", run)
        outcome.rows = [results.write_row(t.meta, fail_on) for t in targets]
        run["verdict"] = run_status(outcome.rows)
        write_json(out / "run.json", run)
        results.write_manifest(run)
        registry.close()
    return outcome


def _measure(target: Target, scenarios: list[Scenario], seeds: int, results: LifecycleSet,
             run: dict[str, Any], registry: RunRegistry, progress: Callable[[str, str], None]) -> None:
    """One target: open its adapter, run the pack, close it; a failure to open is the row's error."""
    save = results.saver(target.row)
    started = time.monotonic()
    try:
        adapter = target.open(registry)
    except Exception as exc:  # noqa: BLE001 -- an environment or SUT that cannot start is this row's error
        log.error("lifecycle.target_failed", row=target.row, error=str(exc))
        message = str(exc) if isinstance(exc, AdapterError) else f"{type(exc).__name__}: {exc}"
        for scenario in scenarios:  # every scenario of the pack is then unmeasured, said per scenario
            for seed in range(seeds):
                save({"scenario": scenario.id, "seed": seed, "namespace": None, "adapter": target.row,
                      "steps": [], "queries": [], "skipped": [],
                      "error": {"stage": "open", "message": f"the SUT could not be opened: {message}"}})
        progress(target.row, "open failed")
        return
    with adapter:
        target.meta["describe"] = adapter.describe()
        target.meta["open_seconds"] = round(time.monotonic() - started, 3)
        write_json(results.root / "run.json", run)
        run_pack(adapter, scenarios, range(seeds), save=save, progress=lambda step: progress(target.row, step))
    target.meta["seconds"] = round(time.monotonic() - started, 3)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
