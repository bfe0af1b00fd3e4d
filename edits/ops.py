"""The operations an editor performs on the records of a store (``EditSpec.op``).

An editor knows these, never the method's cases: each case names the operation its spec asks
for (``lab.cases``), and a case of its own adds no operation here.

- ``replace``: in the target record, the token ``find`` replaced by ``replace`` (same length);
- ``delete``: the target record removed;
- ``rollback``: the store taken back to the state before the target's write -- on version rows
  (``edits.version_rows``) the rows newer than that state deleted; elsewhere the target (the
  newest record) deleted;
- ``swap``: the target and ``second`` exchanged in order;
- ``forge``: a copy of the target (the template) added after the others, with a fresh identity
  and ``find`` replaced by ``replace``;
- ``transplant``: the ``donor``'s content put in the target's (the victim's) slot, the victim's
  identity, context and order kept (whether the donor must come from the same context or
  another is the case's own check, not the editor's);
- ``set_meta``: metadata field ``meta_field`` of the target set; its content untouched.
"""

from __future__ import annotations

REPLACE = "replace"
DELETE = "delete"
ROLLBACK = "rollback"
SWAP = "swap"
FORGE = "forge"
TRANSPLANT = "transplant"
SET_META = "set_meta"

OPS = (REPLACE, DELETE, ROLLBACK, SWAP, FORGE, TRANSPLANT, SET_META)
