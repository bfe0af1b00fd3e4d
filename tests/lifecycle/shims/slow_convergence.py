"""Broken: a write is acknowledged at once but served only DELAY seconds later (eventual consistency)."""
import time

from shims import example

BROKEN = "writes become visible only ~1.5 s after their ok"
DELAY = 1.5


class Store(example.Store):
    def __init__(self):
        super().__init__()
        self.written: dict[tuple, float] = {}

    def write(self, scope, key, value, ttl_steps):
        super().write(scope, key, value, ttl_steps)
        self.written[(*scope, key)] = time.monotonic()

    def query(self, scope, prompt):
        ready = {k for k, at in self.written.items() if time.monotonic() - at >= DELAY}
        return [m for m in super().query(scope, prompt) if (*scope, m["key"]) in ready]
