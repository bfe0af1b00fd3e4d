#!/usr/bin/env bash
# A Docker engine (dockerd, host networking only), the lab's images built without a
# registry (base bootstrapped from Debian's mirror), and docker-compose for compose/.
set -euo pipefail
# sut-openclaw-memory-md: the OpenClaw row's own image (Node 24, npm ci of ~650 MB): 280-460 s on an empty
# engine, kept while images/openclaw-memory-md and the kits are unchanged (its tag is their digest)
bash .ci/docker-up base base-bullseye postgres postgres-pgvector redis redis-stack sut-reference sut-lifecycle-reference sut-langgraph-redis lab sut-openclaw-memory-md
if ! command -v docker-compose >/dev/null; then
  echo "installing docker-compose"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
fi
mkdir -p /tmp/memlab-scratch
