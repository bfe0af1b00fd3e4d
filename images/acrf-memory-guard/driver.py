"""Driver of acrf-memory-guard (0.1.0): per-record HMAC-SHA256 over agent memory entries.

acrf-memory-guard is a library without a store: the application signs each entry on write and
verifies it on read. The driver is that application, keeping the store in the format the
package's own ``verify-store`` command audits: one JSON object ``{entry id: signed entry}``
(``memory.json`` in volume ``store``). Each entry is signed whole with ``sign_entry(entry,
secret)``: the MAC covers every field of the entry, never the mapping key, the entry's place in
the file, or which entries exist. What the entry holds is ``open.config.entry``:

- ``bound`` (the default): ``{"id", "context", "seq", "text", "role", "source", "created_at"}`` --
  the record's id and sequence number signed with its content (stronger than the README shows);
- ``readme``: ``{"context", "text", "role", "source", "created_at"}`` -- the entry as the README
  signs one (its subject, as the README's ``user_id``, and its content, stored as ``store[key] =
  sign_entry(entry)``): the id is only the mapping key and the order is the entry's place in the
  file, both outside the MAC.

The secret (``ACRF_MEMORY_SECRET``) is made on first use in volume ``keys``, off the store.

- write: ``sign_entry`` and store (with ``bound``, the next ``seq`` of the context).
- read: the context's entries (by ``seq`` with ``bound``, in file order with ``readme``), each
  through ``read_safe(entry, secret)``, which raises ``MemoryIntegrityError`` on a bad MAC: the
  read fails closed, as the package's README tells an application to.
- audit: ``acrf-memory-guard verify-store memory.json`` (its CLI entry point, in-process).
- erase: the package offers none.

Front door (``frontdoor_*``): acrf-memory-guard has no store, no context, no label and no caller's
signature: ``sign_entry(entry, secret)`` MACs whatever dict the application hands it with the
application's own secret, and ``read_safe(entry, secret)`` checks that MAC and nothing else. So each
scope is a store of its own, opened by the driver (``isolation: separate-store``): the JSON list of
signed entries ``store/frontdoor/<case>/<quote(json [tenant, user, session])>.json`` (integers stay
numbers, a missing part is null; percent-encoded, so two scopes never share a file), kept after the
row. A write is ``sign_entry({"id", "context", "seq", "text", "created_at"}, secret)`` appended to the
scope's list (``seq`` its place, ``context`` the scope's JSON array as text); with ``entry: readme``
the entry is the README's, ``{"context", "text", "role": "user", "source": label, "created_at"}``, the
label its ``source`` (MACed with the rest, read by nothing). The lab's Ed25519 signature and the tags
have nowhere to go in acrf and are dropped, and so is the label of a bound entry (the channels are one
write there; ``trust_root`` is unused: acrf takes no public key). A read is the scope's whole list, in write order,
each entry through ``read_safe`` (no query, no limit, no filter: acrf has none), with no marker; a bad
MAC raises ``MemoryIntegrityError``, a refusal of the read.
"""

import contextlib
import io
import json
import os
import secrets
from datetime import datetime, timezone
from urllib.parse import quote

import memlab_driver as kit  # first: guards stdout, captures import-time signals
import acrf_memory_guard
from acrf_memory_guard import read_safe, sign_entry
from acrf_memory_guard import cli as acrf_cli

ENTRIES = ("bound", "readme")  # what a signed entry holds besides the content: see the docstring


