# SPDX-License-Identifier: BSD-2-Clause
# Sourced by the shell tests (TAP output): counters, checks and the valgrind
# wrapper. A test sets tmp (an absolute scratch directory) before using
# expect_exit, which leaves the command's output in $tmp/out and $tmp/err.
pass=0
fail=0

# check STATUS NAME: STATUS 0 passes. STATUS comes first so that `check $?
# "name: $(cat err)"` tests the condition, not the command in the name.
check() {
  if [ "$1" -eq 0 ]; then pass=$((pass + 1)); echo "ok - $2"; else fail=$((fail + 1)); echo "not ok - $2"; fi
}

# expect_exit NAME CODE COMMAND...: the command exits with CODE.
expect_exit() {
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" -eq "$want" ]
  check $? "$name (exit $got, want $want)"
}

# one_line_naming NAME TEXT: stderr is one line "settle: ..." containing TEXT.
one_line_naming() {
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$2" "$tmp/err" && grep -q "^settle: " "$tmp/err"
  check $? "$1: one line naming $2: $(head -c 200 "$tmp/err")"
}

# wrapped PROGRAM DIR: prints PROGRAM, or under `meson test --setup valgrind`
# (SETTLE_WRAPPER set by tests/valgrind.sh) a script in DIR that runs it: under
# memcheck on the script's 1st run, then on one run in SETTLE_VALGRIND_EVERY
# (1 + K, 1 + 2K, ...; every run when it is 1), plainly on the others. The
# count is kept in DIR/.runs (runs started at once may share a number: which
# of them is checked is then left to chance, never whether the test passes).
wrapped() {
  if [ -n "${SETTLE_WRAPPER:-}" ]; then
    local every=${SETTLE_VALGRIND_EVERY:-1} to
    to="$2/$(basename "$1")"
    printf '#!/bin/sh\nn=0\n[ -f "%s/.runs" ] && read -r n <"%s/.runs"\necho $((n + 1)) >"%s/.runs"\n' \
      "$2" "$2" "$2" >"$to"
    printf '[ $((n %% %d)) -eq 0 ] && exec %s "%s" "$@"\nexec "%s" "$@"\n' \
      "$every" "$(echo $SETTLE_WRAPPER)" "$1" "$1" >>"$to"
    chmod +x "$to"
    echo "$to"
  else
    echo "$1"
  fi
}

# film_scratch PROGRAM: for a test that makes its films with the ffmpeg
# program (skips, 77, without it): settle, PROGRAM wrapped (see wrapped), and
# tmp, a scratch folder removed on exit, which becomes the current one.
film_scratch() {
  command -v ffmpeg >/dev/null || { echo "1..0 # SKIP no ffmpeg program"; exit 77; }
  settle=$(realpath "$1")
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  settle=$(wrapped "$settle" "$tmp")
  cd "$tmp" || exit 1
}

# need_encoders ENCODER...: skips the test (exit 77, a TAP skip line) unless
# the ffmpeg program is installed with every ENCODER (as `ffmpeg -encoders`
# names it). Uses $tmp.
need_encoders() {
  command -v ffmpeg >"$tmp/which" 2>&1 || { echo "1..0 # SKIP no ffmpeg program"; exit 77; }
  ffmpeg -hide_banner -encoders >"$tmp/encoders" 2>&1
  local e
  for e in "$@"; do
    grep -q " $e " "$tmp/encoders" || { echo "1..0 # SKIP no $e encoder"; exit 77; }
  done
}

# real_x264 PROGRAM ROOT REL: the start of a test on a real recording that it
# re-encodes with libx264: real, the recording ROOT/../shared/realdata/REL
# (skips, 77, when absent: a user's clone has no ../shared), then
# film_scratch PROGRAM, a skip without libx264, and x264, the encoder's
# options as a capture program would set them.
real_x264() {
  real=$2/../shared/realdata/$3
  [ -f "$real" ] || { echo "1..0 # SKIP no ../shared/realdata"; exit 77; }
  real=$(realpath "$real")
  film_scratch "$1"
  need_encoders libx264
  x264='-c:v libx264 -preset veryfast -pix_fmt yuv420p -threads 1'
}

# screens_setup SETTLE MAKE_SCREENS ENCODER...: the start of an encoded-screen
# test: sets settle (wrapped) and make_screens, makes $tmp (removed at exit)
# and goes into it; skips (77) unless the ffmpeg program has every ENCODER.
screens_setup() {
  settle=$(realpath "$1")
  make_screens=$(realpath "$2")
  shift 2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  need_encoders "$@"
  settle=$(wrapped "$settle" "$tmp")
  cd "$tmp" || exit 1
}

