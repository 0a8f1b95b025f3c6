#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Batch analysis and the comparison of two builds, as nightly automation runs
# them, on synthetic start-ups with known truth (make_runs).
# Args: path of the settle program, path of make_runs.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
make_runs=$2
tmp=$(mktemp -d)
wrap=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "kept $tmp" || trap 'rm -rf "$tmp" "$wrap"' EXIT
settle=$(wrapped "$settle" "$wrap")
cd "$tmp" || exit 1

# build A twice (two nights of the same build) and build B, 0.25 s slower
mkdir -p A A2 B
"$make_runs" A A 8 1 0 >truth-A && "$make_runs" A2 A 8 2 0 >truth-A2 && "$make_runs" B B 8 3 250 >truth-B
check $? "captures made"
printf 'not a video\n' >A/broken.mkv

# -o DIR: one result per capture, the broken one reported, the rest go on
expect_exit "batch with a broken capture" 3 "$settle" analyze -o res-A --jobs 2 --label build=A --label device=farm-1 A/*.mkv
[ "$(ls res-A | grep -c '\.json$')" -eq 9 ]
check $? "one result per capture: $(ls res-A | tr '\n' ' ')"
[ "$(grep -c 'stable at' out)" -eq 8 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q '^settle: A/broken.mkv: ' err &&
  grep -q '^A/broken.mkv: failed: ' out && [ "$(wc -l <out)" -eq 9 ]
check $? "9 summaries, the broken capture's among them, and one line on stderr about it"
# the summaries come in the order of the inputs whatever --jobs
ls A/*.mkv >expect-order
grep -o '^[^:]*' out | diff - expect-order >/dev/null
check $? "summaries in input order"
ok_truth=0
while read -r path t; do
  got=$(grep -h "\"input\":\"$path\"" res-A/*.json | sed 's/.*"load_time":\([^,]*\).*/\1/')
  awk -v a="$got" -v b="$t" 'BEGIN { exit !(a != "" && a - b < 1e-9 && b - a < 1e-9) }' || ok_truth=1
done <truth-A
check $ok_truth "every load time is the truth"
# result names and shards come from a hash of the path that must never change between
# versions, or a directory merged from two versions would hold a capture twice
[ -f res-A/A-01-63374f19.json ] && [ -f res-A/broken-8338bec9.json ]
check $? "result names are pinned: A/A-01.mkv -> A-01-63374f19.json"
grep -q '"labels":{"build":"A","device":"farm-1"}' res-A/A-01-*.json
check $? "labels copied into the result"
grep -q '"status":"failed"' res-A/broken-*.json
check $? "the broken capture's result says failed"
ls res-A | grep -q '\.tmp\.'
[ $? -ne 0 ]
check $? "no temporary files left"

