"""The cases: the ten edits and three controls of docs/method.md, one module each, as data.

A case (:mod:`lab.cases.case`) says what it edits, which context the read after the restart
looks at, what the store must be able to express, its group and level, and carries its own
spec builder, C3 rule (and sealed-state rule), effect check and -- for T9/T10 -- the SUT's own
operation between the copy and the restore. ``t1`` .. ``t10`` hold one case each; the rule
families two cases share sit in ``deletion``, ``replay`` and ``restore``, the controls in
``controls``; :mod:`lab.cases.registry` lists them in order. The rules read the record views
of :mod:`lab.cases.evidence` (and :mod:`lab.cases.versions` for a sealed state); the judge
and the method dispatch through the registry.

May import: ``edits`` only (the seed plan lives here too: :mod:`lab.cases.seedplan`).
"""

from __future__ import annotations

from lab.cases.case import Case, CaseError, SutOp, not_applicable
from lab.cases.controls import C2_EXTRA_OFFSET
from lab.cases.registry import BY_ID, CASE_IDS, CASES, CONTROLS, GROUPS, spec_for, specs_for
from lab.cases.t9 import T9_EXTRA_OFFSET

__all__ = ["BY_ID", "C2_EXTRA_OFFSET", "CASES", "CASE_IDS", "CONTROLS", "GROUPS", "T9_EXTRA_OFFSET",
           "Case", "CaseError", "SutOp", "not_applicable", "spec_for", "specs_for"]
