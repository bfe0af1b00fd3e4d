"""Every committed result set verifies: digests, manifest, recount, verdicts re-derived from observations;
every committed lifecycle set (results/published/<row>/lifecycle): digests, signature, every row
re-derived from its saved scenarios and answers; and every committed front-door set
(results/published/<row>/frontdoor): every verdict and figure recomputed from the saved writes and reads."""

from pathlib import Path

import pytest

from lab.frontdoor.rows import read_row
from lab.frontdoor.verify import verify_frontdoor
from lab.lifecycle.verify import verify_lifecycle
from lab.profile import PROFILES_DIR, load_profile
from lab.resultset.files import read_json
from lab.resultset.verify import verify

PUBLISHED = Path(__file__).resolve().parents[2] / "results" / "published"
SETS = sorted(p for p in PUBLISHED.iterdir() if (p / "manifest.json").is_file())
LIFECYCLE_SETS = sorted(p for p in PUBLISHED.glob("*/lifecycle") if (p / "manifest.json").is_file())
FRONTDOOR_SETS = sorted(p for p in PUBLISHED.glob("*/frontdoor") if (p / "manifest.json").is_file())


def test_there_are_published_sets():
    assert len(SETS) >= 10


@pytest.mark.parametrize("path", SETS, ids=[p.name for p in SETS])
def test_published_set_verifies(path):
    result = verify(path)
    assert result.ok, [f"{f.ground} {f.file}: {f.detail}" for f in result.findings][:5]


@pytest.mark.parametrize("path", LIFECYCLE_SETS, ids=[p.parent.name for p in LIFECYCLE_SETS])
def test_published_lifecycle_set_verifies(path):
    result = verify_lifecycle(path)
    assert result.ok, [f"{f.ground} {f.file}: {f.detail}" for f in result.findings][:5]


@pytest.mark.parametrize("path", FRONTDOOR_SETS, ids=[p.parent.name for p in FRONTDOOR_SETS])
def test_published_frontdoor_set_verifies(path):
    result = verify_frontdoor(path)
    assert result.ok, [f"{f.ground} {f.file}: {f.detail}" for f in result.findings][:5]
    positions = {p.stem.rsplit("@", 1)[1] for p in (path / "rows").glob("*.json")}
    assert positions == {"live", "restarted"}, f"{path}: a row's front-door set is measured in both positions"


@pytest.mark.parametrize("path", FRONTDOOR_SETS, ids=[p.parent.name for p in FRONTDOOR_SETS])
def test_published_frontdoor_rows_with_a_store_at_rest_are_proven_stored(path):
    """A row whose profile names where each case's store sits (frontdoor.stored) was read back with its
    SUT stopped, and every attack write its SUT accepted was found there as sent (the front door's C3)."""
    row = path.parent.name
    spec = load_profile(PROFILES_DIR / f"{row}.yaml").frontdoor
    for saved in sorted((path / "rows").glob("*.json")):
        result, _ = read_row(read_json(saved))
        if spec.stored is None:
            assert result.proven() is None, saved.name
            continue
        as_sent, accepted = result.proven() or (0, -1)
        assert accepted > 0 and as_sent == accepted, f"{saved.name}: {as_sent}/{accepted} proven stored"


#: Published rows without a front-door set, each with why (work left, said in docs/front-door.md).
NO_FRONT_DOOR: dict[str, str] = {}  # row -> why it has no front-door set (every row has one today)


def test_every_published_row_has_its_front_door_or_a_reason():
    rows = {p.name for p in PUBLISHED.iterdir() if p.is_dir() and (p / "manifest.json").is_file()}
    doors = {p.parent.name for p in FRONTDOOR_SETS}
    assert rows - doors == set(NO_FRONT_DOOR), "a published row without a front door, or one listed that has it"


