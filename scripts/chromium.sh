#!/usr/bin/env bash
# Installs headless Chromium from Debian's packages for the HTML report's
# browser test (crates/report/tests/browser.rs), if it is not there yet, and
# prints its version. Debian 12, run as root (CI and the dev machines are).
#
# Usage: scripts/chromium.sh
set -euo pipefail

if [ ! -x /usr/bin/chromium ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  # Refresh the package lists only when apt does not know the package yet.
  if ! apt-cache show chromium >/dev/null 2>&1; then
    $sudo apt-get update -q
  fi
  if ! $sudo apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core; then
    # The lists may be stale (a version no longer served): refresh and retry once.
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
  fi
fi

/usr/bin/chromium --version
