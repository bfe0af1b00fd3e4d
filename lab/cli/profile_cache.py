"""A row's validated profile kept in the lab's cache, so that a command naming one row (a CI job's
``memlab lifecycle run --adapter reference:naive``) does not import the schema's code (pydantic,
~50 ms) to check again a file it checked before.

An entry is found by its key and holds its key: the SHA-256 over the profile's path as given, the
working folder, the profile's text (read as :func:`lab.profile.read_text` reads it) and the digest of
the lab's code and profiles (:func:`lab.resultset.files.code_digest`: the checks themselves, and every
driver folder under images/ that a check looks into). A profile whose driver folder lies outside
images/ (``./path``, an absolute path) is checked each time: its folder is in no digest. An entry that
does not unpickle to a profile of its key is checked anew and replaced; at most :data:`KEEP` entries
are kept (the oldest removed). The cache is the lab's own folder (``$MEMLAB_CACHE/profiles``), as
trusted as the environments it keeps beside it; an error reading or writing it only costs the check::

    profiles, errors = scan_named(folder, ["lifecycle-naive"], load=cached_load)
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

from lab import safewrite

#: Entries kept (each a few kB).
KEEP = 64


def folder() -> Path:
    """Where validated profiles are kept."""
    from lab.runtime.housekeeping import cache_dir

    return cache_dir() / "profiles"


def key(path: Path) -> str:
    """The key of the profile at ``path`` as it is now (its text read as the loader reads it)."""
    from lab.profile import read_text
    from lab.resultset.files import code_digest

    text = read_text(path)
    material = "\0".join([str(path), os.getcwd(), code_digest(), text])
    return hashlib.sha256(material.encode("utf-8", "backslashreplace")).hexdigest()


def cached_load(path: Path) -> Any:
    """:func:`lab.profile.load_profile`, or the profile it gave before for the same key."""
    from lab.profile import IMAGES_DIR, Profile, load_profile

    entry = folder() / f"{key(path)}.pickle"
    try:
        kept, profile = pickle.loads(entry.read_bytes())
        if kept == entry.stem and isinstance(profile, Profile):
            return profile
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
        pass
    profile = load_profile(path)
    if profile.driver and profile.driver_dir.resolve().is_relative_to(IMAGES_DIR.resolve()):
        _keep(entry, profile)
    return profile


def _keep(entry: Path, profile: Any) -> None:
    try:
        safewrite.write_bytes(entry, pickle.dumps((entry.stem, profile)))
        entries = sorted(entry.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime)
        for old in entries[:-KEEP]:
            old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass
