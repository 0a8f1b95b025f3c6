#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# settle analyze --marks as a user runs it, on testdata/sample-startup.mp4
# (30 fps; the tap at frame 15 = 0.500 s, found by --start first-change; the
# chrome at frame 45 = 1.500 s; the content at frame 75 = 2.500 s, the
# stable frame). A logcat, a Macrobenchmark JSON, a CSV and an am start -W
# output are written here so that each mark falls on a known frame; each
# must land on it, with its gap, in the summary, the JSON, --marks-csv and
# the plot. Then every kind of bad input: a one-line error naming the file
# (and the line), exit 65; bad options, exit 64.
# Args: path of the settle program, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
src=$2
sample=$src/testdata/sample-startup.mp4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1

# Android 14 threadtime: Displayed +1s0ms from the launch (0.500 s) = 1.500 s,
# frame 45, gap 1.000; Fully drawn +1s500ms = 2.000 s, frame 60, gap 0.500;
# the START line as an anchor seen in the video at the start.
cat >logcat.txt <<'LOG'
--------- beginning of main
01-23 12:34:55.001  1532  1560 I ActivityTaskManager: START u0 {act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 cmp=com.example.app/.MainActivity} with LAUNCH_MULTIPLE from uid 10123 (BAL_ALLOW_VISIBLE_WINDOW) result code=0
01-23 12:34:55.043  1532  1580 I ActivityManager: Start proc 4242:com.example.app/u0a123 for next-top-activity {com.example.app/com.example.app.MainActivity}
01-23 12:34:56.001  1532  1587 I ActivityTaskManager: Displayed com.example.app/.MainActivity for user 0: +1s0ms
01-23 12:34:56.212  4242  4242 I GameBench: gb_marker_start - feed
01-23 12:34:56.501  1532  1587 I ActivityTaskManager: Fully drawn com.example.app/.MainActivity: +1s500ms
LOG

expect_exit "logcat marks" 0 "$settle" analyze --start first-change --marks logcat.txt \
  --json r.json --marks-csv m.csv --plot p.png "$sample"
name="sample-startup.mp4: mark Displayed com.example.app/.MainActivity"
grep -qxF "$sample: mark Displayed com.example.app/.MainActivity at 1.500 s (frame 45), gap 1.000 s [logcat.txt:4]" out
check $? "summary: Displayed on frame 45, gap 1.000: $(cat out)"
grep -qxF "$sample: mark Fully drawn com.example.app/.MainActivity at 2.000 s (frame 60), gap 0.500 s [logcat.txt:6]" out
check $? "summary: Fully drawn on frame 60, gap 0.500"
grep -qF "mark feed start: not placed: its time is a wall-noyear clock stamp: give the log's time at the capture's first frame (--marks-zero) or an anchor event (--marks-anchor) [logcat.txt:5]" out
check $? "summary: a stamped marker without a zero says why it is not placed"
grep -qF '"marks":[{"name":"Displayed com.example.app/.MainActivity","time":1.5,"gap":1,"frame":45,"source":"logcat.txt:4","clock":"launch","value":1,"placed_by":"launch","reason":null},{"name":"feed start","time":null,"gap":null,"frame":null,"source":"logcat.txt:5","clock":"wall-noyear",' r.json
check $? "json: marks with time, gap, frame, source: $(grep -o '"marks":.\{0,200\}' r.json)"
grep -qF '{"name":"Fully drawn com.example.app/.MainActivity","time":2,"gap":0.5,"frame":60,"source":"logcat.txt:6","clock":"launch","value":1.5,"placed_by":"launch","reason":null}]' r.json
check $? "json: Fully drawn"
grep -qF '"stable_time":2.5,' r.json
check $? "json: the stable time the gaps are taken from"
cat >want.csv <<'CSV'
name,time,frame,gap,clock,value,placed_by,source,reason
Displayed com.example.app/.MainActivity,1.500000,45,1.000000,launch,1.000000,launch,logcat.txt:4,
feed start,,,,wall-noyear,1946096.212000,unplaced,logcat.txt:5,its time is a wall-noyear clock stamp: give the log's time at the capture's first frame (--marks-zero) or an anchor event (--marks-anchor)
Fully drawn com.example.app/.MainActivity,2.000000,60,0.500000,launch,1.500000,launch,logcat.txt:6,
CSV
cmp -s want.csv m.csv
check $? "--marks-csv: $(cat m.csv)"
if command -v gnuplot >/dev/null; then
  [ -s p.png ]
  check $? "plot written with the marks"
  # as SVG, the marks' names are text: each on both panels, the unplaced one nowhere
  expect_exit "plot as svg" 0 "$settle" analyze -q --start first-change --marks logcat.txt \
    --plot p.svg "$sample"
  [ "$(grep -c '<text>Displayed com.example.app/.MainActivity</text>' p.svg)" -eq 2 ] &&
    [ "$(grep -c '<text>Fully drawn com.example.app/.MainActivity</text>' p.svg)" -eq 2 ] &&
    ! grep -q 'feed start' p.svg
  check $? "plot: a named line a placed mark on each panel"
