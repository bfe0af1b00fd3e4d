"""Re-measure the published row letta-block-history; fail when a cell, C1/C2 or the installed version differs."""

import pytest

from integrity_rows import check_row

pytestmark = pytest.mark.rows


def test_row_matches_its_published_result_set(tmp_path):
    check_row("letta-block-history", tmp_path)
