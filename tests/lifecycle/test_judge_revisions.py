"""A lifecycle set is re-derived by the judge's revision its rows name (``memlab.lifecycle-row/N``):
a set made before the judge changed still verifies as it was made, a set under the current revision
is judged by the current judge, and a schema this memlab does not know is named, never guessed."""

import json
import shutil

import pytest
from resultsets import ROOT

from lab.lifecycle.results import ROW_SCHEMA, ROW_SCHEMAS, load_scenarios, rederive, row_key, write_manifest
from lab.lifecycle.verify import verify_lifecycle
from lab.resultset.files import read_json, write_json

SOURCE = ROOT / "results" / "published" / "langgraph-sqlite" / "lifecycle"
KEY = "langgraph-sqlite@live"
#: After deletion-basic's delete, its last query: the deleted value as a lagging index serves it.
RENDERED = "pescatarian plan PX-12\ncashew allergy <em>code</em> AL&#8209;93"


@pytest.fixture
def rs(tmp_path):
    return shutil.copytree(SOURCE, tmp_path / "rs")


def rewrite(root, schema):
    """Every row derived again by the revision ``schema`` names, and the manifest over them."""
    run = read_json(root / "run.json")
    for meta in run["rows"]:
        write_json(root / "rows" / f"{row_key(meta)}.json", rederive(root, meta, run["fail_on"], load_scenarios(root),
                                                                   schema))
    write_manifest(root, run)


def serve_residue(root):
    """deletion-basic's query after the delete served the deleted value highlighted."""
    path = root / "observations" / KEY / "deletion-basic@s0.json"
    obs = json.loads(path.read_text(encoding="utf-8"))
    obs["queries"][-1]["served"]["text"] = RENDERED
    path.write_text(json.dumps(obs), encoding="utf-8")


def residue(root):
    return read_json(root / "rows" / f"{KEY}.json")["checks"]["deletion_residue"]


def test_the_current_revision_is_the_last_and_published_sets_are_under_a_revision_that_counts_them_rightly():
    """Revision 2 counted scope leakage on every row: right where the SUT keeps contexts apart, so those
    sets stand as made; a row kept apart by the driver or a store per context is measured under 3."""
    from lab.profile import load_profiles

    assert ROW_SCHEMAS[ROW_SCHEMA] == max(ROW_SCHEMAS.values())
    isolation = {p.row: p.lifecycle.isolation for p in load_profiles() if p.lifecycle}
    published = sorted((ROOT / "results" / "published").glob("*/lifecycle/rows/*.json"))
    assert published
    for path in published:
        row = read_json(path)
        assert row["schema"] in ("memlab.lifecycle-row/2", ROW_SCHEMA), path
        if isolation.get(row["row"]) != "sut":
            assert row["schema"] == ROW_SCHEMA and row["isolation"] == isolation.get(row["row"]), path
            assert row["checks"]["scope_leakage"]["status"] == "NOT TESTED", path


@pytest.mark.parametrize("isolation, status, why", [
    ("sut", "PASS", None), ("driver", "NOT TESTED", "memlab's driver"),
    ("separate-store", "NOT TESTED", "a store of its own"), (None, "NOT TESTED", "does not say who keeps")])
def test_from_revision_3_scope_leakage_is_counted_only_where_the_sut_keeps_contexts_apart(rs, isolation, status, why):
    run = read_json(rs / "run.json")
    meta = {**next(m for m in run["rows"] if row_key(m) == KEY), "isolation": isolation}
    row = rederive(rs, meta, run["fail_on"], load_scenarios(rs), ROW_SCHEMA)
    scope = row["checks"]["scope_leakage"]
    assert (scope["status"], row["isolation"]) == (status, isolation)
    assert why is None or why in scope["reason"], scope
    legacy = rederive(rs, meta, run["fail_on"], load_scenarios(rs), "memlab.lifecycle-row/2")
    assert legacy["checks"]["scope_leakage"]["status"] == "PASS" and "isolation" not in legacy  # /2 as it was


@pytest.mark.parametrize("schema, status", [("memlab.lifecycle-row/1", "PASS"), ("memlab.lifecycle-row/2", "FAIL")])
def test_a_set_is_judged_and_verified_by_the_revision_its_rows_name(rs, schema, status):
    serve_residue(rs)
    rewrite(rs, schema)
    assert residue(rs)["status"] == status  # revision 1 did not see through the highlight and the entity
    assert verify_lifecycle(rs).ok, [f.detail for f in verify_lifecycle(rs).findings]


def test_a_revision_1_row_relabelled_as_revision_2_no_longer_verifies(rs):
    serve_residue(rs)
    rewrite(rs, "memlab.lifecycle-row/1")
    path = rs / "rows" / f"{KEY}.json"
    row = read_json(path)
    write_json(path, {**row, "schema": "memlab.lifecycle-row/2"})
    write_manifest(rs, read_json(rs / "run.json"))
    grounds = {(f.ground, f.file) for f in verify_lifecycle(rs).findings}
    assert ("row-not-derivable", f"rows/{KEY}.json") in grounds


def test_a_schema_this_memlab_does_not_read_is_named(rs):
    path = rs / "rows" / f"{KEY}.json"
    write_json(path, {**read_json(path), "schema": "memlab.lifecycle-row/99"})
    write_manifest(rs, read_json(rs / "run.json"))
    found = [f for f in verify_lifecycle(rs).findings if f.file == f"rows/{KEY}.json"]
    assert [f.ground for f in found] == ["row-malformed"] and "newer memlab" in found[0].detail
