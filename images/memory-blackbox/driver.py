"""Driver of memory-blackbox (0.1.1): Markdown memory files watched by its memory.md adapter,
recorded in its signed, hash-chained ledger, checkpoints published to a file witness.

The agent's memory is one Markdown file per context, ``memory/<context>.md`` in volume ``store``
(the context percent-encoded as a file name: a lifecycle context ``tenant/user`` is one file),
one ``- [role|source|timestamp] text`` line per record (written by the agent, i.e. the driver).
memory-blackbox watches those files: ``MemoryMdAdapter(blackbox, memory/, filenames=(file,))``
per context file, ``baseline()`` when the process opens a file it has not watched yet (the ledger's
last recorded hash is the trusted state) and ``scan()`` after each of the agent's own writes (so
the ledger holds every genuine version). Two uses beyond that are the profile's
(``open.config``), each stronger than what memory-blackbox documents by default:

- ``read_scan``: ``before_read`` (the default) also scans before each read; a scan that records a
  write during a read found a change the agent did not make, and the driver reports it as a
  ``status`` signal, then serves the file. memory-blackbox's own read path is none (the agent
  reads its Markdown file; the adapter only records what changed, for a later ``trace``), so this
  signal is the driver's composition. ``none``: the read serves the file, nothing scanned.
- ``anchor``: ``file`` (the default): after each write or erasure ``anchor_now(ledger,
  FileWitnessAnchor(witness), signer)`` checkpoints the ledger and publishes the checkpoint
  (volume ``witness``); the audit is ``query.verify.verify(ledger, anchor=...)`` (``memory-blackbox
  verify --anchor``): chain, Merkle checkpoint, external witness. ``none``: memory-blackbox's
  default (anchoring is off by default, its README says), the audit ``verify(ledger)``
  (``memory-blackbox verify``): chain and local Merkle checkpoint.

Placement: ledger.db in volume ``ledger`` (whether the adversary holds it is the profile's), the
Ed25519 signing key in volume ``keys`` and the witness file in volume ``witness`` (off the store).
The adapter keys its records by the file's absolute path, so the driver opens the volumes at fixed
paths (``kit.fixed_paths``), as a container's mount points are.

Front door (``frontdoor_*``): the write API is the one this row has, the agent appending a record line
to its Markdown memory file and memory-blackbox's memory.md adapter recording the file's new version
(``scan()``; ``anchor_now`` after it with ``anchor: file``), exactly as ``write`` does. Each case is its
own store: ``<store>/frontdoor/<case>/memory/`` (one Markdown file per scope) with its own ledger,
``<ledger>/frontdoor/<case>/ledger.db`` (and witness, ``<witness>/frontdoor/<case>/witness.jsonl``),
kept after the row and opened as it is after a restart (``baseline()`` of each file from the ledger).
The label goes where this row's record keeps a source, the ``source`` slot of the line
``- [role|source|timestamp] text`` (the at-rest layout's ``metadata.source``); memory-blackbox itself
takes no label through the memory.md adapter (it records every version of a file under its own
``Source(file_read, locator=<path>)``, trust level ``untrusted`` by default) and no caller signature (its
signature is its ledger key's, over each ledger entry), so the lab's signature is not kept, nor tags
(the line has no place for one). Scope: memory-blackbox has no context (the adapter's namespace is one
fixed ``memory_md``); the driver keeps one memory file per scope, named by the percent-encoded JSON
array ``[tenant, user, session]`` of the parts as sent (injective; an integer stays a number): a store
per context that the driver opens (``isolation: separate-store``). A read is what the agent is served,
its memory file: with ``read_scan: before_read`` the file is scanned first, as ``read`` does; every
record of the file in order (a line that does not start a record continues the one before it, as a
text written with a newline is stored), no query, limit, filter or marker: memory-blackbox has no read
path and renders nothing to the agent, and the line's source is the caller's word riding along, read
by nothing.
"""

import hashlib
import re
from urllib.parse import quote, unquote
from datetime import datetime, timezone

import memlab_driver as kit  # first: guards stdout, captures import-time signals


