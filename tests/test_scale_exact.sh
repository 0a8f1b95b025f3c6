#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The reduced reading (--scale N, and auto on camera films) is exact: the
# decoder's planes are box-averaged band by band while the analysis reaches
# each band (src/decode.c, fill_reduced), with the next band's rows asked for
# ahead. A film made of a small one with every pixel doubled (2 x 2, each
# plane, lossless FFV1) reduced by 2 must be measured as the small film is at
# full size: the same entropy in every frame and 4 times its changed pixels
# (counts stay in full-size pixels). A reduction that read a band's rows from
# the wrong place, or a band too early or too late, moves them. Needs the
# ffmpeg program (skips, 77, without it). Args: the settle program.
set -u
. "$(dirname "$0")/lib.sh"
film_scratch "$1"

# 136 rows: 8 bands of 16 and a last one of 8, reduced or not
ffmpeg -nostdin -v error -f lavfi -i "testsrc2=size=208x136:rate=10:duration=3" \
  -pix_fmt yuv420p -c:v ffv1 small.mkv &&
  ffmpeg -nostdin -v error -i small.mkv -vf "scale=iw*2:ih*2:flags=neighbor" \
    -pix_fmt yuv420p -c:v ffv1 big.mkv
check $? "the films made (208x136 and its pixels doubled, FFV1)"

"$settle" analyze -q --scale full --csv small.csv small.mkv >/dev/null 2>small.err
"$settle" analyze -q --scale 2 --csv big.csv big.mkv >/dev/null 2>big.err
# frame, time, changed pixels (the big film's divided by 4), entropy and its delta
cols() { awk -F, -v k="$2" 'NR > 1 { printf "%s %s %s %s %s\n", $1, $2, $3 / k, $4, $5 }' "$1"; }
cols small.csv 1 >small.txt
cols big.csv 4 >big.txt
[ "$(wc -l <small.txt)" -eq 30 ]
check $? "the small film measured, 30 frames ($(wc -l <small.txt))"
n=$(awk '$3 > 0' small.txt | wc -l)
[ "$n" -ge 20 ]
check $? "its pictures change ($n of 30 frames with changed pixels)"
cmp -s small.txt big.txt
check $? "reduced by 2, the doubled film measures as the small one at full size: $(diff small.txt big.txt | head -n 2 | tr '\n' ' ')"
done_testing
