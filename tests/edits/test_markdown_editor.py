"""MarkdownEditor on a two-file store (memory/A.md, memory/B.md) with headings,
prose and blank lines between the record lines."""

import pytest

from edit_stores import TAMPERED, markdown_store, marker, open_editor, run_case, specs
from edits.layout import parse_layout
from edits.markdown import MarkdownEditor
from edits.model import EditError, EditSpec

CASES = ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"]


def text(vol, ctx):
    return (vol / "memory" / f"{ctx}.md").read_text()


def non_records(body):
    return [line for line in body.split("\n") if not line.startswith("- [")]


@pytest.mark.parametrize("case", CASES)
def test_every_case_changes_exactly_what_it_should(tmp_path, case):
    layout = markdown_store(tmp_path)
    before = {c: text(tmp_path, c) for c in "AB"}
    _, _, applied = run_case(layout, tmp_path, case)
    after = {c: text(tmp_path, c) for c in "AB"}
    edited = "B" if case == "T6" else "A"
    untouched = "A" if edited == "B" else "B"
    assert after[untouched] == before[untouched]
    assert non_records(after[edited]) == non_records(before[edited]), "prose, headings and blanks are kept"
    assert all(s.startswith(f"memory/{edited}.md: ") for s in applied.statements)


def test_records_come_from_matching_lines(tmp_path):
    layout = markdown_store(tmp_path)
    records = open_editor(layout, tmp_path).records()
    a = [r for r in records if r.context == "A"]
    assert [r.identity for r in a] == [("A", i) for i in range(5)]
    assert [r.locator["line"] for r in a] == [4, 5, 7, 8, 9]
    assert a[0].metadata == {"role": "user", "timestamp": "2024-05-02T10:00:01Z"}
    assert a[0].payload.startswith(marker("A", 1))


def test_t5_lands_after_the_last_record_line(tmp_path):
    layout = markdown_store(tmp_path)
    applied = open_editor(layout, tmp_path).apply(specs()["T5"])
    body = text(tmp_path, "A").split("\n")
    assert "f0rg3d" in body[9] and body[10] == "## end" and applied.touched == ["A|5"]


def test_t6_puts_the_donor_line_in_the_victim_place(tmp_path):
    layout = markdown_store(tmp_path)
    donor_line = text(tmp_path, "A").split("\n")[6]
    open_editor(layout, tmp_path).apply(specs()["T6"])
    assert text(tmp_path, "B").split("\n")[6] == donor_line


def test_t8_rewrites_only_the_group(tmp_path):
    layout = markdown_store(tmp_path)
    before = text(tmp_path, "A").split("\n")[6]
    applied = open_editor(layout, tmp_path).apply(EditSpec("T8", "A", marker("A", 3), meta_field="timestamp",
                                                           op="set_meta"))
    after = text(tmp_path, "A").split("\n")[6]
    assert after == before.replace("2024-05-04T10:00:03Z", "2024-05-05T10:00:03Z")
    assert applied.bytes_changed == 1


def test_t8_value_that_breaks_the_pattern_is_refused(tmp_path):
    layout = markdown_store(tmp_path)
    with pytest.raises(EditError, match="does not fit group 'role'"):
        open_editor(layout, tmp_path).apply(EditSpec("T8", "A", marker("A", 3), meta_field="role",
                                                     meta_value="not a word", op="set_meta"))


def test_crlf_and_no_final_newline_survive(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "x.md").write_bytes(b"- mX1-q one\r\n- mX2-q two FACT-X1\r\n- mX3-q three")
    layout = parse_layout({"backend": "markdown", "volume": "v", "file": "notes/{context}.md", "identity": [],
                           "order": "@position", "payload": "text", "record_pattern": r"^- (?P<text>.*)$"})
    editor = MarkdownEditor(layout, tmp_path)
    editor.apply(EditSpec("T4", "x", "mX1-q", second="mX3-q", op="swap"))
    MarkdownEditor(layout, tmp_path).apply(EditSpec("T5", "x", "mX2-q", find="FACT-X1", replace="FACT-X2", op="forge"))
    assert (tmp_path / "notes" / "x.md").read_bytes() == \
        b"- mX3-q three\r\n- mX2-q two FACT-X1\r\n- mX1-q one\r\n- mX2-q two FACT-X2"


def test_pattern_without_the_metadata_group_is_refused(tmp_path):
    layout = parse_layout({"backend": "markdown", "volume": "v", "file": "{context}.md", "identity": [],
                           "order": "@position", "payload": "text", "metadata": {"role": "role"},
                           "record_pattern": r"^- (?P<text>.*)$"})
    with pytest.raises(EditError, match=r"no group\(s\) \['role'\]"):
        MarkdownEditor(layout, tmp_path)


def test_tampered_fact_is_served_from_the_same_slot(tmp_path):
    layout = markdown_store(tmp_path)
    open_editor(layout, tmp_path).apply(specs()["T1"])
    a = [r for r in open_editor(layout, tmp_path).records() if r.context == "A"]
    assert TAMPERED in a[2].payload
