"""Re-measure each published at-rest row whose check is its published result set alone; fail when a cell,
C1/C2 or the installed version differs. A row with checks of its own has its own module beside this one.

Two rows run on the docker runtime: langgraph-redis (its Redis Stack server links OpenSSL 1.1, which
only the lab's bullseye-based memlab/redis-stack image has here) and openclaw-memory-md (its own image:
a Node driver)."""

import pytest

from integrity_rows import check_row

pytestmark = pytest.mark.rows

#: The rows re-measured on the docker runtime; every other on the local runtime.
ON_DOCKER = ("langgraph-redis", "openclaw-memory-md")
ROWS = ("acrf-memory-guard", "atelya-attest-chain", "atelya-attest-chain+anchor", "atmem-chain",
        "atmem-chain+checkpoint", "continuum-events", "continuum-events+attest", "hermes-memory-md",
        "inspeximus-default", "inspeximus-rcpt+dir", "inspeximus-rcpt+dir+home", "langgraph-ledger",
        "langgraph-postgres", "langgraph-redis", "langgraph-sqlite", "langgraph-sqlite+aes", "letta-block-history",
        "llamaindex-memory-sqlite", "mem0-qdrant-local", "memory-blackbox-md", "memory-blackbox-md+restart",
        "openai-agents-sqlite-session", "openclaw-memory-md")


@pytest.mark.parametrize("row", [pytest.param(r, marks=pytest.mark.docker) if r in ON_DOCKER else r for r in ROWS])
def test_row_matches_its_published_result_set(row, tmp_path):
    check_row(row, tmp_path, runtime="docker" if row in ON_DOCKER else "local")
