"""What keeps a fork server's own environment out of its children (``fork_preload.py``).

A module that reads its environment when it is imported (``HOME``, ``TMPDIR``, a SUT's own
variable) and was imported by the server keeps the *server's* value in every forked start. Two
guards, both general:

- :func:`per_start_modules`: the top-level modules of the distributions a profile names in
  ``fork_server.per_start`` (a SUT that reads its environment at import). The server never
  imports them, neither by name nor from a recorded list; each start imports them itself,
  after its driver set the trial's environment, as a plain start does.
- :func:`held_paths`: the module globals (and the items of a global list, tuple, set or dict)
  that hold a path under the server's private folder (its ``HOME``, ``XDG_CONFIG_HOME`` and
  ``TMPDIR``): a module that captured the server's environment at import. The server refuses.
  It sees what a module keeps at its top level, not what it caches deeper inside objects.

Imports only the standard library.
"""

from __future__ import annotations

import os
import sys

#: Globals that hold the server's paths by design and that a child replaces itself: the
#: server's own command line, ``tempfile``'s cached folder and the user site folders of
#: ``site`` and ``sysconfig`` (``fork_child`` resets them).
_OWN = {("sys", "argv"), ("sys", "orig_argv"), ("tempfile", "tempdir"), ("site", "USER_BASE"), ("site", "USER_SITE"),
        ("sysconfig", "_CONFIG_VARS")}


def per_start_modules(distributions: list[str]) -> tuple[set[str], str | None]:
    """The top-level module names of ``distributions`` (installed here), or why not."""
    from importlib import metadata

    names: set[str] = set()
    for name in distributions:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return set(), f"fork_server.per_start names {name}, which is not installed in the SUT's environment"
        names |= _top_level(dist)
    return names, None


def _top_level(dist) -> set[str]:
    """A distribution's top-level modules: its ``top_level.txt``, else the first part of its files."""
    listed = (dist.read_text("top_level.txt") or "").split()
    if listed:
        return set(listed)
    tops = set()
    for path in dist.files or ():
        first = path.parts[0]
        if first.endswith((".dist-info", ".egg-info", ".data")) or first in ("..", "__pycache__"):
            continue
        tops.add(first[:-3] if first.endswith(".py") else first.split(".")[0])
    return tops


def is_per_start(module: str, tops: set[str]) -> bool:
    """Whether ``module`` (dotted) belongs to one of the per-start top-level modules."""
    return module.split(".", 1)[0] in tops


def loaded_per_start(tops: set[str]) -> list[str]:
    """The per-start modules this process has imported (a preload that pulled one in)."""
    return sorted(n for n in list(sys.modules) if is_per_start(n, tops))


def held_paths(private: str) -> list[str]:
    """``module.global`` for every module global that holds a path under ``private`` (see the docstring),
    but a path under the placeholder a driver entered: every start rebinds those (``fork_placeholder``)."""
    from memlab_driver.fork_placeholder import under

    if not private:
        return []
    private = os.path.abspath(private)
    found = []
    for name, module in list(sys.modules.items()):
        if name.split(".", 1)[0] == "memlab_driver" or name in ("__main__", "__mp_main__"):  # the server's own
            continue
        try:
            found += [f"{name}.{key}" for key, value in list(vars(module).items())
                      if (name, key) not in _OWN and not under(value) and _holds(value, private)]
        except Exception:  # noqa: BLE001  (a module object without a plain namespace holds nothing we can see)
            continue
    return found


def _holds(value, private: str, depth: int = 0) -> bool:
    """Whether ``value`` is (or, one level down, contains) a path string under ``private``."""
    if isinstance(value, str):
        return private in value
    if isinstance(value, os.PathLike):
        try:
            return private in os.fspath(value)
        except TypeError:
            return False
    if depth or not isinstance(value, (list, tuple, set, frozenset, dict)):
        return False
    try:
        members = list(value.items()) if isinstance(value, dict) else [(v,) for v in value]
    except Exception:  # noqa: BLE001  (a container that cannot be iterated holds nothing we can see)
        return False
    return any(_holds(part, private, 1) for member in members for part in member)


def reachable_paths(prefix: str) -> list[str]:
    """Every string (or bytes) holding ``prefix`` that a live object refers to, as ``holder type: text``:
    what :func:`held_paths` does not see (class attributes, default arguments, objects' fields), for a
    test of a forked start. Follows the untracked containers the collector does not list itself."""
    import gc

    needle, found, seen = prefix, [], set()

    def visit(obj, holder: str) -> None:
        if isinstance(obj, str):
            if obj is not needle and needle in obj:
                found.append(f"{holder}: {obj}")
        elif isinstance(obj, bytes):
            if needle.encode() in obj:
                found.append(f"{holder}: {obj!r}")
        elif isinstance(obj, (tuple, list, dict, set, frozenset)) and not gc.is_tracked(obj) and id(obj) not in seen:
            seen.add(id(obj))
            for part in gc.get_referents(obj):
                visit(part, holder)

    for obj in gc.get_objects():
        for part in gc.get_referents(obj):
            visit(part, f"{type(obj).__module__}.{type(obj).__qualname__}")
    return found