fi

# the per-frame CSV: a last column naming the marks on each frame
expect_exit "per-frame csv with marks" 0 "$settle" analyze -q --start first-change --marks logcat.txt \
  --csv f.csv --json f.json "$sample"
[ "$(head -1 f.csv)" = "frame,time,diff_pixels,entropy,entropy_delta,quiet,keyframe,codec_refresh,progress,marks" ]
check $? "per-frame csv: the marks column"
[ "$(grep -v ',$' f.csv | tail -n +2 | cut -d, -f1,10 | tr '\n' '|')" = "45,Displayed com.example.app/.MainActivity|60,Fully drawn com.example.app/.MainActivity|" ]
check $? "per-frame csv: Displayed on frame 45, Fully drawn on 60: $(grep -v ',$' f.csv | cut -d, -f1,10 | tr '\n' '|')"
if command -v gnuplot >/dev/null; then
  # settle plot draws the marks from the JSON result beside the CSV
  expect_exit "settle plot of that csv" 0 "$settle" plot f.csv -o f.png
  [ -s f.png ]
  check $? "settle plot: drawn"
fi

# the report: a table of the marks, and the frame on screen at each mark
# beside the stable frame
expect_exit "report with marks" 0 "$settle" analyze -q --start first-change --marks logcat.txt \
  --report r.html "$sample"
grep -qF '<tr><td>Displayed com.example.app/.MainActivity</td><td>1.500&nbsp;s</td><td>45</td><td><b>+1.000&nbsp;s</b></td><td>logcat.txt:4</td></tr>' r.html
check $? "report: Displayed's row with its gap"
grep -qF '<tr><td>Fully drawn com.example.app/.MainActivity</td><td>2.000&nbsp;s</td><td>60</td><td><b>+0.500&nbsp;s</b></td><td>logcat.txt:6</td></tr>' r.html
check $? "report: Fully drawn's row with its gap"
grep -qF "not placed: its time is a wall-noyear clock stamp" r.html
check $? "report: the unplaced mark says why"
[ "$(grep -c '<img class="markframe"' r.html)" -eq 3 ]
check $? "report: three frame pictures (two marks, the stable frame)"
grep -qF '<figcaption>Displayed com.example.app/.MainActivity: frame 45 at 1.500 s, gap 1.000 s</figcaption>' r.html &&
  grep -qF '<figcaption>Fully drawn com.example.app/.MainActivity: frame 60 at 2.000 s, gap 0.500 s</figcaption>' r.html &&
  grep -qF '<figcaption>stable: frame 75 at 2.500 s</figcaption>' r.html
check $? "report: each picture captioned with its frame, time and gap: $(grep -o '<figcaption>[^<]*' r.html | tr '\n' ' ')"

# the stamped marker placed by the log's time at the first frame, and by an
# anchor (the START line, seen in the video at the start 0.500 s)
expect_exit "--marks-zero" 0 "$settle" analyze --start first-change --marks logcat.txt \
  --marks-zero '01-23 12:34:54.712' --marks-csv - "$sample"
