#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20: what keeps changing is what keeps moving the picture. VP9 re-codes
# the page below a fading carousel in the frames of its fades, faintly, so
# the page's cells changed in the carousel's rhythm, passed for animated by
# their own rule, and the area took them in: the last block's change (the
# content settling) was left out with the carousel and --ignore animated
# answered early, a frame before the last block. A run of a cell's changes
# that leaves its picture where it was (each 4x4 square's mean within
# SETTLE_ANIM_MOVED levels of where it was before the run) moved nothing:
# the areas are found on the cells' moves (src/animated.c,
# settle_animated_find). Captures 022 and 029 of scripts/screens-grid's
# seed 73 (on main before: 21 and 21). And with no area, in frames in which
# the block test saw content, VP8's re-coding of cells long after their last
# move no longer keeps the page from settling (seed 37's 020: a caret under
# the threshold, on main 72 for 38). Skips (77) without the ffmpeg program or
# its libvpx-vp9 and libvpx encoders.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx-vp9 libvpx

areas() {
  grep -o '"animated_regions":[^]]*]' r.json
}
# below Y: every area's rectangle ends above y = Y (the content below the
# carousel is not taken in)
below() {
  areas | grep -o '"y":[0-9]*,"width":[0-9]*,"height":[0-9]*' |
    awk -F'[:,]' -v y="$1" '{ if ($2 + $6 > y) bad = 1; n++ } END { exit !(n && !bad) }'
}

# A desktop page (640x360): the carousel (32,36,576,102) fades every 43
# frames from 51 over 9 frames; the blocks below it appear at 8, 12, 21 and
# 32 (the truth).
capture desk.webm screens_vp9 "the fading carousel on a desktop page, VP9" \
  240 b0=8 b1=12 b2=21 b3=32 size=640x360 carousel=51:43 slide=9
answer_is desk.webm 32+ "frame 32, the last block" --ignore animated
below 140
check $? "desk.webm: the carousel is named, without the blocks below it: $(areas)"

# A phone (320x480): the carousel (16,48,288,136) fades every 30 frames from
# 30 over 7 frames; the last block appears at 30 (the truth).
capture phone.webm screens_vp9 "the fading carousel on a phone, VP9" \
  240 b0=7 b1=15 b2=21 b3=30 size=320x480 carousel=30:30 slide=7
answer_is phone.webm 30+ "frame 30, the last block" --ignore animated
below 190
check $? "phone.webm: the carousel is named, without the content below it: $(areas)"

# A desktop page whose caret (4x15, under the threshold of 200 pixels) blinks
# every 16 frames from frame 8, the last block at 38, VP8: nothing is
# animated, and VP8 re-codes the page with the caret's blinks.
capture caret.webm screens_vp8 "the blinking caret, VP8" \
  240 b0=8 b1=14 b2=25 b3=38 size=640x360 caret=8:16
answer_is caret.webm 38+ "frame 38, the last block" --ignore animated

done_testing
