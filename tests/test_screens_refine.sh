#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20 on VP8: VP8 codes content that appears coarsely and refines it
# faintly in the frames after: a block that appeared at frame 32 changed on
# until 36, which --ignore animated answered. A faint change next to a change
# that was mostly strong where nothing changed in the frame before, at most
# SETTLE_ANIM_REFINE frames after it, is the encoder's (src/animated.c,
# refining).
# Skips (77) without the ffmpeg program or its libvpx encoder.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx

# A carousel that switches every 45 frames from frame 40 on a phone (320x480),
# the last block at frame 32, VP8 as scripts/screens-grid encodes it (seed
# 29's capture 033).
capture switch.webm screens_vp8 "the switching carousel, VP8" \
  240 b0=8 b1=16 b2=22 b3=32 size=320x480 carousel=40:45
answer_is switch.webm 32 "frame 32, the last block" --ignore animated
grep -q '"animated_regions":\[{"x":16,"y":48,"width":288,"height":1[34][0-9],[^]]*}\]' r.json
check $? "switch.webm: the carousel is named, alone: $(grep -o '"animated_regions":[^]]*' r.json)"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
