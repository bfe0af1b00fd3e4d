#!/usr/bin/env bash
# Debian's Chromium, in which the HTML report is loaded, clicked and photographed by the tests.
set -euo pipefail
if ! command -v chromium >/dev/null; then
  echo "installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
# Its version, asked of the browser itself (/usr/lib/chromium/chromium), not of Debian's launcher
# (/usr/bin/chromium, a /bin/sh script): the launcher sources /etc/chromium.d/dev-shm, whose
# `[ $shm_avail -lt 4080218931 ]` breaks where findmnt lists /dev/shm twice (a container's stacked
# mounts: "[: 25276203008: unexpected operator"); the test then counts as false, so the launcher adds
# no --disable-dev-shm-usage, right where /dev/shm has 3.8 GB free. The tests start the launcher through
# playwright, which keeps the browser's standard error to itself.
browser=/usr/lib/chromium/chromium
[ -x "$browser" ] || browser=$(command -v chromium)
"$browser" --version
