"""The registry: every case module in the order of docs/method.md, and what is derived from them.

Adding a case: write ``lab/cases/tN.py`` with its ``CASE`` (the editor's operation it asks for,
spec builder, C3 rule, sealed-state rule, effect check, group, level, needs; a restore case its
``sut_op``) and add the module to ``MODULES``; name a new method revision in ``lab.METHOD_REVISION`` and keep the
old one in :mod:`lab.cases.revisions`, so sets measured before still read with their own cases (a test
fails until you do). The case ids and groups follow from the list, the
judge's level ladder from the cases' levels, and the op a spec of each case is saved without
(``lab.cases.variants.spec_json``: a spec saved before specs named their op reads back with it).
"""

from __future__ import annotations

from dataclasses import replace

from edits.layout import StoreLayout
from edits.model import EditSpec
from lab.cases import controls, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10
from lab.cases.case import Case
from lab.cases.forms import authoring
from lab.cases.seedplan import SeedPlan

MODULES = (t1, t2, t3, t4, t5, t6, t7, t8, t9, t10)

CASES: tuple[Case, ...] = tuple(m.CASE for m in MODULES)
CASE_IDS = tuple(c.id for c in CASES)
BY_ID = {c.id: c for c in CASES}
GROUPS = {g: tuple(c.id for c in CASES if c.group == g) for g in dict.fromkeys(c.group for c in CASES)}
CONTROLS = {c.id: c.text for c in controls.ALL}


def spec_for(case: Case, plan: SeedPlan, layout: StoreLayout) -> EditSpec:
    """The concrete edit for an edit case (T1..T8), addressed by seeded markers.

    On an opaque (sealed) payload the edit's unit is the *state*: T1 tampers the
    ciphertext of the version row holding the fact (no token to replace), T2 rolls
    the context back a version, T6/T7 copy whole version payloads (``edits.version_rows``).
    """
    if case.build is None:
        raise ValueError(f"{case.id} is not a storage edit")
    return _unit(case, case.build(plan, layout), plan, layout)


def specs_for(case: Case, plan: SeedPlan, layout: StoreLayout) -> list[EditSpec]:
    """The case's own spec (:func:`spec_for`) first, then the other specs it offers on this layout
    (``Case.alternatives``), each a variant of its own (:mod:`lab.cases.variants`)."""
    others = case.alternatives(plan, layout) if case.alternatives else []
    return [spec_for(case, plan, layout), *(_unit(case, s, plan, layout) for s in others)]


def _unit(case: Case, spec: EditSpec, plan: SeedPlan, layout: StoreLayout) -> EditSpec:
    """``spec`` as the layout takes it: whole version rows of a sealed state, and the seeded texts a
    declared form's variants author."""
    if layout.payload.format == "opaque":  # whole version rows of a sealed state (see edits.version_rows)
        spec = replace(spec, unit="state")
    if layout.payload.forms:  # a form the reader accepts: what its variants author (lab.cases.forms)
        spec = authoring(case, spec, plan, layout)
    return spec
