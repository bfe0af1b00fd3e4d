"""A memory scope (tenant, user, session) and its canonical, injective key.

Ids are kept exactly as given: ``"Alice"``, ``"alice"``, ``" alice "``, an NFC and an NFD spelling, a
full-width form, one with a zero-width character, ``42`` and ``"42"`` are all different scopes. The key
is a JSON array of the three parts, so no separator inside an id can make two scopes one.

>>> Scope(tenant="acme/eu", user="alice").key() == Scope(tenant="acme", user="eu/alice").key()
False
>>> Scope(tenant="acme", user=42).key()
'["acme",42,null]'
"""

from __future__ import annotations

import json

from pydantic import ConfigDict, StrictInt, StrictStr

from lab.frontdoor.records import Record

Part = StrictStr | StrictInt | None


class Scope(Record):
    """Who a memory belongs to; ``None`` for a part the caller did not give."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    tenant: Part = None
    user: Part = None
    session: Part = None

    def key(self) -> str:
        """The canonical key: equal for equal scopes, different for different ones (types included)."""
        return json.dumps([self.tenant, self.user, self.session], ensure_ascii=True, separators=(",", ":"))
