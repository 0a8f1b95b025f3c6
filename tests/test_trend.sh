#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# settle trend (issue 21) on synthetic histories of eight nights, three
# captures a night: the one change on the device that got a step and none on
# the quiet one, its night and an interval holding the true step; exit 1 for
# a regression at the newest night; single odd nights, slow drift, series of
# different lengths, dates, captures that do not count, bad input.
# Args: the settle program, make_history.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
make_history=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1

# the JSON line of a device; its changes as "at step low high p" lines
line() { grep "\"device\":\"$1\"" "$tmp/out"; }
changes() {
  line "$1" | sed 's/.*"changes":\[//; s/\],"regression".*//; s/},{/}\n{/g' |
    sed -n 's/.*"at":\([^,]*\),"step":\([^,]*\),"ci95":\[\([^,]*\),\([^]]*\)\],"p":\([^,]*\),.*/\1 \2 \3 \4 \5/p'
}

# the evidence of the issue: device b steps by 0.25 s at night 6
"$make_history" "device=a" "device=b step=0.25 at=6 seed=2" >h.jsonl
expect_exit "a step in the middle: exit 0" 0 "$settle" trend --format json h.jsonl
[ "$(wc -l <"$tmp/out")" -eq 2 ]
check $? "one JSON line a series"
[ -z "$(changes a)" ]
check $? "no change on the quiet device: $(changes a)"
[ "$(changes b | wc -l)" -eq 1 ] && [ "$(changes b | cut -d' ' -f1)" = 6 ]
check $? "exactly one change on device b, at night 6: $(changes b)"
changes b | awk '{ exit !($3 <= 0.25 && 0.25 <= $4 && $2 > 0.2 && $2 < 0.3 && $5 < 0.05) }'
check $? "its interval holds the true step 0.25, p < 0.05: $(changes b)"
line b | grep -q '"labels":{"test":"contacts","device":"b"},"metric":"load_time"'
check $? "labels and metric in the JSON"
[ "$(line b | grep -o '"at":[0-9]*,"n":3' | wc -l)" -eq 8 ]
check $? "eight points of three captures"

# the store gives the same
"$settle" history add -q h.db h.jsonl
"$settle" trend --format json h.jsonl >a.out
expect_exit "trend on the store" 0 "$settle" trend --format json h.db
cmp -s a.out "$tmp/out"
check $? "the store and the JSON Lines give the same series"

# the step at the newest night: the alert, exit 1
"$make_history" "device=a" "device=b step=0.25 at=8 seed=2" >new.jsonl
expect_exit "a regression at the newest night: exit 1" 1 "$settle" trend --format json new.jsonl
[ "$(changes b | cut -d' ' -f1)" = 8 ] && [ -z "$(changes a)" ]
check $? "the change is night 8: $(changes b)"
changes b | awk '{ exit !($3 <= 0.25 && 0.25 <= $4) }'
check $? "interval holds 0.25: $(changes b)"
line b | grep -q '"newest":true}\],"regression":true'
check $? "marked newest and regression"
expect_exit "text" 1 "$settle" trend new.jsonl
grep -q "change at the newest night 8: +0.2.*REGRESSION" "$tmp/out"
check $? "the text says it"
expect_exit "markdown" 1 "$settle" trend --format markdown new.jsonl
grep -q "^| test=contacts, device=b | 8 | 8: .*\*\*regression\*\* |$" "$tmp/out" &&
  grep -q "^| test=contacts, device=a | 8 | .* | none |$" "$tmp/out"
check $? "the Markdown table says it"
# faster at the newest night: reported, but no failure
"$make_history" "device=b step=-0.25 at=8 seed=2" >faster.jsonl
expect_exit "an improvement at the newest night: exit 0" 0 "$settle" trend --format json faster.jsonl
[ "$(changes b | cut -d' ' -f1)" = 8 ] && line b | grep -q '"regression":false'
check $? "the improvement is a change, not a regression: $(changes b)"

