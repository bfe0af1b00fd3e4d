"""Driver of continuum-agent (CONTINUUM): a run's hash-chained event log as agent memory.

One SQLite file (``continuum.db`` in volume ``store``) through ``continuum.SQLiteStorage``.
A context is a run (``create_run`` and a ``RUN_STARTED`` event on its first write); a record is a ``FINDING_ADDED`` event
(``finding_id``, ``claim`` = the text), appended with ``append_event``. The read is the
documented recovery path, ``CheckpointManager(storage).restore(run)`` (newest checkpoint,
verified on load, caught up with the events; the driver takes no checkpoints, so the state is
the projection of the events), serving ``state.findings``. No erasure operation.

Audit, ``open.config.attest``:
- ``none``: ``continuum verify RUN`` (``cmd_verify``: ``storage.verify_events``).
- ``ed25519``: after every write ``continuum attest RUN --key signer.pem --out <attestation>``
  (key pair from ``continuum attest-keygen`` in volume ``keys``; the attestation in volume
  ``attest``); the audit is ``continuum attest-verify RUN --attest <file>`` (SIGNED / ALTERED /
  UNTRUSTED), which re-walks the chain and compares the signed head.
Both run the CLI's own command functions in-process with ``--json``.
"""

import argparse
import io
import json
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)
import continuum  # noqa: E402
from continuum import EventType, Run, SQLiteStorage  # noqa: E402
from continuum.checkpoint.manager import CheckpointManager  # noqa: E402
import importlib  # noqa: E402
cli = importlib.import_module("continuum.cli.main")  # the module (continuum.cli exports a function named main)
from continuum.storage.base import RunNotFound  # noqa: E402


class ContinuumDriver(kit.Driver):
    """Maps the protocol onto continuum.SQLiteStorage over volume ``store``."""

    def open(self, volumes, config):
        """Open continuum.db; with attest: ed25519, make the signer key pair on first use."""
        self.mode = config.get("attest", "none")
        if self.mode not in ("none", "ed25519"):
            raise kit.BadRequest(f"config.attest {self.mode!r}: use none or ed25519")
        self.db = volumes["store"] / "continuum.db"
        self.storage = SQLiteStorage(str(self.db))
        if self.mode == "ed25519":
            missing = [v for v in ("keys", "attest") if v not in volumes]
            if missing:
                raise kit.BadRequest(f"attest: ed25519 needs volumes {missing}")
            self.key = volumes["keys"] / "signer.pem"
            self.attest_dir = volumes["attest"]
            if not self.key.is_file():
                self._cli(cli.cmd_attest_keygen, out=str(self.key), pub=None)

    def describe(self):
        """continuum-agent's version and the configuration."""
        import platform, sqlite3
        from importlib.metadata import version
        return {"sut": "continuum-agent", "version": version("continuum-agent"),
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              "pydantic": version("pydantic"), "cryptography": version("cryptography")},
                "capabilities": {"erasure": "none", "order": True, "metadata": True, "snapshot": True},
                "configuration": {"attest": self.mode}}

    def write(self, context, text, meta):
        """append_event(run, FINDING_ADDED, {finding_id, claim}); then re-attest the head if configured."""
        try:
            self.storage.get_run(context)
        except RunNotFound:
            goal = f"memory of {context}"
            self.storage.create_run(Run(run_id=context, goal=goal))
            self.storage.append_event(context, EventType.RUN_STARTED, {"goal": goal})
        event = self.storage.append_event(context, EventType.FINDING_ADDED,
                                          {"finding_id": f"f-{uuid.uuid4().hex[:12]}", "claim": text})
        if self.mode == "ed25519":
            self._cli(cli.cmd_attest, run_id=context, key=str(self.key), signer="memlab",
                      out=str(self._attestation(context)))
        return {"id": event.payload["finding_id"], "text": text, "meta": {"event_id": event.event_id}}

    def read(self, context):
        """CheckpointManager.restore(run).state.findings, in the state's order."""
        state = CheckpointManager(self.storage).restore(context).state
        return [{"id": f.finding_id, "text": f.claim,
                 "meta": {"timestamp": f.created_at.isoformat(), "confidence": f.confidence,
                          "status": str(getattr(f, "status", ""))}} for f in state.findings]

    def audit(self, context):
        """`continuum verify RUN`, or `continuum attest-verify RUN --attest F` with attest: ed25519."""
        if self.mode == "ed25519":
            doc = self._cli(cli.cmd_attest_verify, run_id=context, attest=str(self._attestation(context)))
            problems = [] if doc.get("verdict") == "SIGNED" else [json.dumps(doc, sort_keys=True)]
            call = f"continuum --db {self.db} --json attest-verify {context} --attest {self._attestation(context)}"
            return {"ok": not problems, "problems": problems, "call": call}
        report = self.storage.verify_events(context)
        problems = [f"{v.kind} at seq {getattr(v, 'sequence', '?')}: {getattr(v, 'detail', '')}"
                    for v in report.violations]
        return {"ok": bool(report.ok), "problems": problems,
                "call": f"continuum --db {self.db} verify {context} (SQLiteStorage.verify_events)"}

    def _attestation(self, context):
        return self.attest_dir / f"{context}.attestation.json"

    def _cli(self, command, **fields):
        """Run one of the CLI's command functions in-process with --json; return its JSON answer."""
        out, err = io.StringIO(), io.StringIO()
        code = command(argparse.Namespace(json=True, db=str(self.db), **fields), self.storage, out, err)
        text = out.getvalue().strip()
        try:
            answer = json.loads(text) if text else {}
        except ValueError:
            answer = {"text": text}
        if code not in (0, None) and command is not cli.cmd_attest_verify:
            raise RuntimeError(f"{command.__name__} exited {code}: {err.getvalue().strip() or text}")
        return answer


if __name__ == "__main__":
    kit.serve(ContinuumDriver)
