"""Broken: /query filters by user id only, so one user id in two tenants is one person."""
from shims import example

BROKEN = "no isolation across tenants sharing a user id"


class Store(example.Store):
    def query(self, scope, prompt):
        with self.lock:
            return [{"text": e.value, "key": k[2]} for k, e in sorted(self.entries.items())
                    if k[1] == scope[1] and (e.expires_at is None or self.now < e.expires_at)]
