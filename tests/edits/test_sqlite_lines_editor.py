"""SqliteLinesEditor on a hand-made SQLite store shaped as a Markdown notebook per context in one table
(memory_files: path, content, version, ...): rows A/main/MEMORY.md and B/main/MEMORY.md holding the
same lines as the Markdown editor's fixture files, beside rows that are no context. Each case must
leave the cell exactly as the Markdown editor leaves the same text in a file, say so in the same
words, and touch nothing else of the database."""

import shutil
import sqlite3

import pytest

from edit_stores import MD_PATTERN, marker, markdown_store, open_editor, run_case, specs
from edits.layout import LayoutError, parse_layout
from edits.model import EditError, EditSpec

CASES = ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"]
OTHER = ("A/main/notes.md", "- [user] 2024-05-02T10:00:01Z not a record of A\n")
STORE = {"backend": "sqlite-lines", "volume": "store", "file": ".agent-memory.db", "table": "memory_files",
         "context": "path", "context_pattern": "{context}/main/MEMORY.md", "identity": [], "order": "@position",
         "payload": "content", "metadata": {"role": "role", "timestamp": "timestamp"}, "record_pattern": MD_PATTERN}


def build(vol, texts, *, wal=False):
    """The database in ``vol``: one memory_files row per (path, content), version 3 each, and a
    memory_operations table; with ``wal``, the last write still in the -wal sidecar."""
    work = vol / "work"
    work.mkdir()
    db = sqlite3.connect(work / ".agent-memory.db", isolation_level=None)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE memory_files (path TEXT PRIMARY KEY, content TEXT NOT NULL, version INTEGER NOT NULL, "
               "last_operation_id TEXT, write_metadata TEXT)")
    db.execute("CREATE TABLE memory_operations (operation_id TEXT PRIMARY KEY, fingerprint TEXT)")
    db.execute("INSERT INTO memory_operations VALUES ('op-1', 'f1')")
    db.executemany("INSERT INTO memory_files VALUES (?, ?, 3, 'op-1', NULL)", texts)
    for suffix in ("", "-wal"):  # copied while open: a store as a stopped SUT may leave it
        if (work / f".agent-memory.db{suffix}").exists():
            shutil.copy2(work / f".agent-memory.db{suffix}", vol / f".agent-memory.db{suffix}")
    db.close()
    shutil.rmtree(work)
    return parse_layout(STORE)


def twin(tmp_path):
    """The Markdown fixture files and a sqlite-lines store of the same texts: (md layout, md vol, layout, vol)."""
    md_vol, vol = tmp_path / "md", tmp_path / "db"
    md_vol.mkdir(), vol.mkdir()
    md = markdown_store(md_vol)
    texts = [(f"{c}/main/MEMORY.md", (md_vol / "memory" / f"{c}.md").read_text()) for c in "AB"]
    return md, md_vol, build(vol, [*texts, OTHER]), vol


def rows(vol):
    with sqlite3.connect(vol / ".agent-memory.db") as db:
        return {r[0]: r[1:] for r in db.execute("SELECT * FROM memory_files")}


@pytest.mark.parametrize("case", CASES)
def test_every_case_leaves_the_cell_as_the_markdown_editor_leaves_the_file(tmp_path, case):
    md, md_vol, layout, vol = twin(tmp_path)
    before = rows(vol)
    _, _, done = run_case(layout, vol, case)
    _, _, md_done = run_case(md, md_vol, case)
    after = rows(vol)
    edited = "B" if case == "T6" else "A"
    key = f"{edited}/main/MEMORY.md"
    assert after[key][0] == (md_vol / "memory" / f"{edited}.md").read_text()
    assert after[key][1:] == before[key][1:] == (3, "op-1", None), "version and the other columns are kept"
    assert {k: v for k, v in after.items() if k != key} == {k: v for k, v in before.items() if k != key}
    words = [s.replace(f"memory/{edited}.md: ", f"memory_files path='{key}': ") for s in md_done.statements]
    assert done.statements[:-1] == words
    lines = after[key][0].count("\n")
    assert done.statements[-1] == (f'UPDATE "memory_files" SET "content" = <{lines} lines, '
                                   f'{len(after[key][0].encode())} bytes> WHERE "path" = \'{key}\'')
    assert done.backend == "sqlite-lines" and done.touched == md_done.touched


