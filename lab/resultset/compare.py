"""``memlab compare A B``: cell for cell, but only where docs/method.md "Reporting" says verdicts compare.

Two verdicts are comparable only when the SUT version, libraries, runtime, store,
configuration, DUT boundary, position, whether the SUT was stopped during the edits,
detection point, observation class and method revision all match. Rows differing in any are
paired side by side with the differing conditions named, never reported as changed cells; a
cell whose observation class differs is likewise set beside, not changed.

"Libraries" are the ones the SUT links against: the versions of the packages in its dependency
closure (:mod:`lab.resultset.closure`, from the requirements either row's environment records),
not everything installed beside it; packages outside the closure that differ are named as not
judged. Where neither row records requirements (sets measured before they were), or the SUT's
package is in neither environment, the whole environment is compared, and the pair says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from packaging.utils import canonicalize_name

from lab.cases import CASE_IDS
from lab.judge.row import AtRestRow
from lab.resultset.closure import dependency_closure, versions_of


def conditions(row: AtRestRow, closure: set[str] | None = None) -> dict[str, Any]:
    """The comparability conditions of a row, by name (cell observation classes are checked per cell);
    its packages are those of ``closure`` (canonical names) when given, else all of them."""
    sut = row.sut or {}
    reported = sut.get("reported") or {}
    runtime = _environment(row)
    return {
        "SUT version": {**{k: v for k, v in sut.items() if k != "reported"}, "reported": reported.get("version")},
        "libraries": {"sut": _reported(reported.get("libraries"), runtime, closure),
                      "python": row.runtime.python if row.runtime else None, "packages": _packages(runtime, closure)},
        "runtime": row.runtime.runtime if row.runtime else None,
        "store": row.store,
        "configuration": {"profile": row.configuration, "reported": reported.get("configuration"),
                          "volumes": row.volumes},
        "DUT boundary": row.dut_boundary,
        "position": row.position,
        "SUT stopped during edits": row.sut_stopped_during_edits,
        "detection point": row.detection_point,
        "method revision": row.method_revision,
    }


def _environment(row: AtRestRow) -> dict[str, Any]:
    """The row's environment as lab.resultset.closure reads it (its packages, Python and requirements)."""
    return row.runtime.to_json() if row.runtime else {}


@dataclass
class Pair:
    """One row of A set against its row in B."""

    key: str
    a: AtRestRow
    b: AtRestRow
    differing: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    changed: list[tuple[str, str, str]] = field(default_factory=list)
    beside: list[tuple[str, str, str, str]] = field(default_factory=list)
    unchanged: int = 0
    #: What "libraries" was judged on: the SUT's dependency closure, or the whole environment and why.
    basis: str = ""
    #: Packages outside the closure whose versions differ (name -> (a, b)): named, not judged.
    not_judged: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    @property
    def comparable(self) -> bool:
        """True when every row-level condition matches."""
        return not self.differing


@dataclass
class Comparison:
    """Every pair, plus the rows found on one side only."""

    pairs: list[Pair]
    only_a: list[str]
    only_b: list[str]

    def to_json(self) -> dict[str, Any]:
        """A machine-readable form."""
        return {"pairs": [{"row": p.key, "comparable": p.comparable,
                           "differing": {k: {"a": a, "b": b} for k, (a, b) in p.differing.items()},
                           "changed": [{"case": c, "a": a, "b": b} for c, a, b in p.changed],
                           "side_by_side_cells": [{"case": c, "condition": k, "a": a, "b": b}
                                                  for c, k, a, b in p.beside],
                           "unchanged": p.unchanged, "libraries_basis": p.basis,
                           "not_judged": {k: {"a": a, "b": b} for k, (a, b) in p.not_judged.items()},
                           "verdicts": {"a": verdicts(p.a), "b": verdicts(p.b)}} for p in self.pairs],
                "only_a": self.only_a, "only_b": self.only_b}


