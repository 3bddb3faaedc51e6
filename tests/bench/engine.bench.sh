#!/bin/sh
# The bots' search: prints the markdown section "engine" of BENCHMARKS.md
# (run by tests/bench/run.sh, like every tests/bench/*.bench.sh). Release
# build, build/match:
#   1. speed: from each game's set-up, one search of SPEED_MS on one core
#      (level 8; three-player games once per method): depth reached, nodes/s;
#   2. level 8 against level 1 in every game id (three-player games: one
#      level 8 against two level 1), TOP_GAMES games each; then the level
#      ladder in each of LADDER_GAME_IDS: each level against the one below,
#      LADDER_GAMES games each, levels 1-7 on their caps, level 8 with
#      TOP_LADDER_MS a move (pairs of games on the same random opening,
#      colours swapped);
#   3. three players: paranoid, brs and maxn (level 8) at one table in
#      yalta and ant3, THREE_GAMES games each (every seating equally often).
# The game counts are small so that the whole bench stays within about ten
# minutes: read the error bars before reading the Elo.
set -eu
cd "$(dirname "$0")/../.."

SPEED_MS=${SPEED_MS:-1000}
LADDER_GAME_IDS=${LADDER_GAME_IDS:-ultima rollerball}
LADDER_GAMES=${LADDER_GAMES:-12}
TOP_GAMES=${TOP_GAMES:-12}
# Levels 1-7 play on their caps without a clock; level 8 against level 7
# gets TOP_LADDER_MS a move, enough to search deeper than level 7's cap in
# Ultima (at 20 ms a move Ultima's levels 6-8 all stopped on time alike).
TOP_LADDER_MS=${TOP_LADDER_MS:-1000}
TOP_MS=${TOP_MS:-50}
# Three-player games: a level 8 against two level 1 at 50 ms a move won
# 0.81 of ant3 (2026-11-24), 12 of 12 at 200 ms.
TOP3_MS=${TOP3_MS:-200}
LADDER_OPENING=4
THREE_GAMES=${THREE_GAMES:-24}
THREE_MS=20
THREE_OPENING=3
MAX_PLIES=200
# Three-player games are longer (three plies a round): 200 plies cut many
# ant3 games short as draws.
MAX_PLIES3=600
JOBS=${BENCH_JOBS:-2}

bin=build/match
machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# field LINE KEY: the value of key=value in a bench or result line.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

echo "The bots' search (common/search.c) through \`build/match\`; the figures depend"
echo "on each game's evaluation as it stands (a game without an evaluate hook is"
echo "searched on mobility alone). Measured $(date -u +%Y-%m-%d) on $machine;"
echo "load average when it started: $(cut -d' ' -f1-3 /proc/loadavg) (nodes/s fall when other work shares the cores)."
echo
echo "Speed from the set-up: one search of $SPEED_MS ms at level 8 on one core."
echo
echo "| game | method | evaluate hook | depth | seldepth | nodes | nodes/s | best move |"
echo "|---|---|---|---|---|---|---|---|"
$bin --bench --movetime "$SPEED_MS" > "$tmp"
while read -r line; do
    echo "| $(field "$line" game) | $(field "$line" method) | $(field "$line" eval) | $(field "$line" depth) |" \
        "$(field "$line" seldepth) | $(field "$line" nodes) | $(field "$line" nps) |" \
        "$(field "$line" best) |"
    echo "speed: $line" >&2
done < "$tmp"
echo
echo "Command: \`$bin --bench --movetime $SPEED_MS\`."

# match_row LABEL ARGS...: one table row from a two-player match.
match_row() {
    label=$1
    shift
    $bin "$@" > "$tmp" 2>&1 || true
    res=$(grep '^result ' "$tmp" | tail -n 1)
    echo "ladder $label: $res" >&2
    avg=$(field "$res" avg)
    elo=$(field "$res" elo) err=$(field "$res" err)
    # Three players: the first player against the second.
    [ -n "$elo" ] || { elo=$(field "$res" elo_0_1); err=$(field "$res" err_0_1); }
    echo "| $label | $(field "$res" games) | ${avg%%,*} | $elo | $err |" \
        "$(sed -n 's/.*average \([0-9]*\) plies$/\1/p' "$tmp") |"
}

