"""The run's workers: ``jobs`` threads that take the rows' work, a row's seeding and then each of
its trials, as independent tasks.

After seeding, a row's trials are independent (each starts from its own copy of the seeded
volumes, in its own scratch folder, with its own log files and service ports), so a row's C1,
C2 and T1..T10 run side by side as well as rows do. Work is taken in priority order, lowest
first: the engine keys a task by (row index, trial index), so the trials of a seeded row go
before the seeding of the next row and few rows are in flight at once (each holds its scratch
volumes, and its SUT environment's fork server, until its last trial ends).

    pool = Workers(jobs=2)
    pool.submit((0, 0), seed_row_0)        # a task may submit further tasks (a row's trials)
    pool.wait()                             # until no task is queued or running; re-raises a task's crash
    pool.cancel()                           # Ctrl-C, or the end: drop what is queued, idle threads end
    pool.drain()                            # then wait for the running tasks to end
"""

from __future__ import annotations

import heapq
import itertools
import threading
from typing import Any, Callable


class Workers:
    """A priority queue of tasks and ``jobs`` threads taking from it (started on first submit)."""

    def __init__(self, jobs: int, name: str = "trial"):
        self.jobs, self.name = max(1, jobs), name
        self._queue: list[tuple[Any, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._running = 0
        self._cancelled = False
        self._crash: BaseException | None = None
        self._threads: list[threading.Thread] = []

    def submit(self, priority: Any, task: Callable[[], None]) -> bool:
        """Queue ``task`` (lower ``priority`` first, then submission order); False once cancelled."""
        with self._cond:
            if self._cancelled:
                return False
            heapq.heappush(self._queue, (priority, next(self._order), task))
            if len(self._threads) < self.jobs:
                thread = threading.Thread(target=self._work, name=f"{self.name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._cond.notify()
        return True

    def wait(self, poll: float = 0.2) -> None:
        """Block until nothing is queued or running (waking every ``poll`` s, so Ctrl-C reaches the
        caller); a task's uncaught exception is raised here, after the others have ended."""
        with self._cond:
            while self._queue or self._running:
                self._cond.wait(poll)
            crash = self._crash
        if crash is not None:
            raise crash

    def cancel(self) -> None:
        """Drop every queued task and refuse new ones; idle threads end, running tasks end on their own."""
        with self._cond:
            self._cancelled = True
            self._queue.clear()
            self._cond.notify_all()

    def drain(self, poll: float = 0.2) -> None:
        """After ``cancel``: wait for the running tasks to end (their exceptions are not raised)."""
        with self._cond:
            while self._running:
                self._cond.wait(poll)

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._cancelled:
                    self._cond.wait()
                if not self._queue:
                    return
                _, _, task = heapq.heappop(self._queue)
                self._running += 1
            try:
                task()
            except BaseException as exc:  # a crash of the lab itself: the run stops, as it did with rows
                with self._cond:
                    self._crash = self._crash or exc
                    self._cancelled = True
                    self._queue.clear()
            finally:
                with self._cond:
                    self._running -= 1
                    self._cond.notify_all()
