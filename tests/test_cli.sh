#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The settle program as a user runs it: summary line, CSV, JSON, messages and
# exit codes. Args: path of the settle program, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
src=$2
sample=$src/testdata/sample-startup.mp4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")

# a good capture: the summary line and the outputs
expect_exit "sample analyses" 0 "$settle" analyze "$sample"
grep -Eq "^.*sample-startup.mp4: stable at [0-9]+\.[0-9]{3} s \(frame [0-9]+ of [0-9]+\), load time [0-9]+\.[0-9]{3} s \[diff\]$" "$tmp/out"
check $? "summary line: $(cat "$tmp/out")"

LC_ALL=de_DE.UTF-8 "$settle" analyze -q --csv "$tmp/s.csv" --json "$tmp/s.json" "$sample"
check $? "csv and json written"
[ "$(head -1 "$tmp/s.csv")" = "frame,time,diff_pixels,entropy,entropy_delta,quiet,keyframe,codec_refresh,progress,block_peak,blocks_changed" ]
check $? "csv header"
frames=$(sed -n 's/.*"frames":\([0-9]*\).*/\1/p' "$tmp/s.json")
[ "$(($(wc -l <"$tmp/s.csv") - 1))" -eq "$frames" ]
check $? "one csv row per frame ($frames)"
tail -n +2 "$tmp/s.csv" | cut -d, -f2,4,5 | grep -qvE '^[0-9]+\.[0-9]{6},[0-9]+\.[0-9]{6},[0-9]+\.[0-9]{6}$'
[ $? -eq 1 ]
check $? "csv numbers use '.' under a German locale"
[ "$(wc -l <"$tmp/s.json")" -eq 1 ]
check $? "json is one line"
if command -v python3 >/dev/null 2>&1; then
  python3 - "$tmp/s.json" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read())
need = ["input", "frames", "duration", "width", "height", "method", "settings", "start_time",
        "stable_frame", "stable_time", "load_time", "first_visual_change", "last_visual_change",
        "partial", "error"]
missing = [k for k in need if k not in d]
assert not missing, missing
assert d["method"] in ("diff", "entropy") and d["partial"] is False and d["error"] is None
assert abs(d["load_time"] - (d["stable_time"] - d["start_time"])) < 1e-6
assert d["settings"]["diff-threshold"] == "4096"
PY
  check $? "json fields"
fi
ls "$tmp" | grep -q '\.tmp\.' && tmpleft=1 || tmpleft=0
check $tmpleft "no temporary files left"

expect_exit "csv to stdout" 0 "$settle" analyze --csv - "$sample"
head -1 "$tmp/out" | grep -q '^frame,time' && grep -q 'stable at' "$tmp/err"
check $? "csv on stdout, summary on stderr"

