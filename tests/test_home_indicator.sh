#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 19, home42 (doc/accuracy.md): a phone's home indicator is the
# system's. iOS draws it, a pill 5 pt tall 8 pt above the screen's bottom,
# in a colour that follows what lies under it: stagesepx's iPhone recording
# long.mp4 settles at frame 275 (4.635 s), and from 5.2 s on the pill
# lightens by a few levels a picture until frame 341 (5.74 s). Re-encoded as
# a capture program would (x264 CRF 28 without B-frames, GOP 30) the encoder
# holds the pill and redraws it in one step of 15 levels at frame 341; under
# noise the steps add up over the block test's reference: both answered the
# pill's last step, 0.8 to 1.1 s late. The bottom rows wholly within the
# picture's bottom 3 % are now left out of the block test, and the JSON says
# so; --home-indicator keep keeps the old answer. Uses ../shared/realdata
# (skips, 77, when absent) and the ffmpeg program with libx264. Args: the
# settle program, the source root.
set -u
. "$(dirname "$0")/lib.sh"
src=$2/../shared/realdata/work_with_stagesepx/long.mp4
[ -f "$src" ] || { echo "1..0 # SKIP no ../shared/realdata"; exit 77; }
src=$(realpath "$src")
film_scratch "$1"
ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libx264 ||
  { echo "1..0 # SKIP no libx264 in ffmpeg"; exit 77; }

x264='-c:v libx264 -preset veryfast -pix_fmt yuv420p -threads 1'
# shellcheck disable=SC2086
ffmpeg -nostdin -v error -y -i "$src" -fps_mode passthrough $x264 -crf 28 -bf 0 -g 30 crf28.mp4 &&
  ffmpeg -nostdin -v error -y -i "$src" -vf noise=alls=4:allf=t -fps_mode passthrough $x264 -crf 23 -bf 3 noise4.mp4
check $? "ffmpeg re-encodes long.mp4 (CRF 28, GOP 30; noise)"

# field NAME FILE: a JSON number, boolean or null (the first of that name)
field() { sed -n "s/.*\"$1\":\([0-9a-z.]*\).*/\1/p" "$2" | head -n 1; }
# home FILE: the home_indicator object
home() { grep -o '"home_indicator":{[^}]*}' "$1"; }

"$settle" analyze -q --json orig.json "$src" 2>orig.err
rc=$?
[ "$rc" = 0 ] && [ "$(field stable_frame orig.json)" = 275 ]
check $? "the original: the page's frame 275 (exit $rc, $(field stable_time orig.json) s)"
h=$(home orig.json)
grep -q '"left_out":true,"y":1872,"height":48,"changed_frames":' <<<"$h" &&
  grep -q 'home indicator' <<<"$h"
check $? "the JSON says the bottom rows (y 1872, 48 tall) were left out, and why: $h"

for f in crf28 noise4; do
  "$settle" analyze -q --json $f.json $f.mp4 2>$f.err
  rc=$?
  [ "$rc" = 0 ] && [ "$(field stable_frame $f.json)" = 275 ]
  check $? "$f: the page's frame 275, the pill's steps left out (exit $rc, $(field stable_time $f.json) s)"
  "$settle" analyze -q --home-indicator keep --json $f-keep.json $f.mp4 2>$f-keep.err
  rc=$?
  k=$(field stable_frame $f-keep.json)
  [ "$rc" = 0 ] && [ "${k:-0}" -ge 300 ] &&
    home $f-keep.json | grep -q '"left_out":false.*--home-indicator keep'
  check $? "$f --home-indicator keep: the pill's steps counted (frame ${k:-none}), the JSON says kept"
done

"$settle" analyze -q --home-indicator maybe crf28.mp4 2>bad.err
rc=$?
[ "$rc" = 64 ] && [ "$(wc -l <bad.err)" = 1 ] && grep -q -- "--home-indicator: expected leave-out or keep" bad.err
check $? "--home-indicator maybe: a one-line usage error, exit 64 ($rc: $(cat bad.err))"
done_testing
