#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# settle analyze --plot/--frames/--report and settle plot as a user runs them:
# the files, their sizes, gnuplot missing, no progress line off a terminal.
# Args: the settle program, the pngstat helper, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
pngstat=$2
src=$3
sample=$src/testdata/sample-startup.mp4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
size() { "$pngstat" "$1" | cut -d' ' -f1,2; }

"$settle" analyze --plot "$tmp/p.png" --frames "$tmp/fr" --report "$tmp/r.html" \
  --json "$tmp/s.json" "$sample" >"$tmp/out" 2>"$tmp/err"
r=$?; check $r "analyze with pictures exits 0 ($r)"
[ ! -s "$tmp/err" ]
check $? "nothing on stderr when it is not a terminal: $(head -c 300 "$tmp/err")"
for role in start stable first-change last-change; do
  [ "$(size "$tmp/fr/sample-startup-$role.png")" = "480 270" ]
  check $? "--frames: $role frame decodes, 480x270"
done
read -r w h _ < <("$pngstat" "$tmp/fr/sample-startup-filmstrip.png")
[ "${w:-0}" -ge 440 ] && [ "$(( (w % 220) ))" -eq 0 ] && [ "$(( h % 171 ))" -eq 0 ]
check $? "--frames: filmstrip decodes, cells of 220x171 ($w x $h)"
cmp -s "$tmp/fr/sample-startup-stable.png" "$tmp/fr/sample-startup-last-change.png"
check $? "stable and last change are the same frame here (both 2.500 s)"
[ "$(size "$tmp/p.png")" = "960 600" ]
check $? "--plot: PNG of 960x600"
# the pictures are kept during the one reading: a pipe gets them too, the same
"$settle" analyze -q --frames "$tmp/frp" /dev/stdin <"$sample" 2>"$tmp/err"
r=$?; check $r "a pipe's pictures: exits 0 ($r) $(head -c 300 "$tmp/err")"
for role in start stable first-change last-change filmstrip; do
  cmp -s "$tmp/fr/sample-startup-$role.png" "$tmp/frp/stdin-$role.png"
  check $? "a pipe's $role picture is the file's"
done
[ -z "$(find "$tmp" -name '*.tmp.*')" ]; bad=$?
check $bad "no temporary files left"
grep -q '<img class="plot"' "$tmp/r.html" && grep -q '<img class="filmstrip"' "$tmp/r.html" &&
  grep -q '2.500&nbsp;s' "$tmp/r.html" && ! grep -q 'src="http\|href="http' "$tmp/r.html"
check $? "--report: plot, filmstrip, stable time, no outside resources"

