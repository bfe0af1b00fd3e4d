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
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)
import atmem  # noqa: E402
from atmem.memory import Memory  # noqa: E402

STOP = "."


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

    def close(self):
        """Close the store."""
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
