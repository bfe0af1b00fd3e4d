"""Small fixture stores for the editor tests, and the per-case checks.

Each builder writes a store into a fresh volume directory: contexts A and B,
five records each, every text carrying a unique marker (``mA2-x7k3q9``), record
3 of each context carrying the fact token (FA / FB). The two contexts differ in
every value. ``specs()`` gives one EditSpec per case T1..T8, shaped as the lab
builds them, and ``check()`` asserts a spec's operation changed exactly what it should.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from pathlib import Path

from edits.base import editor_for
from edits.layout import parse_layout
from edits.model import EditSpec, Record

CONTEXTS = ("A", "B")
FACTS = {"A": "FACT-A-7Q2X", "B": "FACT-B-9W4Z"}
TAMPERED = "FACT-A-0000"
FACT_INDEX = 3


def marker(ctx: str, i: int) -> str:
    """The unique marker of record ``i`` (1..5) of context ``ctx``."""
    return f"m{ctx}{i}-" + hashlib.sha256(f"{ctx}{i}".encode()).hexdigest()[:6]


def seed() -> list[dict]:
    """Ten seed records, interleaved A1, B1, A2, B2, ... (distinct values per context)."""
    out = []
    for i in range(1, 6):
        for ctx in CONTEXTS:
            day = 1 if ctx == "A" else 15
            text = f"{marker(ctx, i)} note {i} in {ctx}" + (f", the code is {FACTS[ctx]}" if i == FACT_INDEX else "")
            out.append({"ctx": ctx, "i": i, "text": text, "role": "user" if i % 2 else "assistant",
                        "source": f"chat-{ctx}", "owner": "alice" if ctx == "A" else "bob",
                        "ts": f"2024-05-{day + i:02d}T10:00:0{i}Z", "epoch": 1715000000 + 1000 * i + (ctx == "B"),
                        "uid": str(uuid.UUID(hashlib.md5(f"{ctx}{i}".encode()).hexdigest()))})
    return out


def specs(field: str | None = "role") -> dict[str, EditSpec]:
    """One spec per case, as lab.cases builds them."""
    return {
        "T1": EditSpec("T1", "A", marker("A", 3), find=FACTS["A"], replace=TAMPERED, op="replace"),
        "T2": EditSpec("T2", "A", marker("A", 5), op="rollback"),
        "T3": EditSpec("T3", "A", marker("A", 3), op="delete"),
        "T4": EditSpec("T4", "A", marker("A", 2), second=marker("A", 4), op="swap"),
        "T5": EditSpec("T5", "A", marker("A", 5), find=marker("A", 5), replace=marker("A", 5)[:-6] + "f0rg3d",
                       op="forge"),
        "T6": EditSpec("T6", "B", marker("B", 3), donor=marker("A", 3), op="transplant"),
        "T7": EditSpec("T7", "A", marker("A", 5), donor=marker("A", 1), op="transplant"),
        "T8": EditSpec("T8", "A", marker("A", 3), meta_field=field, op="set_meta"),
    }



#: The operations of edits.ops by name, each as the spec the lab builds for it (``specs``): a
#: transplant both from the other context and within the victim's own.
OPERATIONS = {"replace": "T1", "rollback": "T2", "delete": "T3", "swap": "T4", "forge": "T5",
              "transplant": "T6", "transplant-within": "T7", "set_meta": "T8"}


def by_op(field: str | None = "role") -> dict[str, EditSpec]:
    """One spec per operation (:data:`OPERATIONS`)."""
    cases = specs(field)
    return {name: cases[case] for name, case in OPERATIONS.items()}


# -- builders -------------------------------------------------------------

def sqlite_store(vol: Path, kind: str):
    """A SQLite store; kind: ``text`` (uuid id, seq order, UNIQUE(session, seq)),
    ``json`` (autoincrement id = order, JSON payload with a path) or ``blob``
    (hex uid, ISO timestamp order, BLOB payload) or ``norowid`` (WITHOUT ROWID,
    composite key (session, seq) as identity and order, a generated column)."""
    db = sqlite3.connect(vol / "memory.db")
    rows = seed()
    if kind == "text":
        db.execute("CREATE TABLE memories (id TEXT PRIMARY KEY, session TEXT NOT NULL, seq INTEGER NOT NULL, "
                   "body TEXT, role TEXT, source TEXT, owner TEXT, created_at TEXT, UNIQUE(session, seq))")
        db.executemany("INSERT INTO memories VALUES (?,?,?,?,?,?,?,?)",
                       [(r["uid"], r["ctx"], r["i"] * 10, r["text"], r["role"], r["source"], r["owner"], r["ts"])
                        for r in rows])
        layout = {"table": "memories", "context": "session", "identity": ["id"], "order": "seq",
                  "payload": "body", "metadata": {"role": "role", "source": "source", "owner": "owner",
                                                  "timestamp": "created_at"}}
    elif kind == "json":
        db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, thread TEXT, "
                   "message_data TEXT, created_at REAL)")
        db.executemany("INSERT INTO messages (thread, message_data, created_at) VALUES (?,?,?)",
                       [(r["ctx"], json.dumps({"role": r["role"], "content": r["text"]}), r["epoch"]) for r in rows])
        layout = {"table": "messages", "context": "thread", "identity": ["id"], "order": "id",
                  "payload": {"field": "message_data", "format": "json", "path": ["content"]},
                  "metadata": {"timestamp": "created_at"}}
    elif kind == "norowid":
        db.execute("CREATE TABLE notes (session TEXT, seq INTEGER, body TEXT, role TEXT, "
                   "body_len INTEGER GENERATED ALWAYS AS (length(body)) STORED, "
                   "PRIMARY KEY (session, seq)) WITHOUT ROWID")
        db.executemany("INSERT INTO notes (session, seq, body, role) VALUES (?,?,?,?)",
                       [(r["ctx"], r["i"], r["text"], r["role"]) for r in rows])
        layout = {"table": "notes", "context": "session", "identity": ["session", "seq"], "order": "seq",
                  "payload": "body", "metadata": {"role": "role"}}
    else:
        db.execute("CREATE TABLE chunks (uid TEXT UNIQUE, ctx TEXT, ts TEXT, data BLOB, role TEXT)")
        db.executemany("INSERT INTO chunks VALUES (?,?,?,?,?)",
                       [(uuid.UUID(r["uid"]).hex, r["ctx"], r["ts"], r["text"].encode(), r["role"]) for r in rows])
        layout = {"table": "chunks", "context": "ctx", "identity": ["uid"], "order": "ts",
                  "payload": "data", "metadata": {"role": "role"}}
    db.commit()
    db.close()
    return parse_layout({"backend": "sqlite", "volume": "store", "file": "memory.db", **layout})


def jsonl_store(vol: Path, kind: str):
    """A JSON-lines store; kind: ``position`` (id identity, @position order, nested
    payload, a header line), ``field`` (no identity, seq order, compact non-ASCII)
    or ``idorder`` (n is identity and order)."""
    rows = seed()
    lines = []
    if kind == "position":
        lines.append(json.dumps({"type": "header", "version": 1}))
        for r in rows:
            lines.append(json.dumps({"id": r["uid"], "thread": r["ctx"], "role": r["role"],
                                     "msg": {"content": r["text"]}, "ts": r["epoch"]}))
        layout = {"context": "thread", "identity": ["id"], "order": "@position",
                  "payload": {"field": "msg", "path": ["content"]}, "metadata": {"role": "role", "timestamp": "ts"}}
    elif kind == "field":
        for r in rows:
            lines.append(json.dumps({"ctx": r["ctx"], "seq": r["i"], "text": r["text"] + " é",
                                     "source": r["source"]}, separators=(",", ":"), ensure_ascii=False))
        layout = {"context": "ctx", "identity": [], "order": "seq", "payload": "text",
                  "metadata": {"source": "source"}}
    else:
        for n, r in enumerate(rows, start=1):
            lines.append(json.dumps({"n": n, "ctx": r["ctx"], "text": r["text"], "owner": r["owner"]}))
        layout = {"context": "ctx", "identity": ["n"], "order": "n", "payload": "text",
                  "metadata": {"owner": "owner"}}
    (vol / "memory.jsonl").write_text("\n".join(lines) + "\n")
    return parse_layout({"backend": "jsonl", "volume": "store", "file": "memory.jsonl", **layout})


MD_PATTERN = r"^- \[(?P<role>\w+)\] (?P<timestamp>\S+) (?P<text>.*)$"


def markdown_store(vol: Path):
    """A Markdown store: memory/A.md and memory/B.md with headings, prose and blank lines."""
    (vol / "memory").mkdir()
    for ctx in CONTEXTS:
        out = [f"# Memory of {ctx}", "", "Some prose that is not a record."]
        for r in (r for r in seed() if r["ctx"] == ctx):
            out.append(f"- [{r['role']}] {r['ts']} {r['text']}")
            if r["i"] == 2:
                out.append("")
        (vol / "memory" / f"{ctx}.md").write_text("\n".join(out) + "\n## end\n")
    return parse_layout({"backend": "markdown", "volume": "store", "file": "memory/{context}.md",
                         "identity": [], "order": "@position", "payload": "text",
                         "metadata": {"role": "role", "timestamp": "timestamp"}, "record_pattern": MD_PATTERN})


def qdrant_points(vol: Path, payload_of) -> None:
    """The ten seed records as points of collection ``mem`` in a Qdrant local-mode folder
    ``qdrant``: ``payload_of(seed record)`` their payload, a 4-dim vector each."""
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(vol / "qdrant"))
    client.create_collection("mem", vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE))
    client.upsert("mem", points=[models.PointStruct(
        id=r["uid"], vector=[1.0, float(r["i"]), 0.5, float(r["ctx"] == "A")], payload=payload_of(r)) for r in seed()])
    client.close()


def selected(db_file: Path, sql: str) -> list[tuple]:
    """The rows a query selects from a SQLite file, the file closed again."""
    db = sqlite3.connect(db_file)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def open_editor(layout, vol: Path):
    """The editor for a fixture layout, through the public registry."""
    return editor_for(layout, {"store": vol})


# -- checks ---------------------------------------------------------------

def sequence(records: list[Record], ctx: str) -> list[str]:
    """The payloads of one context, in order."""
    return [r.payload for r in records if r.context == ctx]


def by_payload(records: list[Record], marker_text: str) -> Record:
    """The one record whose payload holds ``marker_text``."""
    hits = [r for r in records if marker_text in r.payload]
    assert len(hits) == 1, (marker_text, hits)
    return hits[0]


def kept_fields(layout) -> set[str]:
    """Fields that stay with a record's slot."""
    return {*layout.identity, layout.context, layout.order}


