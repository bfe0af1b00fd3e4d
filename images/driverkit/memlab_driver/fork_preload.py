"""The fork server's preload: the driver's top level and the SUT's modules, then the thread check.

A server may fork only while one thread runs (a fork copies the memory of every thread, not the
threads, so a lock another thread held stays held in the child forever), two fork-safe pools aside:
OpenBLAS's workers (it stops them before a fork and a child starts its own) and jemalloc's background
threads (pyarrow's allocator: its fork handlers take every lock before the fork and turn background
threads off in the child, which purges inline). Imports only the standard library.
"""

from __future__ import annotations

import os
import runpy
import sys
import time

from memlab_driver import fork_placeholder
from memlab_driver.fork_leaks import held_paths, is_per_start, loaded_per_start, per_start_modules


def preload(driver: str, modules: list[str], optional: list[str] = (), per_start: list[str] = (),
            private: str = "", unused: list[str] = ()) -> dict:
    """Run the driver's top level (not as ``__main__``), import ``modules`` (the profile's: one
    that fails is a refusal) and ``optional`` (recorded by an earlier start: one that fails is
    skipped), never a module of the ``per_start`` distributions; what was loaded, or why the
    server refuses (``fork_leaks``: a per-start module imported anyway, a module global holding a
    path under the server's ``private`` folder, but those the profile names ``unused`` and those
    under a placeholder the driver entered, which every start rebinds: ``fork_placeholder``). The
    placeholder is sealed when the preload ends, served or refused."""
    fork_placeholder.PRIVATE = private
    try:
        return _preload(driver, modules, optional, per_start, private, unused)
    finally:
        fork_placeholder.seal()


def _preload(driver: str, modules: list[str], optional: list[str], per_start: list[str], private: str,
             unused: list[str]) -> dict:
    began = time.monotonic()
    tops, problem = per_start_modules(list(per_start))
    if problem:
        return {"refused": problem}
    path = list(sys.path)
    try:
        runpy.run_path(driver, run_name="__memlab_preload__")
    except BaseException as exc:  # noqa: BLE001  (a driver that exits at import is a refusal too)
        return {"refused": f"the driver's top level failed: {type(exc).__name__}: {exc}"}
    finally:
        sys.path[:] = path  # a driver's top level that changes sys.path runs again in every child
    for name in modules:
        try:
            __import__(name)
        except BaseException as exc:  # noqa: BLE001
            return {"refused": f"preloading {name} failed: {type(exc).__name__}: {exc}"}
    if not _settled():
        return {"refused": f"{thread_count()} threads run after preloading (forking would copy a "
                           "half-held lock); the plain path is used"}
    unsafe = _unsafe(tops, private, unused, "preloading")
    if unsafe:
        return {"refused": unsafe}
    skipped = []
    for name in optional:
        if name in sys.modules or is_per_start(name, tops):
            continue
        try:
            __import__(name)
        except BaseException as exc:  # noqa: BLE001
            skipped.append(f"{name}: {type(exc).__name__}")
        if thread_count() > 1 + pool_threads() and not _settled():
            return {"refused": f"importing the recorded module {name} started a thread", "cut_at": name}
        if loaded_per_start(tops):
            return {"refused": _unsafe(tops, "", (), f"importing the recorded module {name}"), "cut_at": name}
    unsafe = _unsafe(tops, private, unused, "importing the recorded modules")
    if unsafe:
        return {"refused": unsafe}
    return {"ready": True, "modules": len(sys.modules), "skipped": skipped, "pool_threads": pool_threads(),
            "seconds": round(time.monotonic() - began, 3)}


def _unsafe(tops: set[str], private: str, unused: list[str], what: str) -> str | None:
    """Why forking now would hand a child the server's environment (``fork_leaks``), or None."""
    pulled = loaded_per_start(tops)
    if pulled:
        return (f"{what} imported {', '.join(pulled[:3])}, of a distribution the profile imports per start "
                "(fork_server.per_start)")
    held = [name for name in held_paths(private) if name not in unused]
    if held:
        return (f"{what} left the server's own paths in {', '.join(held[:3])} (read from its environment at "
                "import): name the distribution in the profile's fork_server.per_start (or the global in "
                "unused_paths, if it is never used after the import)")
    return None


def _settled() -> bool:
    """No thread runs but the main one and the fork-safe pools (a thread that ends on its own, an
    import-time probe, is given 0.5 s)."""
    for _ in range(10):
        if thread_count() <= 1 + pool_threads():
            return True
        time.sleep(0.05)
    return False


def thread_count() -> int:
    """Threads of this process as the kernel sees them (native ones included)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


#: OpenBLAS's "how many threads" under the names its builds export (numpy's wheels: scipy_openblas64_).
_OPENBLAS_COUNTERS = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                      "openblas_get_num_threads", "scipy_openblas_get_num_threads")


def pool_threads() -> int:
    """Threads of the fork-safe pools: OpenBLAS's workers and jemalloc's background threads (see
    the module); any other thread refuses."""
    return _openblas_workers() + _jemalloc_background_threads()


def _jemalloc_background_threads() -> int:
    """jemalloc's background threads (named ``jemalloc_bg_thd``; pyarrow starts one at import).
    jemalloc's own pthread_atfork handlers hold its locks across the fork and, in the child, stop
    background threads (``background_thread_postfork_child``): the child allocates without them."""
    count = 0
    try:
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/comm") as comm:
                    count += comm.read().strip() == "jemalloc_bg_thd"
            except OSError:
                continue  # the thread ended between the listing and the read
    except OSError:
        return 0
    return count


def _openblas_workers() -> int:
    """Worker threads of a loaded OpenBLAS (its size less the caller): OpenBLAS stops its pool
    before a fork (pthread_atfork) and a child starts its own."""
    try:
        with open("/proc/self/maps") as maps:
            libs = {line.split()[-1] for line in maps if "openblas" in line.rsplit("/", 1)[-1].lower()}
    except OSError:
        return 0
    if not libs:
        return 0
    import ctypes

    workers = 0
    for lib in libs:
        try:
            handle = ctypes.CDLL(lib)
        except OSError:
            continue
        counter = next((getattr(handle, n) for n in _OPENBLAS_COUNTERS if hasattr(handle, n)), None)
        workers += max(0, int(counter()) - 1) if counter is not None else 0
    return workers
