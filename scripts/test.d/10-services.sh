#!/usr/bin/env bash
# Local backend servers for the service-backed rows (PostgreSQL 15, Redis) from Debian's packages.
set -euo pipefail
need=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || need+=(postgresql-15)
command -v redis-server >/dev/null || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# Debian's packages may start their own servers; the lab runs its own on its volumes.
pkill -x redis-server 2>/dev/null || true
