"""Driver of atmem (AtMem memory, the Python API its `atmem` CLI calls): offline, no keys.

Write: ``Memory.remember(subject, note, interpreted_fact=note)`` -- the explicit-note path that
stores the caller's text as one record (the default extraction would rewrite it: "My X is Y" ->
"User's X is Y"). atmem's note normaliser ends every note with a full stop; the driver writes the
note with that full stop already there and serves it without, so the served text is the written
text; a lifecycle write (``meta.key``) passes it as ``interpreted_fact_key``, atmem's own fact key (a
new record of an active key supersedes the old one, per subject). Read: ``Memory.list(subject)`` (the active records). Erase: ``Memory.forget_record``
(exact record, with a deletion receipt). Audit: ``Memory.verify(subject, checkpoints_path=...)``.
Update (lifecycle): ``Memory.correct_record(subject, record_id, text)`` -- atmem's own exact-record
correction: a replacement record (a new id) supersedes the old one. A record already superseded is
not corrected again (atmem refuses it): its update answers the record as it is.

``open.config``: ``checkpoint`` none | external. With ``external`` the driver anchors the audit
chain after every write with ``Memory.checkpoint(sink_path=<volume checkpoint>/checkpoints.jsonl)``
and the audit checks containment against that sink.

Front door (``frontdoor_*``): each case its own store, ``Memory(<store>/frontdoor/<case>/mem.db)`` (its
vector index ``mem.db.vectors.db`` beside it, registered by that absolute path; kept after the row and
reopened as it is after a restart). A write is the same explicit-note call as above, as atmem's MCP tool
``memory_remember`` makes it: ``Memory.remember(subject, text, interpreted_fact=text,
source_type=<label>[, session_id=session])`` -- the label goes to atmem's own ``source_type`` (the lab's
``user`` is atmem's trusted ``user_message``, ``external`` its ``tool_output``: a fixed translation, any
other label handed as it is), and atmem decides: an interpreted fact from a source other than
``user_message`` is refused (ValueError), a trusted one becomes an active ``trusted_user`` record.
atmem takes no caller signature (nothing to hand it) and no tags. Scope: atmem's one scoping field is
``subject_id``, the user as sent (an integer stays one, None is handed as None: the call has no other
form); the session goes to atmem's own ``session_id`` as sent (not given when None); atmem has no
tenant, so the tenant goes nowhere. Read: ``Memory.recall(subject, query, limit=k[, session_id=])``,
the MCP ``memory_recall`` call, served in its order; the tag goes nowhere (recall has no tag filter).
The marker is atmem's own untrusted tier (``trust_tier == untrusted_content``) on a served record, None
otherwise. With ``checkpoint: external`` the case's chain head is anchored after every write, as on the
other measurements, in ``<checkpoint>/frontdoor/<case>/checkpoints.jsonl``.
"""

import memlab_driver as kit  # first: guards stdout, captures import-time signals
import atmem
from atmem.core.policy import TRUST_TIER_UNTRUSTED
from atmem.memory import Memory

STOP = "."
#: The lab's two labels in atmem's own source vocabulary (atmem.core.policy: TRUSTED_SOURCE_TYPES, and
#: the source_type enum of the MCP tool memory_remember): a translation, never a decision.
SOURCE_TYPE = {"user": "user_message", "external": "tool_output"}


