#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# settle record in real time: a lavfi source whose picture changes at a known
# time, one that never settles, and a real X program (tests/xapp) launched on a
# virtual X display (Xvfb, started and stopped here) whose content arrives at
# a known delay after it starts. The load time must match that delay within
# two frames, the recording must stop soon after the screen settled, the
# capture must be readable, ^C must keep it, and no launched process may be
# left. The X part is skipped (and says so) without Xvfb or the X program.
# Args: path of the settle program, path of xapp (or "none").
set -u
. "$(dirname "$0")/lib.sh"
settle=$(realpath "$1")
xapp=${2:-none}
[ "$xapp" != none ] && xapp=$(realpath "$xapp")
tmp=$(mktemp -d)
xpid=
cleanup() {
  [ -n "$xpid" ] && kill "$xpid" 2>/dev/null && wait "$xpid" 2>/dev/null
  [ -n "${KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1

# json_num KEY FILE: the number (or null) of a top-level key of a result
json_num() { sed -n "s/.*\"$1\":\([-0-9.enul]*\).*/\1/p" "$2" | head -1; }
# json_label KEY FILE
json_label() { sed -n "s/.*\"labels\":{[^}]*\"$1\":\"\([^\"]*\)\".*/\1/p" "$2"; }
# within A B TOL: |A - B| <= TOL
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
# le A B: A <= B
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# --- lavfi: grey, then a white box from 2.5 s on the source's clock ----------
graph='lavfi:color=c=gray:s=320x240:r=30,drawbox=x=40:y=40:w=200:h=120:c=white:t=fill:enable=gte(t\,2.5)'
expect_exit "lavfi: settles, exit 0" 0 "$settle" record -i "$graph" --pre-roll 1 --settle 1 \
  --tail 0.5 --max 10 -o lavfi --name box -- true
res=$(ls lavfi/box-*.json 2>/dev/null | head -1)
[ -n "$res" ] && [ -f lavfi/box.mkv ] && [ ! -e lavfi/box.mkv.part ]
check $? "lavfi: capture and result in -o: $(ls lavfi | tr '\n' ' ')"
launch=$(json_label launch "$res")
load=$(json_num load_time "$res")
within "$load" "$(awk -v l="$launch" 'BEGIN { print 2.5 - l }')" 0.034
check $? "lavfi: load time $load s counts from the launch ($launch s) to the box at 2.5 s"
within "$(json_num stable_time "$res")" 2.5 0.001
check $? "lavfi: stable at $(json_num stable_time "$res") s, want 2.5"
end=$(json_num duration "$res")
le "$end" "$(awk 'BEGIN { print 2.5 + 1 + 0.5 + 1 }')"
check $? "lavfi: recording ended at $end s, within --settle + --tail + 1 s of 2.5 s"
"$settle" analyze -q --settle 1 --start "$launch" --json again.json lavfi/box.mkv >/dev/null 2>&1
[ "$(json_num stable_time again.json)" = "$(json_num stable_time "$res")" ] &&
  [ "$(json_num frames again.json)" = "$(json_num frames "$res")" ]
check $? "lavfi: the capture, analysed again, gives the same frames and stable time: $(head -c 300 again.json)"

# --- stdin: the capture above as a Matroska stream, and as raw H.264 sent in
# real time (as adb exec-out screenrecord --output-format=h264 - sends it) ---
expect_exit "stdin matroska: exit 0" 0 "$settle" record -i - --pre-roll 1 --settle 1 --tail 0.5 \
  --max 10 -o stdin --name mkv -- true <lavfi/box.mkv
res=$(ls stdin/mkv-*.json 2>/dev/null | head -1)
within "$(json_num stable_time "$res")" 2.5 0.001 && [ -f stdin/mkv.mkv ]
check $? "stdin matroska: the stream's timestamps kept, stable at $(json_num stable_time "$res") s"
# a timing check on a shared machine gets a second attempt; both are shown
h264_run() {
  rm -rf stdin/h264*
  ffmpeg -nostdin -loglevel error -re -i lavfi/box.mkv -c copy -bsf:v h264_mp4toannexb \
    -flush_packets 1 -f h264 - 2>/dev/null |
    "$settle" record -i - --pre-roll 1 --settle 1 --tail 0.5 --max 10 -o stdin --name h264 \
      -- true >"$tmp/out" 2>"$tmp/err"
  got=$?
  res=$(ls stdin/h264-*.json 2>/dev/null | head -1)
  seen="$seen $(json_num stable_time "$res")"
  # the sender (ffmpeg -re) itself falls behind and catches up in a burst on
  # a loaded machine, so the arrival times honestly differ from the stream's
  # by more than a frame: 0.2 s, where stamping the demuxer's output instead
  # of the bytes' arrival put the box at 0.865 s
  [ "$got" -eq 0 ] && within "$(json_num stable_time "$res")" 2.5 0.2
}
if command -v ffmpeg >/dev/null; then
  seen=
  h264_run || h264_run
  check $? "stdin raw H.264 in real time: stamped on arrival, stable at$seen s (2.5 s sent), exit $got: $(head -c 200 "$tmp/err")"
else
  echo "ok # skip stdin raw H.264: no ffmpeg program to send a stream in real time"
fi

# --- v4l2: only where a capture device exists (none on our machines) --------
dev=$(ls /dev/video* 2>/dev/null | head -1)
if [ -n "$dev" ] && [ -r "$dev" ]; then
  "$settle" record -i "v4l2:$dev" --pre-roll 0.5 --max 2 -o v4l2 --name v -- true >"$tmp/out" 2>"$tmp/err"
  [ -f v4l2/v.mkv ]
  check $? "v4l2 $dev: a capture recorded: $(head -c 200 "$tmp/err")"
else
  echo "ok # skip v4l2: no /dev/video* device on this machine"
fi

# --- lavfi: a source that never settles: --max ends it, not stable -----------
blink='lavfi:color=c=gray:s=320x240:r=30,drawbox=x=40:y=40:w=80:h=80:c=white:t=fill:enable=lt(mod(t\,0.2)\,0.1)'
expect_exit "lavfi never settles: exit 1" 1 "$settle" record -i "$blink" \
  --pre-roll 0.5 --settle 1 --tail 0.5 --max 2 -o moving --name m -- true
res=$(ls moving/m-*.json 2>/dev/null | head -1)
[ -n "$res" ] && grep -q '"status":"not_stable"' "$res" && [ -f moving/m.mkv ]
check $? "lavfi never settles: result says not stable, capture kept: $(head -c 200 "$res")"
grep -q -- "--max reached" "$tmp/err"
check $? "lavfi never settles: says --max ended it: $(head -c 300 "$tmp/err")"

# --- lavfi: nothing ever changes after the launch: never stops before --max --
expect_exit "blank: exit 1" 1 "$settle" record -i lavfi:color=c=gray:s=320x240:r=30 \
  --pre-roll 0.5 --settle 0.5 --tail 0.2 --max 2.5 -o blank --name b -- true
res=$(ls blank/b-*.json 2>/dev/null | head -1)
le 2.9 "$(json_num duration "$res")" && grep -q '"status":"not_stable"' "$res"
check $? "blank: a screen that never changes runs to --max and is not stable: $(head -c 200 "$res")"

# --- ^C during the pre-roll: the capture kept, COMMAND never run ------------
"$settle" record -i lavfi:color=c=gray:s=320x240:r=30 --pre-roll 30 --max 10 -o early --name e \
  -- touch ran >early.out 2>early.err &
pid=$!
for _ in $(seq 100); do [ -e early/e.mkv.part ] && break; sleep 0.1; done
sleep 0.5
kill -INT "$pid"
wait "$pid"
got=$?
res=$(ls early/e-*.json 2>/dev/null | head -1)
[ "$got" -eq 130 ] && [ -f early/e.mkv ] && [ ! -e ran ] && grep -q '"status":"interrupted"' "$res" &&
  ! grep -q '"launch"' "$res"
check $? "^C in the pre-roll: exit $got, capture kept, COMMAND not run, no launch label: $(head -c 300 early.err)"

# --- usage errors ------------------------------------------------------------
expect_exit "no command: exit 64" 64 "$settle" record -i lavfi:color
one_line_naming "no command" "no COMMAND"
expect_exit "stdin with --repeat: exit 64" 64 "$settle" record -i - --repeat 2 -- true </dev/null
one_line_naming "stdin with --repeat" "--repeat"
expect_exit "bad input: exit 3" 3 "$settle" record -i nosuchformat:x -o bad -- true
one_line_naming "bad input" "nosuchformat"
expect_exit "command not found: exit 3" 3 "$settle" record -i lavfi:color=s=64x64 --pre-roll 0.2 \
  -o nocmd -- ./no-such-program
grep -q "no-such-program" "$tmp/err"
check $? "command not found: named: $(head -c 200 "$tmp/err")"

# --- a real X program on a virtual display -----------------------------------
if ! command -v Xvfb >/dev/null || [ "$xapp" = none ]; then
  echo "ok # skip X display tests: $(command -v Xvfb >/dev/null || echo 'no Xvfb (apt-get install xvfb)') $([ "$xapp" = none ] && echo 'xapp not built (libx11-dev)')"
  done_testing
  exit
fi
for n in $(seq 90 140); do
  [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] || { disp=":$n"; break; }
done
Xvfb "$disp" -screen 0 640x480x24 -nolisten tcp >xvfb.log 2>&1 &
xpid=$!
export DISPLAY=$disp
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${disp#:}" ] && break; sleep 0.1; done
[ -e "/tmp/.X11-unix/X${disp#:}" ]
check $? "Xvfb $disp started: $(head -c 200 xvfb.log)"

# gone PIDFILE: every process xapp noted (itself, its group, its child) is gone
gone() {
  local ok=0 p
  for p in $(awk '$1 == "start" { print $2, $4 }' "$1"); do
    [ "$p" -gt 0 ] && kill -0 "$p" 2>/dev/null && ok=1
  done
  for p in $(awk '$1 == "start" { print $3 }' "$1"); do
    kill -0 -- "-$p" 2>/dev/null && ok=1
  done
  return $ok
}
# truth PIDFILE K: run K's draw time minus its start time (seconds)
truth() { awk -v k="$2" '$1 == "start" { n++; s = $5 } $1 == "draw" && n == k { print $2 - s }' "$1"; }

# The issue's "done when": two runs, each stable, counted from the launch.
# xapp maps a grey window 300 ms after it starts and draws 500 ms later.
# On a loaded machine a late timeslice can cost a frame or two more: when a
# load time misses, the whole recording is made once more (both are shown).
repeat_timing() {
  local k res d
  for k in 1 2; do
    res=$(ls x11/app-run$k-*.json 2>/dev/null | head -1)
    [ -n "$res" ] || return 1
    d=$(awk -v a="$(json_num load_time "$res")" -v b="$(truth pids $k)" 'BEGIN { print a - b }')
    attempts="$attempts run $k: $d s;"
    le -0.034 "$d" && le "$d" 0.067 || return 1
  done
}
repeat_run() {
  rm -rf x11 pids
  expect_exit "x11: --repeat 2, exit 0" 0 "$settle" record --input "x11grab:$disp" --settle 1 \
    --tail 0.5 --repeat 2 --max 20 -o x11 --name app -- "$xapp" 300 500 --fork --pidfile pids
  repeat_timing
}
attempts=
repeat_run || { gone pids; check $? "x11: first attempt left no process"; echo "# again:$attempts"; repeat_run; }
cp "$tmp/out" x11.out
for k in 1 2; do
  res=$(ls x11/app-run$k-*.json 2>/dev/null | head -1)
  [ -n "$res" ] && grep -q '"status":"stable"' "$res" && grep -q "\"run\":\"$k\"" "$res"
  check $? "x11 run $k: stable result labelled run=$k: $(head -c 200 "$res")"
  load=$(json_num load_time "$res")
  want=$(truth pids $k)
  # the first picture after the draw comes up to a frame later; exec is not free
  d=$(awk -v a="$load" -v b="$want" 'BEGIN { print a - b }')
  le -0.034 "$d" && le "$d" 0.067
  check $? "x11 run $k: load time $load s, the app drew $want s after it started (diff $d s)"
  end=$(awk -v d="$(json_num duration "$res")" -v s="$(json_num stable_time "$res")" 'BEGIN { print d - s }')
  le "$end" 2.5
  check $? "x11 run $k: recording ended $end s after the stable frame (at most 1 + 0.5 + 1)"
  "$settle" analyze -q --settle 1 --start "$(json_label launch "$res")" --json again$k.json \
    "x11/app-run$k.mkv" >/dev/null 2>&1
  [ "$(json_num stable_frame again$k.json)" = "$(json_num stable_frame "$res")" ]
  check $? "x11 run $k: the capture reads back to the same stable frame: $(head -c 200 again$k.json)"
done
gone pids
check $? "x11: no launched process left: $(cat pids | tr '\n' ' ')"
grep -q "2 runs, 2 stable: load time median" x11.out
check $? "x11: summary of the two runs: $(cat x11.out | tr '\n' ' ')"

# A window that appears only 2.5 s after the launch: the blank screen before
# it is not quiet after loading began, so it does not end the recording.
late_run() {
  rm -rf pids late
  "$settle" record --input "x11grab:$disp" --settle 1 --tail 0.5 --max 20 -o late --name late \
    -- "$xapp" 2500 300 --pidfile pids >"$tmp/out" 2>"$tmp/err"
  got=$?
  res=$(ls late/late-*.json 2>/dev/null | head -1)
  load=$(json_num load_time "$res")
  d=$(awk -v a="$load" -v b="$(truth pids 1)" 'BEGIN { print a - b }')
  seen="$seen load $load s, drawn $(truth pids 1) s;"
  [ "$got" -eq 0 ] && le -0.034 "$d" && le "$d" 0.067
}
seen=
late_run || late_run
check $? "x11 late window: exit $got, the load time is the app's draw delay:$seen"

# An app that never settles: --max ends the run, not stable, nothing left.
rm -f pids
expect_exit "x11 animated: exit 1" 1 "$settle" record --input "x11grab:$disp" --settle 1 \
  --tail 0.5 --max 3 -o anim --name anim -- "$xapp" 200 200 --animate --fork --pidfile pids
res=$(ls anim/anim-*.json 2>/dev/null | head -1)
grep -q '"status":"not_stable"' "$res" && [ -f anim/anim.mkv ]
check $? "x11 animated: not stable, capture kept: $(head -c 200 "$res")"
gone pids
check $? "x11 animated: no launched process left: $(cat pids | tr '\n' ' ')"

# ^C in the middle: the capture so far is finished and kept, the result is
# partial, exit 130, no .part file and no launched process left.
for sig in INT TERM; do
  rm -f pids
  "$settle" record --input "x11grab:$disp" --settle 1 --tail 0.5 --max 30 -o "sig$sig" \
    --name s -- "$xapp" 200 200 --animate --fork --pidfile pids >"sig$sig.out" 2>"sig$sig.err" &
  pid=$!
  for _ in $(seq 100); do grep -q '^draw' pids 2>/dev/null && break; sleep 0.1; done
  sleep 0.5
  kill -"$sig" "$pid"
  wait "$pid"
  got=$?
  [ "$got" -eq 130 ]
  check $? "x11 SIG$sig: exit $got, want 130: $(head -c 300 "sig$sig.err")"
  res=$(ls "sig$sig"/s-*.json 2>/dev/null | head -1)
  [ -n "$res" ] && grep -q '"partial":true' "$res" && [ -f "sig$sig/s.mkv" ] &&
    [ ! -e "sig$sig/s.mkv.part" ]
  check $? "x11 SIG$sig: capture kept, result partial: $(ls "sig$sig" | tr '\n' ' ')"
  "$settle" analyze -q --json "sig$sig.json" "sig$sig/s.mkv" >/dev/null 2>&1
  f=$(json_num frames "sig$sig.json")
  w=$(sed -n 's/.*interrupted; \([0-9]*\) pictures .*/\1/p' "sig$sig.err" | head -1)
  # every picture written is in the capture; the pictures queued when the
  # signal came are written, not measured (how many depends on the load)
  [ -n "$f" ] && [ "$f" -gt 30 ] && [ "$f" = "$w" ] && le "$(json_num frames "$res")" "$f"
  check $? "x11 SIG$sig: the kept capture reads back ($f frames, $w written, $(json_num frames "$res") measured live)"
  gone pids
  check $? "x11 SIG$sig: no launched process left: $(cat pids | tr '\n' ' ')"
done

kill "$xpid"
wait "$xpid" 2>/dev/null
xpid=
done_testing
