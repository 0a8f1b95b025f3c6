#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The history store (issue 21): settle history add from JSON Lines, result
# folders and analyze --db; adding twice; parallel writers losing no row; the
# schema's version and its migration; stores that are not ours.
# Args: the settle program, make_history, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
make_history=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1
have_sqlite3=$(command -v sqlite3 || true)
q() { sqlite3 "$@"; }

"$make_history" "device=a" "device=b step=0.25 at=6 seed=2" >h.jsonl
expect_exit "add 48 results" 0 "$settle" history add h.db h.jsonl
grep -q "48 results added, 0 already stored, 48 in all" "$tmp/err"
check $? "says 48 added: $(cat "$tmp/err")"
expect_exit "add them again" 0 "$settle" history add h.db h.jsonl
grep -q "0 results added, 48 already stored, 48 in all" "$tmp/err"
check $? "adding twice is harmless: $(cat "$tmp/err")"
expect_exit "add with its option after the files" 0 "$settle" history add h.db h.jsonl -q
[ ! -s "$tmp/err" ]
check $? "-q after DB RESULT is an option: $(cat "$tmp/err")"
expect_exit "trend with its options after the store" 0 "$settle" trend h.db --format json -q
head -1 "$tmp/out" | grep -q '^{'
check $? "--format json after DB: $(head -c 200 "$tmp/out")"
expect_exit "list" 0 "$settle" history list h.db
[ "$(wc -l <"$tmp/out")" -eq 48 ] && cmp -s <(sort "$tmp/out") <(sort h.jsonl)
check $? "list gives back the 48 results as added"

# a capture analysed with labels, outputs and --db: the paths are stored
cp "$src/testdata/sample-startup.mp4" cap.mp4
expect_exit "analyze --db" 0 "$settle" analyze -q --label night=1 --label test=startup \
  --label device=sample -o res --per-frame --frames res --report res/r.html --db a.db cap.mp4
if [ -n "$have_sqlite3" ]; then
  row=$(q a.db "select capture_path, result_path, csv_path, report_path, frames_path from results")
  [ "$row" = "$tmp/cap.mp4|$(ls "$tmp"/res/cap-*.json)|$(ls "$tmp"/res/cap-*.csv)|$tmp/res/r.html|$tmp/res/cap-filmstrip.png" ]
  check $? "analyze --db stores capture, result, CSV, report, filmstrip: $row"
  [ "$(q a.db "select group_concat(key || '=' || value, ' ') from (select * from labels order by key)")" = "device=sample night=1 test=startup" ]
  check $? "labels stored one row a key"
  [ "$(q a.db "pragma journal_mode")" = wal ] && [ "$(q a.db "pragma user_version")" = 2 ]
  check $? "WAL, schema version 2"
fi
# the same result folder gathered into another store: the files beside it found
expect_exit "add a result folder" 0 "$settle" history add --report res/r.html b.db res
if [ -n "$have_sqlite3" ]; then
  [ "$(q b.db "select capture_path is not null and csv_path like '%.csv' and frames_path like '%-filmstrip.png' and report_path = '$tmp/res/r.html' from results")" = 1 ]
  check $? "a folder's result has its capture, CSV, filmstrip and the report"
fi
expect_exit "analyze --db the same again" 0 "$settle" analyze -q --label night=1 --label test=startup \
  --label device=sample --db a.db cap.mp4
expect_exit "list" 0 "$settle" history list a.db
[ "$(wc -l <"$tmp/out")" -eq 1 ]
check $? "the same analysis twice is one row: $(wc -l <"$tmp/out") rows; $(sqlite3 a.db "select identity from results")"

# parallel writers: 8 processes, 40 results each, at once
for i in 1 2 3 4 5 6 7 8; do
  "$make_history" "device=w$i nights=8 captures=5 seed=$i" >w$i.jsonl
done
for i in 1 2 3 4 5 6 7 8; do
  "$settle" history add -q p.db w$i.jsonl 2>w$i.err & pids[$i]=$!
