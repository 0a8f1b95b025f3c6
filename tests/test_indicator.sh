#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 19: a phone's indicators are the system's, left out of the block test
# (doc/accuracy.md), tested on a real recording and two re-encodings of it as
# a capture program would write them (x264 CRF 28 without B-frames, GOP 30;
# under noise), the JSON's object for the indicator, the option that keeps
# it, and a bad value's one-line error. Args: the settle program, the source
# root, the indicator:
# - scroll-bar (scroll41): Chrome on Android draws its scroll indicator at the
#   screen's right edge when the page's layout ends (browsertime's
#   sitespeed_android.mp4: frame 24, 2.498 s, the page's last frame) and fades
#   it out over the next 18 frames. The block test counted the fade's steps
#   (its edge blocks at 1.1 to 2.4 times their threshold) whenever the method
#   choice took it: on the re-encodings it answered the fade's end, 0.3 s
#   late. The right edge (3 %) below the status bar is left out unless a
#   block there moved by 4 times its threshold (the indicator drawn at once).
# - home-indicator (home42): iOS draws its home indicator, a pill 5 pt tall
#   8 pt above the screen's bottom, in a colour that follows what lies under
#   it: stagesepx's iPhone recording long.mp4 settles at frame 275 (4.635 s),
#   and from 5.2 s on the pill lightens by a few levels a picture until frame
#   341 (5.74 s). x264 at CRF 28 holds the pill and redraws it in one step of
#   15 levels at frame 341; under noise the steps add up over the block
#   test's reference: both answered the pill's last step, 0.8 to 1.1 s late.
#   The bottom rows wholly within the picture's bottom 3 % are left out.
# Uses ../shared/realdata (skips, 77, when absent) and the ffmpeg program with
# libx264.
set -u
. "$(dirname "$0")/lib.sh"
case $3 in
  scroll-bar)
    rel=browsertime/sitespeed_android.mp4 key=scroll_bar frame=24 keep_from=28
    where='"left_out":true,"x":1056,"width":24,"changed_frames":[1-9]' what='scroll indicator'
    place='the right edge (x 1056, 24 wide)' steps="the indicator's fade-out" ;;
  home-indicator)
    rel=work_with_stagesepx/long.mp4 key=home_indicator frame=275 keep_from=300
    where='"left_out":true,"y":1872,"height":48,"changed_frames":' what='home indicator'
    place='the bottom rows (y 1872, 48 tall)' steps="the pill's steps" ;;
  *) echo "test_indicator.sh: unknown indicator '$3'" >&2; exit 2 ;;
esac
real_x264 "$1" "$2" "$rel"
src=$real
# shellcheck disable=SC2086
ffmpeg -nostdin -v error -y -i "$src" -fps_mode passthrough $x264 -crf 28 -bf 0 -g 30 crf28.mp4 &&
  ffmpeg -nostdin -v error -y -i "$src" -vf noise=alls=4:allf=t -fps_mode passthrough $x264 -crf 23 -bf 3 noise4.mp4
check $? "ffmpeg re-encodes $(basename "$src") (CRF 28, GOP 30; noise)"

# field NAME FILE: a JSON number, boolean or null (the first of that name)
field() { sed -n "s/.*\"$1\":\([0-9a-z.]*\).*/\1/p" "$2" | head -n 1; }
# object FILE: the indicator's object
object() { grep -o "\"$key\":{[^}]*}" "$1"; }

"$settle" analyze -q --json orig.json "$src" 2>orig.err
rc=$?
[ "$rc" = 0 ] && [ "$(field stable_frame orig.json)" = "$frame" ]
check $? "the original: the page's frame $frame (exit $rc, $(field stable_time orig.json) s)"
o=$(object orig.json)
grep -q "$where" <<<"$o" && grep -q "$what" <<<"$o"
check $? "the JSON says it left out $place, and why: $o"

for f in crf28 noise4; do
  "$settle" analyze -q --json $f.json $f.mp4 2>$f.err
  rc=$?
  [ "$rc" = 0 ] && [ "$(field stable_frame $f.json)" = "$frame" ]
  check $? "$f: the page's frame $frame, $steps left out (exit $rc, $(field stable_time $f.json) s)"
  "$settle" analyze -q --"$3" keep --json $f-keep.json $f.mp4 2>$f-keep.err
  rc=$?
  k=$(field stable_frame $f-keep.json)
  [ "$rc" = 0 ] && [ "${k:-0}" -ge "$keep_from" ] &&
    object $f-keep.json | grep -q -- "\"left_out\":false.*--$3 keep"
  check $? "$f --$3 keep: $steps counted (frame ${k:-none}), the JSON says kept"
done

"$settle" analyze -q --"$3" maybe crf28.mp4 2>bad.err
rc=$?
[ "$rc" = 64 ] && [ "$(wc -l <bad.err)" = 1 ] && grep -q -- "--$3: expected leave-out or keep" bad.err
check $? "--$3 maybe: a one-line usage error, exit 64 ($rc: $(cat bad.err))"
done_testing
