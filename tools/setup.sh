#!/bin/sh
# kforge's main command: install what is missing (Debian packages), build the
# library, the CLI and the tests, and run the examples.
#   sh tools/setup.sh
set -eu
cd "$(dirname "$0")/.."
need=""
command -v lua5.4 >/dev/null 2>&1 || need="$need lua5.4"
command -v ninja >/dev/null 2>&1 || need="$need ninja-build"
command -v clang >/dev/null 2>&1 || need="$need clang"
command -v ar >/dev/null 2>&1 || need="$need binutils"
[ -e /usr/include/pthreadpool.h ] || need="$need libpthreadpool-dev"
if [ -n "$need" ]; then
  echo "setup: installing$need"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi
ninja
sh tools/examples.sh
