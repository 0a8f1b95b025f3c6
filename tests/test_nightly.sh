#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 21 end to end: scripts/nightly (analyze with labels into the store,
# trend, dashboard) run night after night on real captures. Eight nights, two
# devices, three captures a device and night (tests/make_runs: the content
# appears at 1 s + a jitter of up to 200 ms); from night 6 on, device b's build
# is 250 ms slower. The morning after night 6 the verdict is exit 1 with the
# change at night 6 on b; before it and on nights 7 and 8 it is exit 0, and
# the change stays at night 6 with an interval that holds 0.25 s; device a
# never has a change. The dashboard marks it and its links resolve.
# Args: the settle program, make_runs, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
make_runs=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SETTLE
SETTLE=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1

changes() { # DEVICE: "at step low high" of its changes in verdict.json
  grep "\"device\":\"$1\"" verdict.json | sed 's/.*"changes":\[//; s/\],"regression".*//; s/},{/}\n{/g' |
    sed -n 's/.*"at":\([^,]*\),"step":\([^,]*\),"ci95":\[\([^,]*\),\([^]]*\)\].*/\1 \2 \3 \4/p'
}
for night in 1 2 3 4 5 6 7 8; do
  for dev in a b; do
    delay=0 seed=$((night * 10 + 1))
    [ $dev = b ] && seed=$((night * 10 + 2))
    [ $dev = b ] && [ $night -ge 6 ] && delay=250
    mkdir -p "cap/$night/$dev"
    "$make_runs" "cap/$night/$dev" "$dev" 3 $seed $delay >/dev/null ||
      { check 1 "make_runs night $night $dev"; done_testing; exit 1; }
    "$src/scripts/nightly" nightly.db out contacts $dev $night cap/$night/$dev/*.mkv >log 2>&1
    verdict=$?
  done
  "$SETTLE" trend --format json nightly.db >verdict.json
  case $night in
  [1-5])
    [ $verdict -eq 0 ] && [ -z "$(changes a)$(changes b)" ]
    check $? "night $night: exit 0, no change (exit $verdict; $(changes b))" ;;
  6)
    [ $verdict -eq 1 ] && [ "$(changes b | cut -d' ' -f1)" = 6 ] && [ -z "$(changes a)" ] &&
      grep -q '| test=contacts, device=b | 6 | .*\*\*regression\*\* |' out/verdict.md
    check $? "the morning after night 6: exit 1, the change at 6 on b only: $(changes b); $(cat out/verdict.md | tr '\n' ' ')" ;;
  *)
    [ $verdict -eq 0 ] && [ "$(changes b)" ] && [ "$(changes b | cut -d' ' -f1)" = 6 ] && [ -z "$(changes a)" ]
    check $? "night $night: exit 0, the change still at 6 on b only: $(changes b)" ;;
  esac
done
changes b | awk '{ exit !($3 <= 0.25 && 0.25 <= $4) }'
check $? "the interval of b's step holds 0.25 s: $(changes b)"
[ "$("$SETTLE" history list nightly.db | wc -l)" -eq 48 ]
check $? "48 results in the store"

# the dashboard: the change marked, night 6 of b links its captures' outputs
grep -q 'test=contacts, device=b: change at 6 ' out/dashboard/index.html &&
  grep -q 'test=contacts, device=a: no change' out/dashboard/index.html
check $? "the dashboard marks the change of b at night 6, none on a"
page=$(grep -l 'device=b, night 6</h1>' out/dashboard/night/*.html)
[ "$(grep -o '>video</a>' $page | wc -l)" -eq 3 ] && [ "$(grep -o '>report</a>' $page | wc -l)" -eq 3 ] &&
  [ "$(grep -o '<img alt="filmstrip"' $page | wc -l)" -eq 3 ]
check $? "night 6 of b links three videos, reports and filmstrips"
bad=0
for ref in $(grep -oE '(href|src)="[^"]*"' $page | sed 's/^[a-z]*="//; s/"$//'); do
  [ -e "out/dashboard/night/$ref" ] || bad=$((bad + 1))
done
check $bad "they resolve ($bad do not)"

echo "# $pass passed, $fail failed"
done_testing