# 34 captures, some of which never settle and two that are not videos: 34 summary
# lines on stdout in the order given, whatever their status and --jobs; with
# --json - the same 34 lines on stderr
mkdir -p M
"$make_runs" M M 32 7 0 >truth-M && printf 'not a video\n' >M/M-33.mkv && printf 'x' >M/M-34.mkv
check $? "34 captures made"
expect_exit "34-capture batch, --settle 1.2" 3 "$settle" analyze --jobs 3 --settle 1.2 M/*.mkv
ls M/*.mkv >expect-M
[ "$(wc -l <out)" -eq 34 ] && grep -o '^[^:]*' out | diff - expect-M >/dev/null
check $? "34 summary lines in input order: $(wc -l <out)"
ns=$(grep -c ': not stable: never quiet for 1.200 s' out); st=$(grep -c ': stable at' out)
[ "$ns" -gt 0 ] && [ "$st" -gt 0 ] && [ "$(grep -c ': failed: ' out)" -eq 2 ] && [ $((ns + st + 2)) -eq 34 ]
check $? "stable ($st), not stable ($ns) and failed (2), one line each"
grep -q '^settle: M/M-33.mkv: ' err && grep -q '^settle: M/M-34.mkv: ' err
check $? "stderr says why the two failed"
expect_exit "34-capture batch, --json -" 3 "$settle" analyze --jobs 4 --settle 1.2 --json - M/*.mkv
[ "$(wc -l <out)" -eq 34 ] && [ "$(grep -c '^M/M-[0-9]*.mkv: ' err)" -eq 34 ] &&
  grep '^M/M-[0-9]*.mkv: ' err | grep -o '^[^:]*' | diff - expect-M >/dev/null
check $? "--json -: 34 JSON lines on stdout, 34 summary lines on stderr in order"

# --skip-existing: nothing to do when inputs, settings and labels are the same
cp -p res-A/A-01-*.json saved.json
expect_exit "rerun with --skip-existing" 3 "$settle" analyze -o res-A --skip-existing --label build=A --label device=farm-1 A/*.mkv
[ "$(grep -c 'skipped, current result' out)" -eq 9 ] && grep -q 'broken.mkv: not a video.*(current result in res-A/broken-' err
check $? "all skipped, the broken one's stored error repeated"
cmp -s saved.json res-A/A-01-*.json && [ "$(stat -c %Y saved.json)" = "$(stat -c %Y res-A/A-01-*.json)" ]
check $? "a skipped result is left untouched"
touch A/A-02.mkv
expect_exit "changed input and settings" 3 "$settle" analyze -o res-A --skip-existing --label build=A --label device=farm-1 A/*.mkv
[ "$(grep -c 'skipped' out)" -eq 8 ] && grep -q '^A/A-02.mkv: stable' out
check $? "a touched capture is analysed again"
expect_exit "other labels" 3 "$settle" analyze -q -o res-A --skip-existing --label build=A2 A/*.mkv
[ ! -s out ] && grep -q '"build":"A2"' res-A/A-01-*.json
check $? "other labels: analysed again"
expect_exit "other settings" 3 "$settle" analyze -o res-A --skip-existing --label build=A2 --tolerance 6 A/*.mkv
! grep -q skipped out
check $? "other settings: analysed again"

# --files-from, one a line and NUL-separated, and the same capture twice
ls A/A-0[1-3].mkv >list
expect_exit "files-from" 0 "$settle" analyze -q -o res-list --files-from list
[ "$(ls res-list | wc -l)" -eq 3 ]
check $? "files-from: three results"
ls A/A-0[4-5].mkv | tr '\n' '\0' | "$settle" analyze -q -o res-list --files-from - >out 2>err
[ $? -eq 0 ] && [ "$(ls res-list | wc -l)" -eq 5 ]
check $? "files-from stdin, NUL-separated"
expect_exit "the same capture twice" 64 "$settle" analyze -q -o res-twice A/A-01.mkv ./A/A-01.mkv
grep -q 'given more than once' err
check $? "says so: $(cat err)"

# --shard: three machines, each with its share, into one directory, equal to one run
for k in 1 2 3; do
  "$settle" analyze -q -o res-sharded --shard $k/3 --jobs 1 --label build=A A/*.mkv 2>/dev/null
  echo "$k $(ls res-sharded | wc -l)" >>shard-counts
done
[ "$(tr '\n' ' ' <shard-counts)" = "1 2 2 8 3 9 " ]
check $? "shard shares are pinned too: $(tr '\n' ' ' <shard-counts)"
"$settle" analyze -q -o res-whole --jobs 2 --label build=A A/*.mkv 2>/dev/null
diff -r res-sharded res-whole >/dev/null
check $? "sharded results merge into exactly the unsharded ones ($(tr '\n' ' ' <shard-counts))"
[ "$(ls res-whole | wc -l)" -eq 9 ]
check $? "all 9 results there"
# every shard took some and none took all
awk 'NR==1{a=$2} NR==2{b=$2} NR==3{c=$2} END{exit !(a>0 && b>a && c>b && c==9)}' shard-counts
check $? "each shard took a share"
# the same lines whatever --jobs, and -o where no directory can be
"$settle" analyze --jobs 1 --json j1.json A/*.mkv >o1 2>e1
"$settle" analyze --jobs 2 --json j2.json A/*.mkv >o2 2>e2
cmp -s o1 o2 && cmp -s e1 e2 && cmp -s j1.json j2.json
check $? "--jobs 1 and --jobs 2 print and write the same"
: >not-a-dir
expect_exit "-o on a file" 4 "$settle" analyze -o not-a-dir A/A-01.mkv
grep -q '^settle: -o: not-a-dir: ' err
check $? "says so: $(cat err)"
expect_exit "bad shard" 64 "$settle" analyze --shard 4/3 A/A-01.mkv
expect_exit "bad label" 64 "$settle" analyze --label =x A/A-01.mkv
expect_exit "skip-existing needs -o" 64 "$settle" analyze --skip-existing A/A-01.mkv
expect_exit "bad jobs" 64 "$settle" analyze --jobs 0 A/A-01.mkv

# --per-frame CSV beside the JSON; --json aggregate is in input order with --jobs
expect_exit "per-frame" 0 "$settle" analyze -q -o res-pf --per-frame --jobs 2 --json all.json A/A-0[1-4].mkv
[ "$(ls res-pf/*.csv | wc -l)" -eq 4 ] && [ "$(head -1 res-pf/A-01-*.csv)" = "frame,time,diff_pixels,entropy,entropy_delta,quiet,keyframe,codec_refresh,progress" ]
check $? "per-frame CSV beside each JSON"
sed 's/^{"input":"\([^"]*\)".*/\1/' all.json | diff - <(ls A/A-0[1-4].mkv) >/dev/null
check $? "aggregate JSON in input order"

