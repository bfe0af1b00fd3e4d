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

Front door (``frontdoor_*``): each case opens its own store, ``Inspeximus(path=<store>/frontdoor/<case>/
mem.json)`` (the case folder is made on a fresh open; inspeximus creates the file with the first write),
with signed write receipts as the row's own store has them (``receipts: signed``).
A scope's tenant goes to inspeximus's own tenant view ``store.for_tenant(tenant)`` (no tenant: the
unbound store, inspeximus's admin view of every tenant), its user and session to ``remember``/``recall``
as ``user_id=``/``session_id=``, each exactly as sent (inspeximus str()s them itself); a part that is
None is not passed. The label goes to ``remember(source={"doc": label})``, inspeximus's provenance
field. A signed write goes to inspeximus's origin attestation, ``remember(attestation=(signer,
signature))``: inspeximus verifies the Ed25519 signature over its own message ``_attest_message(text,
source)`` (a canonical JSON of the claim and its source; ``frontdoor_message`` returns exactly those
bytes, which the lab's genuine writer or adversary signs with its own key) under the signer the write
names, refuses the write when it does not verify, and stamps ``attested_key`` on the record. An
unsigned write carries no attestation. Which key is trusted is decided at read time by the store's
trust seeds (``key:<hex>``), never by the driver. The tags go to ``remember(tags=...)``; a read on a tag is
``recall(..., where={"tags": {"$contains": tag}})``, the store's own pre-filter. The read is
``recall(query, k=k, user_id=..., session_id=..., where=..., trusted_only=...)`` served in its
order; recall carries no untrusted flag, so no marker. ``open.config.trust_seeds`` (a list of
inspeximus trust seeds; ``key:trust_root`` stands for ``key:<the lab's trust root, hex>``) turns on
the opt-in trusted read: the store's ``trust_seeds`` are set and every read passes
``trusted_only=True``. Absent (the product default), recall is the plain one.
"""

import os
import platform
import sqlite3

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
        self.vols = vols
        self.trust_seeds = config.get("trust_seeds")
        if self.trust_seeds is not None and (not isinstance(self.trust_seeds, list) or not self.trust_seeds
                                             or not all(isinstance(x, str) and x for x in self.trust_seeds)):
            raise kit.BadRequest("config.trust_seeds: a non-empty list of inspeximus trust seeds (strings)")
        os.environ["INSPEXIMUS_KEY_HOME"] = str(vols["home"])
        self.path = str(vols["store"] / "mem.json")
        self.mem = self._store(self.path)

    def _store(self, path):
        """Inspeximus(path=...), with signed write receipts when the row sets receipts: signed."""
        kwargs = {"receipts": True, "receipt_key": receipt_key_for(path)} if self.receipts == "signed" else {}
        return Inspeximus(path=path, **kwargs)

    def describe(self):
        """inspeximus's version and the configuration."""
        return {"sut": "inspeximus", "version": inspeximus.__version__,
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              "cryptography": kit.dist_version("cryptography")},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["erase"]},
                "configuration": {"receipts": self.receipts, "key_home": "INSPEXIMUS_KEY_HOME = volume home",
                                  **({"trust_seeds": self.trust_seeds, "trusted_read": "recall(trusted_only=True)"}
                                     if self.trust_seeds else {})}}

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

    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own store, <store>/frontdoor/<case>/mem.json, with the row's receipts; the trust seeds
        when the row sets them."""
        folder = kit.case_store(self.vols["store"], case, fresh)
        self.fd = self._store(str(folder / "mem.json"))
        if self.trust_seeds:
            self.fd.trust_seeds = {f"key:{trust_root.hex()}" if seed == "key:trust_root" else seed
                                   for seed in self.trust_seeds}

    def _fd_handle(self, scope):
        """inspeximus's tenant view for the scope's tenant (as sent), else the unbound store."""
        return self.fd if scope["tenant"] is None else self.fd.for_tenant(scope["tenant"])

    @staticmethod
    def _fd_ids(scope):
        """user_id= / session_id= for the parts given, exactly as sent."""
        return {name: scope[part] for part, name in (("user", "user_id"), ("session", "session_id"))
                if scope[part] is not None}

    def frontdoor_write(self, scope, text, label, signature, tags):
        """remember(text, tags=..., source={"doc": label}, [attestation=(signer, signature)], user_id=...,
        session_id=...) on the tenant's view; inspeximus verifies the attestation itself."""
        handle = self._fd_handle(scope)
        signer = self.frontdoor_signer.hex() if self.frontdoor_signer else ""
        attested = {} if signature is None else {"attestation": (signer, signature.hex())}
        rid = handle.remember(text, tags=list(tags), source={"doc": label}, **attested, **self._fd_ids(scope))
        rec = next((r for r in handle.items if r.get("id") == rid), {})
        meta = rec.get("meta") or {}
        return {"accepted": True,
                "stored": {"id": rid, "tenant": rec.get("tenant"), "uid": meta.get("uid"), "sid": meta.get("sid"),
                           "source": rec.get("source"), "tags": rec.get("tags"), "status": rec.get("status")}}

    def frontdoor_message(self, scope, text, label, tags):
        """The bytes inspeximus verifies an origin attestation over: ``_attest_message(text, source)``
        (imported here: the at-rest and lifecycle rows of every release never need it)."""
        from inspeximus.core import _attest_message

        return _attest_message(text, label)

    def frontdoor_read(self, scope, query, k, tag):
        """recall(query, k, user_id/session_id, where on the tag, trusted_only when seeded), as served."""
        found = self._fd_handle(scope).recall(
            query, k=k, where={"tags": {"$contains": tag}} if tag else None,
            trusted_only=bool(self.trust_seeds), **self._fd_ids(scope))
        return [{"text": str(r.get("text", "")), "marker": None} for r in found]


if __name__ == "__main__":
    kit.serve(InspeximusDriver)
