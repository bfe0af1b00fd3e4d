"""Backend services a SUT keeps its store in (PostgreSQL, Redis), run as local processes.

A profile declares them::

    services:
      db: {kind: postgres, volume: pgdata}     # the data directory lives in volume pgdata
      cache: {kind: redis, volume: redisdata}
    stack: {kind: redis-stack, volume: redisdata}   # Redis 7.4 with RedisJSON and RediSearch

The service listens on a loopback port the lab picks, keeps all its state in its
volume, and is confirmed to be *our* server (its data directory) before use.
The lab stops it cleanly before any snapshot or digest of the volume. A
container runtime runs the same services from backend images instead
(:mod:`lab.runtime.docker_services`). Each kind is a module of :mod:`lab.runtime.service_kinds`;
what every kind shares is :mod:`lab.runtime.service_process`.

Example::

    from pathlib import Path
    from lab.runtime.services import ServiceSpec, start_local
    svc = start_local(ServiceSpec("db", "postgres", "pgdata"), Path("/tmp/pgdata"), Path("/tmp/pg.log"))
    print(svc.url)   # postgresql://memlab@127.0.0.1:PORT/memlab
    svc.stop()
"""

from __future__ import annotations

import os
from pathlib import Path

from lab.logs import get_logger
from lab.profile.model import ServiceSpec
from lab.runtime.service_kinds import kind_of
from lab.runtime.service_process import RunningService, ServiceError, Spawned

__all__ = ["RunningService", "ServiceError", "ServiceSpec", "Spawned", "enabling_command", "missing_local",
           "start_local"]

log = get_logger(__name__)


def missing_local(spec: ServiceSpec | str) -> str | None:
    """Why the local service ``spec`` (or a service of that kind, with no extensions) cannot run here
    (and how to fix it), or None."""
    spec = ServiceSpec("", spec, "") if isinstance(spec, str) else spec
    return kind_of(spec.kind).missing(spec)


def enabling_command(spec: ServiceSpec) -> str:
    """What makes the local service ``spec`` runnable here, as the user types it (``sudo`` unless root)."""
    return kind_of(spec.kind).enabling_command(spec)


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
    return kind_of(spec.kind).start_local(spec, Path(data).resolve(), log_path, {**os.environ, **(env or {})},
                                          on_spawn or _ignore)


def _ignore(pid: int) -> None:
    return None
