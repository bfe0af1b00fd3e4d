"""Broken: TTL is ignored; values never expire whatever /advance_time says."""
from shims import example

BROKEN = "ttl_steps accepted, nothing ever expires"


class Store(example.Store):
    def write(self, scope, key, value, ttl_steps):
        super().write(scope, key, value, None)
