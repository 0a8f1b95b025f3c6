#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A reduced reading's camera test (the noise floor it reports) is taken on the
# full-size planes whatever the factor: counted band by band as each band is
# reduced (src/decode.c, luma_band), and the rows below the reduced picture's
# once its bands are through (luma_finish). A noisy film of 136 rows (every
# 16th luma row counted, the last at 128) reduced by 2 and 4 covers every row,
# by 8 it leaves rows 128 to 135 below its 16 reduced rows: the three must
# report the same floor. Needs the ffmpeg program with libx264 (skips, 77,
# without it). Args: the settle program.
set -u
. "$(dirname "$0")/lib.sh"
film_scratch "$1"

# lossless, one keyframe (the camera test leaves keyframes out)
ffmpeg -nostdin -v error -f lavfi -i "testsrc2=size=208x136:rate=10:duration=3" \
  -vf "noise=alls=12:allf=t" -pix_fmt yuv420p -c:v libx264 -qp 0 -g 100 -bf 0 noisy.mp4 \
  2>/dev/null || { echo "1..0 # SKIP no libx264 in the ffmpeg program"; exit 77; }
floor() { "$settle" analyze -q --scale "$1" --json - noisy.mp4 2>/dev/null |
  sed -n 's/.*"noise_floor":\([0-9.]*\).*/\1/p'; }
f2=$(floor 2)
f4=$(floor 4)
f8=$(floor 8)
[ -n "$f2" ] && awk -v f="$f2" 'BEGIN { exit !(f > 0) }'
check $? "reduced by 2, a noise floor is reported ($f2)"
[ "$f4" = "$f2" ]
check $? "reduced by 4, the same floor ($f4, by 2 $f2)"
[ "$f8" = "$f2" ]
check $? "reduced by 8, the rows below the reduced picture counted too ($f8, by 2 $f2)"
done_testing
