"""Deriving and verifying a row never copies a trial's saved store: C3's summary is read of its record
(ok, reasons, evidence, files) alone, where the whole record held a second copy of the store before and
after the edit (121 MB at 10,000 records)."""

from pathlib import Path

import pytest

from lab.judge.observation import C3Record
from lab.resultset.verify import verify

PUBLISHED = Path(__file__).resolve().parents[2] / "results" / "published"
SETS = [PUBLISHED / name for name in ("agno-sqlite", "crewai-ltm-lancedb", "hermes-memory-md")]


@pytest.mark.parametrize("path", SETS, ids=[p.name for p in SETS])
def test_a_set_verifies_without_a_copy_of_its_stores(path, monkeypatch):
    whole = C3Record.to_json

    def summary_only(self, only=None):
        assert only is not None and not {"records_before", "records_between", "records_after"} & only
        return whole(self, only)

    monkeypatch.setattr(C3Record, "to_json", summary_only)
    result = verify(path)
    assert result.ok, [f"{f.ground} {f.file}: {f.detail}" for f in result.findings][:5]
