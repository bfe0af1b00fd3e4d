"""triggers: suspend -- a SQLite edit runs without the SUT's triggers (stored SUT code), which it
re-creates unchanged in the same transaction."""

import sqlite3

from edits.layout import parse_layout
from edits.model import EditSpec
from edits.sqlite import SqliteEditor

TRIGGER = ("CREATE TRIGGER bump AFTER UPDATE ON records WHEN NEW.gen = OLD.gen BEGIN "
           "UPDATE records SET gen = OLD.gen + 1 WHERE id = NEW.id; END")


def _store(tmp_path):
    db = sqlite3.connect(tmp_path / "m.db")
    db.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, ctx TEXT, body TEXT, gen INTEGER DEFAULT 0)")
    db.execute(TRIGGER)
    db.executemany("INSERT INTO records (ctx, body) VALUES (?, ?)",
                   [("A", "mA0-aaaaaa one"), ("A", "mA1-bbbbbb FACT-A1"), ("A", "mA2-cccccc three")])
    db.commit()
    db.close()


def _layout(mode):
    return parse_layout({"backend": "sqlite", "volume": "store", "file": "m.db", "table": "records",
                         "context": "ctx", "identity": ["id"], "order": "id", "payload": "body",
                         "triggers": mode})


def _state(tmp_path):
    db = sqlite3.connect(tmp_path / "m.db")
    try:
        return (db.execute("SELECT gen FROM records WHERE id = 2").fetchone()[0],
                db.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger'").fetchall())
    finally:
        db.close()


def test_triggers_fire_by_default(tmp_path):
    _store(tmp_path)
    SqliteEditor(_layout("fire"), tmp_path).apply(EditSpec("T1", "A", "mA1-bbbbbb", find="FACT-A1", replace="FACT-Z9",
                                                           op="replace"))
    assert _state(tmp_path) == (1, [(TRIGGER,)])


def test_suspended_triggers_do_not_run_and_come_back_unchanged(tmp_path):
    _store(tmp_path)
    done = SqliteEditor(_layout("suspend"), tmp_path).apply(
        EditSpec("T1", "A", "mA1-bbbbbb", find="FACT-A1", replace="FACT-Z9", op="replace"))
    assert _state(tmp_path) == (0, [(TRIGGER,)])
    assert any(s.startswith('DROP TRIGGER "bump"') for s in done.statements)
    assert any(s.startswith("CREATE TRIGGER bump") for s in done.statements)
