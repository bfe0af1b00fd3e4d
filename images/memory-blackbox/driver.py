"""Driver of memory-blackbox (0.1.1): Markdown memory files watched by its memory.md adapter,
recorded in its signed, hash-chained ledger, checkpoints published to a file witness.

The agent's memory is one Markdown file per context, ``memory/<context>.md`` in volume ``store``
(the context percent-encoded as a file name: a lifecycle context ``tenant/user`` is one file),
one ``- [role|source|timestamp] text`` line per record (written by the agent, i.e. the driver).
memory-blackbox watches those files: ``MemoryMdAdapter(blackbox, memory/, filenames=(file,))``
per context file, ``baseline()`` when the process opens a file it has not watched yet (the ledger's
last recorded hash is the trusted state), ``scan()`` after each of the agent's own writes (so the
ledger holds every genuine version) and before each read. A scan that records a write during a
read found a change the agent did not make: the driver reports it as a ``status`` signal (the
adapter's documented output: "a poisoning edit is captured and traceable"), then serves the file.
After each write or erasure ``anchor_now(ledger, FileWitnessAnchor(witness), signer)`` checkpoints
the ledger and publishes the checkpoint. Audit: ``query.verify.verify(ledger, anchor=...)``
(``memory-blackbox verify --anchor``): chain, Merkle checkpoint, external witness.

Placement: ledger.db in volume ``ledger`` (the agent's own machine, adversary), the Ed25519
signing key in volume ``keys`` and the witness file in volume ``witness`` (both off the store).
The adapter keys its records by the file's absolute path, so the driver opens the volumes at fixed
paths (``kit.fixed_paths``), as a container's mount points are.
"""

import hashlib
import sys
from urllib.parse import quote, unquote
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "driverkit"))

import memlab_driver as kit  # noqa: E402  (first: guards stdout, captures import-time signals)
from memory_blackbox.adapters.memory_md import MemoryMdAdapter  # noqa: E402
from memory_blackbox.anchor.file_witness import FileWitnessAnchor  # noqa: E402
from memory_blackbox.anchor.verify import anchor_now  # noqa: E402
from memory_blackbox.capture.engine import MemoryBlackbox  # noqa: E402
from memory_blackbox.crypto import keys  # noqa: E402
from memory_blackbox.query.verify import verify  # noqa: E402


def _line_id(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]


class BlackboxDriver(kit.Driver):
    """The agent writing Markdown memory, with memory-blackbox watching and recording it."""

    def open(self, volumes, config):
        """Fixed paths; the signing key (made on first use); the ledger; a baseline per file."""
        missing = [v for v in ("store", "ledger", "keys", "witness") if v not in volumes]
        if missing:
            raise kit.BadRequest(f"needs volumes {missing}")
        vols = kit.fixed_paths(volumes, config.get("mount_label", "memory-blackbox"))
        self.memdir = vols["store"] / "memory"
        self.memdir.mkdir(exist_ok=True)
        key_path = vols["keys"] / "signing.key"
        if not key_path.exists():
            keys.save(keys.generate(), key_path)
        self.signer = keys.load(key_path)
        self.ledger_path = vols["ledger"] / "ledger.db"
        self.bb = MemoryBlackbox.open(self.ledger_path, self.signer)
        self.witness = FileWitnessAnchor(vols["witness"] / "witness.jsonl")
        self.adapters = {}
        for path in sorted(self.memdir.glob("*.md")):
            self._adapter(unquote(path.stem))

    def describe(self):
        """memory-blackbox's version and the placement."""
        import platform, sqlite3
        from importlib.metadata import version
        return {"sut": "memory-blackbox", "version": version("memory-blackbox"),
                "libraries": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                              "blake3": version("blake3"), "cryptography": version("cryptography")},
                "capabilities": {"erasure": "record", "order": True, "metadata": True, "snapshot": True,
                                 "lifecycle": ["erase"]},
                "configuration": {"adapter": "memory_md", "anchor": "file witness"}}

    def _adapter(self, context):
        """The adapter watching one context file; a new one takes its baseline from the ledger."""
        if context not in self.adapters:
            adapter = MemoryMdAdapter(self.bb, self.memdir, filenames=(self._file(context).name,))
            adapter.baseline()
            self.adapters[context] = adapter
        return self.adapters[context]

    def _file(self, context):
        return self.memdir / f"{quote(context, safe='')}.md"

    def _lines(self, context):
        path = self._file(context)
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    def _save(self, context, lines):
        self._file(context).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        self._adapter(context).scan()  # the agent's own change, captured at once
        anchor_now(self.bb.ledger, self.witness, self.signer)

    def write(self, context, text, meta):
        """Append a record line to memory/<context>.md; scan; anchor."""
        stamp = datetime.now(timezone.utc).isoformat(timespec="microseconds")
        line = f"- [{meta.get('role', 'user')}|{meta.get('source', 'agent')}|{stamp}] {text}"
        lines = self._lines(context)
        if not lines:
            lines = [f"# memory of {context}"]
        self._save(context, lines + [line])
        return {"id": _line_id(line), "text": text}

    def read(self, context):
        """scan() first (a recorded write = a change the agent did not make), then the file."""
        if not self._file(context).exists():
            return []
        for rec in self._adapter(context).scan():
            self.signal("status", f"memory-blackbox recorded an out-of-band write to {rec.memory_id} "
                                  f"(ledger record {rec.record_id}, source {rec.source.source_type})",
                        record_id=rec.record_id)
        out = []
        for line in self._lines(context):
            if line.startswith("- [") and "] " in line:
                head, text = line[3:].split("] ", 1)
                role, source, stamp = (head.split("|") + ["", ""])[:3]
                out.append({"id": _line_id(line), "text": text,
                            "meta": {"role": role, "source": source, "timestamp": stamp}})
        return out

    def erase(self, context, record_id):
        """The agent deletes the record's line from its memory file; scan; anchor."""
        if record_id is None:
            raise kit.Unsupported("the driver erases single records (capabilities.erasure: record)")
        lines = self._lines(context)
        kept = [line for line in lines if _line_id(line) != record_id]
        if len(kept) != len(lines) - 1:
            raise KeyError(f"no single record {record_id} in {context}")
        self._save(context, kept)
        return [record_id]

    def audit(self, context):
        """verify(ledger, anchor=FileWitnessAnchor(witness)): chain, Merkle, external witness."""
        report = verify(self.bb.ledger, anchor=self.witness)
        problems = [] if report.ok else [report.summary]
        return {"ok": bool(report.ok), "problems": problems,
                "call": f"memory_blackbox.query.verify.verify(LedgerStore({self.ledger_path}), "
                        f"anchor=FileWitnessAnchor({self.witness.path}))  # memory-blackbox verify --anchor"}

    def close(self):
        """Close the ledger."""
        if hasattr(self, "bb"):
            self.bb.ledger.close()


if __name__ == "__main__":
    kit.serve(BlackboxDriver)
