"""``memlab compare``: changed cells only where the comparability conditions of docs/method.md match."""

import copy
import json
import shutil

import pytest
from resultsets import ROOT, cache, copy_set, load, make_result_set, memlab, save  # noqa: F401 (cache: a fixture)

from lab.resultset.compare import compare
from lab.judge.row import read_row
from lab.resultset.loading import load_row_records, load_rows


def records(rows):
    """Rows edited as JSON, read by their record as compare reads them."""
    return [read_row(r) for r in rows]


NAIVE_PROFILE = "reference-naive.yaml"


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """A: the profiles as shipped. B: the naive row's configuration says something else (a new feature on)."""
    a = make_result_set(tmp_path_factory, "reference-sealed", "reference-naive", name="a")
    profiles = tmp_path_factory.mktemp("profiles") / "p"
    shutil.copytree(ROOT / "sut_profiles", profiles)
    text = (profiles / NAIVE_PROFILE).read_text()
    assert "  seal: none\n" in text
    (profiles / NAIVE_PROFILE).write_text(text.replace("  seal: none\n", "  seal: none\n  compression: on\n"))
    b = make_result_set(tmp_path_factory, "reference-sealed", "reference-naive", name="b",
                        extra=("--profiles", profiles))
    return a, b


def test_a_configuration_difference_is_side_by_side_not_a_changed_cell(sets):
    a, b = sets
    result = compare(load_row_records(a), load_row_records(b))
    pairs = {p.key: p for p in result.pairs}
    naive = pairs["reference-naive@read"]
    assert not naive.comparable and list(naive.differing) == ["configuration"]
    assert naive.changed == [] and naive.unchanged == 0
    sealed = pairs["reference-sealed@read"]
    assert sealed.comparable and sealed.changed == [] and sealed.unchanged == 10


def test_the_cli_names_the_differing_condition(sets, cache):
    a, b = sets
    proc = memlab("compare", a, b, cache=cache)
    assert proc.returncode == 0, proc.stderr
    assert "reference-naive@read: not comparable, side by side" in proc.stdout
    assert "differs configuration.profile.compression" in proc.stdout
    data = json.loads(memlab("compare", a, b, "--json", cache=cache).stdout)
    naive = next(p for p in data["pairs"] if p["row"] == "reference-naive@read")
    assert naive["comparable"] is False and naive["changed"] == []


def test_a_changed_verdict_in_a_comparable_row_is_a_changed_cell(sets, tmp_path):
    a, _ = sets
    b = copy_set(a, tmp_path / "b")
    row = load(b / "rows/reference-sealed@read.json")
    row["cells"]["T9"]["verdict"] = "ACCEPTED"
    save(b / "rows/reference-sealed@read.json", row)
    pairs = {p.key: p for p in compare(load_row_records(a), load_row_records(b)).pairs}
    assert pairs["reference-sealed@read"].changed == [("T9", "REJECTED", "ACCEPTED")]
    assert pairs["reference-naive@read"].comparable and pairs["reference-naive@read"].changed == []


def test_a_cell_whose_observation_class_differs_is_set_beside(sets):
    a, _ = sets
    rows_a = load_rows(a)
    rows_b = copy.deepcopy(rows_a)
    cell = next(r for r in rows_b if r["row"] == "reference-sealed")["cells"]["T2"]
    cell.update(observation_class="c", verdict="ACCEPTED")
    pair = next(p for p in compare(records(rows_a), records(rows_b)).pairs if p.key == "reference-sealed@read")
    assert pair.changed == [] and [c for c, *_ in pair.beside] == ["T2"]


def test_version_runtime_and_point_differences_are_named(sets):
    a, _ = sets
    rows_a = load_rows(a)
    rows_b = copy.deepcopy(rows_a)
    naive, sealed = (next(r for r in rows_b if r["row"] == n) for n in ("reference-naive", "reference-sealed"))
    naive["sut"]["version"] = "0.2.0"
    naive["runtime"]["runtime"] = "docker"
    sealed["detection_point"] = "audit"
    result = compare(records(rows_a), records(rows_b))
    pairs = {p.key: p for p in result.pairs}
    assert set(pairs["reference-naive@read"].differing) == {"SUT version", "runtime"}
    assert set(pairs["reference-sealed@read | reference-sealed@audit"].differing) == {"detection point"}
    assert result.only_a == result.only_b == []


def test_compare_input_errors_exit_2(sets, cache, tmp_path):
    proc = memlab("compare", sets[0], tmp_path / "missing", cache=cache)
    assert proc.returncode == 2 and "memlab:" in proc.stderr
