"""Re-measure the published row langgraph-redis on the docker runtime (its Redis Stack server links
OpenSSL 1.1, which only the lab's bullseye-based memlab/redis-stack image has here); fail when a
cell, C1/C2 or the installed version differs."""

import pytest

from integrity_rows import check_row

pytestmark = [pytest.mark.rows, pytest.mark.docker]


def test_row_matches_its_published_result_set(tmp_path):
    check_row("langgraph-redis", tmp_path, runtime="docker")
