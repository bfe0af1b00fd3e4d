"""The Docker engine through its command line: the one place that runs ``docker``.

The CLI, not the SDK: it is what a person types, it speaks to old engines
(Debian's 20.10, API 1.41) and drives the legacy builder, and it adds no
dependency. ``MEMLAB_DOCKER`` names another binary. Every container the lab starts
carries the labels ``memlab.run=<run id>`` and ``memlab.cache=<cache key>`` (whose
run registry it belongs to), every image ``memlab.image=<name>``, so ``gc`` finds
them by label.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterable

from lab import safewrite

RUN_LABEL = "memlab.run"
CACHE_LABEL = "memlab.cache"
IMAGE_LABEL = "memlab.image"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class DockerError(RuntimeError):
    """A docker command failed; the message carries the command and the tail of its output."""


def binary() -> str:
    """The docker CLI to run."""
    return os.environ.get("MEMLAB_DOCKER", "docker")


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a docker CLI process: the host's, with the legacy builder unless told otherwise."""
    return {"DOCKER_BUILDKIT": "0", **os.environ, **(extra or {})}


def docker(*args: str, timeout: float = 120, check: bool = True, input: str | None = None,
           ) -> subprocess.CompletedProcess:
    """Run ``docker ARGS`` and return the finished process (text); raise DockerError if ``check``."""
    cmd = [binary(), *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input,
                              env=environment())
    except FileNotFoundError:
        raise DockerError(f"no {cmd[0]!r} command on PATH; install docker.io (see .ci/docker-up)") from None
    except subprocess.TimeoutExpired:
        raise DockerError(f"{' '.join(cmd[:4])} ...: no answer within {timeout:g} s") from None
    if check and done.returncode != 0:
        raise DockerError(f"{' '.join(cmd[:6])} failed (exit {done.returncode}): {done.stderr.strip()[-1500:]}")
    return done


def engine() -> tuple[bool, str]:
    """Whether an engine answers, with its version (or why not)."""
    try:
        done = docker("version", "--format", "{{.Server.Version}}", timeout=10, check=False)
    except DockerError as exc:
        return False, str(exc)
    if done.returncode != 0:
        return False, f"the docker engine does not answer: {done.stderr.strip()[-300:]}"
    return True, f"docker engine {done.stdout.strip()}"


def image_id(ref: str) -> str | None:
    """The id of a local image, or None when it is not here."""
    done = docker("image", "inspect", "--format", "{{.Id}}", ref, check=False, timeout=30)
    return done.stdout.strip() if done.returncode == 0 else None


def image_labels(ref: str) -> dict[str, str]:
    """The labels of a local image."""
    out = docker("image", "inspect", "--format", "{{json .Config.Labels}}", ref, timeout=30).stdout
    return json.loads(out) or {}


def stream(args: list[str], on_line: Callable[[str], None], env: dict[str, str] | None = None,
           stdin: int | None = None) -> tuple[float, list[str]]:
    """Run ``docker ARGS`` feeding each output line to ``on_line``; seconds taken and the output tail.

    Raises DockerError with the tail when the command fails.
    """
    started, tail = time.monotonic(), []
    cmd = [binary(), *args]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=stdin, text=True,
                          env=environment(env)) as proc:
        assert proc.stdout
        for line in proc.stdout:
            line = _ANSI.sub("", line).rstrip()
            tail = (tail + [line])[-40:]
            on_line(line)
        code = proc.wait()
    if code != 0:
        raise DockerError(f"{' '.join(cmd[:3])} failed (exit {code}):\n" + "\n".join(tail))
    return time.monotonic() - started, tail


def init_pid(name: str) -> int:
    """The pid of running container ``name``'s init as this machine sees it; 0 where the engine is in
    another PID namespace (the pid it gives is no ``docker-init`` here) or the container is gone."""
    pid = docker("inspect", "--format", "{{.State.Pid}}", name, timeout=30, check=False).stdout.strip()
    return int(pid) if pid.isdigit() and int(pid) and running(name, int(pid)) else 0


def running(name: str, pid: int) -> bool:
    """Whether container ``name`` still runs: its init ``pid`` here (``docker-init``), else, in another
    PID namespace than the engine's (``pid`` 0), the engine's word."""
    if pid:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"docker-init")
        except OSError:
            return False
    done = docker("inspect", "--format", "{{.State.Running}}", name, timeout=30, check=False)
    return done.stdout.strip() == "true"


def container_stderr(name: str) -> str | None:
    """What a container wrote to its stderr, as the engine's log keeps it (None when it cannot say)."""
    try:
        done = subprocess.run([binary(), "logs", name], capture_output=True, timeout=60, env=environment())
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stderr.decode("utf-8", "replace") if done.returncode == 0 else None


def complete_log(log_path: Path, start: int, engine_log: str | None, container: str) -> None:
    """Add the engine's copy of a container's stderr to the SUT's log (from byte ``start``, where this
    container's part begins) when the client's copy lacks part of it."""
    if not engine_log:
        return
    try:
        with open(log_path, "rb") as fh:
            fh.seek(start)
            copied = fh.read().decode("utf-8", "replace")
    except OSError:
        copied = ""
    if engine_log in copied:
        return
    with safewrite.open_file(log_path) as out:
        out.write(f"\n[memlab: the docker client's copy above is incomplete; the engine's log of "
                  f"{container} follows]\n{engine_log}".encode("utf-8", "backslashreplace"))


def labelled(kind: str, where: dict[str, str], value_of: str = RUN_LABEL) -> list[tuple[str, str]]:
    """(id or name, value of label ``value_of``) of every container/volume/network with the labels ``where``."""
    key = "{{.ID}}" if kind != "volume" else "{{.Name}}"
    fmt = f'{key} {{{{.Label "{value_of}"}}}}'
    args = ["ps", "-a"] if kind == "container" else [kind, "ls"]
    for label, value in where.items():
        args += ["--filter", f"label={label}={value}"]
    out = docker(*args, "--format", fmt, timeout=30).stdout
    return [tuple(line.split(" ", 1)) for line in out.splitlines() if " " in line]  # type: ignore[misc]


def remove(kind: str, ids: Iterable[str]) -> list[str]:
    """Force-remove containers/volumes/networks by id or name; those that were removed."""
    ids = list(ids)
    if not ids:
        return []
    args = {"container": ["rm", "-f", "-v"], "volume": ["volume", "rm", "-f"], "network": ["network", "rm"]}[kind]
    done = docker(*args, *ids, check=False, timeout=60)
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]
