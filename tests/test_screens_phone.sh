#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20, the eighteenth pass (doc/screens.md): two answers an encoder made
# wrong on a phone (320x480), on captures of scripts/screens-grid's seed 167.
# - A caret (2x20, under --diff-threshold 200) whose blinks VP8 codes with a
#   faint re-coding of the page that puts diff over the threshold (039): the
#   default answer is the content's last block, as on a desktop page since
#   screens16. On main before: 131 for 37.
# - A fading carousel in VP9 whose last turn begins two frames before the
#   end (031): VP9 re-codes the page faintly in those two fade steps, as in
#   every fade's; the turn cut short by the end is a turn for that rule, so
#   the carousel is named and --ignore animated answers the content's last
#   block. On main before: nothing named, not stable.
# Skips (77) without the ffmpeg program or its libvpx and libvpx-vp9 encoders.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libvpx libvpx-vp9

capture caret.webm screens_vp8 "the phone's caret, VP8" \
  240 b0=10 b1=15 b2=25 b3=37 size=320x480 caret=3:16
answer_is caret.webm 37+ "frame 37, the content's last block"
[ -z "$(screens_rects)" ]
check $? "caret.webm: no area named (got $(screens_rects | tr '\n' ' '))"

capture fade.webm screens_vp9 "the fading carousel, VP9" \
  240 b0=6 b1=16 b2=27 b3=38 size=320x480 carousel=61:59 slide=9
answer_is fade.webm 38+ "frame 38, the content's last block" --ignore animated
named_only fade.webm "the carousel" 16 48 288 136
answer_is fade.webm null "not stable by default, the carousel turning in the last frame"

done_testing
