"""The driver kit and the reference SUTs, spoken to over stdio exactly as the lab does.

Every test starts real driver processes (``python3 -u driver.py``); no Docker.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lab.profile import load_profiles

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "images" / "reference" / "driver.py"
KIT = ROOT / "images" / "driverkit"
# The rows whose store is files in volumes; the service-backed ones (PostgreSQL, Redis) need a
# server the lab starts, and run end to end in test_engine.py.
PROFILES = {p.row: p for p in load_profiles() if p.driver == "reference" and not p.services}
SEALED = {"storage": "sqlite", "seal": "read", "head": "off-store"}


class DriverProcess:
    """A driver process and the JSON-lines conversation with it."""

    def __init__(self, script: Path, tmp: Path):
        self.log = (tmp / f"stderr-{time.monotonic_ns()}.log").open("wb")
        self.proc = subprocess.Popen([sys.executable, "-u", str(script)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, bufsize=0)
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


@pytest.fixture
def volumes(tmp_path):
    """Fresh folders for every volume a reference row may declare."""
    out = {name: tmp_path / "volumes" / name for name in ("store", "keys", "anchor")}
    for path in out.values():
        path.mkdir(parents=True)
    return out


def start(tmp_path, volumes, config, script=REFERENCE) -> DriverProcess:
    """Start a driver and open it on the volumes; the open must succeed."""
    drv = DriverProcess(script, tmp_path)
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


def integrity_signals(answer: dict) -> list[dict]:
    """The answer's log signals that mention integrity."""
    return [s for s in answer["signals"] if s["channel"] == "log" and "integrity" in s["message"]]


@pytest.mark.parametrize("row", sorted(PROFILES))
def test_every_reference_row_speaks_the_protocol(tmp_path, volumes, row):
    profile = PROFILES[row]
    drv = start(tmp_path, {v: volumes[v] for v in profile.volumes}, profile.configuration)
    described = drv("describe")["result"]
    assert described["sut"] == "memlab-reference" and described["version"] == profile.sut["version"]
    assert set(described["libraries"]) == {"python", "sqlite"}
    # a capability the driver does not report takes its default (sealed: false for these stores)
    assert {"sealed": False, **described["capabilities"]} == profile.capabilities.__dict__
    ids = seed(drv)
    records = drv("read", context="A")["records"]
    assert [r["id"] for r in records] == ids["A"]
    assert [r["text"] for r in records] == [f"A fact {i} FA{i}" for i in range(5)]
    assert all(set(r["meta"]) == {"role", "source", "timestamp"} and r["meta"]["source"] == "chat-A"
               for r in records)
    assert_layout_matches(profile, volumes, count={"A": 5, "B": 5})
    erased = drv("erase", context="A", record=ids["A"][2])
    assert erased["ok"] and erased["erased"] == [ids["A"][2]]
    assert len(drv("read", context="A")["records"]) == 4
    audit = drv("audit", context="A")
    if profile.configuration["seal"] == "none":
        assert not audit["ok"] and audit["refused"] is False
    else:
        assert audit["ok"] and audit["audit"]["ok"] and audit["audit"]["problems"] == []
    whole = drv("erase", context="B", record=None)
    assert whole["ok"] and len(whole["erased"]) == 5
    assert drv("read", context="B")["records"] == []
    assert drv.stop() == 0
    again = start(tmp_path, {v: volumes[v] for v in profile.volumes}, profile.configuration)
    c1 = again("read", context="A")
    assert c1["ok"] and len(c1["records"]) == 4 and c1["signals"] == []
    assert again.stop() == 0


def assert_layout_matches(profile, volumes, count):
    """The store sits where the profile's layout says, with the records it says."""
    layout = profile.store
    root = volumes[layout.volume]
    for ctx, n in count.items():
        if layout.backend == "sqlite":
            with sqlite3.connect(root / layout.file) as db:
                got = db.execute(f"SELECT count(*) FROM {layout.table} WHERE {layout.context} = ?",
                                 (ctx,)).fetchone()[0]
        elif layout.backend == "jsonl":
            rows = [json.loads(line) for line in (root / layout.file).read_text().splitlines()]
            got = sum(1 for r in rows if r[layout.context] == ctx and layout.payload.field in r)
        else:
            text = (root / layout.file.format(context=ctx)).read_text()
            got = sum(1 for line in text.splitlines() if re.match(layout.record_pattern, line))
        assert got == n, (layout.backend, ctx, got)


