#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Evidence that a change which should not change results does not: analyses
# every capture of testdata/ and of ../shared/realdata (that part is skipped
# when the folder is absent) with a fixed set of option combinations and
# compares every output with the references made before:
#   - CSV and JSON byte for byte, once the fields that name the machine or the
#     checkout are left out (input, input_mtime, settle_version);
#   - PNGs (--frames, --plot, and those the --report page embeds) by their
#     decoded pixels, not their bytes; the report's text without the version;
#   - the exit code of each run.
# References: tests/regress/testdata/ holds the normalised outputs themselves
# (a failure shows the diff); tests/regress/realdata.sha256 only their SHA-256,
# since the real captures are not part of the repository.
#
# Usage: regress.sh SETTLE PIXELS SOURCE_ROOT [--update]
#   --update (or SETTLE_REGRESS_UPDATE=1) rewrites the references from this
#   build: a change that alters results on purpose refreshes them in the same
#   commit and says why.
# Skipped (77) under `meson test --setup valgrind` and `--setup asan`: it tests
# results, not memory, and would take far too long there.
set -u
settle=$(realpath "$1")
pixels=$(realpath "$2")
src=$(cd "$3" && pwd)
update=${SETTLE_REGRESS_UPDATE:-0}
[ "${4:-}" = "--update" ] && update=1
if [ -n "${SETTLE_WRAPPER:-}" ] || [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "1..0 # SKIP regression of results: plain builds only"
  exit 77
fi
ref=$src/tests/regress
realdata=$src/../shared/realdata
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -gt 2 ] && jobs=2

# The combinations: NAME then options. "pictures" also gets --frames, --plot
# and --report (added by run_combo, paths inside its output folder).
declare -A combo=(
  [default]=""
  [web]="--start orange --crop viewport --visual-metrics on"
  [entropy]="--method entropy --window 7 --entropy-threshold 0.04 --settle 0.5"
  [camera]="--method diff --crop auto --blur box:1 --noise-factor 3 --tolerance 6"
  [phone]="--ignore 0,0,400,90 --ignore 10,10,20,20 --codec-filter off --start first-change --diff-threshold 1% --visual-metrics on --last-change exact"
  [median]="--blur median:1 --method auto --settle 0.3"
  [pictures]="--visual-metrics on --settle 1"
)

