"""Reading a saved result set's manifest, rows and run record, with errors that say what to do.

Every JSON file of a set is read strictly (:func:`read_strict`): at most ``MAX_JSON_BYTES``,
nested at most ``MAX_JSON_DEPTH`` deep, no ``NaN``/``Infinity`` (nor a number too large for a
float, such as ``1e400``), no key twice in one object, no lone surrogate (``"\\ud800"``, which no
canonical encoding holds: lab.resultset.surrogates). JSON itself allows these, but a file
that uses them reads differently in different readers (a duplicate ``"verdict"`` is one
verdict to this lab and another to the next tool), so it is refused, never read.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.resultset.kinds import AT_REST, LIFECYCLE, described, kind_of_schema
from lab.resultset.run_record import RunRecord, RunShapeError, read_run
from lab.resultset.surrogates import ESCAPED, has_lone

if TYPE_CHECKING:
    from lab.judge.row import AtRestRow
    from lab.resultset.manifest import Manifest

#: The largest JSON file of a set read. Published files are below 1 MiB; a case's observation at
#: 10,000 records per context (``memlab run --records``) keeps its C3 dumps of the store: over
#: 32 MB.
MAX_JSON_BYTES = 128 * 1024 * 1024
#: The deepest nesting read (published files nest at most 10 deep).
MAX_JSON_DEPTH = 64

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class Unreadable(Exception):
    """The input is not a result set that can be read (the CLI exits 2 with this message)."""


class JSONProblem(Unreadable, ValueError):
    """A JSON file that is not read: ``kind`` is ``syntax``, ``size``, ``depth``, ``number``, ``duplicate``
    or ``surrogate``."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


def loads_strict(text: str | bytes, where: str) -> Any:
    """Parse JSON strictly (see the module); ``JSONProblem`` names ``where`` and what is wrong."""
    if isinstance(text, bytes):
        if len(text) > MAX_JSON_BYTES:
            raise _too_big(where, len(text))
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONProblem(f"{where} is not UTF-8 text ({exc})", "syntax") from None
    if len(text) > MAX_JSON_BYTES:
        raise _too_big(where, len(text))
    depth = _depth(text)
    if depth > MAX_JSON_DEPTH:
        raise JSONProblem(f"{where} nests {depth} deep; a memlab file nests at most {MAX_JSON_DEPTH} deep "
                          "(it was not written by memlab)", "depth")
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite, object_pairs_hook=_unique)
    except JSONProblem as exc:
        raise JSONProblem(f"{where}: {exc}", exc.kind) from None
    except (ValueError, RecursionError) as exc:
        raise JSONProblem(f"{where} cannot be read as JSON: {exc}", "syntax") from None
    if ESCAPED.search(text) and has_lone(value):
        raise JSONProblem(f"{where} holds a lone surrogate (a \\udXXX escape that is no Unicode character, so no "
                          "canonical encoding can hold it; memlab never writes one)", "surrogate")
    return value


def read_strict(path: Path) -> Any:
    """One JSON file read strictly: ``JSONProblem`` (file and problem), ``FileNotFoundError`` when absent."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a fifo in place of a file must not block the reader
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise JSONProblem(f"{path} cannot be read: {exc.strerror or exc}", "syntax") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen, which refuses a folder with a traceback
        os.close(fd)
        raise JSONProblem(f"{path} is not a regular file (a folder, fifo or device)", "syntax")
    with os.fdopen(fd, "rb") as fh:  # the bytes are loads_strict's alone: let go once decoded
        return loads_strict(fh.read(MAX_JSON_BYTES + 1), str(path))


def _too_big(where: str, size: int) -> JSONProblem:
    return JSONProblem(f"{where} holds more than {MAX_JSON_BYTES} bytes ({size} read); a memlab file is far "
                       "smaller (it was not written by memlab)", "size")


def _depth(text: str) -> int:
    """The deepest bracket nesting outside strings (checked before parsing: the parser recurses)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(_STEP[c] for c in brackets), default=0)


