"""Every committed result set verifies: digests, manifest, recount, verdicts re-derived from observations."""

from pathlib import Path

import pytest

from lab.resultset.verify import verify

PUBLISHED = Path(__file__).resolve().parent.parent / "results" / "published"
SETS = sorted(p for p in PUBLISHED.iterdir() if (p / "manifest.json").is_file())


def test_there_are_published_sets():
    assert len(SETS) >= 10


@pytest.mark.parametrize("path", SETS, ids=[p.name for p in SETS])
def test_published_set_verifies(path):
    result = verify(path)
    assert result.ok, [f"{f.ground} {f.file}: {f.detail}" for f in result.findings][:5]
