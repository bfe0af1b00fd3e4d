"""A fork server's sealed placeholder: a SUT that reads its paths at import, preloaded, rebound per start.

In the server (a driver's top level, run as ``__memlab_preload__``): :func:`enter` points ``HOME``,
``XDG_CONFIG_HOME``, ``TMPDIR`` and the driver's own path variables at folders of the server's
``placeholder`` folder for the rest of the preload, and the SUT is imported under them. When the
preload ends (ready or refused), :func:`seal` removes what the imports wrote there, puts an empty
read-only file in place of each variable's folder (no path under it can be created again: ENOTDIR,
root included) and gives the server its own environment back.

In a start (the driver's ``open``, once it has set its variables to the trial's paths): :func:`rebind`
points every module global that holds a path under the placeholder at the same path under this
start's value of its variable (a path object in place, :func:`rewrite`, so every other holder of it
follows); what the SUT keeps deeper as a string (a class attribute, a default argument) the driver
rebinds with :func:`rebound`, and what the import did on disk (folders, keys) it does again.
The kit refuses ``open`` while a start inherited a placeholder and did not rebind it. Imports only
the standard library.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path, PurePath

#: The server's private folder (set by ``fork_preload`` in the server; empty in a plain start).
PRIVATE = ""
#: The variables the placeholder stands for, each a folder (a sealed file) under ``ROOT``.
VARIABLES: tuple[str, ...] = ()
ROOT: Path | None = None
#: The module globals under the placeholder when it was sealed, as ``(module, global)``: what :func:`rebind` rebinds.
HELD: list[tuple[str, str]] = []
_saved: dict[str, str | None] = {}
_rebound = False
#: The variables a server gives itself (the lab's ``HOME``, ``XDG_CONFIG_HOME``, ``TMPDIR``), as a trial has them.
OWN = ("HOME", "XDG_CONFIG_HOME", "TMPDIR")


def enter(*variables: str) -> bool:
    """In the fork server: ``HOME``, ``XDG_CONFIG_HOME``, ``TMPDIR`` and ``variables`` point at the
    placeholder until :func:`seal`. False (nothing changed) outside a server or without its folder."""
    global ROOT, VARIABLES, _saved
    folder = Path(PRIVATE) / "placeholder" if PRIVATE else None
    if folder is None or not folder.is_dir() or ROOT is not None:
        return False
    ROOT, VARIABLES = folder, tuple(dict.fromkeys((*OWN, *variables)))
    _saved = {name: os.environ.get(name) for name in VARIABLES}
    for name in VARIABLES:
        (ROOT / name).mkdir()
        os.environ[name] = str(ROOT / name)
    tempfile.tempdir = None
    return True


def seal() -> None:
    """In the fork server, once preloaded: empty the placeholder, a read-only empty file for each
    variable's folder, the server's own environment back."""
    global HELD
    if ROOT is None:
        return
    tempfile.tempdir = None  # each start computes its own (fork_child)
    HELD = [(name, key) for name, key in held()  # the server's own (its __main__) are no start's
            if name.split(".", 1)[0] != "memlab_driver" and name not in ("__main__", "__mp_main__")]
    for name in VARIABLES:
        path = ROOT / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
        path.touch()
        path.chmod(0o444)
    for name, value in _saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def rebound(value):
    """``value`` (a str or a path) under the placeholder: the same path under this start's value of its
    variable, as the same type; anything else as it is."""
    if ROOT is None or not isinstance(value, (str, PurePath)):
        return value
    text = os.fspath(value)
    for name in VARIABLES:
        base = str(ROOT / name)
        if text == base or text.startswith(base + os.sep):
            if name not in os.environ:
                raise RuntimeError(f"{value!r} was read from {name} in the fork server, which this start does not set")
            return type(value)(os.environ[name] + text[len(base):])
    return value


def rewrite(path: PurePath) -> None:
    """A path object under the placeholder made, in place, the same path under this start's variable:
    whatever else holds the object (a model's field default, a signature, a validator) sees the start's
    path. Its slots are copied from a fresh path object of the same type."""
    fresh = rebound(path)
    for cls in type(path).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if slot in ("__weakref__", "__dict__"):
                continue
            if hasattr(fresh, slot):
                object.__setattr__(path, slot, getattr(fresh, slot))
            elif hasattr(path, slot):
                object.__delattr__(path, slot)
    if os.fspath(path) != os.fspath(fresh):
        raise RuntimeError(f"could not rebind the path object {path!r}")


def under(value) -> bool:
    """Whether ``value`` is a str or path under the placeholder."""
    return ROOT is not None and isinstance(value, (str, PurePath)) and os.fspath(value).startswith(str(ROOT) + os.sep)


def rebind() -> list[str]:
    """In a start: every module global the server left under the placeholder (``HELD``, found when it
    sealed) rebound; their names. Call it first in ``open``, before a module copies one of them."""
    global _rebound
    for name, key in HELD:
        module = sys.modules[name]
        value = getattr(module, key)
        if isinstance(value, PurePath):
            rewrite(value)
        else:
            setattr(module, key, rebound(value))
    _rebound = True
    return [f"{name}.{key}" for name, key in HELD]


def held() -> list[tuple[str, str]]:
    """``(module, global)`` for every module global that is a str or path under the placeholder (those in
    a list, tuple, set or dict are the server's refusal: ``fork_leaks.held_paths``)."""
    found = []
    for name, module in list(sys.modules.items()):
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        found += [(name, key) for key, value in items if under(value)]
    return found


def pending() -> bool:
    """Whether this start inherited a placeholder it has not rebound yet."""
    return ROOT is not None and not _rebound
