#!/bin/sh
# make bench, soak section (BENCH=soak): an hour's worth of churn compressed
# into minutes against the release server on a fresh database, its RSS
# sampled (tests/bench/soak.mjs: pairs of visitors connect, say hello, play
# a short game, leave). Memory should be flat once the first minutes have
# warmed the caches. Prints a markdown section on stdout; progress on
# stderr. SOAK_SESSIONS (default 60000) and SOAK_PAIRS (default 40) change
# the size.
set -eu
cd "$(dirname "$0")/../.."
[ -x build/chameleon ] || { echo "build first (make)" >&2; exit 1; }
command -v node >/dev/null || { echo "soak: node is missing" >&2; exit 1; }
if [ ! -d tests/integration/node_modules/ws ]; then
    (cd tests/integration && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
sessions=${SOAK_SESSIONS:-60000}
pairs=${SOAK_PAIRS:-40}
dir=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

load=$(cut -d' ' -f1-3 /proc/loadavg)
# The guests' table is bounded (--max-guests, 100,000 by default, kept a
# day): a small bound is reached within the first minute, so that the rest
# of the run shows the steady state. Every pair of visitors comes from its
# own loopback address, so the limits per address are not reached. An hour
# compressed into minutes makes a returning visitor (its token) send 20
# times as many messages a second as a person: the messages per identity
# are lifted.
guests=${SOAK_MAX_GUESTS:-5000}
build/chameleon --host 127.0.0.1 --port 0 --db "$dir/s.db" --web-root web-client --abandon-seconds 2 \
    --max-guests "$guests" --messages-per-identity 1000000 > "$dir/out" 2> "$dir/err" &
pid=$!
port=
for _ in $(seq 50); do
    port=$(sed -n 's/.*:\([0-9]*\)\/$/\1/p' "$dir/out" 2>/dev/null || true)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "server did not start" >&2; cat "$dir/err" >&2; exit 1; }
echo "soak: $sessions sessions, $pairs pairs at once" >&2
node tests/bench/soak.mjs --port "$port" --pid "$pid" --sessions "$sessions" --pairs "$pairs" \
    --sample-ms 5000 --abandon-seconds 2 > "$dir/soak" || { cat "$dir/soak" >&2; exit 1; }
dbkb=$(($(cat "$dir"/s.db* | wc -c) / 1024))
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=

field() { sed -n "s/^$1 //p" "$dir/soak"; }
# The samples at a fraction of the run: "seconds sessions rss_kb".
nsamples=$(grep -c '^sample ' "$dir/soak")
at() {
    n=$(awk -v f="$1" -v n="$nsamples" 'BEGIN { i = int(f * (n - 1) + 0.5) + 1; print i }')
    grep '^sample ' "$dir/soak" | sed -n "${n}p" | cut -d' ' -f2-
}
row() {
    label=$1
    set -- $(at "$2")
    echo "| $label | $1 s | $2 | $5 | $(($3 / 1024)) MiB | $(($4 / 1024)) MiB | $((($3 - $4) / 1024)) MiB |"
}
secs=$(field seconds)
per_min=$(awk -v s="$(field sessions)" -v t="$secs" 'BEGIN { printf "%d", s * 60 / t }')
machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
# From the middle to the end: growth of what SQLite holds and of the rest.
set -- $(at 0.5)
m_sess=$2 m_rss=$3 m_sql=$4 m_new=$5
set -- $(at 1)
e_sess=$2 e_rss=$3 e_sql=$4 e_new=$5
rest_kb=$(( (e_rss - e_sql) - (m_rss - m_sql) ))
sql_kb=$((e_sql - m_sql))
per_guest=$(awk -v k="$rest_kb" -v n="$((e_new - m_new))" 'BEGIN { if (n > 0) printf "%d", k * 1024 / n; else print "-" }')
per_session=$(awk -v k="$rest_kb" -v n="$((e_sess - m_sess))" 'BEGIN { if (n > 0) printf "%d", k * 1024 / n; else print "-" }')
cat <<MD
Soak: $(field sessions) sessions (an hour of a site where $(($(field sessions) / 60)) visitors a
minute each connect, say hello, play a short game and leave) compressed into
$secs s ($per_min sessions a minute), release server on a fresh database on
disk, \`--abandon-seconds 2\`. $pairs pairs of visitors at once, each pair
from its own loopback address; each visitor a new guest or (half of them)
one returning with its token; one in four watches the lobby; a game is a
private seek and its invitation, 6 to 35 random legal Ultima moves and a
line of chat, then a resignation, or (one in ten) both leave mid-game and
the server ends it by abandonment. Server RSS sampled every 5 s
(\`/proc/PID/status\` VmRSS). Measured $(date -u +%Y-%m-%d) on $machine;
load average before: $load.

| point | time | sessions done | new guests so far | server RSS | SQLite (page caches) | RSS minus SQLite |
|---|---|---|---|---|---|---|
$(row start 0)
$(row "a quarter" 0.25)
$(row middle 0.5)
$(row "three quarters" 0.75)
$(row end 1)

After the churn and a pause: RSS $(( $(field idle | cut -d' ' -f1) / 1024 )) MiB, of which SQLite
$(( $(field idle | cut -d' ' -f2) / 1024 )) MiB; connections $(field after_connections), rooms
$(field after_rooms), games in progress $(field after_games_in_progress), seeks
$(field after_seeks). From the middle to the end ($((e_sess - m_sess)) sessions, $((e_new - m_new)) of them new
guests): SQLite +$sql_kb kB (its page cache follows the database, up to 64 MiB
per connection: \`PRAGMA cache_size\`), the rest +$rest_kb kB, $per_session bytes a
session or $per_guest bytes a new guest (at most $guests guests are held,
\`--max-guests $guests\`: past that a new guest takes an unused one's place). $(field games) games, $(field moves)
moves, $(field abandoned) ended by abandonment, $(field errors) errors ($(field chat_limited) chat lines
refused by the 5 lines per 10 s of a returning identity); the
database grew to $dbkb kB. Command: \`BENCH=soak make bench\` (\`node
tests/bench/soak.mjs --port P --pid PID --sessions $sessions --pairs
$pairs\` against \`build/chameleon ... --abandon-seconds 2 --max-guests $guests
--messages-per-identity 1000000\`).
MD
