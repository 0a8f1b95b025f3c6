#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 20 on VP8, two causes (src/animated.c):
# - VP8 codes content that appears coarsely and refines it faintly in the
#   frames after: a block that appeared at frame 32 changed on until 36, which
#   --ignore animated answered. A faint change next to a change that was
#   mostly strong where nothing changed in the frame before, at most
#   SETTLE_ANIM_REFINE frames after it, is the encoder's (refining).
# - With no animated area, --ignore animated made no decision of its own and
#   answered as without it, VP8's re-coding of a refreshed page included;
#   with the diff method it now decides again without the encoder's changes.
# Skips (77) without the ffmpeg program or its libvpx encoder.
# Args: the settle program, make_screens.
set -u
. "$(dirname "$0")/lib.sh"
settle=$(realpath "$1")
make_screens=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
need_encoders libvpx
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1

vp8() {
  ffmpeg -nostdin -v error -y -i "$1" -c:v libvpx -crf 30 -b:v 600k -deadline good -cpu-used 8 \
    -pix_fmt yuv420p "$2"
}
# answer FILE [OPTIONS...]: the stable frame (r.json kept)
answer() {
  local f=$1
  shift
  "$settle" analyze -q --diff-threshold 200 "$@" --json r.json "$f" 2>err
  sed -n 's/.*"stable_frame":\([0-9a-z]*\).*/\1/p' r.json
}

# A carousel that switches every 45 frames from frame 40 on a phone (320x480),
# the last block at frame 32, VP8 as scripts/screens-grid encodes it (seed
# 29's capture 033).
"$make_screens" switch.mkv 240 b0=8 b1=16 b2=22 b3=32 size=320x480 carousel=40:45 >parts &&
  vp8 switch.mkv switch.webm
check $? "make_screens and ffmpeg write the switching carousel, VP8"
got=$(answer switch.webm --ignore animated)
[ "$got" = 32 ]
check $? "switch.webm --ignore animated: frame 32, the last block (got $got)"
grep -q '"animated_regions":\[{"x":16,"y":48,"width":288,"height":1[34][0-9],[^]]*}\]' r.json
check $? "switch.webm: the carousel is named, alone: $(grep -o '"animated_regions":[^]]*' r.json)"

# A toast over frames 58-138 on a desktop page (640x360), VP8 (seed 11's
# capture 009): not animated, so the answer is the toast's going, frame 139;
# VP8 re-codes the page after it up to frame 146.
"$make_screens" toast.mkv 240 b0=8 b1=19 b2=23 b3=30 size=640x360 toast=58:139 >parts &&
  vp8 toast.mkv toast.webm
check $? "make_screens and ffmpeg write the toast, VP8"
got=$(answer toast.webm)
[ "$got" = 146 ]
check $? "toast.webm: the default answer counts VP8's re-coding, frame 146, as before (got $got)"
got=$(answer toast.webm --ignore animated)
[ "$got" = 139 ]
check $? "toast.webm --ignore animated: frame 139, the toast's going (got $got)"
grep -q '"animated_regions":\[\]' r.json && grep -q '"animated_ignored":true' r.json
check $? "toast.webm: no area named, the decision made again: $(grep -o '"animated_[a-z]*":[^],]*' r.json | tr '\n' ' ')"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
