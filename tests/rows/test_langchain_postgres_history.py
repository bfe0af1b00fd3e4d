"""The langchain-postgres-history row (images/langchain-postgres): PostgresChatMessageHistory on the
lab's PostgreSQL service.

The row is re-measured at rest once (``memlab run`` on the local runtime) and compared with its
published set, cell and variant for cell and variant; its edits stayed in the victim's session (the
session_id column the read filters on, kept as the context's scope); the role relabelled in one of
its two places alone is refused by the message class while both places relabelled are served; and
the lifecycle gate, live and restarted, is run once (``--position both``, as published) and each
position compared with ``results/published/langchain-postgres-history/lifecycle/``.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest

from integrity_rows import ROOT, installed_version, published as published_at_rest, remeasure
from integrity_rows import summary as at_rest
from test_lifecycle_rows import assert_matches_published

pytestmark = pytest.mark.rows

ROW = "langchain-postgres-history"
CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10")


def _namespace() -> uuid.UUID:
    """The driver's namespace of uuid5(context), read from its source (no SUT import here)."""
    source = (ROOT / "images" / "langchain-postgres" / "driver.py").read_text()
    return uuid.UUID(re.search(r'^NAMESPACE = uuid\.UUID\("([0-9a-f-]+)"\)', source, re.M).group(1))


@pytest.fixture(scope="module")
def at_rest_run(tmp_path_factory) -> dict:
    """The row re-measured at rest, by detection point (once for the module)."""
    return remeasure(ROW, tmp_path_factory.mktemp(ROW) / "set")


def test_row_matches_its_published_result_set(at_rest_run):
    then, now = published_at_rest(ROW), at_rest_run
    assert set(now) == set(then) == {"read"}  # no audit command: the read point only
    for point, old in then.items():
        assert installed_version(now[point]) == installed_version(old) == str(old["sut"]["version"])
        assert at_rest(now[point]) == at_rest(old), f"{ROW}@{point} differs from results/published/{ROW}"


def test_every_edit_stays_in_the_victims_session(at_rest_run):
    row = at_rest_run["read"]
    assert row["store"]["scope"] == [{"field": "session_id", "path": []}]
    assert row["controls"]["C1"]["ok"] and row["controls"]["C2"]["ok"]
    for case in CASES:
        cell = row["cells"][case]
        assert cell["verdict"] == "ACCEPTED", (case, cell["reason"])
        assert cell["evidence"]["c3"]["ok"], (case, cell["evidence"]["c3"]["reasons"])
    forged = row["cells"]["T5"]["evidence"]
    session = uuid.uuid5(_namespace(), forged["intended"]["context"]).hex
    assert any(s.startswith("INSERT") and f"'{session}'::uuid" in s for s in forged["statements"]), \
        forged["statements"]  # the forged message in the victim's session, the one get_messages reads


def test_the_role_relabelled_in_one_place_alone_is_refused_by_the_message_class(at_rest_run):
    cell = at_rest_run["read"]["cells"]["T8"]
    assert cell["verdict"] == "ACCEPTED"  # both places: a HumanMessage served as an AIMessage
    variants = {v["variant"]: v for v in cell["variants"]}
    assert set(variants) == {"default", "place=message.type", "place=message.data.type"}, sorted(variants)
    assert variants.pop("default")["verdict"] == "ACCEPTED"
    for name, variant in variants.items():
        assert variant["verdict"] == "REJECTED", (name, variant)
        assert "validation error" in json.dumps(variant), (name, variant)  # pydantic's literal check


@pytest.mark.parametrize("position", ["live", "restarted"])
def test_lifecycle_matches_its_published_set(lifecycle, position):
    assert_matches_published(ROW, position, lifecycle[position])
