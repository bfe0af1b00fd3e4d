"""Driver of inspeximus (3.0.0), its Python API as an application uses it; offline.

``Inspeximus(path=<store>/mem.json, receipts=..., receipt_key=...)`` -- despite the name a SQLite
file (``records(id, ord, doc JSON)``). ``open.config.receipts``:
- ``off``: the product default (no write receipts, no head).
- ``signed``: receipts on and Ed25519-signed with ``receipt_key_for(path)``, the helper the
  package documents (the key minted in the key home); every write appends a hash-chained receipt
  to ``mem.json.receipts.json`` beside the store, and the chain head goes to the key home
  (``inspeximus/heads/<sha256(abs store path)[:16]>.json``).
The key home is volume ``home`` (``INSPEXIMUS_KEY_HOME``); whether the adversary holds it is the
row's configuration. The head and key are keyed by the store's absolute path, so the driver
opens the volumes at fixed paths (``kit.fixed_paths``), as a container's mount points are.

- write: ``remember(text, user_id=context, meta={"role": ...}, source={"doc": ...})``; a lifecycle
  write (``meta.key``) also passes ``key="<context>::<meta.key>"``, inspeximus's own deterministic
  supersession key (a subject-relation id, as its docs advise): a write of the same key retires the
  old value, so a correction is this keyed write (the store has no update of a record by id). The
  context is part of the key because an unbound store supersedes across every user.
- read: the context's active records (``meta.uid`` = the context) from ``Inspeximus.items``, the
  store's record list that every reader goes through (recall, history, provenance), in store
  order. ``recall`` ranks the matches of a query and cannot return a whole context: a record
  replayed from another context (T6) does not share the victim context's words.
- erase: ``forget(ids=[id])`` (hard delete; tombstones).
- audit: ``verify_writes()`` -> ``(ok, problems)``; with receipts off it reports a problem on an
  untouched store too, which the lab judges against the C1 baseline.
"""

import os
import platform
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))
os.environ.setdefault("INSPEXIMUS_NO_UPDATE_CHECK", "1")

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)
import inspeximus  # noqa: E402
from inspeximus import Inspeximus, receipt_key_for  # noqa: E402


class InspeximusDriver(kit.Driver):
    """Maps the protocol onto one Inspeximus store."""

    def open(self, volumes, config):
        """Fixed paths, the key home, then the store (receipts as the row says)."""
        self.receipts = config.get("receipts", "off")
        if self.receipts not in ("off", "signed"):
            raise kit.BadRequest(f"config.receipts {self.receipts!r}: use off or signed")
        if "home" not in volumes:
            raise kit.BadRequest("needs a volume named home (INSPEXIMUS_KEY_HOME)")
        vols = kit.fixed_paths(volumes, config.get("mount_label", "inspeximus"))
        os.environ["INSPEXIMUS_KEY_HOME"] = str(vols["home"])
        self.path = str(vols["store"] / "mem.json")
        kwargs = {"receipts": True, "receipt_key": receipt_key_for(self.path)} if self.receipts == "signed" else {}
        self.mem = Inspeximus(path=self.path, **kwargs)

    def describe(self):
        """inspeximus's version and the configuration."""
        return {"sut": "inspeximus", "version": inspeximus.__version__,
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              "cryptography": kit.dist_version("cryptography")},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["erase"]},
                "configuration": {"receipts": self.receipts, "key_home": "INSPEXIMUS_KEY_HOME = volume home"}}

    def write(self, context, text, meta):
        """remember(text, user_id=context, meta={role}, source={doc}[, key=<context>::<meta.key>])."""
        keyed = {"key": f"{context}::{meta['key']}"} if meta.get("key") else {}
        rid = self.mem.remember(text, user_id=context, meta={"role": meta.get("role", "user")},
                                source={"doc": meta.get("source") or "agent"}, **keyed)
        return {"id": rid, "text": text}

    def read(self, context):
        """The context's active records as the store serves them to every reader (Inspeximus.items)."""
        out = []
        for item in self.mem.items:
            meta = item.get("meta") or {}
            if meta.get("uid") != context or item.get("status", "active") != "active":
                continue
            out.append({"id": item.get("id"), "text": item.get("text"),
                        "meta": {"role": meta.get("role"), "source": (item.get("source") or {}).get("doc"),
                                 "timestamp": item.get("iso")}})
        return out

    def erase(self, context, record_id):
        """forget(ids=[id]): inspeximus's hard delete."""
        if record_id is None:
            raise kit.Unsupported("the driver erases single records (capabilities.erasure: record)")
        self.mem.forget(ids=[record_id])
        return [record_id]

    def audit(self, context):
        """verify_writes(): the receipt chain, its signatures and the head in the key home."""
        ok, problems = self.mem.verify_writes()
        return {"ok": bool(ok), "problems": [str(p) for p in problems],
                "call": f"inspeximus.Inspeximus(path={self.path!r}"
                        f"{', receipts=True, receipt_key=receipt_key_for(path)' if self.receipts == 'signed' else ''})"
                        ".verify_writes()"}


if __name__ == "__main__":
    kit.serve(InspeximusDriver)
