"""The peer gate's ``--adapter`` spec, as memlab reads it: which target each one names.

A CI line written for memorycheck keeps working with only the program name changed, so each of
its adapter specs maps onto a memlab target:

==========================  =====================================================================
``http:CONFIG``             the team's shim, its config in either contract (``--http CONFIG``)
``reference:strict``        the row ``lifecycle-strict`` (``naive``, ``leaky`` likewise)
``langgraph[:memory]``      the row ``langgraph-store`` (LangGraph's ``InMemoryStore``)
``langgraph:sqlite[:PATH]`` the row ``langgraph-store-sqlite`` (``SqliteStore``; memlab keeps the
                            file in the row's own volume, so a PATH is not used: a note says so)
``sut:ROW``                 any memlab row that takes the lifecycle measurement (memlab's own)
==========================  =====================================================================

``mem0``, ``zep`` (hosted platforms) and ``null`` are refused with the reason and the nearest
memlab row. Every refusal is a :class:`SpecError` with the fix (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass

REFERENCE_MODES = ("strict", "naive", "leaky")
LANGGRAPH = {"": "langgraph-store", "memory": "langgraph-store", "sqlite": "langgraph-store-sqlite"}
REFUSED = {
    "mem0": "the hosted Mem0 platform needs its API and credentials, which the lab does not reach; "
            "Mem0's own library on a local store is measured by the row mem0-qdrant-local: --adapter sut:mem0-qdrant-local",
    "zep": "the hosted Zep platform needs its API and credentials, which the lab does not reach; "
           "point a shim at your Zep deployment and use --adapter http:CONFIG",
    "null": "memlab's no-memory baseline is built in (the prompt alone, at every query of every run): "
            "nothing to select",
}
LISTING = [("reference:strict", "the row lifecycle-strict: honours the lifecycle (passes)"),
           ("reference:naive", "the row lifecycle-naive: ignores supersession, deletion and TTL (fails P1/P2)"),
           ("reference:leaky", "the row lifecycle-leaky: naive, and filters by tenant only (adds scope leakage)"),
           ("http:CONFIG.yaml", "your stack behind a shim, memlab's contract or memorycheck's (docs/lifecycle-http.md)"),
           ("langgraph[:memory]", "the row langgraph-store: LangGraph's InMemoryStore"),
           ("langgraph:sqlite", "the row langgraph-store-sqlite: LangGraph's SqliteStore on the row's volume"),
           ("sut:ROW", "any row that takes the lifecycle measurement (memlab list)")]


class SpecError(ValueError):
    """An adapter spec memlab cannot take, with the fix."""


@dataclass(frozen=True)
class Spec:
    """What a spec names: an HTTP config (``http``) or a row (``row``), and a note to print."""

    http: str | None = None
    row: str | None = None
    note: str = ""


def parse(spec: str) -> Spec:
    """The target a peer adapter spec names (``SpecError`` when memlab cannot take it)."""
    name, _, arg = spec.partition(":")
    if name == "http":
        if not arg:
            raise SpecError("--adapter http needs a config: --adapter http:config.yaml")
        return Spec(http=arg)
    if name == "reference":
        mode = arg or "strict"
        if mode not in REFERENCE_MODES:
            raise SpecError(f"--adapter reference:{mode}: no such mode\n  fix: use reference:strict, reference:naive "
                            "or reference:leaky")
        return Spec(row=f"lifecycle-{mode}")
    if name == "langgraph":
        kind, _, path = arg.partition(":")
        if kind not in LANGGRAPH:
            raise SpecError(f"--adapter langgraph:{kind}: no such store\n  fix: use langgraph, langgraph:memory or "
                            "langgraph:sqlite")
        note = (f"langgraph:sqlite:{path}: memlab keeps the SQLite file in the row's own volume (so it can scan it "
                "for erasure at rest); the path is not used") if path else ""
        return Spec(row=LANGGRAPH[kind], note=note)
    if name == "sut" and arg:
        return Spec(row=arg)
    if name in REFUSED:
        raise SpecError(f"--adapter {spec}: {REFUSED[name]}")
    raise SpecError(f"--adapter {spec}: unknown adapter\n  fix: use one of "
                    + ", ".join(s for s, _ in LISTING) + " (memlab lifecycle list-adapters)")
