"""Re-measure the published row openclaw-memory-md on the docker runtime (its own image: a Node driver);
fail when a cell, C1/C2 or the installed version differs."""

import pytest

from integrity_rows import check_row

pytestmark = pytest.mark.rows


def test_row_matches_its_published_result_set(tmp_path):
    check_row("openclaw-memory-md", tmp_path, runtime="docker")
