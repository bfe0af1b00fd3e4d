"""Profile validation: every error names the file, the line, the field and the fix."""

import pytest
from profile_text import DEMO as GOOD

from lab.profile import ProfileError, load_profile, load_profiles, select


def write(tmp_path, text, name="demo.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_good_profile_loads(tmp_path):
    prof = load_profile(write(tmp_path, GOOD))
    assert prof.row == "demo" and prof.adversary_volumes() == ["store"]
    assert prof.detection_points == ("read",) and prof.capabilities.erasure == "record"


@pytest.mark.parametrize("old,new,field,line", [
    ("capabilities: {erasure: record}\n", "capabilities: {erasure: sometimes}\n", "capabilities.erasure", 15),
    ("  backend: sqlite\n", "  backend: oracle\n", "store.backend", 7),
    ("  store: {adversary: true}\n", "  store: {adversary: maybe}\n", "volumes.store", 5),
    ("driver: reference\n", "driver: nowhere\n", "driver", 3),
    ("row: demo\n", "row: demo\ncolour: blue\n", "colour", 2),
    ("  table: records\n", "", "store.table", 6),
])
def test_errors_name_file_line_field_and_fix(tmp_path, old, new, field, line):
    path = write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    err = info.value
    assert err.field == field and err.line == line and err.fix
    assert str(path) in str(err) and f":{line}:" in str(err) and "fix:" in str(err)


def test_yaml_syntax_error_has_a_line(tmp_path):
    with pytest.raises(ProfileError) as info:
        load_profile(write(tmp_path, GOOD + "notes: [unclosed\n"))
    assert info.value.line is not None and "YAML" in info.value.message


def test_store_volume_must_be_adversary_held(tmp_path):
    text = GOOD.replace("store: {adversary: true}", "store: {adversary: false}")
    with pytest.raises(ProfileError, match="held by the adversary"):
        load_profile(write(tmp_path, text))


def test_unavailable_needs_a_reason(tmp_path):
    with pytest.raises(ProfileError, match="unavailable_reason"):
        load_profile(write(tmp_path, "row: gone\nstatus: unavailable\n"))
    prof = load_profile(write(tmp_path, "row: gone\nstatus: unavailable\nunavailable_reason: not on PyPI\n"))
    assert prof.unavailable_reason == "not on PyPI"


def test_duplicate_rows_are_refused(tmp_path):
    write(tmp_path, GOOD, "a.yaml")
    write(tmp_path, GOOD, "b.yaml")
    with pytest.raises(ProfileError, match="duplicate row"):
        load_profiles(tmp_path)


def test_shipped_profiles_are_valid_and_selectable():
    profiles = load_profiles()
    rows = {p.row for p in profiles}
    assert {"reference-naive", "reference-sealed", "reference-sealed-beside", "reference-audit",
            "reference-naive-jsonl"} <= rows
    assert {p.row for p in select(profiles, ["reference-sealed*"])} == {
        "reference-sealed", "reference-sealed-beside", "reference-sealed-postgres"}
    assert {p.row for p in select(profiles, ["reference-naive", "*-redis"])} == {
        "reference-naive", "reference-naive-redis", "langgraph-redis"}


def test_driver_boundary_limits_reach_the_profile(tmp_path):
    assert load_profile(write(tmp_path, GOOD)).limits == {"line_bytes": 1 << 24, "answer_bytes": 1 << 24}
    prof = load_profile(write(tmp_path, GOOD + "limits: {line_bytes: 65536, answer_bytes: 8192}\n"))
    assert prof.limits == {"line_bytes": 65536, "answer_bytes": 8192}


@pytest.mark.parametrize("limits,field", [
    ("{line_bytes: 100}", "limits.line_bytes"),
    ("{line_bytes: 1099511627776}", "limits.line_bytes"),
    ("{answer_bytes: true}", "limits.answer_bytes"),
    ("{answer_bytes: 65536.5}", "limits.answer_bytes"),
    ("{line_bytes: 10000, answer_bytes: 20000}", "limits"),
    ("{answer: 20000}", "limits.answer"),
])
def test_driver_boundary_limits_are_bytes_in_a_range(tmp_path, limits, field):
    path = write(tmp_path, GOOD + f"limits: {limits}\n")
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    err = info.value
    assert err.field == field and err.line == GOOD.count("\n") + 1 and err.fix, str(err)
    assert str(path) in str(err) and "fix:" in str(err)
