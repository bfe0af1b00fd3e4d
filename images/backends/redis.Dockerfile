# memlab/redis:7 — Debian's redis-server on the base (no registry needed).
ARG BASE=memlab/base:bookworm
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/*
USER redis
CMD ["redis-server", "--version"]
