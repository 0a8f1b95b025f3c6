#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 19, tail38 (doc/accuracy.md): a desktop carousel's last turn a few
# frames before the recording's end, which the encoder goes on refining to
# the end, faintly and where the turn drew (held-out screens seed 273):
# - x264 at CRF 32 with B-frames codes the switch at frame 237 in a B-frame
#   from the P-frame at 239, which sharpens it (8,399 pixels by up to 78
#   levels, no pixel beyond the strong level, no block);
# - VP9 fades the next slide in over frames 226-233 and refines it to the
#   end (frames 234-239: 574 to 3,520 pixels by up to 30 levels).
# With --diff-threshold 200 (the grid's) both were "still changes in the last
# frame": diff without the encoder's frames needed a still frame after the
# last change, or 0.5 s of them (RECODE_TAIL). A lossless capture stopped
# that close to its last change is answered (with the short-tail warning),
# and so are these now. A turn that is still moving at the end, or fading in
# faint steps, stays not stable. On main before: the checks of the two answers
# and of the reason fail.
# Skips (77) without the ffmpeg program or its libx264, libvpx-vp9 and libvpx.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libx264 libvpx-vp9 libvpx

capture switch.mp4 "screens_x264 32 3" "the switching carousel, x264 CRF 32 with B-frames" \
  240 b0=11 b1=17 b2=29 b3=38 size=640x360 carousel=21:54
answer_is switch.mp4 237+ "frame 237, the carousel's last turn, refined by x264 to the end"
capture fade.webm screens_vp9 "the fading carousel, VP9" \
  240 b0=15 b1=24 b2=31 b3=35 size=640x360 carousel=61:33 slide=8
answer_is fade.webm 233+ "frame 233, the end of the carousel's last fade, refined by VP9 to the end"
grep -q 'refining what the changes up to it drew' r.json
check $? "fade.webm: the reason says the encoder refines the last change"
# still moving at the end: the next slide slides in over frames 232-241
capture moving.mp4 "screens_x264 32 3" "a carousel sliding at the end, x264 CRF 32 with B-frames" \
  240 b0=11 b1=17 b2=29 b3=38 size=640x360 carousel=178:54 move=10
answer_is moving.mp4 null "not stable: the carousel still slides in the last frame"
# still fading at the end, in steps of 6 to 11 levels (frames 220-249;
# VP8 re-codes each step: in x264 and VP9 the rule for a last frame that
# only finishes the change before it answers 238, before and after tail38)
capture slow.webm screens_vp8 "a carousel fading slowly at the end, VP8" \
  240 b0=15 b1=24 b2=31 b3=35 size=640x360 carousel=160:60 slide=30
answer_is slow.webm null "not stable: the carousel still fades in the last frame"

done_testing
