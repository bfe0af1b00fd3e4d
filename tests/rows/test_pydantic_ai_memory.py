"""The pydantic-ai rows (images/pydantic-ai): the Pydantic AI harness Memory capability, a record one
line of a namespace's MEMORY.md, on SqliteMemoryStore (pydantic-ai-memory, lifecycle only) and on
FileStore (pydantic-ai-memory-file, at rest and lifecycle).

The file row is re-measured at rest once (``integrity_rows.check_row``: cell and variant against its
published set, and the installed harness version); each row's lifecycle gate, live and restarted, is
run once (``--position both``, as published) and each position compared with
``results/published/<row>/lifecycle/``. The SQLite row takes no at-rest measurement; the reason is
checked here: through the driver, in the row's own environment, a context's lines are one
``content`` value of one memory_files row whose ``path`` only starts with the namespace, so the lab's
sqlite editor, given the table as it is, sees one record per file, not one per line. Both rows share
one SUT environment.
"""

from __future__ import annotations

import pytest

from edits.layout import parse_layout
from edits.sqlite import SqliteEditor
from integrity_rows import at_rest_once
from lab.lifecycle.adapters.process import SutProcess
from lab.profile import load_profiles, select
from lab.runtime.housekeeping import RunRegistry, new_run_id
from lab.runtime.local import LocalRuntime
from test_lifecycle_rows import installed, published, summary

pytestmark = pytest.mark.rows

SQLITE, FILE = "pydantic-ai-memory", "pydantic-ai-memory-file"
ROWS = (SQLITE, FILE)
EXPRESSIBLE = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T9", "T10")


@pytest.fixture(scope="module")
def at_rest(tmp_path_factory):
    """The file row re-measured at rest once: (the comparison's failure or None, the new rows by point)."""
    return at_rest_once(FILE, tmp_path_factory.mktemp(FILE) / "set")


def test_file_row_matches_its_published_result_set(at_rest):
    failure, rows = at_rest
    if failure is not None:
        raise failure
    assert set(rows) == {"read"}  # no audit command: the read point only


def test_every_expressible_edit_is_served_as_genuine_and_t8_has_nothing_to_change(at_rest):
    read = at_rest[1]["read"]
    assert read["controls"]["C1"]["ok"] and read["controls"]["C2"]["ok"]
    for case in EXPRESSIBLE:
        cell = read["cells"][case]
        assert cell["verdict"] == "ACCEPTED", (case, cell["reason"])
    t8 = read["cells"]["T8"]
    assert t8["verdict"] == "n/a" and t8["reason"].startswith("no metadata layer"), t8


@pytest.mark.parametrize("position", ["live", "restarted"])
@pytest.mark.parametrize("row", ROWS)
def test_lifecycle_run_matches_its_published_set(lifecycle_of, row, position):
    then, now = published(row, position), lifecycle_of(row)[position]
    assert installed(now) == installed(then) == str(then["sut"]["version"]), (installed(now), installed(then))
    assert summary(now) == summary(then), f"{row}@{position} differs from results/published/{row}/lifecycle"


def test_sqlite_store_keeps_a_namespace_lines_in_one_row_out_of_the_sqlite_editors_reach():
    profile = select(load_profiles(), [SQLITE])[0]
    runtime, registry = LocalRuntime(), RunRegistry(new_run_id())
    sut = SutProcess(profile, runtime, registry)
    context = "s0:acme/s0:alice"  # the lifecycle gate's folded scope: not a namespace as it is
    lines = ("my locker is L-5521", "my badge is B-7730", "my desk is D-118")
    try:
        sut.start()
        ids = [sut.call("write", context=context, text=text, meta={"role": "user"})["record"]["id"] for text in lines]
        sut.restart()
        erased = sut.call("erase", context=context, record=ids[1])
        assert erased["ok"] and erased["erased"] == [ids[1]], erased
        sut.restart()
        answer = sut.call("read", context=context)
        assert answer["ok"], answer
        assert [(r["id"], r["text"]) for r in answer["records"]] == [(ids[0], lines[0]), (ids[2], lines[2])]
        layout = parse_layout({"backend": "sqlite", "volume": "store", "file": ".agent-memory.db",
                               "table": "memory_files", "context": "path", "identity": ["path"], "order": "version",
                               "payload": "content"})
        [record] = SqliteEditor(layout, sut.volumes["store"]).records()
        assert record.context == "_" + context.encode().hex() + "/main/MEMORY.md"  # the path, not the context
        assert record.payload == f"- {lines[0]}\n- {lines[2]}\n"  # every line of the context in one record
    finally:
        sut.stop()
        runtime.close()
        registry.close()
