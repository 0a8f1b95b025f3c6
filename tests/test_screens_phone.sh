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

"$make_screens" caret.mkv 240 b0=10 b1=15 b2=25 b3=37 size=320x480 caret=3:16 >parts &&
  screens_vp8 caret.mkv caret.webm
check $? "make_screens and ffmpeg write the phone's caret, VP8"
got=$(screens_answer caret.webm)
within "$got" 37
check $? "caret.webm: frame 37, the content's last block (got $got)"
[ -z "$(screens_rects)" ]
check $? "caret.webm: no area named (got $(screens_rects | tr '\n' ' '))"

"$make_screens" fade.mkv 240 b0=6 b1=16 b2=27 b3=38 size=320x480 carousel=61:59 slide=9 >parts &&
  screens_vp9 fade.mkv fade.webm
check $? "make_screens and ffmpeg write the fading carousel, VP9"
got=$(screens_answer fade.webm --ignore animated)
within "$got" 38
check $? "fade.webm --ignore animated: frame 38, the content's last block (got $got)"
screens_touches 16 48 288 136
check $? "fade.webm: the carousel named, and only it (got $(screens_rects | tr '\n' ' '))"
got=$(screens_answer fade.webm)
[ -z "$got" ] || [ "$got" = null ]
check $? "fade.webm: not stable by default, the carousel turning in the last frame (got $got)"

done_testing
