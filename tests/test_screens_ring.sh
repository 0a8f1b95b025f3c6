#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20: a carousel whose cells changed more often than a cell's ring of
# changes holds (32), searched on its moves alone. The view of a cell's moves
# keeps its older changes counted, not held, and put its kept moves at the
# ring's latest slots; the slots before them still held changes of the cell
# as a whole, which the search read as moves: a pause of minus some frames
# between two of them, so the carousel's cells no longer changed in bursts,
# drove no turn, and the cells of a slide shown in some turns only (not
# animated by their own rule) kept their changes of the turn that nothing
# else drove as the rest's. Each cell now says how many of its ring's slots
# hold no change of the view (src/animated.h, SettleAnimCell.lost). Capture
# 038 of scripts/screens-grid's seed 107 (a fading carousel in VP8 whose
# three slides' pictures lie at different places; on main before: --ignore
# animated 106, the end of a turn of the third picture, which was not named).
# Skips (77) without the ffmpeg program or its libvpx encoder.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx

# A phone (320x480): blocks at 9, 20, 31 and 35 (the truth); the carousel
# (16,48,288,136) fades every 48 frames from 47 over 12 frames.
capture fade.webm screens_vp8 "the fading carousel on a phone, VP8" \
  240 b0=9 b1=20 b2=31 b3=35 size=320x480 carousel=47:48 slide=12
answer_is fade.webm 35+ "frame 35, the last block" --ignore animated
# named within the carousel, its third picture (x 216-286) too
areas=$(grep -o '"animated_regions":\[[^]]*\]' r.json)
screens_rects |
  awk '{ n++; if ($1 < 8 || $1 + $3 > 312 || $2 < 40 || $2 + $4 > 192) bad = 1
         if ($1 <= 216 && $1 + $3 >= 286) third = 1 }
       END { exit !(n && !bad && third) }'
check $? "fade.webm: the carousel is named, its third picture too: $areas"

done_testing
