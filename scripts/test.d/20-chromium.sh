#!/usr/bin/env bash
# Debian's Chromium, in which the HTML report is loaded, clicked and photographed by the tests.
set -euo pipefail
if ! command -v chromium >/dev/null; then
  echo "installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
chromium --version