grep -qxF "feed start,1.500000,45,1.000000,wall-noyear,1946096.212000,zero,logcat.txt:5," out
check $? "--marks-zero: the marker at 56.212 - 54.712 = 1.500 s, frame 45: $(grep feed out)"
expect_exit "--marks-anchor" 0 "$settle" analyze --start first-change --marks logcat.txt \
  --mark-regex 'launch=START u0' --marks-anchor launch --marks-csv - "$sample"
grep -qxF "feed start,1.711000,51,0.789000,wall-noyear,1946096.212000,anchor,logcat.txt:5," out
check $? "--marks-anchor: 0.500 + 56.212 - 55.001 = 1.711 s, frame 51: $(grep feed out)"
grep -qxF "launch,0.500000,15,2.000000,wall-noyear,1946095.001000,anchor,logcat.txt:2," out
check $? "--mark-regex: the anchor itself on the start frame"
expect_exit "--marks-anchor NAME@SECONDS" 0 "$settle" analyze --start first-change --marks logcat.txt \
  --mark-regex 'launch=START u0' --marks-anchor launch@0.6 --marks-csv - "$sample"
grep -qxF "feed start,1.811000,54,0.689000,wall-noyear,1946096.212000,anchor,logcat.txt:5," out
check $? "--marks-anchor launch@0.6: 1.811 s, frame 54: $(grep feed out)"

# Macrobenchmark: three iterations; this capture is iteration 1
cat >StartupBenchmark_startupCold-benchmarkData.json <<'JSON'
{
    "context": { "build": { "device": "oriole", "model": "Pixel 6", "version": { "sdk": 34 } } },
    "benchmarks": [
        {
            "name": "startupCold",
            "params": {},
            "className": "com.example.benchmark.StartupBenchmark",
            "totalRunTimeNs": 12345678901,
            "metrics": {
                "timeToFullDisplayMs": {
                    "minimum": 1480.25, "maximum": 1521.5, "median": 1500.0,
                    "runs": [ 1480.25, 1500.0, 1521.5 ]
                },
                "timeToInitialDisplayMs": {
                    "minimum": 978.5, "maximum": 1019.75, "median": 1000.0,
                    "runs": [ 978.5, 1000.0, 1019.75 ]
                }
            },
            "sampledMetrics": {},
            "warmupIterations": 0,
            "repeatIterations": 3,
            "thermalThrottleSleepSeconds": 0
        }
    ]
}
JSON
mb=StartupBenchmark_startupCold-benchmarkData.json
expect_exit "macrobenchmark, --mark-run 1" 0 "$settle" analyze -q --start first-change --marks $mb \
  --mark-run 1 --marks-csv - "$sample"
