"""A driver's stop does not wait for the interpreter's teardown, and never skips the SUT's own close.

A driver process started as the lab does, stopped by closing its stdin or by SIGTERM: the SUT's
``Driver.close()``, a non-daemon thread it started, its ``atexit`` hooks and a ``logging`` handler's
buffer all still run; what only the teardown would run (a finalizer of an object still alive, a
buffered file the SUT never closed) does not, unless ``MEMLAB_DRIVER_TEARDOWN=1``.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from driver_process import DriverProcess

DRIVER = """
import atexit, logging, os, sys, threading, time
import memlab_driver as kit

OUT = {out!r}


def mark(name):
    with open(os.path.join(OUT, name), "w") as f:
        f.write(name)


class Finalized:
    def __del__(self, path=os.path.join(OUT, "finalized"), open=open):  # what the teardown may have cleared
        with open(path, "w") as f:
            f.write("finalized")


KEPT = Finalized()                                   # alive until the teardown
UNCLOSED = open(os.path.join(OUT, "unclosed"), "w")  # a buffered file the SUT never closes
atexit.register(mark, "atexit")
handler = logging.FileHandler(os.path.join(OUT, "log"), delay=False)
logging.getLogger("sut").addHandler(handler)


class D(kit.Driver):
    def open(self, volumes, config):
        pass

    def write(self, context, text, meta):
        UNCLOSED.write(text)
        logging.getLogger("sut").warning("wrote %s", text)
        threading.Thread(target=lambda: (time.sleep(0.3), mark("thread"))).start()  # not a daemon
        return {{"id": "1"}}

    def close(self):
        time.sleep(float(os.environ.get("SLOW_CLOSE", "0")))
        mark("closed")


if __name__ == "__main__":
    kit.serve(D)
"""


def opened(tmp_path: Path) -> tuple[DriverProcess, Path]:
    """The driver started and opened; the folder it marks what ran in."""
    out = tmp_path / "out"
    out.mkdir()
    script = tmp_path / "driver.py"
    script.write_text(DRIVER.format(out=str(out)))
    drv = DriverProcess(script, tmp_path)
    assert drv("open", volumes={}, config={})["ok"]
    return drv, out


def run_and_stop(tmp_path: Path, how: str) -> tuple[int, dict[str, str]]:
    """Start the driver, write once, stop it ``how`` (stdin closed or SIGTERM); its exit code and marks."""
    drv, out = opened(tmp_path)
    assert drv("write", context="A", text="record-1", meta={})["ok"]
    if how == "sigterm":
        drv.proc.send_signal(signal.SIGTERM)
    code = drv.stop()
    return code, {p.name: p.read_text() for p in out.iterdir()}


@pytest.mark.parametrize("how, code", [("stdin", 0), ("sigterm", 128 + signal.SIGTERM)])
def test_a_stop_runs_the_suts_close_threads_and_exit_hooks_and_skips_the_teardown(tmp_path, monkeypatch, how, code):
    monkeypatch.delenv("MEMLAB_DRIVER_TEARDOWN", raising=False)
    rc, marks = run_and_stop(tmp_path, how)
    assert rc == code
    assert marks["closed"] == "closed" and marks["atexit"] == "atexit" and marks["thread"] == "thread"
    assert "wrote record-1" in marks["log"]        # logging's own exit hook flushed and closed it
    assert "finalized" not in marks                # the teardown did not run
    assert marks["unclosed"] == ""                 # ... so what only it would flush is not written


def test_memlab_driver_teardown_keeps_the_interpreters_teardown(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLAB_DRIVER_TEARDOWN", "1")
    rc, marks = run_and_stop(tmp_path, "stdin")
    assert rc == 0
    assert {"closed", "atexit", "thread", "finalized"} <= set(marks)
    assert marks["unclosed"] == "record-1"


def test_a_sigterm_while_the_sut_closes_does_not_cut_its_close_short(tmp_path, monkeypatch):
    monkeypatch.setenv("SLOW_CLOSE", "1")
    drv, out = opened(tmp_path)
    drv.proc.stdin.close()  # the stop: the SUT's close begins (and takes a second)
    time.sleep(0.4)
    drv.proc.send_signal(signal.SIGTERM)  # the lab's SIGTERM of a process that lingers
    assert drv.proc.wait(timeout=20) == 128 + signal.SIGTERM
    assert (out / "closed").read_text() == "closed"
