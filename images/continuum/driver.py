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

Front door (``frontdoor_*``): each case has its own store, ``SQLiteStorage(<store>/frontdoor/<case>/
continuum.db)`` (the folder made on a fresh open, the same file reopened after a restart). continuum's
one context is a run, read by exact ``run_id`` (``SQLiteStorage.read_events``: ``WHERE run_id = ?``):
the driver makes the run id the JSON array ``[tenant, user, session]`` of the parts as sent (integers
kept as numbers, a part not given null: injective), so contexts are kept apart by the run key the
driver builds (``isolation: driver``); a scope's run is created on its first write (``create_run`` and
``RUN_STARTED``, as for the other measurements). A write is ``append_event(run, FINDING_ADDED,
{finding_id, claim}, source=<Origin>)``: the label goes to continuum's own provenance
field, the event's ``source`` (``continuum.models.Origin``, "who asserted a fact", hashed into the
chain), in continuum's closed vocabulary -- ``user`` (a person, first-party) is ``Origin.HUMAN``,
``external`` (a tool, a page, another agent) ``Origin.EXTERNAL_AGENT``, any other label is handed as
it is and continuum's own ``Event`` validation refuses it (the read-back maps continuum's words back to
the lab's: the profile's ``stored.label.values``). The projection carries the origin into ``Finding.provenance.origin`` and nothing on
the read path reads it for a finding (``StateValidator`` holds only goal and progress to it; the
model's context, ``checkpoint/context.py``, lists the claims without it): no marker. continuum takes
no caller signature: its attestation (``continuum attest``) is the operator's Ed25519 signature over a
run's chain head with the application's own key, checked only by ``attest-verify``; the lab's
signature has nowhere to go and is not kept. With ``attest: ed25519`` every front-door write is
attested as the other measurements' are (``continuum attest RUN --key signer.pem``, the row's key,
into ``<attest>/frontdoor/<case>/<percent-encoded run>.attestation.json``); no read consults it.
Tags have no place in a finding. A read is the documented recovery read,
``CheckpointManager(storage).restore(run).state.findings``: every finding of the run in state order
(no query, no limit, no filter, no verification on this path).
"""

import argparse
import io
import json
import uuid
from urllib.parse import quote

import memlab_driver as kit  # first: guards stdout, captures import-time signals
import continuum
from continuum import EventType, Run, SQLiteStorage
from continuum.checkpoint.manager import CheckpointManager
import importlib
cli = importlib.import_module("continuum.cli.main")  # the module (continuum.cli exports a function named main)
from continuum.storage.base import RunNotFound  # noqa: E402
from continuum.models import Origin  # noqa: E402

#: The lab's two labels in continuum's own provenance vocabulary (continuum.models.Origin): a translation,
#: never a decision: the SUT is handed the origin and does what it does with it.
ORIGIN = {"user": Origin.HUMAN, "external": Origin.EXTERNAL_AGENT}


class ContinuumDriver(kit.Driver):
    """Maps the protocol onto continuum.SQLiteStorage over volume ``store``."""

    def open(self, volumes, config):
        """Open continuum.db; with attest: ed25519, make the signer key pair on first use."""
        self.mode = config.get("attest", "none")
        if self.mode not in ("none", "ed25519"):
            raise kit.BadRequest(f"config.attest {self.mode!r}: use none or ed25519")
        self.store_dir = volumes["store"]
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

    def _cli(self, command, storage=None, db=None, **fields):
        """Run one of the CLI's command functions in-process with --json; return its JSON answer."""
        out, err = io.StringIO(), io.StringIO()
        code = command(argparse.Namespace(json=True, db=str(db or self.db), **fields), storage or self.storage,
                       out, err)
        text = out.getvalue().strip()
        try:
            answer = json.loads(text) if text else {}
        except ValueError:
            answer = {"text": text}
        if code not in (0, None) and command is not cli.cmd_attest_verify:
            raise RuntimeError(f"{command.__name__} exited {code}: {err.getvalue().strip() or text}")
        return answer

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own store, <store>/frontdoor/<case>/continuum.db (new when fresh, else the one kept);
        no trust root taken (continuum verifies no caller's signature)."""
        folder = kit.case_store(self.store_dir, case, fresh)
        self.fd_case = case
        self.fd_db = folder / "continuum.db"
        self.fd = SQLiteStorage(str(self.fd_db))
        if self.mode == "ed25519":
            (self.attest_dir / "frontdoor" / case).mkdir(parents=True, exist_ok=True)

    def _fd_storage(self):
        if not hasattr(self, "fd"):
            raise kit.BadRequest("frontdoor_open first")
        return self.fd

    def frontdoor_write(self, scope, text, label, signature, tags):
        """append_event(run, FINDING_ADDED, {finding_id, claim}, source=Origin of the label)
        on the scope's run (created on its first write); attested after it with attest: ed25519. The
        signature and tags have no place in continuum and are not kept."""
        storage, run = self._fd_storage(), _run_key(scope)
        try:
            storage.get_run(run)
        except RunNotFound:
            goal = f"memory of {run}"
            storage.create_run(Run(run_id=run, goal=goal))
            storage.append_event(run, EventType.RUN_STARTED, {"goal": goal})
        event = storage.append_event(run, EventType.FINDING_ADDED,
                                     {"finding_id": f"f-{uuid.uuid4().hex[:12]}", "claim": text},
                                     source=ORIGIN.get(label, label))
        if self.mode == "ed25519":
            out = self.attest_dir / "frontdoor" / self.fd_case / f"{quote(run, safe='')}.attestation.json"
            self._cli(cli.cmd_attest, storage=storage, db=self.fd_db, run_id=run, key=str(self.key),
                      signer="memlab", out=str(out))
        return {"accepted": True,
                "stored": {"run_id": event.run_id, "event_id": event.event_id, "sequence": event.sequence,
                           "source": str(event.source), "payload": dict(event.payload)}}

    def frontdoor_read(self, scope, query, k, tag):
        """CheckpointManager(storage).restore(run).state.findings: every finding of the scope's run, in
        state order, no marker (continuum raising for a run it does not have served nothing)."""
        state = CheckpointManager(self._fd_storage()).restore(_run_key(scope)).state
        return [{"text": f.claim, "marker": None} for f in state.findings]


def _run_key(scope):
    """The run id of a scope: the JSON array [tenant, user, session] of the parts as sent (injective)."""
    return kit.scope_key(scope)


if __name__ == "__main__":
    kit.serve(ContinuumDriver)
