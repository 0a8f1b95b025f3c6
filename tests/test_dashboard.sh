#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# settle dashboard (issue 21): one HTML folder from the store, a chart per
# test and a line per device, the spread, the change marked; every link and
# picture resolves inside the machine (a real capture analysed with --frames,
# --report and --db gives a night with video, report, result, CSV and
# filmstrip); nothing refers to the network; headless Chromium renders it.
# Skips (77) the rendering only when no chromium is found.
# Args: the settle program, make_history, pngstat, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
make_history=$2
pngstat=$3
src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1

# eight nights of two devices, a step of 0.25 s at night 6 on b; a second test
"$make_history" "device=a" "device=b step=0.25 at=6 seed=2" "test=mail device=a seed=7" \
  "test=mail device=b seed=8 outlier=4:0.3" >h.jsonl
"$settle" history add -q h.db h.jsonl
# night 9 of device a: a real capture with all its outputs
cp "$src/testdata/sample-startup.mp4" "cap one.mp4"
expect_exit "analyze night 9 into the store" 0 "$settle" analyze -q --label test=contacts \
  --label device=a --label night=9 -o res --per-frame --frames res --report "res/r.html" \
  --db h.db "cap one.mp4"

expect_exit "dashboard" 0 "$settle" dashboard -o dash h.db
grep -q "dash/index.html: 4 series written" "$tmp/err"
check $? "says 4 series: $(cat "$tmp/err")"
[ "$(grep -c '<section class="chart">' dash/index.html)" -eq 2 ]
check $? "one chart a test"
[ "$(grep -c '<h2>test contacts</h2>' dash/index.html)" -eq 1 ] &&
  [ "$(grep -c '<h2>test mail</h2>' dash/index.html)" -eq 1 ]
check $? "the charts are contacts and mail"
[ "$(grep -c '<g class="line"' dash/index.html)" -eq 4 ]
check $? "a line a device"
[ "$(grep -c '<g class="change">' dash/index.html)" -eq 1 ]
check $? "one change marked: $(grep -o 'change at [^<]*' dash/index.html | tr '\n' ' ')"
grep -q 'test=contacts, device=b: change at 6 +0\.2[0-9]* \[+0\.2[0-9]*, +0\.2[0-9]*\]' dash/index.html &&
  grep -q 'test=contacts, device=a: no change' dash/index.html &&
  grep -q 'test=mail, device=b: no change' dash/index.html
check $? "the step of b at night 6, none on a, none for mail's odd night"
[ "$(grep -c '<line class="spread"' dash/index.html)" -eq 33 ]
check $? "the spread of each night (33 nights)"
[ "$(grep -c '<a href="night/' dash/index.html)" -eq 33 ] && [ "$(ls dash/night | wc -l)" -eq 33 ]
check $? "each night a link and a page"

# nothing from the network: no URL but the SVG namespace
! grep -hoE '(https?:)?//[a-z0-9.-]+' dash/index.html dash/night/*.html | grep -v '^http://www.w3.org$' | grep -q .
check $? "no network address in the pages"
! grep -hoE '(src|href)="[a-z]+:' dash/index.html dash/night/*.html | grep -q .
check $? "no absolute URL in src or href"

# every link and picture resolves, relative to its page
bad=0 links=0
for page in dash/index.html dash/night/*.html; do
  dir=$(dirname "$page")
  while read -r ref; do
    links=$((links + 1))
    path=$(printf '%b' "$(printf '%s' "$ref" | sed 's/%\([0-9A-F][0-9A-F]\)/\\x\1/g')")
    [ -e "$dir/$path" ] || { bad=$((bad + 1)); echo "# $page: $ref does not resolve"; }
  done < <(grep -oE '(href|src)="[^"]*"' "$page" | sed 's/^[a-z]*="//; s/"$//')
done
[ $bad -eq 0 ] && [ $links -gt 70 ]
check $? "$links links and pictures, $bad that do not resolve"
night9=$(grep -l '>night 9<\|, night 9</h1>' dash/night/*.html)
for what in video report JSON CSV; do
  grep -q ">$what</a>" $night9
  check $? "night 9 links its capture's $what"
done
grep -q '<img alt="filmstrip" src="../../res/cap%20one-filmstrip.png">' $night9
check $? "night 9 shows its filmstrip: $(grep -o '<img[^>]*>' $night9)"
grep -q 'href="../../cap%20one.mp4"' $night9
check $? "the video's name is encoded"

# the same from the JSON Lines, and bad input
expect_exit "dashboard of a JSON Lines file" 0 "$settle" dashboard -q -o dash2 h.jsonl
[ "$(grep -c '<g class="line"' dash2/index.html)" -eq 4 ]
check $? "the same four lines"
expect_exit "no -o" 64 "$settle" dashboard h.db
one_line_naming "no -o" "-o DIR"
printf 'x' >afile
expect_exit "the folder is a file" 4 "$settle" dashboard -o afile h.db
one_line_naming "folder is a file" "afile"
expect_exit "a missing store" 3 "$settle" dashboard -o dash3 missing.db
one_line_naming "missing input" "missing.db"

# headless Chromium: a screenshot with the lines drawn in their colours
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$browser" ]; then
  HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --disable-background-networking --hide-scrollbars --user-data-dir="$tmp/profile" \
    --screenshot="$tmp/shot.png" --window-size=1040,1300 "file://$tmp/dash/index.html" \
    >"$tmp/chromium.log" 2>&1
  check $? "chromium renders the dashboard"
  read -r w h colours < <("$pngstat" "$tmp/shot.png")
  [ "${w:-0}" -eq 1040 ] && [ "${colours:-0}" -gt 100 ]
  check $? "screenshot of 1040 wide, not blank: $w x $h, $colours colours"
  blue=$("$pngstat" "$tmp/shot.png" 1f77b4 30)
  red=$("$pngstat" "$tmp/shot.png" d62728 30)
  [ "$blue" -gt 1500 ] && [ "$red" -gt 1500 ]
  check $? "device a's line in blue, b's in red ($blue, $red pixels)"
  if [ -n "${SETTLE_DASHBOARD_SHOT:-}" ]; then cp "$tmp/shot.png" "$SETTLE_DASHBOARD_SHOT"; fi
else
  echo "# chromium not found: the rendering is not checked"
fi

echo "# $pass passed, $fail failed"
done_testing