# compare: build B is 0.25 s slower than A in truth
"$settle" analyze -q -o res-B --label build=B B/*.mkv
"$settle" analyze -q -o res-A2 --label build=A A2/*.mkv
field() { # metric, key: the key's raw JSON value in that metric's line of cmp.json
  grep "\"metric\":\"$1\"" cmp.json | sed "s/.*\"$2\":\(\[[^]]*\]\|\"[^\"]*\"\|[^,}]*\).*/\1/"
}
expect_exit "B against A: regression" 1 "$settle" compare --baseline res-whole --candidate res-B --json cmp.json --markdown cmp.md
cat out
[ "$(field load_time verdict)" = '"regression"' ]
check $? "load_time verdict: $(field load_time verdict)"
ci=$(field load_time ci95)
echo "$ci" | tr -d '[]' | awk -F, '{ exit !($1 <= 0.25 && 0.25 <= $2 && $1 > 0) }'
check $? "the 95 % interval $ci holds the true 0.25 s and not 0"
[ "$(field load_time candidate | sed 's/.*"n":\([0-9]*\).*/\1/')" = 8 ] && [ "$(field load_time baseline | sed 's/{"n":\([0-9]*\).*/\1/')" = 8 ]
check $? "8 captures counted in each group"
grep '"metric":"load_time"' cmp.json | grep -q '"not_counted":\[{"source":"res-whole/broken-[0-9a-f]*.json","input":"A/broken.mkv","status":"failed"'
check $? "the broken capture is listed as not counted"
grep -q '^  baseline   res-whole/broken-.*: failed: not a video' out && grep -q '^baseline   9 results: 8 stable, 1 failed$' out
check $? "the text report lists it too"
grep -q '^| load_time | .* | \*\*regression\*\* |$' cmp.md
check $? "markdown table row"
# every format opens with the same verdict, the one the exit code gives
head -1 out | grep -q '^verdict: regression: load_time +0\.[0-9]* s (+[0-9.]* %)' &&
  [ "$(head -1 cmp.md)" = "### settle compare: $(head -1 out | sed 's/^verdict: //')" ]
