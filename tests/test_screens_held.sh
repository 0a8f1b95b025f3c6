#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20, the nineteenth pass (doc/screens.md): answers an encoder made
# wrong on a desktop page (640x360), on captures of scripts/screens-grid's
# held-out seeds 179 and 173.
# - A sliding carousel in VP9 (179's 022): VP9 refines what appeared (the
#   last block, each turn's slide) faintly for some ten frames, past the six
#   frames the refinement rule gave; a refinement now goes on while it moves
#   nothing, so the carousel is named and --ignore animated answers the
#   content's last block. On main before: nothing named, 230. (179's 003, a
#   clock, is the same rule: not made here, to keep the test short.)
# - A sliding carousel in x264 CRF 32 with B-frames (179's 039): after the
#   last turn (213) x264 flickers faintly between two codings of the page to
#   the end, with no still frame; the default answer is the turn's end. On
#   main before: not stable.
# - A fading carousel in VP9 that fades 10 frames in every 35 (173's 012):
#   its turns fill over a quarter of the recording, which passed for a page
#   moving. On main before: nothing named, not stable with --ignore animated.
# - A fading carousel in VP8 on a phone (320x480; seed 127's 023): VP8
#   re-codes the whole page in the fades' rhythm, so with the turns nothing
#   of the rest changes after the start and they are dropped, and without
#   them every cell is the rest's; the carousel's moves are now taken within
#   what the turns took in. On main before: nothing named, --ignore animated
#   233 for 32.
# - A sliding carousel in x264 CRF 32 with B-frames (seed 167's 036; the
#   screens21 pass): between the turns x264 flickers between its P-frames'
#   and B-frames' coding of the striped page, 187 and 1577 pixels in a
#   4-frame rhythm, which passed for a camera's noise (the block test
#   answered, nothing named, --ignore animated 201 for 30); counts that come
#   back exactly in a quarter of the frames are no camera's. On main before:
#   the block test, nothing named, 201.
# - A caret under the threshold in VP8 (seed 181's 044; the screens22 pass):
#   at frame 49 VP8 re-codes the page (45452 pixels, none strong) in the
#   frame of a blink (60 strong pixels, one block over its threshold); the
#   default answer leaves the frame out, and --ignore animated, with no
#   area, now does too (made 120 frames long: VP8 codes the first 95 as in
#   the grid's 240, at half the encoder's time). On main before: 49 for 39.
# - A fading carousel in VP9 (seed 167's 032; screens22): the slide picture
#   at the right third fades in and out in 2 of the 4 turns only, and VP9
#   refines it faintly for some 10 frames after the fade; those frames are
#   now the turn's, the right third is named with the rest of the carousel
#   and --ignore animated answers the content's frame. On main before: the
#   right third not named, 165 for 42.
# - A spinner that fades out and stops, x264 CRF 32 (seed 199's 030;
#   screens23): in the fade's last step (41) and the three frames after, x264
#   refines the content blocks that appeared 7 to 20 frames before, faintly,
#   one cell a frame, in frames where the block test saw no content; past the
#   six frames the refinement rule gave, they went on from the fade's step and
#   counted. In such frames a refinement now runs for SETTLE_ANIM_ECHO frames
#   (made 120 frames long: x264 codes the first 45 as in the grid's 240). On
#   main before: 44 for 41 with --ignore animated.
# Skips (77) without the ffmpeg program or its libx264, libvpx and libvpx-vp9
# encoders.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
screens_setup "$1" "$2" libx264 libvpx libvpx-vp9

capture slide.webm screens_vp9 "the sliding carousel, VP9" \
  240 b0=12 b1=23 b2=27 b3=38 size=640x360 carousel=25:39 move=11
answer_is slide.webm 38+ "frame 38, the content's last block" --ignore animated
named_only slide.webm "the carousel" 32 36 576 102

capture flicker.mp4 "screens_x264 32 3" "the sliding carousel, x264 CRF 32 with B-frames" \
  240 b0=14 b1=26 b2=32 b3=44 size=640x360 carousel=64:45 move=15
answer_is flicker.mp4 213+ "frame 213, the carousel's last turn"

capture fade.webm screens_vp9 "the fading carousel, VP9" \
  240 b0=8 b1=20 b2=25 b3=37 size=640x360 carousel=22:35 slide=10
answer_is fade.webm 37+ "frame 37, the content's last block" --ignore animated
named_only fade.webm "the carousel" 32 36 576 102

capture phone.webm screens_vp8 "the phone's fading carousel, VP8" \
  240 b0=10 b1=16 b2=26 b3=32 size=320x480 carousel=35:32 slide=7
answer_is phone.webm 32+ "frame 32, the content's last block" --ignore animated
named_only phone.webm "the carousel" 16 48 288 136

capture rhythm.mp4 "screens_x264 32 3" "the sliding carousel, x264 CRF 32 with B-frames (rhythm)" \
  240 b0=10 b1=19 b2=26 b3=30 size=640x360 carousel=21:55 move=16
answer_is rhythm.mp4 30+ "frame 30, the content's last block" --ignore animated
named_only rhythm.mp4 "the carousel" 32 36 576 102

capture caret.webm screens_vp8 "the caret under the threshold, VP8" \
  120 b0=6 b1=19 b2=30 b3=39 size=640x360 caret=1:16
answer_is caret.webm 39+ "frame 39, the content's last block" --ignore animated

capture third.webm screens_vp9 "the fading carousel whose right third turns in some turns, VP9" \
  240 b0=9 b1=21 b2=31 b3=42 size=640x360 carousel=53:54 slide=6
answer_is third.webm 42+ "frame 42, the content's last block" --ignore animated
named_only third.webm "the carousel" 32 36 576 102

capture stop.mp4 "screens_x264 32 0" "the spinner that fades out and stops, x264 CRF 32" \
  120 b0=14 b1=22 b2=27 b3=34 size=640x360 spinner=2:38
answer_is stop.mp4 41+ "frame 41, the spinner's last step" --ignore animated
[ -z "$(screens_rects)" ]
check $? "stop.mp4: nothing named (got $(screens_rects | tr '\n' ' '))"

done_testing
