"""Hostile profiles beyond the fuzz table's one-file edits (issue 14): a folder where some are
invalid (the rest still list and run), an unsafe file name, the cost of hostile YAML, the exit of
``--allow-errors``, and the class only the SUT can show (a table or column it never writes).
"""

from __future__ import annotations

import os
import time
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_profile_fuzz import BASE, BOMB, CASES, DEEP, write

from lab.cli import main
from lab.profile import ProfileError, load_profile, scan_profiles


def test_an_invalid_profile_does_not_stop_the_others(tmp_path):
    for case in (CASES[0], next(c for c in CASES if c.id == "deep-nesting")):
        write(tmp_path / case.id, case).rename(tmp_path / f"{case.id}.yaml")
    (tmp_path / "good.yml").write_text(BASE.replace("row: fuzz", "row: good"))  # .yml is a profile too
    os.mkfifo(tmp_path / "fifo.yaml")  # reading it would block: not a regular file
    profiles, errors = scan_profiles(tmp_path)
    assert [p.row for p in profiles] == ["good"]
    assert sorted(Path(e.path).name for e in errors) == ["deep-nesting.yaml", "fifo.yaml", "version-float.yaml"]
    listed = CliRunner().invoke(main, ["list", "--profiles", str(tmp_path)])
    assert listed.exit_code == 2 and "good" in listed.output and "version-float" in listed.output


def test_an_unsafe_file_name_gets_a_safe_error_row(tmp_path, cache):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "...yaml").write_text(BASE.replace("version: 0.1.0", "version: 0.10"))
    result = CliRunner().invoke(main, ["run", "--sut", "invalid-profile-*", "--runtime", "local", "--no-reports",
                                       "--profiles", str(tmp_path / "p"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert [p.name.startswith("invalid-profile-") for p in (tmp_path / "out" / "rows").iterdir()] == [True]


def test_allow_errors_exits_0_on_an_invalid_profile_and_says_so(tmp_path, cache):
    write(tmp_path / "p", CASES[0])
    result = CliRunner().invoke(main, ["run", "--sut", "fuzz", "--runtime", "local", "--no-reports", "--allow-errors",
                                       "--profiles", str(tmp_path / "p"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0 and "--allow-errors" in result.output, result.output


def test_a_table_or_column_the_sut_does_not_write_is_a_harness_error_and_exit_2(tmp_path, cache):
    """The run-time-only class: the layout names a table or column the SUT never writes. No check
    without the SUT can see it; every trial is a harness error naming it, and the run exits 2."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "table.yaml").write_text(BASE.replace("row: fuzz", "row: fuzz-table")
                                               .replace("table: records", "table: recordz"))
    (tmp_path / "p" / "column.yaml").write_text(BASE.replace("row: fuzz", "row: fuzz-column")
                                                .replace("payload: body", "payload: bodyx"))
    result = CliRunner().invoke(main, ["run", "--sut", "fuzz-*", "--runtime", "local", "--no-reports",
                                       "--profiles", str(tmp_path / "p"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "no table 'recordz'" in result.output and "['bodyx']" in result.output
    assert "fuzz-table@read: harness error in T1, T2, T3" in result.output


@pytest.mark.parametrize("extra", [
    f"deep: {DEEP}\n",
    BOMB.replace("*l0", "lol"),  # 9**9 values once expanded
    "".join(f"m{i}: &m{i} {{a: *m{i - 1}, b: *m{i - 1}}}\n" for i in range(1, 60)).replace("*m0", "x"),
])
def test_hostile_yaml_costs_little_time_and_memory(tmp_path, extra):
    path = tmp_path / "fuzz.yaml"
    path.write_text(BASE + extra)
    tracemalloc.start()
    started = time.monotonic()
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    seconds, (_, peak) = time.monotonic() - started, tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert info.value.field == "(yaml)" and seconds < 5 and peak < 50_000_000, (seconds, peak)


@pytest.mark.parametrize("old,new,field", [
    ("(?P<text>.*)$'", "(?P<text>.*$'", "store.record_pattern"),
    ('file: "memory/{context}.md"', 'file: "../{context}.md"', "store.file"),
    ('file: "memory/{context}.md"', 'file: "/tmp/{context}.md"', "store.file"),
])
def test_a_markdown_layout_compiles_its_pattern_and_keeps_its_files_in_the_volume(tmp_path, old, new, field):
    text = (Path(__file__).resolve().parents[2] / "sut_profiles" / "reference-naive-md.yaml").read_text()
    assert text.count(old) == 1
    (tmp_path / "md.yaml").write_text(text.replace(old, new))
    with pytest.raises(ProfileError) as info:
        load_profile(tmp_path / "md.yaml")
    assert info.value.field == field and info.value.fix, str(info.value)
