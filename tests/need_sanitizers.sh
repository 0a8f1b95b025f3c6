#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The wrapper of `meson test --setup asan` in a build without sanitizers: it
# fails every test with the way to do it right.
echo "settle: this build is not instrumented; run the asan setup in a build configured with" >&2
echo "  meson setup build-asan -Db_sanitize=address,undefined && meson test -C build-asan --setup asan" >&2
exit 1
