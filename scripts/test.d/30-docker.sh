#!/usr/bin/env bash
# A Docker engine (dockerd, host networking only), the lab's images built without a
# registry (base bootstrapped from Debian's mirror), and docker-compose for compose/.
set -euo pipefail
# sut-openclaw-memory-md: the OpenClaw row's own image (Node 24, ~830 MB of npm packages the lab installs with
# this host's npm before a build with no network): 88 s here with npm's downloads, kept while
# images/openclaw-memory-md and the kits are unchanged (its tag is their digest)
if ! command -v npm >/dev/null; then
  echo "installing npm (an own image's locked npm packages are fetched by the host's npm)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
bash .ci/docker-up base base-bullseye postgres postgres-pgvector redis redis-stack sut-reference sut-lifecycle-reference sut-langgraph-redis lab sut-openclaw-memory-md
if ! command -v docker-compose >/dev/null; then
  echo "installing docker-compose"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
fi
mkdir -p /tmp/memlab-scratch
