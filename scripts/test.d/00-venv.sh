#!/usr/bin/env bash
# The lab's Python environment: a virtual environment in the checkout (.venv, gitignored), made
# once with python3 and reused, the lab installed editable with its test extras. pip never runs
# on the system's Python, so a Debian 12 / Ubuntu 24.04 python3 (externally managed, PEP 668) does.
# Usage: bash scripts/test.d/00-venv.sh [EXTRAS]   (default: test; scripts/test and .ci/docker-up run it)
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv
extras=${1-test}

if [ -e "$venv" ] && ! "$venv/bin/python" -c '' 2>/dev/null; then
  echo "$venv: its python does not run (moved or upgraded?); making it anew"
  rm -rf "$venv"
fi
if [ ! -e "$venv" ]; then
  err=$(mktemp)
  if ! python3 -m venv "$venv" 2>"$err"; then
    rm -rf "$venv"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "python3 -m venv failed; installing python3-venv"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
      python3 -m venv "$venv"
    else
      cat "$err" >&2
      echo "python3 cannot make a virtual environment: install python3-venv (sudo apt-get install python3-venv)" >&2
      rm -f "$err"
      exit 2
    fi
  fi
  rm -f "$err"
fi
"$venv/bin/python" -m pip install --disable-pip-version-check -q -e ".${extras:+[$extras]}"
# The lab's own bytecode, once: an editable install compiles nothing, and where the environment says
# PYTHONDONTWRITEBYTECODE (this CI's does) every memlab process would compile its ~140 modules anew
# (0.15 s each time). A stale .pyc is never used: Python checks it against the source.
"$venv/bin/python" -m compileall -q -j 0 lab edits >/dev/null
