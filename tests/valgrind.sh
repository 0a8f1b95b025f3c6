#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The wrapper of `meson test --setup valgrind`: runs a test program under
# memcheck. A shell-script test (test_cli.sh) is not run under valgrind itself
# (that would check bash); it gets the same command in SETTLE_WRAPPER and puts
# it in front of every settle program it starts.
#
# Before the first test of a build it asks valgrind_probe.sh whether valgrind
# can run settle's libraries on this CPU (SETTLE_VALGRIND_PROBE names the built
# settle). The answer is kept beside that program, keyed by the CPU, the
# valgrind version and the program's time; when valgrind cannot, every test is
# skipped (77) with the probe's reason. Any other answer runs the test.
#
# The pass checks a share of the long tests (SETTLE_VALGRIND_EVERY, 8 unless
# set; 1 checks everything, about four times as long): the programs' cases
# that tests/sample.h names, and one run of settle in that many of each
# script's (tests/lib.sh's wrapped). The plain and ASan passes run all of it.
here=$(dirname "$0")
if [ -n "${SETTLE_VALGRIND_PROBE:-}" ]; then
  cache=$(dirname "$SETTLE_VALGRIND_PROBE")/valgrind-probe.txt
  key="$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)|$(valgrind --version 2>/dev/null)|$(stat -c %Y "$SETTLE_VALGRIND_PROBE" 2>/dev/null)"
  if [ ! -f "$cache" ] || [ "$(head -n 1 "$cache")" != "$key" ]; then
    reason=$("$here/valgrind_probe.sh" "$SETTLE_VALGRIND_PROBE" 2>&1)
    status=$?
    reason=$(printf '%s\n' "$reason" | head -n 1)
    tmp="$cache.$$"
    printf '%s\n%s\n%s\n' "$key" "$status" "$reason" >"$tmp" && mv -f "$tmp" "$cache"
  fi
  if [ "$(sed -n 2p "$cache")" = 77 ]; then
    echo "valgrind pass skipped: $(sed -n 3p "$cache")" >&2
    exit 77
  fi
fi
SETTLE_VALGRIND_EVERY=${SETTLE_VALGRIND_EVERY:-8}
export SETTLE_VALGRIND_EVERY
vg="valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
 --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
 --track-origins=no --num-callers=30 --quiet
 --suppressions=$here/valgrind.supp"
case "$1" in
*.sh)
  SETTLE_WRAPPER=$vg
  export SETTLE_WRAPPER
  exec "$@"
  ;;
esac
# shellcheck disable=SC2086
exec $vg "$@"
