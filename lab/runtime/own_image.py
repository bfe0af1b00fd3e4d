"""A row's own SUT image (profile ``image:``): a Dockerfile in its driver folder, or an image already
on the engine, whose entrypoint speaks the driver protocol (images/README.md).

- ``image: {dockerfile: Dockerfile}`` -- built by the lab like every SUT image
  (:func:`lab.runtime.images.ensure_sut` with this recipe): on the lab's base (``FROM ${BASE}``, which
  the build is given as ``memlab/base:bookworm``), with the legacy builder and **no network**
  (``--network none``: a team's steps reach nothing), from the same context (``ca/`` with the host's
  extra CA certificates, never committed; ``requirements.txt``; ``driver/``, the folder; ``driverkit/``
  and ``driverkit-node/``, the kits) plus ``fetched/``: what the folder declares, fetched by the lab's
  own checked steps before the build (:mod:`lab.runtime.own_fetch`). The tag is a digest of the Dockerfile, the folder and the kits: an edit builds anew.
- ``image: {tag: acme/agent:1.4}`` -- used as it is, never pulled (no registry); absent, the row is not
  runnable and ``memlab list`` says how to bring it.

Either way the container is started exactly as the lab's own SUT images are
(:class:`lab.runtime.docker.DockerRuntime`): the lab's user, no capabilities, ``no-new-privileges``,
a read-only root, memory and pids limits, ``--network none`` unless a backend needs loopback -- what
the image's own ``USER`` says does not count. Only the entrypoint is the image's.
"""

from __future__ import annotations

import json
from pathlib import Path

from lab.profile import Profile
from lab.runtime import images
from lab.runtime.dockercli import image_id, image_labels
from lab.runtime.image_build import ImageBuildError, ImageRecord, Progress


def recipe(profile: Profile) -> Path | None:
    """The row's own Dockerfile, or None (no own image, or one named by tag)."""
    image = profile.image
    return profile.driver_dir / image.dockerfile if image and image.dockerfile else None


def tag_of(profile: Profile) -> str:
    """The tag the row's SUT runs from: its own tag, or the digest tag of its (own or lab) recipe."""
    if profile.image and profile.image.tag:
        return profile.image.tag
    return images.sut_tag(profile.driver_dir, recipe(profile) or images.SUT_RECIPE)


def build_command(profile: Profile) -> str:
    """The command that makes the row's image here."""
    folder = profile.driver_dir
    if folder.parent == images.IMAGES_DIR and profile.image and profile.image.dockerfile == images.OWN_RECIPE:
        return f"memlab images build {images.sut_name(folder)}"
    return f"memlab run --runtime docker --sut {profile.row} (it builds the image first)"


def missing(profile: Profile) -> str | None:
    """What is missing for the row's image on this engine, with the fix; None when nothing is."""
    if profile.image and profile.image.tag:
        if image_id(profile.image.tag):
            return None
        return (f"its own image {profile.image.tag} is not on the docker engine; build it "
                f"(docker build -t {profile.image.tag} <folder>) or load it (docker load -i <file>.tar); "
                "memlab never pulls")
    if image_id(tag_of(profile)):
        return None
    return f"image {tag_of(profile)} not built yet: {build_command(profile)}"


def ensure(profile: Profile, ca_certs: list[Path] | None, progress: Progress) -> ImageRecord:
    """The row's own image: built from its Dockerfile when missing, or the tagged image as it is."""
    if profile.image and profile.image.tag:
        present = image_id(profile.image.tag)
        if not present:
            raise ImageBuildError(f"{profile.row}: {missing(profile)}")
        repository = profile.image.tag.split("@")[0].rsplit(":", 1)[0]  # acme/agent of acme/agent:1.4
        return ImageRecord(images.sut_name(Path(repository)), profile.image.tag, present,
                           labels=image_labels(profile.image.tag))
    dockerfile = recipe(profile)
    assert dockerfile is not None
    return images.ensure_sut(profile.driver_dir, ca_certs, progress, recipe=dockerfile)


def packages(profile: Profile) -> tuple[dict[str, str], str]:
    """The SUT's packages as its driver folder pins them (npm's package-lock.json), and where they come
    from; an own image without a lock lists none (its environment record says so)."""
    lock = profile.driver_dir / "package-lock.json" if profile.driver else None
    if lock is None or not lock.is_file():
        return {}, "not listed (an own image without a package-lock.json in its driver folder)"
    entries = json.loads(lock.read_text(encoding="utf-8")).get("packages", {})
    found = {path.rsplit("node_modules/", 1)[-1]: str(entry.get("version", "")) for path, entry in entries.items()
             if path.startswith("node_modules/") and "version" in entry}
    return dict(sorted(found.items())), f"npm:{lock.name}"
