"""The variants of a case: every expression of its edit the store allows, each its own trial.

A case's base trial (``T1``) makes the case's own spec (:func:`lab.cases.registry.spec_for`).
Its variants are the other specs of the same case: those the case offers itself
(``Case.alternatives``: T8's other declared metadata fields) and, for each of them and the
base spec, every expression the generic editor offers on this store
(``Editor.variants``: one place of several, element vs whole version rows, another form the
reader accepts) and, for the base spec and its ``derived=recomputed`` variant only, its edit
with each held sidecar volume emptied or removed (:mod:`lab.cases.sidecars`). Each variant is
a trial of its own (``T1.v1``, ``T1.v2``, ...): a fresh copy of the seeded volumes, exactly
one edit (with a sidecar variant's operation on its volume), its own C3, effect check and
observation. The base trial saves the list (``variants``: trial, name, intended spec), so the
variant trials, a resumed run and ``verify`` all read the same list.

Example::

    >>> from edits.model import EditSpec
    >>> base = EditSpec("T8", "A", "mA3-x", meta_field="role", op="set_meta")
    >>> name_of(base, EditSpec("T8", "A", "mA3-x", meta_field="owner", variant="place=data.owner", op="set_meta"))
    'meta_field=owner; place=data.owner'
    >>> trial_name("T8", 2), case_of("T8.v2"), case_of("T8")
    ('T8.v2', 'T8', 'T8')
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Iterable

from edits.model import EditSpec, Record
from lab.cases import sidecars as sidecar_variants

#: The name a cell gives its base trial's expression (unless its spec names a variant: a record case
#: on a sealed payload, whose own spec is a form the reader accepts).
DEFAULT = "default"
_TRIAL = re.compile(r"^(T\d+)\.v([1-9]\d{0,3})$")


def implied_op(case_id: str) -> str | None:
    """The op a spec of ``case_id`` asks for unless it names another (its case's; None for a case the
    lab does not have, or a restore case, whose edit is no record operation)."""
    from lab.cases.registry import BY_ID  # the registry's cases build specs: imported when asked
    case = BY_ID.get(case_id)
    return case.op if case is not None else None


def spec_json(spec: EditSpec) -> dict[str, Any]:
    """``spec`` as a set saves it: its op left out where it is its case's (as every saved spec has it)."""
    return spec.to_json(implied=implied_op(spec.case))


def spec_from_json(data: dict[str, Any]) -> EditSpec:
    """The spec a set saved (``spec_json``): a missing op is its case's."""
    return EditSpec.from_json(data, implied=implied_op(str(data.get("case"))))


def trial_name(case_id: str, k: int) -> str:
    """The trial of a case's ``k``-th variant (1-based)."""
    return f"{case_id}.v{k}"


def case_of(trial: str) -> str:
    """The case a trial measures: ``T8`` for ``T8`` and ``T8.v2``."""
    m = _TRIAL.match(trial)
    return m.group(1) if m else trial


def is_variant(trial: str) -> bool:
    """True for a variant trial's name (``T1.v3``)."""
    return _TRIAL.match(trial) is not None


def name_of(base: EditSpec, spec: EditSpec) -> str:
    """What a reader of the cell is told a variant edited: the fields in which its spec differs
    from the base spec, then the editor's own variant name."""
    was = spec_json(base)
    parts = [f"{k}={v}" for k, v in spec_json(spec).items() if k not in ("variant", "case") and was.get(k) != v]
    return "; ".join(parts + ([spec.variant] if spec.variant else []))


def enumerate_variants(case_id: str, specs: list[EditSpec], editor, records: list[Record],
                       sidecars: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Every variant of a case on this store besides its base spec (``specs[0]``; the rest are the
    case's alternatives, :func:`lab.cases.registry.specs_for`), then the base spec (and its
    ``derived=recomputed`` variant, where offered) with each of the held ``sidecars`` volumes
    emptied or removed: ``{"trial", "name", "intended"}``."""
    base, out = specs[0], []
    offered = getattr(editor, "variants", None)  # an editor that offers no variants may lack the method
    for spec in specs:
        if spec != base:
            out.append(spec)
        out += [replace(spec, variant=v) for v in (offered(spec, records) if offered else [])]
    out += sidecar_variants.specs([base, *(s for s in out if sidecar_variants.combines(s, base))], sidecars)
    return [{"trial": trial_name(case_id, k), "name": name_of(base, spec), "intended": spec_json(spec)}
            for k, spec in enumerate(_unique(out), start=1)]


def variant_trials(base_obs: dict[str, Any] | None) -> list[str]:
    """The variant trials a saved base trial lists (none when it lists none, or is absent)."""
    listed = (base_obs or {}).get("variants") or []
    return [v["trial"] for v in listed if isinstance(v, dict) and isinstance(v.get("trial"), str)]


def spec_of(entry: dict[str, Any]) -> EditSpec:
    """The edit a listed variant makes."""
    return spec_from_json(entry["intended"])


def _unique(specs: Iterable[EditSpec]) -> list[EditSpec]:
    seen, out = set(), []
    for spec in specs:
        key = repr(sorted(spec_json(spec).items()))
        if key not in seen:
            seen.add(key)
            out.append(spec)
    return out
