#!/bin/sh
# Installs the Debian packages chameleon needs to build, run and test.
# Idempotent: it asks apt for nothing when every package is already there.
# Works as root or through sudo, never asks a question (CI has no terminal).
#
# Usage: deploy/install-deps.sh [--runtime | --build | --package | --test]
#   --runtime  only what the server needs to run
#   --build    runtime + compilers' libraries and headers (default)
#   --package  build + the Debian packaging tools (make deb)
#   --test     package + test tools (cmocka, chromium and its headless
#              shell, node, npm, libFuzzer, nginx, openssl, systemd-analyze,
#              PostgreSQL, redis-server + hiredis)
set -eu

mode=${1:---build}

runtime="libuv1 libwebsockets17 libwebsockets-evlib-uv libjansson4 libsqlite3-0 libsodium23 libsystemd0 libssl3 libcurl4 libpq5 liboath0"
build="gcc make pkg-config clang lld wasi-libc libclang-rt-dev-wasm32 uthash-dev libuv1-dev libwebsockets-dev libwebsockets-evlib-uv libjansson-dev libsqlite3-dev libsodium-dev libsystemd-dev libssl-dev libcurl4-openssl-dev libpq-dev liboath-dev"
package="dpkg-dev debhelper fakeroot"
# systemd: systemd-analyze verify for the unit (installing it does not make
# it PID 1 in a container); nginx: the TLS proxy test (started by the test
# as a plain process, never as a service); python3-aiosmtpd: the SMTP
# server the mail tests start on loopback; postgresql: the server binaries
# (initdb, postgres) the PostgreSQL store tests start as an unprivileged
# process in a temporary directory (tests/tools/pg.sh), never as a service.
test="libcmocka-dev chromium chromium-headless-shell sqlite3 libclang-rt-dev nginx openssl systemd python3-aiosmtpd postgresql"
# redis-server and libhiredis-dev: the relay bench (tests/bench/relay.bench.sh,
# Redis pub/sub against PostgreSQL LISTEN/NOTIFY between nodes); nothing the
# server links uses hiredis.
test="$test redis-server libhiredis-dev"

case "$mode" in
  --runtime) want="$runtime" ;;
  --build)   want="$build" ;;
  --package) want="$build $package" ;;
  --test)    want="$build $package $test" ;;
  *) echo "usage: $0 [--runtime|--build|--package|--test]" >&2; exit 2 ;;
esac

missing=""
for pkg in $want; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $pkg"
  fi
done
# Node.js and npm may come from Debian or from elsewhere; only the commands matter.
if [ "$mode" = --test ]; then
  command -v node >/dev/null 2>&1 || missing="$missing nodejs"
  command -v npm >/dev/null 2>&1 || missing="$missing npm"
fi

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  echo "install-deps: missing packages:$missing; run as root or install sudo" >&2
  exit 1
fi

echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
