#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20's answer explained by the program, on captures of tests/screens.c
# with exact truth (make_screens): the deciding change, the animated areas and
# the --region areas outlined on the frame (--frames NAME-answer.png and the
# picture the --report page embeds, decoded and counted pixel by pixel), the
# plot's marks, the CSV's region columns, settle compare's verdict per region
# and settle trend's region series.
# Args: the settle program, make_screens, pngstat.
set -u
. "$(dirname "$0")/lib.sh"
settle=$(realpath "$1")
make_screens=$(realpath "$2")
pngstat=$(realpath "$3")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1
opts=(--diff-threshold 200 --codec-filter off)
red=e8175d
purple=a11fd1
teal=0a9396
count() { "$pngstat" "$@"; }

# The carousel capture: blocks at frames 5-35, the carousel (16,48,288,136)
# turning at 40, 60 ... 140 of 150; the list region (blocks 0 and 1,
# 16,200,288,92) is stable at frame 15.
"$make_screens" car.mkv 150 b0=5 b1=15 b2=25 b3=35 carousel=40:20 >parts
check $? "make_screens writes the carousel capture"
"$settle" analyze -q "${opts[@]}" --region list=16,200,288,92 --frames fr --report r.html \
  --plot p.png --json r.json car.mkv 2>err
check $? "analyze with --frames, --report, --plot and a region: $(head -c 200 err)"
a=fr/car-answer.png
read -r w h _ < <(count "$a")
[ "$w" = 320 ] && [ "$h" = 480 ]
check $? "--frames: car-answer.png is the picture at full size ($w x $h)"
# the deciding change, the carousel, on its own edge pixels (band of 2): the
# top band 288x2 at 16,48, and 2 * 288 * 2 + 2 * 132 * 2 pixels in all
[ "$(count "$a" $red 0 16 48 288 2)" -eq 576 ] && [ "$(count "$a" $red 0)" -eq 1680 ]
check $? "deciding change outlined on the carousel's edge: $(count "$a" $red 0 16 48 288 2) / $(count "$a" $red 0)"
[ "$(count "$a" $red 0 18 50 284 132)" -eq 0 ]
check $? "nothing red inside the deciding change's outline"
# the animated area, the same rectangle, just outside it: 292x2 at 14,46
[ "$(count "$a" $purple 0 14 46 292 2)" -eq 584 ] && [ "$(count "$a" $purple 0)" -eq 1712 ]
check $? "animated area outlined just outside the carousel: $(count "$a" $purple 0)"
# the region 2 pixels further out (296x2 at 12,196 and 12,294), its label
# above it: teal letters' ground in the 9 rows over the outline
[ "$(count "$a" $teal 0 12 196 296 2)" -eq 592 ] && [ "$(count "$a" $teal 0 12 294 296 2)" -eq 592 ]
check $? "region outlined 2 bands out: $(count "$a" $teal 0 12 196 296 2)"
[ "$(count "$a" $teal 0 12 187 60 9)" -gt 300 ] && [ "$(count "$a" ffffff 0 12 187 60 9)" -gt 40 ]
check $? "region labelled above its outline (white letters on teal)"
[ "$(count "$a" $teal 0 0 300 320 180)" -eq 0 ] && [ "$(count "$a" $red 0 0 190 320 290)" -eq 0 ]
check $? "no outline where there is nothing to outline"
# the page: the same picture, its legend
sed -n 's/.*class="answer"[^>]*src="data:image\/png;base64,\([^"]*\)".*/\1/p' r.html | base64 -d >rep.png
[ "$(count rep.png $red 0)" -eq 1680 ] && [ "$(count rep.png $purple 0)" -eq 1712 ]
check $? "--report embeds the outlined stable frame"
grep -q 'deciding change</th><td>16,48,288,136 (39168 pixels) at 4.667&nbsp;s' r.html &&
  grep -q 'animated areas</th><td>16,48,288,136: 6 changes from 1.333&nbsp;s' r.html &&
  grep -q 'region list</th><td>16,200,288,92: stable 0.500&nbsp;s' r.html &&
  grep -q '<figcaption>stable: frame 140 at 4.667 s</figcaption>' r.html
check $? "--report: the legend names each outline with its rectangle and time"
# the plot: the deciding change's line and label, the region's
if command -v gnuplot >/dev/null; then
  "$settle" analyze -q "${opts[@]}" --plot p0.png car.mkv 2>/dev/null
  [ "$(count p.png $red 10)" -gt 200 ] && [ "$(count p.png $teal 10)" -gt 100 ] &&
    [ "$(count p0.png $teal 10)" -eq 0 ]
  check $? "--plot marks the deciding change and the region's stable time: $(count p.png $red 10) / $(count p.png $teal 10)"
  # at 0.5 s: x = left margin + 0.5 / 4.967 of the plot's width, a teal column there
  [ "$(count p.png $teal 10 155 60 20 220)" -gt 50 ]
  check $? "--plot: the region's line at its time (0.500 s)"
else
  echo "ok - # SKIP gnuplot missing: no plot"
fi

# --ignore animated: the deciding change is block 3 (168,304,136,64), the
# carousel still outlined as animated
"$settle" analyze -q "${opts[@]}" --ignore animated --frames fr2 car.mkv 2>/dev/null
a=fr2/car-answer.png
[ "$(count "$a" $red 0 168 304 136 2)" -eq 272 ] && [ "$(count "$a" $red 0 16 48 288 2)" -eq 0 ] &&
  [ "$(count "$a" $purple 0)" -eq 1712 ]
check $? "--ignore animated: block 3 decides, the carousel outlined as animated"

# never stable (the carousel turns on the last frame): the last frame, the
# carousel outlined, no deciding change
"$make_screens" end.mkv 141 b0=5 b1=15 b2=25 b3=35 carousel=40:20 >/dev/null
"$settle" analyze -q "${opts[@]}" --frames fr3 --report r3.html end.mkv 2>/dev/null
[ $? -eq 1 ] && [ "$(count fr3/end-answer.png $purple 0)" -eq 1712 ] &&
  [ "$(count fr3/end-answer.png $red 0)" -eq 0 ] &&
  grep -q '<figcaption>last frame (no stable frame): frame 140 at 4.667 s' r3.html
check $? "not stable: the last frame with the animated area outlined"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
