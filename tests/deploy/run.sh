#!/bin/sh
# Deploy suite (issue 19): what an operator installs, checked as installed.
#   1. make install DESTDIR=...: the layout, and the installed server
#      started from a configuration file alone (no CHAMELEON_MIGRATIONS, no
#      paths on the command line, run from an unrelated directory) answers
#      /healthz, serves the web client and rules.wasm; a flag wins over the
#      file; a bad file, an unknown key and a missing file exit 2 with the
#      file's name and line.
#   2. sd_notify as systemd sees it (tests/tools/notify_listen), and
#      systemd-analyze verify on deploy/chameleon.service and on an instance
#      of deploy/chameleon@.service (several nodes), the two hardened alike.
#   3. make deb: the package's files, dependencies and conffile; its
#      maintainer scripts run against stubs (the user, the state directory,
#      the unit enabled and started; an upgrade restarts; purge deletes);
#      the unpacked server started as the unit's ExecStart says, with the
#      package's configuration file, answers /healthz.
#   4. proxy.test.mjs: Debian's nginx with deploy/nginx.conf in front of the
#      server, TLS + HTTP/2, a game over wss://, X-Forwarded-For.
#   5. browser.test.mjs: the web client in chromium through that nginx: two
#      players, a game to its end, a reload, the Secure cookie; screenshots
#      in tests/output/deploy/.
set -eu
cd "$(dirname "$0")"
here=$(pwd)
top=$(cd ../.. && pwd)
tmp=$(mktemp -d /tmp/chameleon-deploy-XXXXXX)
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() {
    echo "deploy: FAIL: $*" >&2
    exit 1
}

# wait_port WHAT: the port the server started as $pid prints on $tmp/out,
# into $port; fails, naming WHAT, if the server exits or never listens.
wait_port() {
    port=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's#.*listening on http://[^:]*:\([0-9]*\)/.*#\1#p' "$tmp/out")
        [ -n "$port" ] && return 0
        kill -0 "$pid" 2>/dev/null || fail "the $1 server exited: $(cat "$tmp/err")"
        sleep 0.1
    done
    fail "the $1 server did not start: $(cat "$tmp/err")"
}

echo "--- make install DESTDIR"
make -C "$top" --no-print-directory install DESTDIR="$tmp/root" >/dev/null
for f in usr/local/bin/chameleon usr/local/bin/chameleon-engine \
    usr/local/share/chameleon/rules.wasm usr/local/share/chameleon/web-client/index.html \
    usr/local/share/chameleon/migrations/sqlite/0001_games.sql \
    usr/local/share/chameleon/migrations/postgresql/0001_games.sql etc/chameleon/chameleon.conf; do
    [ -e "$tmp/root/$f" ] || fail "make install did not install /$f"
done
# A second install keeps an edited configuration.
echo "# edited" >>"$tmp/root/etc/chameleon/chameleon.conf"
make -C "$top" --no-print-directory install DESTDIR="$tmp/root" >/dev/null
grep -q '^# edited' "$tmp/root/etc/chameleon/chameleon.conf" || fail "make install overwrote the configuration"
bin="$tmp/root/usr/local/bin/chameleon"

echo "--- the installed server from its configuration file alone"
cat >"$tmp/chameleon.conf" <<CONF
# written by tests/deploy/run.sh
host = 127.0.0.1
port = 0        # any free port
db = /nonexistent/dir/flag-wins.db
CONF
mkdir "$tmp/elsewhere"
(cd "$tmp/elsewhere" && exec env -u CHAMELEON_MIGRATIONS "$bin" --config "$tmp/chameleon.conf" \
    --db "$tmp/test.db" >"$tmp/out" 2>"$tmp/err") &
