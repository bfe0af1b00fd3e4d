"""A driver process spoken to over stdio exactly as the lab does (JSON lines), for the tests of
the driver kit and the reference SUTs."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "images" / "reference" / "driver.py"
KIT = ROOT / "images" / "driverkit"


class DriverProcess:
    """A driver process and the JSON-lines conversation with it."""

    def __init__(self, script: Path, tmp: Path, python: str = sys.executable):
        self.log = (tmp / f"stderr-{time.monotonic_ns()}.log").open("wb")
        env = {**os.environ, "PYTHONPATH": str(KIT)}  # the kit reaches a driver as the lab hands it: on PYTHONPATH
        self.proc = subprocess.Popen([python, "-u", str(script)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, bufsize=0, env=env)
        self.buffer = b""
        self.next_id = 0

    def line(self, timeout: float = 20.0) -> bytes:
        """The next line the driver wrote on stdout."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            assert left > 0, "driver did not answer in time"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"driver closed stdout (rc={self.proc.poll()})"
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def send_raw(self, raw: bytes) -> dict:
        """Send one raw line; return the answer, checked to be one JSON object with id and ok."""
        self.proc.stdin.write(raw + b"\n")
        answer = json.loads(self.line())
        assert isinstance(answer, dict) and {"id", "ok", "signals"} <= set(answer), answer
        assert isinstance(answer["signals"], list)
        if not answer["ok"]:
            assert isinstance(answer["refused"], bool) and {"type", "message"} <= set(answer["error"])
        return answer

    def __call__(self, op: str, **fields) -> dict:
        """Send one request; return its answer (with the id echoed)."""
        self.next_id += 1
        answer = self.send_raw(json.dumps({"id": self.next_id, "op": op, **fields}).encode())
        assert answer["id"] == self.next_id
        return answer

    def stop(self, timeout: float = 10.0) -> int:
        """Close stdin, as the lab does to stop the SUT; return the exit code."""
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=timeout)
        self.proc.stdout.close()
        self.log.close()
        return rc


def start(tmp_path, volumes, config, script=REFERENCE, python: str = sys.executable) -> DriverProcess:
    """Start a driver (under ``python``) and open it on the volumes; the open must succeed."""
    drv = DriverProcess(script, tmp_path, python)
    answer = drv("open", volumes={k: str(v) for k, v in volumes.items()}, config=config)
    assert answer["ok"], answer
    return drv


def seed(drv: DriverProcess) -> dict[str, list[str]]:
    """Five records in each of contexts A and B, interleaved; return their ids."""
    ids: dict[str, list[str]] = {"A": [], "B": []}
    for i in range(5):
        for ctx in ("A", "B"):
            answer = drv("write", context=ctx, text=f"{ctx} fact {i} F{ctx}{i}",
                         meta={"role": "user" if i % 2 else "assistant", "source": f"chat-{ctx}"})
            assert answer["ok"], answer
            assert isinstance(answer["record"]["id"], str)
            ids[ctx].append(answer["record"]["id"])
    return ids
