"""A row's services on the docker runtime start by ``docker exec`` in one host container per row:
the same server on the same host folder, stopped cleanly by a signal sent inside the host, and the
host gone with the runtime; a data folder outside a row's folder keeps a container of its own."""

import uuid
from pathlib import Path

import pytest

from lab.runtime.docker import DockerRuntime
from lab.runtime.docker_service_hosts import HostedService
from lab.runtime.scratch import scratch_base
from lab.runtime.service_kinds import kind_of
from lab.runtime.service_process import ServiceError, wait_ready
from lab.runtime.service_kinds.postgres import pg_url
from lab.runtime.service_queries import pg_query
from lab.runtime.services import ServiceSpec

from docker_helpers import containers
from lab.runtime.dockercli import docker

pytestmark = pytest.mark.docker

DB = ServiceSpec("db", "postgres", "pgdata")


def _row_folder(run_id: str) -> Path:
    """A row's folder as a run lays it out: ``<scratch base>/<run id>-<suffix>/<row>``."""
    root = scratch_base() / f"{run_id}-x" / "row"
    root.mkdir(parents=True, mode=0o711)
    root.parent.chmod(0o711)
    return root


def _hosts(run_id: str) -> list[str]:
    out = docker("ps", "--filter", f"label=memlab.run={run_id}", "--filter", "label=memlab.role=service-host",
                 "--format", "{{.Names}}").stdout
    return out.split()


def _server_processes(host: str) -> list[str]:
    """The host's processes other than its init and ``sleep`` (``docker top``, seen from the engine)."""
    out = docker("top", host, "-o", "pid,args").stdout.splitlines()[1:]
    return [line for line in out if "sleep infinity" not in line and "docker-init" not in line]


def test_a_rows_starts_share_one_host_and_keep_the_data_across_clean_stops(cache):
    run_id = f"svchost-{uuid.uuid4().hex[:6]}"
    root, runtime = _row_folder(run_id), DockerRuntime()
    try:
        first = runtime.start_service(DB, root / "trial-1" / "pgdata", root / "logs" / "1.log", run_id)
        assert isinstance(first, HostedService)
        assert pg_query(first.url, "SHOW data_directory") == str((root / "trial-1" / "pgdata").resolve())
        pg_query(first.url, "SELECT 1", "CREATE TABLE kept (v text)", "INSERT INTO kept VALUES ('x')")
        second = runtime.start_service(DB, root / "trial-2" / "pgdata", root / "logs" / "2.log", run_id)
        assert len(_hosts(run_id)) == 1, "two starts of one row share one host"
        second.stop()
        first.stop()
        assert "fast shutdown request" in (root / "logs" / "1.log").read_text(), "stopped by SIGINT, inside"
        assert _server_processes(_hosts(run_id)[0]) == []
        again = runtime.start_service(DB, root / "trial-1" / "pgdata", root / "logs" / "3.log", run_id)
        try:
            assert pg_query(again.url, "SELECT v FROM kept") == "x"
            assert "database system was shut down at" in (root / "logs" / "3.log").read_text()
        finally:
            again.stop()
    finally:
        runtime.close()
    assert containers(run_id) == []


def test_a_server_that_does_not_answer_as_ours_is_killed_inside_its_host(cache, monkeypatch):
    run_id = f"svchost-{uuid.uuid4().hex[:6]}"
    root, runtime = _row_folder(run_id), DockerRuntime()
    kind = kind_of("postgres")

    def refuse(proc, port, data, log_path):
        """Wait until the server answers, then find it is not ours (as a server of another folder)."""
        wait_ready(proc, lambda: pg_query(pg_url(port), "SHOW data_directory"), data, log_path, 60)
        raise ServiceError("not ours")

    try:
        monkeypatch.setattr(type(kind), "ready", lambda self, *a: refuse(*a))
        with pytest.raises(ServiceError, match="not ours"):
            runtime.start_service(DB, root / "t" / "pgdata", root / "logs" / "1.log", run_id)
        (host,) = _hosts(run_id)
        assert _server_processes(host) == []
    finally:
        runtime.close()
    assert containers(run_id) == []


def test_a_data_folder_outside_a_rows_folder_gets_a_container_of_its_own(cache, tmp_path):
    run_id = f"svchost-{uuid.uuid4().hex[:6]}"
    tmp_path.chmod(0o711)
    runtime = DockerRuntime()
    try:
        svc = runtime.start_service(DB, tmp_path / "pgdata", tmp_path / "log", run_id)
        try:
            assert not isinstance(svc, HostedService) and svc.container
            assert pg_query(svc.url, "SHOW data_directory") == "/vol/data"
            assert _hosts(run_id) == []
        finally:
            svc.stop()
    finally:
        runtime.close()