def _import_sut(anchor_kind):
    """memory-blackbox's modules, imported in ``open``: its config reads ``~`` at import
    (``memory_blackbox.config.DEFAULT_HOME``), so every start imports it itself, in the trial's
    environment (the profile names it in ``fork_server.per_start``). The anchor modules only
    with ``anchor: file``: ``memory_blackbox.anchor`` first ships in 0.1.1 (0.1.0's
    ``merkle/anchor.py`` is a seam that anchors nothing), so ``anchor: none`` runs on 0.1.0 too."""
    global MemoryMdAdapter, FileWitnessAnchor, anchor_now, MemoryBlackbox, keys, verify
    from memory_blackbox.adapters.memory_md import MemoryMdAdapter
    from memory_blackbox.capture.engine import MemoryBlackbox
    from memory_blackbox.crypto import keys
    from memory_blackbox.query.verify import verify
    if anchor_kind == "file":
        try:
            from memory_blackbox.anchor.file_witness import FileWitnessAnchor
            from memory_blackbox.anchor.verify import anchor_now
        except ImportError as exc:
            raise kit.Unsupported(f"config.anchor: file needs memory_blackbox.anchor, first shipped in "
                                  f"memory-blackbox 0.1.1 ({exc}); use anchor: none on this release") from exc


def _line_id(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]


#: A record line, as the row's store layout reads one (``store.record_pattern`` in the profiles).
RECORD = re.compile(r"^- \[(?P<role>[^|\]]*)\|(?P<source>[^|\]]*)\|(?P<timestamp>[^\]]*)\] (?P<text>.*)$")


def _record_line(role: str, source: str, text: str) -> str:
    """The agent's record line: ``- [role|source|timestamp] text`` (the timestamp now, UTC)."""
    stamp = datetime.now(timezone.utc).isoformat(timespec="microseconds")
    return f"- [{role}|{source}|{stamp}] {text}"


def _scope_key(scope) -> str:
    """The JSON array [tenant, user, session] of the parts as sent: injective (integers stay numbers)."""
    return kit.scope_key(scope)


