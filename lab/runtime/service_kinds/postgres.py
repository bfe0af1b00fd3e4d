"""PostgreSQL as a local process or a container: Debian's PostgreSQL 15 (``MEMLAB_PG_BIN``, or the backend
image ``memlab/postgres:15``), or, for a service declaring ``extensions: [vector]``, PostgreSQL 18 with
pgvector (:mod:`lab.runtime.pgvector`, image ``memlab/postgres-pgvector:18``). The data folder is the
service's volume, the server listens on loopback only, runs as the ``postgres`` user when the lab is
root, and is stopped with SIGINT (a fast shutdown: the data folder consistent).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from pathlib import Path

from lab import safewrite
from lab.profile.model import ServiceSpec
from lab.runtime.service_kinds.base import ServiceKind
from lab.runtime.service_process import RunningService, ServiceError, Spawned, checked, free_port, spawned, wait_ready
from lab.runtime.service_queries import pg_query

PG_BIN = Path(os.environ.get("MEMLAB_PG_BIN", "/usr/lib/postgresql/15/bin"))
INITDB_ARGS = ("-U", "memlab", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8")


def pg_url(port: int) -> str:
    """The lab's URL of a PostgreSQL server on a loopback port."""
    return f"postgresql://memlab@127.0.0.1:{port}/postgres"


def postgres_args(data: str, port: int) -> list[str]:
    """The server's arguments (after ``postgres``): our data directory, loopback only."""
    return ["-D", data, "-p", str(port), "-k", "", "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]


def _postgres_user() -> dict:
    """PostgreSQL refuses to run as root: as root, run it as the ``postgres`` user (signals reach it)."""
    return {"user": "postgres", "group": "postgres", "extra_groups": []} if os.geteuid() == 0 else {}


class Postgres(ServiceKind):
    """PostgreSQL (with pgvector where the service declares the extension)."""

    name = "postgres"
    stop_signal = signal.SIGINT

    def backend(self, spec: ServiceSpec) -> str:
        return "postgres-pgvector" if "vector" in spec.extensions else self.name

    def missing(self, spec: ServiceSpec) -> str | None:
        if spec.extensions:
            from lab.runtime import pgvector  # here, so ``python -m lab.runtime.pgvector`` runs it unimported

            return pgvector.missing()
        if not (PG_BIN / "postgres").is_file():
            return f"no PostgreSQL server at {PG_BIN} (apt-get install postgresql, or set MEMLAB_PG_BIN)"
        return None

    def enabling_command(self, spec: ServiceSpec) -> str:
        from lab.runtime.shell import as_root

        if spec.extensions:
            from lab.runtime import pgvector

            return as_root(pgvector.install_command())
        return as_root("apt-get install postgresql")

    def start_local(self, spec: ServiceSpec, data: Path, log_path: Path, env: dict[str, str],
                    on_spawn: Spawned) -> RunningService:
        data.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            subprocess.run(["chown", "-R", "postgres:postgres", str(data)], check=True)
        data.chmod(0o700)
        from lab.runtime import pgvector

        bin_dir = pgvector.bin_dir() if spec.extensions else PG_BIN
        if not (data / "PG_VERSION").exists():
            checked([str(bin_dir / "initdb"), "-D", str(data), *INITDB_ARGS], env, "initdb", **_postgres_user())
        port = free_port()
        with safewrite.open_file(log_path) as out:
            proc = subprocess.Popen([str(bin_dir / "postgres"), *postgres_args(str(data), port)],
                                    stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                    cwd=data, **_postgres_user())
        spawned(spec, proc, on_spawn)
        url, version = self.ready(proc, port, str(data), log_path)
        return RunningService(spec, url, self.after_start(spec, url, version, proc), proc,
                              stop_signal=self.stop_signal)

    def container_command(self, spec: ServiceSpec, data: str, port: int) -> list[str]:
        script = (f"test -f {data}/PG_VERSION || initdb -D {data} {shlex.join(INITDB_ARGS)} >&2; "
                  f"exec postgres {shlex.join(postgres_args(data, port))}")
        return ["sh", "-c", script]

    def ready(self, proc: subprocess.Popen, port: int, data: str, log_path: Path) -> tuple[str, str]:
        url = pg_url(port)
        wait_ready(proc, lambda: pg_query(url, "SHOW data_directory"), data, log_path)
        return url, pg_query(url, "SHOW server_version")

    def after_start(self, spec: ServiceSpec, url: str, version: str, proc: subprocess.Popen) -> str:
        """Create the service's declared extensions in its database (a no-op where they exist, e.g. a
        restored copy); the version with each extension's, e.g. ``18.3 vector=0.8.2``. A server that
        cannot create one is stopped and a ServiceError names the extension."""
        for name in spec.extensions:
            try:
                version += f" {name}=" + pg_query(url, f"SELECT extversion FROM pg_extension WHERE extname = '{name}'",
                                                  f"CREATE EXTENSION IF NOT EXISTS {name}")
            except Exception as exc:  # psycopg's errors, ConnectionError: either way this server cannot serve the row
                proc.kill()
                raise ServiceError(f"the server cannot create extension {name!r}: {exc}") from exc
        return version


POSTGRES = Postgres()
