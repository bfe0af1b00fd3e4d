"""A composition on disk, inside the at-rest result set it extends, and what ``verify`` checks of it.

Its trials are saved in ``observations/<row>/compose/<trial>.json`` (store dumps shared with the
row's at-rest trials), its rows in ``composition/<row>@<point>.json``; run.json says ``compose`` (the
length searched, and ``edits``: 2 when sequences may hold a pair of edits; a set without it, written
before pairs, holds one edit per sequence and is read exactly as it was; ``restores``: true when the
restore cases were offered as moves, and a set without it is read as one that left them out). The manifest pins both as
evidence, byte for byte, and ``memlab verify`` derives every compose row again from the saved trials
(:func:`problems`: every row derived again and equal to its file, none missing or extra, C3 re-run on
every sequence's saved edit evidence, each edit of a pair on its own).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from lab.cases.revisions import revision_stated
from lab.compose.alone import edit_views
from lab.compose.judge import derive_compose
from lab.compose.moves import FOLDER
from lab.compose.results import ComposeRow, read_row
from lab.compose.search import expected
from lab.judge.derive import c3_disagreement
from lab.judge.observation import Observation
from lab.resultset.files import read_json, write_json
from lab.resultset.saved import load_saved
from lab.resultset.stored_dumps import resolved

#: The folder of a set holding its compose rows.
ROWS = "composition"


def composed(obs_dir: Path) -> dict[str, Observation | None]:
    """A row's composition trials by name (each read and checked for its shape)."""
    folder, kept = Path(obs_dir) / FOLDER, {}
    if not folder.is_dir():
        return {}
    out: dict[str, Observation | None] = {}
    for path in sorted(folder.glob("*.json")):
        where = f"{obs_dir.name}/{FOLDER}/{path.name}"
        out[path.stem] = Observation.from_json(resolved(Path(obs_dir), read_json(path), where, kept), where)
    return out


def searched(run: dict[str, Any]) -> tuple[int, int]:
    """``(length, edits)`` of the composition run.json names: the moves per sequence, and how many edits a
    sequence may hold (1 where it states none: every set written before pairs)."""
    stated = run.get("compose") or {}
    return int(stated.get("length", 2)), int(stated.get("edits", 1))


def restores(run: dict[str, Any]) -> bool:
    """Whether the composition run.json names offered the restore cases as moves (not where it does not
    say so: every set written before restore moves)."""
    return bool((run.get("compose") or {}).get("restores"))


def pending(obs_dir: Path, length: int, edits: int = 1, with_restores: bool = False) -> list[str]:
    """The composition trials of a row not saved yet (all of them until its at-rest trials are)."""
    saved = load_saved(obs_dir)
    done = {p.stem for p in (Path(obs_dir) / FOLDER).glob("*.json")}
    return [name for name in expected(saved.trials, saved.profile, length, edits, with_restores) if name not in done]


def derive_saved(obs_dir: Path, run: dict[str, Any], trials: dict[str, Observation | None] | None = None
                 ) -> list[ComposeRow]:
    """The compose rows of one row, derived from its saved trials (``trials``: its composition trials,
    when already read); ``run`` is run.json (its ``compose`` names the length and edits searched)."""
    length, edits = searched(run)
    revision = revision_stated(run.get("method_revision"))  # the set's cases, not this lab's
    return derive_compose(load_saved(obs_dir, revision), composed(obs_dir) if trials is None else trials, run,
                          length, edits, restores(run))


def write_rows(root: Path, obs_dir: Path, run: dict[str, Any]) -> list[ComposeRow]:
    """Derive one row's compose rows and write them under ``composition/``."""
    rows = derive_saved(obs_dir, run)
    for row in rows:
        write_json(Path(root) / ROWS / f"{row.row}@{row.detection_point}.json", row.to_json())
    return rows


def load_rows(root: Path) -> list[ComposeRow]:
    """Every compose row of a set (none when it holds no composition)."""
    folder = Path(root) / ROWS
    return [read_row(read_json(p), f"{ROWS}/{p.name}") for p in sorted(folder.glob("*.json"))] if folder.is_dir() \
        else []


def problems(root: Path, run: dict[str, Any], names: set[str]) -> Iterator[tuple[str, str, str]]:
    """The composition's problems in the set at ``root`` (none when run.json names no composition and
    the set holds no compose rows); ``names``: the rows the set measured."""
    root = Path(root)
    held = {p.name for p in (root / ROWS).glob("*.json")} if (root / ROWS).is_dir() else set()
    if not run.get("compose"):
        for name in sorted(held):
            yield "compose-not-derivable", f"{ROWS}/{name}", "a compose row in a set whose run.json names no composition"
        return
    derived: set[str] = set()
    for name in sorted(names):
        obs_dir = root / "observations" / name
        try:
            trials = composed(obs_dir)  # read once: for the rows and for C3
            rows = derive_saved(obs_dir, run, trials)
        except Exception as exc:  # untrusted files fed to the judge: a finding, never a crash
            yield "compose-not-derivable", f"observations/{name}/{FOLDER}", f"{type(exc).__name__}: {exc}"
            continue
        for row in rows:
            file = f"{row.row}@{row.detection_point}.json"
            derived.add(file)
            yield from _same(root, file, row.to_json())
        layout = load_saved(obs_dir).profile.get("store") or {}
        for trial, obs in trials.items():
            for move, view in edit_views(obs) if obs is not None else []:
                differs = c3_disagreement(view, layout)
                if differs:
                    where = f"observations/{name}/{FOLDER}/{trial}.json"
                    yield "c3-not-derivable", where if move == obs.case else f"{where} (edit {move})", differs
    for file in sorted(held - derived):
        yield "compose-not-derivable", f"{ROWS}/{file}", "no row of the set derives this compose row"


def _same(root: Path, file: str, again: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    path = root / ROWS / file
    if not path.is_file():
        yield "compose-not-derivable", f"{ROWS}/{file}", "missing: the saved trials derive it"
        return
    try:
        stated = read_json(path)
    except ValueError as exc:
        yield "compose-not-derivable", f"{ROWS}/{file}", f"cannot be read: {exc}"
        return
    if stated != json.loads(json.dumps(again)):
        keys = sorted(k for k in set(stated) | set(again) if stated.get(k) != again.get(k))
        yield "compose-not-derivable", f"{ROWS}/{file}", f"differs from what its saved trials give in {', '.join(keys)}"
