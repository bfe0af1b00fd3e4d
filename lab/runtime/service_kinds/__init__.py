"""The kinds of backend server the lab starts for a SUT's store, one module each, and their registry.

A new kind is one module here (a :class:`~lab.runtime.service_kinds.base.ServiceKind`), its entry in
:data:`KINDS`, its name in the profile schema's ``SERVICE_KINDS`` (with the editor it serves,
``SERVICE_EDITORS``; ``tests/system/test_services.py`` checks the two lists agree), its backend image in
``lab.runtime.images.BACKENDS`` with a Dockerfile under ``images/backends/``, and its test.

    >>> sorted(KINDS)
    ['postgres', 'redis', 'redis-stack']
"""

from __future__ import annotations

from lab.runtime.service_kinds.base import ServiceKind
from lab.runtime.service_kinds.postgres import POSTGRES
from lab.runtime.service_kinds.redis import REDIS, REDIS_STACK_KIND

#: Kind name -> the kind.
KINDS: dict[str, ServiceKind] = {kind.name: kind for kind in (POSTGRES, REDIS, REDIS_STACK_KIND)}


def kind_of(name: str) -> ServiceKind:
    """The kind named ``name`` (a profile's service ``kind``, already validated against the schema)."""
    return KINDS[name]
