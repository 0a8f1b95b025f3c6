#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20: VP8 re-codes, with a caret's blink, parts of the page that no
# change ever moved. The caret (4x15, under the threshold of 200 pixels) is
# nothing animated; the block test sees its blink as content (one block), so
# with no area such a frame counts unless what changed in it, but the
# encoder's late re-coding, is under the threshold. VP8 re-codes a band of the
# page's top and a few spots with the blinks at 135 and 167, faintly (4x4
# squares' means by 5 levels), cells whose first change after the start was
# a refresh: they had no move to be "late" after, and the frame counted. A
# cell that no change has moved (SETTLE_ANIM_MOVED) nor changed strongly,
# whose change the encoder rules take for the encoder's, is that late
# re-coding too (src/animated.c, settle_animated_spool). Capture 000 of
# scripts/screens-grid's seed 31 (on main before: 135 for 30). Skips (77)
# without the ffmpeg program or its libvpx encoder.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx

# A desktop page (640x360): blocks at 10, 18, 25 and 30 (the truth); the
# caret (80,288,4,15) blinks every 16 frames from frame 7.
capture caret.webm screens_vp8 "the blinking caret, VP8" \
  240 b0=10 b1=18 b2=25 b3=30 size=640x360 caret=7:16
answer_is caret.webm 30+ "frame 30, the last block" --ignore animated
grep -q '"animated_regions":\[\]' r.json
check $? "caret.webm: nothing is named: $(grep -o '"animated_regions":[^]]*]' r.json)"
# The default answer (screens16, src/decide.c): a blink's frame counts 60
# strong pixels in one block, under the threshold, and the page VP8 re-codes
# with it; such a frame is the encoder's on a desktop page (on main before:
# 167, the blink at 167 with 6381 pixels re-coded)
answer_is caret.webm 30+ "frame 30 by default too"

done_testing
