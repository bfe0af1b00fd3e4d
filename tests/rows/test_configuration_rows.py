"""Re-measure the published rows that measure a SUT's documented default, or a sidecar's other
placement, beside the row of its stronger use (docs/rows-configurations.md); fail when a cell, a
variant's verdict, C1/C2 or the installed version differs."""

import pytest

from integrity_rows import check_row

pytestmark = pytest.mark.rows

LOCAL = ["acrf-memory-guard-readme-entry", "langgraph-ledger+trace-off", "memory-blackbox-md-default",
         "memory-blackbox-md+restart+ledger-off", "memory-blackbox-md+restart+anchor-off",
         "atelya-attest-chain-verify-only",
         "atelya-attest-chain+anchor-verify-only", "atelya-attest-chain+anchor-beside",
         "continuum-events+attest-beside", "atmem-chain+checkpoint-beside"]


@pytest.mark.parametrize("row", LOCAL)
def test_row_matches_its_published_result_set(row, tmp_path):
    check_row(row, tmp_path)


@pytest.mark.docker
def test_langgraph_redis_served_as_get_state_returns_it(tmp_path):
    check_row("langgraph-redis+serve-unusable", tmp_path, runtime="docker")
