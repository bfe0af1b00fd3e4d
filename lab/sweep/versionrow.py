"""A release's row: the row's profile and driver folder, with the release in place of the pinned one.

A version is a row of its own (``<row>_v<version>``, e.g. ``inspeximus-default_v3.23.1``), never a
changed cell of the row: its profile is the row's with ``row``, ``sut.version`` and ``driver`` changed
(the driver folder a copy of the row's with the release's ``requirements.txt``), the package's version
named in ``title`` and ``dut_boundary`` updated, and a sentence before ``notes`` saying which row it was
made from (the notes were written for the pinned release). Both are written into a folder of their own
that ``memlab run --profiles`` and ``memlab lifecycle run --profiles`` read.

    >>> version_row("memory-blackbox-md+restart", "0.1.0")
    'memory-blackbox-md+restart_v0.1.0'
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from lab.profile import Profile, load_yaml
from lab.profile.names import bad_name

#: Between a row's name and a release's version in the release's row.
SEPARATOR = "_v"


class VersionRowError(ValueError):
    """The release's row cannot be written: the message says why and what to do."""


def version_row(row: str, version: str) -> str:
    """The name of ``row`` measured at ``version``."""
    name = f"{row}{SEPARATOR}{version}"
    problem = bad_name(name)
    if problem:
        raise VersionRowError(f"{name!r}: {problem[0]}; a version with other characters (an epoch '!', a local "
                              "'+label' longer than the name allows) cannot name a row: sweep the releases without it")
    return name


def base_row(name: str) -> str:
    """The row a release's row was made from (the name itself for a row that is no release's)."""
    return name.rsplit(SEPARATOR, 1)[0] if SEPARATOR in name else name


def check_sweepable(profile: Profile) -> None:
    """Refuse a row a sweep cannot re-measure with another release, saying why."""
    if profile.status != "runnable":
        raise VersionRowError(f"{profile.row} is unavailable ({profile.unavailable_reason}): a sweep measures a "
                              "runnable row against other releases")
    if profile.image is not None and getattr(profile.image, "tag", None):
        raise VersionRowError(f"{profile.row} runs the image {profile.image.tag} as it is: its SUT release is in the "
                              "image, not in a requirements.txt a sweep can change")
    if not profile.sut.get("package"):
        raise VersionRowError(f"{profile.row} names no sut.package: a sweep needs the package whose releases to measure")
    if not (profile.driver_dir / "requirements.txt").is_file():
        raise VersionRowError(f"{profile.row}'s driver folder {profile.driver_dir} has no requirements.txt to pin a "
                              "release in")


def write_version_row(profile: Profile, version: str, requirements: str, folder: Path) -> str:
    """Write the release's profile and driver folder into ``folder`` (emptied first); its row's name."""
    name = version_row(profile.row, version)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    driver = profile.driver_dir.name
    shutil.copytree(profile.driver_dir, folder / driver, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (folder / driver / "requirements.txt").write_text(requirements, encoding="utf-8")
    data, _, _ = load_yaml(profile.path)
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(release_profile(data, profile, version, name, driver),
                                                        sort_keys=False, allow_unicode=True, width=100),
                                         encoding="utf-8")
    return name


def release_profile(data: dict[str, Any], profile: Profile, version: str, name: str, driver: str) -> dict[str, Any]:
    """The row's profile data as the release's row."""
    package, old = str(profile.sut["package"]), str(profile.sut.get("version"))
    out = dict(data)
    out["row"] = name
    out["sut"] = {**data["sut"], "version": version}
    out["driver"] = f"./{driver}"
    for key in ("title", "dut_boundary"):
        if isinstance(out.get(key), str):
            out[key] = out[key].replace(f"{package} {old}", f"{package} {version}")
    made = (f"Measured by memlab sweep: the row {profile.row} with {package} {version} in place of {old} (every other "
            f"pin the row's, but those the release contradicts); the notes below were written for {old}.")
    out["notes"] = f"{made} {data.get('notes') or ''}".strip()
    return out
