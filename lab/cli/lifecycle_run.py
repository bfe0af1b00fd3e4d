"""What ``memlab lifecycle run`` does around the gate (:mod:`lab.cli.lifecycle` holds the commands): the
target an ``--adapter`` spec names, the rows it may gate here, a ``--resume``, and the end of a run --
its reports, summary, signature, table and exit code.

Each function imports the gate's code when it runs, so that importing this module (every
``memlab lifecycle`` command does) loads none of it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from lab.cli.results import err, fail
from lab.report.inert import inert

EXIT = {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 1, "error": 2}


def shown(text: object) -> str:
    """Text from outside (a scenario, a shim, a path) for the console: control characters shown as
    escapes, markup escaped, its line breaks kept (lab.report.inert)."""
    return inert(text, lines=True)


def adapter_spec_target(text: str):
    """The target an ``--adapter`` spec names (lab.lifecycle.adapter_spec); a spec memlab cannot take: exit 2."""
    from lab.lifecycle.adapter_spec import SpecError, parse

    try:
        return parse(text)
    except SpecError as exc:
        fail(shown(str(exc)))


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: what was measured is kept and pinned (exit 143)."""

    signal = "SIGTERM"


def terminate_as_interrupt() -> None:
    """Turn SIGTERM into :class:`Terminated` for the rest of this process."""
    import signal

    def handler(signum: int, frame: Any) -> None:
        raise Terminated()

    signal.signal(signal.SIGTERM, handler)


#: Options a resume takes from the run it completes (parameter -> as typed); giving one is refused.
RESUME_TAKES = {"pack": "PACK", "patterns": "--sut", "http_config": "--http", "adapter_spec": "--adapter",
                "scenarios_dir": "--scenarios", "seeds": "--seeds", "fail_on": "--fail-on", "position": "--position",
                "restart": "--restart", "runtime_name": "--runtime", "out": "--out", "profiles_dir": "--profiles"}


def resume(root: Path, json_file: Path | None, report_json: Path | None, report_md: Path | None, sign_key: Any,
            no_fork_server: bool, evidence_budget: int) -> None:
    """``--resume DIR``: the run in DIR, its own targets and options, only its missing scenario runs."""
    from click.core import ParameterSource

    from lab.cli.progress import RunProgress
    from lab.lifecycle.gate_run import run_gate
    from lab.lifecycle.partial import missing
    from lab.lifecycle.results import load_scenarios
    from lab.lifecycle.resume import ResumeRefused, resume_targets
    from lab.resultset.loading import Unreadable
    from lab.resultset.lock import OutRefused

    ctx = click.get_current_context()
    given = [flag for name, flag in RESUME_TAKES.items() if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if given:
        fail(f"--resume takes the run's own options from {shown(str(root / 'run.json'))}; it refuses "
             f"{', '.join(given)}\n  fix: give --resume DIR alone (with --json, --report-json, --report-md or "
             "--sign-key if you want them)")
    try:
        run, targets = resume_targets(root, no_fork_server)
    except ResumeRefused as exc:
        fail(shown(str(exc)))
    try:
        scenarios = sorted(load_scenarios(root).values(), key=lambda s: s.id)
    except Unreadable as exc:  # a saved scenario edited since: named, never a traceback
        fail(f"{shown(str(exc))}\n  fix: restore it from the run's scenarios, or start a new run")
    todo = missing(root, run)
    left = sum(len(todo[t.key]) for t in targets)
    err.print(f"memlab lifecycle: resuming {shown(str(root))}: {left} scenario run(s) of {len(targets)} target(s) "
              "left to measure", highlight=False)
    try:
        with RunProgress(err, total=left) as bar:
            outcome = run_gate(targets, scenarios, int(run.seeds or 0), run.fail_on, root, run.runtime or "?",
                               progress=lambda row, step: bar.step(row, step, advance=0 if "failed" in step else 1),
                               resume=run.to_json(), evidence_budget=evidence_budget)
    except OutRefused as exc:
        fail(shown(str(exc)))
    finish(outcome, json_file, sign_key, report_json, report_md, ", ".join(t.key for t in targets))


def adapter_as_target(spec_text: str, patterns: tuple[str, ...], http_config: Path | None) -> tuple[tuple[str, ...], Path | None]:
    """``--adapter SPEC`` as --sut or --http (it names one target; give it alone)."""
    if patterns or http_config is not None:
        fail("--adapter names what to gate: give it instead of --sut and --http, not beside them")
    spec = adapter_spec_target(spec_text)
    if spec.note:
        err.print(f"note: {shown(spec.note)}", highlight=False)
    return ((spec.row,), None) if spec.row else ((), Path(spec.http))


def finish(outcome, json_file: Path | None, sign_key: Any, report_json: Path | None = None,
            report_md: Path | None = None, adapter: str = "") -> None:
    """Reports, summary, signature; the table; the exit code of the gate."""
    from lab.lifecycle.peer_report import report as peer_report
    from lab.lifecycle.results import summary_json
    from lab.report import lifecycle as lifecycle_report
    from lab.report.lifecycle_files import write_lifecycle_reports
    from lab.report.stdout import stdout_console
    from lab.resultset.files import write_json

    out, run, rows = outcome.out, outcome.run, outcome.rows
    write_lifecycle_reports(out, rows, run)
    summary = summary_json(rows, run)
    write_json(out / "summary.json", summary)
    if json_file is not None:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / "summary.json", json_file)
    if report_json is not None:
        report_json.parent.mkdir(parents=True, exist_ok=True)
        report_json.write_text(json.dumps(peer_report(rows, run, summary, adapter), indent=2) + "\n", encoding="utf-8")
    if report_md is not None:
        report_md.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / "report.md", report_md)
    if sign_key is not None:  # cryptography only when a key signs
        from lab.resultset import signing

        record = signing.sign(out, sign_key)
        err.print(f"signed manifest.json with {record['key_id']}", highlight=False)
    lifecycle_report.print_report(rows, run, stdout_console())
    for path, what in ((report_json, "report (json)"), (report_md, "report (md)")):
        if path is not None:
            err.print(f"{what}: {shown(str(path))}", highlight=False)
    err.print(f"result set: {shown(str(out))} (memlab verify {shown(str(out))})", highlight=False)
    if outcome.over_budget is not None:  # a harness error, never a verdict (exit 2)
        fail(outcome.over_budget.describe("memlab lifecycle run --resume"))
    if outcome.interrupted:
        err.print(f"[yellow]interrupted[/]: what was measured is kept and pinned; `memlab lifecycle run --resume "
                  f"{shown(str(out))}` completes it")
        sys.exit(143 if outcome.terminated else 130)
    sys.exit(EXIT[summary["status"]])