pid=$!
wait_port installed
curl -fsS "http://127.0.0.1:$port/healthz" >"$tmp/health" || fail "/healthz did not answer"
grep -q . "$tmp/health" || fail "/healthz answered nothing"
curl -fsS "http://127.0.0.1:$port/" | grep -qi '<html' || fail "the web client is not served"
curl -fsS -o "$tmp/rules.wasm" "http://127.0.0.1:$port/rules.wasm" || fail "rules.wasm is not served"
cmp -s "$tmp/rules.wasm" "$top/build/rules.wasm" || fail "rules.wasm is not the built one"
grep -q "cannot read" "$tmp/err" && fail "the server missed a file: $(cat "$tmp/err")"
[ -f "$tmp/test.db" ] || fail "--db on the command line did not win over the file"
kill -TERM "$pid"
wait "$pid" || fail "the installed server did not stop cleanly"
pid=""

echo "--- configuration errors"
expect_error() { # text, pattern
    printf '%s' "$1" >"$tmp/bad.conf"
    rc=0
    "$bin" --config "$tmp/bad.conf" >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 2 ] || fail "config '$1': exit $rc, not 2"
    grep -q "$2" "$tmp/err" || fail "config '$1': wanted '$2', got: $(cat "$tmp/err")"
}
expect_error 'port = 0
# fine
port 8080
' "bad.conf:3: expected key = value"
expect_error 'nonsense-key = 1
' "unknown flag: --nonsense-key"
expect_error 'port = 99999
' "port wants 0..65535"
expect_error '--port = 1
' 'bad.conf:1: write the key without "--"'
rc=0
"$bin" --config "$tmp/missing.conf" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "missing.conf: No such file" "$tmp/err" || fail "a missing --config file: exit $rc: $(cat "$tmp/err")"

echo "--- sd_notify: READY=1, WATCHDOG=1 at half the period, STOPPING=1"
# tests/tools/notify_listen plays systemd: a 0.4 s watchdog, so two
# WATCHDOG=1 come within about 0.4 s of READY=1 (it waits up to 30 s).
"$top/build/notify_listen" 400000 "$bin" --config "$tmp/chameleon.conf" --db "$tmp/notify.db" \
    >"$tmp/notify.out" 2>&1 || { cat "$tmp/notify.out"; fail "sd_notify"; }

echo "--- systemd-analyze verify"
mkdir "$tmp/unit"
# The unit names /usr/bin/chameleon, which verify wants to exist: point it
# at the one installed above.
sed "s#/usr/bin/chameleon#$bin#" "$top/deploy/chameleon.service" >"$tmp/unit/chameleon.service"
systemd-analyze verify "$tmp/unit/chameleon.service" || fail "systemd-analyze verify"
for k in Type=notify WatchdogSec= StateDirectory=chameleon User=chameleon NoNewPrivileges=yes \
    ProtectSystem=strict ProtectHome=yes PrivateTmp=yes RestrictAddressFamilies= \
    MemoryDenyWriteExecute=yes SystemCallFilter=@system-service; do
    grep -q "^$k" "$top/deploy/chameleon.service" || fail "the unit lacks $k"
done
# The template of several nodes (chameleon@.service), checked as an
# instance: verify prints what it ignores (an unknown key, a bad value)
# without failing, so its output must be empty. It runs what the single
# unit runs, with the single unit's hardening, line for line.
sed "s#/usr/bin/chameleon#$bin#" "$top/deploy/chameleon@.service" >"$tmp/unit/chameleon@.service"
systemd-analyze verify "$tmp/unit/chameleon@n1.service" >"$tmp/verify" 2>&1 || fail "systemd-analyze verify chameleon@n1: $(cat "$tmp/verify")"
[ -s "$tmp/verify" ] && fail "systemd-analyze verify chameleon@n1: $(cat "$tmp/verify")"
grep -q '^ExecStart=/usr/bin/chameleon --config /etc/chameleon/chameleon.conf --node %i --port ${CHAMELEON_PORT} $CHAMELEON_ARGS$' \
    "$top/deploy/chameleon@.service" || fail "the template's ExecStart"