class AtmemDriver(kit.Driver):
    """Maps the protocol onto atmem.memory.Memory over volume ``store``."""

    def open(self, volumes, config):
        """Open mem.db in volume store; the checkpoint sink (if any) in volume checkpoint."""
        self.mode = config.get("checkpoint", "none")
        if self.mode not in ("none", "external"):
            raise kit.BadRequest(f"config.checkpoint {self.mode!r}: use none or external")
        if self.mode == "external" and "checkpoint" not in volumes:
            raise kit.BadRequest("checkpoint: external needs a volume named checkpoint")
        self.sink = volumes["checkpoint"] / "checkpoints.jsonl" if self.mode == "external" else None
        self.db = volumes["store"] / "mem.db"
        self.mem = Memory(str(self.db))

    def describe(self):
        """atmem's version and the configuration."""
        import sqlite3, platform
        version = atmem.__version__ if hasattr(atmem, "__version__") else kit.dist_version("atmem")
        return {"sut": "atmem", "version": version,
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              "atflows": kit.dist_version("atflows"), "cryptography": kit.dist_version("cryptography")},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["update", "erase"]},
                "configuration": {"checkpoint": self.mode}}

    def write(self, context, text, meta):
        """Memory.remember with the note as the interpreted fact (and meta.key as its fact key); then checkpoint."""
        note = text + STOP
        keyed = {"interpreted_fact_key": meta["key"]} if meta.get("key") else {}
        out = self.mem.remember(context, note, interpreted_fact=note, **keyed)
        records = out.get("records") or []
        if len(records) != 1:
            raise RuntimeError(f"atmem stored {len(records)} records for one note: {out}")
        if self.sink is not None:
            self.mem.checkpoint(sink_path=str(self.sink))
        return self._served(records[0])

    def read(self, context):
        """Memory.list(subject): the active records, in atmem's order."""
        return [self._served(r) for r in self.mem.list(context)]

    def update(self, context, record_id, text, meta):
        """Memory.correct_record: the replacement supersedes the record (a superseded one is left as it is)."""
        rec = self.mem.store.get_record(context, record_id)
        if rec is None:
            raise KeyError(f"no record {record_id} for {context}")
        if rec.get("status") != "active":
            return {**self._served(rec), "meta": {"status": rec.get("status")}}
        out = self.mem.correct_record(context, record_id, text + STOP)
        if self.sink is not None:
            self.mem.checkpoint(sink_path=str(self.sink))
        return self._served(out["record"])

    def erase(self, context, record_id):
        """Memory.forget_record (one record; the whole subject via Memory.forget is not used)."""
        if record_id is None:
            raise kit.Unsupported("the driver erases single records (capabilities.erasure: record)")
        out = self.mem.forget_record(context, record_id)
        if self.sink is not None:
            self.mem.checkpoint(sink_path=str(self.sink))
        return list(out.get("record_ids") or [])

    def audit(self, context):
        """Memory.verify(subject[, checkpoints_path]): chain, per-record commitments, checkpoints."""
        kwargs = {"checkpoints_path": str(self.sink)} if self.sink is not None else {}
        out = self.mem.verify(context, **kwargs)
        subj = (out.get("subjects") or {}).get(context) or {}
        problems = [f"{f.get('record_id') or f.get('checkpoint')}: {f.get('reason')}" for f in subj.get("failures") or []]
        if not out.get("valid") and not problems:
            problems = [str(out)[:500]]
        call = f"atmem.memory.Memory({str(self.db)!r}).verify({context!r}" + (
            f", checkpoints_path={str(self.sink)!r})" if self.sink is not None else ")")
        return {"ok": bool(out.get("valid")), "problems": problems, "call": call}

    # ---- front door ------------------------------------------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own Memory at <store>/frontdoor/<case>/mem.db (the same file after a restart); atmem
        takes no trust root (it keeps no caller signature)."""
        path = kit.case_store(self.db.parent, case, fresh, "mem.db")
        self._frontdoor_close()
        self.fd_sink = (kit.case_store(self.sink.parent, case, fresh) / "checkpoints.jsonl"
                        if self.sink is not None else None)
        self.fd = Memory(str(path))

    @staticmethod
    def _fd_session(scope):
        """session_id= for a session given, exactly as sent."""
        return {} if scope["session"] is None else {"session_id": scope["session"]}

    def frontdoor_write(self, scope, text, label, signature, tags):
        """Memory.remember(user, text, interpreted_fact=text, source_type=<label>[, session_id]); atmem
        refuses an interpreted fact from an untrusted source itself. No signature or tag has a place."""
        out = self.fd.remember(scope["user"], text, interpreted_fact=text,
                               source_type=SOURCE_TYPE.get(label, label), **self._fd_session(scope))
        if self.fd_sink is not None:
            self.fd.checkpoint(sink_path=str(self.fd_sink))
        records = out.get("records") or []
        return {"accepted": bool(records or out.get("duplicate_ids")),
                "stored": {"records": [{k: r.get(k) for k in ("id", "subject_id", "source_type", "trust_tier",
                                                              "status", "source_session_id")} for r in records],
                           "duplicate_ids": list(out.get("duplicate_ids") or []),
                           "refused": out.get("refused")}}

    def frontdoor_read(self, scope, query, k, tag):
        """Memory.recall(user, query, limit=k[, session_id]): what an agent's memory_recall is served."""
        found = self.fd.recall(scope["user"], query, limit=k, **self._fd_session(scope))
        return [{"text": str(r.get("content", "")),
                 "marker": r.get("trust_tier") if r.get("trust_tier") == TRUST_TIER_UNTRUSTED else None}
                for r in found]

    def _frontdoor_close(self):
        fd = getattr(self, "fd", None)
        self.fd = None
        if fd is not None:
            fd.close()

    def close(self):
        """Close the store (and a front-door case's)."""
        self._frontdoor_close()
        if hasattr(self, "mem"):
            self.mem.close()

    @staticmethod
    def _served(rec):
        text = rec["content"]
        return {"id": rec["id"], "text": text[:-1] if text.endswith(STOP) else text,
                "meta": {"source": rec.get("source_type"), "trust_tier": rec.get("trust_tier"),
                         "timestamp": rec.get("created_at"), "scope": rec.get("scope")}}


if __name__ == "__main__":
    kit.serve(AtmemDriver)