def _no_constant(name: str) -> Any:
    raise JSONProblem(f"{name} is not a number memlab writes (JSON has no NaN or Infinity)", "number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONProblem(f"the number {text[:40]} does not fit a float", "number")
    return value


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JSONProblem(f"key {key[:80]!r} appears twice in one object (readers disagree which one counts)",
                              "duplicate")
        out[key] = value
    return out


def set_kind(root: Path) -> str | None:
    """The kind of the result set at ``root`` (lab.resultset.kinds), or None: no set, or one that cannot be read."""
    root = Path(root)
    try:
        if (root / "manifest.json").is_file():
            manifest = read_strict(root / "manifest.json")
            return kind_of_schema(manifest.get("schema")) if isinstance(manifest, dict) else None
        if not (root / "run.json").is_file():
            return None
        run = read_strict(root / "run.json")
    except (OSError, ValueError):  # JSONProblem is a ValueError
        return None
    if not isinstance(run, dict):
        return None
    if isinstance(run.get("kind"), str):
        return run["kind"]
    return AT_REST if isinstance(run.get("rows"), list) else None


def holds_set(root: Path) -> bool:
    """Whether ``root`` is a result set's folder (its manifest, or the run.json of a run that wrote none
    yet), readable or not."""
    root = Path(root)
    return (root / "manifest.json").is_file() or (root / "run.json").is_file()


def load_manifest(root: Path) -> Manifest:
    """The manifest of an at-rest set, read by its record (lab.resultset.manifest); ``Unreadable`` with what
    is wrong and how to fix it."""
    # the typed manifest (pydantic) only where one is read: a lifecycle run reads none
    from lab.resultset.manifest import MANIFEST_SCHEMA, ManifestShapeError, read_manifest

    root = Path(root)
    if not root.is_dir():
        raise Unreadable(f"{root} is not a folder; pass a result-set folder (the --out of `memlab run`)")
    path = root / "manifest.json"
    try:
        manifest = read_strict(path)
    except FileNotFoundError:
        raise Unreadable(f"{path} is missing: not a memlab result set, or its run never finished") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        got = manifest.get("schema") if isinstance(manifest, dict) else type(manifest).__name__
        if isinstance(manifest, dict):  # a set of another kind (a lifecycle set, ...) is said to be one
            other = _other_kind(root)
            if other is not None:
                raise other
        raise Unreadable(f"{path}: schema {got!r}, expected {MANIFEST_SCHEMA!r}")
    try:
        return read_manifest(manifest)
    except ManifestShapeError as exc:
        raise Unreadable(f"{path}: {exc}; it was edited or written by another tool, so the set cannot be "
                         "verified") from None


def load_rows(root: Path) -> list[dict[str, Any]]:
    """Every row of a result set as its JSON (each read by its record first), sorted by row and detection
    point."""
    return sorted((row for row, _ in _read_rows(root)), key=lambda r: (r["row"], r["detection_point"]))


def load_row_records(root: Path) -> list[AtRestRow]:
    """Every row of a result set read by its record (lab.judge.row), sorted by row and detection point."""
    return sorted((record for _, record in _read_rows(root)), key=lambda r: (r.row, r.detection_point))


def _read_rows(root: Path) -> Iterator[tuple[dict[str, Any], AtRestRow]]:
    """Each row file of a set: its JSON and its record; ``Unreadable`` naming the first that is no row."""
    root = Path(root)
    if not root.is_dir():
        raise Unreadable(f"{root} is not a folder; pass a result-set folder (the --out of `memlab run`)")
    paths = sorted((root / "rows").glob("*.json"))
    if not paths:
        raise Unreadable(f"{root}/rows holds no row files; is this a memlab result set?")
    from lab.judge.row import RowShapeError, read_row  # here: the lifecycle gate reads sets through this module

    for path in paths:
        row = _read(path)
        try:
            yield row, read_row(row)
        except RowShapeError as exc:
            raise _other_kind(root) or Unreadable(
                f"{path} is not a memlab row: {exc}; `memlab verify` names what changed") from None


def _other_kind(root: Path) -> Unreadable | None:
    """Why a set of another kind (lab.resultset.kinds: a lifecycle set, ...) is not read as an at-rest
    one, or None when it is (or says to be) an at-rest set: then a row that is not a row was changed."""
    kind = set_kind(root)
    if kind in (None, AT_REST):
        return None
    show = f" (`memlab show {root}` prints it)" if kind == LIFECYCLE else ""
    return Unreadable(f"{root} is {described(kind)}, not an at-rest set (`memlab run`): this command reads at-rest "
                      f"sets only{show}")


def load_run(root: Path) -> RunRecord:
    """The run record (run.json) of an at-rest set, read by its record (lab.resultset.run_record); an empty
    one when there is none."""
    path = Path(root) / "run.json"
    if not path.exists():
        return RunRecord()
    try:
        return read_run(_read(path))
    except RunShapeError as exc:
        raise Unreadable(f"{path}: {exc}; `memlab verify` names what changed") from None


def _read(path: Path) -> Any:
    try:
        return read_strict(path)
    except FileNotFoundError:
        raise Unreadable(f"{path} is missing; `memlab verify` names what changed") from None
    except JSONProblem as exc:
        raise JSONProblem(f"{exc}; `memlab verify` names what changed", exc.kind) from None
