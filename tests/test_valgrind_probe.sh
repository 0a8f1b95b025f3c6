#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# tests/valgrind_probe.sh skips the valgrind pass for exactly one reason: valgrind
# stopped on an instruction it does not emulate while a shared library loaded.
# Real valgrind on a program whose library runs an AVX-512 instruction in its
# initialiser (as libhwy runs RDTSCP on AMD Zen 4), on a memory error, and on a
# SIGILL the program raises itself; then a stand-in valgrind for the variants.
#   test_valgrind_probe.sh PROBE VICTIM SANITIZE
set -u
probe=$1 victim=$2 sanitize=$3
if [ -n "$sanitize" ] && [ "$sanitize" != none ]; then
  echo "skip: the victim is built with $sanitize, which valgrind cannot run"; exit 77
fi
command -v valgrind >/dev/null 2>&1 || { echo "skip: no valgrind"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/settle-vgprobe-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect CODE MODE [VALGRIND]: the probe's exit code for the victim in MODE
expect() {
  want=$1 mode=$2 VALGRIND=${3:-}
  SETTLE_PROBE_MODE=$mode VALGRIND=$VALGRIND "$probe" "$victim" >"$tmp/out" 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: mode $mode${VALGRIND:+ with $VALGRIND}: probe exited $got, expected $want"
    sed 's/^/  | /' "$tmp/out"
    fail=1
  else
    echo "ok: mode $mode${VALGRIND:+ with $(basename "$VALGRIND")}: exit $got $(head -n 1 "$tmp/out")"
  fi
}

expect 0 ok
expect 1 invalid
expect 1 sigill
vgv=$(valgrind --version)
case $(uname -m) in
x86_64)
  # valgrind translates the guest's code itself, so the AVX-512 instruction is
  # unhandled whatever the host CPU, until a valgrind learns AVX-512.
  case $vgv in
  valgrind-3.1[0-9]*|valgrind-3.2[0-2]*) expect 77 avx512
     grep -q "cannot run settle's libraries on this CPU" "$tmp/out" || { echo "FAIL: no reason line"; fail=1; }
     grep -q "vgprobe_init" "$tmp/out" || { echo "FAIL: the reason does not say where"; fail=1; } ;;
  *) echo "note: $vgv may emulate AVX-512; avx512 mode not checked" ;;
  esac ;;
*) echo "note: not x86_64; avx512 mode not checked" ;;
esac

# A stand-in valgrind prints a recorded transcript and dies as valgrind does.
fake() { # NAME STATUS: transcript in $tmp/NAME.txt
  cat >"$tmp/$1" <<EOS
#!/bin/sh
[ "\$1" = --version ] && { echo valgrind-3.19.0; exit 0; }
cat "$tmp/$1.txt" >&2
[ $2 -eq 132 ] && kill -ILL \$\$
exit $2
EOS
  chmod +x "$tmp/$1"
}
sig='vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20
==7== valgrind: Unrecognised instruction at address 0x5a1b2c3.
==7==    at 0x5A1B2C3: hwy::platform::TimerResolution() (in /usr/lib/x86_64-linux-gnu/libhwy.so.1.0.3)
==7==    by 0x400647D: call_init (dl-init.c:70)
==7==    by 0x400647D: _dl_init (dl-init.c:117)
==7== 
==7== Process terminating with default action of signal 4 (SIGILL)
==7==  Illegal opcode at address 0x5A1B2C3'
printf '%s\n==7== ERROR SUMMARY: 0 errors from 0 contexts\n' "$sig" >"$tmp/zen4.txt"
fake zen4 132
printf '%s\n==7== ERROR SUMMARY: 1 errors from 1 contexts\n' "$sig" >"$tmp/witherror.txt"
fake witherror 132
printf '%s\n==7== ERROR SUMMARY: 0 errors from 0 contexts\n' "$sig" | grep -v _dl_init >"$tmp/inmain.txt"
fake inmain 132
printf '%s\n==7== ERROR SUMMARY: 0 errors from 0 contexts\n' "$sig" >"$tmp/survived.txt"
fake survived 1
expect 77 ok "$tmp/zen4"
grep -q "valgrind-3.19.0 cannot run settle's libraries on this CPU (.*): unhandled instruction at hwy::platform::TimerResolution()" "$tmp/out" ||
  { echo "FAIL: reason line: $(cat "$tmp/out")"; fail=1; }
expect 1 ok "$tmp/witherror"
expect 1 ok "$tmp/inmain"
expect 1 ok "$tmp/survived"
exit $fail
