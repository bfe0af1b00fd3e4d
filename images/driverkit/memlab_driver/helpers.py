"""What drivers repeat: stable volume paths, installed versions, an offline embedding.

Imports only the standard library (``hashlib`` and ``importlib.metadata`` when first used, as the
one-module kit did, so importing the kit before the SUT stays cheap).
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def fixed_paths(volumes: dict[str, Path], label: str) -> dict[str, Path]:
    """The volumes at paths that stay the same across restarts and trials, as a container's mount
    points (``/vol/<name>``) do, for a SUT that keys state by its store's absolute path.

    In a container of its own (``MEMLAB_RUNTIME=docker``) the volumes are returned as they are. Elsewhere,
    and in the docker runtime's fork server (``MEMLAB_FORK_SERVED=1``: a start's volumes are its trial's
    folders, not ``/vol/<name>``), each
    volume gets a symlink ``/tmp/memlab-mounts/<MEMLAB_RUN_ID>/<label>/<name>``, re-pointed at
    this start's volume; ``label`` (e.g. the row) keeps rows of one run apart. The SUT must not
    resolve the link (``os.path.abspath`` does not; ``Path.resolve`` would).
    """
    if os.environ.get("MEMLAB_RUNTIME") == "docker" and os.environ.get("MEMLAB_FORK_SERVED") != "1":
        return dict(volumes)
    safe = re.sub(r"[^A-Za-z0-9._+-]", "_", label)
    base = Path("/tmp/memlab-mounts") / os.environ.get("MEMLAB_RUN_ID", "norun") / safe
    base.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, path in volumes.items():
        link, tmp = base / name, base / f".{name}.{os.getpid()}"
        os.symlink(os.path.abspath(path), tmp)
        os.replace(tmp, link)
        out[name] = link
    return out


def dist_version(name: str) -> str | None:
    """The installed version of distribution ``name`` (for ``describe``), or None when it is absent."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


#: Function words carry no topic: :func:`lexical_embedding` leaves them out.
STOP_WORDS = frozenset("""a an the is are was were be been to of in on at for by with from and or but it its
this that these those what which who whom when where why how do does did i me my you your we our they their
he his she her s have has had will would should can could may might not no as any all""".split())
_WORD = re.compile(r"[0-9a-z]+")


def lexical_embedding(text: str, dims: int = 256) -> list[float]:
    """A deterministic, offline stand-in for an embedding model that ranks on shared words: signed feature
    hashing of the lower-cased words but stop words into ``dims`` (texts sharing topic words are close)."""
    import hashlib

    vec = [0.0] * dims
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS:
            continue
        digest = hashlib.sha256(word.encode()).digest()
        vec[int.from_bytes(digest[:4], "big") % dims] += 1.0 if digest[4] & 1 else -1.0
    if not any(vec):
        vec[0] = 1.0  # no word at all: one fixed direction (a cosine needs a non-zero vector)
    return vec


def hash_embedding(text: str, dims: int = 64) -> list[float]:
    """A deterministic vector of ``dims`` floats in [-0.5, 0.5] from SHA-256 of ``text``: an offline
    stand-in for an embedding model (distinct texts get near-orthogonal vectors; no network, no key)."""
    import hashlib

    raw = b"".join(hashlib.sha256(f"{i}:{text}".encode()).digest() for i in range(dims // 32 + 1))
    return [b / 255.0 - 0.5 for b in raw[:dims]]