# encode IN OUT OPTION...: `ffmpeg -i IN OPTION... OUT`. Under scripts/test
# (SETTLE_TEST_CACHE names a folder) the result is kept there, named by IN's
# content, OUT's name and the options, and a later pass of the suite copies it
# instead of encoding again: the encoders are most of an encoded-screen test's
# time, and they are the ffmpeg program's, the same in every pass.
encode() {
  local in=$1 out=$2 key kept
  shift 2
  if [ -z "${SETTLE_TEST_CACHE:-}" ]; then
    ffmpeg -nostdin -v error -y -i "$in" "$@" "$out"
    return
  fi
  key=$({ sha256sum <"$in" && printf '%s\n' "$out" "$@"; } | sha256sum) || return 1
  kept="$SETTLE_TEST_CACHE/${key%% *}.${out##*.}"
  if [ -f "$kept" ]; then
    cp "$kept" "$out"
    return
  fi
  ffmpeg -nostdin -v error -y -i "$in" "$@" "$out" || return
  mkdir -p "$SETTLE_TEST_CACHE" && cp "$out" "$kept.$$" && mv "$kept.$$" "$kept"
}

# screens_vp8 IN OUT: IN in VP8 as scripts/screens-grid encodes it.
screens_vp8() {
  encode "$1" "$2" -c:v libvpx -crf 30 -b:v 600k -deadline good -cpu-used 8 -pix_fmt yuv420p
}

# screens_vp9 IN OUT: IN in VP9 as scripts/screens-grid encodes it.
screens_vp9() {
  encode "$1" "$2" -c:v libvpx-vp9 -crf 40 -b:v 0 -deadline good -cpu-used 4 -pix_fmt yuv420p
}

# screens_rects: the animated areas of r.json, one "x y width height" a line.
screens_rects() {
  grep -o '"animated_regions":\[[^]]*\]' r.json |
    grep -o '"x":[0-9]*,"y":[0-9]*,"width":[0-9]*,"height":[0-9]*' | sed 's/"[a-z]*"://g; s/,/ /g'
}

# screens_touches X Y W H: an area of r.json overlaps that rectangle, and
# every area does.
screens_touches() {
  local n=0 bad=0 x y w h
  while read -r x y w h; do
    n=$((n + 1))
    if [ "$x" -ge $(($1 + $3)) ] || [ $((x + w)) -le "$1" ] || [ "$y" -ge $(($2 + $4)) ] ||
      [ $((y + h)) -le "$2" ]; then
      bad=1
    fi
  done < <(screens_rects)
  [ "$n" -gt 0 ] && [ "$bad" = 0 ]
}

# screens_x264 CRF BFRAMES IN OUT: IN in H.264 as scripts/screens-grid
# encodes it, at CRF with up to BFRAMES B-frames.
screens_x264() {
  encode "$3" "$4" -c:v libx264 -crf "$1" -bf "$2" -pix_fmt yuv420p
}

# screens_answer FILE [OPTIONS...]: the stable frame of settle analyze
# --diff-threshold 200 (the grid's) with OPTIONS; r.json and err kept.
screens_answer() {
  local f=$1
  shift
  "$settle" analyze -q --diff-threshold 200 "$@" --json r.json "$f" 2>err
  sed -n 's/.*"stable_frame":\([0-9a-z]*\).*/\1/p' r.json
}

# done_testing: the plan line; exits 0 when every check passed.
done_testing() {
  echo "1..$((pass + fail))"
  [ "$fail" -eq 0 ]
}

# within FRAME TRUTH: FRAME (a JSON value) is TRUTH or the frame after it
# (the screens grid's one frame, on the late side).
within() {
  [ -n "$1" ] && [ "$1" != null ] && [ "$1" -ge "$2" ] && [ "$1" -le $(($2 + 1)) ]
}

# capture OUT ENCODE WHAT FRAMES ARGUMENT...: make_screens writes OUT's
# lossless source (OUT's name with .mkv) with FRAMES frames and the
# ARGUMENTs (its list of parts in ./parts), and ENCODE (screens_vp8,
# screens_vp9 or "screens_x264 CRF BFRAMES") encodes it into OUT; one check,
# named for WHAT.
capture() {
  local out=$1 enc=$2 what=$3
  shift 3
  "$make_screens" "${out%.*}.mkv" "$@" >parts && $enc "${out%.*}.mkv" "$out"
  check $? "make_screens and ffmpeg write $what"
}

# answer_is FILE WANT MESSAGE [OPTIONS...]: one check that the stable frame of
# FILE (screens_answer with OPTIONS) is WANT: a frame, "N+" for N or the frame
# after it (within), or null for not stable. The check's name gives the file,
# the options, MESSAGE, what was wanted and what came.
answer_is() {
  local f=$1 want=$2 msg=$3 got
  shift 3
  got=$(screens_answer "$f" "$@")
  case $want in
    *+) within "$got" "${want%+}" ;;
    *) [ "$got" = "$want" ] ;;
  esac
  check $? "$f${*:+ $*}: $msg (want ${want/%+/ or the frame after}, got ${got:-nothing})"
}

# named_only FILE WHAT X Y W H: one check that r.json (FILE's last answer)
# names an animated area over the rectangle X Y W H (WHAT is there), and none
# elsewhere.
named_only() {
  screens_touches "$3" "$4" "$5" "$6"
  check $? "$1: $2 named, and only it (want over $3,$4 ${5}x$6, got $(screens_rects | tr '\n' ' '))"
}
