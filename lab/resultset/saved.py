"""A row's saved observations, read one trial at a time.

:func:`load_saved` returns a :class:`~lab.judge.derive.SavedRow` whose trials are read from
their files each time one is asked for, and never kept: a row's observations hold the whole
store before and after every edit (about 50 MB a trial at 10,000 records), so holding them all
at once cost gigabytes, where the derivation and the checks over them walk the trials one by
one and hold one case (with its variants) at a time. Only the store dump the trials share
(:mod:`lab.resultset.stored_dumps`) is kept once read and checked. A trial that lacks its type's shape
raises :class:`ShapeError` (naming the file and the field) when it is asked for; which trials
the folder holds (the walk of :func:`lab.judge.derive.read_trials`: a variant trial is one
its case's base trial lists) is read once, when they are first listed.

Example::

    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "row-a"
    >>> folder.mkdir()
    >>> _ = (folder / "profile.json").write_text(json.dumps({"row": "row-a"}))
    >>> _ = (folder / "C2.json").write_text(json.dumps({"case": "C2", "status": "measured"}))
    >>> saved = load_saved(folder)
    >>> saved.trials["C2"].status, saved.trials.get("C1"), list(saved.trials)
    ('measured', None, ['C2'])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lab.cases.revisions import CURRENT, Revision
from lab.judge.derive import SavedRow, read_trials
from lab.judge.observation import Observation, ShapeError
from lab.resultset.files import read_json
from lab.resultset.stored_dumps import resolved


class SavedTrials(Mapping):
    """Trial -> its :class:`Observation`, read from the row folder each time it is asked for."""

    def __init__(self, folder: Path, revision: Revision = CURRENT):
        self.folder = Path(folder)
        self.revision = revision
        self.where = f"{self.folder.parent.name}/{self.folder.name}"
        self._names: list[str] | None = None
        self._dump: dict[str, list] = {}  # the store dump the trials refer to, read and checked once

    def __getitem__(self, trial: str) -> Observation:
        data = _maybe(self.folder / f"{trial}.json") if _is_trial_name(trial) else None
        if data is None:
            raise KeyError(trial)
        where = f"{self.where}/{trial}.json"
        return Observation.load(resolved(self.folder, data, where, self._dump), where, trial)

    def __iter__(self) -> Iterator[str]:
        if self._names is None:
            listed = read_trials(self._listing, self.revision)
            self._names = [trial for trial, data in listed.items() if data is not None]
        return iter(self._names)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def complete(self) -> bool:
        """Whether every trial the row holds once complete is saved (reading only the variant lists)."""
        return all(data is not None for data in read_trials(self._listing, self.revision).values())

    def _listing(self, trial: str) -> dict[str, Any] | None:
        """What the walk of the folder reads of a trial: its variant list (a base trial), or that it is there."""
        path = self.folder / f"{trial}.json"
        if "." in trial:
            return {} if path.is_file() else None
        data = _maybe(path)
        return None if data is None else {"variants": data.get("variants") if isinstance(data, dict) else None}


def load_saved(folder: Path, revision: Revision = CURRENT) -> SavedRow:
    """A row's observation folder: its profile (``ShapeError`` when it names no row), its environment
    and its trials of ``revision`` (the set's), each read when asked for (see the module)."""
    folder = Path(folder)
    profile = read_json(folder / "profile.json")
    if not isinstance(profile, dict) or not isinstance(profile.get("row"), str):
        raise ShapeError(f"{folder.parent.name}/{folder.name}/profile.json: field row: missing or not a string")
    return SavedRow(profile, _maybe(folder / "environment.json"), SavedTrials(folder, revision), revision)


def _is_trial_name(trial: Any) -> bool:
    """A trial's name as the lab writes them (seed, C1, T3, T3.v2): never a path."""
    return isinstance(trial, str) and trial.replace(".", "").isalnum()


def _maybe(path: Path) -> Any:
    try:
        return read_json(path)
    except FileNotFoundError:
        return None