def test_sealed_store_refuses_a_changed_byte(tmp_path, volumes):
    drv = start(tmp_path, volumes, SEALED)
    seed(drv)
    assert drv.stop() == 0
    with sqlite3.connect(volumes["store"] / "memory.db") as db:  # the adversary, no SUT code loaded
        db.execute("UPDATE records SET body = replace(body, 'FA3', 'FX3') WHERE ctx = 'A' AND seq = 3")
    drv = start(tmp_path, volumes, SEALED)
    answer = drv("read", context="A")
    assert answer["ok"] is False and answer["refused"] is True
    assert answer["error"]["type"] == "IntegrityError"
    assert integrity_signals(answer) and integrity_signals(answer)[0]["level"] == "ERROR"
    untouched = drv("read", context="B")
    assert untouched["ok"] and len(untouched["records"]) == 5 and untouched["signals"] == []
    assert drv.stop() == 0


@pytest.mark.parametrize("head, served", [("off-store", False), ("in-store", True)])
@pytest.mark.parametrize("case", ["T9", "T10"])
def test_whole_store_put_back(tmp_path, volumes, head, served, case):
    config = {**SEALED, "head": head}
    drv = start(tmp_path, volumes, config)
    ids = seed(drv)
    assert drv.stop() == 0
    copy = tmp_path / "copy"
    shutil.copytree(volumes["store"], copy)
    drv = start(tmp_path, volumes, config)
    step = (drv("write", context="A", text="one more", meta={"role": "user"}) if case == "T9"
            else drv("erase", context="A", record=ids["A"][1]))
    assert step["ok"], step
    assert drv.stop() == 0
    shutil.rmtree(volumes["store"])
    shutil.copytree(copy, volumes["store"])
    drv = start(tmp_path, volumes, config)
    answer = drv("read", context="A")
    assert answer["ok"] is served and (served or answer["refused"] is True)
    assert drv.stop() == 0


def test_audit_row_reports_only_after_tamper(tmp_path, volumes):
    config = PROFILES["reference-audit"].configuration
    drv = start(tmp_path, volumes, config)
    seed(drv)
    clean = drv("audit", context="A")
    assert clean["ok"] and clean["audit"] == {"ok": True, "problems": [], "call": clean["audit"]["call"]}
    assert "audit" in clean["audit"]["call"]
    assert drv.stop() == 0
    with sqlite3.connect(volumes["store"] / "memory.db") as db:
        db.execute("UPDATE records SET role = 'system' WHERE ctx = 'A' AND seq = 1")
    drv = start(tmp_path, volumes, config)
    read = drv("read", context="A")
    assert read["ok"] and read["records"][1]["meta"]["role"] == "system" and read["signals"] == []
    found = drv("audit", context="A")
    assert found["ok"] and found["audit"]["ok"] is False and found["audit"]["problems"]
    assert integrity_signals(found)
    assert drv.stop() == 0


NOISY = """
import os, sys, warnings, importlib.util
sys.path.insert(0, {kit!r})
import memlab_driver as kit
print("import-time print")
warnings.warn("startup warning")
spec = importlib.util.spec_from_file_location("reference_driver", {ref!r})
ref = importlib.util.module_from_spec(spec); spec.loader.exec_module(ref)

class Noisy(ref.ReferenceDriver):
    def read(self, context):
        print("print from the SUT")
        sys.stdout.write("no newline")
        os.write(1, b"raw write on fd 1\\n")
        for _ in range(2):  # one location: Python's default filter shows it once per op
            warnings.warn("read warning")
        return super().read(context)

kit.serve(Noisy)
"""


