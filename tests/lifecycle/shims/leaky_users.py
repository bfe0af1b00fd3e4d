"""Broken: /query filters by tenant only, so users of one tenant see each other's memories."""
from shims import example

BROKEN = "no isolation across users of a tenant"


class Store(example.Store):
    def query(self, scope, prompt):
        with self.lock:
            return [{"text": e.value, "key": k[2]} for k, e in sorted(self.entries.items())
                    if k[0] == scope[0] and (e.expires_at is None or self.now < e.expires_at)]
