"""Docker tests: they need a running engine and the lab's base image, and they really run.

Without an engine they fail with what to do (``.ci/docker-up``), never skip: CI must
prove the containers work. Each module gets a cache and a scratch folder of its own,
so its gc sees only its own runs.
"""

import socket

import pytest

from lab.runtime import images
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
def listener():
    """A loopback listener on the host, which a hostile SUT or a build step tries to connect to: it must
    see no connection."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.setblocking(False)
    yield sock
    sock.close()
