"""The pgvector service in a container of memlab/postgres-pgvector:18: ours (it reports /vol/data),
the extension created and named, its data kept in the host folder across a restart, as locally."""

import shutil
import tempfile
from pathlib import Path

import pytest

from lab.runtime.docker_services import start_container
from lab.runtime.service_queries import pg_query
from lab.runtime.services import ServiceSpec

pytestmark = pytest.mark.docker

VECTOR = ServiceSpec("db", "postgres", "pgdata", ("vector",))


def test_the_pgvector_container_serves_vectors_from_the_host_folder_across_restarts(cache):
    root = Path(tempfile.mkdtemp(prefix="memlab-test-pgv-docker-"))
    root.chmod(0o711)
    data = root / "pgdata"
    try:
        first = start_container(VECTOR, data, root / "log", "pgv-test")
        try:
            assert first.version.startswith("18.") and " vector=0." in first.version
            assert pg_query(first.url, "SHOW data_directory") == "/vol/data"
            pg_query(first.url, "SELECT count(*) FROM emb", "CREATE TABLE emb (id int, v vector(2))",
                     "INSERT INTO emb VALUES (1, '[0,1]'), (2, '[5,5]')")
        finally:
            first.stop()
        assert (data / "PG_VERSION").read_text().strip() == "18"  # the cluster lives in the host folder
        again = start_container(VECTOR, data, root / "log", "pgv-test")
        try:
            assert pg_query(again.url, "SELECT id FROM emb ORDER BY v <-> '[4,4]'::vector LIMIT 1") == "2"
        finally:
            again.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
