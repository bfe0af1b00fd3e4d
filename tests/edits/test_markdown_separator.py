"""MarkdownEditor with ``record_separator``: a Hermes-shaped store, entries joined by a line ``§``
(``\\n§\\n``, no trailing newline), must stay one separator between every two entries after each edit."""

import pytest

from edit_stores import marker, open_editor, run_case, seed, specs
from edits.layout import parse_layout
from edits.model import EditSpec

CASES = ["T1", "T2", "T3", "T4", "T5", "T6", "T7"]
LAYOUT = {"backend": "markdown", "volume": "store", "file": "profiles/{context}/memories/MEMORY.md",
          "identity": [], "order": "@position", "payload": "text", "record_pattern": "^(?P<text>.+)$"}


def hermes_store(vol, separator="§"):
    """Contexts A and B as Hermes writes MEMORY.md: the entries joined by '\\n§\\n'."""
    for ctx in "AB":
        path = vol / "profiles" / ctx / "memories" / "MEMORY.md"
        path.parent.mkdir(parents=True)
        path.write_text("\n§\n".join(r["text"] for r in seed() if r["ctx"] == ctx), encoding="utf-8")
    return parse_layout({**LAYOUT, "record_separator": separator})


def text(vol, ctx):
    return (vol / "profiles" / ctx / "memories" / "MEMORY.md").read_text(encoding="utf-8")


def well_formed(body):
    """Entries and separators alternate, starting and ending with an entry; no trailing newline."""
    lines = body.split("\n")
    return (not body.endswith("\n") and len(lines) % 2 == 1
            and all((line == "§") == (k % 2 == 1) for k, line in enumerate(lines)))


@pytest.mark.parametrize("case", CASES)
def test_every_case_keeps_one_separator_between_entries(tmp_path, case):
    layout = hermes_store(tmp_path)
    run_case(layout, tmp_path, case)
    for ctx in "AB":
        assert well_formed(text(tmp_path, ctx)), text(tmp_path, ctx)


def test_separators_are_not_records(tmp_path):
    layout = hermes_store(tmp_path)
    a = [r for r in open_editor(layout, tmp_path).records() if r.context == "A"]
    assert [r.locator["line"] for r in a] == [1, 3, 5, 7, 9]
    assert a[0].payload.startswith(marker("A", 1))


def test_deletes_take_the_separator_before_the_entry_else_after(tmp_path):
    layout = hermes_store(tmp_path)
    first = open_editor(layout, tmp_path).apply(EditSpec("T3", "A", marker("A", 1), op="delete"))
    assert [s.split(": ", 1)[1] for s in first.statements] == ["delete line 2: §", f"delete line 1: {seed()[0]['text']}"]
    assert text(tmp_path, "A").startswith(marker("A", 2))
    applied = open_editor(layout, tmp_path).apply(specs()["T2"])
    assert applied.statements[-1].endswith("delete line 6: §")
    assert text(tmp_path, "A").endswith(seed()[6]["text"])


def test_t5_adds_a_separator_before_the_forged_entry(tmp_path):
    layout = hermes_store(tmp_path)
    open_editor(layout, tmp_path).apply(specs()["T5"])
    lines = text(tmp_path, "A").split("\n")
    assert lines[-2] == "§" and "f0rg3d" in lines[-1] and len(lines) == 11


def test_without_a_separator_the_layout_is_unchanged(tmp_path):
    assert "options" not in parse_layout(LAYOUT).to_json()
    assert parse_layout({**LAYOUT, "record_separator": "§"}).to_json()["options"] == {"record_separator": "§"}
