#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20 on encoded captures: make_screens draws the truth losslessly, the
# ffmpeg program re-encodes it as a screen recorder would, and --ignore
# animated must still give the content's frame. Encoders spill a moving
# area's change into the cells around it in some of its frames only (ringing,
# the macroblocks it straddles, B-frames catching up), which passed for the
# rest of the page changing late (src/animated.c, spill). Skips (77) without
# the ffmpeg program or its encoders. scripts/screens-grid measures more.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libx264 mjpeg
opts=(--diff-threshold 200)

# answer FILE: "stable_frame animated_areas" of the default run, then of
# --ignore animated
answer() {
  "$settle" analyze -q "${opts[@]}" "$@" --json r.json "$file" 2>err
  sed -n 's/.*"stable_frame":\([0-9a-z]*\).*/\1/p' r.json
}

# A carousel whose turns fade (the lead's case): blocks at 10-40, the truth
# frame 40; its three pictures change in some turns only. x264 CRF 32 with
# B-frames, portrait.
capture fade.mp4 "screens_x264 32 3" "the fading carousel, x264 CRF 32 with B-frames" \
  240 b0=10 b1=20 b2=30 b3=40 carousel=60:45 slide=8
file=fade.mp4
got=$(answer)
[ "$got" = 202 ]
check $? "fade.mp4: the default answer is the carousel's last turn, frame 202 (got $got)"
grep -q '"animated_regions":\[{"x":3[0-9],"y":[67][0-9],' r.json
check $? "fade.mp4: the carousel is named: $(grep -o '"animated_regions":[^]]*' r.json)"
got=$(answer --ignore animated)
[ "$got" = 40 ]
check $? "fade.mp4 --ignore animated: frame 40, the last block (got $got)"

# The same on a desktop page (640x360) in MJPEG: the three pictures are apart
# (no cell joins them), the third changes in some turns only.
"$make_screens" wide.mkv 240 b0=7 b1=18 b2=23 b3=34 size=640x360 carousel=21:59 slide=6 >parts &&
  ffmpeg -nostdin -v error -y -i wide.mkv -c:v mjpeg -q:v 4 -pix_fmt yuvj420p wide-mjpeg.mkv
check $? "make_screens and ffmpeg write the fading carousel on a desktop page, MJPEG"
file=wide-mjpeg.mkv
got=$(answer --ignore animated)
[ "$got" = 34 ]
check $? "wide-mjpeg.mkv --ignore animated: frame 34, the last block (got $got)"

# A carousel whose turns slide the next slide in (640x360, x264 CRF 23, no
# B-frames): while a slide moves, x264 re-quantizes the striped content below
# it, faintly (under 32 levels, where the slides move by over 128), in the
# frames of every turn, so the content's cells changed in each turn, the
# animated set covered the page and nothing was named; --ignore animated gave
# the last turn (221). A frame whose strong change (a pixel beyond the strong
# tolerance) lies in one part of the picture and outweighs its faint ones is
# the encoder re-coding around it: its faint cells do not count
# (src/animated.c, settle_animated_recoded).
capture slide.mp4 "screens_x264 23 0" "the sliding carousel, x264 CRF 23" \
  240 b0=15 b1=25 b2=37 b3=49 size=640x360 carousel=51:40 move=11
file=slide.mp4
got=$(answer --ignore animated)
[ "$got" = 49 ]
check $? "slide.mp4 --ignore animated: frame 49, the last block (got $got)"
grep -q '"animated_regions":\[{"x":3[0-9],"y":3[0-9],"width":5[6-9][0-9],"height":1[01][0-9],[^]]*}\]' r.json
check $? "slide.mp4: the carousel is named, alone: $(grep -o '"animated_regions":[^]]*' r.json)"

# A status-bar clock ticking every second, x264 CRF 23 with B-frames.
capture clock.mp4 "screens_x264 23 3" "the clock, x264 CRF 23" \
  150 b0=5 b1=15 b2=25 b3=40 clock=15:30
file=clock.mp4
answer >got
grep -q '"animated_regions":\[{"x":2[56][0-9],"y":[0-9],' r.json
check $? "clock.mp4: the clock is named: $(grep -o '"animated_regions":[^]]*' r.json)"
got=$(answer --ignore animated)
[ "$got" = 40 ]
check $? "clock.mp4 --ignore animated: frame 40 (got $got)"

# A spinner that never stops, MJPEG: every frame changes about as many pixels,
# which looked like a camera's noise (the block method then answered when the
# spinner appeared). It changes in one small place: a clean capture, not
# stable by default, the spinner named, and --ignore animated gives the
# content's frame (doc/screens.md).
"$make_screens" spin.mkv 150 b0=8 b1=16 b2=24 b3=32 spinner=6:100000 >parts &&
  ffmpeg -nostdin -v error -y -i spin.mkv -c:v mjpeg -q:v 4 -pix_fmt yuvj420p spin-mjpeg.mkv
check $? "make_screens and ffmpeg write the spinner that never stops, MJPEG"
file=spin-mjpeg.mkv
got=$(answer)
[ "$got" = null ] && grep -q '"method":"diff"' r.json
check $? "spin-mjpeg.mkv: the diff method, not stable (got $got, $(grep -o '"method":"[a-z]*"' r.json))"
grep -q '"animated_regions":\[{"x":1[34][0-9],"y":3[67][0-9],' r.json
check $? "spin-mjpeg.mkv: the spinner is named: $(grep -o '"animated_regions":[^]]*' r.json)"
got=$(answer --ignore animated)
[ "$got" = 32 ]
check $? "spin-mjpeg.mkv --ignore animated: frame 32 (got $got)"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
