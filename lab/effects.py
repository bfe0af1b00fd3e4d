"""The effect check (lab addition to METHOD.md): does the served memory reflect the edit?

A pure function of the case's intended edit and what the read
served. An ACCEPTED cell whose edit had no visible effect is a set-up error, not
a verdict.
"""

from __future__ import annotations

from typing import Any

from lab.seedplan import markers_in


def effect(case_id: str, intended: dict[str, Any], served: list[dict[str, Any]],
           baseline: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether ``served`` shows the edit; ``baseline`` is the same context as served in C1."""
    order = [m for rec in served for m in markers_in(str(rec.get("text", "")))]
    texts = " ".join(str(rec.get("text", "")) for rec in served)
    check = _CHECKS.get(case_id)
    if check is None:
        return {"visible": False, "detail": f"no effect check for {case_id}"}
    visible, detail = check(intended, order, texts, served, baseline)
    return {"visible": bool(visible), "detail": detail, "served_markers": order}


def _t1(spec, order, texts, served, baseline):
    if spec.get("unit") == "state":  # ciphertext tampered: no token to look for; any change shows it
        was = [str(r.get("text", "")) for r in baseline]
        now = [str(r.get("text", "")) for r in served]
        return now != was, f"served texts differ from the untouched store's: {now != was}"
    return spec["replace"] in texts, f"tampered fact {spec['replace']} served: {spec['replace'] in texts}"


def _absent(spec, order, texts, served, baseline):
    gone = spec["target"] not in order
    return gone, f"record {spec['target']} absent from what was served: {gone}"


def _t4(spec, order, texts, served, baseline):
    if spec["target"] not in order or spec["second"] not in order:
        return False, "one of the exchanged records was not served"
    swapped = order.index(spec["second"]) < order.index(spec["target"])
    return swapped, f"{spec['second']} served before {spec['target']}: {swapped}"


def _t5(spec, order, texts, served, baseline):
    return spec["replace"] in order, f"forged record {spec['replace']} served: {spec['replace'] in order}"


def _t6(spec, order, texts, served, baseline):
    there = spec["donor"] in order
    return there, f"the other context's record {spec['donor']} served here: {there}"


def _t7(spec, order, texts, served, baseline):
    # A SUT may fold the replayed copy into the donor it duplicates (same record id inside the
    # payload): the newest record is then simply gone, which the agent sees all the same.
    rolled = spec["target"] not in order and spec["donor"] in order
    copies = order.count(spec["donor"])
    return rolled, (f"newest {spec['target']} replaced by older {spec['donor']}: {rolled} "
                    f"(the older record served {copies} time(s))")


def _t8(spec, order, texts, served, baseline):
    name = spec.get("meta_field")
    now, then = _meta_of(served, spec["target"]), _meta_of(baseline, spec["target"])
    if now is None or then is None:
        return False, "the record's metadata was not served"
    if name in now or name in then:
        changed = now.get(name) != then.get(name)
        return changed, f"served {name}: {then.get(name)!r} -> {now.get(name)!r}"
    return now != then, f"served metadata {then!r} -> {now!r}"


def _t9(spec, order, texts, served, baseline):
    gone = spec["marker"] not in order
    return gone, f"record {spec['marker']} written after the copy is missing: {gone}"


def _t10(spec, order, texts, served, baseline):
    back = [m for m in spec["markers"] if m in order]
    return bool(back), f"erased records served again: {back}"


def _meta_of(records: list[dict[str, Any]], marker: str) -> dict[str, Any] | None:
    for rec in records:
        if marker in markers_in(str(rec.get("text", ""))):
            meta = rec.get("meta")
            return meta if isinstance(meta, dict) else {}
    return None


_CHECKS = {"T1": _t1, "T2": _absent, "T3": _absent, "T4": _t4, "T5": _t5, "T6": _t6, "T7": _t7,
           "T8": _t8, "T9": _t9, "T10": _t10}