check $? "text and Markdown open with the same verdict: $(head -1 out) / $(head -1 cmp.md)"
cp cmp.json cmp1.json
"$settle" compare -q --baseline res-whole --candidate res-B --json cmp.json
cmp -s cmp.json cmp1.json
check $? "a rerun gives the same numbers (fixed seed)"
expect_exit "B against A, minimum effect 0.5 s" 0 "$settle" compare --baseline res-whole --candidate res-B --min-effect 0.5 --json cmp.json
[ "$(field load_time verdict)" = '"no change"' ]
check $? "a difference smaller than the minimum effect is no change"
expect_exit "B against A, minimum effect 10 %" 1 "$settle" compare --baseline res-whole --candidate res-B --min-effect 10% --metric load_time --json cmp.json
expect_exit "A against B: improvement" 0 "$settle" compare --baseline res-B --candidate res-whole --metric load_time --json cmp.json
[ "$(field load_time verdict)" = '"improvement"' ]
check $? "the other way round: $(field load_time verdict)"
head -1 out | grep -q '^verdict: no regression; improvement: load_time -0\.[0-9]* s'
check $? "the text opens with no regression and the improvement: $(head -1 out)"
expect_exit "a metric asked for that is not there" 2 "$settle" compare --baseline res-B --candidate res-whole --metric speed_index --markdown cmp.md
[ "$(head -1 out)" = "verdict: too few to tell: speed_index is not in both groups' results" ] &&
  [ "$(head -1 cmp.md)" = "### settle compare: too few to tell: speed_index is not in both groups' results" ]
check $? "a metric not in both groups: too few to tell, in both formats: $(head -1 cmp.md)"
expect_exit "A against another night of A: no change" 0 "$settle" compare --baseline res-whole --candidate res-A2 --json cmp.json
[ "$(field load_time verdict)" = '"no change"' ] && [ "$(grep -c '"verdict":"no change"' cmp.json)" -eq 3 ]
check $? "every metric: no change"

# items of every kind: captures analysed here, a JSON Lines file, result files
cat res-A2/A-0[1-3]-*.json >a2.jsonl
expect_exit "captures, JSON Lines and result files" 1 "$settle" compare --metric load_time --json cmp.json \
  --baseline A/A-01.mkv A/A-02.mkv a2.jsonl --candidate res-B/B-0[1-4]-*.json B/B-05.mkv
[ "$(field load_time baseline | sed 's/{"n":\([0-9]*\).*/\1/')" = 5 ] && [ "$(field load_time candidate | sed 's/{"n":\([0-9]*\).*/\1/')" = 5 ]
check $? "5 and 5 counted"
cp cmp.json cmp-j.json
"$settle" compare -q --jobs 1 --metric load_time --json cmp.json \
  --baseline A/A-01.mkv A/A-02.mkv a2.jsonl --candidate res-B/B-0[1-4]-*.json B/B-05.mkv
cmp -s cmp.json cmp-j.json
check $? "captures analysed one by one or in parallel: the same comparison"
expect_exit "too few" 2 "$settle" compare --baseline res-A2/A-01-*.json res-A2/A-02-*.json --candidate res-B --json cmp.json --markdown cmp.md
[ "$(field load_time verdict)" = '"too few"' ] && grep -q "verdict: too few (a verdict needs at least 3 values in each group)" out
check $? "too few is said: $(field load_time verdict)"
# not "no regression": the Markdown opens with the verdict the exit code gives,
# with the smallest p-value 2 and 8 values can reach (2 / C(10, 2))
toofew="too few to tell: load_time has 2 baseline and 8 candidate values, fewer than 3; with 2 and 8 values the smallest p-value is 0.0444 (alpha 0.05)"
[ "$(head -1 cmp.md)" = "### settle compare: $toofew" ] && [ "$(head -1 out)" = "verdict: $toofew" ]
check $? "too few: text and Markdown open with it: $(head -1 cmp.md)"
expect_exit "too few, 2 and 2" 2 "$settle" compare -q --baseline res-A2/A-01-*.json res-A2/A-02-*.json --candidate res-B/B-0[12]-*.json --markdown cmp.md
head -1 cmp.md | grep -q 'with 2 and 2 values the smallest p-value is 0.3333 (alpha 0.05)$'
check $? "2 and 2 values can never reach p < 0.05: $(head -1 cmp.md)"
# labels: both sides' in every report; different tests never pooled silently; --by
expect_exit "labels of both sides" 1 "$settle" compare --metric load_time --baseline res-whole --candidate res-B --markdown cmp.md
grep -q '^baseline   labels: build=A$' out && grep -q '^candidate  labels: build=B$' out &&
  grep -qF 'Baseline labels: `build=A`' cmp.md && grep -qF 'Candidate labels: `build=B`' cmp.md
