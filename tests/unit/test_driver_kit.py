"""The driver kit's own guarantees, spoken to over stdio as the lab does: stdout hygiene, signals,
error paths, a refused open, SIGTERM. Every test starts real driver processes; no Docker."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from driver_process import REFERENCE, DriverProcess, seed, start

NOISY = """
import os, sys, warnings, importlib.util
import memlab_driver as kit
sys.path.insert(0, {here!r})  # the reference driver's folder, as ``python driver.py`` has it first
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
    script.write_text(NOISY.format(here=str(REFERENCE.parent), ref=str(REFERENCE)))
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
        return {"id": len(self.rows) - 1}
    def read(self, context):
        logging.getLogger("toy").warning("integrity flag raised")
        self.signal("status", "verified=false", field="verified")
        return [{"id": i, "text": t} for i, t in enumerate(self.rows)]

kit.serve(Toy)
"""


@pytest.fixture
def toy(tmp_path):
    """A minimal driver built with the kit, to drive its error paths."""
    script = tmp_path / "toy.py"
    script.write_text(TOY)
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
