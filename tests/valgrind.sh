#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The wrapper of `meson test --setup valgrind`: runs a test program under
# memcheck. A shell-script test (test_cli.sh) is not run under valgrind itself
# (that would check bash); it gets the same command in SETTLE_WRAPPER and puts
# it in front of every settle program it starts.
here=$(dirname "$0")
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
