#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20: encoders re-code the page long after the load, faintly, in frames
# in which the block test sees no content (VP8 on and off for the whole
# recording; x264 with B-frames 12 to 50 frames after a carousel's turn).
# Such a frame moves the page's pixels by a few levels either way, which
# leaves the blocks' means where they were: a cell's change in a frame with
# no strong pixel and no content for the block test counts only when it goes
# on from a change that counted in the frame before (src/animated.c,
# SETTLE_ANIM_BLANK); and with no animated area, --ignore animated decides
# again without what the encoder re-coded (src/lib.c, find_animated). The
# default answers do not read the cells and stay as they were.
# Skips (77) without the ffmpeg program or its libvpx and libx264 encoders.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx libx264

areas() {
  grep -o '"animated_regions":[^]]*]' r.json
}

# A caret blinking on a desktop page (640x360), 4x15 pixels, under the
# threshold's 200: no change that counts; the last block at frame 32. VP8
# re-codes parts of the page every few frames to the end (seed 11's capture
# 020 of scripts/screens-grid, shortened to 120 frames): --ignore animated
# answered 116 (nothing named, so nothing was decided again).
capture caret.webm screens_vp8 "the caret, VP8" 120 b0=12 b1=18 b2=28 b3=32 size=640x360 caret=6:16
got=$(screens_answer caret.webm)
[ "$got" -gt 32 ]
check $? "caret.webm: the default answer counts VP8's re-coding, as before (got $got)"
answer_is caret.webm 32 "frame 32, the last block" --ignore animated
[ "$(areas)" = '"animated_regions":[]' ]
check $? "caret.webm: nothing named: $(areas)"
grep -q '"deciding_change":{"x":3[0-9][0-9],"y":22[0-9],"width":27[0-9],"height":[45][0-9],[^}]*"frame":32}' r.json
check $? "caret.webm: the deciding change is the last block: $(grep -o '"deciding_change":[^}]*}' r.json)"

# A toast from frame 58 to 139 after the last block (frame 30), VP8, 640x360
# (seed 11's 009): the toast's going is the last change, but VP8's re-coding
# after it decided (146).
capture toast.webm screens_vp8 "the toast, VP8" 240 b0=8 b1=19 b2=23 b3=30 size=640x360 toast=58:139
answer_is toast.webm 139 "frame 139, the toast goes" --ignore animated
grep -q '"deciding_change":{"x":120,"y":321,"width":400,"height":27,[^}]*"frame":139}' r.json
check $? "toast.webm: the deciding change is the toast: $(grep -o '"deciding_change":[^}]*}' r.json)"

# A carousel sliding every 32 frames from frame 49 on a phone (320x480), the
# last block at 41, x264 CRF 32 with B-frames (seed 1's 029): x264 re-codes a
# patch of the content faintly in runs of frames 12 to 30 frames after a
# turn, where it re-coded nothing in the 12 frames before: --ignore animated
# answered 73.
capture slide.mp4 "screens_x264 32 3" "the sliding carousel, x264 CRF 32 with B-frames" \
  240 b0=15 b1=25 b2=35 b3=41 size=320x480 carousel=49:32 move=10
answer_is slide.mp4 41 "frame 41, the last block" --ignore animated
areas | grep -q '^"animated_regions":\[{"x":16,"y":48,"width":288,"height":144,[^]]*}\]$'
check $? "slide.mp4: the carousel is named, alone: $(areas)"

done_testing
