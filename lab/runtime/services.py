"""Backend services a SUT keeps its store in (PostgreSQL, Redis), run as local processes.

A profile declares them::

    services:
      db: {kind: postgres, volume: pgdata}     # the data directory lives in volume pgdata
      cache: {kind: redis, volume: redisdata}
    stack: {kind: redis-stack, volume: redisdata}   # Redis 7.4 with RedisJSON and RediSearch

The service listens on a loopback port the lab picks, keeps all its state in its
volume, and is confirmed to be *our* server (its data directory) before use.
The lab stops it cleanly before any snapshot or digest of the volume. A
container runtime runs the same services from backend images instead.

Example::

    from pathlib import Path
    from lab.runtime.services import ServiceSpec, start_local
    svc = start_local(ServiceSpec("db", "postgres", "pgdata"), Path("/tmp/pgdata"), Path("/tmp/pg.log"))
    print(svc.url)   # postgresql://memlab@127.0.0.1:PORT/memlab
    svc.stop()
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import structlog

from lab import moments, safewrite
from lab.profile.model import SERVICE_KINDS, ServiceSpec
from lab.runtime.service_queries import pg_query, redis_info

log = structlog.get_logger(__name__)

KINDS = SERVICE_KINDS
PG_BIN = Path(os.environ.get("MEMLAB_PG_BIN", "/usr/lib/postgresql/15/bin"))
#: where memlab/redis-stack:7.4 holds Redis Stack's server and modules (``bin/redis-server``, ``lib/*.so``)
IMAGE_REDIS_STACK = Path("/opt/redis-stack")
REDIS_STACK = Path(os.environ.get("MEMLAB_REDIS_STACK", str(IMAGE_REDIS_STACK)))  # the local runtime's
#: Redis service kind -> the modules its server loads (redis: Debian's redis-server on PATH, none)
REDIS_MODULES = {"redis": (), "redis-stack": ("rejson.so", "redisearch.so")}


class ServiceError(RuntimeError):
    """A service could not be started or did not answer as ours; the message says why."""



@dataclass
class RunningService:
    """A started service: how the lab and the SUT reach it, and how to stop it."""

    spec: ServiceSpec
    url: str
    version: str
    proc: subprocess.Popen | None = None
    container: str | None = None

    @property
    def pid(self) -> int | None:
        """The server's process id (the run registry kills it after a crash)."""
        return self.proc.pid if self.proc else None

    def stop(self, timeout: float = 20.0) -> None:
        """Stop cleanly (the data directory is consistent afterwards)."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT if self.spec.kind == "postgres" else signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                if self.container:  # the docker CLI died; its container must not outlive it
                    subprocess.run(["docker", "rm", "-f", self.container], capture_output=True, timeout=60)


def missing_local(spec: ServiceSpec | str) -> str | None:
    """Why the local service ``spec`` (or a service of that kind, with no extensions) cannot run here
    (and how to fix it), or None."""
    kind, extensions = (spec, ()) if isinstance(spec, str) else (spec.kind, spec.extensions)
    if kind == "postgres" and extensions:
        from lab.runtime import pgvector  # here, so ``python -m lab.runtime.pgvector`` runs it unimported

        return pgvector.missing()
    if kind == "postgres" and not (PG_BIN / "postgres").is_file():
        return f"no PostgreSQL server at {PG_BIN} (apt-get install postgresql, or set MEMLAB_PG_BIN)"
    if kind == "redis" and not shutil.which("redis-server"):
        return "no redis-server on PATH (apt-get install redis-server)"
    if kind == "redis-stack":
        return _missing_redis_stack()
    return None


def enabling_command(spec: ServiceSpec) -> str:
    """What makes the local service ``spec`` runnable here, as the user types it (``sudo`` unless root)."""
    from lab.runtime.shell import as_root

    if spec.kind == "redis-stack":
        return "--runtime docker"  # Redis Stack's server needs OpenSSL 1.1, which bookworm has not
    if spec.kind == "postgres" and spec.extensions:
        from lab.runtime import pgvector

        return as_root(pgvector.install_command())
    return as_root(f"apt-get install {'postgresql' if spec.kind == 'postgres' else 'redis-server'}")


def _missing_redis_stack() -> str | None:
    """Why Redis Stack's server cannot run here: absent, or its libraries (OpenSSL 1.1) missing."""
    server = REDIS_STACK / "bin" / "redis-server"
    fix = ("the row runs on the docker runtime (memlab/redis-stack:7.4, built on Debian bullseye), "
           "or set MEMLAB_REDIS_STACK to a redis-stack-server folder whose server runs here")
    if not server.is_file() or not all((REDIS_STACK / "lib" / m).is_file() for m in REDIS_MODULES["redis-stack"]):
        return f"no Redis Stack server with RedisJSON and RediSearch at {REDIS_STACK}: {fix}"
    try:
        done = subprocess.run([str(server), "--version"], capture_output=True, text=True, timeout=30)
    except OSError as exc:
        return f"{server} does not run here ({exc}): {fix}"
    if done.returncode != 0:
        return f"{server} does not run here ({(done.stderr or done.stdout).strip()[:200]}): {fix}"
    return None


