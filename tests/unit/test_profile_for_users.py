"""A profile's ``for_users``: what its published results mean for a user, a line per measurement, typed and
checked like every other field, read by the scripts that write docs/rows.md and docs/rows-lifecycle.md and
never part of a result set."""

import sys
from pathlib import Path

import pytest
from profile_text import DEMO as GOOD

from lab.profile import ProfileError, load_profile, load_profiles
from lab.profile.model import ForUsers

ROOT = Path(__file__).resolve().parents[2]


def load(tmp_path, extra: str):
    path = tmp_path / "demo.yaml"
    path.write_text(GOOD + extra)
    return load_profile(path)


def test_a_line_for_users_of_a_measurement_the_row_takes_is_kept_and_left_out_of_the_result_set(tmp_path):
    prof = load(tmp_path, "for_users:\n  at_rest: >-\n    Every edit is served\n    as genuine.\n")
    assert prof.for_users == ForUsers(at_rest="Every edit is served as genuine.")
    assert "for_users" not in prof.to_json()
    assert load(tmp_path, "").for_users == ForUsers()


@pytest.mark.parametrize("extra, field, words", [
    ("for_users:\n  lifecycle: deletes hold\n", "for_users.lifecycle", "which this row does not take"),
    ("for_users:\n  frontdoor: held\n", "for_users.frontdoor", ""),
    ("for_users:\n  at_rest: 7\n", "for_users.at_rest", ""),
    ("for_users:\n  at_rest: \"a line\\u0007\"\n", "for_users.at_rest", ""),
    ("for_users: a line\n", "for_users", ""),
])
def test_a_line_the_schema_does_not_take_is_refused_with_its_line_and_fix(tmp_path, extra, field, words):
    with pytest.raises(ProfileError) as info:
        load(tmp_path, extra)
    assert info.value.field == field and info.value.line == GOOD.count("\n") + 1 + (field != "for_users")
    assert info.value.fix and words in info.value.message


def _script_rows(name: str) -> tuple[str, ...]:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        return __import__(name).ROWS
    finally:
        sys.path.remove(str(ROOT / "scripts"))


@pytest.mark.parametrize("script, measurement", [("framework_rows_doc", "at_rest"),
                                                 ("lifecycle_rows_doc", "lifecycle")])
def test_the_rows_of_each_page_are_the_rows_with_a_line_for_users(script, measurement):
    """A row of docs/rows.md (docs/rows-lifecycle.md) says what it means for a user; a line no page shows
    is not written."""
    lines = {p.row for p in load_profiles() if getattr(p.for_users, measurement)}
    assert set(_script_rows(script)) == lines