def expected(spec: EditSpec, seq: list, target: int, second: int | None = None, donor=None) -> list:
    """A context's sequence (of payloads, or of any per-record items) after ``spec``'s operation, from the
    one before: ``target`` the target's index in it, ``second`` a swap's other index, ``donor`` the
    item a transplant puts in the target's place; a forge's new item is ``donor`` too."""
    out = list(seq)
    if spec.op in ("rollback", "delete"):
        del out[target]
    elif spec.op == "swap":
        out[target], out[second] = out[second], out[target]
    elif spec.op == "forge":
        out.append(donor)
    elif spec.op in ("replace", "transplant"):
        out[target] = donor
    return out


def check(layout, spec: EditSpec, before: list[Record], after: list[Record]) -> None:
    """Assert that ``after`` is ``before`` with exactly ``spec``'s operation applied."""
    target = by_payload(before, spec.target)
    seq_before, seq_after = sequence(before, target.context), sequence(after, target.context)
    for other in {r.context for r in before} - {target.context}:
        assert sequence(after, other) == sequence(before, other), f"context {other} must be untouched"
    t = seq_before.index(target.payload)
    second = seq_before.index(by_payload(before, spec.second).payload) if spec.op == "swap" else None
    new = {"replace": target.payload.replace(spec.find or "", spec.replace or ""),
           "forge": target.payload.replace(spec.find or "", spec.replace or ""),
           "transplant": spec.donor and by_payload(before, spec.donor).payload}.get(spec.op)
    assert seq_after == expected(spec, seq_before, t, second, new)
    if spec.op == "forge":
        forged = by_payload(after, spec.replace)
        assert forged.context == target.context and forged.key() not in {r.key() for r in before}
        assert forged.metadata == target.metadata
    elif spec.op == "transplant":
        donor = by_payload(before, spec.donor)
        victim = [r for r in after if r.context == target.context][t]
        assert victim.identity == target.identity and victim.context == target.context
        assert victim.order == target.order
        assert victim.metadata == donor.metadata
        for name, value in donor.fields.items():
            if name not in kept_fields(layout) and name != "line":
                assert victim.fields.get(name) == value, name
    elif spec.op == "set_meta":
        new_rec, field = by_payload(after, spec.target), spec.meta_field
        assert new_rec.metadata[field] != target.metadata[field]
        assert {k: v for k, v in new_rec.metadata.items() if k != field} == \
               {k: v for k, v in target.metadata.items() if k != field}
    if layout.identity:
        _check_keys(layout, spec, before, after)


