"""Service hosts of the docker runtime: one container of a backend image per row that its services run in.

A row's service is started and stopped many times (seeding, every trial's edit with the SUT
stopped, every restart). Before, each start was a ``docker run`` of the backend image (about 1 s
of the engine's work on this machine under load, against 0.2 s for a ``docker exec`` into a running
container). A :class:`ServiceHost` is that image's container, started once for a row with the
flags a service container gets (host networking, the image's server user, every capability
dropped, no new privileges) and the row's folder (``<run scratch>/<row>``, every trial's copy of
the volumes, nothing of another row) mounted at its host path; each start is the same server
command as before, run with ``docker exec`` on the data folder at its host path, its process id
written inside the container (``/tmp``, never in the data folder) so that the clean stop can be
signalled there: ``docker exec`` does not forward a signal to what it runs. The host runs
``sleep infinity`` under ``--init`` (which reaps every server), carries the run's label from its
creation and is registered with the run, so the run's end, Ctrl-C and ``gc`` remove it; the runtime
removes its hosts when it closes. A data folder outside a row's folder is started as before
(:func:`lab.runtime.docker_services.start_container`).
"""

from __future__ import annotations

import re
import subprocess
import threading
import uuid
from pathlib import Path

from lab import safewrite
from lab.logs import get_logger
from lab.profile.model import ServiceSpec
from lab.runtime.dockercli import binary, docker, environment, init_pid, remove, running
from lab.runtime.housekeeping import track_container
from lab.runtime.service_kinds import kind_of
from lab.runtime.service_process import RunningService, ServiceError, free_port

log = get_logger(__name__)

#: Where a hosted server's process id is kept inside its host (the container's own /tmp).
PIDS = "/tmp/memlab-services"
#: ``docker exec``'s command: note the shell's pid (the server's after ``exec``), then run the server.
_WRAPPER = 'mkdir -p "$0" && echo $$ > "$0/$1.pid" && shift && exec "$@"'
#: The signal's command: the server's pid once the wrapper has written it (up to 5 s), signalled.
_SIGNAL = 'i=0; while [ ! -s "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; kill -s "$0" "$(cat "$1")"'


class HostedService(RunningService):
    """A server started by ``docker exec`` in a row's host: stopped by a signal sent inside the host."""

    host: "ServiceHost"
    port: int = 0

    def stop(self, timeout: float = 20.0) -> None:
        """Signal the server inside its host (``docker exec`` forwards none); wait until it ends."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        sent = self.host.signal(self.port, self.stop_signal)
        try:
            proc.wait(timeout=timeout if sent else 5.0)
        except subprocess.TimeoutExpired:
            self.host.signal(self.port, 9)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class ServiceHost:
    """A running container of ``image`` that sees ``root`` at its host path (see the module)."""

    def __init__(self, image: str, root: Path, run_id: str, flags: list[str]):
        """``flags``: what every service container gets (``lab.runtime.docker_services``)."""
        row = re.sub(r"[^a-zA-Z0-9_.-]", "_", root.name)
        self.name = f"memlab-{run_id}-{row}-svchost-{uuid.uuid4().hex[:8]}"
        docker("run", "-d", "--rm", "--init", "--name", self.name, *flags, "--label", "memlab.role=service-host",
               "--mount", f"type=bind,source={root},target={root}", "--entrypoint", "sleep", image, "infinity",
               timeout=120)
        track_container(run_id, self.name)
        self.init_pid = init_pid(self.name)
        log.debug("service_host.started", container=self.name, image=image, root=str(root))

    def alive(self) -> bool:
        """Whether the host still runs: its init's pid here, else the engine's word."""
        return running(self.name, self.init_pid)

    def start(self, spec: ServiceSpec, data: Path, log_path: Path) -> HostedService:
        """The kind's server on ``data`` (a folder under the root), confirmed to be ours."""
        kind = kind_of(spec.kind)
        port = free_port()
        argv = [binary(), "exec", self.name, "sh", "-c", _WRAPPER, PIDS, str(port),
                *kind.container_command(spec, str(data), port)]
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log.info("service.starting", kind=spec.kind, runtime="docker", port=port, data=str(data), host=self.name)
        with safewrite.open_file(log_path) as out:
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=environment(),
                                    start_new_session=True)
        service = HostedService(spec, "", "", proc, stop_signal=kind.stop_signal)
        service.host, service.port = self, port
        try:
            url, version = kind.ready(proc, port, str(data), log_path)
        except ServiceError:  # the probe killed the exec's client; the server itself may still run in the host
            self.signal(port, 9)
            raise
        service.url, service.version = url, kind.after_start(spec, url, version, proc)
        return service

    def signal(self, port: int, signum: int) -> bool:
        """Send ``signum`` to the server started on ``port``, inside the host; whether it was sent."""
        done = docker("exec", self.name, "sh", "-c", _SIGNAL, str(int(signum)),
                      f"{PIDS}/{port}.pid", timeout=30, check=False)
        return done.returncode == 0

    def close(self) -> None:
        """Remove the host (any server still in it goes with it)."""
        remove("container", [self.name])


class ServiceHosts:
    """The runtime's hosts, one per (backend image, row folder), started at the row's first service."""

    def __init__(self):
        self._hosts: dict[tuple[str, str], ServiceHost] = {}
        self._lock = threading.Lock()

    def host(self, image: str, root: Path, run_id: str, flags: list[str]) -> ServiceHost:
        """The running host for ``(image, root)`` (a row's folder names its run), started (again, if it went)."""
        key = (image, str(root))
        with self._lock:
            host = self._hosts.get(key)
            if host is None or not host.alive():
                host = self._hosts[key] = ServiceHost(image, root, run_id, flags)
            return host

    def close(self) -> None:
        """Remove every host this runtime started."""
        with self._lock:
            hosts, self._hosts = list(self._hosts.values()), {}
        for host in hosts:
            host.close()

