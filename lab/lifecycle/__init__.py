"""The lifecycle gate (docs/lifecycle.md): do the SUT's own write, correct, rescope, expire and
delete change what the agent is served? Scenarios (YAML) drive a SUT through an adapter (any
driver of the protocol, or a team's HTTP shim in memlab's contract or the peer gate
memorycheck's); a pure ledger with logical time owns the truth; a deterministic judge labels
what each query served (and what reached the agent, where the SUT says); the checks and the
gate decide, counted as the peer counts (``checks``). Packs, shim configs, command lines and
report fields of memorycheck are taken as they are (``scenario_peer``, ``adapters.http_config``,
``adapter_spec``, ``peer_report``). Beside
the gate, never in it: the restarted position (the SUT stopped and started after every
mutation, its own row) and erasure at rest (``residue``: the raw volumes scanned after each
delete for the deleted value).

May import: ``lab.profile``, ``lab.driver``, ``lab.runtime`` and ``lab.resultset`` (digests,
canonical encoding), never the at-rest method or judge.
"""
