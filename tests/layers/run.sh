#!/bin/sh
# The shape of server/, checked from the sources:
#   1. the modules (a .c/.h pair; room_*, store_*, net_*, sql_* and
#      tournament_* belong to room, store, net, sql and tournament) include each other's headers without a cycle, and so do the
#      headers themselves (tsort finds loops), and so do the files taken
#      one .c/.h pair at a time (a private header such as tournament_impl.h
#      its own node): within a module too, no header includes back the
#      header of a file that includes it;
#   2. net.c includes no server header but its own (plus the buffer type,
#      protocol/proto_out.h), nor does net_http.c, and they are the only files that include
#      libwebsockets.h;
#   3. server/ is in layers, a folder each (SERVER_LAYERS in the Makefile,
#      lowest first): every file but main.c and engine_main.c sits in one,
#      and includes headers of its own folder and of the folders below it
#      only (the build enforces the same with each folder's -I: this names
#      the file). A file is split when it has two concerns, not when it is
#      long: there is no cap on lines;
#   4. every header of common/, protocol/ and server/ says in its opening
#      comment what it owns ("Owns:") and what it may call ("May call:").
# Prints the modules in dependency order (each after what it uses).
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

module_of() {
    b=$(basename "$1")
    b=${b%.[ch]}
    case $b in
    room_*) echo room ;;
    store_*) echo store ;;
    net_*) echo net ;;
    sql_*) echo sql ;;
    tournament_*) echo tournament ;;
    *) echo "$b" ;;
    esac
}

includes() {
    sed -n 's/^#include "\([^"]*\)".*/\1/p' "$1"
}

: > "$tmp/modules"
: > "$tmp/headers"
: > "$tmp/pairs"
for f in server/*.c server/*/*.c server/*/*.h; do
    m=$(module_of "$f")
    echo "$m $m" >> "$tmp/modules"
    p=$(basename "$f")
    p=${p%.[ch]}
    for h in $(includes "$f"); do
        [ -n "$(ls server/*/"$h" 2>/dev/null)" ] || continue
        hm=$(module_of "$h")
        [ "$hm" = "$m" ] || echo "$hm $m" >> "$tmp/modules"
        [ "${h%.h}" = "$p" ] || echo "${h%.h} $p" >> "$tmp/pairs"
        case $f in *.h) echo "$h $(basename "$f")" >> "$tmp/headers" ;; esac
    done
done
if ! tsort "$tmp/modules" > "$tmp/order" 2> "$tmp/err"; then
    echo "layers: the server modules include each other in a cycle:"
    cat "$tmp/err"
    fail=1
fi
if [ -s "$tmp/headers" ] && ! tsort "$tmp/headers" > /dev/null 2> "$tmp/err"; then
    echo "layers: server headers include each other in a cycle:"
    cat "$tmp/err"
    fail=1
fi
if [ -s "$tmp/pairs" ] && ! tsort "$tmp/pairs" > /dev/null 2> "$tmp/err"; then
    echo "layers: server files (.c/.h pairs) include each other in a cycle:"
    cat "$tmp/err"
    fail=1
fi

for h in $(cat server/net/net.c server/net/net_http.c | includes /dev/stdin); do
    case $h in
    net.h | proto_out.h) ;;
    *)
        echo "layers: net.c or net_http.c includes $h (only net.h and proto_out.h)"
        fail=1
        ;;
    esac
done
for f in $(grep -l 'include <libwebsockets.h>' server/*.c server/*/* protocol/* common/*); do
    [ "$f" = server/net/net.c ] || [ "$f" = server/net/net_http.c ] || {
        echo "layers: $f includes libwebsockets.h (only net.c and net_http.c may)"
        fail=1
    }
done

layers=$(sed -n 's/^SERVER_LAYERS *:= *//p' Makefile)
[ -n "$layers" ] || { echo "layers: no SERVER_LAYERS in the Makefile"; fail=1; }
# rank NAME: the place of a folder in SERVER_LAYERS (1 = lowest), or 0.
rank() {
    i=0
    for l in $layers; do
        i=$((i + 1))
        [ "$l" = "$1" ] && { echo $i; return; }
    done
    echo 0
}
for d in server/*/; do
    d=$(basename "$d")
    [ "$(rank "$d")" -gt 0 ] || { echo "layers: server/$d/ is not in SERVER_LAYERS"; fail=1; }
done
for f in server/*/*.c server/*/*.h; do
    d=$(basename "$(dirname "$f")")
    r=$(rank "$d")
    for h in $(includes "$f"); do
        at=$(ls server/*/"$h" 2>/dev/null | head -1)
        [ -n "$at" ] || continue
        hd=$(basename "$(dirname "$at")")
        if [ "$(rank "$hd")" -gt "$r" ]; then
            echo "layers: $f ($d) includes $hd/$h, a layer above it (call upward through a callback main.c registers)"
            fail=1
        fi
    done
done

for f in common/*.h protocol/*.h server/*/*.h; do
    head=$(sed -n '1,/\*\//p' "$f")
    case $head in
    *"Owns:"*"May call:"*) ;;
    *)
        echo "layers: $f does not open with what it owns and may call"
        fail=1
        ;;
    esac
done

echo "server modules, each after what it uses: $(tr '\n' ' ' < "$tmp/order")"
[ "$fail" -eq 0 ] && echo "layers: ok"
exit "$fail"
