#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20: a carousel whose turns fade, re-encoded as screen recorders do
# (VP9; x264 CRF 32 with B-frames). A fade's steps are faint (no pixel beyond
# the strong tolerance), and in those frames the encoder re-codes the page
# below the carousel as faintly, so the strong count cannot tell them apart:
# the page's cells changed in every turn, the rest of the picture settled
# late and --ignore animated answered a turn (86 for 35 on the VP9 capture
# below; src/animated.c, busy_fill). Drawn with make_screens (the truth: the
# last block's frame), encoded with the ffmpeg program as
# scripts/screens-grid does (its seed 1, capture 019). Skips (77) without the
# ffmpeg program or its libvpx-vp9 encoder.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx-vp9

# stable_frame of `settle analyze --diff-threshold 200 OPTIONS... FILE`
answer() {
  local file=${*: -1}
  "$settle" analyze -q --diff-threshold 200 "${@:1:$#-1}" --json r.json "$file" 2>err
  sed -n 's/.*"stable_frame":\([0-9a-z]*\).*/\1/p' r.json
}

# Portrait, the blocks at 14-35 (the truth frame 35; VP9 finishes the last
# block in the next frame), a carousel from frame 45 turning every 35 frames
# in 7 faint steps, VP9 at CRF 40.
capture fade.webm screens_vp9 "the fading carousel, VP9" \
  240 b0=14 b1=18 b2=22 b3=35 size=320x480 carousel=45:35 slide=7
got=$(answer fade.webm)
[ "$got" = 226 ]
check $? "fade.webm: the default answer is the carousel's last turn, frame 226 (got $got)"
grep -q '"animated_regions":\[{"x":3[0-9],"y":6[0-9],' r.json
check $? "fade.webm: the carousel is named: $(grep -o '"animated_regions":[^]]*' r.json)"
got=$(answer --ignore animated fade.webm)
[ "$got" = 35 ] || [ "$got" = 36 ]
check $? "fade.webm --ignore animated: frame 35 or 36, the last block (got $got)"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