def test_stdout_noise_does_not_corrupt_the_protocol(tmp_path, volumes):
    script = tmp_path / "noisy.py"
    script.write_text(NOISY.format(kit=str(KIT), ref=str(REFERENCE)))
    drv = DriverProcess(script, tmp_path)
    opened = drv("open", volumes={"store": str(volumes["store"])}, config={"storage": "jsonl"})
    assert opened["ok"]
    assert [s["message"] for s in opened["signals"] if s["channel"] == "warning"] == ["startup warning"]
    seed(drv)
    for _ in range(2):  # the same warning is a signal of every op, not only the first
        answer = drv("read", context="A")
        assert answer["ok"] and len(answer["records"]) == 5
        assert [s["message"] for s in answer["signals"] if s["channel"] == "warning"] == ["read warning"]
    assert drv.stop() == 0
    assert b"raw write on fd 1" in Path(drv.log.name).read_bytes()


TOY = """
import logging, sys
sys.path.insert(0, {kit!r})
import memlab_driver as kit

class Toy(kit.Driver):
    def open(self, volumes, config):
        if config.get("refuse"):
            raise PermissionError("store sealed by another key")
        self.rows = []
    def write(self, context, text, meta):
        if text == "boom":
            raise RuntimeError("disk says no")
        self.rows.append(text)
        return {{"id": len(self.rows) - 1}}
    def read(self, context):
        logging.getLogger("toy").warning("integrity flag raised")
        self.signal("status", "verified=false", field="verified")
        return [{{"id": i, "text": t}} for i, t in enumerate(self.rows)]

kit.serve(Toy)
"""


@pytest.fixture
def toy(tmp_path):
    """A minimal driver built with the kit, to drive its error paths."""
    script = tmp_path / "toy.py"
    script.write_text(TOY.format(kit=str(KIT)))
    return script


def test_kit_error_paths(tmp_path, toy):
    drv = DriverProcess(toy, tmp_path)
    early = drv("read", context="A")
    assert early["ok"] is False and early["refused"] is False
    assert drv("open", volumes={}, config={})["ok"]
    unknown = drv("explode")
    assert unknown["ok"] is False and unknown["refused"] is False and unknown["id"] == drv.next_id
    garbage = drv.send_raw(b"{not json")
    assert garbage["id"] is None and garbage["refused"] is False
    assert drv("write", text="no context")["refused"] is False
    assert drv("erase", context="A")["refused"] is False
    unimplemented = drv("audit", context="A")
    assert unimplemented["refused"] is False and unimplemented["error"]["type"] == "Unsupported"
    boom = drv("write", context="A", text="boom")
    assert boom["ok"] is False and boom["refused"] is True
    assert boom["error"] == {"type": "RuntimeError", "message": "disk says no"}
    written = drv("write", context="A", text="fine")
    assert written["record"]["id"] == "0"
    read = drv("read", context="A")
    assert read["records"] == [{"id": "0", "text": "fine", "meta": {}}]
    assert {s["channel"] for s in read["signals"]} == {"log", "status"}
    assert drv.stop() == 0


def test_refused_open_refuses_every_later_op(tmp_path, toy):
    drv = DriverProcess(toy, tmp_path)
    opened = drv("open", volumes={}, config={"refuse": True})
    assert opened["ok"] is False and opened["refused"] is True
    assert opened["error"]["type"] == "PermissionError"
    for op, fields in (("read", {"context": "A"}), ("describe", {}), ("write", {"context": "A", "text": "x"})):
        later = drv(op, **fields)
        assert later["refused"] is True and later["error"] == opened["error"]
    assert drv.stop() == 0


def test_sigterm_ends_the_driver_promptly(tmp_path, volumes):
    drv = start(tmp_path, volumes, {"storage": "sqlite"})
    started = time.monotonic()
    drv.proc.send_signal(signal.SIGTERM)
    drv.proc.wait(timeout=5)
    assert time.monotonic() - started < 2
    drv.proc.stdin.close()
    drv.proc.stdout.close()
    drv.log.close()


def test_reference_driver_rejects_a_config_it_does_not_offer(tmp_path, volumes):
    drv = DriverProcess(REFERENCE, tmp_path)
    answer = drv("open", volumes={k: str(v) for k, v in volumes.items()},
                 config={"storage": "jsonl", "seal": "read", "head": "off-store"})
    assert answer["ok"] is False and answer["refused"] is False and "sealed" in answer["error"]["message"]
    assert drv.stop() == 0