def _check_keys(layout, spec: EditSpec, before: list[Record], after: list[Record]) -> None:
    """Stable identities: the right keys added, removed or changed, and no other.

    Locators (line numbers) are ignored, and so is the order of a position-ordered
    store (a line number, which shifts when a line is deleted or inserted; the
    sequence checks in :func:`check` cover it).
    """
    def view(r: Record) -> tuple:
        return (r.context, r.identity, None if layout.ordered_by_position else r.order,
                r.payload, r.metadata, r.fields)
    old = {r.key(): view(r) for r in before}
    new = {r.key(): view(r) for r in after}
    added, removed = set(new) - set(old), set(old) - set(new)
    changed = {k for k in set(old) & set(new) if old[k] != new[k]}
    target = by_payload(before, spec.target).key()
    swapped = set() if layout.ordered_by_position else {target, by_payload(before, spec.second or spec.target).key()}
    expect = {
        "replace": (set(), set(), {target}), "rollback": (set(), {target}, set()), "delete": (set(), {target}, set()),
        "swap": (set(), set(), swapped), "forge": (added if len(added) == 1 else {"one new key"}, set(), set()),
        "transplant": (set(), set(), {target}), "set_meta": (set(), set(), {target}),
    }[spec.op]
    assert (added, removed, changed) == expect


def run_case(layout, vol: Path, case: str, spec: EditSpec | None = None):
    """Apply one case to a fixture store, check it, and return (before, after, applied)."""
    spec = spec or specs(next(iter(layout.metadata), None))[case]
    editor = open_editor(layout, vol)
    before = editor.records()
    applied = editor.apply(spec)
    after = open_editor(layout, vol).records()
    check(layout, spec, before, after)
    assert applied.case == case and applied.backend == layout.backend
    assert applied.statements and applied.touched and applied.bytes_changed > 0
    return before, after, applied