def pg_url(port: int) -> str:
    """The lab's URL of a PostgreSQL server on a loopback port."""
    return f"postgresql://memlab@127.0.0.1:{port}/postgres"


def redis_url(port: int) -> str:
    """The lab's URL of a Redis server on a loopback port."""
    return f"redis://127.0.0.1:{port}/0"


#: The ports ``free_port`` handed out last in this process: services started side by side (trials of
#: one row, rows of one run) never get the same one while a server has not bound its port yet. A port
#: handed out thousands of starts ago has long been bound or let go, so the memory is bounded.
_HANDED: deque[int] = deque(maxlen=4096)
_HANDED_LOCK = threading.Lock()


def free_port() -> int:
    """A free TCP port on 127.0.0.1, none of the last ports this process handed out."""
    with _HANDED_LOCK:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            if port not in _HANDED:
                _HANDED.append(port)
                return port


Spawned = Callable[[int], None]


def start_local(spec: ServiceSpec, data: Path, log_path: Path, env: dict[str, str] | None = None,
                on_spawn: Spawned | None = None) -> RunningService:
    """Start ``spec`` as a local process on ``data``; confirm it is ours. ``on_spawn`` is told the
    server's pid as soon as it exists (the run registry records it before the server is probed,
    so a run killed while a server starts leaves nothing ``gc`` cannot find)."""
    why = missing_local(spec)
    if why:
        raise ServiceError(why)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log.debug("service.starting", kind=spec.kind, data=str(data))  # the progress bar shows it (lab.cli.progress)
    starter = _postgres if spec.kind == "postgres" else _redis  # redis and redis-stack
    return starter(spec, Path(data).resolve(), log_path, {**os.environ, **(env or {})}, on_spawn or _ignore)


