"""Docker tests: they need a running engine and the lab's base image, and they really run.

Without an engine they fail with what to do (``.ci/docker-up``), never skip: CI must
prove the containers work. Each module gets a cache and a scratch folder of its own,
so its gc sees only its own runs.
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from lab import images
from lab.runtime.dockercli import engine


@pytest.fixture(scope="session", autouse=True)
def docker_engine():
    """An engine that answers, with the base, reference SUT and backend images built (missing ones now)."""
    ok, why = engine()
    if not ok:
        pytest.fail(f"docker tests need a running Docker engine: {why}.\n"
                    "Run .ci/docker-up (as root on Debian) to install and start one and build the images.",
                    pytrace=False)
    images.build(["base", "sut-reference", "postgres", "redis"], progress=print)
    return why


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache and scratch folder of the module's own."""
    old = {k: os.environ.get(k) for k in ("MEMLAB_CACHE", "MEMLAB_SCRATCH")}
    os.environ["MEMLAB_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["MEMLAB_SCRATCH"] = tempfile.mkdtemp(prefix="memlab-docker-test-")
    yield Path(os.environ["MEMLAB_CACHE"])
    shutil.rmtree(os.environ["MEMLAB_SCRATCH"], ignore_errors=True)
    for key, value in old.items():
        if value is None:
            os.environ.pop(key)
        else:
            os.environ[key] = value
