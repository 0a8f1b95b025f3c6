#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The HTML report as a browser shows it: rendered by headless Chromium, the
# screenshot must show the summary, the plot's curves and the filmstrip's
# outlined frames. Skipped (77) only when no chromium can be found.
# Args: the settle program, the pngstat helper, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
pngstat=$2
src=$3
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "skip: chromium not found (apt-get install chromium)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
render() { # html, png, width, height
  HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --disable-background-networking --hide-scrollbars --user-data-dir="$tmp/profile" \
    --screenshot="$2" --window-size="$3,$4" "file://$1" >"$tmp/chromium.log" 2>&1
}
count() { "$pngstat" "$1" "$2" "$3"; }

"$settle" analyze -q --report "$tmp/r.html" "$src/testdata/sample-startup.mp4"
r=$?; check $r "report written ($r)"
render "$tmp/r.html" "$tmp/shot.png" 1400 1500
r=$?; check $r "chromium renders it ($r)"
read -r w h colours < <("$pngstat" "$tmp/shot.png")
[ "${w:-0}" -eq 1400 ] && [ "${h:-0}" -eq 1500 ]
check $? "screenshot of 1400x1500 ($w x $h)"
[ "${colours:-0}" -gt 200 ]
check $? "not blank: $colours colours"
# the summary at the top left: text
[ "$("$pngstat" "$tmp/shot.png" 0 0 700 300)" -gt 2000 ]
check $? "summary drawn at the top"
# the plot: its changed-pixels curve (#1f5fbf) and entropy curve (#7a3fbf)
blue=$(count "$tmp/shot.png" 1f5fbf 40)
purple=$(count "$tmp/shot.png" 7a3fbf 40)
[ "$blue" -gt 500 ] && [ "$purple" -gt 500 ]
check $? "plot curves shown ($blue blue, $purple purple pixels)"
# the filmstrip: the stable frame's green outline and the start's orange one,
# 4 pixels wide around a thumbnail of 200x113 (about 2 * (208 + 121) * 4 pixels)
green=$(count "$tmp/shot.png" 2a9d3f 12)
orange=$(count "$tmp/shot.png" de640d 12)
[ "$green" -gt 2000 ] && [ "$orange" -gt 2000 ]
check $? "filmstrip shown, stable and start outlined ($green green, $orange orange pixels)"

# several captures: one page, each capture's filmstrip
cp "$src/testdata/sample-startup.mp4" "$tmp/second.mp4"
"$settle" analyze -q --report "$tmp/two.html" "$src/testdata/sample-startup.mp4" "$tmp/second.mp4"
render "$tmp/two.html" "$tmp/two.png" 1400 4000
r=$?; check $r "chromium renders the page of two captures ($r)"
green2=$(count "$tmp/two.png" 2a9d3f 12)
[ "$green2" -gt $((2 * 2000)) ]
check $? "two filmstrips shown ($green2 green pixels)"

echo "# $pass passed, $fail failed"
done_testing