cat >want.csv <<CSV
name,time,frame,gap,clock,value,placed_by,source,reason
timeToInitialDisplayMs,1.500000,45,1.000000,launch,1.000000,launch,$mb:benchmarks[0].metrics.timeToInitialDisplayMs.runs[1],
timeToFullDisplayMs,2.000000,60,0.500000,launch,1.500000,launch,$mb:benchmarks[0].metrics.timeToFullDisplayMs.runs[1],
CSV
cmp -s want.csv out
check $? "macrobenchmark iteration 1 on frames 45 and 60: $(cat out)"
expect_exit "macrobenchmark, no --mark-run" 0 "$settle" analyze --start first-change --marks $mb "$sample"
[ "$(grep -c "not placed: iteration . of 3: choose the capture's iteration (--mark-run)" out)" -eq 6 ]
check $? "macrobenchmark without --mark-run: every iteration unplaced, saying why"
expect_exit "macrobenchmark, --mark-run beyond" 65 "$settle" analyze --start first-change --marks $mb \
  --mark-run 3 "$sample"
one_line_naming "--mark-run 3" "$mb:benchmarks[0].metrics.timeToInitialDisplayMs.runs: 3 iterations, no iteration 3 (--mark-run)"

# a plain CSV on the capture's clock, and am start -W from the launch
printf 'time,name\n1.5,chrome\n2.5,"feed, cached"\n' >marks.csv
printf 'Starting: Intent { cmp=com.example.app/.MainActivity }\nStatus: ok\nLaunchState: COLD\nActivity: com.example.app/.MainActivity\nTotalTime: 1000\nWaitTime: 1034\nComplete\n' >am.txt
expect_exit "csv and am start -W" 0 "$settle" analyze -q --start first-change --marks marks.csv \
  --marks am.txt --json - "$sample"
grep -qF '"marks":[{"name":"chrome","time":1.5,"gap":1,"frame":45,"source":"marks.csv:2","clock":"capture","value":1.5,"placed_by":"capture","reason":null},{"name":"feed, cached","time":2.5,"gap":0,"frame":75,"source":"marks.csv:3",' out
check $? "csv marks on frames 45 and 75: $(grep -o '"marks":.\{0,300\}' out)"
grep -qF '{"name":"TotalTime","time":1.5,"gap":1,"frame":45,"source":"am.txt:5",' out &&
  grep -qF '{"name":"WaitTime","time":1.534,"gap":0.966,"frame":46,"source":"am.txt:6",' out
check $? "am start -W: TotalTime on frame 45, WaitTime on 46"
expect_exit "a mark after the capture's end" 0 "$settle" analyze -q --start first-change \
  --marks <(printf '4.6,late\n') --marks-csv - "$sample"
grep -qE '^late,4\.600000,,-2\.100000,capture,4\.600000,capture,/dev/fd/[0-9]+:1,$' out
check $? "a mark after the end: no frame, a negative gap: $(tail -1 out)"
expect_exit "no start found: durations unplaced" 1 "$settle" analyze --start marker:#ff00ff --marks logcat.txt "$sample"
grep -qF "mark Displayed com.example.app/.MainActivity: not placed: a duration from the launch, and the launch's time on the capture is unknown [logcat.txt:4]" out
check $? "without a start, durations are not placed and say why: $(head -3 out)"

# compare: the gaps compared like load times. Four runs a build, each its own
# capture path: Displayed at +1010..1040 ms in A (gaps 0.990..0.960) and
# +710..740 ms in B (gaps 1.290..1.260): a regression of +0.300 s; Fully
# drawn the same in both.
mkdir A B
for i in 1 2 3 4; do
  ln -s "$sample" a$i.mp4
  ln -s "$sample" b$i.mp4
  for g in a b; do
    d=$([ $g = a ] && echo 1000 || echo 700)
    printf '01-23 12:34:56.001  1532  1587 I ActivityTaskManager: Displayed com.example.app/.MainActivity: +%dms\n01-23 12:34:56.501  1532  1587 I ActivityTaskManager: Fully drawn com.example.app/.MainActivity: +%dms\n' \
      $((d + i * 10)) $((1500 + i * 10)) >l$g$i.txt
    "$settle" analyze -q --start first-change --marks l$g$i.txt --json $(echo $g | tr ab AB)/r$i.json $g$i.mp4
  done
done
expect_exit "compare the gaps: a regression" 1 "$settle" compare --metric gaps --json - -q \
  --baseline A/r1.json A/r2.json A/r3.json A/r4.json --candidate B/r1.json B/r2.json B/r3.json B/r4.json
grep -qF '{"metric":"gap:Displayed com.example.app/.MainActivity","baseline":{"n":4,"median":0.975,' out &&
  grep -qF '"candidate":{"n":4,"median":1.275,' out && grep -qF '"difference":0.3,' out &&
  grep -q '"verdict":"regression"}$' <(head -1 out)
check $? "compare: Displayed's gap +0.300 s, a regression: $(head -1 out)"
grep -qF '{"metric":"gap:Fully drawn com.example.app/.MainActivity","baseline":{"n":4,"median":0.475,' out &&
  grep -q '"difference":0,.*"verdict":"no change"}$' <(tail -1 out)
check $? "compare: Fully drawn's gap unchanged: $(tail -1 out)"
[ "$(wc -l <out)" -eq 2 ]
check $? "compare --metric gaps: only the two gaps"
expect_exit "compare text" 1 "$settle" compare --baseline A/r1.json A/r2.json A/r3.json A/r4.json \
  --candidate B/r1.json B/r2.json B/r3.json B/r4.json
grep -qx 'gap:Displayed com.example.app/.MainActivity' out && grep -qF '  difference of medians +0.300 s (+30.8 %)' out &&
  grep -qF 'load_time ' out
check $? "compare text: the load time and the gaps"
expect_exit "compare --metric junk" 64 "$settle" compare --metric junk --baseline A/r1.json --candidate B/r1.json
one_line_naming "--metric junk" "speed_index or gaps, got 'junk'"

# bad marks files: one line naming the file and the line, exit 65, nothing analysed
bad() { # name, file, text the message must hold
  rm -f r2.json
  expect_exit "$1" 65 "$settle" analyze -q --start first-change --marks "$2" --json r2.json "$sample"
  one_line_naming "$1" "$3"
  [ ! -e r2.json ]
  check $? "$1: nothing analysed"
}
printf '01-23 12:34:56.001  1532  1587 I ActivityTaskManager: Displayed com.example.app/.MainActivity: +1x0ms\n' >bad1.txt
bad "bad duration" bad1.txt "bad1.txt:1: malformed Displayed line: 'Displayed com.example.app/.MainActivity: +1x0ms'"
head -n 2 logcat.txt >bad2.txt
printf '01-23 12:34:56.001  1532  1587 I ActivityTaskManager: Displayed com.exa' >>bad2.txt
bad "truncated Displayed line" bad2.txt "bad2.txt:3: malformed Displayed line: 'Displayed com.exa'"
printf 'hello\nworld\n' >bad3.txt
bad "no known format" bad3.txt "bad3.txt:1: not a logcat, am start -W output, Macrobenchmark JSON or time,name CSV: 'hello'"
printf 'time,name\n1.5,chrome\nabc,content\n' >bad4.csv
bad "bad csv time" bad4.csv "bad4.csv:3: expected seconds,name: 'abc,content'"
head -c 300 $mb >bad5.json
bad "truncated json" bad5.json "bad5.json: not valid JSON (truncated?) at byte 299"
printf 'Status: ok\nTotalTime: 1000\nWaitTime: x\n' >bad6.txt
bad "bad am start -W" bad6.txt "bad6.txt:3: WaitTime: expected milliseconds, got 'x'"
bad "missing file" nothere.txt "nothere.txt: No such file or directory"
: >empty.txt
bad "empty file" empty.txt "empty.txt"

# bad options: exit 64
expect_exit "--mark-run x" 64 "$settle" analyze --marks logcat.txt --mark-run x "$sample"
one_line_naming "--mark-run x" "--mark-run: expected an iteration from 0, got 'x'"
expect_exit "--marks-zero junk" 64 "$settle" analyze --marks logcat.txt --marks-zero junk "$sample"
one_line_naming "--marks-zero junk" "--marks-zero: expected a logcat time stamp"
expect_exit "--mark-regex without =" 64 "$settle" analyze --marks logcat.txt --mark-regex junk "$sample"
one_line_naming "--mark-regex junk" "--mark-regex: expected NAME=REGEX, got 'junk'"
expect_exit "--mark-regex bad expression" 64 "$settle" analyze --marks logcat.txt --mark-regex 'a=(' "$sample"
one_line_naming "--mark-regex a=(" "--mark-regex"
expect_exit "--marks-csv without --marks" 64 "$settle" analyze --marks-csv m.csv "$sample"
one_line_naming "--marks-csv alone" "need --marks FILE"
expect_exit "--marks with two captures" 64 "$settle" analyze --marks logcat.txt "$sample" "$sample"
one_line_naming "two captures" "give exactly one, got 2"
expect_exit "--marks-csv - with --json -" 64 "$settle" analyze --marks logcat.txt --marks-csv - --json - "$sample"
one_line_naming "--marks-csv - and --json -" "--marks-csv: stdout already carries"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
