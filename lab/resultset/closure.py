"""The SUT's dependency closure: its package and what it requires, transitively, in a row's environment.

docs/method.md compares "the libraries the SUT links against", not everything installed beside it
(another row's driver may share the environment's folder). A row's environment records each
package's version (``runtime.packages``) and, since listing layout 3, its requirements
(``runtime.detail.requires``: Requires-Dist strings, parsed with :mod:`packaging`). The closure
starts at the profile's ``sut.package``, follows requirements whose markers hold for the row's
Python (extras named on the way included), and stops at packages the environment does not hold.

    >>> env = {"packages": {"A": "1", "b": "2", "c": "3", "d": "4"}, "python": "3.11.7",
    ...        "detail": {"requires": {"A": ["b>=1", "c; extra == 'x'", "d; python_version < '3'"],
    ...                                "b": ["c[x]; extra == 'never'"], "c": [], "d": []}}}
    >>> sorted(dependency_closure("a", [env]))
    ['a', 'b']
"""

from __future__ import annotations

from typing import Any, Iterable

from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName, default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name


def requirements_of(runtime: dict[str, Any]) -> dict[str, list[str]] | None:
    """The recorded requirements of each package, by canonical name (None when the row has none)."""
    requires = ((runtime or {}).get("detail") or {}).get("requires")
    if not isinstance(requires, dict):
        return None
    return {canonicalize_name(str(name)): list(reqs or []) for name, reqs in requires.items()}


def versions_of(runtime: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """``canonical name -> (name as listed, version)`` of a row's environment."""
    packages = (runtime or {}).get("packages") or {}
    return {canonicalize_name(str(name)): (str(name), str(version)) for name, version in packages.items()}


def _marker_env(python: str | None) -> dict[str, str]:
    env = dict(default_environment())
    if python:
        env["python_full_version"] = python
        env["python_version"] = ".".join(python.split(".")[:2])
    return env


def _holds(req: Requirement, extras: Iterable[str], env: dict[str, str]) -> bool:
    if req.marker is None:
        return True
    try:
        return any(req.marker.evaluate({**env, "extra": extra}) for extra in ("", *extras))
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return True  # a marker this Python cannot decide: follow it rather than hide a library


def dependency_closure(package: str, runtimes: list[dict[str, Any]]) -> set[str] | None:
    """Canonical names in ``package``'s closure, following the requirements every given row's
    environment records (a union: what either side links against counts). None when no row
    records requirements or none holds the package."""
    root = canonicalize_name(package)
    graphs = [(requirements_of(rt), versions_of(rt), rt.get("python")) for rt in runtimes if rt]
    graphs = [(reqs, have, py) for reqs, have, py in graphs if reqs is not None and root in have]
    if not graphs:
        return None
    found: set[str] = set()
    for requires, present, python in graphs:
        env = _marker_env(python)
        seen: set[tuple[str, str]] = set()
        todo: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
        while todo:
            name, extras = todo.pop()
            if (name, ",".join(sorted(extras))) in seen or name not in present:
                continue
            seen.add((name, ",".join(sorted(extras))))
            found.add(name)
            for text in requires.get(name, []):
                try:
                    req = Requirement(text)
                except InvalidRequirement:
                    continue  # metadata the installer accepted but packaging cannot read: nothing to follow
                if _holds(req, extras, env):
                    todo.append((canonicalize_name(req.name), frozenset(req.extras)))
    return found
