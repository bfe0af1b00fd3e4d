"""Shims for the doctor's and the HTTP adapter's tests: the example shim and broken ones.

Each broken shim is a small subclass of the example's Store or Handler (never a copy), in its
own module, with a ``BROKEN`` note of what it gets wrong. ``serve(store, handler)`` runs one on
127.0.0.1, port 0, in a thread of the test process, and shuts that server down afterwards.
"""
from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from threaded_http import in_thread

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE_DIR = ROOT / "examples" / "lifecycle-shim"
EXAMPLE_CONFIG = EXAMPLE_DIR / "shim.yaml"


def _load_example():
    name = "lifecycle_example_shim"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLE_DIR / "shim.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the file runs
        spec.loader.exec_module(module)
    return sys.modules[name]


example = _load_example()


@contextmanager
def serve(store=None, handler=None) -> Iterator:
    """A shim server (the example's, or one with a broken Store/Handler) on 127.0.0.1:0."""
    server = example.ShimServer(0, store, handler or example.Handler)
    with in_thread(server, 0.02):
        yield server
