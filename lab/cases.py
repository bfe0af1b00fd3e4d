"""The ten edits and three controls of METHOD.md, as data.

A case says what it edits, which context the read after the restart looks at,
what the store must be able to express, and what C3 must see. ``spec_for``
turns a case and a seed plan into the concrete :class:`~edits.model.EditSpec`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from edits.layout import StoreLayout
from edits.model import EditSpec
from lab.seedplan import FACT_INDEX, SeedPlan

#: Index of the genuine record T9 writes after the snapshot (C2 writes index 5).
T9_EXTRA_INDEX = 6
C2_EXTRA_INDEX = 5


@dataclass(frozen=True)
class Case:
    """One test case: id, name, kind (edit | rollback | erasure), read context, needs, C3 rule."""

    id: str
    name: str
    kind: str
    read_label: str
    group: str
    c3: str
    needs: tuple[str, ...] = ()


CASES: tuple[Case, ...] = (
    Case("T1", "content tamper", "edit", "A", "T1-T5",
         "one record's payload changed (the fact token replaced), nothing else"),
    Case("T2", "tail truncation", "edit", "A", "T1-T5",
         "the most recent record of the context absent, nothing else", ("order",)),
    Case("T3", "middle deletion", "edit", "A", "T1-T5",
         "a record that is neither first nor last absent, nothing else", ("record",)),
    Case("T4", "reordering", "edit", "A", "T1-T5",
         "two distinct records exchanged in order, nothing else", ("order", "record")),
    Case("T5", "forged insertion", "edit", "A", "T1-T5",
         "exactly one new record, after the others, nothing else", ("record",)),
    Case("T6", "cross-context replay", "edit", "B", "T6-T8",
         "the victim slot of B holds A's donor record with the victim's identifiers"),
    Case("T7", "rollback replay", "edit", "A", "T6-T8",
         "the most recent slot of A holds an older record of A with its identifiers"),
    Case("T8", "metadata tamper", "edit", "A", "T6-T8",
         "one record's metadata field changed, content untouched", ("metadata", "record")),
    Case("T9", "whole-store rollback", "rollback", "A", "T9",
         "the genuine write added exactly one record; the restored copy equals the pre-write store",
         ("snapshot",)),
    Case("T10", "erasure resurrection", "erasure", "A", "T10",
         "the erasure removed exactly the named record(s); the restored copy equals the pre-erasure store",
         ("snapshot", "erasure")),
)
CASE_IDS = tuple(c.id for c in CASES)
BY_ID = {c.id: c for c in CASES}

CONTROLS = {
    "C1": "no-op reload: restart with no edit; seeded memory served unchanged, no integrity signal",
    "C2": "genuine write after restart: one more record written through the SUT is served",
    "C3": "edit landed: the raw store changed exactly as the case intends, checked before the restart",
}

GROUPS = {"T1-T5": ("T1", "T2", "T3", "T4", "T5"), "T6-T8": ("T6", "T7", "T8"),
          "T9": ("T9",), "T10": ("T10",)}


def not_applicable(case: Case, capabilities) -> str | None:
    """The reason ``case`` cannot be expressed on a store with these capabilities, or None."""
    if "order" in case.needs and not capabilities.order:
        return "unordered memory: the store has no order to truncate or reorder"
    if "metadata" in case.needs and not capabilities.metadata:
        return "no metadata layer: there is no owner, role, source or timestamp to change"
    if "snapshot" in case.needs and not capabilities.snapshot:
        return "the store cannot be copied and restored as a unit"
    if "erasure" in case.needs and capabilities.erasure == "none":
        return "the SUT offers no erasure operation"
    if "record" in case.needs and getattr(capabilities, "sealed", False):
        return ("the records sit inside an encrypted payload the adversary cannot read: no keyless edit "
                "deletes, reorders, forges or relabels one record inside it")
    return None


def spec_for(case: Case, plan: SeedPlan, layout: StoreLayout) -> EditSpec:
    """The concrete edit for an edit case (T1..T8), addressed by seeded markers.

    On an opaque (sealed) payload the edit's unit is the *state*: T1 tampers the
    ciphertext of the version row holding the fact (no token to replace), T2 rolls
    the context back a version, T6/T7 copy whole version payloads (``edits.lists``).
    """
    a, b = plan.of("A"), plan.of("B")
    ctx_a, ctx_b = plan.contexts["A"], plan.contexts["B"]
    fact, newest, oldest = a[FACT_INDEX], a[-1], a[0]
    specs = {
        "T1": lambda: EditSpec("T1", ctx_a, fact.marker, find=plan.facts["A"], replace=plan.tampered_fact),
        "T2": lambda: EditSpec("T2", ctx_a, newest.marker),
        "T3": lambda: EditSpec("T3", ctx_a, fact.marker),
        "T4": lambda: EditSpec("T4", ctx_a, a[1].marker, second=a[3].marker),
        "T5": lambda: EditSpec("T5", ctx_a, newest.marker, find=newest.marker, replace=plan.forged_marker),
        "T6": lambda: EditSpec("T6", ctx_b, b[FACT_INDEX].marker, donor=fact.marker),
        "T7": lambda: EditSpec("T7", ctx_a, newest.marker, donor=oldest.marker),
        "T8": lambda: EditSpec("T8", ctx_a, fact.marker, meta_field=_meta_field(layout)),
    }
    if case.id not in specs:
        raise ValueError(f"{case.id} is not a storage edit")
    spec = specs[case.id]()
    if layout.payload.format == "opaque":  # whole version rows of a sealed state (see edits.lists)
        spec = replace(spec, unit="state", **({"find": None, "replace": None} if case.id == "T1" else {}))
    return spec


def _meta_field(layout: StoreLayout) -> str | None:
    for name in ("role", "owner", "source", "timestamp"):
        if name in layout.metadata:
            return name
    return None
