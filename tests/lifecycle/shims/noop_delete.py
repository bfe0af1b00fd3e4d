"""Broken: /delete answers ok and deletes nothing."""
from shims import example

BROKEN = "delete is acknowledged but does nothing"


class Store(example.Store):
    def delete(self, scope, key):
        pass
