"""Fixture stores that hold the fact token, and a metadata field, in more than one place, and
the measurement every place-variant test makes: apply one spec on a fresh store, read the
records again, and run C3 as the procedure does."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from edit_stores import open_editor, qdrant_points, seed, specs

from edits.layout import parse_layout
from edits.volumes import diff_digests, digest_tree
from lab.judge.c3 import check_edit

ROLE_PLACES = [{"field": "doc", "path": ["role"]}, "role"]


def _doc(r: dict) -> dict:
    """A JSON document holding the text twice (the fact record's fact at two paths)."""
    return {"role": r["role"], "text": r["text"], "copy": {"text": r["text"]}}


def sqlite_places(vol: Path):
    """SQLite: the text in column ``body`` (the payload), in column ``summary`` and at two paths of
    the JSON column ``doc``; the role in ``doc`` at [role] and in column ``role``."""
    db = sqlite3.connect(vol / "memory.db")
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, session TEXT, seq INTEGER, body TEXT, summary TEXT, "
               "doc TEXT, role TEXT)")
    db.executemany("INSERT INTO notes (session, seq, body, summary, doc, role) VALUES (?,?,?,?,?,?)",
                   [(r["ctx"], r["i"], r["text"], r["text"], json.dumps(_doc(r)), r["role"]) for r in seed()])
    db.commit()
    db.close()
    return parse_layout({"backend": "sqlite", "volume": "store", "file": "memory.db", "table": "notes",
                         "context": "session", "identity": ["id"], "order": "seq", "payload": "body",
                         "metadata": {"role": ROLE_PLACES}})


SQLITE_T1 = ["place=body", "place=summary", "place=doc.text", "place=doc.copy.text"]


def jsonl_places(vol: Path):
    """JSON lines: the text in ``text`` (the payload), once inside the object ``meta``, and at two
    paths of the JSON text held in the string field ``raw``."""
    lines = [json.dumps({"id": r["uid"], "ctx": r["ctx"], "role": r["role"], "text": r["text"],
                         "meta": {"summary": r["text"], "n": r["i"]}, "raw": json.dumps(_doc(r))})
             for r in seed()]
    (vol / "memory.jsonl").write_text("\n".join(lines) + "\n")
    return parse_layout({"backend": "jsonl", "volume": "store", "file": "memory.jsonl", "context": "ctx",
                         "identity": ["id"], "order": "@position", "payload": "text", "metadata": {"role": "role"}})


JSONL_T1 = ["place=text", "place=meta", "place=raw.text", "place=raw.copy.text"]


def c3_of(layout, vol: Path, claimed, done, opener=None):
    """Apply the spec ``done`` (None: no edit) and run C3 on the spec ``claimed``, as the procedure
    does: (C3 result, the applied edit). ``opener()`` opens a service's editor; its server owns
    the files, so the volume diff C3 also reads is then a stand-in that says one changed."""
    opener = opener or (lambda: open_editor(layout, vol))
    editor = opener()
    before, digests = [r.to_json() for r in editor.records()], digest_tree(vol) if vol else None
    applied = editor.apply(done) if done is not None else None
    after = [r.to_json() for r in opener().records()]
    files = diff_digests(digests, digest_tree(vol)) if vol else {"changed": ["(the server's files)"]}
    return check_edit(claimed.to_json(), layout.to_json(), before, after, files), applied


def measure(layout, vol: Path, spec, opener=None):
    """C3 of ``spec`` applied: (C3 result, the applied edit)."""
    return c3_of(layout, vol, spec, spec, opener)


def t1(variant: str | None = None):
    """The lab's T1 spec on the fixture stores (the fact of A), with ``variant``."""
    return replace(specs()["T1"], variant=variant)


def t8(variant: str | None = None):
    """The lab's T8 spec of the role on the fixture stores, with ``variant``."""
    return replace(specs("role")["T8"], variant=variant)


def json_places(vol: Path):
    """A JSON document: the text in ``text`` (the payload), in ``summary`` and at two paths of the
    object ``doc``."""
    records = {r["uid"]: {"ctx": r["ctx"], "seq": r["i"], "text": r["text"], "summary": r["text"], "doc": _doc(r)}
               for r in seed()}
    (vol / "store.json").write_text(json.dumps(records, indent=2))
    return parse_layout({"backend": "json", "volume": "store", "file": "store.json", "context": "ctx",
                         "identity": ["@key"], "order": "seq", "payload": "text"})


JSON_T1 = ["place=text", "place=summary", "place=doc.text", "place=doc.copy.text"]


QDRANT_LAYOUT = {"backend": "qdrant", "volume": "store", "file": "qdrant", "collection": "mem",
                 "context": "user_id", "order": "created_at", "payload": "data"}


def qdrant_places(vol: Path):
    """Qdrant points as Mem0 writes them: the text in ``data`` (the payload) and in ``text_lemmatized``."""
    qdrant_points(vol, lambda r: {"data": r["text"], "text_lemmatized": r["text"], "user_id": r["ctx"],
                                  "role": r["role"], "created_at": r["ts"]})
    return parse_layout({**QDRANT_LAYOUT, "metadata": {"role": "role"}})


QDRANT_T1 = ["place=data", "place=text_lemmatized"]


def qdrant_nested(vol: Path):
    """Qdrant points whose text sits in ``data`` (the payload) and in a nested object ``meta``."""
    qdrant_points(vol, lambda r: {"data": r["text"], "meta": {"copy": r["text"], "n": r["i"]}, "user_id": r["ctx"],
                                  "created_at": r["ts"]})
    return parse_layout(QDRANT_LAYOUT)


QDRANT_NESTED_T1 = ["place=data", "place=meta"]


def lancedb_places(vol: Path):
    """LanceDB rows as CrewAI writes them, the text in ``content`` (the payload) and in ``summary``."""
    import lancedb

    lancedb.connect(str(vol / "memory")).create_table("memories", data=[
        {"id": r["uid"], "content": r["text"], "summary": r["text"], "scope": f"/{r['ctx']}",
         "created_at": r["ts"].rstrip("Z"), "vector": [1.0, float(r["i"]), 0.5, float(r["ctx"] == "A")]}
        for r in seed()])
    return parse_layout({"backend": "lancedb", "volume": "store", "file": "memory", "table": "memories",
                         "context": "scope", "context_pattern": "/{context}", "identity": ["id"],
                         "order": "created_at", "payload": "content"})


LANCEDB_T1 = ["place=content", "place=summary"]
