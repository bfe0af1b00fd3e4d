"""Build the lab's images with no registry: the base, the backends, one image per SUT driver.

=========  ==========================  =================================================
name       tag                         recipe
=========  ==========================  =================================================
base       memlab/base:bookworm        mmdebstrap/debootstrap minbase -> ``docker import``
                                       (or ``images/base/registry.Dockerfile``)
postgres   memlab/postgres:15          ``images/backends/postgres.Dockerfile``
postgres-  memlab/postgres-pgvector:18 ``images/backends/postgres-pgvector.Dockerfile``: PostgreSQL 18
pgvector                               with pgvector from a pinned PyPI wheel (:mod:`lab.runtime.pgvector`)
redis      memlab/redis:7              ``images/backends/redis.Dockerfile``
sut-<d>    memlab/sut-<d>:<digest>     ``images/sut.Dockerfile`` with the driver folder
lab        memlab/lab:<digest>,        ``images/lab.Dockerfile`` with the lab's source tree
           memlab/lab:latest           (the lab itself in a container: compose/, lab.testing)
=========  ==========================  =================================================

An image already present is kept. A SUT tag is a digest of the recipe, the
driver folder and the driver kit, so an edited driver gets a new image and an
unchanged one is reused. Builds use the legacy builder (``--force-rm``,
``--network host``; Debian's engine has no buildx). Every image carries
``memlab.image=<name>`` and ``memlab.deb.<package>=<version>`` labels; each build is
recorded in ``$MEMLAB_CACHE/images/<name>.json`` (id, seconds). Example::

    from lab.runtime.images import build
    for rec in build(["base", "sut-reference"], progress=print):
        print(rec.tag, rec.id[:19], f"{rec.seconds:.1f}s", "built" if rec.built else "present")
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from lab.profile import IMAGES_DIR
from lab.runtime.dockercli import IMAGE_LABEL, docker, image_id, image_labels, stream
from lab.runtime.image_build import HOST_CA_DIRS  # noqa: F401 -- the CLI names them in its fix
from lab.runtime.image_build import (ImageBuildError, ImageRecord, Progress, build_lock, current_image, docker_build,
                                     finish_build, host_ca_certs, records_dir, run_step)

BASE_TAG = "memlab/base:bookworm"
SUT_RECIPE = IMAGES_DIR / "sut.Dockerfile"
LAB_RECIPE = IMAGES_DIR / "lab.Dockerfile"
LAB_LATEST = "memlab/lab:latest"
LAB_SOURCES = ("lab", "edits", "images", "sut_profiles", "scenarios", "examples", "pyproject.toml", "README.md")
KIT_DIR = IMAGES_DIR / "driverkit"
#: backend name -> (tag, recipe, Debian packages whose versions are labelled)
BACKENDS = {
    "postgres": ("memlab/postgres:15", IMAGES_DIR / "backends" / "postgres.Dockerfile", ("postgresql-15",)),
    "redis": ("memlab/redis:7", IMAGES_DIR / "backends" / "redis.Dockerfile", ("redis-server",)),
    "postgres-pgvector": ("memlab/postgres-pgvector:18", IMAGES_DIR / "backends" / "postgres-pgvector.Dockerfile",
                          ("libc6", "zlib1g")),
}


def backend_for(spec) -> str:
    """The backend image a declared service runs from: its kind's, or PostgreSQL with pgvector when it
    declares ``extensions: [vector]``."""
    return "postgres-pgvector" if spec.kind == "postgres" and "vector" in spec.extensions else spec.kind


_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")



# ---- names -------------------------------------------------------------------
def sut_name(driver_dir: Path) -> str:
    """``sut-<folder>``, in the characters an image name may use."""
    return "sut-" + re.sub(r"[^a-z0-9._-]+", "-", Path(driver_dir).name.lower())


def sut_drivers() -> dict[str, Path]:
    """Every SUT driver folder under images/ (``sut-<folder>`` -> folder)."""
    return {sut_name(p.parent): p.parent for p in sorted(IMAGES_DIR.glob("*/driver.py"))}


def known_names() -> list[str]:
    """Every image name ``build`` accepts, base first."""
    return ["base", *BACKENDS, "lab", *sut_drivers()]


def build(names: list[str] | None = None, ca_certs: list[Path] | None = None, force: bool = False,
          base_from: str | None = None, progress: Progress = lambda line: None) -> list[ImageRecord]:
    """Build the named images (all known when none) that are missing; base first."""
    names = names or known_names()
    drivers = sut_drivers()
    unknown = [n for n in names if n not in known_names() and f"sut-{n}" not in drivers]
    if unknown:
        raise ImageBuildError(f"unknown image(s) {unknown}; known: {', '.join(known_names())}")
    out = [ensure_base(progress, force=force and "base" in names, base_from=base_from)]
    for name in names:
        if name in BACKENDS:
            out.append(ensure_backend(name, progress, force=force, ca_certs=ca_certs))
        elif name == "lab":
            out.append(ensure_lab(ca_certs, progress, force=force))
        elif name != "base":
            folder = drivers.get(name) or drivers[f"sut-{name}"]
            out.append(ensure_sut(folder, ca_certs, progress, force=force))
    return out


# ---- base ----------------------------------------------------------------------
def ensure_base(progress: Progress = lambda line: None, force: bool = False,
                base_from: str | None = None) -> ImageRecord:
    """memlab/base:bookworm: kept if present, else bootstrapped from a Debian mirror (or ``base_from``)."""
    with build_lock("base"):
        if not force and (present := image_id(BASE_TAG)):
            return ImageRecord("base", BASE_TAG, present, labels=image_labels(BASE_TAG))
        packages = _base_packages()
        started = time.monotonic()
        if base_from:
            progress(f"base: building {BASE_TAG} FROM {base_from} (registry)")
            docker_build(IMAGES_DIR / "base" / "registry.Dockerfile", IMAGES_DIR / "base", BASE_TAG,
                          {"FROM": base_from, "PACKAGES": " ".join(packages)}, {}, progress)
            source = f"registry:{base_from}"
        else:
            source = _bootstrap(packages, progress)
        return finish_build("base", BASE_TAG, started, packages[:1], {"memlab.source": source}, progress)


def _base_packages() -> list[str]:
    lines = (IMAGES_DIR / "base" / "packages.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def _bootstrap(packages: list[str], progress: Progress) -> str:
    """mmdebstrap (or debootstrap) a minbase bookworm and ``docker import`` it; returns the source label."""
    mirror = os.environ.get("MEMLAB_DEBIAN_MIRROR", "http://deb.debian.org/debian")
    security = os.environ.get("MEMLAB_DEBIAN_SECURITY", "http://deb.debian.org/debian-security")
    tool = "mmdebstrap" if shutil.which("mmdebstrap") else "debootstrap" if shutil.which("debootstrap") else None
    if not tool:
        raise ImageBuildError("neither mmdebstrap nor debootstrap is installed (apt-get install mmdebstrap), "
                              "and no --base-from registry image was given")
    with tempfile.TemporaryDirectory(prefix="memlab-base-") as tmp:
        tarball = Path(tmp) / "rootfs.tar"
        progress(f"base: {tool} --variant=minbase bookworm from {mirror} (about 1-2 min)")
        started = time.monotonic()
        if tool == "mmdebstrap":
            sources = [f"deb {mirror} bookworm main", f"deb {mirror} bookworm-updates main"]
            sources += [f"deb {security} bookworm-security main"] if security else []
            slim = [f"--dpkgopt=path-exclude=/usr/share/{d}/*" for d in ("doc", "man", "info", "locale")]
            cmd = ["mmdebstrap", "--variant=minbase", f"--include={','.join(packages)}", "--quiet", *slim,
                   "--dpkgopt=path-include=/usr/share/doc/*/copyright", "bookworm", str(tarball), *sources]
        else:
            root = Path(tmp) / "root"
            cmd = ["debootstrap", "--variant=minbase", f"--include={','.join(packages)}", "bookworm", str(root),
                   mirror]
        run_step(cmd, f"{tool} bookworm")
        if tool == "debootstrap":
            run_step(["tar", "-C", str(root), "--numeric-owner", "-cf", str(tarball), "."], "tar the root file system")
        progress(f"base: {tool} took {time.monotonic() - started:.0f} s; docker import")
        with open(tarball, "rb") as fh:
            stream(["import", "--change", "ENV LANG=C.UTF-8", "--change", 'CMD ["/bin/bash"]',
                    "--message", f"memlab base: {tool} minbase bookworm", "-", BASE_TAG],
                   lambda line: None, stdin=fh.fileno())
    return f"{tool}:{mirror}"


# ---- backends and SUTs -------------------------------------------------------------
def ensure_backend(name: str, progress: Progress = lambda line: None, force: bool = False,
                   ca_certs: list[Path] | None = None) -> ImageRecord:
    """A backend image (postgres, redis, postgres-pgvector) on the base; kept if present. Its context
    holds ``ca/`` and the files of ``images/backends/`` (a recipe that fetches from PyPI needs both)."""
    tag, recipe, packages = BACKENDS[name]
    base = ensure_base(progress)
    with build_lock(name):
        if not force and (present := current_image(name, tag, base.id, progress)):
            return present
        started = time.monotonic()
        with _context(ca_certs, name, tag, progress) as ctx:
            for path in recipe.parent.iterdir():
                if path.is_file():
                    shutil.copyfile(path, ctx / path.name)
            docker_build(recipe, ctx, tag, _build_args(), {"memlab.base": base.id}, progress)
        return finish_build(name, tag, started, packages, {}, progress)


def _build_args() -> dict[str, str]:
    """The build arguments of every recipe on the base: the base, and the package index if one is set."""
    args = {"BASE": BASE_TAG}
    if os.environ.get("PIP_INDEX_URL"):
        args["PIP_INDEX_URL"] = os.environ["PIP_INDEX_URL"]
    return args


def sut_tag(driver_dir: Path) -> str:
    """``memlab/sut-<folder>:<digest>``: the digest covers the recipe, the driver folder and the kit."""
    files = [(f"{root.name}/{path.relative_to(root)}", path) for root in (Path(driver_dir), KIT_DIR)
             for path in sorted(_files_under(root))]
    return f"memlab/{sut_name(driver_dir)}:{_digest(SUT_RECIPE, files)}"


def _files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def _digest(recipe: Path, files: list[tuple[str, Path]]) -> str:
    """12 hex digits of SHA-256 over a recipe and named files (the name, then the bytes, of each)."""
    h = hashlib.sha256(recipe.read_bytes())
    for name, path in files:
        h.update(f"\0{name}\0".encode() + path.read_bytes())
    return h.hexdigest()[:12]


@contextmanager
def _context(ca_certs: list[Path] | None, name: str, tag: str, progress: Progress) -> Iterator[Path]:
    """A temporary build context holding ``ca/`` with the extra CA certificates (announced)."""
    certs = host_ca_certs() if ca_certs is None else [Path(c) for c in ca_certs]
    progress(f"{name}: building {tag} ({len(certs)} extra CA certificate(s))")
    with tempfile.TemporaryDirectory(prefix="memlab-ctx-") as tmp:
        ctx = Path(tmp)
        (ctx / "ca").mkdir()
        (ctx / "ca" / ".keep").touch()
        for i, cert in enumerate(certs):
            shutil.copyfile(cert, ctx / "ca" / f"{i:02d}-{cert.stem}.crt")
        yield ctx


def ensure_sut(driver_dir: Path, ca_certs: list[Path] | None = None, progress: Progress = lambda line: None,
               force: bool = False) -> ImageRecord:
    """The SUT image of a driver folder (built on the base when missing or built on an older base)."""
    driver_dir = Path(driver_dir)
    tag, name = sut_tag(driver_dir), sut_name(driver_dir)
    base = ensure_base(progress)
    with build_lock(name):
        if not force and (present := current_image(name, tag, base.id, progress)):
            return present
        started = time.monotonic()
        with _context(ca_certs, name, tag, progress) as ctx:
            req = driver_dir / "requirements.txt"
            (ctx / "requirements.txt").write_bytes(req.read_bytes() if req.is_file() else b"")
            shutil.copytree(driver_dir, ctx / "driver", ignore=_IGNORED)
            shutil.copytree(KIT_DIR, ctx / "driverkit", ignore=_IGNORED)
            docker_build(SUT_RECIPE, ctx, tag, _build_args(), {"memlab.base": base.id, "memlab.driver": driver_dir.name,
                                                       "memlab.ca-certs": str(len(list((ctx / "ca").glob("*.crt"))))},
                          progress)
        return finish_build(name, tag, started, ("python3",), {}, progress)


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


def ensure_lab(ca_certs: list[Path] | None = None, progress: Progress = lambda line: None,
               force: bool = False) -> ImageRecord:
    """The lab's own image (also tagged ``memlab/lab:latest``), built on the base when missing."""
    tag, root = lab_tag(), IMAGES_DIR.parent
    base = ensure_base(progress)
    with build_lock("lab"):
        present = None if force else current_image("lab", tag, base.id, progress)
        if present is None:
            started = time.monotonic()
            with _context(ca_certs, "lab", tag, progress) as ctx:
                for path in _lab_files(root):
                    target = ctx / "src" / path.relative_to(root)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target)
                docker_build(LAB_RECIPE, ctx, tag, {"BASE": BASE_TAG}, {"memlab.base": base.id}, progress)
            present = finish_build("lab", tag, started, ("docker.io",), {}, progress)
        docker("tag", present.id, LAB_LATEST, timeout=60)
        return present


# ---- listing -------------------------------------------------------------------------
def listing() -> list[dict[str, str]]:
    """Every memlab image here: name, tag, id, created, size, labelled versions, last build seconds."""
    fmt = "{{.Repository}}:{{.Tag}}\t{{.ID}}\t{{.CreatedSince}}\t{{.Size}}"
    out = docker("images", "--filter", f"label={IMAGE_LABEL}", "--format", fmt, timeout=30).stdout
    rows = []
    for line in out.splitlines():
        tag, short, created, size = line.split("\t")
        labels = image_labels(short)
        name = labels.get(IMAGE_LABEL, "")
        record = records_dir() / f"{name}.json"
        seconds = json.loads(record.read_text()).get("seconds") if record.is_file() else None
        rows.append({"name": name, "tag": tag, "id": short, "created": created, "size": size,
                     "versions": " ".join(f"{k[len('memlab.deb.'):]}={v}" for k, v in sorted(labels.items())
                                          if k.startswith("memlab.deb.")),
                     "build_seconds": "" if seconds is None else f"{seconds:.0f}"})
    return rows


# ---- helpers -------------------------------------------------------------------------