class AcrfDriver(kit.Driver):
    """The application around acrf-memory-guard: a JSON store of signed entries."""

    def open(self, volumes, config):
        """The store file and the secret (made on first use in volume keys)."""
        if "keys" not in volumes:
            raise kit.BadRequest("needs a volume named keys for ACRF_MEMORY_SECRET")
        self.entry_kind = self.choice("entry", ENTRIES, "bound")
        self.path = volumes["store"] / "memory.json"
        key = volumes["keys"] / "acrf_memory_secret"
        if not key.is_file():
            key.write_text(secrets.token_hex(32))
            key.chmod(0o600)
        self.secret = key.read_text().strip()
        os.environ["ACRF_MEMORY_SECRET"] = self.secret  # what the package's CLI reads
        if not self.path.exists():
            self._save({})
        self.store_root = volumes["store"]
        self.case_dir = None

    def describe(self):
        """acrf-memory-guard's version."""
        import platform
        return {"sut": "acrf-memory-guard", "version": acrf_memory_guard.__version__,
                "libraries": {"python": platform.python_version()},
                "capabilities": {"erasure": "none", "order": True, "metadata": True, "snapshot": True},
                "configuration": {"mac": "HMAC-SHA256 over the whole entry (sign_entry)", "entry": self.entry_kind,
                                  "read": "read_safe per entry, fail closed"}}

    def _load(self):
        return json.loads(self.path.read_text(encoding="utf-8"))

    def _save(self, store):
        self.path.write_text(json.dumps(store, indent=2) + "\n", encoding="utf-8")

    def write(self, context, text, meta):
        """sign_entry(entry, secret), stored under its id."""
        store, key = self._load(), f"e-{secrets.token_hex(6)}"
        entry = {"context": context, "text": text, "role": meta.get("role", "user"),
                 "source": meta.get("source", "agent"), "created_at": datetime.now(timezone.utc).isoformat()}
        if self.entry_kind == "bound":
            seq = 1 + max((e.get("seq", 0) for e in store.values() if e.get("context") == context), default=0)
            entry = {"id": key, "context": context, "seq": seq, **entry}
        store[key] = sign_entry(entry, self.secret)
        self._save(store)
        return {"id": key, "text": text}

    def read(self, context):
        """The context's entries (seq order, or file order with entry: readme), each through read_safe."""
        entries = [(key, e) for key, e in self._load().items() if e.get("context") == context]
        if self.entry_kind == "bound":
            entries.sort(key=lambda pair: pair[1].get("seq", 0))
        out = []
        for key, raw in entries:
            entry = read_safe(raw, self.secret)
            out.append({"id": entry.get("id", key), "text": entry["text"],
                        "meta": {k: entry.get(k) for k in ("role", "source", "created_at", "seq") if k in entry}})
        return out

    def audit(self, context):
        """acrf-memory-guard verify-store memory.json (the whole store file)."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = acrf_cli.main(["verify-store", str(self.path)])
        text = (out.getvalue() + err.getvalue()).strip()
        return {"ok": code == 0, "problems": [] if code == 0 else text.splitlines(),
                "call": f"ACRF_MEMORY_SECRET=<volume keys> acrf-memory-guard verify-store {self.path}"}

    # ---- the front door (images/README.md, "Front-door additions") -------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own folder of per-scope stores: new when fresh, the kept one after a restart."""
        folder = kit.case_store(self.store_root, case, fresh)
        self.case_dir = folder  # trust_root unused: acrf takes no public key (its MAC is the application's secret)

    def _scope_store(self, scope):
        """The scope's own store file (separate-store): the JSON array [tenant, user, session], percent-encoded."""
        if self.case_dir is None:
            raise kit.BadRequest("frontdoor_open first")
        key = json.dumps([scope["tenant"], scope["user"], scope["session"]], ensure_ascii=False)
        return key, self.case_dir / f"{quote(key, safe='')}.json"

    def frontdoor_write(self, scope, text, label, signature, tags):
        """sign_entry(entry, secret), appended to the scope's list: ``{id, context, seq, text, created_at}``
        (entry bound: no label), or the README's entry ``{context, text, role, source, created_at}`` (entry
        readme: the label its source); acrf keeps no caller's signature or tag, so those are dropped."""
        key, path = self._scope_store(scope)
        entries = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
        now = datetime.now(timezone.utc).isoformat()
        if self.entry_kind == "readme":
            entry = {"context": key, "text": text, "role": "user", "source": label, "created_at": now}
        else:
            entry = {"id": f"e-{secrets.token_hex(6)}", "context": key, "seq": len(entries) + 1, "text": text,
                     "created_at": now}
        signed = sign_entry(entry, self.secret)
        path.write_text(json.dumps(entries + [signed], indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return {"accepted": True, "stored": {"file": path.name, "entry": signed}}

    def frontdoor_read(self, scope, query, k, tag):
        """The scope's whole list in write order, each entry through read_safe (acrf has no query, limit or
        filter); a bad MAC raises MemoryIntegrityError: the read refused."""
        _, path = self._scope_store(scope)
        entries = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
        return [{"text": read_safe(raw, self.secret)["text"], "marker": None} for raw in entries]


if __name__ == "__main__":
    kit.serve(AcrfDriver)
