#!/usr/bin/env bash
# Debian's own python3 with venv and pip (/usr/bin/python3: externally managed, PEP 668; pip in
# /usr/lib/python3/dist-packages), whatever other Python the machine has: tests/system/test_setup_readme.py
# runs README's set-up with it, as a user of Debian 12 or Ubuntu 24.04 would.
set -euo pipefail
if ! /usr/bin/python3 -c 'import ensurepip, pip, venv' 2>/dev/null; then
  if ! command -v apt-get >/dev/null; then
    echo "no Debian python3 at /usr/bin/python3 (no apt-get here): tests/system/test_setup_readme.py will say so" >&2
    exit 0
  fi
  echo "installing Debian's python3, python3-venv and python3-pip"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends python3 python3-venv python3-pip >/dev/null
fi
/usr/bin/python3 --version
