#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Every kind of output path (issue 17): regular files and new paths replaced
# through a temporary name; device nodes, FIFOs and /dev/fd/N written in place;
# symbolic links followed, never replaced; failures (a full device, a full or
# read-only file system) said in one line with exit 4 and nothing left behind;
# outputs that name an input refused before anything is opened.
# The devices are private nodes made with mknod in a scratch folder, never the
# machine's own /dev entries. Args: path of the settle program, the source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
src=$2
tmp=$(mktemp -d)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  chmod -R u+w "$tmp" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
settle=$(wrapped "$settle" "$tmp")
cp "$src/testdata/sample-startup.mp4" "$tmp/a.mp4" && cp "$tmp/a.mp4" "$tmp/b.mp4"
cd "$tmp" || exit 1
sum_a=$(cksum <a.mp4)
have_gnuplot=0
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=1

# no temporary file anywhere under the scratch folder
no_temp() {
  [ -z "$(find "$tmp" -name '*.tmp.*' 2>/dev/null)" ]
  check $? "$1: no temporary file left: $(find "$tmp" -name '*.tmp.*' | tr '\n' ' ')"
}

# --- device nodes: a null device and a full device (root only) -------------
if mknod null c 1 3 2>/dev/null && mknod full c 1 7 2>/dev/null; then
  for opt in --json --csv --report; do
    expect_exit "$opt to a null device" 0 "$settle" analyze -q $opt null a.mp4
    [ -c null ] && [ "$(stat -c '%t,%T' null)" = "1,3" ]
    check $? "$opt: the null device is still the null device: $(stat -c %F null)"
    expect_exit "$opt to a full device" 4 "$settle" analyze -q $opt full a.mp4
    one_line_naming "$opt to a full device" "$opt: full: No space left on device"
    [ -c full ] && [ "$(stat -c '%t,%T' full)" = "1,7" ]
    check $? "$opt: the full device is still the full device"
  done
  if [ $have_gnuplot -eq 1 ]; then
    expect_exit "--plot to a full device" 4 "$settle" analyze -q --plot full a.mp4
    one_line_naming "--plot to a full device" "full: No space left on device"
    [ -c full ]
    check $? "--plot: the full device is still a device"
  fi
  # stdout on a full device: the summary line and --json - are not lost silently
  expect_exit "summary line to a full stdout" 4 sh -c '"$1" analyze a.mp4 >full' sh "$settle"
  one_line_naming "summary line to a full stdout" "stdout: No space left on device"
  expect_exit "--json - to a full stdout" 4 sh -c '"$1" analyze -q --json - a.mp4 >full' sh "$settle"
  one_line_naming "--json - to a full stdout" "--json: stdout: No space left on device"
  # compare's outputs
  "$settle" analyze -q --json r1.json a.mp4 && "$settle" analyze -q --json r2.json b.mp4
  expect_exit "compare --json to a full device" 4 "$settle" compare -q --min-n 1 --json full --baseline r1.json --candidate r2.json
  one_line_naming "compare --json to a full device" "--json: full: No space left on device"
  expect_exit "compare --markdown to a null device" 2 "$settle" compare -q --markdown null --baseline r1.json --candidate r2.json
  [ -c null ] && [ "$(stat -c '%t,%T' null)" = "1,3" ]
  check $? "compare: the null device is still the null device"
  # a symbolic link to a device: the device is written, the link kept
  ln -s null null-link
  expect_exit "--json through a link to the null device" 0 "$settle" analyze -q --json null-link a.mp4
  [ -L null-link ] && [ -c null ] && [ "$(stat -c '%t,%T' null)" = "1,3" ]
  check $? "the link is still a link, the null device still the null device"
  ln -s full full-link
  expect_exit "--csv through a link to the full device" 4 "$settle" analyze -q --csv full-link a.mp4
  one_line_naming "--csv through a link to the full device" "--csv: full-link: No space left on device"
  no_temp "devices"
else
  echo "# skipped the device nodes: mknod is not allowed here"
fi

# --- a FIFO with a reader: it gets the bytes, and stays a FIFO ---------------
mkfifo fifo
timeout 60 cat fifo >from-fifo &  # bounded: a settle that never opens it fails the test, not hangs it
reader=$!
expect_exit "--json to a FIFO" 0 "$settle" analyze -q --json fifo a.mp4
wait $reader
grep -q '"status":"stable"' from-fifo && [ -p fifo ]
check $? "the reader got the result, the FIFO is still a FIFO: $(head -c 80 from-fifo)"
timeout 60 cat fifo >from-fifo &  # bounded: a settle that never opens it fails the test, not hangs it
reader=$!
expect_exit "--csv to a FIFO" 0 "$settle" analyze -q --csv fifo a.mp4
wait $reader
head -1 from-fifo | grep -q '^frame,time' && [ -p fifo ]
check $? "the reader got the CSV"

