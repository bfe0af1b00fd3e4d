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

from dataclasses import dataclass, field
from typing import Any

from packaging.utils import canonicalize_name

from lab.cases import CASE_IDS
from lab.cases.revisions import cell_of
from lab.resultset.closure import dependency_closure, versions_of


def conditions(row: dict[str, Any], closure: set[str] | None = None) -> dict[str, Any]:
    """The comparability conditions of a row, by name (cell observation classes are checked per cell);
    its packages are those of ``closure`` (canonical names) when given, else all of them."""
    sut = row.get("sut") or {}
    reported = sut.get("reported") or {}
    runtime = row.get("runtime") or {}
    return {
        "SUT version": {**{k: v for k, v in sut.items() if k != "reported"}, "reported": reported.get("version")},
        "libraries": {"sut": _reported(reported.get("libraries"), runtime, closure), "python": runtime.get("python"),
                      "packages": _packages(runtime, closure)},
        "runtime": runtime.get("runtime"),
        "store": row.get("store"),
        "configuration": {"profile": row.get("configuration"), "reported": reported.get("configuration"),
                          "volumes": row.get("volumes")},
        "DUT boundary": row.get("dut_boundary"),
        "position": row.get("position"),
        "SUT stopped during edits": row.get("sut_stopped_during_edits"),
        "detection point": row.get("detection_point"),
        "method revision": row.get("method_revision"),
    }


@dataclass
class Pair:
    """One row of A set against its row in B."""

    key: str
    a: dict[str, Any]
    b: dict[str, Any]
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


def verdicts(row: dict[str, Any]) -> list[str]:
    """The row's ten verdicts in case order."""
    return [str(cell_of(row, cid).get("verdict")) for cid in CASE_IDS]


def compare(rows_a: list[dict[str, Any]], rows_b: list[dict[str, Any]]) -> Comparison:
    """Pair rows by name and detection point (falling back to name alone) and compare each pair."""
    a = {_key(r): r for r in rows_a}
    b = {_key(r): r for r in rows_b}
    keys = [k for k in a if k in b]
    left = [k for k in a if k not in b]
    right = [k for k in b if k not in a]
    for k in list(left):  # the same row measured at another detection point: side by side, named
        match = next((m for m in right if b[m]["row"] == a[k]["row"]), None)
        if match:
            keys.append((k, match))
            left.remove(k)
            right.remove(match)
    pairs = [_pair(a[k], b[k]) if isinstance(k, str) else _pair(a[k[0]], b[k[1]]) for k in keys]
    return Comparison(pairs=sorted(pairs, key=lambda p: p.key), only_a=sorted(left), only_b=sorted(right))


def _key(row: dict[str, Any]) -> str:
    return f"{row['row']}@{row.get('detection_point')}"


def _pair(a: dict[str, Any], b: dict[str, Any]) -> Pair:
    key = _key(a) if _key(a) == _key(b) else f"{_key(a)} | {_key(b)}"
    pair = Pair(key=key, a=a, b=b)
    closure, pair.basis = _closure(a, b)
    ca, cb = conditions(a, closure), conditions(b, closure)
    if closure is not None:
        pa, pb = _packages(a.get("runtime") or {}, None), _packages(b.get("runtime") or {}, None)
        pair.not_judged = {n: (pa.get(n), pb.get(n)) for n in sorted(set(pa) | set(pb))
                           if n not in closure and pa.get(n) != pb.get(n)}
    pair.differing = {name: (ca[name], cb[name]) for name in ca if ca[name] != cb[name]}
    if not pair.comparable:
        return pair
    for cid in CASE_IDS:
        x, y = cell_of(a, cid), cell_of(b, cid)
        kx, ky = x.get("observation_class"), y.get("observation_class")
        if kx and ky and kx != ky:
            pair.beside.append((cid, "observation class", f"{x.get('verdict')} (class {kx})",
                                f"{y.get('verdict')} (class {ky})"))
        elif x.get("verdict") != y.get("verdict"):
            pair.changed.append((cid, str(x.get("verdict")), str(y.get("verdict"))))
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


def _closure(a: dict[str, Any], b: dict[str, Any]) -> tuple[set[str] | None, str]:
    """The SUT's dependency closure over both rows' environments, and the basis stated in words."""
    package = str((a.get("sut") or {}).get("package") or "")
    runtimes = [a.get("runtime") or {}, b.get("runtime") or {}]
    closure = dependency_closure(package, runtimes) if package else None
    if closure is not None:
        return closure, f"the dependency closure of {package} ({len(closure)} package(s))"
    if not any(((rt.get("detail") or {}).get("requires")) is not None for rt in runtimes):
        return None, "the whole environment: neither row records its packages' requirements"
    return None, f"the whole environment: the SUT's package {package or '(none named)'} is in neither environment"
