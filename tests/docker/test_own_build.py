"""A row's own Dockerfile is a team's code: the lab builds it with no network (``--network none``),
after fetching what its folder declares by the lab's own steps (lab.runtime.own_fetch).

- A ``RUN`` step that tries the host's loopback reaches nothing: the listener sees no connection.
  (Built with ``--network host``, as before, the same step connected.)
- A folder that declares a Debian package, a hashed wheel and an npm lock gets all three into the
  image, though its build had no network at all.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lab.runtime import images
from lab.runtime.dockercli import docker, image_labels

pytestmark = pytest.mark.docker
FIXTURE = Path(__file__).parents[1] / "fixtures" / "own-fetch"


def test_a_build_step_reaches_no_listener_on_the_host_loopback(tmp_path, listener):
    folder = tmp_path / "reach-host"
    folder.mkdir()
    port = listener.getsockname()[1]
    (folder / "Dockerfile").write_text(
        "ARG BASE=memlab/base:bookworm\nFROM ${BASE}\n"
        f"RUN python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\" "
        "&& echo reached > /reach.txt || echo unreached > /reach.txt\n"
        'ENTRYPOINT ["cat", "/reach.txt"]\n')
    record = images.ensure_sut(folder, [], print, force=True, recipe=folder / "Dockerfile")
    try:
        with pytest.raises(BlockingIOError):
            listener.accept()
        out = docker("run", "--rm", "--network", "none", record.tag, timeout=60).stdout.strip()
        assert out == "unreached"
        assert image_labels(record.tag)["memlab.recipe"] == "Dockerfile"
    finally:
        docker("rmi", "-f", record.tag, check=False, timeout=120)


def test_what_the_folder_declares_is_fetched_and_installed_without_network(tmp_path):
    folder = Path(shutil.copytree(FIXTURE, tmp_path / "own-fetch"))
    record = images.ensure_sut(folder, None, print, force=True, recipe=folder / "Dockerfile")
    try:
        out = docker("run", "--rm", "--network", "none", record.tag, timeout=60).stdout.split()
        assert out[0].startswith("jq-1.6") and out[1:] == ["1.16.0", "7.0.0"], out
    finally:
        docker("rmi", "-f", record.tag, check=False, timeout=120)
