"""The lab's image names and content tags: what an image is called, and the digest that says
when it must be built again (the recipe, the driver folder and the kits; or the lab's source
tree). Reads files only; builds nothing (:mod:`lab.runtime.images` builds)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from lab.profile import IMAGES_DIR

SUT_RECIPE = IMAGES_DIR / "sut.Dockerfile"
LAB_RECIPE = IMAGES_DIR / "lab.Dockerfile"
LAB_SOURCES = ("lab", "edits", "images", "sut_profiles", "scenarios", "examples", "pyproject.toml", "README.md")
KIT_DIR = IMAGES_DIR / "driverkit"
NODE_KIT_DIR = IMAGES_DIR / "driverkit-node"


def sut_name(driver_dir: Path) -> str:
    """``sut-<folder>``, in the characters an image name may use."""
    return "sut-" + re.sub(r"[^a-z0-9._-]+", "-", Path(driver_dir).name.lower())


def sut_tag(driver_dir: Path, recipe: Path = SUT_RECIPE) -> str:
    """``memlab/sut-<folder>:<digest>``: the digest covers the recipe, the driver folder and the kits."""
    files = [(f"{root.name}/{path.relative_to(root)}", path) for root in (Path(driver_dir), *_kits(recipe))
             for path in sorted(_files_under(root))]
    return f"memlab/{sut_name(driver_dir)}:{_digest(recipe, files)}"


def _kits(recipe: Path) -> tuple[Path, ...]:
    """The driver kits a recipe's build context holds: the Python kit; an own Dockerfile also gets the Node kit."""
    return (KIT_DIR,) if recipe == SUT_RECIPE else (KIT_DIR, NODE_KIT_DIR)


def _files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not {"__pycache__", "node_modules"} & set(p.parts)]


def _digest(recipe: Path, files: list[tuple[str, Path]]) -> str:
    """12 hex digits of SHA-256 over a recipe and named files (the name, then the bytes, of each)."""
    h = hashlib.sha256(recipe.read_bytes())
    for name, path in files:
        h.update(f"\0{name}\0".encode() + path.read_bytes())
    return h.hexdigest()[:12]


def lab_tag() -> str:
    """``memlab/lab:<digest>``: the digest covers the recipe and the lab's source tree."""
    root = IMAGES_DIR.parent
    files = [(str(path.relative_to(root)), path) for path in sorted(_lab_files(root))]
    return f"memlab/lab:{_digest(LAB_RECIPE, files)}"


def _lab_files(root: Path) -> list[Path]:
    out = []
    for name in LAB_SOURCES:
        top = root / name
        out += [top] if top.is_file() else _files_under(top)
    return out
