"""Driver of atelya-attest: an amem-format JSON-lines op-log as agent memory, attested into an
HMAC-SHA256 hash chain (atelya-attest), optionally anchored in an external checkpoint ledger
(atelya-anchor). atelya attests and governs an op-log; it has no store of its own, so the driver
is the application that keeps the op-log, as amem does: one ``{"op": "add", "id", "text",
"created_at", "source", "ctx"}`` line per record in ``memory.oplog.jsonl`` (volume ``store``),
``ctx`` naming the context (a lifecycle write adds amem's ``key``, ``<context>::<meta.key>``: ``replay``
retires the active records of the same key in every context). The atelya tools run in-process
through their own CLI entry points (``amem_attest.main``, ``amem_anchor.main``, ``amem_governance.main``).

- write: append the add event; ``atelya-attest attest OPLOG --out OPLOG.attest.jsonl --keyfile
  K`` (the chain beside the op-log, volume store); with ``anchor: external`` also
  ``atelya-anchor anchor CHAIN --ledger L --label memlab-oplog --keyfile AK --chain-keyfile K``
  (L in volume ``anchor``).
- read: ``amem_governance.replay(read_log(OPLOG))``: the active records of the context, in log
  order (no verification on this path).
- erase: ``atelya-govern erase OPLOG --match ^<the record's text>$ --hard`` (the GDPR purge that
  removes the content; a soft forget keeps the text in the log), then re-attest and re-anchor.
  The anchor refuses to checkpoint the rewritten history (exit 2): the driver logs that refusal
  as a WARNING and the erasure stands.
- update (lifecycle): append amem's ``{"op": "update", "id", "text"}`` event (the op-log format's own
  update, which ``replay`` applies to the record in place), then re-attest and re-anchor; a record
  already superseded is left as it is.
- audit (``open.config.audit``): ``chain`` is the README's check, ``atelya-attest verify CHAIN``
  (with the anchor also ``atelya-anchor check CHAIN --ledger L --require-anchor``); ``chain+oplog``
  (the default) adds what no atelya command does: ``atelya-attest attest OPLOG --out <fresh>`` and
  ``root`` of both, so the op-log must still be what the stored chain attests.
HMAC keys (``attest.key``, ``anchor.key``) are made on first use in volume ``keys``.

Front door (``frontdoor_*``): atelya has no store, no scope, no label check and no caller signature of
its own; the driver is the op-log application, as for the other measurements. Each case has its own
folder, ``<store>/frontdoor/<case>/``, and in it one op-log per scope (amem keeps one store per user:
``amem_governance.summary``, "per-user store isolates writers"): ``<quote(key)>.oplog.jsonl``, the key
being the JSON array ``[tenant, user, session]`` of the parts as sent (integers kept as numbers, a part
not given null), percent-encoded for a file name -- injective, so no two scopes share an op-log, and
the separation is a store per context that the driver opens (``isolation: separate-store``). A write
appends amem's add event ``{"op": "add", "id", "text", "created_at", "source": label, "ctx": key}`` to
the scope's op-log and
attests it (``atelya-attest attest OPLOG --out OPLOG.attest.jsonl --keyfile K``, K the row's key in
volume ``keys``), and with ``anchor: external`` anchored as the row's own chain is, in a ledger of the
case's own (``<anchor>/frontdoor/<case>/<op-log>.ledger.jsonl``): the label is the event's ``source``, which ``replay`` takes as the record's ``actor``
and the audit timeline shows, and nothing in atelya reads it to decide. atelya's attestation is an
HMAC-SHA256 chain under the application's own secret, computed over every event it is given (no
caller signature, nothing Ed25519): the lab's signature has nowhere to go and is not kept. Tags have
no place in the op-log format either. A read is ``replay(read_log(<the scope's op-log>))``: every
active record in log order (no query, no limit, no verification, no marker).
"""

import contextlib
import io
import logging
import re
import secrets
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import memlab_driver as kit  # first: guards stdout, captures import-time signals
import amem_anchor
import amem_attest
import amem_governance

log = logging.getLogger("atelya-driver")
LABEL = "memlab-oplog"