echo
echo "Level 8 against level 1 (three-player games: one level 8 and two level 1 at"
echo "one table, every seating): $TOP_GAMES games per game id, $TOP_MS ms a move, openings of"
echo "$LADDER_OPENING random plies, draw after $MAX_PLIES plies ($MAX_PLIES3 with three players). Score is the first"
echo "player's (a win"
echo "is 1); \`random\` plays any legal move, \`greedy\` the best one ply deep."
echo
echo "| game | games | level 8 score | Elo | +/- | average plies |"
echo "|---|---|---|---|---|---|"
for g in ultima ultima1968 rollerball ant2; do
    match_row "$g" --game "$g" --games "$TOP_GAMES" --movetime "$TOP_MS" --openings "$LADDER_OPENING" \
        --max-plies "$MAX_PLIES" -j "$JOBS" level:8 level:1
done
for g in ultima rollerball; do
    match_row "$g: level 1 - random" --game "$g" --games "$TOP_GAMES" --movetime "$TOP_MS" \
        --openings "$LADDER_OPENING" --max-plies "$MAX_PLIES" -j "$JOBS" level:1 random
    match_row "$g: level 8 - greedy" --game "$g" --games "$TOP_GAMES" --movetime "$TOP_MS" \
        --openings "$LADDER_OPENING" --max-plies "$MAX_PLIES" -j "$JOBS" level:8 greedy
done
for g in yalta ant3; do
    match_row "$g ($TOP3_MS ms a move)" --game "$g" --games "$TOP_GAMES" --movetime "$TOP3_MS" --openings "$LADDER_OPENING" \
        --max-plies "$MAX_PLIES3" -j "$JOBS" --players level:8,level:1,level:1
done
echo
echo "Command: \`$bin --game G --games $TOP_GAMES --movetime $TOP_MS level:8 level:1\` (\`--players level:8,level:1,level:1\` for three)."

for LADDER_GAME in $LADDER_GAME_IDS; do
    echo
    echo "Level ladder in $LADDER_GAME: $LADDER_GAMES games a match, levels 1-7 on their depth and node"
    echo "caps without a clock, level 8 against level 7 with $TOP_LADDER_MS ms a move;"
    echo "openings of $LADDER_OPENING random plies played with both colours, draw after"
    echo "$MAX_PLIES plies. Score and Elo are the first player's; Elo +/- is the 95% bar."
    echo
    echo "| match | games | score | Elo | +/- | average plies |"
    echo "|---|---|---|---|---|---|"
    # Levels 1-7 on their own caps, no clock (the caps are what make them);
    # level 8 against 7 with TOP_LADDER_MS a move.
    common="--game $LADDER_GAME --games $LADDER_GAMES --depth 40 --openings $LADDER_OPENING --max-plies $MAX_PLIES -j $JOBS"
    for lv in 2 3 4 5 6 7; do
        # shellcheck disable=SC2086
        match_row "level $lv - level $((lv - 1))" $common "level:$lv" "level:$((lv - 1))"
    done
    top="--game $LADDER_GAME --games $LADDER_GAMES --movetime $TOP_LADDER_MS --openings $LADDER_OPENING --max-plies $MAX_PLIES -j $JOBS"
    # shellcheck disable=SC2086
    match_row "level 8 - level 7" $top level:8 level:7
    echo
    echo "Commands: \`$bin $common level:A level:B\`; level 8 - level 7: \`$bin $top level:8 level:7\`."
done

echo
echo "Three players at one table (level 8 each): $THREE_GAMES games per game, $THREE_MS ms a move,"
echo "openings of $THREE_OPENING random plies, every seating equally often. A game's point"
echo "goes to its winner or is shared by the players who drew; equal players average 0.333."
echo
echo "| game | games | paranoid | brs | maxn | average plies |"
echo "|---|---|---|---|---|---|"
for g in yalta ant3; do
    $bin --game "$g" --games "$THREE_GAMES" --movetime "$THREE_MS" --openings "$THREE_OPENING" \
        --max-plies "$MAX_PLIES3" -j "$JOBS" --players paranoid,brs,maxn > "$tmp" 2>&1 || true
    res=$(grep '^result ' "$tmp" | tail -n 1)
    echo "three: $res" >&2
    avg=$(field "$res" avg)
    echo "| $g | $(field "$res" games) | $(echo "$avg" | cut -d, -f1) | $(echo "$avg" | cut -d, -f2) |" \
        "$(echo "$avg" | cut -d, -f3) | $(sed -n 's/.*average \([0-9]*\) plies$/\1/p' "$tmp") |"
done
echo
echo "Command: \`$bin --game yalta --games $THREE_GAMES --movetime $THREE_MS --openings $THREE_OPENING --max-plies $MAX_PLIES3 --players paranoid,brs,maxn\`."