# single odd nights are not changes; five series, one each at nights 2 to 7
"$make_history" "device=o2 outlier=2:0.4 seed=21" "device=o3 outlier=3:0.4 seed=22" \
  "device=o4 outlier=4:0.4 seed=23" "device=o5 outlier=5:-0.4 seed=24" \
  "device=o7 outlier=7:0.4 seed=25" >odd.jsonl
expect_exit "single odd nights: exit 0" 0 "$settle" trend --format json odd.jsonl
[ "$(grep -c '"changes":\[\]' "$tmp/out")" -eq 5 ]
check $? "no change in any of the five series"

# a slow drift is not a step
"$make_history" "device=d1 drift=0.02 seed=31" "device=d2 drift=0.015 seed=32" >drift.jsonl
expect_exit "slow drift: exit 0" 0 "$settle" trend --format json drift.jsonl
[ "$(grep -c '"changes":\[\]' "$tmp/out")" -eq 2 ]
check $? "no change in a drift of 0.02 s a night: $(changes d1) $(changes d2)"

# series of different lengths, along dates, one with a step
"$make_history" "device=s nights=5 first=4 step=0.3 at=7 seed=41 date=1" \
  "device=l nights=12 seed=42 date=1" "device=t nights=2 seed=43 date=1" >len.jsonl
expect_exit "different lengths" 0 "$settle" trend --format json len.jsonl
[ "$(line s | grep -o '"n":3' | wc -l)" -eq 5 ] && [ "$(line l | grep -o '"n":3' | wc -l)" -eq 12 ] &&
  [ "$(line t | grep -o '"n":3' | wc -l)" -eq 2 ]
check $? "5, 12 and 2 points"
[ "$(changes s | cut -d' ' -f1)" = '"2026-11-07"' ] && [ -z "$(changes l)" ] && [ -z "$(changes t)" ]
check $? "the short series' change at its date, none on the others: $(changes s)"

# captures that do not count, and another metric
"$make_history" "device=n status=5:not_stable seed=51" >nc.jsonl
expect_exit "a capture not stable" 0 "$settle" trend --format json nc.jsonl
grep -q '"at":5,"n":2,.*"not_counted":1}' "$tmp/out"
check $? "night 5 has 2 captures that count, 1 that does not"
expect_exit "--metric frames (all equal)" 0 "$settle" trend --metric frames --format json h.jsonl
[ "$(grep -c '"metric":"frames".*"changes":\[\]' "$tmp/out")" -eq 2 ]
check $? "another metric, constant: no change"
expect_exit "--by device only" 0 "$settle" trend --by device --format json h.jsonl
grep -q '^{"labels":{"device":"a"}' "$tmp/out"
check $? "--by picks the labels of a series"

# bad input
printf '%s\n' "$(head -1 h.jsonl | sed 's/"night":"1"/"night":"first"/')" >mixed.jsonl
cat h.jsonl >>mixed.jsonl
expect_exit "an --along value neither number nor date" 3 "$settle" trend mixed.jsonl
one_line_naming "bad --along value" "'first' is neither a number nor a date"
expect_exit "missing file" 3 "$settle" trend missing.jsonl
one_line_naming "missing file" "missing.jsonl"
expect_exit "bad --format" 64 "$settle" trend --format xml h.jsonl
one_line_naming "bad format" "--format"
expect_exit "bad --alpha" 64 "$settle" trend --alpha 2 h.jsonl
one_line_naming "bad alpha" "--alpha"
expect_exit "no input" 64 "$settle" trend
head -3 h.jsonl | sed 's/,"night":"[0-9]*"//' >nolabel.jsonl
cat h.jsonl >>nolabel.jsonl
expect_exit "results without the --along label" 0 "$settle" trend nolabel.jsonl
grep -q "3 results have no label 'night' and are left out" "$tmp/err"
check $? "says how many results lack the label: $(cat "$tmp/err")"

echo "# $pass passed, $fail failed"
done_testing
