#!/usr/bin/env bash
# A Docker engine (dockerd, host networking only), the lab's images built without a
# registry (base bootstrapped from Debian's mirror), and docker-compose for compose/.
set -euo pipefail
bash .ci/docker-up base postgres postgres-pgvector redis sut-reference sut-lifecycle-reference lab
if ! command -v docker-compose >/dev/null; then
  echo "installing docker-compose"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
fi
mkdir -p /tmp/memlab-scratch