class BlackboxDriver(kit.Driver):
    """The agent writing Markdown memory, with memory-blackbox watching and recording it."""

    def open(self, volumes, config):
        """Fixed paths; the signing key (made on first use); the ledger; a baseline per file."""
        self.read_scan = self.choice("read_scan", ("before_read", "none"), "before_read")
        self.anchor_kind = self.choice("anchor", ("file", "none"), "file")
        _import_sut(self.anchor_kind)
        self.need_volumes("store", "ledger", "keys", *(["witness"] if self.anchor_kind == "file" else []),
                          why=f"config.anchor: {self.anchor_kind}")
        vols = kit.fixed_paths(volumes, config.get("mount_label", "memory-blackbox"))
        self.memdir = vols["store"] / "memory"
        self.memdir.mkdir(exist_ok=True)
        key_path = vols["keys"] / "signing.key"
        if not key_path.exists():
            keys.save(keys.generate(), key_path)
        self.keypair = keys.load(key_path)
        self.vols = vols
        self.ledger_path = vols["ledger"] / "ledger.db"
        self.bb = MemoryBlackbox.open(self.ledger_path, self.keypair)
        self.witness = FileWitnessAnchor(vols["witness"] / "witness.jsonl") if self.anchor_kind == "file" else None
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
                "configuration": {"adapter": "memory_md", "read_scan": self.read_scan,
                                  "anchor": "file witness" if self.witness else "none"}}

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
        if self.witness is not None:
            anchor_now(self.bb.ledger, self.witness, self.keypair)

    def write(self, context, text, meta):
        """Append a record line to memory/<context>.md; scan; anchor."""
        line = _record_line(meta.get('role', 'user'), meta.get('source', 'agent'), text)
        lines = self._lines(context)
        if not lines:
            lines = [f"# memory of {context}"]
        self._save(context, lines + [line])
        return {"id": _line_id(line), "text": text}

    def _signal_scan(self, adapter):
        """scan() the file, and signal each write it records: a change the agent did not make."""
        for rec in adapter.scan():
            self.signal("status", f"memory-blackbox recorded an out-of-band write to {rec.memory_id} "
                                  f"(ledger record {rec.record_id}, source {rec.source.source_type})",
                        record_id=rec.record_id)

    def read(self, context):
        """The file (with read_scan: before_read, scan() first: a recorded write = a change the agent did not make)."""
        if not self._file(context).exists():
            return []
        if self.read_scan == "before_read":
            self._signal_scan(self._adapter(context))
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
        """verify(ledger[, anchor=FileWitnessAnchor(witness)]): chain, Merkle[, external witness]."""
        report = verify(self.bb.ledger, anchor=self.witness) if self.witness else verify(self.bb.ledger)
        problems = [] if report.ok else [report.summary]
        anchored = (f", anchor=FileWitnessAnchor({self.witness.path}))  # memory-blackbox verify --anchor"
                    if self.witness else ")  # memory-blackbox verify")
        return {"ok": bool(report.ok), "problems": problems,
                "call": f"memory_blackbox.query.verify.verify(LedgerStore({self.ledger_path}){anchored}"}

    # ---- the front door --------------------------------------------------------------------------
    def frontdoor_open(self, case, trust_root, fresh):
        """The case's own memory folder and ledger (new when fresh, else the ones kept), each memory file
        found baselined from the ledger as ``open`` does; no trust root taken (memory-blackbox verifies no
        caller's signature)."""
        memdir = kit.case_store(self.vols["store"], case, fresh, "memory")
        ledger_path = kit.case_store(self.vols["ledger"], case, fresh, "ledger.db")
        self._frontdoor_close()
        memdir.mkdir(exist_ok=True)
        self.fd_memdir = memdir
        self.fd_bb = MemoryBlackbox.open(ledger_path, self.keypair)
        self.fd_witness = None
        if self.anchor_kind == "file":
            witness = self.vols["witness"] / "frontdoor" / case / "witness.jsonl"
            witness.parent.mkdir(parents=True, exist_ok=True)
            self.fd_witness = FileWitnessAnchor(witness)
        self.fd_adapters = {}
        for path in sorted(memdir.glob("*.md")):
            self._fd_adapter(path)

    def _fd_file(self, scope):
        if getattr(self, "fd_bb", None) is None:
            raise kit.BadRequest("frontdoor_open first")
        return self.fd_memdir / f"{quote(_scope_key(scope), safe='')}.md"

    def _fd_adapter(self, path):
        """The memory.md adapter watching one scope's file; a new one takes its baseline from the ledger."""
        if path.name not in self.fd_adapters:
            adapter = MemoryMdAdapter(self.fd_bb, self.fd_memdir, filenames=(path.name,))
            adapter.baseline()
            self.fd_adapters[path.name] = adapter
        return self.fd_adapters[path.name]

    def frontdoor_write(self, scope, text, label, signature, tags):
        """The agent appends ``- [user|<label>|<now>] <text>`` to the scope's memory file; memory-blackbox's
        adapter records the new version (scan), anchored with ``anchor: file``. The signature and the tags
        have no place in the line and are not kept."""
        path = self._fd_file(scope)
        adapter = self._fd_adapter(path)  # watching before the first write, so its scan records the new file
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        if not lines:
            lines = [f"# memory of {_scope_key(scope)}"]
        line = _record_line("user", label, text)
        path.write_text("".join(f"{x}\n" for x in lines + [line]), encoding="utf-8")
        recorded = adapter.scan()  # memory-blackbox records the agent's change
        if self.fd_witness is not None:
            anchor_now(self.fd_bb.ledger, self.fd_witness, self.keypair)
        return {"accepted": True, "stored": {"file": path.name, "line": line,
                                             "ledger_records": [r.record_id for r in recorded]}}

    def frontdoor_read(self, scope, query, k, tag):
        """The scope's memory file as the agent reads it (scanned first with ``read_scan: before_read``):
        every record in file order, a line that starts no record continuing the one before it; no query,
        limit, filter or marker."""
        path = self._fd_file(scope)
        if not path.exists():  # nothing written in this scope: no memory file
            return []
        if self.read_scan == "before_read":
            self._signal_scan(self._fd_adapter(path))
        texts = []
        for line in path.read_text(encoding="utf-8").splitlines():
            m = RECORD.match(line)
            if m:
                texts.append(m.group("text"))
            elif texts:
                texts[-1] += "\n" + line
        return [{"text": t, "marker": None} for t in texts]

    def _frontdoor_close(self):
        bb = getattr(self, "fd_bb", None)
        self.fd_bb = None
        if bb is not None:
            bb.ledger.close()

    def close(self):
        """Close the ledger(s)."""
        self._frontdoor_close()
        if hasattr(self, "bb"):
            self.bb.ledger.close()


if __name__ == "__main__":
    kit.serve(BlackboxDriver)
