#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20: a carousel's turns claim only what turned. A carousel's cells
# change turn after turn; content that appears while the carousel makes its
# first turn (the page still loading), or that the encoder re-codes in the
# frames of one turn, changed in that turn only: it is the rest of the page's,
# not the carousel's, and no turn's extent spreads over it (src/animated.c,
# turns_fill). And the encoder finishing a turn's last step a frame after it
# (VP8 refining a fade) is the turn's (turn_changes).
# Skips (77) without the ffmpeg program or its libvpx and libx264 encoders.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx libx264

areas() {
  grep -o '"animated_regions":[^]]*]' r.json
}

# A carousel on a phone (320x480, 16,48,288,136) sliding every 50 frames from
# frame 26, over 11 frames, while the last blocks appear below it at 28 and
# 32 (seed 61's 044 of scripts/screens-grid, shortened to 150 frames), x264
# CRF 23 with B-frames: the first turn's extent took in the blocks, so the
# area was named as 16,46,290,322 and --ignore animated answered 16, early.
capture slide.mp4 "screens_x264 23 3" "the sliding carousel, x264 CRF 23 with B-frames" \
  150 b0=8 b1=16 b2=28 b3=32 size=320x480 carousel=26:50 move=11
answer_is slide.mp4 32 "frame 32, the last block" --ignore animated
areas | grep -q '^"animated_regions":\[{"x":16,"y":4[0-9],"width":28[89],"height":1[34][0-9],[^]]*}\]$'
check $? "slide.mp4: the carousel is named, alone, without the blocks below it: $(areas)"

# A carousel fading every 49 frames from frame 52, over 12 frames, the last
# block at 30, VP8 (seed 37's 039), answered by the block test: VP8 refines
# each fade's last step a frame after it, which settled the rest of the page
# after the second turn (113): the area took in the content below the
# carousel and --ignore animated answered 112.
capture fade.webm screens_vp8 "the fading carousel, VP8" \
  240 b0=9 b1=14 b2=18 b3=30 size=320x480 carousel=52:49 slide=12
answer_is fade.webm 30 "frame 30, the last block" --ignore animated
# one area, within the carousel (16,48,288,136; since screens11 the slides'
# pictures that the fades move, 32,64,256,96)
screens_rects |
  awk '{ n++; if ($1 < 10 || $2 < 40 || $1 + $3 > 310 || $2 + $4 > 192) bad = 1 }
       END { exit !(n == 1 && !bad) }'
check $? "fade.webm: the carousel is named, alone, without the content below it: $(areas)"

done_testing
