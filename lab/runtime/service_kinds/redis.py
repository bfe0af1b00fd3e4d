"""Redis as a local process or a container: Debian's ``redis-server`` (kind ``redis``), and Redis Stack
7.4 with RedisJSON and RediSearch (kind ``redis-stack``: its server and modules from
``MEMLAB_REDIS_STACK``, or the backend image ``memlab/redis-stack:7.4`` on Debian bullseye, whose
OpenSSL 1.1 bookworm has not). AOF on in the service's own folder, loopback only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from lab import safewrite
from lab.profile.model import ServiceSpec
from lab.runtime.service_kinds.base import ServiceKind
from lab.runtime.service_process import RunningService, Spawned, free_port, spawned, wait_ready
from lab.runtime.service_queries import redis_info

#: where memlab/redis-stack:7.4 holds Redis Stack's server and modules (``bin/redis-server``, ``lib/*.so``)
IMAGE_REDIS_STACK = Path("/opt/redis-stack")
REDIS_STACK = Path(os.environ.get("MEMLAB_REDIS_STACK", str(IMAGE_REDIS_STACK)))  # the local runtime's
#: Redis kind -> the modules its server loads (redis: Debian's redis-server on PATH, none)
REDIS_MODULES = {"redis": (), "redis-stack": ("rejson.so", "redisearch.so")}


def redis_url(port: int) -> str:
    """The lab's URL of a Redis server on a loopback port."""
    return f"redis://127.0.0.1:{port}/0"


def redis_command(kind: str, data: str, port: int, stack: Path | None = None) -> list[str]:
    """The server's command line for a Redis ``kind``: AOF on in our directory, loopback only, the
    kind's modules loaded (Redis Stack's server and modules from ``stack``, the local one by default)."""
    stack = REDIS_STACK if stack is None else stack
    modules = REDIS_MODULES[kind]
    program = str(stack / "bin" / "redis-server") if modules else "redis-server"
    loads = [arg for m in modules for arg in ("--loadmodule", str(stack / "lib" / m))]
    return [program, "--port", str(port), "--bind", "127.0.0.1", "--dir", data, "--appendonly", "yes",
            "--appendfsync", "always", "--save", "", "--daemonize", "no", "--protected-mode", "yes", *loads]


class Redis(ServiceKind):
    """Debian's Redis server."""

    name = "redis"

    def missing(self, spec: ServiceSpec) -> str | None:
        return None if shutil.which("redis-server") else "no redis-server on PATH (apt-get install redis-server)"

    def enabling_command(self, spec: ServiceSpec) -> str:
        from lab.runtime.shell import as_root

        return as_root("apt-get install redis-server")

    def start_local(self, spec: ServiceSpec, data: Path, log_path: Path, env: dict[str, str],
                    on_spawn: Spawned) -> RunningService:
        data.mkdir(parents=True, exist_ok=True)
        port = free_port()
        with safewrite.open_file(log_path) as out:
            proc = subprocess.Popen(redis_command(self.name, str(data), port),
                                    stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        spawned(spec, proc, on_spawn)
        return RunningService(spec, *self.ready(proc, port, str(data), log_path), proc, stop_signal=self.stop_signal)

    def container_command(self, spec: ServiceSpec, data: str, port: int) -> list[str]:
        return redis_command(self.name, data, port, stack=IMAGE_REDIS_STACK)

    def ready(self, proc: subprocess.Popen, port: int, data: str, log_path: Path) -> tuple[str, str]:
        url = redis_url(port)
        wait_ready(proc, lambda: redis_info(url)[0], data, log_path)
        return url, redis_info(url)[1]


class RedisStack(Redis):
    """Redis Stack 7.4: Redis with RedisJSON and RediSearch."""

    name = "redis-stack"

    def missing(self, spec: ServiceSpec) -> str | None:
        """Why Redis Stack's server cannot run here: absent, or its libraries (OpenSSL 1.1) missing."""
        server = REDIS_STACK / "bin" / "redis-server"
        fix = ("the row runs on the docker runtime (memlab/redis-stack:7.4, built on Debian bullseye), "
               "or set MEMLAB_REDIS_STACK to a redis-stack-server folder whose server runs here")
        if not server.is_file() or not all((REDIS_STACK / "lib" / m).is_file() for m in REDIS_MODULES[self.name]):
            return f"no Redis Stack server with RedisJSON and RediSearch at {REDIS_STACK}: {fix}"
        try:
            done = subprocess.run([str(server), "--version"], capture_output=True, text=True, timeout=30)
        except OSError as exc:
            return f"{server} does not run here ({exc}): {fix}"
        if done.returncode != 0:
            return f"{server} does not run here ({(done.stderr or done.stdout).strip()[:200]}): {fix}"
        return None

    def enabling_command(self, spec: ServiceSpec) -> str:
        return "--runtime docker"  # Redis Stack's server needs OpenSSL 1.1, which bookworm has not


REDIS, REDIS_STACK_KIND = Redis(), RedisStack()
