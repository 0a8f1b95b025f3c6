#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 19, room39 (doc/accuracy.md): a phone filmed upright in a room on a
# landscape picture (Eideticker's startup-test-elmo: a 1280x720 camera). A
# camera's noise makes such a film camera-like; an encoder that smooths the
# noise away leaves it clean, and a landscape clean capture kept diff's 4096
# pixels, the rule of HDMI and desktop captures, under which the phone's
# late rows, small in the camera's picture, fall: early by 0.7 to 2 s. Every
# strong change lying in an upright rectangle with no flat border around it
# (a room, not an HDMI output's bars) now makes it a phone's picture.
# - make_grid --landscape: seed 19's camera films 18 (x264 CRF 28), 86 (VP9)
#   and 101 (x265), clean once coded, each right (before: -0.700, -0.300 and
#   -1.950 s by diff; now 18 by diff, whose stable frame the phone's rules
#   check against the block test's, the others by the block test);
# - a phone screen recording letterboxed on a landscape picture (flat black
#   bars, as an HDMI output shows a phone) is not one: diff, as before;
# - with ../shared/realdata: startup-test-elmo re-encoded by x264 at CRF 28
#   with B-frames (perturb38's family 1; before: 5.867 s, 0.417 s early).
# room54: such a film decided by diff counts the phone's rectangle alone in
# the frames the block test saw no content in, not the room: seed 477's
# camera film 78 (x264 q33: the encoder re-codes the wall below the phone at
# 2.6 s, +0.560 s before); case 18 above keeps its late row, which only the
# room's re-coding in the same frame lifted over diff's threshold.
# Skips (77) without the ffmpeg program or libx264. Args: the settle
# program, make_grid, the source root.
set -u
. "$(dirname "$0")/lib.sh"
make_grid=$(realpath "$2")
root=$(realpath "$3")
film_scratch "$1"
need_encoders libx264

# within GOT TRUTH TOL
within() { awk -v g="${1:-x}" -v t="$2" -v e="$3" 'BEGIN { exit !(g != "x" && g - t <= e + 1e-9 && t - g <= e + 1e-9) }'; }
stable() { sed -n 's/.*"stable_time":\([-0-9.e]*\).*/\1/p' "$1"; }
method() { grep -o '"method":"[a-z]*"' "$1" | head -1 | cut -d'"' -f4; }

for index in 18 86 101; do
  line=$("$make_grid" --landscape . 19 "$index" $((index + 1)))
  check $? "make_grid --landscape 19 $index"
  IFS=$'\t' read -r file truth tol _ <<<"$line"
  "$settle" analyze -q --json r$index.json "$file" 2>err$index
  got=$(stable r$index.json)
  within "$got" "$truth" "$tol"
  check $? "landscape case $index: stable at ${got:-none} s, truth $truth s (within $tol s)"
  grep -q 'a phone filmed in a room: every strong change lies in an upright' r$index.json
  check $? "landscape case $index: the reason says a phone filmed in a room ($(method r$index.json))"
done

for index in 78; do
  line=$("$make_grid" --landscape . 477 "$index" $((index + 1)))
  check $? "make_grid --landscape 477 $index"
  IFS=$'\t' read -r file truth tol _ <<<"$line"
  "$settle" analyze -q --json s$index.json "$file" 2>serr$index
  got=$(stable s$index.json)
  within "$got" "$truth" "$tol" && [ "$(method s$index.json)" = diff ] &&
    grep -q "diff counts only the phone's rectangle, not the room" s$index.json
  check $? "seed 477's case $index: diff without the room, stable at ${got:-none} s, truth $truth s"
done

# a phone's screen recording letterboxed (seed 19's case 4, 360x640) on
# 1152x648 with black bars
line=$("$make_grid" . 19 4 5)
IFS=$'\t' read -r file truth tol _ <<<"$line"
ffmpeg -nostdin -v error -y -i "$file" -vf "pad=1152:648:396:4:black" -c:v libx264 -crf 18 \
  -pix_fmt yuv420p -threads 1 boxed.mp4
check $? "ffmpeg letterboxes case 4"
"$settle" analyze -q --json boxed.json boxed.mp4 2>boxed.err
got=$(stable boxed.json)
within "$got" "$truth" "$tol" && [ "$(method boxed.json)" = diff ] && ! grep -q 'phone filmed' boxed.json
check $? "letterboxed: diff at ${got:-none} s (truth $truth s), not a phone filmed in a room"

elmo=$root/../shared/realdata/eideticker/startup-test-elmo.webm
if [ -f "$elmo" ]; then
  ffmpeg -nostdin -v error -y -i "$elmo" -fps_mode passthrough -c:v libx264 -preset veryfast \
    -pix_fmt yuv420p -threads 1 -crf 28 -bf 3 -g 250 elmo.mp4
  check $? "ffmpeg re-encodes startup-test-elmo at CRF 28"
  "$settle" analyze -q --json elmo.json elmo.mp4 2>elmo.err
  got=$(stable elmo.json)
  within "$got" 6.283 0.15 && grep -q 'phone filmed' elmo.json
  check $? "elmo at CRF 28: ${got:-none} s, the home screen's tiles at 6.283 s (within 0.15 s), a phone in a room"
else
  echo "# no ../shared/realdata: the re-encoded startup-test-elmo is not checked"
fi
done_testing
