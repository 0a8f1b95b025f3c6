#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The plot's PNG written inside gnuplot by settle's module (src/cli/gnuplot_png.c,
# preloaded into settle's gnuplot): the decoded pixels of the PNG gnuplot
# writes itself (cairo's), for `analyze --plot` (the warm gnuplot), `--report`
# and `settle plot`; written by the module (not cairo's bytes); a picture with
# transparency left to cairo, byte for byte.
# Args: the settle program, the pixels helper, the source tree, the module
# (empty when the build has none: skipped).
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
pixels=$2
src=$3
module=${4:-}
[ -n "$module" ] || { echo "1..0 # SKIP no gnuplot PNG module in this build (sanitized or fuzzing)"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "1..0 # SKIP gnuplot is not installed"; exit 77; }
gnuplot -e 'exit (strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? 0 : 1)' 2>/dev/null ||
  { echo "1..0 # SKIP gnuplot has no pngcairo terminal"; exit 77; }
sample=$src/testdata/sample-startup.mp4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")

# a gnuplot that drops LD_PRELOAD: cairo writes the PNG, as without the module
mkdir "$tmp/bin"
printf '#!/bin/sh\nunset LD_PRELOAD\nexec %s "$@"\n' "$(command -v gnuplot)" >"$tmp/bin/gnuplot"
chmod +x "$tmp/bin/gnuplot"
same_pixels() { cmp -s <("$pixels" "$1") <("$pixels" "$2"); }

"$settle" analyze -q --plot "$tmp/m.png" --report "$tmp/m.html" --csv "$tmp/m.csv" \
  --json "$tmp/m.json" "$sample"
r=$?; check $r "analyze --plot --report exits 0 ($r)"
PATH=$tmp/bin:$PATH "$settle" analyze -q --plot "$tmp/c.png" --report "$tmp/c.html" "$sample"
r=$?; check $r "the same with cairo's PNG exits 0 ($r)"
[ -s "$tmp/m.png" ] && [ -s "$tmp/c.png" ] && same_pixels "$tmp/m.png" "$tmp/c.png"
check $? "--plot: the pixels of cairo's PNG"
! cmp -s "$tmp/m.png" "$tmp/c.png"
check $? "--plot: written by the module, not cairo ($(wc -c <"$tmp/m.png") and $(wc -c <"$tmp/c.png") bytes)"
for f in m c; do
  grep -o 'data:image/png;base64,[A-Za-z0-9+/=]*' "$tmp/$f.html" | head -n 1 |
    sed 's/^data:image\/png;base64,//' | base64 -d >"$tmp/$f-report.png"
done
same_pixels "$tmp/m-report.png" "$tmp/c-report.png" && cmp -s "$tmp/m-report.png" "$tmp/m.png"
check $? "--report: embeds the plot, the pixels of cairo's"

"$settle" plot "$tmp/m.csv" --json "$tmp/m.json" -o "$tmp/pm.png"
r=$?
PATH=$tmp/bin:$PATH "$settle" plot "$tmp/m.csv" --json "$tmp/m.json" -o "$tmp/pc.png"
[ $r -eq 0 ] && same_pixels "$tmp/pm.png" "$tmp/pc.png" && ! cmp -s "$tmp/pm.png" "$tmp/pc.png"
check $? "settle plot: the module's PNG, the pixels of cairo's"

# a transparent picture is cairo's to write (an RGBA PNG), byte for byte
gp="set terminal pngcairo size 320,200 transparent; set output '%s'; plot sin(x); set output"
# shellcheck disable=SC2059
LD_PRELOAD=$module gnuplot -e "$(printf "$gp" "$tmp/tm.png")" 2>"$tmp/err" &&
  gnuplot -e "$(printf "$gp" "$tmp/tc.png")" && [ -s "$tmp/tc.png" ] && cmp -s "$tmp/tm.png" "$tmp/tc.png"
check $? "transparency: cairo's own PNG $(head -c 200 "$tmp/err")"
# an opaque one through the module directly: the same pixels
gp="set terminal pngcairo size 320,200 background '#102030'; set output '%s'; plot sin(x) lw 3; set output"
# shellcheck disable=SC2059
LD_PRELOAD=$module gnuplot -e "$(printf "$gp" "$tmp/om.png")" 2>"$tmp/err" &&
  gnuplot -e "$(printf "$gp" "$tmp/oc.png")" && same_pixels "$tmp/om.png" "$tmp/oc.png" &&
  ! cmp -s "$tmp/om.png" "$tmp/oc.png"
check $? "opaque: the module's PNG, the pixels of cairo's $(head -c 200 "$tmp/err")"

echo "1..$((pass + fail))"
[ $fail -eq 0 ]