def test_records_are_the_matching_lines_of_the_context_rows_only(tmp_path):
    _, _, layout, vol = twin(tmp_path)
    records = open_editor(layout, vol).records()
    assert sorted({r.context for r in records}) == ["A", "B"]  # A/main/notes.md is no context
    a = [r for r in records if r.context == "A"]
    assert [r.identity for r in a] == [("A", i) for i in range(5)]
    assert [r.locator["line"] for r in a] == [4, 5, 7, 8, 9]
    assert a[0].locator == {"file": ".agent-memory.db", "table": "memory_files", "row": "A/main/MEMORY.md", "line": 4}
    assert a[0].metadata == {"role": "user", "timestamp": "2024-05-02T10:00:01Z"}
    assert a[0].payload.startswith(marker("A", 1))


def test_a_store_with_its_last_writes_in_the_wal_is_read_and_edited(tmp_path):
    layout = build(tmp_path, [("A/main/MEMORY.md", "- [user] t mA1-q one\n- [user] t mA2-q two\n"),
                              ("B/main/MEMORY.md", "- [user] t mB1-q one\n")], wal=True)
    assert (tmp_path / ".agent-memory.db-wal").exists()
    editor = open_editor(layout, tmp_path)
    assert [r.payload for r in editor.records()] == ["mA1-q one", "mA2-q two", "mB1-q one"]
    done = editor.apply(EditSpec("T4", "A", "mA1-q", second="mA2-q", op="swap"))
    assert done.bytes_changed > 0
    assert rows(tmp_path)["A/main/MEMORY.md"][0] == "- [user] t mA2-q two\n- [user] t mA1-q one\n"


def test_a_separator_and_a_missing_final_newline_survive(tmp_path):
    build(tmp_path, [("A/main/MEMORY.md", "- mA1-q one\r\n§\r\n- mA2-q two\r\n§\r\n- mA3-q three")])
    layout = parse_layout({**STORE, "metadata": {}, "record_pattern": r"^- (?P<text>.*)$", "record_separator": "§"})
    open_editor(layout, tmp_path).apply(EditSpec("T3", "A", "mA3-q", op="delete"))
    assert rows(tmp_path)["A/main/MEMORY.md"][0] == "- mA1-q one\r\n§\r\n- mA2-q two"


def test_a_missing_table_or_column_is_named(tmp_path):
    build(tmp_path, [("A/main/MEMORY.md", "- [user] t mA1-q one\n")])
    with pytest.raises(EditError, match=r"\.agent-memory\.db: no table 'notebooks'"):
        open_editor(parse_layout({**STORE, "table": "notebooks"}), tmp_path).records()
    with pytest.raises(EditError, match=r"table 'memory_files' has no column\(s\) \['text'\] named by the layout"):
        open_editor(parse_layout({**STORE, "payload": "text"}), tmp_path).records()


def test_no_row_matching_the_pattern_is_an_error_naming_the_keys_seen(tmp_path):
    build(tmp_path, [OTHER])
    with pytest.raises(EditError, match=r"no row of 'memory_files' whose path matches '\{context\}/main/MEMORY\.md' "
                                        r"\(1 rows; keys 'A/main/notes\.md'\)"):
        open_editor(parse_layout(STORE), tmp_path).apply(specs()["T3"])


@pytest.mark.parametrize("value, kind", [(b"- [user] t mA1-q one\n", "a BLOB"), (None, "NULL"), (7, "a number (7)")])
def test_content_that_is_not_text_is_refused(tmp_path, value, kind):
    build(tmp_path, [("B/main/MEMORY.md", "- [user] t mB1-q one\n")])
    with sqlite3.connect(tmp_path / ".agent-memory.db") as db:
        db.execute("CREATE TABLE loose (path TEXT PRIMARY KEY, content)")
        db.execute("INSERT INTO loose VALUES ('A/main/MEMORY.md', ?)", (value,))
    with pytest.raises(EditError) as err:
        open_editor(parse_layout({**STORE, "table": "loose"}), tmp_path).records()
    assert str(err.value) == (f"loose path='A/main/MEMORY.md': content is {kind}, not text; "
                              "its lines cannot be read as records")


def test_a_database_that_is_not_one_is_an_edit_error(tmp_path):
    (tmp_path / ".agent-memory.db").write_bytes(b"not a database, only bytes" * 10)
    with pytest.raises(EditError, match="sqlite could not read table 'memory_files'"):
        open_editor(parse_layout(STORE), tmp_path).records()


@pytest.mark.parametrize("change, field, message", [
    ({"table": None}, "store.table", "required for the sqlite-lines backend"),
    ({"context_pattern": "MEMORY.md"}, "store.context_pattern", "must hold {context} exactly once"),
    ({"record_pattern": "^- (.*)$"}, "store.record_pattern", "has no (?P<text>...) group"),
    ({"context": None}, "store.context", ""),
])
def test_the_layout_is_checked(change, field, message):
    with pytest.raises(LayoutError) as err:
        parse_layout({**STORE, **change})
    assert err.value.field == field and message in str(err.value)
