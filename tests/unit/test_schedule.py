"""The run's workers (lab.method.schedule) and the service ports trials started side by side get."""

from __future__ import annotations

import threading
import time
from collections import deque

import pytest

from lab.method.schedule import Workers
from lab.runtime import service_process


def test_tasks_are_taken_lowest_priority_first_and_may_queue_more():
    pool, order, gate = Workers(jobs=1), [], threading.Event()
    pool.submit((0, 0), gate.wait)  # holds the only worker while the rest is queued
    pool.submit((2, 0), lambda: order.append("row 2 seed"))
    pool.submit((0, 1), lambda: (order.append("row 0 trial 1"),
                                 pool.submit((0, 2), lambda: order.append("row 0 trial 2"))))
    gate.set()
    pool.wait()
    pool.cancel()
    assert order == ["row 0 trial 1", "row 0 trial 2", "row 2 seed"]


def test_jobs_tasks_run_at_once_and_no_more():
    pool, lock, up, most = Workers(jobs=3), threading.Lock(), [0], [0]

    def task():
        with lock:
            up[0] += 1
            most[0] = max(most[0], up[0])
        time.sleep(0.05)
        with lock:
            up[0] -= 1

    for i in range(12):
        pool.submit((0, i), task)
    pool.wait()
    pool.cancel()
    assert most[0] == 3


def test_a_crashed_task_is_raised_by_wait_and_drops_what_is_queued():
    pool, ran = Workers(jobs=1), []
    pool.submit((0, 0), lambda: 1 / 0)
    pool.submit((0, 1), lambda: ran.append("after"))
    with pytest.raises(ZeroDivisionError):
        pool.wait()
    assert ran == [] and pool.submit((0, 2), lambda: None) is False


def test_cancel_drops_the_queue_and_refuses_new_tasks():
    pool, gate, ran = Workers(jobs=1), threading.Event(), []
    pool.submit((0, 0), gate.wait)
    pool.submit((0, 1), lambda: ran.append("queued"))
    pool.cancel()
    gate.set()
    pool.drain()
    assert ran == [] and pool.submit((0, 2), lambda: ran.append("new")) is False


def test_free_port_never_hands_out_a_port_twice(monkeypatch):
    picked = iter([40001, 40001, 40002])  # the kernel may offer a port again once its probe socket closed

    class Probe:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def bind(self, address):
            self.port = next(picked)

        def getsockname(self):
            return ("127.0.0.1", self.port)

    monkeypatch.setattr(service_process.socket, "socket", Probe)
    monkeypatch.setattr(service_process, "_HANDED", deque(maxlen=8))
    assert [service_process.free_port(), service_process.free_port()] == [40001, 40002]
