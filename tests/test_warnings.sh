#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Answers a user should not trust blindly (issue 17): too little quiet after the
# stable frame before the recording ends, a load time of 0, a start never found.
# Each is in the summary line, in the JSON's "warnings" and in the report;
# --strict turns any of them into exit 1, and a clean answer keeps exit 0.
# Args: path of the settle program, path of make_runs, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
make_runs=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1
# late: content at 1.8 s +- 0.2 s of a 2.25 s recording; early: at 1.0 s +- 0.2 s
"$make_runs" . late 1 5 800 >/dev/null && "$make_runs" . early 1 5 0 >/dev/null
check $? "captures made"
cp "$src/testdata/sample-startup.mp4" sample.mp4

# too little quiet before the end: said with the seconds and the frames
expect_exit "short quiet tail, without --strict" 0 "$settle" analyze --json late.json late-01.mkv
grep -qE '^late-01.mkv: stable at .*; warning: only 0\.[0-9]+ s \([0-9]+ frames\) of quiet after the stable frame before the recording ends' out
check $? "the summary line carries the warning: $(cat out)"
python3 - late.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
w = r["warnings"]
assert [x["code"] for x in w] == ["short_quiet_tail"], w
assert "of quiet after the stable frame" in w[0]["message"], w
assert r["quiet_tail"] < 1.0, r["quiet_tail"]
EOF
check $? "the JSON has warnings [{code: short_quiet_tail, message}]"
expect_exit "short quiet tail, --strict" 1 "$settle" analyze --strict late-01.mkv
expect_exit "a clean answer, --strict" 0 "$settle" analyze --strict --json early.json early-01.mkv
grep -q '"warnings":\[\]' early.json && ! grep -q warning out
check $? "a clean answer: no warning anywhere: $(cat out)"

# a load time of 0: the screen was already quiet at the start (--start after
# the last change; --settle no longer answers before the first change)
expect_exit "load time 0" 0 "$settle" analyze --start 3 --json zero.json sample.mp4
grep -q '; warning: load time 0' out && grep -q '"code":"zero_load_time"' zero.json
check $? "load time 0: in the summary line and the JSON: $(cat out)"
expect_exit "load time 0, --strict" 1 "$settle" analyze --strict --start 3 sample.mp4

# a start never found: the line says so, and so does the JSON
expect_exit "no start" 1 "$settle" analyze --start 'marker:#123456' --json nostart.json early-01.mkv
grep -q '^early-01.mkv: no start found: .*; warning: the start was never found' out &&
  grep -q '"code":"no_start"' nostart.json
check $? "no start: in the summary line and the JSON: $(cat out)"

# the report shows the warnings
expect_exit "report with a warning" 0 "$settle" analyze -q --report late.html late-01.mkv
grep -q 'of quiet after the stable frame' late.html
check $? "the report shows the warning"

# with --json - the summary lines, warnings included, go to stderr
expect_exit "--json - with a warning" 0 "$settle" analyze --json - late-01.mkv early-01.mkv
[ "$(wc -l <out)" -eq 2 ] && grep -c '^[a-z]*-01.mkv: stable at' err | grep -qx 2 && grep -q '^late-01.mkv: .*warning' err
check $? "--json -: two JSON lines on stdout, both summary lines on stderr"
done_testing
