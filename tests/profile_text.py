"""Profile YAML for tests on profiles: a row driven by the reference driver whose one volume,
``store``, is adversary-writable and holds a SQLite store; the tests give the rest."""

from __future__ import annotations

import textwrap


def sqlite_profile(row: str, sut: str, store: str, capabilities: str) -> str:
    """The text of profile ``row`` (``sut`` and ``capabilities`` as YAML flow mappings); ``store``
    the store's keys after ``backend`` and ``volume``, one a line (dedented, then indented under it)."""
    head = textwrap.dedent(f"""\
        row: {row}
        sut: {sut}
        driver: reference
        volumes:
          store: {{adversary: true}}
        store:
          backend: sqlite
          volume: store
        """)
    return head + textwrap.indent(textwrap.dedent(store), "  ") + f"capabilities: {capabilities}\n"


#: The keys of the reference driver's SQLite store, after ``backend`` and ``volume``, one a line.
REFERENCE_STORE = """\
file: memory.db
table: records
context: ctx
identity: [id]
order: seq
payload: body
"""

#: A valid profile, row ``demo``, the store the reference one, erasure by record.
DEMO = sqlite_profile("demo", "{package: memlab-reference, version: 0.1.0}", REFERENCE_STORE, "{erasure: record}")
