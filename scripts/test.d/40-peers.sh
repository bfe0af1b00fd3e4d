#!/usr/bin/env bash
# The peer lifecycle gate memorycheck, beside memlab, for the tests and benchmarks that run both on the
# same input: installed from its source (it is on no package registry) with its langgraph extra, at
# the versions memlab's langgraph-store rows pin (so --adapter langgraph measures the same library
# in both), into its own virtual environment, .peers/memorycheck (gitignored), made once and reused
# while the source and those pins are unchanged.
# The source is $MEMLAB_MEMORYCHECK_SOURCE, by default shared/peers/memorycheck beside this checkout
# or the folder above it (where this lab's CI machines keep it). Without it the peer tests compare with
# the recorded outputs in tests/fixtures/peer-records/ (README, "The peers").
set -euo pipefail
cd "$(dirname "$0")/../.."
src=${MEMLAB_MEMORYCHECK_SOURCE:-}
if [ -z "$src" ]; then
  for candidate in ../shared/peers/memorycheck ../../shared/peers/memorycheck; do
    if [ -f "$candidate/pyproject.toml" ]; then src=$candidate; break; fi
  done
  src=${src:-../shared/peers/memorycheck}
fi
venv=.peers/memorycheck
if [ ! -f "$src/pyproject.toml" ]; then
  echo "memorycheck's source is not at $src: the peer tests compare with its recorded outputs (set MEMLAB_MEMORYCHECK_SOURCE to run it live)" >&2
  exit 0
fi
pins=images/langgraph-store/requirements.txt
stamp=$( (cd "$src" && find src pyproject.toml -type f \( -name '*.py' -o -name pyproject.toml \) | sort | xargs sha256sum; \
          sha256sum "$OLDPWD/$pins") | sha256sum | cut -c1-16)
if [ -x "$venv/bin/memorycheck" ] && [ "$(cat "$venv/.source-digest" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$src/." "$copy/"            # the source may be read-only: build from a copy
rm -rf "$copy/build" "$copy"/src/*.egg-info
"$venv/bin/python" -m pip install --disable-pip-version-check -q -c "$pins" "$copy[langgraph]" 2>&1 \
  | grep -v '^WARNING: Location' || true
"$venv/bin/memorycheck" --help >/dev/null
echo "$stamp" > "$venv/.source-digest"
echo "memorycheck installed in $venv from $src"
