"""A hostile SUT for the docker runtime's containment test: never run it outside a memlab container.

``open.config.mode``:

- ``hostile`` (default): on ``open`` it tries to write outside its volumes (the
  image, ``/etc``, the root, a host path named by ``config.host_canary``), to
  raise its privileges, to reach the network (``127.0.0.1:config.port`` only,
  never another address), and fork-bombs; it prints what happened as one
  ``HOSTILE {json}`` line on stderr (the SUT log), then answers a driver fault,
  so its row is an error row while the bomb still runs.
- ``hang``: serves ``open`` and ``describe``, then hangs in ``write`` (a run to kill).

It refuses to do anything unless it runs in a memlab container (``MEMLAB_RUNTIME=docker``
and Docker's init as PID 1).
"""

import json
import os
import socket
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "driverkit"), str(HERE.parents[2] / "images" / "driverkit")]

import memlab_driver as kit  # noqa: E402


def _contained() -> bool:
    try:
        init = Path("/proc/1/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return False
    return os.environ.get("MEMLAB_RUNTIME") == "docker" and init.endswith((b"docker-init", b"tini"))


def _attempt(action) -> str:
    try:
        action()
    except OSError as exc:
        return f"{type(exc).__name__}: {exc.strerror}"
    return "DONE"


def _write(path: str) -> None:
    with open(path, "w") as fh:
        fh.write("hostile\n")


def escape_attempts(volumes: dict, config: dict) -> dict:
    """Writes outside the volumes, privilege changes, and (as controls) writes where it may."""
    canary = config.get("host_canary") or "/nonexistent/canary"
    writes = ["/etc/memlab-hostile", "/memlab-hostile", str(HERE / "memlab-hostile"), canary]  # HERE: its own code
    out = {f"write {p}": _attempt(lambda p=p: _write(p)) for p in writes}
    out[f"mkdir {Path(canary).parent}"] = _attempt(lambda: os.makedirs(Path(canary).parent, exist_ok=True))
    out["setuid 0"] = _attempt(lambda: os.setuid(0))
    out["chown volume to root"] = _attempt(lambda: os.chown(volumes["store"], 0, 0))
    out["docker socket"] = [p for p in ("/var/run/docker.sock", "/run/docker.sock") if os.path.exists(p)]
    out["control: write own volume"] = _attempt(lambda: _write(os.path.join(volumes["store"], "hostile-was-here")))
    out["control: write /tmp"] = _attempt(lambda: _write("/tmp/hostile-was-here"))
    out["uid"] = os.getuid()
    return out


def network_attempts(port: int) -> dict:
    """Connect to 127.0.0.1:port (where the test listens on the host) -- loopback only, on purpose."""
    def connect():
        with socket.create_connection(("127.0.0.1", int(port)), timeout=3):
            pass
    return {"connect 127.0.0.1": _attempt(connect), "interfaces": sorted(os.listdir("/sys/class/net"))}


def fork_bomb(seconds: float = 20.0) -> dict:
    """Fork children that fork for ever, until the kernel refuses (or ``seconds`` pass: on a loaded machine
    the children can fill the container's pids while the driver's own loop is between forks, so it keeps
    forking until its own fork is refused); they are left running."""
    spawned, refused = 0, None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            pid = os.fork()
        except OSError as exc:
            refused = f"{type(exc).__name__}: {exc.strerror}"
            break
        if pid == 0:  # a bomb: fork for ever, never return to the protocol loop
            while True:
                try:
                    os.fork()
                except OSError:
                    time.sleep(0.05)
        spawned += 1
    time.sleep(0.5)
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    return {"spawned by the driver": spawned, "refused": refused, "processes seen": len(pids)}


class HostileDriver(kit.Driver):
    """Tries to break out on open (mode hostile), or hangs in write (mode hang)."""

    def open(self, volumes, config):
        if not _contained():
            raise kit.BadRequest("the hostile test driver runs only inside a memlab container")
        self.mode = config.get("mode", "hostile")
        if self.mode == "hang":
            return
        evidence = {"escape": escape_attempts(volumes, config), "network": network_attempts(config["port"])}
        evidence["fork"] = fork_bomb()
        print("HOSTILE " + json.dumps(evidence), file=sys.stderr, flush=True)
        raise kit.BadRequest("hostile SUT: tried to escape (see HOSTILE in its log)")

    def describe(self):
        return {"sut": "memlab-hostile-test", "version": "0", "libraries": {}, "capabilities": {}}

    def write(self, context, text, meta):
        time.sleep(3600)


if __name__ == "__main__":
    kit.serve(HostileDriver)
