#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The man page (doc/settle.1) documents every option the program accepts, and
# groff reads it without a warning. Args: path of the settle program, source tree.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
man=$2/doc/settle.1
for cmd in analyze compare record plot history trend dashboard; do
  opts=$("$settle" help "$cmd" | grep -oE -- '(^|[ ,])--[a-z][a-z-]*' | sed 's/^[ ,]//' | sort -u)
  [ -n "$opts" ]
  check $? "settle help $cmd lists options"
  for o in $opts; do
    # roff writes a hyphen as \-
    grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$man"
    check $? "$cmd $o is in the man page"
  done
done
if command -v groff >/dev/null 2>&1; then
  warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
  [ -z "$warnings" ]
  check $? "groff reads it without warnings: $warnings"
  groff -man -Tascii -P-cbou "$man" 2>/dev/null | grep -q "^EXIT STATUS"
  check $? "groff renders it"
fi
done_testing