# --- /dev/fd/N: the descriptor the shell opened, written in place ------------
expect_exit "--json /dev/fd/3" 0 sh -c '"$1" analyze -q --json /dev/fd/3 a.mp4 3>fd3.json' sh "$settle"
grep -q '"status":"stable"' fd3.json
check $? "/dev/fd/3: the result is in the file the shell opened"
out=$("$settle" analyze -q --json /dev/fd/3 a.mp4 3>&1 1>&2 | wc -l)
[ "$out" -eq 1 ]
check $? "/dev/fd/3 on a pipe: one line read from it ($out)"

# --- '-' and /dev/stdout: stdout, in place; the summary line moves to stderr --
expect_exit "--json - on a pipe" 0 sh -c '"$1" analyze --json - a.mp4 | cat' sh "$settle"
[ "$(wc -l <out)" -eq 1 ] && grep -q '^{"input":"a.mp4"' out && grep -q '^a.mp4: stable at' err
check $? "--json -: the JSON on stdout, the summary line on stderr"
expect_exit "--csv - into a file" 0 sh -c '"$1" analyze --csv - a.mp4 >csv-out' sh "$settle"
head -1 csv-out | grep -q '^frame,time' && [ "$(wc -l <csv-out)" -eq 136 ] && grep -q '^a.mp4: stable at' err
check $? "--csv -: 135 rows and the header in the file the shell opened: $(wc -l <csv-out)"
echo keep >stdout-file
expect_exit "--json /dev/stdout appended by the shell" 0 sh -c '"$1" analyze -q --json /dev/stdout a.mp4 >>stdout-file' sh "$settle"
[ "$(head -1 stdout-file)" = keep ] && sed -n 2p stdout-file | grep -q '"status":"stable"' && [ -f stdout-file ]
check $? "/dev/stdout: written in place, after what the file held"

# --- a socket: never replaced; opening it is an error named in one line -----
if python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' sock 2>/dev/null; then
  expect_exit "--json to a socket" 4 "$settle" analyze -q --json sock a.mp4
  one_line_naming "--json to a socket" "--json: sock: "
  [ -S sock ]
  check $? "the socket is still a socket: $(stat -c %F sock)"
fi

# --- symbolic links: the file they name is replaced, never the link ----------
echo old >target.json
ln -s target.json link.json
expect_exit "--json through a link" 0 "$settle" analyze -q --json link.json a.mp4
[ -L link.json ] && [ "$(readlink link.json)" = target.json ] && grep -q '"status":"stable"' target.json
check $? "the link is kept, the file it names holds the result"
mkdir -p sub
ln -s sub/later.html dangling.html
expect_exit "--report through a link to a file not yet there" 0 "$settle" analyze -q --report dangling.html a.mp4
[ -L dangling.html ] && grep -q '<html' sub/later.html
check $? "a dangling link: the file it names is made, the link kept"
chmod 640 target.json
expect_exit "--json over an existing file" 0 "$settle" analyze -q --json target.json a.mp4
[ "$(stat -c %a target.json)" = 640 ]
check $? "a replaced file keeps its mode: $(stat -c %a target.json)"
no_temp "links"

# --- outputs that name an input: refused before anything is opened -----------
for opt in --report --json --csv --plot; do
  expect_exit "$opt naming a capture" 64 "$settle" analyze $opt a.mp4 b.mp4
  one_line_naming "$opt naming a capture" "$opt: a.mp4 is a video"
  expect_exit "$opt naming the capture analysed" 64 "$settle" analyze $opt b.mp4 b.mp4
  one_line_naming "$opt naming the capture analysed" "$opt: b.mp4 is one of the inputs"
done
ln -s a.mp4 a-link.mp4
ln a.mp4 a-hard.mp4
for spelling in ./a.mp4 ../"$(basename "$tmp")"/a.mp4 a-link.mp4 a-hard.mp4 "$tmp/a.mp4"; do
  expect_exit "--json $spelling (the capture a.mp4)" 64 "$settle" analyze -q --json "$spelling" a.mp4
done
expect_exit "--csv %n.mp4 names each capture" 64 "$settle" analyze -q --csv '%n.mp4' a.mp4 b.mp4
expect_exit "--frames into the capture" 64 "$settle" analyze -q --frames a.mp4 a.mp4
expect_exit "-o into the capture" 64 "$settle" analyze -q -o a.mp4 a.mp4
[ "$(cksum <a.mp4)" = "$sum_a" ] && [ "$(cksum <b.mp4)" = "$sum_a" ]
check $? "no capture was modified"
"$settle" analyze -q --json r3.json b.mp4
expect_exit "compare --json naming an item" 64 "$settle" compare -q --json r3.json --baseline r3.json --candidate r3.json
grep -q '"status"' r3.json
check $? "compare: the result named as output is left as it was"
expect_exit "the same file for two outputs" 64 "$settle" analyze -q --json same.out --report same.out a.mp4
one_line_naming "the same file for two outputs" "same.out would be written twice"

