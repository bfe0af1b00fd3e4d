"""Broken: /query filters by tenant only, so users of one tenant see each other's memories."""
from shims import leaky_tenants

BROKEN = "no isolation across users of a tenant"


class Store(leaky_tenants.Store):
    MATCHED = 0  # the tenant