def verdicts(row: AtRestRow) -> list[str]:
    """The row's verdicts in case order."""
    return [str(row.cell(cid).verdict) for cid in CASE_IDS]


def compare(rows_a: Sequence[AtRestRow], rows_b: Sequence[AtRestRow]) -> Comparison:
    """Pair rows (as read: lab.judge.row) by name and detection point (falling back to name alone) and
    compare each pair."""
    a = {_key(r): r for r in rows_a}
    b = {_key(r): r for r in rows_b}
    keys = [k for k in a if k in b]
    left = [k for k in a if k not in b]
    right = [k for k in b if k not in a]
    for k in list(left):  # the same row measured at another detection point: side by side, named
        match = next((m for m in right if b[m].row == a[k].row), None)
        if match:
            keys.append((k, match))
            left.remove(k)
            right.remove(match)
    pairs = [_pair(a[k], b[k]) if isinstance(k, str) else _pair(a[k[0]], b[k[1]]) for k in keys]
    return Comparison(pairs=sorted(pairs, key=lambda p: p.key), only_a=sorted(left), only_b=sorted(right))


def _key(row: AtRestRow) -> str:
    return f"{row.row}@{row.detection_point}"


def _pair(a: AtRestRow, b: AtRestRow) -> Pair:
    key = _key(a) if _key(a) == _key(b) else f"{_key(a)} | {_key(b)}"
    pair = Pair(key=key, a=a, b=b)
    closure, pair.basis = _closure(a, b)
    ca, cb = conditions(a, closure), conditions(b, closure)
    if closure is not None:
        pa, pb = _packages(_environment(a), None), _packages(_environment(b), None)
        pair.not_judged = {n: (pa.get(n), pb.get(n)) for n in sorted(set(pa) | set(pb))
                           if n not in closure and pa.get(n) != pb.get(n)}
    pair.differing = {name: (ca[name], cb[name]) for name in ca if ca[name] != cb[name]}
    if not pair.comparable:
        return pair
    for cid in CASE_IDS:
        x, y = a.cell(cid), b.cell(cid)
        kx, ky = x.observation_class, y.observation_class
        if kx and ky and kx != ky:
            pair.beside.append((cid, "observation class", f"{x.verdict} (class {kx})", f"{y.verdict} (class {ky})"))
        elif x.verdict != y.verdict:
            pair.changed.append((cid, str(x.verdict), str(y.verdict)))
        else:
            pair.unchanged += 1
    return pair


def _packages(runtime: dict[str, Any], closure: set[str] | None) -> dict[str, str | None]:
    """``canonical name -> version`` of the closure's packages (None: absent), or of all when no closure."""
    have = {name: version for name, (_, version) in versions_of(runtime).items()}
    return have if closure is None else {name: have.get(name) for name in sorted(closure)}


def _reported(libraries: Any, runtime: dict[str, Any], closure: set[str] | None) -> Any:
    """The libraries the SUT reports, less the environment's packages outside its closure (a
    driver shared by several rows may report them all); what is no package (sqlite, python) stays."""
    if closure is None or not isinstance(libraries, dict):
        return libraries
    packages = versions_of(runtime)
    return {name: version for name, version in libraries.items()
            if canonicalize_name(str(name)) not in packages or canonicalize_name(str(name)) in closure}


def _closure(a: AtRestRow, b: AtRestRow) -> tuple[set[str] | None, str]:
    """The SUT's dependency closure over both rows' environments, and the basis stated in words."""
    package = str((a.sut or {}).get("package") or "")
    runtimes = [_environment(a), _environment(b)]
    closure = dependency_closure(package, runtimes) if package else None
    if closure is not None:
        return closure, f"the dependency closure of {package} ({len(closure)} package(s))"
    if not any(((rt.get("detail") or {}).get("requires")) is not None for rt in runtimes):
        return None, "the whole environment: neither row records its packages' requirements"
    return None, f"the whole environment: the SUT's package {package or '(none named)'} is in neither environment"