# --- a value that looks like an option where a file belongs ------------------
expect_exit "--report --frames" 64 "$settle" analyze --report --frames fr a.mp4
one_line_naming "--report --frames" "--report: expected a file name, got '--frames'"
[ ! -e ./--frames ] && [ ! -e fr ]
check $? "no file named --frames, no folder fr"
expect_exit "--report ./-r.html" 0 "$settle" analyze -q --report ./-r.html a.mp4
grep -q '<html' ./-r.html
check $? "./-name still names a file"

# --- missing folders: made for every file option, before any capture is read --
expect_exit "--csv into missing folders" 0 "$settle" analyze -q --csv nodir/x/y.csv --json nodir2/j.json a.mp4
[ -s nodir/x/y.csv ] && [ -s nodir2/j.json ]
check $? "the folders of --csv and --json were made"
: >plain
expect_exit "a folder that cannot be made" 4 "$settle" analyze -q --csv plain/y.csv no-such-capture.mp4
one_line_naming "a folder that cannot be made, said before the capture is read" "--csv: plain/y.csv: Not a directory"
for opt in --json --report --plot --frames -o; do
  expect_exit "$opt: a folder that cannot be made" 4 "$settle" analyze -q $opt plain/sub/z no-such-capture.mp4
  one_line_naming "$opt: a folder that cannot be made, said before the capture is read" "$opt: plain/sub/z: Not a directory"
done
expect_exit "compare --markdown: a folder that cannot be made" 4 "$settle" compare -q --markdown plain/c.md --baseline nowhere --candidate nowhere
one_line_naming "compare: a folder that cannot be made, said before any item is read" "--markdown: plain/c.md: Not a directory"

# --- a full file system and a read-only one: a tiny tmpfs -------------------
mkdir small
if mount -t tmpfs -o size=512k tmpfs small 2>/dev/null; then
  mounts+=("$tmp/small")
  echo "previous report" >small/r.html
  dd if=/dev/zero of=small/filler bs=4k 2>/dev/null  # until the file system is full
  expect_exit "--report on a full file system" 4 "$settle" analyze -q --report small/r.html a.mp4
  one_line_naming "--report on a full file system" "--report: small/r.html: No space left on device"
  [ "$(cat small/r.html)" = "previous report" ] && [ -z "$(ls small | grep '\.tmp\.')" ]
  check $? "the previous file is intact, no temporary file: $(ls small | tr '\n' ' ')"
  # many files: -o and --frames, each failure named, no partial or temporary file
  expect_exit "-o on a full file system" 4 "$settle" analyze -q -o small/res --per-frame a.mp4 b.mp4
  [ "$(grep -c '^settle: -o: small/res/[ab]-[0-9a-f]*\.\(json\|csv\): No space left on device$' err)" -eq 4 ] &&
    [ "$(wc -l <err)" -eq 4 ]
  check $? "-o: one line for each file not written: $(head -1 err)"
  [ -z "$(ls small/res)" ]
  check $? "-o: no partial result: $(ls small/res | tr '\n' ' ')"
  expect_exit "--frames on a full file system" 4 "$settle" analyze -q --frames small/fr a.mp4
  grep -q '^settle: --frames: small/fr/a-start.png: No space left on device$' err && [ -z "$(ls small/fr)" ]
  check $? "--frames: the failures named, no partial picture: $(head -1 err) / $(ls small/fr | tr '\n' ' ')"
  if [ $have_gnuplot -eq 1 ]; then
    expect_exit "--plot on a full file system" 4 "$settle" analyze -q --plot small/p.png a.mp4
    one_line_naming "--plot on a full file system" "--plot: small/p.png: No space left on device"
    [ ! -e small/p.png ]
    check $? "--plot: no partial picture"
  fi
  "$settle" analyze -q --json r4.json a.mp4 && "$settle" analyze -q --json r5.json b.mp4
  expect_exit "compare --markdown on a full file system" 4 "$settle" compare -q --min-n 1 --markdown small/c.md --baseline r4.json --candidate r5.json
  one_line_naming "compare --markdown on a full file system" "--markdown: small/c.md: No space left on device"
  rm -f small/filler
  expect_exit "--report with room again" 0 "$settle" analyze -q --report small/r.html a.mp4
  grep -q '<html' small/r.html
  check $? "with room, the report replaces the previous file"
  mkdir ro
  if mount -t tmpfs -o size=64k,ro tmpfs ro 2>/dev/null; then
    mounts+=("$tmp/ro")
    expect_exit "--json in a read-only folder" 4 "$settle" analyze -q --json ro/x.json a.mp4
    one_line_naming "--json in a read-only folder" "--json: ro/x.json: Read-only file system"
  fi
  no_temp "full file system"
elif [ "$(id -u)" -ne 0 ]; then
  mkdir ro && chmod 555 ro
  expect_exit "--json in a read-only folder" 4 "$settle" analyze -q --json ro/x.json a.mp4
  one_line_naming "--json in a read-only folder" "--json: ro/x.json: Permission denied"
  echo "# skipped the full file system: mount is not allowed here"
else
  echo "# skipped the full and read-only file systems: mount is not allowed here"
fi
done_testing
