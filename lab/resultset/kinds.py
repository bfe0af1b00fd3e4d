"""The kinds of result set and their names, so that a command given a set of another kind says so instead
of calling its files malformed (``lab.resultset.loading.set_kind`` reads which kind a folder holds, before
anything else of it).

The kind is the manifest's schema: ``memlab.manifest/1`` an at-rest set (``memlab run``),
``memlab.lifecycle-manifest/1`` a lifecycle set (``memlab lifecycle run``), ``memlab.<kind>-manifest/N``
a kind a newer part of the lab writes (named by its ``<kind>``). A set whose run has written no
manifest yet (a partial set) is told apart by its run.json: ``kind`` when it has one (a lifecycle
run's says ``lifecycle``), else at rest when it lists its rows. A folder holding neither is no set
(None); so is one whose files cannot be read (the command reading it says why).

    >>> kind_of_schema("memlab.lifecycle-manifest/1"), kind_of_schema("memlab.frontdoor-manifest/1")
    ('lifecycle', 'frontdoor')
    >>> described("lifecycle")
    'a lifecycle set (`memlab lifecycle run`)'
"""

from __future__ import annotations

import re
from typing import Any

AT_REST = "at-rest"
LIFECYCLE = "lifecycle"
#: Manifest schema -> kind (tests/adversarial/test_errors_say_the_real_thing.py holds them equal to the writers').
SCHEMAS = {"memlab.manifest/1": AT_REST, "memlab.lifecycle-manifest/1": LIFECYCLE}
_OTHER = re.compile(r"memlab\.([a-z0-9][a-z0-9-]*)-manifest/\d+")
#: The command that writes each kind (for what a message says of a set).
WRITERS = {AT_REST: "memlab run", LIFECYCLE: "memlab lifecycle run", "frontdoor": "memlab frontdoor run"}


def kind_of_schema(schema: Any) -> str | None:
    """The kind a manifest's ``schema`` names, or None for one that is not memlab's."""
    if not isinstance(schema, str):
        return None
    if schema in SCHEMAS:
        return SCHEMAS[schema]
    match = _OTHER.fullmatch(schema)
    return match.group(1) if match else None


def described(kind: str | None) -> str:
    """``an at-rest set (`memlab run`)``, ``a lifecycle set (`memlab lifecycle run`)``, ``a frontdoor set``."""
    if kind is None:
        return "not a memlab result set"
    article = "an" if kind[:1] in "aeiou" else "a"
    writer = WRITERS.get(kind)
    return f"{article} {kind} set" + (f" (`{writer}`)" if writer else "")