grep -q '^EnvironmentFile=/etc/chameleon/node-%i.env$' "$top/deploy/chameleon@.service" || fail "the template's EnvironmentFile"
for u in chameleon.service chameleon@.service; do
    sed -n '/^User=/,/^SystemCallErrorNumber=/p' "$top/deploy/$u" | grep -v '^#' >"$tmp/$u.hardening"
done
cmp -s "$tmp/chameleon.service.hardening" "$tmp/chameleon@.service.hardening" ||
    fail "chameleon@.service's settings differ from chameleon.service's: $(diff "$tmp/chameleon.service.hardening" "$tmp/chameleon@.service.hardening")"

echo "--- make deb"
start=$(date +%s)
make -C "$top" --no-print-directory deb >"$tmp/deb.log" 2>&1 || { tail -30 "$tmp/deb.log"; fail "make deb"; }
echo "make deb: $(($(date +%s) - start)) s"
deb=$(ls "$top"/build/deb/chameleon_*.deb)
dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/files"
for f in ./usr/bin/chameleon ./usr/bin/chameleon-engine ./usr/share/chameleon/rules.wasm \
    ./usr/share/chameleon/web-client/index.html ./usr/share/chameleon/migrations/sqlite/0001_games.sql \
    ./usr/share/chameleon/migrations/postgresql/0001_games.sql \
    ./etc/chameleon/chameleon.conf ./lib/systemd/system/chameleon.service \
    ./lib/systemd/system/chameleon@.service ./usr/share/doc/chameleon/nginx-nodes.conf \
    ./usr/share/doc/chameleon/nginx-proxy.conf; do
    grep -qx "$f" "$tmp/files" || fail "the package lacks $f"
done
dpkg-deb -f "$deb" Depends >"$tmp/depends"
for d in libuv1 libwebsockets17 libwebsockets-evlib-uv libjansson4 libsqlite3-0 libsodium23 liboath0 \
    libsystemd0 libpq5 adduser; do
    grep -q "$d" "$tmp/depends" || fail "the package does not depend on $d: $(cat "$tmp/depends")"
done
dpkg-deb -I "$deb" conffiles | grep -qx /etc/chameleon/chameleon.conf || fail "chameleon.conf is no conffile"
dpkg-deb -I "$deb" postinst | grep -q "adduser --system" || fail "postinst makes no system user"
dpkg-deb -I "$deb" postinst | grep -q "enable 'chameleon.service'" || fail "postinst does not enable the unit"
dpkg-deb -x "$deb" "$tmp/pkg"
ldd "$tmp/pkg/usr/bin/chameleon" | grep -q libsystemd || fail "the server is not linked with libsystemd"
ldd "$tmp/pkg/usr/bin/chameleon-engine" | grep -q libsystemd && fail "the engine is linked with libsystemd"

echo "--- the package's maintainer scripts, with every command they run recorded"
# `apt install ./chameleon_*.deb` runs postinst configure. It runs here with
# PATH holding only stubs that record their arguments (a command without a
# stub fails the script: nothing on this machine is changed), and
# /run/systemd/system pointed at a directory of its own (systemd is not
# PID 1 here, so the start branch would be skipped).
dpkg-deb -e "$deb" "$tmp/ctl"
mkdir "$tmp/stubs" "$tmp/systemd-running"
for c in adduser deluser install deb-systemd-helper deb-systemd-invoke systemctl rm; do
    printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$tmp/calls" >"$tmp/stubs/$c"
done
printf '#!/bin/sh\necho "getent $*" >>"%s"\n[ -e "%s" ]\n' "$tmp/calls" "$tmp/user-exists" >"$tmp/stubs/getent"
chmod +x "$tmp/stubs/"*
for f in postinst postrm; do
    sed "s#/run/systemd/system#$tmp/systemd-running#g" "$tmp/ctl/$f" >"$tmp/$f"