check $? "both sides' labels in the text report and the Markdown: $(grep labels out | tr '\n' ' ')"
mkdir -p P
"$make_runs" P Ah 6 1 0 >/dev/null && "$make_runs" P Bh 6 3 0 >/dev/null &&
  "$make_runs" P As 6 1 0 >/dev/null && "$make_runs" P Bs 6 3 250 >/dev/null
check $? "two pages' captures made"
"$settle" analyze -q -o res-PA --label build=A --label page=home P/Ah-*.mkv &&
  "$settle" analyze -q -o res-PA --label build=A --label page=search P/As-*.mkv &&
  "$settle" analyze -q -o res-PB --label build=B --label page=home P/Bh-*.mkv &&
  "$settle" analyze -q -o res-PB --label build=B --label page=search P/Bs-*.mkv
check $? "two pages analysed with labels"
pool="results of different tests are pooled (page: home, search); compare them per group with --by KEY"
expect_exit "two pages pooled" 1 "$settle" compare --metric load_time --baseline res-PA --candidate res-PB --markdown pool.md --json pool.json
grep -qF "warning: $pool" out && grep -qF "settle: warning: $pool" err && grep -qF '**Warning:** results of different tests are pooled (page: home, search); compare them per group with `--by KEY`.' pool.md
check $? "pooling different pages is said in the text, on stderr and in the Markdown: $(cat err)"
grep -q '"labels":{"build":"A","page":\["home","search"\]}' pool.json && grep -qF 'Baseline labels: `build=A, page=home|search`' pool.md
check $? "both sides' labels in the JSON and the Markdown"
expect_exit "--by page" 1 "$settle" compare --by page --metric load_time --baseline res-PA --candidate res-PB --markdown by.md --json by.json
[ "$(head -1 out)" = "verdict: regression in 1 of 2 groups by page; page=search: load_time +0.350 s (+40.0 %)" ] &&
  grep -q '^page=home: verdict: no regression$' out && grep -q '^page=search: verdict: regression: load_time' out &&
  ! grep -q 'pooled' out err
check $? "--by page: the verdict over the groups, then each group's: $(head -1 out)"
[ "$(head -1 by.md)" = "### settle compare: $(head -1 out | sed 's/^verdict: //')" ] &&
  grep -q '^#### page=home: no regression$' by.md && grep -q '^#### page=search: regression: ' by.md
check $? "--by page: the Markdown opens with the same verdict, a section per page"
[ "$(wc -l <by.json)" -eq 2 ] && grep -q '^{"metric":"load_time","labels":{"page":"home"},"baseline":{"n":6,' by.json &&
  grep -q '^{"metric":"load_time","labels":{"page":"search"},.*"verdict":"regression"}$' by.json
check $? "--by page: one JSON line per group, each with its labels"
expect_exit "--by a label nobody has" 2 "$settle" compare --by app --metric load_time --baseline res-PA --candidate res-PB --min-n 20
grep -q '^app=(none): verdict: too few to tell' out
check $? "results without the label form the group (none): $(grep 'app=' out)"
expect_exit "--by without a key" 64 "$settle" compare --by --metric load_time --baseline res-PA --candidate res-PB
expect_exit "a missing item" 3 "$settle" compare --baseline res-whole nowhere --candidate res-B
grep -q '^settle: nowhere: No such file or directory$' err
check $? "names it: $(cat err)"
printf '{"no":"input"}\n' >junk.json
expect_exit "not a result" 3 "$settle" compare --baseline junk.json --candidate res-B
expect_exit "no candidate" 64 "$settle" compare --baseline res-whole
expect_exit "bad min-effect" 64 "$settle" compare --baseline res-whole --candidate res-B --min-effect x
expect_exit "help compare" 0 "$settle" help compare

echo "$pass passed, $fail failed"
done_testing