def test_the_readme_table_of_front_door_rows_is_the_published_sets():
    """README.md's front-door table is written from the committed sets (scripts/frontdoor_rows_table.py),
    so a set published or measured again without it fails here."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "scripts/frontdoor_rows_table.py", "--check"], cwd=PUBLISHED.parent.parent,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, ("README.md's front-door table is not the published sets': run "
                                  f"python scripts/frontdoor_rows_table.py\n{done.stderr}")


COMPOSE_SETS = sorted(p for p in PUBLISHED.glob("*/compose") if (p / "manifest.json").is_file())
#: Published at-rest rows without a composition, each with why (docs/composition.md, "The published compositions").
NOT_COMPOSED: dict[str, str] = {}
#: Published compositions made again with the lab's default search (pairs of edits, restore moves), each with
#: why: the rows whose head or anchor is kept beside or off the store, where a genuine move may launder a
#: restore. Every other published composition stays as it was composed, one edit per sequence, no restore move.
STRICT: dict[str, str] = {
    "atelya-attest-chain+anchor": "its anchor ledger is off the store",
    "atmem-chain+checkpoint": "its checkpoint file is off the store",
    "continuum-events+attest": "its signed head is off the store",
    "memory-blackbox-md": "its file witness is off the store, and its process holds the last digests it saw",
}


@pytest.mark.parametrize("path", COMPOSE_SETS, ids=[p.parent.name for p in COMPOSE_SETS])
def test_published_composition_verifies(path):
    """Every finding re-derived from the saved trials (and the at-rest trials beside them)."""
    from lab.resultset.composition import load_rows

    result = verify(path)
    assert result.ok, [f"{f.ground} {f.file}: {f.detail}" for f in result.findings][:5]
    rows = load_rows(path)
    assert rows and {r.row for r in rows} == {path.parent.name}
    strict = path.parent.name in STRICT
    assert read_json(path / "run.json")["compose"] == ({"length": 2, "edits": 2, "restores": True} if strict
                                                       else {"length": 2})


ONE_EDIT_SETS = [p for p in COMPOSE_SETS if p.parent.name not in STRICT]
STRICT_SETS = [p for p in COMPOSE_SETS if p.parent.name in STRICT]


def test_the_strict_compositions_are_published_rows():
    assert {p.parent.name for p in STRICT_SETS} == set(STRICT)


@pytest.mark.parametrize("path", ONE_EDIT_SETS, ids=[p.parent.name for p in ONE_EDIT_SETS])
def test_published_compositions_keep_the_restore_cases_left_out_as_written(path):
    """Composed before restore moves: their rows stay /1, and T9 and T10 keep the reason they were written with."""
    from lab.resultset.composition import load_rows

    for row in load_rows(path):
        assert row.to_json()["schema"] == "memlab.compose-row/1" and not row.restores
        left = {s.move: s.reason for s in row.skipped}
        for case in ("T9", "T10"):
            assert case not in row.offered
            assert left[case].startswith("a restore case: its fault is already the SUT's own operation") or \
                left[case].startswith("n/a at rest"), (case, left[case])


@pytest.mark.parametrize("path", STRICT_SETS, ids=[p.parent.name for p in STRICT_SETS])
def test_strict_compositions_offer_the_restore_cases_and_pairs(path):
    """Composed with the defaults: their rows are /3, pairs of edits searched, and T9 and T10 offered as moves
    wherever the row expresses them at rest (never paired), each with its sequences tried."""
    from lab.compose.pairs import NO_RESTORE
    from lab.resultset.composition import load_rows

    for row in load_rows(path):
        assert row.to_json()["schema"] == "memlab.compose-row/3" and row.restores and row.edits == 2
        left = {s.move: s.reason for s in row.skipped}
        tried = {name for s in row.sequences for name in s.sequence}
        assert any(sum(m[:1] == "T" for m in s.sequence) == 2 for s in row.sequences), "no pair of edits tried"
        for case in ("T9", "T10"):
            if case in left:
                assert left[case].startswith("n/a at rest"), (case, left[case])
            else:
                assert case in row.offered and case in tried and left[f"{case} in a pair"] == NO_RESTORE


def test_every_published_row_at_rest_has_its_composition_or_a_reason():
    composed = {p.parent.name for p in COMPOSE_SETS}
    at_rest = {p.name for p in SETS}
    assert at_rest - composed == set(NOT_COMPOSED), "a published row without a composition, or one listed that has it"


def test_every_finding_is_explained_and_the_table_is_the_published_sets():
    """docs/composition.md's table is written from the committed compositions (scripts/compose_rows_table.py),
    and each row with a finding has a section of its own explaining why its sequences land."""
    import re
    import subprocess
    import sys

    from lab.resultset.composition import load_rows

    done = subprocess.run([sys.executable, "scripts/compose_rows_table.py", "--check"], cwd=PUBLISHED.parent.parent,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"docs/composition.md's table is not the published sets': run " \
                                 f"python scripts/compose_rows_table.py\n{done.stderr}"
    doc = (PUBLISHED.parent.parent / "docs" / "composition.md").read_text(encoding="utf-8")
    explained = set(re.findall(r"^### `([^`]+)`", doc, re.M))
    with_findings = {p.parent.name for p in COMPOSE_SETS if any(r.findings for r in load_rows(p))}
    assert with_findings <= explained, f"findings not explained in docs/composition.md: {with_findings - explained}"


def test_every_published_row_is_re_measured_by_a_row_test():
    """Each published at-rest row is named by a test under tests/rows (test_published_rows.ROWS, or a
    module of its own), so CI re-measures it."""
    texts = "\n".join(p.read_text() for p in (PUBLISHED.parent.parent / "tests" / "rows").glob("*.py"))
    assert [p.name for p in SETS if f'"{p.name}"' not in texts] == []
