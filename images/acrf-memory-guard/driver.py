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
"""

import contextlib
import io
import json
import os
import secrets
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)
import acrf_memory_guard  # noqa: E402
from acrf_memory_guard import read_safe, sign_entry  # noqa: E402
from acrf_memory_guard import cli as acrf_cli  # noqa: E402

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


if __name__ == "__main__":
    kit.serve(AcrfDriver)
