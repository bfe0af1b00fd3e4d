"""The releases of a package that the registry serves, asked of pip itself, and the choice of them.

``pip index versions PACKAGE --pre`` answers with every release pip may install on this Python (its
index, extra indexes and find-links, as pip is configured here: ``pip.conf``, ``PIP_*``), newest first;
releases whose ``Requires-Python`` excludes this interpreter and yanked ones are left out, as pip's
install would leave them. A selection is one of:

- ``versions``: releases by name (``3.0.0``), or ranges ``A..B`` (every release served from A to B,
  both included; ``..B`` from the oldest, ``A..`` to the newest);
- ``last``: the N newest releases;
- ``since``: every release from V on (V included when served).

Ranges, ``last`` and ``since`` leave pre-releases out (name one to measure it). Every error says what
was wrong and how to fix it.

    >>> select(["1.0", "1.1", "1.2rc1", "1.2", "2.0"], versions=["1.1..1.2"])
    ['1.1', '1.2']
    >>> select(["1.0", "1.1", "1.2", "2.0"], last=2)
    ['1.2', '2.0']
    >>> select(["1.0", "1.1", "1.2", "2.0"], since="1.1.0")
    ['1.1', '1.2', '2.0']
"""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Sequence

from packaging.version import InvalidVersion, Version


class SelectionError(ValueError):
    """The versions asked for cannot be chosen: the message says why, ``fix`` what to give instead."""

    def __init__(self, message: str, fix: str):
        super().__init__(f"{message}\n  fix: {fix}")
        self.fix = fix


class RegistryError(RuntimeError):
    """The registry could not be asked (unreachable), or serves no release of the package
    (``served_none``): pip's own message is kept."""

    def __init__(self, message: str, served_none: bool = False):
        super().__init__(message)
        self.served_none = served_none


def pip_command() -> list[str]:
    """pip as the lab runs it: this interpreter's, so markers and Requires-Python are this Python's."""
    return [sys.executable, "-m", "pip", "--disable-pip-version-check"]


def served_versions(package: str, timeout: float = 600) -> list[str]:
    """Every release of ``package`` the registry serves to this Python, oldest first (pre-releases too)."""
    proc = subprocess.run([*pip_command(), "index", "versions", package, "--pre"], capture_output=True,
                          text=True, timeout=timeout)
    text = proc.stdout + proc.stderr
    found = re.search(r"^Available versions: (.*)$", proc.stdout, re.MULTILINE)
    if proc.returncode == 0 and found:
        return order([v.strip() for v in found.group(1).split(",") if v.strip()])
    message = pip_message(text)
    unreachable = re.search(r"Retrying|NewConnectionError|Could not fetch URL|ConnectTimeout|"
                            r"Temporary failure in name resolution|SSLError|ProxyError", text)
    if "No matching distribution found" in text and not unreachable:
        raise RegistryError(f"the registry serves no release of {package} to this Python ({message})", served_none=True)
    raise RegistryError(f"could not ask the registry for the releases of {package}: {message}")


def pip_message(text: str) -> str:
    """pip's own lines worth showing: its errors (and what follows them), without its noise about
    ignored locations and its experimental-command warning."""
    lines = [ln for ln in text.splitlines()
             if ln.strip() and not re.match(r"WARNING: (Location '.*' is ignored|pip index is currently)", ln)]
    first = next((i for i, ln in enumerate(lines) if ln.startswith("ERROR")), None)
    kept = lines[first:] if first is not None else lines[-12:]
    return "\n".join(kept[:40]).strip() or "pip said nothing"


def order(versions: Sequence[str]) -> list[str]:
    """Releases oldest first (PEP 440 order); a name that is no version sorts before every release."""
    return sorted(dict.fromkeys(versions), key=_key)


def _key(version: str) -> tuple[int, Version | str]:
    try:
        return (1, Version(version))
    except InvalidVersion:
        return (0, version)


def parse(version: str, what: str) -> Version:
    """A version given by the user, or a SelectionError naming it."""
    try:
        return Version(version)
    except InvalidVersion:
        raise SelectionError(f"{what} {version!r} is not a version (PEP 440)", "write it as the registry spells it, "
                             "e.g. 3.0.0") from None


def select(served: Sequence[str], versions: Sequence[str] = (), last: int | None = None,
           since: str | None = None) -> list[str]:
    """The served releases a selection names, oldest first (see the module's doc)."""
    given = [name for name, value in (("--versions", versions), ("--last", last), ("--since", since))
             if value not in (None, (), [])]
    if len(given) != 1:
        raise SelectionError(f"give exactly one of --versions, --last, --since (given: {', '.join(given) or 'none'})",
                             "e.g. --versions 3.0.0 3.1.0, --versions 3.0.0..3.23.1, --last 3 or --since 3.0.0")
    served = order(served)
    if not served:
        raise SelectionError("the registry serves no release of this package", "check the package name in the profile")
    releases = [v for v in served if _key(v)[0] and not Version(v).is_prerelease]
    if last is not None:
        if last < 1:
            raise SelectionError(f"--last {last}: at least one release", "e.g. --last 2")
        return releases[-last:]
    if since is not None:
        start = parse(since, "--since")
        chosen = [v for v in releases if Version(v) >= start]
        if not chosen:
            raise SelectionError(f"no release served from {since} on (newest: {served[-1]})",
                                 f"give an older version, e.g. --since {releases[-1] if releases else served[-1]}")
        return chosen
    chosen: list[str] = []
    for item in versions:
        chosen.extend(_range(item, served, releases) if ".." in item else [_one(item, served)])
    return order(chosen)


def _one(version: str, served: Sequence[str]) -> str:
    wanted = parse(version, "version")
    match = [v for v in served if _key(v)[0] and Version(v) == wanted]
    if not match:
        raise SelectionError(f"the registry serves no release {version} of this package",
                             f"give a served release: {_shown(served)}")
    return match[0]


def _range(item: str, served: Sequence[str], releases: Sequence[str]) -> list[str]:
    low_text, _, high_text = item.partition("..")
    low = parse(low_text, "range start") if low_text else None
    high = parse(high_text, "range end") if high_text else None
    if low is not None and high is not None and low > high:
        raise SelectionError(f"range {item}: its start is newer than its end", f"write it oldest first: {high_text}..{low_text}")
    ends = {_one(t, served) for t in (low_text, high_text) if t}  # an end named is measured even as a pre-release
    chosen = [v for v in served if (v in ends or v in releases)
              and (low is None or Version(v) >= low) and (high is None or Version(v) <= high)]
    if not chosen:
        raise SelectionError(f"range {item}: no release served in it", f"served: {_shown(served)}")
    return chosen


def _shown(served: Sequence[str]) -> str:
    served = list(served)
    return ", ".join(served) if len(served) <= 12 else f"{', '.join(served[:3])}, ..., {', '.join(served[-6:])}"
