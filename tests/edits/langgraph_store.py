"""A checkpoints.db in the layout of sut_profiles/langgraph-sqlite.yaml, written by hand: SqliteSaver's
two tables, each write an input checkpoint (the list as it was, a pending write in ``writes``) and a
done checkpoint with the new message appended, MessagePack blobs holding each message as extension
type 5 (module, class, kwargs, method), time-ordered checkpoint ids and parent links."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import yaml
from edit_stores import FACTS, marker
from list_writes import list_writes

from edits.layout import StoreLayout, parse_layout
from edits.msgpack import Ext, pack

PROFILE = Path(__file__).resolve().parents[2] / "sut_profiles" / "langgraph-sqlite.yaml"
SCHEMA = (
    "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', "
    "checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB, "
    "PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))",
    "CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', "
    "checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, "
    "type TEXT, value BLOB, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))",
)


def checkpoint_id(n: int) -> str:
    """The id of checkpoint ``n``: a version-6 UUID whose text grows with ``n``, as LangGraph's do."""
    return f"1f1ec7da-{n:04x}-6151-800b-e75989ede4{n:02x}"


def message(ctx: str, i: int) -> Ext:
    """Message ``i`` of a thread as langchain-core serialises a HumanMessage (record 3 holds the fact)."""
    text = f"{marker(ctx, i)} note {i} in {ctx}" + (f", the code is {FACTS[ctx]}" if i == 3 else "")
    kwargs = {"content": text, "additional_kwargs": {}, "response_metadata": {}, "type": "human", "name": None,
              "id": f"{ctx.lower()}{i:04d}-0000-4000-8000-000000000000"}
    return Ext(5, value=["langchain_core.messages.human", "HumanMessage", kwargs, "model_validate_json"])


def layout(parent: bool = True) -> StoreLayout:
    """The profile's own store layout (which names ``records.parent: parent_checkpoint_id``); without
    ``parent``, the same layout with no parent column."""
    store = yaml.safe_load(PROFILE.read_text())["store"]
    if parent:
        store["records"]["parent"] = "parent_checkpoint_id"
    else:
        store["records"].pop("parent", None)
    return parse_layout(store)


def build(vol: Path) -> dict[str, str]:
    """Write checkpoints.db into ``vol``; return the versions the SUT reports (done checkpoint -> marker)."""
    db = sqlite3.connect(vol / "checkpoints.db")
    for sql in SCHEMA:
        db.execute(sql)
    versions, parent = {}, {}
    for i, ctx, stage, n, _, messages in list_writes(message):
        cid = checkpoint_id(n)
        state = {"v": 4, "ts": f"2026-11-30T10:00:{n:02d}+00:00", "id": cid,
                 "channel_values": {"messages": messages}, "channel_versions": {"messages": f"{n:032d}"}}
        meta = {"source": stage, "step": 2 * i - (stage == "input"), "parents": {}}
        db.execute("INSERT INTO checkpoints VALUES (?, '', ?, ?, 'msgpack', ?, ?)",
                   (ctx, cid, parent.get(ctx), pack(state), json.dumps(meta).encode()))
        if stage == "input":
            db.execute("INSERT INTO writes VALUES (?, '', ?, 'task-0', 0, 'messages', 'msgpack', ?)",
                       (ctx, cid, pack([message(ctx, i)])))
        else:
            versions[cid] = marker(ctx, i)
        parent[ctx] = cid
    db.commit()
    db.close()
    return versions


def table(vol: Path, sql: str) -> list[tuple]:
    """Rows of a query on the store."""
    db = sqlite3.connect(vol / "checkpoints.db")
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()