# settle plot on the result files that -o DIR --per-frame writes
"$settle" analyze -q -o "$tmp/res" --per-frame "$sample"
csv=$(ls "$tmp"/res/*.csv)
"$settle" plot "$csv" -o "$tmp/q.svg" 2>"$tmp/err"
r=$?; check $r "plot from -o DIR --per-frame results exits 0 ($r)"
grep -q '<svg' "$tmp/q.svg" && grep -q 'stable 2.500 s' "$tmp/q.svg" && grep -q 'start 0.000 s' "$tmp/q.svg"
check $? "plot: SVG with the stable and start times"
"$settle" plot "$csv" 2>"$tmp/err"
[ "$(size "${csv%.csv}.png")" = "960 600" ]
check $? "plot: default output beside the CSV"
cp "$csv" "$tmp/alone.csv"
"$settle" plot "$tmp/alone.csv" -o "$tmp/x.png" 2>"$tmp/err"
[ $? -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "alone.csv: no result beside it" "$tmp/err" && [ ! -e "$tmp/x.png" ]
check $? "plot: a CSV without its result: exit 3, one line: $(cat "$tmp/err")"
"$settle" plot "$tmp/alone.csv" --json "$tmp/s.json" -o "$tmp/x.png"
r=$?; check $r "plot: --json names the result ($r)"
"$settle" plot "$tmp/s.json" -o "$tmp/y.png" 2>"$tmp/err"
[ $? -eq 3 ] && grep -q "not a per-frame CSV" "$tmp/err"
check $? "plot: not a CSV: exit 3: $(cat "$tmp/err")"
printf 'set terminal pngcairo size 320,200\nset output out\nset datafile separator ","\nplot csv using 2:3 with lines\n' >"$tmp/my.gp"
"$settle" plot "$csv" --plot-script "$tmp/my.gp" -o "$tmp/mine.png"
[ "$(size "$tmp/mine.png")" = "320 200" ]
check $? "plot: --plot-script restyles"
printf 'this is not gnuplot\n' >"$tmp/bad.gp"
"$settle" plot "$csv" --plot-script "$tmp/bad.gp" -o "$tmp/bad.png" 2>"$tmp/err"
[ $? -eq 4 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "gnuplot failed" "$tmp/err" && [ ! -e "$tmp/bad.png" ]
check $? "plot: a failing script: exit 4, one line, no picture: $(cat "$tmp/err")"

# gnuplot missing: --plot fails with exit 4 and says how to install it; the rest is written
mkdir "$tmp/bin"
# (a PATH of only this directory; valgrind stays reachable for the valgrind setup's wrapper)
if [ -n "${SETTLE_WRAPPER:-}" ]; then
  printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v valgrind)" >"$tmp/bin/valgrind"
  chmod +x "$tmp/bin/valgrind"
fi
PATH=$tmp/bin "$settle" analyze --plot "$tmp/np.png" --report "$tmp/nr.html" --csv "$tmp/n.csv" \
  "$sample" >"$tmp/out" 2>"$tmp/err"
code=$?
[ $code -eq 4 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "apt-get install gnuplot-nox" "$tmp/err" &&
  [ ! -e "$tmp/np.png" ] && [ -s "$tmp/n.csv" ] && grep -q "No plot: gnuplot not found" "$tmp/nr.html" &&
  grep -q '<img class="filmstrip"' "$tmp/nr.html" && grep -q "stable at 2.500 s" "$tmp/out"
check $? "no gnuplot: exit 4 ($code), one line, CSV and report still written: $(cat "$tmp/err")"
PATH=$tmp/bin "$settle" analyze --report "$tmp/nr2.html" "$sample" >"$tmp/out" 2>"$tmp/err"
code=$?
[ $code -eq 0 ] && grep -q "warning: --report: gnuplot not found" "$tmp/err" && [ -s "$tmp/nr2.html" ]
check $? "no gnuplot, --report only: a warning, exit 0 ($code)"

# several captures: one page, a row per capture; --plot needs %n
cp "$sample" "$tmp/other.mp4"
"$settle" analyze -q --frames "$tmp/fr2" --report "$tmp/two.html" "$sample" "$tmp/other.mp4"
r=$?; check $r "two captures with pictures ($r)"
[ "$(grep -c '<section class="capture"' "$tmp/two.html")" -eq 2 ] && grep -q 'class="overview"' "$tmp/two.html"
check $? "--report: one page with a row per capture"
[ "$(ls "$tmp/fr2" | grep -c 'filmstrip.png$')" -eq 2 ] && ls "$tmp/fr2" | grep -Eq '^other-[0-9a-f]{8}-stable.png$'
check $? "--frames with several captures: NAME-HASH-ROLE.png"
"$settle" analyze -q --plot "$tmp/p.png" "$sample" "$tmp/other.mp4" 2>"$tmp/err"
[ $? -eq 64 ] && grep -q -- "--plot: several captures need a file name with %n" "$tmp/err"
check $? "--plot with several captures needs %n"
"$settle" analyze -q --plot "$tmp/%n.svg" "$sample" "$tmp/other.mp4"
[ -s "$tmp/sample-startup.svg" ] && [ -s "$tmp/other.svg" ]
check $? "--plot with %n"
"$settle" analyze -q --plot-script "$tmp/none.gp" --plot "$tmp/z.png" "$sample" 2>"$tmp/err"
[ $? -eq 64 ] && grep -q "plot-script: .*none.gp" "$tmp/err"
check $? "--plot-script that is missing: exit 64"
: >"$tmp/notadir"
"$settle" analyze -q --report "$tmp/notadir/r.html" "$sample" 2>"$tmp/err"
[ $? -eq 4 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "report: .*notadir/r.html: Not a directory" "$tmp/err"
check $? "--report under a file, not a folder: exit 4, one line: $(cat "$tmp/err")"
"$settle" analyze -q --report "$tmp/nodir/r.html" "$sample" 2>"$tmp/err"
[ $? -eq 0 ] && [ -s "$tmp/nodir/r.html" ]
check $? "--report into a missing folder: the folder is made"

# settle compare --plot: a box plot of each metric's values in both groups
mkdir -p "$tmp/ca" "$tmp/cb"
for i in 1 2 3; do cp "$sample" "$tmp/ca/a$i.mp4"; cp "$sample" "$tmp/cb/b$i.mp4"; done
"$settle" analyze -q -o "$tmp/ra" "$tmp"/ca/*.mp4 && "$settle" analyze -q -o "$tmp/rb" "$tmp"/cb/*.mp4
"$settle" compare -q --baseline "$tmp/ra" --candidate "$tmp/rb" --plot "$tmp/cmp.png" 2>"$tmp/err"
r=$?
read -r w h _ < <("$pngstat" "$tmp/cmp.png")
[ $r -eq 0 ] && [ "${w:-0}" -eq 800 ] && [ $(( (${h:-0} - 60) % 300 )) -eq 0 ] && [ "${h:-0}" -ge 360 ]
check $? "compare --plot: a panel of 800x300 per metric ($w x $h): $(cat "$tmp/err")"
PATH=$tmp/bin "$settle" compare -q --baseline "$tmp/ra" --candidate "$tmp/rb" --plot "$tmp/cmp2.png" \
  --json "$tmp/cmp.json" 2>"$tmp/err"
r=$?
[ $r -eq 4 ] && grep -q "apt-get install gnuplot-nox" "$tmp/err" && [ -s "$tmp/cmp.json" ] && [ ! -e "$tmp/cmp2.png" ]
check $? "compare --plot without gnuplot: exit 4, the JSON still written: $(cat "$tmp/err")"

# the progress line: on a terminal only, not with -q (script(1) gives a terminal)
if command -v script >/dev/null 2>&1; then
  script -qec "$settle analyze $sample" /dev/null >"$tmp/tty" 2>&1
  grep -q "settle: .*sample-startup.mp4: .*%.* frames, [0-9]* fps" "$tmp/tty" && grep -q "stable at 2.500 s" "$tmp/tty"
  check $? "progress line on a terminal"
  script -qec "$settle analyze -q $sample" /dev/null >"$tmp/tty" 2>&1
  ! grep -q "fps" "$tmp/tty"
  check $? "no progress line with -q"
else
  echo "ok - progress line: skipped, no script(1)"
fi

echo "# $pass passed, $fail failed"
done_testing