done
maint() { # script, arguments...
    : >"$tmp/calls"
    s=$1
    shift
    env -i PATH="$tmp/stubs" /bin/sh -e "$tmp/$s" "$@" || fail "$s $*: exit $?: $(cat "$tmp/calls")"
}
called() { grep -qx "$1" "$tmp/calls" || fail "$2: no '$1' in: $(cat "$tmp/calls")"; }
maint postinst configure
called "adduser --system --group --quiet --home /var/lib/chameleon --no-create-home --gecos chameleon game server chameleon" "a first install"
called "install -d -o chameleon -g chameleon -m 0750 /var/lib/chameleon" "a first install"
called "deb-systemd-helper enable chameleon.service" "a first install"
called "systemctl --system daemon-reload" "a first install"
called "deb-systemd-invoke start chameleon.service" "a first install"
touch "$tmp/user-exists"
maint postinst configure 0.0.9
grep -q "^adduser" "$tmp/calls" && fail "an upgrade makes the user again"
called "deb-systemd-invoke restart chameleon.service" "an upgrade"
maint postrm remove
grep -q "^rm\|^deluser" "$tmp/calls" && fail "remove deletes data: $(cat "$tmp/calls")"
maint postrm purge
called "rm -rf /var/lib/chameleon" "purge"
called "deluser --quiet --system chameleon" "purge"

echo "--- the packaged server started as its unit says"
# The unit's ExecStart and WorkingDirectory, and the package's own
# configuration file, with /usr, /etc and /var/lib rewritten under the
# unpacked tree and the port made free; as the user nobody (the
# chameleon user's stand-in) in a state directory of mode 0750 when root.
unit="$tmp/pkg/lib/systemd/system/chameleon.service"
state="$tmp/pkg/var/lib/chameleon"
exec_start=$(sed -n 's#^ExecStart=##p' "$unit" | sed "s#/usr/bin/#$tmp/pkg/usr/bin/#; s#/etc/chameleon/#$tmp/pkg/etc/chameleon/#")
workdir=$(sed -n 's#^WorkingDirectory=##p' "$unit")
[ "$workdir" = /var/lib/chameleon ] || fail "the unit works in $workdir"
conf="$tmp/pkg/etc/chameleon/chameleon.conf"
grep -q '^db = /var/lib/chameleon/chameleon.db$' "$conf" || fail "the package's configuration keeps no database in the state directory"
grep -q '^port = 8080$' "$conf" || fail "the package's configuration does not listen on 8080"
sed -i "s#/var/lib/chameleon#$state#; s#^port = 8080\$#port = 0#" "$conf"
as=""
mkdir -p "$state"
chmod 0750 "$state"
if [ "$(id -u)" -eq 0 ]; then
    chown nobody:nogroup "$state"
    chmod 0755 "$tmp"
    as="setpriv --reuid=nobody --regid=nogroup --clear-groups"
fi
# shellcheck disable=SC2086 # the command line, split as systemd splits it
(cd "$state" && exec env -u CHAMELEON_MIGRATIONS $as $exec_start >"$tmp/out" 2>"$tmp/err") &
pid=$!
wait_port packaged
curl -fsS "http://127.0.0.1:$port/healthz" | grep -q '"status":"ok"' || fail "/healthz of the packaged server"
curl -fsS "http://127.0.0.1:$port/" | grep -qi '<html' || fail "the packaged web client is not served"
grep -q "cannot read" "$tmp/err" && fail "the packaged server missed a file: $(cat "$tmp/err")"
[ -f "$state/chameleon.db" ] || fail "no database in the state directory"
kill -TERM "$pid"
wait "$pid" || fail "the packaged server did not stop cleanly: $(cat "$tmp/err")"
pid=""

echo "--- nginx in front"
if [ ! -d node_modules/ws ]; then
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
if [ ! -d ../integration/node_modules/ws ]; then
    (cd ../integration && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
if [ ! -d ../e2e/node_modules/playwright-core ]; then
    (cd ../e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
: "${CHAMELEON_BIN:=$top/build/debug/chameleon}"
export CHAMELEON_BIN
cd "$here"
node --test --test-reporter=spec ./*.test.mjs