# bad input: one line naming the file, documented exit code
expect_exit "missing file" 3 "$settle" analyze "$tmp/nope.mp4"
one_line_naming "missing file" "nope.mp4"
printf 'this is not a video\n' >"$tmp/fake.mp4"
expect_exit "text named .mp4" 3 "$settle" analyze "$tmp/fake.mp4"
one_line_naming "text named .mp4" "fake.mp4"
: >"$tmp/empty.webm"
expect_exit "empty file" 3 "$settle" analyze "$tmp/empty.webm"
one_line_naming "empty file" "empty.webm"
expect_exit "directory" 3 "$settle" analyze "$tmp"
expect_exit "--crop outside the picture" 3 "$settle" analyze --json "$tmp/crop.json" --crop 400,200,200,200 "$sample"
one_line_naming "--crop outside the picture" "sample-startup.mp4: --crop 400,200,200,200 does not fit the 480x270 picture"
[ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "sample-startup.mp4: failed: --crop 400,200,200,200 does not fit" "$tmp/out" &&
  grep -q '"status":"failed"' "$tmp/crop.json" && grep -q '"stable_frame":null' "$tmp/crop.json"
check $? "--crop outside the picture: a summary line says failed, so does the result: $(cat "$tmp/out")"
expect_exit "missing file with --crop" 3 "$settle" analyze --crop 10,10,50,50 "$tmp/nope.mp4"
one_line_naming "missing file with --crop" "nope.mp4: No such file"
expect_exit "picture over --max-pixels" 3 "$settle" analyze --max-pixels 1000 "$sample"
one_line_naming "picture over --max-pixels" "sample-startup.mp4: picture of 480x270 is larger than the limit of 1000 pixels"
head -c $(($(wc -c <"$sample") * 6 / 10)) "$sample" >"$tmp/cut.mp4"
"$settle" analyze "$tmp/cut.mp4" >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" -eq 2 ] || [ "$code" -eq 3 ]
check $? "truncated mp4 is partial or unreadable (exit $code)"
grep -q "cut.mp4" "$tmp/err"
check $? "truncated mp4 named in: $(head -c 200 "$tmp/err")"

# broken captures made from the sample: exactly one stderr line "settle: FILE: ..."
exactly_one_line() { # name, file, expected text after "settle: FILE: "
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ "$(head -c $((${#2} + 10)) "$tmp/err")" = "settle: $2: " ] &&
    grep -qF -- "$3" "$tmp/err"
  check $? "$1: one line 'settle: $2: $3': $(head -c 200 "$tmp/err")"
}
head -c 65536 /dev/zero >"$tmp/zeros.mp4"
expect_exit "zero bytes" 3 "$settle" analyze "$tmp/zeros.mp4"
exactly_one_line "zero bytes" "$tmp/zeros.mp4" "not a video file"
head -c 1000 "$sample" >"$tmp/head.mp4"
expect_exit "cut after the header" 3 "$settle" analyze "$tmp/head.mp4"
exactly_one_line "cut after the header" "$tmp/head.mp4" "not a video file"
cp "$sample" "$tmp/flipped.mp4"
# 600 bytes of frame data in the middle (the sample's index is at the end)
head -c 600 /dev/zero | tr '\0' '\245' | dd of="$tmp/flipped.mp4" bs=1 seek=15000 conv=notrunc 2>/dev/null
expect_exit "flipped frame data" 2 "$settle" analyze "$tmp/flipped.mp4"
exactly_one_line "flipped frame data" "$tmp/flipped.mp4" "(result partial)"
grep -q "flipped.mp4: stable at .* (partial)$" "$tmp/out"
check $? "flipped frame data: summary marked partial: $(cat "$tmp/out")"
cp "$sample" "$tmp/huge.mp4"
stsd=$(grep -obUa stsd "$tmp/huge.mp4" | head -1 | cut -d: -f1)
avc1=$(tail -c +$((stsd + 1)) "$tmp/huge.mp4" | grep -obUa avc1 | head -1 | cut -d: -f1)
# the sample entry's width and height (16 bits each, 28 bytes after its type) := 60000
printf '\352\140\352\140' | dd of="$tmp/huge.mp4" bs=1 seek=$((stsd + avc1 + 28)) conv=notrunc 2>/dev/null
expect_exit "declared 60000x60000" 3 "$settle" analyze "$tmp/huge.mp4"
exactly_one_line "declared 60000x60000" "$tmp/huge.mp4" "picture of 60000x60000 is larger than the limit"

# several captures: one bad file does not stop the others
expect_exit "good and bad together" 3 "$settle" analyze -q --json "$tmp/many.json" "$tmp/nope.mp4" "$sample"
[ "$(wc -l <"$tmp/many.json")" -eq 2 ] && grep -q '"error":null' "$tmp/many.json" && grep -q '"stable_frame":null' "$tmp/many.json"
check $? "one json line per capture, the bad one with its error"
expect_exit "csv for several needs %n" 64 "$settle" analyze --csv "$tmp/x.csv" "$sample" "$sample"
expect_exit "csv %n" 0 "$settle" analyze -q --csv "$tmp/%n.csv" "$sample"
[ -s "$tmp/sample-startup.csv" ]
check $? "csv %n names the file after the capture"

# options
expect_exit "bad threshold" 64 "$settle" analyze --diff-threshold x "$sample"
[ "$(cat "$tmp/err")" = "settle: --diff-threshold: expected pixels or a percentage, got 'x'" ]
check $? "error form: $(cat "$tmp/err")"
expect_exit "bad start" 64 "$settle" analyze --start marker:blue "$sample"
expect_exit "unknown option" 64 "$settle" analyze --frobnicate "$sample"
expect_exit "no capture" 64 "$settle" analyze
expect_exit "unknown command" 64 "$settle" frobnicate
expect_exit "help" 0 "$settle" help analyze
grep -q -- "--diff-threshold PIXELS|PERCENT%" "$tmp/out" && grep -q "Exit codes" "$tmp/out"
check $? "help lists the options and exit codes"
expect_exit "version" 0 "$settle" --version
expect_exit "percentage threshold" 0 "$settle" analyze --diff-threshold 0.5% "$sample"
expect_exit "start never found" 1 "$settle" analyze --start 999 "$sample"
grep -q "sample-startup.mp4: start time" "$tmp/err"
check $? "no start is said: $(cat "$tmp/err")"
expect_exit "output directory missing: made" 0 "$settle" analyze -q --json "$tmp/no/such/dir/x.json" "$sample"
grep -q '"status":"stable"' "$tmp/no/such/dir/x.json"
check $? "the folders of --json were made"
: >"$tmp/plainfile"
expect_exit "output folder cannot be made" 4 "$settle" analyze -q --json "$tmp/plainfile/x.json" "$sample"
one_line_naming "output folder cannot be made" "--json: $tmp/plainfile/x.json: Not a directory"

