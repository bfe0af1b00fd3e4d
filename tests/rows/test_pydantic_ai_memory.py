"""The pydantic-ai rows (images/pydantic-ai): the Pydantic AI harness Memory capability, a record one
line of a namespace's MEMORY.md, on SqliteMemoryStore (pydantic-ai-memory: the lines of one
memory_files.content cell, edited by the sqlite-lines editor) and on FileStore
(pydantic-ai-memory-file: the lines of one Markdown file, edited by the markdown editor).

Each row is re-measured at rest once (``integrity_rows.check_row``: cell and variant against its
published set, and the installed harness version); each row's lifecycle gate, live and restarted, is
run once (``--position both``, as published) and each position compared with
``results/published/<row>/lifecycle/``. That the SQLite row's editor reads what the SUT serves is
checked through the driver, in the row's own environment: per context, the lines the sqlite-lines
editor reads from memory_files are the records the capability's snapshot serves -- the same ids
(the driver's SHA-256 of the line), texts and order. Both rows share one SUT environment.
"""

from __future__ import annotations

import hashlib

import pytest

from edits.base import editor_for
from lab.lifecycle.adapters.process import SutProcess
from lab.profile import load_profiles, select
from lab.runtime.housekeeping import RunRegistry, new_run_id
from lab.runtime.local import LocalRuntime
from integrity_rows import raise_failure_and_check_points
from test_lifecycle_rows import assert_matches_published

pytestmark = pytest.mark.rows

SQLITE, FILE = "pydantic-ai-memory", "pydantic-ai-memory-file"
ROWS = (SQLITE, FILE)
EXPRESSIBLE = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T9", "T10")


@pytest.mark.parametrize("row", ROWS)
def test_row_matches_its_published_result_set(at_rest_of, row):
    raise_failure_and_check_points(at_rest_of(row))  # no audit command: the read point only


@pytest.mark.parametrize("row", ROWS)
def test_every_expressible_edit_is_served_as_genuine_and_t8_has_nothing_to_change(at_rest_of, row):
    read = at_rest_of(row)[1]["read"]
    assert read["controls"]["C1"]["ok"] and read["controls"]["C2"]["ok"]
    assert read["controls"]["C3"]["landed"] == list(EXPRESSIBLE)
    for case in EXPRESSIBLE:
        cell = read["cells"][case]
        assert cell["verdict"] == "ACCEPTED", (case, cell["reason"])
    t8 = read["cells"]["T8"]
    assert t8["verdict"] == "n/a" and t8["reason"].startswith("no metadata layer"), t8


@pytest.mark.parametrize("position", ["live", "restarted"])
@pytest.mark.parametrize("row", ROWS)
def test_lifecycle_run_matches_its_published_set(lifecycle_of, row, position):
    assert_matches_published(row, position, lifecycle_of(row)[position])


def test_the_sqlite_lines_editor_reads_exactly_the_lines_the_sut_serves():
    profile = select(load_profiles(), [SQLITE])[0]
    runtime, registry = LocalRuntime(), RunRegistry(new_run_id())
    sut = SutProcess(profile, runtime, registry)
    folded = "s0:acme/s0:alice"  # the lifecycle gate's folded scope: its namespace is '_' and its hex
    writes = [("memlab-a", "my locker is L-5521"), ("memlab-b", "my badge is B-7730"), (folded, "my desk is D-118"),
              ("memlab-a", "the café's code is Ω-42"), ("memlab-b", "my car is red"), ("memlab-a", "tea at four")]
    try:
        sut.start()
        ids = [sut.call("write", context=ctx, text=text, meta={"role": "user"})["record"]["id"] for ctx, text in writes]
        sut.restart()
        erased = sut.call("erase", context="memlab-a", record=ids[3])
        assert erased["ok"] and erased["erased"] == [ids[3]], erased
        sut.restart()
        served = {}
        for ctx in ("memlab-a", "memlab-b", folded):
            answer = sut.call("read", context=ctx)
            assert answer["ok"], answer
            served[ctx] = [(r["id"], r["text"]) for r in answer["records"]]
        assert served == {"memlab-a": [(ids[0], writes[0][1]), (ids[5], writes[5][1])],
                          "memlab-b": [(ids[1], writes[1][1]), (ids[4], writes[4][1])],
                          folded: [(ids[2], writes[2][1])]}
        sut.stop()  # the editor reads a stopped SUT's store, as at rest
        records = editor_for(profile.store, sut.volumes).records()
        read = {}
        for r in records:
            line_id = hashlib.sha256(r.fields["line"].encode()).hexdigest()[:16]  # the driver's id of a line
            read.setdefault(r.context, []).append((line_id, r.payload))
        namespace = "_" + folded.encode().hex()
        assert read == {"memlab-a": served["memlab-a"], "memlab-b": served["memlab-b"], namespace: served[folded]}
        assert [r.order for r in records if r.context == "memlab-a"] == [0, 1]
    finally:
        sut.stop()
        runtime.close()
        registry.close()
