"""A sealed SqliteSaver store of the langgraph-sqlite+aes layout, for the form-variant tests: the
tables SqliteSaver makes, three checkpoints a write (as its graph makes them), every payload
random bytes under type "msgpack+aes" (the editor cannot read them, as it cannot read AES-EAX)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from edits.base import editor_for
from edits.volumes import diff_digests, digest_tree
from lab.cases import BY_ID, spec_for
from lab.cases.seedplan import SeedPlan, make_plan
from lab.judge.c3 import C3Result, check_edit
from lab.profile import load_profiles, select

ROW = "langgraph-sqlite+aes"
SCHEMA = """
CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT, value BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));
"""


def profile():
    """The row's validated profile (its layout declares the plain-msgpack form)."""
    return select(load_profiles(), [ROW])[0]


def sealed_store(vol: Path, plan: SeedPlan) -> dict[str, str]:
    """Seed ``plan`` as sealed checkpoint rows; return the versions (checkpoint id -> marker of the
    write that made it current), as the SUT reports them."""
    db = sqlite3.connect(vol / "checkpoints.db")
    db.executescript(SCHEMA)
    versions, step = {}, 0
    for label, ctx in plan.contexts.items():
        parent = None
        for rec in plan.of(label):
            for source in ("input", "loop", "loop"):
                cid = f"1f1e0000-0000-6000-8{step:03d}-000000000000"
                db.execute("INSERT INTO checkpoints VALUES (?, '', ?, ?, 'msgpack+aes', ?, ?)",
                           (ctx, cid, parent, os.urandom(64 + 40 * rec.index), f'{{"source": "{source}"}}'.encode()))
                db.execute("INSERT INTO writes VALUES (?, '', ?, 'task', 0, 'messages', 'msgpack+aes', ?)",
                           (ctx, cid, os.urandom(48)))
                parent, step = cid, step + 1
            versions[parent] = rec.marker
    db.commit()
    db.close()
    return versions


def seeded(tmp_path: Path):
    """(layout, volume, plan, versions) of a fresh sealed store."""
    vol = tmp_path / "store"
    vol.mkdir()
    plan = make_plan("formtst1")
    return profile().store, vol, plan, sealed_store(vol, plan)


def measure(layout, vol: Path, versions: dict, spec, mutate=None, claimed=None) -> C3Result:
    """Apply ``spec`` (then ``mutate``, a raw change outside the editor) and run C3 on what was
    read before and after, as the procedure does; ``claimed`` is the spec C3 is told was intended."""
    editor = editor_for(layout, {"store": vol}, versions=versions)
    before, digests = [r.to_json() for r in editor.records()], digest_tree(vol)
    editor.apply(spec)
    if mutate:
        mutate()
    after = [r.to_json() for r in editor_for(layout, {"store": vol}, versions=versions).records()]
    return check_edit((claimed or spec).to_json(), layout.to_json(), before, after,
                      diff_digests(digests, digest_tree(vol)))


def form_spec(case: str, plan: SeedPlan, layout):
    """The case's spec as the registry builds it, as its form=plain-msgpack variant."""
    from dataclasses import replace
    return replace(spec_for(BY_ID[case], plan, layout), variant="form=plain-msgpack")
