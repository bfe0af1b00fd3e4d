"""``memlab lifecycle``: the lifecycle gate (docs/lifecycle.md) — run, validate, doctor, list-adapters
(what a run does around the gate: :mod:`lab.cli.lifecycle_run`).

The peer gate's command lines work with only the program name changed (``memorycheck`` ->
``memlab lifecycle``): ``run PACK --adapter SPEC --seeds N --fail-on p1|p2 --report-json FILE
--report-md FILE`` (and ``--judge deterministic``, ``--no-baseline``), ``doctor --adapter
http:CONFIG [--timeout S]``, ``validate PACK``, ``list-adapters``; its packs and shim configs are
read as they are. memlab's own options stay (``--sut``, ``--http``, ``--scenarios``,
``--position``, ``--json``, …).

Exit codes of ``run``: 0 the gate passed, 1 it failed or was inconclusive, 2 a harness or
input error (a bad scenario file, an unknown row, a SUT that never answered, a mutation that
never showed, the restarted position asked of an HTTP shim, the --evidence-budget passed: what was
measured is kept and pinned, --resume completes it), 130 interrupted (what was measured is kept and
pinned). ``validate``: 0 valid (warnings printed), 2 invalid. ``doctor``: 0 every
check passed, 1 a check failed, 2 a bad config. Each command imports the gate's code when it
runs, so that ``memlab lifecycle --help`` loads none of it (only the scenario loader, for the
bundled pack's folder).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from lab import RUNTIME_NAMES
from lab.cli.lifecycle_run import (adapter_as_target, adapter_spec_target, finish, resume,
                                   shown, terminate_as_interrupt)
from lab.cli.options import (EVIDENCE_BUDGET, Seconds, default_out, evidence_budget_option, no_fork_server_option,
                             profiles_option, sign_key_option)
from lab.cli.results import err, fail
from lab.lifecycle.scenario import BUNDLED_PACK


@click.group("lifecycle")
def lifecycle() -> None:
    """The lifecycle gate: do write, correct, rescope, expire and delete change what is served?"""


#: What a pack is, for an error that names a PACK there is none of.
PACK_IS = ("a scenario pack is a folder of scenario *.yaml/*.yml files, or one such file (memlab's shape or "
           "memorycheck's; `memlab lifecycle validate PACK` checks one)")


def _pack_exists(where: Path | None, profiles_dir: Path | None = None) -> None:
    """Exit 2 with "no such file or folder" (what a pack is, and the fix) unless ``where`` is None or exists;
    a PACK that names a row (a profile in ``profiles_dir``) is said to be one, with ``--sut``."""
    if where is None or where.exists():
        return
    row = profiles_dir is not None and where.parent == Path() and (profiles_dir / f"{where.name}.yaml").is_file()
    fix = (f"{where.name} is a row, not a pack: gate it with --sut {where.name} (PACK left out: the bundled pack)"
           if row else "give the path of a pack, or leave it out to run the bundled pack")
    fail(shown(f"no such file or folder: {where}\n  {PACK_IS}\n  fix: {fix}"))


def _pack(where: Path):
    """The scenarios of a pack (a folder or one file); every error printed with its file, line and fix,
    then exit 2; warnings printed."""
    from lab.lifecycle.scenario_pack import load_pack  # the YAML reader: not for --help

    _pack_exists(where)
    pack = load_pack(where)
    for warning in pack.warnings:
        err.print(f"[yellow]warning[/] {shown(str(warning))}", highlight=False)
    for error in pack.errors:
        err.print(f"[bold red]invalid scenario[/] {shown(str(error))}", highlight=False)
    if pack.errors:
        fail(shown(f"{len(pack.errors)} invalid scenario file(s) in {where}; nothing was run"))
    return list(pack.scenarios)


@lifecycle.command("validate")
@click.argument("pack", type=click.Path(path_type=Path), default=BUNDLED_PACK)
def validate_cmd(pack: Path) -> None:
    """Check a scenario pack (a folder of *.yaml/*.yml, or one file; memlab's shape or memorycheck's):
    exit 0 valid (warnings printed), 2 invalid (file, line, fix for each)."""
    from lab.lifecycle.scenario_pack import load_pack

    scenarios = _pack(pack)
    shapes = load_pack(pack).peer
    shown = f" ({len(shapes)} in memorycheck's shape)" if shapes else ""
    click.echo(f"{len(scenarios)} scenario(s) in {pack}{shown}: valid")


@lifecycle.command("export")
@click.argument("pack", type=click.Path(path_type=Path), default=BUNDLED_PACK)
@click.option("--to", "to", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="A new folder for the exported files (one <id>.yaml each).")
@click.option("--shape", type=click.Choice(["memorycheck", "memlab"]), default="memorycheck", show_default=True,
              help="memorycheck: `- op: NAME` with the fields beside op (the peer gate reads it); memlab: memlab's own.")
def export_cmd(pack: Path, to: Path, shape: str) -> None:
    """Write a pack (default: the bundled one) in either scenario shape; loading it back gives the same scenarios."""
    from lab.lifecycle.scenario_export import to_yaml

    scenarios = _pack(pack)
    if to.exists() and any(to.iterdir()):
        fail(shown(f"{to} is not empty\n  fix: export into a new folder"))
    to.mkdir(parents=True, exist_ok=True)
    for scenario in scenarios:
        (to / f"{scenario.id}.yaml").write_text(to_yaml(scenario, shape), encoding="utf-8")
    click.echo(f"{len(scenarios)} scenario(s) written to {to} in {shape}'s shape")


@lifecycle.command("list-adapters")
def list_adapters_cmd() -> None:
    """The --adapter specs memlab takes (memorycheck's, each naming a memlab target)."""
    from lab.lifecycle.adapter_spec import LISTING
    for spec, what in LISTING:
        click.echo(f"  {spec:<20} {what}")


@lifecycle.command("doctor")
@click.argument("config", type=click.Path(path_type=Path), required=False)
@click.option("--adapter", "adapter_spec", default=None, metavar="http:CONFIG",
              help="The config as memorycheck names it (the same as CONFIG).")
@click.option("--base-url", default=None, help="Override the config's base_url (e.g. a test instance).")
@click.option("--timeout", type=Seconds(), default=None,
              help="Seconds to wait for a write to show or a delete to take effect, above 0 and at most 3600 "
                   "(the config's convergence timeout otherwise).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def doctor_cmd(config: Path | None, adapter_spec: str | None, base_url: str | None, timeout: float | None,
               as_json: bool) -> None:
    """Check a team's HTTP shim against its contract (it resets the store: use a test instance)."""
    from dataclasses import replace

    from lab.lifecycle.adapters.http_config_checks import load_http_config
    from lab.lifecycle.doctor import doctor
    from lab.profile import ProfileError

    config = _http_config_path(config, adapter_spec)
    try:
        cfg = load_http_config(config, base_url=base_url)
    except ProfileError as exc:  # HttpConfigError, or the file cannot be read
        fail(shown(str(exc)))
    if timeout is not None:
        cfg = replace(cfg, convergence={**cfg.convergence, "timeout": timeout})
    report = doctor(cfg)
    click.echo(json.dumps(report.to_json(), indent=2) if as_json else "\n".join(report.lines()))
    sys.exit(0 if report.ok else 1)


def _http_config_path(config: Path | None, adapter_spec: str | None) -> Path:
    """The shim config from CONFIG or ``--adapter http:CONFIG`` (exactly one of them)."""
    if adapter_spec is None:
        if config is None:
            fail("name the shim's config: memlab lifecycle doctor CONFIG (or --adapter http:CONFIG)")
        return config
    spec = adapter_spec_target(adapter_spec)
    if spec.http is None:
        fail(f"doctor checks an HTTP shim: --adapter http:CONFIG, not {shown(adapter_spec)}")
    if config is not None and Path(spec.http) != config:
        fail("give the config once: CONFIG or --adapter http:CONFIG")
    return Path(spec.http)


@lifecycle.command("run")
@click.argument("pack", type=click.Path(path_type=Path), required=False)
@click.option("--sut", "patterns", multiple=True, metavar="ROW", help="Rows to gate (repeatable; globs allowed).")
@click.option("--http", "http_config", type=click.Path(path_type=Path), default=None,
              help="A shim config (memlab's contract or memorycheck's; docs/lifecycle-http.md) for a team's own "
                   "service.")
@click.option("--adapter", "adapter_spec", default=None, metavar="SPEC",
              help="What to gate, as memorycheck names it: http:CONFIG, reference:strict|naive|leaky, "
                   "langgraph[:sqlite], sut:ROW (`memlab lifecycle list-adapters`).")
@click.option("--scenarios", "scenarios_dir", type=click.Path(path_type=Path), default=None,
              help="Scenario pack: a folder, or one file (the same as PACK). [default: the bundled pack]")
@click.option("--seeds", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Runs of the pack, each in its own scenario order; unstable checks are shown.")
@click.option("--fail-on", type=click.Choice(["p1", "p2"]), default="p2", show_default=True,
              help="p2: P1 and P2 checks block (as memorycheck's default); p1: only P1 checks block.")
@click.option("--position", type=click.Choice(["live", "restarted", "both"]), default=None,
              help="live: one SUT process for the run; restarted: the SUT and its services stopped and "
                   "started anew after every mutation; both: each its own row, side by side. [default: live]")
@click.option("--restart", is_flag=True, help="The same as --position both.")
@click.option("--runtime", "runtime_name", type=click.Choice(RUNTIME_NAMES), default="auto", show_default=True,
              help="Where SUT rows run (auto: the lab's own pure-Python SUTs locally; other SUTs in containers where an engine answers, else locally; the first line says which and why).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Result-set folder. Default: results/lifecycle-<UTC timestamp>/ (-2, -3, ... added when a "
                   "run started in the same second took it).")
@click.option("--json", "json_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write memlab's summary (checks, accuracy, delta, gate, positions, erasure) to this file.")
@click.option("--report-json", "report_json", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the report in memorycheck's JSON fields (with memlab's summary under `memlab`).")
@click.option("--report-md", "report_md", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the Markdown report to this file.")
@click.option("--judge", type=click.Choice(["deterministic", "deterministic-v0"]), default="deterministic",
              help="The judge (memlab's deterministic one; accepted as memorycheck names it).")
@click.option("--no-baseline", is_flag=True,
              help="Accepted for memorycheck's CI lines; memlab's no-memory baseline (the prompt alone) costs "
                   "nothing and is always judged.")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Complete the run in this folder that did not finish (killed or interrupted): its own options, "
                   "only the scenario runs it has no observation of.")
@click.option("--unapplied-delete", type=click.Choice(["finding", "error"]), default="finding", show_default=True,
              help="A shim's delete acknowledged whose value is still served after the convergence timeout: "
                   "finding, the scenario goes on and its reads judge the residue (deletion_residue, P1, with "
                   "the latency measured); error, a harness error, as memorycheck refuses to score it.")
@profiles_option
@no_fork_server_option
@evidence_budget_option
@sign_key_option
def run_cmd(pack: Path | None, patterns: tuple[str, ...], http_config: Path | None, adapter_spec: str | None,
            scenarios_dir: Path | None, seeds: int, fail_on: str, position: str | None, restart: bool,
            runtime_name: str, out: Path | None, json_file: Path | None, report_json: Path | None,
            report_md: Path | None, judge: str, no_baseline: bool, resume_dir: Path | None, profiles_dir: Path,
            sign_key: Any, no_fork_server: bool = False, unapplied_delete: str = "finding",
            evidence_budget: int = EVIDENCE_BUDGET) -> None:
    """Run the scenario pack on each target and gate: exit 0 pass, 1 fail/inconclusive, 2 error (the
    --evidence-budget passed too), 130 interrupted, 143 terminated (what was measured is kept: --resume
    completes it)."""
    from lab.cli.progress import RunProgress
    from lab.lifecycle.gate_run import http_target, positions, run_gate, sut_target
    from lab.resultset.lock import OutRefused

    terminate_as_interrupt()
    if resume_dir is not None:
        resume(resume_dir, json_file, report_json, report_md, sign_key, no_fork_server, evidence_budget)
        return
    if pack is not None and scenarios_dir is not None:
        fail("give the pack once: PACK or --scenarios")
    _pack_exists(pack or scenarios_dir, profiles_dir)  # before what to gate: a PACK there is none of is said
    if adapter_spec is not None:
        patterns, http_config = adapter_as_target(adapter_spec, patterns, http_config)
    if not patterns and http_config is None:
        fail("name what to gate: --sut ROW (e.g. --sut lifecycle-strict), --http CONFIG or --adapter SPEC")
    if restart and position not in (None, "both"):
        fail(f"--restart means --position both; it contradicts --position {position}\n  fix: give one of them")
    if no_baseline:
        err.print("note: --no-baseline is accepted and has no effect: memlab judges its no-memory baseline (the "
                  "prompt alone) at no cost, so memory_utility_delta is always measured", highlight=False)
    chosen = positions("both" if restart else position or "live")
    scenarios = _pack(pack or scenarios_dir or BUNDLED_PACK)
    targets, runtime = [], None
    if http_config is not None:  # the shim's config reader only when a shim is gated
        err.print("runtime: none for the shim (a team's HTTP shim runs where the team runs it)", highlight=False)
        from lab.lifecycle.adapters.http_config_checks import load_http_config
        from lab.profile import ProfileError

        try:
            cfg = load_http_config(http_config)
            targets += [http_target(cfg, where, unapplied_delete=unapplied_delete) for where in chosen]
        except (ProfileError, ValueError) as exc:  # a bad config (HttpConfigError) or an unreadable file
            fail(shown(str(exc)))
        err.print(f"http:{shown(cfg.name)}: {cfg.contract}'s contract at {shown(cfg.base_url)}", highlight=False)
        if cfg.unset_token:
            err.print(f"note: auth_token_env names {cfg.unset_token}, which is not set: requests go without "
                      "Authorization", highlight=False)
    if patterns:
        from lab.cli.measured_rows import rows_to_measure

        rows, choice = rows_to_measure(profiles_dir, patterns, runtime_name, "lifecycle")
        runtime = choice.runtime
        err.print(shown(choice.line()), highlight=False)
        # a fork server pays off over many starts; the live position starts each SUT once
        if (no_fork_server or chosen == ("live",)) and hasattr(runtime, "use_fork_server"):
            runtime.use_fork_server = False
    out = out or default_out("lifecycle-")  # made once every input is checked: a new folder of its own
    if patterns:
        targets += [sut_target(p, runtime, out, where) for p in rows for where in chosen]
    err.print(f"memlab lifecycle: {len(targets)} target(s) ({', '.join(chosen)}) × {len(scenarios)} scenario(s) × "
              f"{seeds} seed(s), fail on {fail_on} -> {shown(str(out))}", highlight=False)
    try:
        with RunProgress(err, total=len(targets) * len(scenarios) * seeds) as bar:
            outcome = run_gate(targets, scenarios, seeds, fail_on, out, runtime.name if runtime else "http",
                               progress=lambda row, step: bar.step(row, step, advance=0 if "failed" in step else 1),
                               options={"profiles": str(profiles_dir)}, evidence_budget=evidence_budget)
    except OutRefused as exc:  # another run writes --out, or it holds a set: nothing was written
        fail(shown(str(exc)))
    finish(outcome, json_file, sign_key, report_json, report_md, adapter_spec or ", ".join(t.key for t in targets))
