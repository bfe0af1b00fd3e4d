# memlab/lab — the lab itself in a container (compose/, the testcontainers fixture).
# It drives the host's Docker engine through the socket mounted into it (and only
# into it: SUT containers never get the socket). lab/images.py builds it from a
# temporary context holding
#   ca/    the host's extra CA certificates (--ca-cert; never committed)
#   src/   the lab's source tree (lab/, edits/, images/, sut_profiles/, pyproject.toml, README.md)
ARG BASE=memlab/base:bookworm
FROM ${BASE}

COPY ca/ /usr/local/share/ca-certificates/memlab/
RUN update-ca-certificates >/dev/null \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io \
 && rm -rf /var/lib/apt/lists/*

COPY src/ /opt/memlab/src/
# Editable, so the lab finds its profiles and driver folders beside its code.
RUN python3 -m venv /opt/memlab/venv \
 && PIP_CERT=/etc/ssl/certs/ca-certificates.crt /opt/memlab/venv/bin/pip install --no-cache-dir \
      --disable-pip-version-check -q -e /opt/memlab/src

ENV PATH=/opt/memlab/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    MEMLAB_CACHE=/var/cache/memlab
WORKDIR /work
ENTRYPOINT ["memlab"]
CMD ["run", "--runtime", "docker"]
