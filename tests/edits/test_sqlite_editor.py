"""SqliteEditor on four fixture layouts: uuid identity + separate UNIQUE order
column, autoincrement id as identity and order with a JSON payload, a BLOB
payload ordered by ISO timestamps, and a WITHOUT ROWID table with a composite
key and a generated column; plus WAL databases, clean and crashed. Each operation's
postcondition on the four is the conformance suite's (test_conformance.py)."""

import shutil
import sqlite3

import pytest

from edit_stores import FACTS, TAMPERED, marker, open_editor, run_case, specs, sqlite_store
from edits.model import EditError, EditSpec
from lab.cases import BY_ID



def test_reading_leaves_the_file_alone(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    raw = (tmp_path / "memory.db").read_bytes()
    records = open_editor(layout, tmp_path).records()
    assert len(records) == 10 and [r.context for r in records] == ["A"] * 5 + ["B"] * 5
    assert [r.order for r in records[:5]] == [10, 20, 30, 40, 50]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.db"]
    assert (tmp_path / "memory.db").read_bytes() == raw


def test_statements_are_expanded_sql(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    applied = open_editor(layout, tmp_path).apply(specs()["T1"])
    update = applied.statements[1]
    assert update.startswith('UPDATE "memories" SET "body" = ') and TAMPERED in update and "?" not in update
    assert applied.detail["columns"] == ["body"]
    assert applied.bytes_changed >= 4  # 7Q2X -> 0000, plus the header change counter


def test_t4_swaps_order_values_through_a_temporary_under_unique(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    applied = open_editor(layout, tmp_path).apply(specs()["T4"])
    assert len(applied.statements) == 5 and applied.detail["temporary"] == 51
    db = sqlite3.connect(tmp_path / "memory.db")
    seqs = dict(db.execute("SELECT body, seq FROM memories WHERE session = 'A'").fetchall())
    by_marker = {m: next(s for b, s in seqs.items() if m in b) for m in (marker("A", 2), marker("A", 4))}
    assert by_marker == {marker("A", 2): 40, marker("A", 4): 20}


def test_t4_with_identity_order_swaps_contents_keeping_ids(tmp_path):
    layout = sqlite_store(tmp_path, "json")
    before = {r.identity: r for r in open_editor(layout, tmp_path).records()}
    applied = open_editor(layout, tmp_path).apply(specs()["T4"])
    assert applied.detail["swapped"] == ["message_data", "created_at"]
    after = {r.identity: r for r in open_editor(layout, tmp_path).records()}
    a2 = next(k for k, r in before.items() if marker("A", 2) in r.payload)
    a4 = next(k for k, r in before.items() if marker("A", 4) in r.payload)
    assert after[a2].fields["message_data"] == before[a4].fields["message_data"]
    assert after[a4].fields["created_at"] == before[a2].fields["created_at"]


def test_t5_fresh_identity_and_next_order(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    applied = open_editor(layout, tmp_path).apply(specs()["T5"])
    rows = sqlite3.connect(tmp_path / "memory.db").execute(
        "SELECT id, seq, body FROM memories WHERE body LIKE '%f0rg3d%'").fetchall()
    (new_id, seq, body), = rows
    assert seq == 51 and len(new_id) == 36 and new_id.count("-") == 4 and applied.touched == [new_id]


def test_t5_autoincrement_takes_the_next_id(tmp_path):
    layout = sqlite_store(tmp_path, "json")
    applied = open_editor(layout, tmp_path).apply(specs()["T5"])
    assert applied.touched == ["11"]
    assert sqlite3.connect(tmp_path / "memory.db").execute("SELECT seq FROM sqlite_sequence").fetchone() == (11,)


def test_t1_edits_blob_bytes_in_place(tmp_path):
    layout = sqlite_store(tmp_path, "blob")
    open_editor(layout, tmp_path).apply(specs()["T1"])
    (data,) = sqlite3.connect(tmp_path / "memory.db").execute(
        "SELECT data FROM chunks WHERE instr(data, ?)", (marker("A", 3).encode(),)).fetchone()
    assert isinstance(data, bytes) and TAMPERED.encode() in data and FACTS["A"].encode() not in data


def test_t8_timestamp_moves_by_a_day(tmp_path):
    layout = sqlite_store(tmp_path, "json")
    applied = open_editor(layout, tmp_path).apply(specs("timestamp")["T8"])
    assert applied.detail["new"] - applied.detail["old"] == 86400


def test_t8_owner_takes_the_given_value(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    spec = EditSpec("T8", "A", marker("A", 3), meta_field="owner", meta_value="bob", op="set_meta")
    open_editor(layout, tmp_path).apply(spec)
    rec = next(r for r in open_editor(layout, tmp_path).records() if marker("A", 3) in r.payload)
    assert rec.metadata["owner"] == "bob" and rec.metadata["role"] == "user"


@pytest.mark.parametrize("spec, message", [
    (EditSpec("T2", "A", "no-such-marker", op="rollback"), "in no record"),
    (EditSpec("T2", "A", "mA", op="rollback"), "markers must be unique"),
    (EditSpec("T2", "B", marker("A", 1), op="rollback"), "the spec names 'B'"),
    (EditSpec("T1", "A", marker("A", 3), find=FACTS["A"], replace="short", op="replace"), "same encoded length"),
    (EditSpec("T1", "A", marker("A", 2), find=FACTS["A"], replace=TAMPERED, op="replace"), "not in the payload"),
    (EditSpec("T4", "A", marker("A", 2), op="swap"), "no second marker"),
    (EditSpec("T4", "A", marker("A", 2), second=marker("B", 2), op="swap"), "different contexts"),
    (EditSpec("T8", "A", marker("A", 3), meta_field="owner", op="set_meta"), "no metadata field 'owner'"),
    (EditSpec("T9", "A", marker("A", 3)), "whole-volume"),
])
def test_impossible_edits_raise_and_change_nothing(tmp_path, spec, message):
    layout = sqlite_store(tmp_path, "blob")
    raw = (tmp_path / "memory.db").read_bytes()
    with pytest.raises(EditError, match=message):
        open_editor(layout, tmp_path).apply(spec)
    assert (tmp_path / "memory.db").read_bytes() == raw


@pytest.mark.parametrize("spec, message", [
    (EditSpec("T6", "A", marker("A", 2), donor=marker("A", 1), op="transplant"), "another context"),
    (EditSpec("T7", "A", marker("A", 5), donor=marker("B", 1), op="transplant"), "donor is in context 'B'"),
])
def test_a_replay_case_refuses_a_donor_of_the_wrong_context_the_editor_does_not(tmp_path, spec, message):
    layout = sqlite_store(tmp_path, "blob")
    with pytest.raises(EditError, match=message):
        BY_ID[spec.case].check(spec, open_editor(layout, tmp_path).records())
    assert open_editor(layout, tmp_path).apply(spec).touched  # a transplant from anywhere: the case's to refuse


def test_a_refused_statement_rolls_back(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    db = sqlite3.connect(tmp_path / "memory.db")
    db.execute("CREATE TRIGGER no_delete BEFORE DELETE ON memories BEGIN SELECT RAISE(ABORT, 'read only'); END")
    db.commit()
    db.close()
    raw = (tmp_path / "memory.db").read_bytes()
    with pytest.raises(EditError, match="read only"):
        open_editor(layout, tmp_path).apply(specs()["T3"])
    assert (tmp_path / "memory.db").read_bytes() == raw


def test_missing_column_is_a_clear_error(tmp_path):
    layout = sqlite_store(tmp_path, "text")
    from dataclasses import replace
    with pytest.raises(EditError, match=r"no column\(s\) \['nope'\]"):
        open_editor(replace(layout, order="nope"), tmp_path).records()


def test_without_rowid_rows_are_addressed_by_primary_key(tmp_path):
    layout = sqlite_store(tmp_path, "norowid")
    applied = open_editor(layout, tmp_path).apply(specs()["T5"])
    assert applied.touched == ["A|6"]
    assert applied.statements[1].startswith('INSERT INTO "notes" ("session", "seq", "body", "role") VALUES (\'A\', 6,')
    applied = open_editor(layout, tmp_path).apply(specs()["T8"])
    assert applied.statements[1].endswith("WHERE \"session\" = 'A' AND \"seq\" = 3")
    lens = sqlite3.connect(tmp_path / "memory.db").execute("SELECT body_len = length(body) FROM notes").fetchall()
    assert lens == [(1,)] * 11


def wal_store(vol, crashed):
    """A WAL database; ``crashed`` leaves committed rows only in the -wal file."""
    layout = sqlite_store(vol, "text")
    db = sqlite3.connect(vol / "memory.db")
    db.execute("PRAGMA journal_mode=wal")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("UPDATE memories SET body = body || ' (in wal)' WHERE seq = 10")
    db.commit()
    if crashed:
        for name in ("memory.db", "memory.db-wal"):
            shutil.copy2(vol / name, vol.parent / name)
        db.close()
        for name in ("memory.db", "memory.db-wal"):
            shutil.copy2(vol.parent / name, vol / name)
        (vol / "memory.db-shm").unlink(missing_ok=True)
    else:
        db.close()
    return layout


@pytest.mark.parametrize("crashed", [False, True])
def test_reading_a_wal_database_writes_nothing(tmp_path, crashed):
    vol = tmp_path / "vol"
    vol.mkdir()
    layout = wal_store(vol, crashed)
    files = {p.name: p.read_bytes() for p in vol.iterdir()}
    assert ("memory.db-wal" in files) == crashed
    records = open_editor(layout, vol).records()
    assert sum("(in wal)" in r.payload for r in records) == 2
    assert {p.name: p.read_bytes() for p in vol.iterdir()} == files


@pytest.mark.parametrize("crashed", [False, True])
def test_editing_a_wal_database(tmp_path, crashed):
    vol = tmp_path / "vol"
    vol.mkdir()
    layout = wal_store(vol, crashed)
    run_case(layout, vol, "T3")
