"""Broken: /query filters by user id only, so one user id in two tenants is one person."""
from shims import example

BROKEN = "no isolation across tenants sharing a user id"


class Store(example.Store):
    #: The one part of an entry's (tenant, user, key) that /query matches against the caller's scope.
    MATCHED = 1

    def query(self, scope, prompt):
        with self.lock:
            return [{"text": e.value, "key": k[2]} for k, e in sorted(self.entries.items())
                    if k[self.MATCHED] == scope[self.MATCHED] and (e.expires_at is None or self.now < e.expires_at)]
