#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# --scale auto and inputs that cannot be read twice (issue 19): auto reduces a
# capture whose first frames look camera-like and reads it again at full size
# when the whole capture turns out clean. A FIFO cannot be read again (opening
# it a second time waits for a writer that never comes), so auto must measure
# it at full size from the start: the same answer as the file's, and no hang.
# Uses ../shared/realdata (skips, 77, when absent): visualmetrics'
# lemons_video (read again as a file) and Eideticker's startup-test-elmo
# (reduced as a file). Args: the settle program, the source root.
set -u
. "$(dirname "$0")/lib.sh"
settle=$(realpath "$1")
real=$2/../shared/realdata
lemons=$real/visualmetrics/lemons_video.mp4
elmo=$real/eideticker/startup-test-elmo.webm
[ -f "$lemons" ] && [ -f "$elmo" ] || { echo "1..0 # SKIP no ../shared/realdata"; exit 77; }
lemons=$(realpath "$lemons")
elmo=$(realpath "$elmo")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1

# field NAME FILE: a JSON number or boolean of the first object, or "null"
field() { sed -n "s/.*\"$1\":\([0-9a-z.]*\).*/\1/p" "$2" | head -n 1; }

# through FILE TAG: analyze FILE as a file, then through a FIFO
through() {
  "$settle" analyze -q --json "$2-file.json" "$1" 2>"$2-file.err"
  rm -f fifo && mkfifo fifo
  (cat "$1" >fifo &)
  timeout 120 "$settle" analyze -q --json "$2-fifo.json" fifo 2>"$2-fifo.err"
  echo $?
}

rc=$(through "$lemons" lemons)
test "$rc" != 124; check $? "lemons through a FIFO ends (exit $rc)"
grep -q '"read_again":true' lemons-file.json; check $? "lemons as a file is read again at full size"
! grep -q '"measured_scale":{' lemons-fifo.json
check $? "lemons through a FIFO is measured at full size, not read again"
test "$(field stable_frame lemons-file.json)/$(field frames lemons-file.json)" = \
  "$(field stable_frame lemons-fifo.json)/$(field frames lemons-fifo.json)"
check $? "lemons: the same answer either way"

rc=$(through "$elmo" elmo)
test "$rc" = 0; check $? "elmo through a FIFO ends (exit $rc)"
grep -q '"factor":2' elmo-file.json; check $? "elmo as a file is reduced by 2"
test "$(field stable_frame elmo-fifo.json)" = 378; check $? "elmo through a FIFO: frame 378 at full size"
done_testing
