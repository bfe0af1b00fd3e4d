"""A row's store dumps stored once (lab.resultset.stored_dumps): what differs is kept, the lists come
back exactly, and a dump that was changed, removed or named wrongly is refused, never read."""

from __future__ import annotations

import hashlib
import json
import os
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.judge.observation import ShapeError
from lab.resultset import files
from lab.resultset.surrogates import ESCAPED
from lab.resultset.stored_dumps import DUMPS, resolved, stored

BEFORE = [{"context": "A" if i < 5 else "B", "order": i % 5, "payload": f"[m{i}] text {i}"} for i in range(10)]


def _saved(folder, after, between=None):
    c3 = {"ok": True, "records_before": BEFORE, "records_after": after,
          **({"records_between": between} if between is not None else {})}
    return json.loads(json.dumps(stored(folder, {"case": "T1", "c3": c3})))  # as a reader gets it from disk


@pytest.mark.parametrize("after", [
    BEFORE[:2] + [{"context": "A", "order": 2, "payload": "[m2] edited"}] + BEFORE[3:],  # one record changed
    BEFORE[:2] + BEFORE[3:],  # one removed
    BEFORE[:5] + [{"context": "A", "order": 5, "payload": "[forged]"}] + BEFORE[5:],  # one added
    [BEFORE[1], BEFORE[0], *BEFORE[2:]],  # two exchanged at the head
    BEFORE,  # nothing changed (a restore)
    [],  # everything gone
    [{"payload": "all new"}],  # nothing shared
])
def test_the_lists_come_back_exactly_and_only_what_differs_is_kept(tmp_path, after):
    saved = _saved(tmp_path, after, between=BEFORE[1:])
    state = saved["c3"]["records_after"]
    assert saved["c3"]["records_before"] == {"dump": state["base"]}
    assert len(state["middle"]) <= max(len(after), 1) and state["head"] + state["tail"] + len(state["middle"]) == len(after)
    back = resolved(tmp_path, saved, "T1.json")["c3"]
    assert (back["records_before"], back["records_after"], back["records_between"]) == (BEFORE, after, BEFORE[1:])


@pytest.mark.parametrize("changed", [1.0, True])
def test_a_record_changed_only_in_its_json_type_is_kept_as_changed(tmp_path, changed):
    """``1``, ``1.0`` and ``true`` are equal in Python, not in the saved store: an edit that changes only a
    value's type comes back as edited, to the byte."""
    after = [BEFORE[0], {**BEFORE[1], "order": changed}, *BEFORE[2:]]
    back = resolved(tmp_path, _saved(tmp_path, after), "T1.json")["c3"]["records_after"]
    assert json.dumps(back) == json.dumps(after)


def test_every_case_of_a_row_refers_to_one_dump(tmp_path):
    for after in (BEFORE[1:], BEFORE[:-1], BEFORE):
        _saved(tmp_path, after)
    assert len(list((tmp_path / DUMPS).iterdir())) == 1


def test_an_observation_with_its_lists_inline_is_read_as_it_is(tmp_path):
    data = {"case": "T1", "c3": {"records_before": BEFORE, "records_after": BEFORE}}
    assert resolved(tmp_path, data, "T1.json") is data


def _dump(folder):
    [path] = (folder / DUMPS).iterdir()
    return path


@pytest.mark.parametrize("spoil,why", [
    (lambda folder, saved: _dump(folder).write_text(_dump(folder).read_text().replace("text 9", "text X")),
     "does not hash to its name"),
    (lambda folder, saved: _dump(folder).unlink(), "is missing"),
    (lambda folder, saved: saved["c3"]["records_before"].update(dump="sha256:../../../etc/passwd"),
     "not a stored dump's name"),
    (lambda folder, saved: saved["c3"]["records_after"].update(head=8, tail=5), "are not two counts"),
    (lambda folder, saved: saved["c3"]["records_after"].update(head=True), "are not two counts"),
    (lambda folder, saved: saved["c3"]["records_after"].update(base="sha256:" + "0" * 64),
     "is not the observation's records_before"),
    (lambda folder, saved: saved["c3"]["records_after"].update(extra=1), "exactly the keys"),
    (lambda folder, saved: saved["c3"]["records_after"].update(middle="x"), "middle is not a list"),
])
def test_a_dump_changed_removed_or_named_wrongly_is_refused(tmp_path, spoil, why):
    saved = _saved(tmp_path, BEFORE[1:])
    spoil(tmp_path, saved)
    with pytest.raises(ShapeError, match=why):
        resolved(tmp_path, saved, "T1.json")


def test_a_dump_that_is_a_link_is_not_followed(tmp_path):
    saved = _saved(tmp_path, BEFORE[1:])
    path = _dump(tmp_path)
    outside = tmp_path / "outside.json"
    os.replace(path, outside)
    path.symlink_to(outside)  # the same bytes, out of the set
    with pytest.raises(ShapeError, match="is missing"):
        resolved(tmp_path, saved, "T1.json")


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(JSON, st.integers(1, 64))
def test_the_pieces_are_the_text_json_text_writes(value, piece):
    with mock.patch.object(files, "PIECE", piece):
        try:
            pieces = list(files.json_pieces(value))
        except files.NotStreamed:
            assert ESCAPED.search(files.json_text(value))  # made whole, as json_text makes it
            return
    assert b"".join(pieces) == files.json_text(value).encode("utf-8", "backslashreplace")
    assert not ESCAPED.search(files.json_text(value))


@pytest.mark.parametrize("records", [BEFORE, BEFORE + [{"payload": "lone \ud800, pair \U0001F600"}]])
def test_a_dump_is_written_as_json_text_writes_it_and_streamed_when_it_can_be(tmp_path, records):
    whole = files.json_text(records).encode("utf-8", "backslashreplace")
    streamable = not ESCAPED.search(whole.decode())
    with mock.patch.object(files, "PIECE", 64), mock.patch(
            "lab.resultset.stored_dumps.json_text", side_effect=AssertionError("the whole text made") if streamable
            else files.json_text):
        saved = stored(tmp_path, {"case": "T1", "c3": {"records_before": records, "records_after": records}})
    path = _dump(tmp_path)
    assert path.read_bytes() == whole and saved["c3"]["records_before"]["dump"] == f"sha256:{path.stem}"
    assert path.stem == hashlib.sha256(whole).hexdigest()
