#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20: the default answer on a desktop page that an encoder re-codes
# long after the last change. VP8 and VP9 refresh the page now and then and
# re-code it faintly in frames of their own (thousands of pixels by a few
# levels: no pixel beyond the strong level, no 4x4 square's mean moved by 40
# levels, no block's mean moved), and x264 with B-frames catches up on a
# spinner's last step so; diff counted those frames and answered late. On an
# inter-coded capture (not all keyframes) such a frame is the encoder's unless
# it follows a change that counted in the frame before (the encoder finishing
# that change: it stays within a frame of it), and only when a frame still as
# measured follows the last change that counts (src/decide.c). Captures of
# scripts/screens-grid's seeds 107 and 113 (on main before: 135, 232, 53 and
# 238); a lossless copy of the toast answers as before. Skips (77) without
# the ffmpeg program or its libvpx, libvpx-vp9 and libx264 encoders.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx libvpx-vp9 libx264

# within ANSWER TRUTH: the answer is the truth or a frame after it

# A toast (120,321,400,27) from 56 to 103 after blocks at 14, 25, 31, 39, in
# VP8: the encoder re-codes the page at 113 and 135 (70000 pixels, faintly).
capture toast.webm screens_vp8 "the toast, VP8" \
  240 b0=14 b1=25 b2=31 b3=39 size=640x360 toast=56:103
answer_is toast.webm 103+ "frame 103, the toast's last change"
answer_is toast.mkv 103 "frame 103 as before (FFV1, lossless)"

# A switching carousel whose last turn is at 202, in VP8: re-coded at 206,
# 211 and 232.
capture switch.webm screens_vp8 "the switching carousel, VP8" \
  240 b0=11 b1=18 b2=26 b3=36 size=640x360 carousel=64:46
answer_is switch.webm 202+ "frame 202, the carousel's last turn"

# A spinner that stops at 49 (its last fading step), x264 CRF 32 with
# B-frames, which re-codes the spinner's place faintly at 53.
capture spin.mp4 "screens_x264 32 3" "the stopping spinner, x264 with B-frames" \
  240 b0=14 b1=26 b2=38 b3=46 size=640x360 spinner=2:46
answer_is spin.mp4 49+ "frame 49, the spinner's last step"

# A fading carousel whose last step is at 236, in VP9, re-coded faintly in
# the two frames after it: the frame right after goes on from the step (the
# encoder finishing it), the next is the encoder's.
capture fade.webm screens_vp9 "the fading carousel, VP9" \
  240 b0=7 b1=13 b2=23 b3=35 size=640x360 carousel=14:53 slide=11
answer_is fade.webm 236+ "frame 236, the carousel's last step"

done_testing