# run_combo CORPUS_DIR NAME CAPTURE...: runs settle from CORPUS_DIR (so that
# every input is named by the same relative path everywhere) into
# CORPUS_DIR/out/NAME, then normalises what it wrote into CORPUS_DIR/norm/NAME.
run_combo() {
  local dir=$1 name=$2
  shift 2
  local out=out/$name norm=$dir/norm/$name
  mkdir -p "$dir/$out" "$norm"
  local extra=()
  if [ "$name" = pictures ]; then
    extra=(--frames "$out/frames" --plot "$out/%n-plot.png" --report "$out/report.html")
  fi
  local t0=${EPOCHREALTIME/./}
  # shellcheck disable=SC2086
  (cd "$dir" && "$settle" analyze -q -j "$jobs" ${combo[$name]} "${extra[@]}" \
    --csv "$out/%n.csv" --json "$out/results.json" "$@" 2>"$out/stderr")
  echo "$?" >"$norm/exit"
  echo "# ${dir##*/} $name: $# captures, $(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms" >&2
  sed -E 's/^settle: [^:]*: //' "$dir/$out/stderr" | sort >"$norm/stderr"
  local f
  for f in "$dir/$out"/*.csv; do
    [ -e "$f" ] && cp "$f" "$norm/"
  done
  if [ -f "$dir/$out/results.json" ]; then
    sort "$dir/$out/results.json" |
      sed -E -e 's/"input":"([^"\\]|\\.)*",//' -e 's/"input_mtime":"[^"]*",//' \
             -e 's/,"settle_version":"[^"]*"//' >"$norm/results.json"
  fi
  (cd "$dir/$out" && find . -name '*.png' | LC_ALL=C sort | while read -r p; do
    printf '%s %s\n' "$p" "$("$pixels" "$p" | sha256sum | cut -d' ' -f1)"
  done) >"$norm/pictures.txt"
  [ -s "$norm/pictures.txt" ] || rm -f "$norm/pictures.txt"
  if [ -f "$dir/$out/report.html" ]; then
    local i=0 uri
    grep -o 'data:image/png;base64,[A-Za-z0-9+/=]*' "$dir/$out/report.html" | while read -r uri; do
      i=$((i + 1))
      printf '%s' "${uri#data:image/png;base64,}" | base64 -d >"$tmp/embedded.png"
      printf 'embedded %d %s\n' "$i" "$("$pixels" "$tmp/embedded.png" | sha256sum | cut -d' ' -f1)"
    done >>"$norm/pictures.txt"
    sed -E -e 's#data:image/png;base64,[A-Za-z0-9+/=]*#data:image/png;base64,PIXELS#g' \
           -e '\#<tr><th>settle</th><td>[^<]*</td></tr>#d' "$dir/$out/report.html" >"$norm/report.html"
  fi
}

status=0

# testdata/: every capture with every combination; the normalised outputs are
# the reference.
t=$tmp/testdata
mkdir -p "$t"
ln -s "$src/testdata" "$t/cap"
mapfile -t caps < <(cd "$t" && find -L cap -type f \( -name '*.mp4' -o -name '*.webm' -o -name '*.mkv' -o -name '*.mov' \) | LC_ALL=C sort)
for name in "${!combo[@]}"; do
  run_combo "$t" "$name" "${caps[@]}"
done
if [ "$update" = 1 ]; then
  rm -rf "$ref/testdata"
  cp -r "$t/norm" "$ref/testdata"
  echo "# testdata references rewritten: $ref/testdata"
elif diff -r -u "$ref/testdata" "$t/norm" >"$tmp/diff"; then
  echo "ok - testdata: ${#caps[@]} captures x ${#combo[@]} combinations as the reference"
else
  echo "not ok - testdata: outputs differ from tests/regress/testdata"
  head -c 20000 "$tmp/diff" | sed 's/^/# /'
  status=1
fi

# ../shared/realdata: every capture with the defaults, and a few of each kind
# with the combinations written for it, chosen so that the whole script takes
# about 100 s of CPU (under a minute on two idle cores); only hashes are kept.
if [ ! -d "$realdata" ]; then
  echo "ok - realdata # SKIP $realdata absent"
  exit $status
fi
r=$tmp/realdata
mkdir -p "$r"
ln -s "$(cd "$realdata" && pwd)" "$r/cap"
mapfile -t all < <(cd "$r" && find -L cap -type f \( -name '*.mp4' -o -name '*.webm' \) | LC_ALL=C sort)
pick() { printf '%s\n' "${all[@]}" | grep -E "$1"; }
mapfile -t web < <(pick '/browsertime/(amazon_chrome|bbc_firefox|wikipedia_chrome)\.mp4$')
mapfile -t phone < <(pick '(/douyin[135]|/short|/video_for_train|_android|/lemons_video|/docs_video_0)\.mp4$')
mapfile -t entropy < <(pick '/eideticker/.*(checkerboarding|scrolling|taskjs_xul|cnn)')
mapfile -t camera < <(pick '/eideticker/(startup-test-elmo|contacts-b2g-aug30-load-taphomescreen1|taskjs_native)\.')
mapfile -t median < <(pick '/(wikipedia_android|douyin3)\.')
mapfile -t pictures < <(pick '(/wikipedia_android|/sitespeed_android|/short|/lemons_video|/contacts-b2g-aug30-load-taphomescreen1)\.')
run_combo "$r" default "${all[@]}"
run_combo "$r" web "${web[@]}"
run_combo "$r" phone "${phone[@]}"
run_combo "$r" entropy "${entropy[@]}"
run_combo "$r" camera "${camera[@]}"
run_combo "$r" pictures "${pictures[@]}"
run_combo "$r" median "${median[@]}"
(cd "$r/norm" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$tmp/realdata.sha256"
if [ "$update" = 1 ]; then
  cp "$tmp/realdata.sha256" "$ref/realdata.sha256"
  echo "# realdata references rewritten: $ref/realdata.sha256"
elif diff -u "$ref/realdata.sha256" "$tmp/realdata.sha256" >"$tmp/diff"; then
  echo "ok - realdata: ${#all[@]} captures, $(wc -l <"$tmp/realdata.sha256") outputs as the reference"
else
  echo "not ok - realdata: outputs differ from tests/regress/realdata.sha256"
  sed 's/^/# /' "$tmp/diff"
  status=1
fi
exit $status
