#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20: a spinner whose steps keep the blocks' means. The grid's spinner
# (a pattern of 3x5 stripes that swap every frame, 0 and 90 levels) changes
# about 1600 pixels by 90 levels in every frame, under the strong level (96),
# and a 16x16 block holds as much of each stripe before and after: the block
# test sees no content. On a phone's picture the "re-encoded phone picture"
# rule took such frames for an encoder re-coding the still page and answered
# the last block's frame, in a lossless capture that no encoder re-coded. A
# change that takes a 4x4 square's mean SETTLE_CELL_MOVED levels away moved
# the picture there: such frames are changes for that rule too
# (src/cells.c, settle_cells_moved_pixels; src/decide.c). Capture 025 of
# scripts/screens-grid's seed 107 (FFV1, as make_screens writes it; on main
# before: frame 29).
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2"

# A phone (320x480): blocks at 9, 13, 22 and 29 (the content's truth); the
# spinner (140,380,40,40) spins from frame 6 to the end.
"$make_screens" spin.mkv 240 b0=9 b1=13 b2=22 b3=29 size=320x480 spinner=6:100000 >parts
check $? "make_screens writes the spinner on a phone, FFV1"
answer_is spin.mkv null "not stable, the spinner spins to the end"
grep -o '"animated_regions":\[[^]]*\]' r.json | grep -q '"x":140,"y":380,"width":40,"height":40'
check $? "spin.mkv: the spinner is named: $(grep -o '"animated_regions":\[[^]]*\]' r.json)"
answer_is spin.mkv 29 "frame 29, the last block" --ignore animated

done_testing
