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
opts=(--diff-threshold 200)
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
  grep -q '<figcaption>last change (no stable frame): frame 140 at 4.667 s' r3.html
check $? "not stable: the last frame with the animated area outlined"

# The CSV: a column per region, its changed pixels in each frame; empty for
# an area outside the picture
"$settle" analyze -q "${opts[@]}" --region list=16,200,288,92 --region off=400,0,10,10 \
  --csv c.csv car.mkv 2>/dev/null
[ "$(head -1 c.csv)" = "frame,time,diff_pixels,entropy,entropy_delta,quiet,keyframe,codec_refresh,progress,block_peak,blocks_changed,region_list,region_off" ]
check $? "--csv: a column per region: $(head -1 c.csv)"
col() { awk -F, -v f="$1" -v c="$2" 'NR == f + 2 { print $c }' c.csv; }
[ "$(col 0 12)" = 0 ] && [ "$(col 5 12)" = 11520 ] && [ "$(col 15 12)" = 11520 ] &&
  [ "$(col 25 12)" = 0 ] && [ "$(col 40 12)" = 0 ] && [ "$(col 40 3)" = 39168 ] &&
  [ "$(col 15 13)" = "" ] && [ "$(awk -F, 'NR > 1 { s += $12 } END { print s }' c.csv)" = 23040 ]
check $? "--csv: the region's pixels are those of blocks 0 and 1 (288x40 at frames 5 and 15), nothing else"

# settle compare: four captures a side, the last block (168,304,136,64)
# appears at frames 40-43 in the baseline and 60-63 in the candidate; the
# toast (70-85) decides the whole screen in both: the region regresses, the
# whole does not
for k in 0 1 2 3; do
  "$make_screens" a$k.mkv 120 b0=10 b1=20 b2=30 b3=$((40 + k)) toast=70:85 >/dev/null
  "$make_screens" b$k.mkv 120 b0=10 b1=20 b2=30 b3=$((60 + k)) toast=70:85 >/dev/null
done
reg=(--region last=168,304,136,64)
"$settle" compare -q "${opts[@]}" "${reg[@]}" --json cmp.jsonl --baseline a?.mkv --candidate b?.mkv 2>err
r=$?
[ $r -eq 1 ] && grep -q '"metric":"load_time".*"verdict":"no change"' cmp.jsonl &&
  grep -q '"metric":"region:last".*"difference":0.666[0-9]*,.*"verdict":"regression"' cmp.jsonl
check $? "compare: a verdict per region, the region regressed and the whole did not (exit $r): $(cut -c1-300 cmp.jsonl | tr '\n' ' ')"
"$settle" compare "${opts[@]}" "${reg[@]}" --baseline a?.mkv --candidate b?.mkv >text 2>&1
grep -q '^verdict: regression: region:last +0.666 s' text
check $? "compare's text opens with the region's regression: $(head -1 text)"
# from result files (as analyze wrote them), and --metric regions alone
for k in 0 1 2 3; do
  "$settle" analyze -q "${opts[@]}" "${reg[@]}" --label test=t --label device=d --label night=1 \
    --json ra$k.json a$k.mkv 2>/dev/null
  "$settle" analyze -q "${opts[@]}" "${reg[@]}" --label test=t --label device=d --label night=2 \
    --json rb$k.json b$k.mkv 2>/dev/null
done
"$settle" compare -q --metric regions --json cmp2.jsonl --baseline ra?.json --candidate rb?.json 2>err
r=$?
[ $r -eq 1 ] && [ "$(wc -l <cmp2.jsonl)" -eq 1 ] && grep -q '"metric":"region:last".*"verdict":"regression"' cmp2.jsonl
check $? "compare of result files, --metric regions: the region's verdict alone (exit $r)"
# the same results on both sides: no change in the region
"$settle" compare -q --json cmp3.jsonl --baseline ra?.json --candidate ra?.json 2>err
r=$?
[ $r -eq 0 ] && grep -q '"metric":"region:last".*"verdict":"no change"' cmp3.jsonl
check $? "compare of equal groups: no change in the region (exit $r)"

# settle trend: the region's load time is a series of its own beside the
# whole screen's
"$settle" trend --format json ra?.json rb?.json >trend.jsonl 2>err
r=$?
[ "$(wc -l <trend.jsonl)" -eq 2 ] &&
  grep -q '^{"labels":{"test":"t","device":"d"},"metric":"load_time"' trend.jsonl &&
  grep -q '^{"labels":{"test":"t","device":"d","region":"last"},"metric":"load_time"' trend.jsonl
check $? "trend: a series for the region beside the whole screen's (exit $r): $(cut -c1-200 trend.jsonl | tr '\n' ' ')"
grep '"region":"last"' trend.jsonl | grep -q '"median":1.3835,.*"median":2.05,' &&
  grep -v '"region"' trend.jsonl | grep -q '"median":2.833,.*"median":2.833,'
check $? "trend: the region's medians are its own (1.3835 s, 2.05 s), the whole's stay 2.833 s"
"$settle" trend ra?.json rb?.json >trend.txt 2>&1
grep -q 'test=t device=d region=last: load_time' trend.txt
check $? "trend's text names the region's series: $(grep region trend.txt | head -1)"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
