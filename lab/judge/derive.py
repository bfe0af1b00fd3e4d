"""The derivation of a row from its loaded observations: pure, typed, no I/O.

``derive_rows`` turns a :class:`SavedRow` (profile, environment and every trial's
:class:`~lab.judge.observation.Observation`, as :func:`lab.resultset.results.load_saved`
reads them) into the rows of one SUT configuration, one per detection point: the controls,
each case's cell (:func:`lab.judge.verdicts.judge_cell`, plus the evidence a reader needs)
and the score. ``c3_disagreements`` re-runs C3 (:mod:`lab.judge.c3`) on the evidence each
observation saved and names every case whose saved C3 result it does not give.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

from lab.cases.revisions import CURRENT, Revision
from lab.cases.variants import DEFAULT, case_of, is_variant, variant_trials
from lab.judge.c3 import C3Result, check_edit, check_restore
from lab.judge.observation import (Cell, CellEvidence, ControlResult, EditsLanded, Json, Observation, ShapeError,
                                   TrialError)
from lab.judge.row import ROW_SCHEMA, RowShapeError, read_row
from lab.judge.scoring import score
from lab.judge.verdicts import judge_c1, judge_c2, judge_cell
from lab.judge.weakest import weakest


def trials_for(revision: Revision) -> tuple[str, ...]:
    """Every base trial a row of ``revision`` holds, besides profile.json and environment.json."""
    return ("seed", "C1", "C2", *revision.cases)


#: Every trial a row's observation folder may hold under this lab's revision.
TRIALS = trials_for(CURRENT)


def trials_of(saved: dict[str, Any], revision: Revision = CURRENT) -> list[str]:
    """Every trial a row holds once complete: the revision's base trials, and after each case's base
    trial the variant trials it lists (``saved``: trial -> saved JSON, as far as saved)."""
    return list(read_trials(saved.get, revision))


def read_trials(read: Callable[[str], Any], revision: Revision = CURRENT) -> dict[str, Any]:
    """Trial -> ``read(trial)`` (the saved JSON, None where absent) for the revision's base trials and,
    after each case's base trial, the variant trials it lists: the one walk of a row's observation files."""
    out: dict[str, Any] = {}
    for trial in trials_for(revision):
        out[trial] = data = read(trial)
        for variant in variant_trials(data if isinstance(data, dict) else None):
            out[variant] = read(variant)
    return out


@dataclass(frozen=True)
class SavedRow:
    """What one row is derived from: the saved profile and environment, and each trial's
    observation (None where its file is absent): seed, C1, C2, each case's base trial and the
    variant trials its base trial lists; and the method revision whose cases the row measured."""

    profile: Json
    environment: Json | None
    trials: Mapping[str, Observation | None]
    revision: Revision = CURRENT


def derive_rows(saved: SavedRow, run: Json) -> list[Json]:
    """Rows (one per detection point) from a row's saved observations; ``run`` gives lab, run id, date.
    Each trial is asked of ``saved.trials`` once, and a case's trials are let go once its cells are
    judged (:mod:`lab.resultset.saved` reads them from their files one at a time)."""
    profile, trials = saved.profile, saved.trials
    seed = trials.get("seed") or Observation(error=TrialError(message="no seed observation"))
    plan, filters = seed.plan or {}, profile.get("signals") or []
    seed_error = seed.error.message if seed.error else None
    reported = seed.describe.result if seed.describe else None
    del seed  # its writes and reads (30 MB at 10,000 records) are not held through the cases
    missing = "not measured (seeding failed)" if seed_error else "not measured (run interrupted?)"
    c1 = trials.get("C1") or Observation(error=TrialError(message=missing))
    c2 = trials.get("C2") or Observation(error=TrialError(message=missing))
    ordered = (profile.get("capabilities") or {}).get("order", True)
    controls = {"C1": judge_c1(c1, plan, filters, ordered) if plan else ControlResult(ok=False, reason=missing),
                "C2": judge_c2(c2)}
    evaluable = controls["C1"].ok and controls["C2"].ok
    points = profile.get("detection_points", ["read"])
    cells: dict[str, dict[str, Json]] = {point: {} for point in points}
    landed: dict[bool, list[str]] = {True: [], False: []}
    variants_landed: dict[bool, list[str]] = {True: [], False: []}
    alive = False  # a case saved with the SUT alive across its edit makes the row alive
    for cid in saved.revision.cases:
        base = trials.get(cid)
        if base is not None and base.c3 is not None:
            landed[base.c3.ok].append(cid)
        alive = alive or (base is not None and base.sut_stopped_during_edit is False)
        obs = base or Observation(case=cid, status="error", error=TrialError(
            stage="seed" if seed_error else "harness", message=missing))
        judged = [((obs.intended or {}).get("variant") or DEFAULT, cid, obs)]
        for entry in obs.variants or []:
            variant = trials.get(entry["trial"])
            if variant is not None and variant.c3 is not None:
                variants_landed[variant.c3.ok].append(entry["trial"])
            judged.append((entry["name"], entry["trial"], variant or Observation(
                case=cid, variant=entry["name"], status="error", error=TrialError(stage="harness", message=missing))))
        for point in points:
            cells[point][cid] = weakest([(name, trial, _with_evidence(o, judge_cell(
                o, c1, point, filters, profile.get("observation_class", "a"), ordered), trial))
                for name, trial, o in judged]).to_json()
    row_controls = {**{k: v.to_json() for k, v in controls.items()},
                    "C3": EditsLanded(ok=not landed[False], landed=landed[True], not_landed=landed[False],
                                      variants_landed=variants_landed[True],
                                      variants_not_landed=variants_landed[False]).to_json()}
    reason = None if evaluable else (f"seeding failed: {seed_error}" if seed_error else "; ".join(
        f"{k}: {v.reason}" for k, v in controls.items() if not v.ok))
    position = "alive" if alive else profile.get("position") or "stopped"
    return [_written({
        "schema": ROW_SCHEMA, "row": profile["row"], "detection_point": point,
        "title": profile.get("title"),
        "sut": {**(profile.get("sut") or {}), "reported": reported},
        "runtime": saved.environment or {}, "store": profile.get("store"),
        "configuration": profile.get("configuration"), "volumes": profile.get("volumes"),
        "capabilities": profile.get("capabilities"), "dut_boundary": profile.get("dut_boundary"),
        "signals_documented": filters, "position": position, "sut_stopped_during_edits": position == "stopped",
        "method_revision": saved.revision.name, "lab": run.get("lab"), "run_id": run.get("run_id"),
        "date": run.get("started"), "controls": row_controls, "evaluable": evaluable,
        "not_evaluable_reason": reason, "cells": cells[point], **score(cells[point], evaluable, saved.revision),
        "notes": profile.get("notes"), "observations": f"observations/{profile['row']}",
    }) for point in points]


def _written(row: Json) -> Json:
    """``row`` once the model has read it (it is what the model writes back, never copied: a row holds the
    served texts of every case); ``ShapeError`` where observations of another shape made it another shape."""
    try:
        read_row(row)
        return row
    except RowShapeError as exc:
        raise ShapeError(f"{row['observations']}: the row derived from them is not a memlab row: {exc}") from None


def _with_evidence(obs: Observation, cell: Cell, trial: str) -> Cell:
    """The cell plus the evidence a reader needs (edit, C3, served, signals)."""
    read, opened = obs.read, obs.open
    c3 = obs.c3.to_json(only={"ok", "reasons", "evidence", "files"}) if obs.c3 else {}
    evidence = CellEvidence(
        intended=obs.intended, statements=(obs.applied or {}).get("statements"),
        c3={k: c3.get(k) for k in ("ok", "reasons", "evidence", "files")},
        served=[r.get("text") for r in read.records or []] if read and read.ok else None,
        refusal=(read.error if read else None) or (opened.error if opened else None),
        signals=((read.signals if read else None) or []) + ((opened.signals if opened else None) or []),
        timings=obs.timings, observation=f"{trial}.json")
    return cell.model_copy(update={"evidence": evidence})


def c3_outcomes(obs: Observation, layout: Json) -> list[C3Result]:
    """Every C3 result the observation's saved evidence allows: C3 re-run on the records read before
    and after the edit (and, for a restore case, between the SUT's op and the restore) and on the
    file-level diffs. A restore case's byte-level comparison uses the volume digests it saved
    (``digests_before``, ``digests_after``); where they are not saved (every set so far), both
    of its outcomes are allowed."""
    c3, spec = obs.c3, obs.intended or {}
    assert c3 is not None
    missing = [k for k in ("records_before", "records_after") if getattr(c3, k) is None]
    if missing:
        raise ValueError(f"the observation saved no {' or '.join(missing)}")
    if c3.records_between is None:
        return [check_edit(spec, layout, c3.records_before, c3.records_after, c3.files or {},
                           c3.untouched_volumes, c3.sidecar)]
    named = spec.get("markers") or [spec.get("marker")]
    saved = c3.digests_before is not None and c3.digests_after is not None
    pairs = [(c3.digests_before, c3.digests_after)] if saved else [({}, {}), ({}, {"not saved": True})]
    return [check_restore(obs.case, named, c3.records_before, c3.records_between, c3.records_after,
                          before, after, layout) for before, after in pairs]


def c3_disagreements(saved: SavedRow) -> list[tuple[str, str]]:
    """``(case, what differs)`` for every case whose saved C3 result C3 does not give again."""
    layout, out = saved.profile.get("store") or {}, []
    for cid in (t for t in saved.trials if case_of(t) in saved.revision.cases):
        obs = saved.trials.get(cid)
        differs = c3_disagreement(obs, layout) if obs is not None else None
        if differs:
            out.append((cid, differs))
    return out


def c3_disagreement(obs: Observation, layout: Json) -> str | None:
    """What differs when C3, re-run on the observation's saved evidence, does not give its saved C3 result
    again (None when it does, or the observation holds no C3)."""
    if obs.c3 is None:
        return None
    stated = obs.c3.to_json(only={"ok", "reasons", "evidence"})
    try:
        again = [r.to_json() for r in c3_outcomes(obs, layout)]
    except Exception as exc:  # untrusted evidence fed to the C3 rules: a finding, not a crash
        return f"C3 cannot be re-run on the saved evidence: {type(exc).__name__}: {exc}"
    if stated in again:
        return None
    return (f"the saved C3 says ok={stated.get('ok')} {stated.get('reasons')}; re-run on "
            f"its saved evidence it gives ok={again[0]['ok']} {again[0]['reasons']}")
