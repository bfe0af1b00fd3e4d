"""The store dumps of a row's observations, stored once: content-addressed, and each later state as
what differs from the seeded store.

Every case of a row starts from a copy of the same seeded store, so the records the editor read
before each edit (``c3.records_before``) are one dump, saved again in every trial; and the records
after an edit (``c3.records_after``; a restore case's ``c3.records_between`` too) differ from it in
the few records the edit touched. At 10,000 records a trial saved 35-51 MB of dumps. A row's
observation folder now keeps each dump once, as ``dumps/<sha256>.json`` (its name the SHA-256 of
its bytes), and an observation refers to it:

- ``records_before``: ``{"dump": "sha256:<hex>"}``;
- ``records_between`` and ``records_after``: ``{"base": "sha256:<hex>", "head": H, "tail": T,
  "middle": [...]}``: the first ``H`` and the last ``T`` records of the base dump, with ``middle``
  between them (what differs; every record when nothing is shared); a reader also takes a state
  given as a dump of its own, ``{"dump": "sha256:<hex>"}``.

:func:`stored` makes that form of an observation when it is saved; :func:`resolved` gives the lists
back when it is read, checking each dump against its name (a changed dump, a missing one, a
reference that is not a SHA-256, or a head and tail the base does not hold are a
:class:`ShapeError`, as any malformed observation). An observation whose lists are inline (every set
written before) is read as it is. Verify recomputes everything from the lists as resolved, and the
manifest pins every dump as it pins every evidence file.

Example::

    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> before = [{"payload": f"r{i}"} for i in range(4)]
    >>> after = before[:1] + [{"payload": "edited"}] + before[2:]
    >>> saved = stored(folder, {"case": "T1", "c3": {"records_before": before, "records_after": after}})
    >>> {k: saved["c3"]["records_after"][k] for k in ("head", "tail", "middle")}
    {'head': 1, 'tail': 2, 'middle': [{'payload': 'edited'}]}
    >>> resolved(folder, json.loads(json.dumps(saved)), "T1.json")["c3"] == {"records_before": before,
    ...                                                                      "records_after": after}
    True
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Callable, Iterable

from lab import safewrite
from lab.judge.json_same import same
from lab.judge.observation import ShapeError
from lab.resultset.files import NotStreamed, json_pieces, json_text
from lab.resultset.loading import MAX_JSON_BYTES, JSONProblem, loads_strict

DUMPS = "dumps"  # the folder of a row's dumps, beside its observations
STATES = ("records_between", "records_after")  # kept as what differs from records_before
_REF = re.compile(r"^sha256:([0-9a-f]{64})$")
_DELTA_KEYS = {"base", "head", "tail", "middle"}


def stored(folder: Path, obs: dict[str, Any]) -> dict[str, Any]:
    """``obs`` as it is saved in ``folder``: its ``records_before`` written once as a dump and referred
    to, each later state as what differs from it (see the module). Anything else as it is."""
    c3 = obs.get("c3")
    if not isinstance(c3, dict) or not isinstance(c3.get("records_before"), list):
        return obs
    ref, pieces = _encoded(c3["records_before"])
    path = Path(folder) / DUMPS / f"{ref[7:]}.json"
    if not path.is_file():
        safewrite.write_chunks(path, pieces())
    out = {**c3, "records_before": {"dump": ref}}
    for key in STATES:  # compared as held: records equal here are equal as written
        if isinstance(c3.get(key), list):
            out[key] = _delta(ref, c3["records_before"], c3[key])
    return {**obs, "c3": out}


def dump_files(folder: Path, saved: dict[str, Any]) -> list[Path]:
    """The dump files an observation as :func:`stored` made it refers to (what it saved beside itself)."""
    c3 = saved.get("c3")
    ref = c3.get("records_before") if isinstance(c3, dict) else None
    match = _REF.match(ref.get("dump") or "") if isinstance(ref, dict) else None
    return [Path(folder) / DUMPS / f"{match.group(1)}.json"] if match else []


def resolved(folder: Path, data: Any, where: str, kept: dict[str, list] | None = None) -> Any:
    """``data`` (an observation as read from ``folder``) with its dumps' lists in place; ``where``
    names the file in errors. An observation with inline lists is returned as it is. ``kept``: the
    last dump read and checked, by name, reused by the next observation that refers to it (every
    case of a row refers to one; the lists are read, never changed)."""
    c3 = data.get("c3") if isinstance(data, dict) else None
    if not isinstance(c3, dict) or not isinstance(c3.get("records_before"), dict):
        return data
    ref = c3["records_before"]
    if set(ref) != {"dump"}:
        raise ShapeError(f"{where}: field c3.records_before: a stored dump is {{\"dump\": \"sha256:<hex>\"}}")
    base = _dump(Path(folder), ref["dump"], f"{where}: field c3.records_before", kept)
    out = {**c3, "records_before": base}
    for key in STATES:
        state, at = c3.get(key), f"{where}: field c3.{key}"
        if isinstance(state, dict):
            out[key] = _dump(Path(folder), state["dump"], at, kept) if set(state) == {"dump"} else _apply(
                ref["dump"], base, state, at)
    return {**data, "c3": out}


def _encoded(records: list) -> tuple[str, Callable[[], Iterable[bytes]]]:
    """The dump's name and its bytes as :func:`write_json` writes them, made again piece by piece when
    asked for (each case's trial names the one dump again: its text is never held whole)."""
    digest = hashlib.sha256()
    try:
        for piece in json_pieces(records):
            digest.update(piece)
        return "sha256:" + digest.hexdigest(), lambda: json_pieces(records)
    except NotStreamed:  # rare: a surrogate's escape, written as json_text writes it
        data = json_text(records).encode("utf-8", "backslashreplace")
        return "sha256:" + hashlib.sha256(data).hexdigest(), lambda: (data,)


def _delta(ref: str, before: list, now: list) -> dict[str, Any]:
    """``now`` as the records it shares with ``before`` at its head and tail, and the rest: shared only
    where the same as written (``1`` and ``true`` are equal in Python, not in the saved store)."""
    head = 0
    while head < min(len(before), len(now)) and same(before[head], now[head]):
        head += 1
    tail = 0
    while tail < min(len(before), len(now)) - head and same(before[-1 - tail], now[-1 - tail]):
        tail += 1
    return {"base": ref, "head": head, "tail": tail, "middle": now[head:len(now) - tail]}


def _dump(folder: Path, ref: Any, where: str, kept: dict[str, list] | None = None) -> list:
    match = _REF.match(ref) if isinstance(ref, str) else None
    if match is None:
        raise ShapeError(f"{where}: {ref!r} is not a stored dump's name (sha256:<64 hex digits>)")
    if kept is not None and ref in kept:
        return kept[ref]
    path = folder / DUMPS / f"{match.group(1)}.json"
    if path.is_symlink() or not path.is_file():
        raise ShapeError(f"{where}: the dump {DUMPS}/{path.name} is missing from the row's observations")
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_JSON_BYTES + 1)
    except OSError as exc:
        raise ShapeError(f"{where}: {path.name} cannot be read: {exc.strerror}") from None
    if len(raw) > MAX_JSON_BYTES:
        raise ShapeError(f"{where}: {DUMPS}/{path.name} holds more than {MAX_JSON_BYTES} bytes")
    if hashlib.sha256(raw).hexdigest() != match.group(1):
        raise ShapeError(f"{where}: {DUMPS}/{path.name} does not hash to its name: it was changed after it was saved")
    try:
        records = loads_strict(raw, str(path))
    except JSONProblem as exc:
        raise ShapeError(f"{where}: {exc}") from None
    if not isinstance(records, list):
        raise ShapeError(f"{where}: {DUMPS}/{path.name} is not a list of records")
    if kept is not None:  # one dump at a time: memory stays one trial's
        kept.clear()
        kept[ref] = records
    return records


def _apply(ref: str, base: list, delta: Any, where: str) -> list:
    if set(delta) != _DELTA_KEYS:
        raise ShapeError(f"{where}: a state stored as a difference has exactly the keys {sorted(_DELTA_KEYS)}")
    head, tail, middle = delta["head"], delta["tail"], delta["middle"]
    if delta["base"] != ref:
        raise ShapeError(f"{where}: its base {delta['base']!r} is not the observation's records_before {ref!r}")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (head, tail)) \
            or head + tail > len(base):
        raise ShapeError(f"{where}: head {head!r} and tail {tail!r} are not two counts the base's "
                         f"{len(base)} records hold")
    if not isinstance(middle, list):
        raise ShapeError(f"{where}: middle is not a list of records")
    return base[:head] + middle + base[len(base) - tail:]