done
ok=0
for i in 1 2 3 4 5 6 7 8; do wait "${pids[$i]}" || ok=1; done
check $ok "8 parallel writers all exit 0: $(cat w*.err)"
expect_exit "list" 0 "$settle" history list p.db
[ "$(wc -l <"$tmp/out")" -eq 320 ]
check $? "no row lost: $(wc -l <"$tmp/out") of 320"
# the same file by 6 writers at once: stored once
for i in 1 2 3 4 5 6; do "$settle" history add -q s.db w1.jsonl & pids[$i]=$!; done
ok=0
for i in 1 2 3 4 5 6; do wait "${pids[$i]}" || ok=1; done
"$settle" history list s.db >s.out
[ $ok -eq 0 ] && [ "$(wc -l <s.out)" -eq 40 ]
check $? "6 writers of the same results: 40 rows ($(wc -l <s.out))"

# migration: a store of schema version 1 (as the first version wrote it)
if [ -n "$have_sqlite3" ]; then
  q old.db "CREATE TABLE results (id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE,
    input TEXT NOT NULL, status TEXT, labels TEXT NOT NULL, settings TEXT, version TEXT,
    result TEXT NOT NULL, result_path TEXT, csv_path TEXT, report_path TEXT,
    added TEXT NOT NULL DEFAULT (datetime('now')));
    INSERT INTO results (identity, input, status, labels, result) VALUES ('x', 'old.mp4',
    'stable', '{\"night\":\"1\",\"device\":\"a\"}', '{\"input\":\"old.mp4\",\"load_time\":1,\"status\":\"stable\",\"labels\":{\"night\":\"1\",\"device\":\"a\"}}');
    PRAGMA user_version = 1;"
  expect_exit "trend refuses to migrate (read-only)" 3 "$settle" trend old.db
  one_line_naming "an old store read-only" "needs migrating"
  expect_exit "add to a version 1 store" 0 "$settle" history add old.db h.jsonl
  [ "$(q old.db "pragma user_version")" = 2 ] &&
    [ "$(q old.db "select group_concat(key || '=' || value, ' ') from (select * from labels where result_id = 1 order by key)")" = "device=a night=1" ] &&
    [ "$(q old.db "select count(*) from results")" = 49 ]
  check $? "migrated to version 2: labels of the old row kept, 49 rows"
  q new.db "PRAGMA user_version = 7; CREATE TABLE results (id INTEGER);"
  expect_exit "a newer schema" 4 "$settle" history add new.db h.jsonl
  one_line_naming "newer schema" "newer than"
  q other.db "CREATE TABLE t (a)"
  expect_exit "someone else's database" 4 "$settle" history add other.db h.jsonl
  one_line_naming "other database" "not a settle history"
fi

# bad input: one line naming the file and the problem; the rest stored
printf 'hello\n' >notdb
expect_exit "a text file as store" 4 "$settle" history add notdb h.jsonl
one_line_naming "not a store" "not a SQLite database"
printf '%s\nnot json\n' "$(head -1 h.jsonl)" >bad.jsonl
expect_exit "a bad line" 3 "$settle" history add -q x.db bad.jsonl w1.jsonl
one_line_naming "a bad line" "bad.jsonl: line 2: not a JSON object"
"$settle" history list x.db >x.out
[ "$(wc -l <x.out)" -eq 41 ]
check $? "what could be read is stored ($(wc -l <x.out) of 41)"
expect_exit "a missing result" 3 "$settle" history add -q x.db missing.jsonl
one_line_naming "missing" "missing.jsonl"
expect_exit "--db naming the capture" 64 "$settle" analyze -q --db cap.mp4 cap.mp4
one_line_naming "--db is an input" "--db: cap.mp4 is one of the inputs"
expect_exit "a misspelt option" 64 "$settle" history add --quite x.db h.jsonl
one_line_naming "misspelt" "--quite"
expect_exit "usage" 64 "$settle" history add x.db
expect_exit "unknown subcommand" 64 "$settle" history drop x.db

echo "# $pass passed, $fail failed"
done_testing
