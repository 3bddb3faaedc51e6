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
#   3. no file of server/ is over 900 lines (a file may be listed in
#      LONG_OK while it is being split: none is);
#   4. every header of common/, protocol/ and server/ says in its opening
#      comment what it owns ("Owns:") and what it may call ("May call:").
# Prints the modules in dependency order (each after what it uses).
set -u
cd "$(dirname "$0")/../.."
LONG_OK=""
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
for f in server/*.c server/*.h; do
    m=$(module_of "$f")
    echo "$m $m" >> "$tmp/modules"
    p=$(basename "$f")
    p=${p%.[ch]}
    for h in $(includes "$f"); do
        [ -f "server/$h" ] || continue
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

for h in $(cat server/net.c server/net_http.c | includes /dev/stdin); do
    case $h in
    net.h | proto_out.h) ;;
    *)
        echo "layers: net.c or net_http.c includes $h (only net.h and proto_out.h)"
        fail=1
        ;;
    esac
done
for f in $(grep -l 'include <libwebsockets.h>' server/* protocol/* common/*); do
    [ "$f" = server/net.c ] || [ "$f" = server/net_http.c ] || {
        echo "layers: $f includes libwebsockets.h (only net.c and net_http.c may)"
        fail=1
    }
done

for f in server/*.c server/*.h; do
    n=$(wc -l < "$f")
    [ "$n" -le 900 ] && continue
    case " $LONG_OK " in
    *" $f "*) echo "layers: $f has $n lines (allowed for now: being split)" ;;
    *)
        echo "layers: $f has $n lines (at most 900)"
        fail=1
        ;;
    esac
done

for f in common/*.h protocol/*.h server/*.h; do
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
