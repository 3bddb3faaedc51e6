#!/bin/sh
# make bench, soak section (BENCH=soak): an hour's worth of churn compressed
# into minutes against the release server on a fresh database, its RSS
# sampled (tests/bench/soak.mjs: pairs of visitors connect, say hello, play
# a short game, leave). Memory should be flat once the first minutes have
# warmed the caches: each run ends with the slope of the RSS outside SQLite
# per 10,000 sessions after the warm-up, and says flat or not. Prints a
# markdown section on stdout; progress on stderr. SOAK_SESSIONS (the
# lengths, one run each; default "60000 150000") and SOAK_PAIRS (default
# 40) change the size.
set -eu
cd "$(dirname "$0")/../.."
[ -x build/chameleon ] || { echo "build first (make)" >&2; exit 1; }
command -v node >/dev/null || { echo "soak: node is missing" >&2; exit 1; }
if [ ! -d tests/integration/node_modules/ws ]; then
    (cd tests/integration && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
sessions=${SOAK_SESSIONS:-60000 150000}
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
machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

# run N: one soak of N sessions on a fresh database; its samples in
# $dir/soak-N, the database's size in $dir/db-N.
run() {
    rm -f "$dir"/s.db*
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
    echo "soak: $1 sessions, $pairs pairs at once" >&2
    node tests/bench/soak.mjs --port "$port" --pid "$pid" --sessions "$1" --pairs "$pairs" \
        --sample-ms 5000 --abandon-seconds 2 > "$dir/soak-$1" || { cat "$dir/soak-$1" >&2; exit 1; }
    echo $(($(cat "$dir"/s.db* | wc -c) / 1024)) > "$dir/db-$1"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
}

# report N: the section of one run. Samples are "seconds sessions rss_kb
# sqlite_kb new_guests heap_kb heap_system_kb".
report() {
    f=$dir/soak-$1
    field() { sed -n "s/^$1 //p" "$f"; }
    grep '^sample ' "$f" | cut -d' ' -f2- > "$dir/samples"
    nsamples=$(wc -l < "$dir/samples")
    at() { sed -n "$(awk -v f="$1" -v n="$nsamples" 'BEGIN { print int(f * (n - 1) + 0.5) + 1 }')p" "$dir/samples"; }
    row() {
        set -- "$1" $(at "$2")
        echo "| $1 | $2 s | $3 | $6 | $(($4 / 1024)) MiB | $(($5 / 1024)) MiB | $((($4 - $5) / 1024)) MiB | $(($7 / 1024)) MiB | $((($8 - $7) / 1024)) MiB |"
    }
    secs=$(field seconds)
    per_min=$(awk -v s="$(field sessions)" -v t="$secs" 'BEGIN { printf "%d", s * 60 / t }')
    # Warm-up: until the guests' table is full and a third of the run is
    # done. Then the least-squares slope of each figure against sessions.
    from=$(awk -v g="$guests" -v third="$(($1 / 3))" '$5 >= g { print ($2 > third ? $2 : third); exit }' "$dir/samples")
    [ -n "$from" ] || from=$(($1 / 3))
    slopes=$(awk -v from="$from" '
        $2 >= from { n++; x[n] = $2; r[n] = $3 - $4; h[n] = $6; m[n] = $7 - $6; q[n] = $4 }
        function slope(y, i, mx, my, sxx, sxy) {
            for (i = 1; i <= n; i++) { mx += x[i]; my += y[i] }
            mx /= n; my /= n
            for (i = 1; i <= n; i++) { sxx += (x[i] - mx) ^ 2; sxy += (x[i] - mx) * (y[i] - my) }
            return sxx > 0 ? sxy / sxx * 10000 : 0
        }
        END { printf "%d %+d %+d %+d %+d", n, slope(r), slope(h), slope(m), slope(q) }' "$dir/samples")
    set -- $slopes
    n=$1 s_rest=$2 s_heap=$3 s_free=$4 s_sql=$5
    # Flat: under 100 kB per 10,000 sessions (10 bytes a session).
    verdict=$(awk -v s="$s_rest" 'BEGIN { print (s < 100 ? "**flat**" : "**not flat**") }')
    cat <<MD
**$(field sessions) sessions** in $secs s ($per_min a minute); the database grew to $(cat "$dir/db-$(field sessions)") kB.

| point | time | sessions done | new guests so far | server RSS | SQLite | RSS minus SQLite | malloc in use | malloc free |
|---|---|---|---|---|---|---|---|---|
$(row start 0)
$(row "a quarter" 0.25)
$(row middle 0.5)
$(row "three quarters" 0.75)
$(row end 1)

After the warm-up ($from sessions: the guests' table full, a third of the run
done), the least-squares slope over $n samples, per 10,000 sessions: RSS
outside SQLite $s_rest kB, $verdict (under 100 kB, 10 bytes a session);
malloc in use $s_heap kB; malloc's free bytes $s_free kB; SQLite $s_sql kB
(its page caches follow the database, up to 64 MiB per connection). After
the churn and a pause: RSS $(( $(field idle | cut -d' ' -f1) / 1024 )) MiB, of which SQLite
$(( $(field idle | cut -d' ' -f2) / 1024 )) MiB; connections $(field after_connections), rooms $(field after_rooms), games in progress
$(field after_games_in_progress), seeks $(field after_seeks). $(field games) games, $(field moves) moves, $(field abandoned) ended by abandonment,
$(field errors) errors ($(field chat_limited) chat lines refused by the 5 lines per 10 s of a returning identity).
MD
}

for n in $sessions; do
    run "$n"
done
cat <<MD
Soak: an hour of a site where visitors each connect, say hello, play a
short game and leave, compressed into minutes; release server on a fresh
database on disk, \`--abandon-seconds 2\`, \`--max-guests $guests\` (past
that a new guest takes an unused one's place). $pairs pairs of visitors at
once, each pair from its own loopback address; each visitor a new guest or
(half of them) one returning with its token; one in four watches the
lobby; a game is a private seek and its invitation, 6 to 35 random legal
Ultima moves and a line of chat, then a resignation, or (one in ten) both
leave mid-game and the server ends it by abandonment. Sampled every 5 s:
the server's RSS (\`/proc/PID/status\` VmRSS), what SQLite holds
(\`chameleon_store_memory_bytes\`: its page caches, in a region of their
own, and the rest), what malloc hands out and what it holds free
(\`chameleon_heap_bytes\`, \`chameleon_heap_system_bytes\` less it; glibc's
mallinfo2, all arenas; blocks malloc maps by themselves count whole in use,
touched or not, so malloc in use is above RSS). Measured $(date -u +%Y-%m-%d)
on $machine; load average before: $load. Command: \`BENCH=soak make bench\`
(\`SOAK_SESSIONS="$sessions"\`; each run \`node tests/bench/soak.mjs --port P
--pid PID --sessions N --pairs $pairs\` against \`build/chameleon ...
--abandon-seconds 2 --max-guests $guests --messages-per-identity 1000000\`).

MD
for n in $sessions; do
    report "$n"
    echo
done
