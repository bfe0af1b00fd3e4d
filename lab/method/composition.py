"""The composition of one row: the method's at-rest trials (the edits alone), then, on the same seeded
volumes, each SUT move alone and every sequence of moves holding one edit, or a pair of them.

Each case's sequences run in its own unit, after its at-rest trials (they name the edits the
sequences make: :mod:`lab.compose.search`); each SUT move alone is a unit of its own. The pairs
(:mod:`lab.compose.pairs`, chosen from every case's at-rest trials) run after the last case's unit,
in the unit that ends it. A sequence trial is a fresh copy of the seeded volumes; its moves in order
(an edit by the generic editor with its C3, the SUT stopped; a pair's two edits each with its own
C3, saved in its move; a SUT move in a SUT started for it and stopped after); then a restart and the
read (and audit) of the edits' context, as at rest. A process-alive row is composed as its edits
alone were measured: one SUT held across the whole sequence (the edit made while it runs, each SUT
move in that process, ``restart`` a real stop and start of it), and the read in it, with no restart.
Observations are saved under
``observations/<row>/compose/`` as they end; verdicts are derived afterwards
(:mod:`lab.compose.judge`). Part of the method: run by :mod:`lab.method.rowwork` when run.json names
a composition.
"""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

from edits.model import EditSpec
from lab.cases import BY_ID
from lab.cases.variants import spec_from_json, spec_json
from lab.compose import moves as mv
from lab.compose.alone import EDIT_KEYS
from lab.compose.moves import FOLDER, single_name
from lab.compose.pairs import edit_pairs
from lab.compose.search import edit_moves, erase_victim, pair_targets, single_targets
from lab.method.edit_step import EditStep
from lab.method.procedure import RowProcedure
from lab.method.restore_step import RestoreStep
from lab.method.sessions import Session, StageError
from lab.resultset.saved import SavedTrials


