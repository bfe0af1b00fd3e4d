"""The lifecycle gate (LIFECYCLE.md): do the SUT's own write, correct, rescope, expire and
delete change what the agent is served? Scenarios (YAML) drive a SUT through an adapter (any
driver of the protocol, or a team's HTTP shim); a pure ledger with logical time owns the truth;
a deterministic judge labels what each query served; the checks and the gate decide. Beside
the gate, never in it: the restarted position (the SUT stopped and started after every
mutation, its own row) and erasure at rest (``residue``: the raw volumes scanned after each
delete for the deleted value).

May import: ``lab.profile``, ``lab.driver``, ``lab.runtime`` and ``lab.resultset`` (digests,
canonical encoding), never the at-rest method or judge.
"""