INITDB_ARGS = ("-U", "memlab", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8")


def postgres_args(data: str, port: int) -> list[str]:
    """The server's arguments (after ``postgres``): our data directory, loopback only."""
    return ["-D", data, "-p", str(port), "-k", "", "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]


def redis_command(kind: str, data: str, port: int, stack: Path = REDIS_STACK) -> list[str]:
    """The server's command line for a Redis ``kind``: AOF on in our directory, loopback only, the
    kind's modules loaded (Redis Stack's server and modules from ``stack``)."""
    modules = REDIS_MODULES[kind]
    program = str(stack / "bin" / "redis-server") if modules else "redis-server"
    loads = [arg for m in modules for arg in ("--loadmodule", str(stack / "lib" / m))]
    return [program, "--port", str(port), "--bind", "127.0.0.1", "--dir", data, "--appendonly", "yes",
            "--appendfsync", "always", "--save", "", "--daemonize", "no", "--protected-mode", "yes", *loads]


def ready(kind: str, proc: subprocess.Popen, port: int, data: str, log_path: Path) -> tuple[str, str]:
    """Wait until the server on ``port`` answers as ours (it reports ``data``); its URL and version."""
    if kind == "postgres":
        url = pg_url(port)
        wait_ready(proc, lambda: pg_query(url, "SHOW data_directory"), data, log_path)
        return url, pg_query(url, "SHOW server_version")
    url = redis_url(port)
    wait_ready(proc, lambda: redis_info(url)[0], data, log_path)
    return url, redis_info(url)[1]


def _postgres_user() -> dict:
    """PostgreSQL refuses to run as root: as root, run it as the ``postgres`` user (signals reach it)."""
    return {"user": "postgres", "group": "postgres", "extra_groups": []} if os.geteuid() == 0 else {}


def spawned(spec: ServiceSpec, proc: subprocess.Popen, on_spawn: Spawned) -> subprocess.Popen:
    """Tell ``on_spawn`` of a just spawned server (then the moment ``service-start``)."""
    on_spawn(proc.pid)
    moments.reach("service-start", spec.name, spec.kind)
    return proc


def _ignore(pid: int) -> None:
    return None


def _postgres(spec: ServiceSpec, data: Path, log_path: Path, env: dict[str, str], on_spawn: Spawned) -> RunningService:
    data.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", "postgres:postgres", str(data)], check=True)
    data.chmod(0o700)
    from lab.runtime import pgvector

    bin_dir = pgvector.bin_dir() if spec.extensions else PG_BIN
    if not (data / "PG_VERSION").exists():
        _checked([str(bin_dir / "initdb"), "-D", str(data), *INITDB_ARGS], env, "initdb", **_postgres_user())
    port = free_port()
    with safewrite.open_file(log_path) as out:
        proc = subprocess.Popen([str(bin_dir / "postgres"), *postgres_args(str(data), port)],
                                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                cwd=data, **_postgres_user())
    spawned(spec, proc, on_spawn)
    url, version = ready("postgres", proc, port, str(data), log_path)
    return RunningService(spec, url, with_extensions(spec, url, version, proc), proc)


def with_extensions(spec: ServiceSpec, url: str, version: str, proc: subprocess.Popen) -> str:
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


def _redis(spec: ServiceSpec, data: Path, log_path: Path, env: dict[str, str], on_spawn: Spawned) -> RunningService:
    data.mkdir(parents=True, exist_ok=True)
    port = free_port()
    with safewrite.open_file(log_path) as out:
        proc = subprocess.Popen(redis_command(spec.kind, str(data), port),
                                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    spawned(spec, proc, on_spawn)
    return RunningService(spec, *ready(spec.kind, proc, port, str(data), log_path), proc)


def wait_ready(proc: subprocess.Popen, probe, expected: str, log_path: Path, seconds: float = 60.0) -> str:
    """Poll ``probe`` until it answers ``expected`` (our data directory), or fail with the log."""
    deadline = time.monotonic() + seconds
    last = ""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServiceError(f"the server exited with code {proc.returncode}: {_tail(log_path)}")
        try:
            answer = probe()
        except (ConnectionError, subprocess.TimeoutExpired, OSError) as exc:
            last = str(exc)
            time.sleep(0.05)
            continue
        if Path(answer).resolve() != Path(expected).resolve():
            proc.kill()
            raise ServiceError(f"the server on that port serves {answer!r}, not our {expected!r}")
        return answer
    proc.kill()
    raise ServiceError(f"the server did not answer within {seconds:g} s ({last}): {_tail(log_path)}")


def _checked(args: list[str], env: dict[str, str], what: str, **user) -> None:
    out = subprocess.run(args, capture_output=True, text=True, env=env, cwd="/", **user)
    if out.returncode != 0:
        raise ServiceError(f"{what} failed (exit {out.returncode}): {out.stderr[-1500:]}")


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
