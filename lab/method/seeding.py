"""Seed and controls: the seeding writes through the SUT's own write path (once per row, into
the golden volumes), C1 (no-op reload) and C2 (a genuine write after a restart), each on a
fresh copy. What the controls check is the cases' data (:mod:`lab.cases.controls`); whether
they hold is the judge's (:mod:`lab.judge.verdicts`).
"""

from __future__ import annotations

from typing import Any

from lab import moments
from lab.cases.controls import C2
from lab.cases.seedplan import markers_in
from lab.method import resume
from lab.method.row import Row


def seed(row: Row, obs: dict[str, Any]) -> None:
    """Write the seed plan through the SUT, read both contexts back; a mismatch is a StageError."""
    plan, bed = row.plan, row.bed
    vols = bed.seeded()
    obs["plan"] = plan.to_json()
    with row.sessions.sut(obs, "seed", vols) as s:
        obs["describe"] = s.call("describe")
        obs["writes"] = []
        for n, rec in enumerate(plan.records):
            answer = s.call("write", context=plan.contexts[rec.label], text=rec.text, meta=rec.meta)
            if not answer["ok"]:
                raise s.stage_error("seed", f"the SUT refused a seeding write: {answer.get('error')}")
            bed.seed_ids[rec.marker] = str((answer.get("record") or {}).get("id"))
            if (answer.get("record") or {}).get("version") is not None:
                bed.seed_versions[str(answer["record"]["version"])] = rec.marker
            obs["writes"].append(answer)
            if n == 0:
                moments.reach("seeding", row.profile.row, "seed")
        obs["reads"] = _read_all(row, s)
    obs["seed_ids"] = bed.seed_ids
    if bed.seed_versions:
        obs["seed_versions"] = bed.seed_versions
    for label, read in obs["reads"].items():
        served = [m for r in read.get("records") or [] for m in markers_in(str(r.get("text", "")))]
        want = [r.marker for r in plan.of(label)]
        if not row.profile.capabilities.order:  # unordered memory: the same records, in any order
            served, want = sorted(served), sorted(want)
        if served != want:
            raise s.stage_error("seed", f"after seeding, context {label} served {served}, written {want}")
    bed.seeding_done()
    if row.kept is not None:  # before the seed observation is saved: a saved seed always has its store
        resume.keep(bed, row.kept)


def c1(row: Row, obs: dict[str, Any]) -> None:
    """C1: restart on a fresh copy with no edit; read (and audit) every context."""
    vols = row.bed.fresh(obs, "C1")
    with row.sessions.sut(obs, "C1", vols) as s:
        obs["reads"] = _read_all(row, s)
        if "audit" in row.profile.detection_points:
            obs["audits"] = {label: {"label": label, "context": ctx, "answer": s.call("audit", context=ctx)}
                             for label, ctx in row.plan.contexts.items()}


def c2(row: Row, obs: dict[str, Any]) -> None:
    """C2: restart on a fresh copy, write one more genuine record, read its context."""
    vols = row.bed.fresh(obs, "C2")
    extra, ctx = row.plan.extra(C2.write_label, C2.write_offset), row.plan.contexts[C2.write_label]
    obs["marker"] = extra.marker
    with row.sessions.sut(obs, "C2", vols) as s:
        obs["write"] = s.call("write", context=ctx, text=extra.text, meta=extra.meta)
        obs["read"] = s.call("read", context=ctx)


def _read_all(row: Row, s) -> dict[str, Any]:
    return {label: s.call("read", context=ctx) for label, ctx in row.plan.contexts.items()}