class ComposeProcedure(RowProcedure):
    """The method for one row (:class:`RowProcedure`) plus its sequences of ``length`` moves; the
    row's saved observations are read from ``obs_dir``."""

    def __init__(self, *args: Any, obs_dir: Path, length: int = 2, edits: int = 1, restores: bool = False,
                 **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.obs_dir, self.length, self.edits, self.restores = Path(obs_dir), length, edits, restores
        self.suts, _ = mv.sut_moves(self.profile.capabilities.erasure, self.profile.detection_points)
        self._cases_left, self._lock = 0, threading.Lock()

    def complete(self) -> bool:
        """Every at-rest trial and every composition trial saved before this (resumed) run."""
        from lab.resultset.composition import pending
        return super().complete() and not pending(self.obs_dir, self.length, self.edits, self.restores)

    def trials(self, failed: str = "") -> list[tuple[str, Callable[[], None]]]:
        """The at-rest units, each case's followed by its sequences (and, ending the last of them, the
        pairs); then each SUT move alone (a failed seeding composes nothing: the at-rest trials say why)."""
        units = super().trials(failed)
        if failed:
            return units
        self._cases_left = sum(name in BY_ID for name, _ in units)
        out = [(name, (lambda u=unit, n=name: (u(), self._compose_case(n), self._case_done())) if name in BY_ID
                else unit) for name, unit in units]
        for move in self.suts:
            out.append((f"{FOLDER}-{move.name}", lambda m=move: self._singles(m)))
        return out

    def _case_done(self) -> None:
        """One case's unit ended; the last one runs the pairs (they read every case's at-rest trials)."""
        with self._lock:
            self._cases_left -= 1
            if self._cases_left or self.edits == 1:
                return
        self._pairs()

    def _pairs(self) -> None:
        """Every sequence of the pairs of edits worth running, then each SUT move alone where only a pair's
        erase acts (those saved before a resume skipped)."""
        trials = SavedTrials(self.obs_dir)
        edits, _ = edit_moves(trials, restores=self.restores)
        pairs, _ = edit_pairs(trials, self.profile.to_json(), edits)
        for seq in mv.sequences([], self.suts, self.length, pairs):
            name, made = mv.name_of(seq), mv.edits_of(seq)
            if not self._saved(name):
                specs = {e: spec_from_json(trials[e.trial].intended) for e in made}
                self._trial(f"{FOLDER}/{name}", lambda obs, s=seq, sp=specs: self._sequence(s, sp, obs),
                            {"case": name, "sequence": [m.name for m in seq], "edits": [e.trial for e in made]})
        plan = self.row.plan.to_json()
        for move in self.suts:
            for label, victim in pair_targets(trials, edits, move, plan, pairs):
                self._alone_once(move, label, victim)

    def _saved(self, trial: str) -> bool:
        return (self.obs_dir / FOLDER / f"{trial}.json").is_file()

    def _compose_case(self, cid: str) -> None:
        """Every sequence of the case's edit moves (those saved before a resume skipped)."""
        trials = SavedTrials(self.obs_dir)
        edits, _ = edit_moves({t: trials.get(t) for t in [cid, *_variant_names(trials.get(cid))]},
                              restores=self.restores)
        for edit in (m for m in edits if m.case == cid):
            intended = trials[edit.trial].intended  # a restore's: its SUT op, made again in each sequence
            spec = {edit: intended if edit.kind == "restore" else spec_from_json(intended)}
            for seq in mv.sequences([edit], self.suts, self.length):
                name = mv.name_of(seq)
                if not self._saved(name):
                    self._trial(f"{FOLDER}/{name}", lambda obs, s=seq, sp=spec: self._sequence(s, sp, obs),
                                {"case": cid, "sequence": [m.name for m in seq], "edit": edit.trial})

    def _singles(self, move: mv.Move) -> None:
        """A SUT move alone on a fresh copy, on each context the edits read (an ``erase`` once per record
        the sequences erase there)."""
        trials = SavedTrials(self.obs_dir)
        edits, _ = edit_moves(trials, restores=self.restores)
        for label, victim in single_targets(trials, edits, move, self.row.plan.to_json()):
            self._alone_once(move, label, victim)

    def _alone_once(self, move: mv.Move, label: str, victim: str | None) -> None:
        name = single_name(move, label, victim)
        if not self._saved(name):
            self._trial(f"{FOLDER}/{name}", lambda obs: self._alone(move, label, victim, obs),
                        {"case": name, "sequence": [move.name]})

    def _alone(self, move: mv.Move, label: str, victim: str | None, obs: dict[str, Any]) -> None:
        obs["read_label"] = label
        trial = single_name(move, label, victim)
        vols = self.row.bed.fresh(obs, trial)
        with Hold(self, obs, trial, vols) as hold:
            obs["moves"] = [self._sut_move(move, obs, trial, vols, label, victim, 0, hold)]
            self._final(obs, trial, vols, label, hold)

    def _sequence(self, seq: tuple[mv.Move, ...], specs: dict[mv.Move, Any], obs: dict[str, Any]) -> None:
        """Fresh copy -> the moves in order -> restart (none for a held SUT) -> read (and audit) the edits'
        context. A pair's edits each save their edit and C3 in their move (:data:`EDIT_KEYS`). A restore
        move (its spec: its at-rest intent) is its at-rest fault step: copy, its SUT op, the copy put back."""
        label, trial = BY_ID[next(iter(specs)).case].read_label, mv.name_of(seq)
        obs["read_label"] = label
        vols = self.row.bed.fresh(obs, trial)
        intents = [spec_json(spec) if isinstance(spec, EditSpec) else spec for spec in specs.values()]
        victim = erase_victim(self.row.plan.to_json(), label, intents[0] if len(intents) == 1 else intents)
        obs["moves"], writes = [], 0
        with Hold(self, obs, trial, vols) as hold:
            for move in seq:
                if move.edits:
                    started = time.monotonic()
                    step = RestoreStep(BY_ID[move.case], trial) if move.kind == "restore" else \
                        EditStep(BY_ID[move.case], specs[move], trial)
                    step.apply(self.row, obs, vols, hold.session)
                    obs["timings"]["edit_c3"] = round(obs["timings"].get("edit_c3", 0) + time.monotonic() - started, 6)
                    obs["moves"].append({"move": move.name, **({k: obs.pop(k) for k in EDIT_KEYS[1:]}
                                                               | {"case": move.case} if len(specs) > 1 else {})})
                else:
                    obs["moves"].append(self._sut_move(move, obs, trial, vols, label, victim, writes, hold))
                    writes += move.kind == "write"
            self._final(obs, trial, vols, label, hold)

    def _sut_move(self, move: mv.Move, obs: dict[str, Any], trial: str, vols: dict[str, Path], label: str,
                  victim: str | None, writes: int, hold: "Hold") -> dict[str, Any]:
        """One SUT move, in a SUT started for it (or the held one): what it was asked and answered (and its open)."""
        record: dict[str, Any] = {"move": move.name}
        if hold.session is not None:
            if move.kind == "restart":
                record["open"] = hold.restart()
            else:
                self._act(move, hold.session, record, label, victim, writes)
            return record
        with self.row.sessions.sut(obs, trial, vols) as s:
            record["open"] = obs.pop("open", None)
            self._act(move, s, record, label, victim, writes)
        return record

    def _act(self, move: mv.Move, s: Session, record: dict[str, Any], label: str, victim: str | None,
             writes: int) -> None:
        """What a write, erase or audit move asks the SUT (a restart asks nothing), with its answer."""
        ctx = self.row.plan.contexts[label]
        if move.kind == "write":
            extra = self.row.plan.extra(label, mv.WRITE_OFFSET + writes)
            record.update(marker=extra.marker, answer=s.call("write", context=ctx, text=extra.text, meta=extra.meta))
        elif move.kind == "erase":
            if victim is None or victim not in self.row.bed.seed_ids:
                raise StageError("erase", f"no SUT record id known for the record to erase ({victim})")
            record.update(victim=victim, answer=s.call("erase", context=ctx, record=self.row.bed.seed_ids[victim]))
        elif move.kind == "audit":
            record["answer"] = s.call("audit", context=ctx)

    def _final(self, obs: dict[str, Any], trial: str, vols: dict[str, Path], label: str, hold: "Hold") -> None:
        """Restart and read (and audit) the context, as the at-rest read does: the held SUT reads without one."""
        edited_at = time.monotonic()
        with self.row.sessions.held_or_new(obs, trial, vols, hold.session) as s:
            obs["timings"]["restart"] = 0.0 if hold.session is not None else round(time.monotonic() - edited_at, 6)
            self._read(_reading(label), obs, s, vols, edited_at)


class Hold:
    """The SUT a process-alive row keeps across a whole sequence, as its edits alone were measured (none
    for a stopped row: ``session`` is None); its ``restart`` is a real stop and start of that process."""

    def __init__(self, procedure: ComposeProcedure, obs: dict[str, Any], trial: str, vols: dict[str, Path]):
        self.procedure, self.obs, self.trial, self.vols = procedure, obs, trial, vols
        self.stack, self.session = ExitStack(), None

    def __enter__(self) -> "Hold":
        self.session = self.stack.enter_context(self.procedure._held(self.obs, self.trial, self.vols))
        return self

    def restart(self) -> Any:
        """Stop the held SUT and start it anew on the same volumes; its open's answer."""
        self.stack.close()
        self.stack = ExitStack()
        self.session = self.stack.enter_context(self.procedure.row.sessions.sut(self.obs, self.trial, self.vols))
        return self.obs.pop("open", None)

    def __exit__(self, *exc: Any) -> None:
        self.stack.close()


def _variant_names(base: Any) -> list[str]:
    return [v["trial"] for v in (getattr(base, "variants", None) or [])]


def _reading(label: str) -> Any:
    """A case that reads context ``label``: the procedure's read takes the case only for its label."""
    return next(c for c in BY_ID.values() if c.read_label == label)