# camera options: a screen recording is left whole by --crop auto, regions
# repeat, and a bad region is one line that names the option
expect_exit "crop auto on a screen recording" 0 "$settle" analyze -q --crop auto --json - "$sample"
grep -q '"stable_frame":75,' "$tmp/out" && grep -q '"crop":{"x":0,"y":0,"width":480,"height":270}' "$tmp/out"
check $? "crop auto measures the whole screen recording: $(grep -o '"crop":{[^}]*}' "$tmp/out")"
expect_exit "ignore twice, blur" 0 "$settle" analyze -q --ignore 0,0,40,20 --ignore 400,250,80,20 \
  --blur median:1 --noise-factor 3 --json - "$sample"
grep -q '"ignore":"0,0,40,20;400,250,80,20"' "$tmp/out" && grep -q '"blur":"median:1"' "$tmp/out" &&
  grep -q '"stable_frame":75,' "$tmp/out"
check $? "ignore and blur in the settings, same stable frame"
expect_exit "bad ignore" 64 "$settle" analyze --ignore 1,2,3 "$sample"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^settle: --ignore: expected X,Y,W,H" "$tmp/err"
check $? "bad ignore: one line: $(cat "$tmp/err")"

# the command line as typed by hand (issue 17): a missing value named as
# missing, "did you mean" for options and commands, analyse, help UNKNOWN
expect_exit "-o without its value" 64 "$settle" analyze -o
one_line_naming "-o without its value" "-o: missing value"
expect_exit "--json without its value" 64 "$settle" analyze --json
one_line_naming "--json without its value" "--json: missing value"
expect_exit "misspelt option" 64 "$settle" analyze --jsn x.json "$sample"
one_line_naming "misspelt option" "--jsn: unknown option; did you mean --json?"
expect_exit "misspelt compare option" 64 "$settle" compare --markdwn x.md --baseline a --candidate b
one_line_naming "misspelt compare option" "--markdwn: unknown option; did you mean --markdown?"
expect_exit "misspelt command" 64 "$settle" analyz "$sample"
one_line_naming "misspelt command" "unknown command 'analyz'; did you mean 'analyze'?"
expect_exit "analyse is analyze" 0 "$settle" analyse "$sample"
grep -q "sample-startup.mp4: stable at 2.500 s" "$tmp/out"
check $? "analyse: the same summary line: $(cat "$tmp/out")"
expect_exit "help of an unknown command" 64 "$settle" help nosuch
one_line_naming "help of an unknown command" "help: unknown command 'nosuch'"
[ ! -s "$tmp/out" ]
check $? "help nosuch prints no general help on stdout"

# options after the capture, as most people type them: taken as options, not
# as more captures; after "--" a name that starts with "-" is a capture
expect_exit "options after the capture" 0 "$settle" analyze "$sample" -q --json "$tmp/after.json" --csv "$tmp/after.csv"
[ -s "$tmp/after.json" ] && [ -s "$tmp/after.csv" ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] &&
  grep -q '"stable_frame":75' "$tmp/after.json"
check $? "options after the capture: both outputs written, nothing said: $(head -c 300 "$tmp/err")"
cp "$sample" "$tmp/-dash.mp4"
(cd "$tmp" && "$settle" analyze -q --json dash.json -- -dash.mp4 >out 2>err)
check $? "a capture named -dash.mp4 after --: $(head -c 300 "$tmp/err")"
grep -q '"stable_frame":75' "$tmp/dash.json"
check $? "the capture after -- analysed"

# a batch on two workers (test_batch.sh has the rest of batches; it is left out
# of the valgrind pass, so this is where memcheck sees the workers' threads)
mkdir -p "$tmp/two"
cp "$sample" "$tmp/two/a.mp4" && cp "$sample" "$tmp/two/b.mp4"
expect_exit "two captures on two workers" 0 "$settle" analyze --jobs 2 -o "$tmp/res" "$tmp/two/a.mp4" "$tmp/two/b.mp4"
[ "$(grep -c 'stable at 2.500 s' "$tmp/out")" -eq 2 ] && [ "$(ls "$tmp/res" | grep -c '\.json$')" -eq 2 ]
check $? "--jobs 2 -o DIR: two summaries and two results: $(tr '\n' ' ' <"$tmp/out")"

echo "$pass passed, $fail failed"
done_testing
