"""``memlab compare`` judges "libraries" on the SUT's dependency closure, not the whole environment.

The issue's case: a fresh run of the published langgraph-sqlite set whose environment gained
packages the SUT does not link against (another row's driver shares the folder) is comparable,
with those packages named as not judged; a changed version inside the closure is not, and names
the package. The closure itself is checked on this interpreter's real package metadata.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from resultsets import ROOT, cache, copy_set, edit_row, memlab  # noqa: F401 (cache: a fixture)

from lab.resultset.closure import dependency_closure
from lab.resultset.compare import compare
from lab.judge.row import read_row
from lab.resultset.loading import load_row_records, load_rows
from lab.runtime.prepared import LIST_PACKAGES


def records(rows):
    """Rows edited as JSON, read by their record as compare reads them."""
    return [read_row(r) for r in rows]


PUBLISHED = ROOT / "results" / "published" / "langgraph-sqlite"
ROW = "rows/langgraph-sqlite@read.json"
#: What langgraph-checkpoint-sqlite 3.1.1 and its dependencies declare (Requires-Dist), abridged
#: to the packages of the published environment; sqlalchemy and greenlet stand for what another row's
#: driver may bring into a shared environment (the published one has neither).
REQUIRES = {
    "langgraph-checkpoint-sqlite": ["aiosqlite>=0.20", "langgraph-checkpoint<5,>=3", "sqlite-vec>=0.1.6"],
    "langgraph-checkpoint": ["langchain-core>=0.2.38", "ormsgpack>=1.12.0"],
    "langchain-core": ["jsonpatch<2,>=1.33", "packaging>=23.2", "pydantic<3,>=2.7", "tenacity>=8.1",
                       "typing-extensions>=4.7", "PyYAML>=5.3", "langsmith>=0.3.45"],
    "jsonpatch": ["jsonpointer>=1.9"], "pydantic": ["pydantic-core==2.50.5", "annotated-types>=0.6",
                                                    "email-validator>=2.0.0; extra == 'email'"],
    "aiosqlite": ["typing_extensions>=4.0; python_version < '3.8'"],
    "psycopg": ["psycopg-binary==3.2.10; extra == 'binary'", "typing-extensions>=4.6"],
    "sqlalchemy": ["greenlet>=1", "typing-extensions>=4.6"],
}


def _listed(runtime: dict) -> dict:
    """The runtime as a run that records requirements has it."""
    out = copy.deepcopy(runtime)
    out.setdefault("detail", {})["requires"] = {name: REQUIRES.get(name, []) for name in out["packages"]}
    return out


def _gained_sqlalchemy(row: dict) -> None:
    row["runtime"]["packages"].update({"sqlalchemy": "2.0.40", "greenlet": "3.2.0"})
    row["runtime"] = _listed(row["runtime"])
    row["sut"]["reported"]["libraries"]["sqlalchemy"] = "2.0.40"  # the shared driver reports it too


@pytest.fixture
def fresh(tmp_path):
    """The published set, re-recorded: requirements listed, and two packages more beside the SUT."""
    b = copy_set(PUBLISHED, tmp_path / "fresh")
    edit_row(b, ROW, _gained_sqlalchemy)
    return b


def test_packages_beside_the_sut_are_named_but_not_judged(fresh):
    [pair] = compare(load_row_records(PUBLISHED), load_row_records(fresh)).pairs
    assert pair.comparable, pair.differing
    assert pair.basis.startswith("the dependency closure of langgraph-checkpoint-sqlite")
    assert pair.not_judged == {"sqlalchemy": (None, "2.0.40"), "greenlet": (None, "3.2.0")}
    assert pair.unchanged == 10 and pair.changed == []


def test_a_version_inside_the_closure_makes_the_rows_incomparable(fresh):
    def bump(row):
        row["runtime"]["packages"]["jsonpointer"] = "3.13"  # langchain-core -> jsonpatch -> jsonpointer
    edit_row(fresh, ROW, bump)
    [pair] = compare(load_row_records(PUBLISHED), load_row_records(fresh)).pairs
    assert not pair.comparable and list(pair.differing) == ["libraries"]
    a, b = pair.differing["libraries"]
    assert (a["packages"]["jsonpointer"], b["packages"]["jsonpointer"]) == ("3.12", "3.13")
    assert "sqlalchemy" not in b["packages"]


def test_a_reported_library_that_is_no_package_is_still_judged(fresh):
    edit_row(fresh, ROW, lambda row: row["sut"]["reported"]["libraries"].update(sqlite="3.46.0"))
    [pair] = compare(load_row_records(PUBLISHED), load_row_records(fresh)).pairs
    a, b = pair.differing["libraries"]
    assert (a["sut"]["sqlite"], b["sut"]["sqlite"]) == ("3.40.1", "3.46.0") and "sqlalchemy" not in b["sut"]


def _unrecorded(row: dict) -> None:
    """The row as a run that recorded no requirements has it (sets measured before the lab recorded them)."""
    row["runtime"].get("detail", {}).pop("requires", None)


def test_without_recorded_requirements_the_whole_environment_is_judged_and_said(tmp_path):
    a = copy_set(PUBLISHED, tmp_path / "a")
    edit_row(a, ROW, _unrecorded)
    b = copy_set(a, tmp_path / "b")
    edit_row(b, ROW, lambda row: row["runtime"]["packages"].update({"sqlalchemy": "2.0.40"}))
    [pair] = compare(load_row_records(a), load_row_records(b)).pairs
    assert not pair.comparable and pair.basis.startswith("the whole environment: neither row records")
    assert pair.differing["libraries"][1]["packages"]["sqlalchemy"] == "2.0.40"


def test_stopped_during_edits_is_a_condition(tmp_path):
    rows_a = load_rows(PUBLISHED)
    rows_b = copy.deepcopy(rows_a)
    rows_b[0]["sut_stopped_during_edits"] = False
    [pair] = compare(records(rows_a), records(rows_b)).pairs
    assert list(pair.differing) == ["SUT stopped during edits"]


def test_the_cli_names_the_basis_and_what_it_did_not_judge(fresh, cache):
    proc = memlab("compare", PUBLISHED, fresh, cache=cache)
    assert proc.returncode == 0, proc.stderr
    out = " ".join(proc.stdout.split())
    assert "1 comparable row(s), 0 changed cell(s)" in out
    assert "libraries judged on the dependency closure of langgraph-checkpoint-sqlite" in out
    assert ("not judged (outside the SUT's dependency closure): greenlet absent | 3.2.0, sqlalchemy absent | 2.0.40"
            in out)
    data = json.loads(memlab("compare", PUBLISHED, fresh, "--json", cache=cache).stdout)
    [pair] = data["pairs"]
    assert pair["comparable"] and pair["not_judged"]["greenlet"] == {"a": None, "b": "3.2.0"}


def test_the_closure_follows_real_metadata_markers_and_extras():
    listing = json.loads(subprocess.run([sys.executable, "-I", "-c", LIST_PACKAGES], capture_output=True,
                                        text=True, check=True).stdout)
    runtime = {"python": listing["python"], "packages": listing["packages"],
               "detail": {"requires": listing["requires"]}}
    closure = dependency_closure("httpx", [runtime])
    assert {"httpx", "httpcore", "h11", "anyio", "idna", "certifi"} <= closure
    assert "click" not in closure and "rich" not in closure  # httpx's extra 'cli' was not asked for
    assert "pytest" not in closure and "lancedb" not in closure
    with_extra = dependency_closure("psycopg", [runtime])
    assert "psycopg-binary" not in with_extra  # psycopg alone; psycopg[binary] is the lab's own choice
    assert dependency_closure("agent-memory-lab", [runtime]) >= {"psycopg", "psycopg-binary", "httpx", "h11"}
    assert dependency_closure("no-such-package", [runtime]) is None
    assert dependency_closure("httpx", [{"packages": listing["packages"], "python": listing["python"]}]) is None
