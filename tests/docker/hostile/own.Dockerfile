# The hostile SUT as a team's own image (profile image: {dockerfile: own.Dockerfile}), for
# tests/docker/test_hostile.py: its own layout, its own entrypoint, and USER root -- the lab's
# hardening (its user, no capabilities, read-only root, limits, no network) must contain it all the same.
ARG BASE=memlab/base:bookworm
FROM ${BASE}
COPY driverkit/ /srv/agent/driverkit/
COPY driver/ /srv/agent/driver/
USER root
ENTRYPOINT ["python3", "-u", "/srv/agent/driver/driver.py"]
