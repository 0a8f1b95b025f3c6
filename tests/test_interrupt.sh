#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# SIGINT and SIGTERM in the middle of an analysis: exit 130, the frames
# measured so far kept in the CSV, a JSON result that says "interrupted", and
# no temporary file left behind. The capture reaches settle through a named
# pipe that is fed only half of it and then held open, so settle is known to be
# waiting for more when the signal comes, whatever the speed of the machine.
# Args: path of the settle program, path of make_runs.
set -u
. "$(dirname "$0")/lib.sh"
settle=$(realpath "$1")
make_runs=$(realpath "$2")
tmp=$(mktemp -d)
wrap=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "kept $tmp" || trap 'rm -rf "$tmp" "$wrap"' EXIT
wait_s=1
settle=$(wrapped "$settle" "$wrap")
if [ -n "${SETTLE_WRAPPER:-}" ]; then
  wait_s=10
fi
cd "$tmp" || exit 1

"$make_runs" . run 1 7 0 >truth
check $? "capture made"
capture=run-01.mkv
size=$(stat -c %s "$capture")
total_frames=90

interrupt_with() { # signal name
  local sig=$1
  mkdir -p "out-$sig"
  rm -f pipe
  mkfifo pipe
  "$settle" analyze -q --csv "out-$sig/r.csv" --json "out-$sig/r.json" pipe >stdout 2>stderr &
  local pid=$!
  exec 3>pipe
  head -c $((size / 2)) "$capture" >&3
  # the pipe's buffer holds at most 64 KiB of the half: settle has read the
  # rest and is now measuring it or waiting for more
  local waited=0
  while [ $waited -lt $((wait_s * 10)) ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -"$sig" "$pid"
  wait "$pid"
  local got=$?
  exec 3>&-
  [ "$got" -eq 130 ]
  check $? "SIG$sig: exit $got, want 130"
  grep -q '"status":"interrupted"' "out-$sig/r.json" && grep -q '"partial":true' "out-$sig/r.json"
  check $? "SIG$sig: JSON says interrupted and partial: $(head -c 300 "out-$sig/r.json")"
  local rows=$(($(wc -l <"out-$sig/r.csv") - 1))
  [ "$rows" -gt 5 ] && [ "$rows" -lt "$total_frames" ]
  check $? "SIG$sig: CSV keeps the $rows frames measured (of $total_frames)"
  frames=$(sed -n 's/.*"frames":\([0-9]*\).*/\1/p' "out-$sig/r.json")
  [ "$frames" = "$rows" ]
  check $? "SIG$sig: JSON frames ($frames) = CSV rows ($rows)"
  [ "$(find "out-$sig" -type f | wc -l)" -eq 2 ]
  check $? "SIG$sig: no temporary file left: $(ls "out-$sig" | tr '\n' ' ')"
  grep -q "interrupted" stderr
  check $? "SIG$sig: says so on stderr: $(head -c 200 stderr)"
}
interrupt_with INT
interrupt_with TERM

# an interrupted batch leaves no result for the capture it was on, so a rerun
# with --skip-existing analyses it again
mkdir -p batch
rm -f pipe
mkfifo pipe
"$settle" analyze -q -o batch pipe >stdout 2>stderr &
pid=$!
exec 3>pipe
head -c $((size / 2)) "$capture" >&3
sleep "$wait_s"
kill -INT "$pid"
wait "$pid"
got=$?
exec 3>&-
[ "$got" -eq 130 ] && [ "$(find batch -type f | wc -l)" -eq 0 ]
check $? "batch: exit $got (want 130) and no result in the directory: $(ls batch | tr '\n' ' ')"

done_testing
