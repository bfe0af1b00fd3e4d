# The one recipe for every SUT image: memlab/sut-<driver>:<digest>.
# lab/images.py builds it from a temporary build context holding
#   ca/               the host's extra CA certificates (--ca-cert; never committed)
#   requirements.txt  images/<driver>/requirements.txt (empty when absent)
#   driver/           the driver folder the local runtime runs (images/<driver>/)
#   driverkit/        images/driverkit/
# so the container runs the very files the local runtime runs. Layers are ordered
# for the cache: CA, user, Python packages, then the (small, often edited) code.
# A requirements.txt that pins pip (a line pip==X) is installed by that pip, as on the local runtime.
# The kit is on PYTHONPATH (as the local runtime puts it), not pip-installed: a driver
# from any folder imports memlab_driver, and the image's package listing stays the SUT's.
ARG BASE=memlab/base:bookworm
FROM ${BASE}

COPY ca/ /usr/local/share/ca-certificates/memlab/
RUN update-ca-certificates >/dev/null \
 && useradd --uid 10001 --user-group --home-dir /tmp --no-create-home --shell /usr/sbin/nologin memlab

ARG PIP_INDEX_URL=https://pypi.org/simple
COPY requirements.txt /opt/memlab/requirements.txt
RUN if grep -qvE '^[[:space:]]*(#|$)' /opt/memlab/requirements.txt; then \
      python3 -m venv /opt/memlab/venv \
      && own_pip=$(grep -xE 'pip==[0-9][0-9A-Za-z.]*' /opt/memlab/requirements.txt | head -n 1) \
      && if [ -n "$own_pip" ]; then PIP_CERT=/etc/ssl/certs/ca-certificates.crt /opt/memlab/venv/bin/pip install \
           --no-cache-dir --disable-pip-version-check -q "$own_pip"; fi \
      && PIP_CERT=/etc/ssl/certs/ca-certificates.crt /opt/memlab/venv/bin/pip install --no-cache-dir \
           --disable-pip-version-check -q -r /opt/memlab/requirements.txt; \
    else python3 -m venv --without-pip /opt/memlab/venv; fi

COPY driverkit/ /opt/memlab/images/driverkit/
COPY driver/ /opt/memlab/images/driver/
RUN python3 -m compileall -q /opt/memlab/images

USER 10001:10001
WORKDIR /opt/memlab/images/driver
ENV LANG=C.UTF-8 HOME=/tmp TMPDIR=/tmp PYTHONDONTWRITEBYTECODE=1 PYTHONNOUSERSITE=1 \
    PYTHONPATH=/opt/memlab/images/driverkit
ENTRYPOINT ["/opt/memlab/venv/bin/python", "-u", "driver.py"]
