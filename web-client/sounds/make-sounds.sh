#!/bin/sh
# Makes the game page's sound set (web-client/sounds/*.ogg) with SoX: short
# synthesized tones, made for this project (no third-party recordings), so
# they are free to ship. The .ogg files are committed: the build and the
# tests need no SoX. Run again after changing a line here:
#     sh web-client/sounds/make-sounds.sh    (Debian package: sox)
set -eu
cd "$(dirname "$0")"
command -v sox >/dev/null || { echo "make-sounds: sox is missing (apt-get install sox)" >&2; exit 1; }
R="-r 22050 -c 1"
# move: a soft wooden knock (a low pluck, quick decay)
sox -n $R move.ogg synth 0.09 pluck 220 fade q 0.002 0.09 0.07 gain -4
# capture: two knocks, the second lower and louder
sox -n $R c1.wav synth 0.07 pluck 260 fade q 0.002 0.07 0.05 gain -5
sox -n $R c2.wav synth 0.11 pluck 160 fade q 0.002 0.11 0.08 gain -2
sox c1.wav c2.wav capture.ogg
# check: a short bright two-tone alert
sox -n $R k1.wav synth 0.08 sine 880 fade q 0.005 0.08 0.03 gain -9
sox -n $R k2.wav synth 0.12 sine 1175 fade q 0.005 0.12 0.06 gain -9
sox k1.wav k2.wav check.ogg
# lowtime: three quick ticks
sox -n $R t.wav synth 0.04 square 1320 fade q 0.002 0.04 0.03 gain -18
sox -n $R gap.wav trim 0 0.08
sox t.wav gap.wav t.wav gap.wav t.wav lowtime.ogg
# start: a rising major third and fifth
sox -n $R s1.wav synth 0.12 sine 523 fade q 0.005 0.12 0.04 gain -9
sox -n $R s2.wav synth 0.12 sine 659 fade q 0.005 0.12 0.04 gain -9
sox -n $R s3.wav synth 0.22 sine 784 fade q 0.005 0.22 0.12 gain -9
sox s1.wav s2.wav s3.wav start.ogg
# end: the same falling
sox s3.wav s2.wav s1.wav end.ogg
rm -f c1.wav c2.wav k1.wav k2.wav t.wav gap.wav s1.wav s2.wav s3.wav
