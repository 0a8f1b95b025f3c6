#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Can valgrind run a program that loads settle's libraries on this CPU?
#
#   valgrind_probe.sh PROGRAM
#
# Runs `PROGRAM --version` under memcheck (PROGRAM is the built settle, which
# loads libavformat, libavcodec and everything they link) and answers:
#   exit 0   valgrind runs it: the valgrind pass must run.
#   exit 77  valgrind cannot: it stopped on an instruction it does not emulate
#            (SIGILL after "unhandled instruction bytes") in the initialiser of
#            a shared library, before main, as valgrind 3.19 does
#            on AMD Zen 4 in Highway's constructor (libhwy, linked by libjxl,
#            linked by libavcodec). One line on stdout says why and on which CPU.
#   exit 1   anything else (valgrind missing, PROGRAM failing, a memory error):
#            not a reason to skip; the pass runs and shows the problem itself.
# VALGRIND overrides the valgrind command (the probe's own test uses it).
set -u
prog=${1:?usage: valgrind_probe.sh PROGRAM}
vg=${VALGRIND:-valgrind}
out=$(mktemp "${TMPDIR:-/tmp}/settle-vgprobe.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT

# shellcheck disable=SC2086
$vg --tool=memcheck --error-exitcode=99 "$prog" --version >"$out" 2>&1
status=$?

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$cpu" ] || cpu=$(uname -m)

# SIGILL is signal 4: the shell reports 128 + 4 when valgrind dies of it, as
# valgrind does when the guest is killed by the signal it could not emulate.
# Only that, and only while the libraries load: the instruction stopped a
# shared library's initialiser (_dl_init, before main), and memcheck had found
# no error before it. A wild jump in settle's own code, a memory error or a
# SIGILL raised some other way is never a reason to skip.
if [ "$status" -eq 132 ] && grep -q "unhandled instruction bytes" "$out" &&
   grep -q "signal 4 (SIGILL)" "$out" &&
   sed -n '/Unrecognised instruction/,/^==[0-9]*== *$/p' "$out" | grep -q "_dl_init" &&
   grep -q "ERROR SUMMARY: 0 errors" "$out"; then
  where=$(sed -n 's/^==[0-9]*==[[:space:]]*at 0x[0-9A-Fa-f]*: \(.*\)$/\1/p' "$out" | head -n 1)
  vgv=$($vg --version 2>/dev/null | head -n 1)
  echo "${vgv:-valgrind} cannot run settle's libraries on this CPU ($cpu):" \
       "unhandled instruction${where:+ at $where}"
  exit 77
fi
if [ "$status" -eq 0 ]; then
  exit 0
fi
echo "valgrind probe: '$vg $prog --version' exited $status (not an unhandled instruction; the pass runs):"
tail -n 5 "$out"
exit 1
