# memlab/postgres:15 — Debian's postgresql-15 on the base (no registry needed).
# No cluster is created at build time: the lab initialises the data directory in
# a volume (/vol/...) it snapshots and restores as a unit.
ARG BASE=memlab/base:bookworm
FROM ${BASE}
RUN mkdir -p /etc/postgresql-common \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      -o Dpkg::Options::=--force-confold postgresql-15 \
 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
USER postgres
CMD ["postgres", "--version"]