class AtelyaDriver(kit.Driver):
    """The op-log application around atelya-attest / atelya-anchor / atelya-govern."""

    def open(self, volumes, config):
        """Paths of the op-log, its chain, the keys and (anchor: external) the ledger."""
        self.mode = config.get("anchor", "none")
        if self.mode not in ("none", "external"):
            raise kit.BadRequest(f"config.anchor {self.mode!r}: use none or external")
        need = ["store", "keys"] + (["anchor"] if self.mode == "external" else [])
        if any(v not in volumes for v in need):
            raise kit.BadRequest(f"anchor: {self.mode} needs volumes {need}")
        self.oplog = volumes["store"] / "memory.oplog.jsonl"
        self.chain = volumes["store"] / "memory.oplog.jsonl.attest.jsonl"
        self.key = _keyfile(volumes["keys"] / "attest.key")
        self.akey = _keyfile(volumes["keys"] / "anchor.key")
        self.ledger = volumes["anchor"] / "ledger.jsonl" if self.mode == "external" else None
        self.audit_kind = self.choice("audit", ("chain", "chain+oplog"), "chain+oplog")
        self.oplog.touch()

    def describe(self):
        """atelya-attest's version and the configuration."""
        import platform
        from importlib.metadata import version
        return {"sut": "atelya-attest", "version": version("atelya-attest"),
                "libraries": {"python": platform.python_version()},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "erase"]},
                "configuration": {"anchor": self.mode, "erase": "hard", "audit": self.audit_kind}}

    def write(self, context, text, meta):
        """Append an add event to the op-log, re-attest it, re-anchor it when configured."""
        event = {"op": "add", "id": f"r-{uuid.uuid4().hex[:12]}", "text": text, "created_at": time.time(),
                 "source": meta.get("source") or "agent", "ctx": context}
        if meta.get("key"):  # amem's supersession key; replay retires same-key records of EVERY context
            event["key"] = f"{context}::{meta['key']}"
        self._append(event)
        return {"id": event["id"], "text": text, "meta": {"source": event["source"]}}

    def update(self, context, record_id, text, meta):
        """Append amem's update event for the record (replay sets its text), re-attest, re-anchor;
        a record a keyed write already superseded is answered as it is (not revived)."""
        records, _ = amem_governance.replay(amem_governance.read_log(str(self.oplog)))
        rec = records.get(record_id)
        if rec is None:
            raise KeyError(f"no record {record_id} in {context}")
        if rec["status"] != "active":
            return {"id": record_id, "text": rec["text"], "meta": {"status": rec["status"]}}
        self._append({"op": "update", "id": record_id, "text": text, "created_at": time.time()})
        return {"id": record_id, "text": text}

    def _append(self, event, oplog=None):
        with open(oplog or self.oplog, "a", encoding="utf-8") as fh:
            fh.write(amem_attest.json.dumps(event, ensure_ascii=False) + "\n")
        if oplog is None:
            self._attest_and_anchor()
        else:  # a front-door op-log: attested beside itself, anchored in a ledger of its own (anchor: external)
            chain = Path(f"{oplog}.attest.jsonl")
            ledger = None if self.ledger is None else (self.ledger.parent / "frontdoor" / oplog.parent.name
                                                        / f"{oplog.name}.ledger.jsonl")
            self._attest_and_anchor(oplog, chain, ledger)

    def _attest_and_anchor(self, oplog=None, chain=None, ledger=None):
        """atelya-attest attest OPLOG --out CHAIN, then (with a ledger) atelya-anchor anchor CHAIN --ledger L;
        the row's own op-log, chain and ledger unless a front-door op-log's are given."""
        oplog, chain = oplog or self.oplog, chain or self.chain
        ledger = ledger if oplog != self.oplog else self.ledger
        code, out = _run(amem_attest.main, ["attest", str(oplog), "--out", str(chain), "--keyfile", str(self.key)])
        if code not in (0, None):
            raise RuntimeError(f"atelya-attest attest exited {code}: {out}")
        if ledger is not None:
            ledger.parent.mkdir(parents=True, exist_ok=True)
            code, out = _run(amem_anchor.main, ["anchor", str(chain), "--ledger", str(ledger), "--label", LABEL,
                                                "--keyfile", str(self.akey), "--chain-keyfile", str(self.key)])
            if code not in (0, None):
                log.warning("atelya-anchor refused to checkpoint the chain (exit %s): %s", code, out.strip())

    def read(self, context):
        """replay(read_log(OPLOG)): active records whose add event names this context."""
        events = amem_governance.read_log(str(self.oplog))
        owner = {e.get("id"): e.get("ctx") for e in events if e.get("op", "add") == "add"}
        records, order = amem_governance.replay(events)
        return [{"id": rid, "text": records[rid]["text"],
                 "meta": {"source": records[rid]["actor"], "timestamp": records[rid]["created_at"]}}
                for rid in order if records[rid]["status"] == "active" and owner.get(rid) == context]

    def erase(self, context, record_id):
        """atelya-govern erase --match ^<text>$ --hard, then re-attest (and re-anchor)."""
        if record_id is None:
            raise kit.Unsupported("the driver erases single records (capabilities.erasure: record)")
        target = next((r for r in self.read(context) if r["id"] == record_id), None)
        if target is None:
            raise KeyError(f"no active record {record_id} in {context}")
        code, out = _run(amem_governance.main, ["erase", str(self.oplog), "--match",
                                                f"^{re.escape(target['text'])}$", "--hard"])
        if code not in (0, None):
            raise RuntimeError(f"atelya-govern erase exited {code}: {out}")
        erased = amem_governance.json.loads(out.splitlines()[0])["ids"]
        self._attest_and_anchor()
        return erased

    def audit(self, context):
        """verify CHAIN; the op-log re-attested and its root compared (audit: chain+oplog); the anchor check."""
        problems, calls = [], []
        code, out = _run(amem_attest.main, ["verify", str(self.chain), "--keyfile", str(self.key)])
        calls.append(f"atelya-attest verify {self.chain} --keyfile {self.key}")
        if code not in (0, None):
            problems.append(f"verify: {out.strip()}")
        if self.audit_kind == "chain+oplog":
            problems += self._oplog_problems(calls)
        if self.ledger is not None:
            code, out = _run(amem_anchor.main, ["check", str(self.chain), "--ledger", str(self.ledger),
                                                "--label", LABEL, "--keyfile", str(self.akey),
                                                "--chain-keyfile", str(self.key), "--require-anchor"])
            calls.append(f"atelya-anchor check {self.chain} --ledger {self.ledger} --label {LABEL} --require-anchor")
            if code not in (0, None):
                problems.append(f"check: {out.strip()}")
        return {"ok": not problems, "problems": problems, "call": "; ".join(calls)}

    def _oplog_problems(self, calls):
        """Attest the op-log afresh and compare its root with the stored chain's (no atelya command does this)."""
        with tempfile.TemporaryDirectory() as tmp:
            fresh = Path(tmp) / "fresh.attest.jsonl"
            _run(amem_attest.main, ["attest", str(self.oplog), "--out", str(fresh), "--keyfile", str(self.key)])
            calls.append(f"atelya-attest attest {self.oplog} --out <fresh> --keyfile {self.key}; root of both")
            now = _run(amem_attest.main, ["root", str(fresh)])[1].strip()
            then = _run(amem_attest.main, ["root", str(self.chain)])[1].strip()
        if now != then:
            return [f"the op-log no longer matches its attested chain: root {now[:16]} != {then[:16]}"]
        return []


    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own folder, <store>/frontdoor/<case>/ (new when fresh, else the one kept); no trust
        root taken (atelya verifies no caller's signature)."""
        folder = kit.case_store(self.oplog.parent, case, fresh)
        self.fd_folder = folder

    def _fd_oplog(self, scope):
        """The scope's own op-log in the case's folder (its name the percent-encoded scope key)."""
        if not hasattr(self, "fd_folder"):
            raise kit.BadRequest("frontdoor_open first")
        return self.fd_folder / f"{quote(_scope_key(scope), safe='')}.oplog.jsonl"

    def frontdoor_write(self, scope, text, label, signature, tags):
        """amem's add event, the label as its source, appended to the scope's op-log, then attested; the
        signature and tags have no place in atelya and are not kept."""
        event = {"op": "add", "id": f"r-{uuid.uuid4().hex[:12]}", "text": text, "created_at": time.time(),
                 "source": label, "ctx": _scope_key(scope)}
        oplog = self._fd_oplog(scope)
        self._append(event, oplog)
        return {"accepted": True, "stored": {"oplog": oplog.name, **event}}

    def frontdoor_read(self, scope, query, k, tag):
        """replay(read_log(<the scope's op-log>)): every active record in log order, no marker."""
        oplog = self._fd_oplog(scope)
        if not oplog.exists():  # nothing written in this scope: an empty op-log
            return []
        records, order = amem_governance.replay(amem_governance.read_log(str(oplog)))
        return [{"text": records[rid]["text"], "marker": None} for rid in order if records[rid]["status"] == "active"]


def _scope_key(scope) -> str:
    """The JSON array [tenant, user, session] of the parts as sent: injective (ints stay numbers)."""
    return kit.scope_key(scope)


def _keyfile(path: Path) -> Path:
    if not path.is_file():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path


def _run(main, argv):
    """One atelya CLI command in-process: (exit code, what it printed)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
            if not isinstance(exc.code, int) and exc.code is not None:
                print(exc.code)
    return code, buf.getvalue()


if __name__ == "__main__":
    kit.serve(AtelyaDriver)
