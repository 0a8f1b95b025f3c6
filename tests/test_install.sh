#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The library as another project uses it: `meson install` into a scratch
# DESTDIR, then a program outside the tree built with nothing but what
# pkg-config says of settle, linked against the installed libsettle.so.MAJOR,
# run on testdata's sample. Plain builds only (a sanitized library needs the
# sanitizer's runtime in the program that links it).
# Args: the build directory, the source root.
set -u
. "$(dirname "$0")/lib.sh"
build=$1
src=$2
if [ -n "${SETTLE_WRAPPER:-}" ] || [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "1..0 # SKIP installing the library: plain builds only"
  exit 77
fi
for t in pkg-config cc readelf; do
  command -v "$t" >/dev/null 2>&1 || { echo "1..0 # SKIP $t is not installed"; exit 77; }
done
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "kept $tmp" || trap 'rm -rf "$tmp"' EXIT

meson install -C "$build" --destdir "$tmp/root" --no-rebuild >"$tmp/install.log" 2>&1
check $? "meson install --destdir (log: $(tail -n 1 "$tmp/install.log"))"

pc=$(find "$tmp/root" -name settle.pc | head -n 1)
[ -n "$pc" ]
check $? "settle.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$tmp/root
version=$(grep -o "^  version: '[0-9.]*'" "$src/meson.build" | head -n 1 | grep -o "[0-9][0-9.]*")
mod=$(pkg-config --modversion settle)
[ "$mod" = "$version" ]
check $? "pkg-config --modversion settle is meson.build's version ($mod, $version)"

# the shared library carries the interface's major number as its soname
lib=$(find "$tmp/root" -name 'libsettle.so.*.*.*' | head -n 1)
soname=$(readelf -d "$lib" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
api_major=$(grep -o "api_version = '[0-9]*" "$src/meson.build" | grep -o "[0-9]*$")
[ -n "$api_major" ] && [ "$soname" = "libsettle.so.$api_major" ] &&
  [ -L "$(dirname "$lib")/libsettle.so.$api_major" ] && [ -L "$(dirname "$lib")/libsettle.so" ]
check $? "soname $soname (API major $api_major) and its links, beside $(basename "$lib")"

# the shared library exports the public API and nothing else: every function
# the installed headers declare, and no internal settle_ symbol
incdir=$(dirname "$(find "$tmp/root" -path '*/settle/settle.h' | head -n 1)")
cat "$incdir"/*.h | grep -o 'settle_[a-z0-9_]*(' | tr -d '(' | sort -u >"$tmp/declared"
readelf --dyn-syms -W "$lib" | awk '$4 == "FUNC" && $5 == "GLOBAL" && $7 != "UND" {print $8}' |
  sed 's/@.*//' | sort -u >"$tmp/exported"
extra=$(comm -23 "$tmp/exported" "$tmp/declared" | head -n 3 | tr '\n' ' ')
missing=$(comm -13 "$tmp/exported" "$tmp/declared" | head -n 3 | tr '\n' ' ')
[ -s "$tmp/exported" ] && [ -z "$extra" ] && [ -z "$missing" ]
check $? "exports the $(wc -l <"$tmp/declared") functions of the headers and no other (extra: ${extra:-none}; missing: ${missing:-none})"

cat >"$tmp/user.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <settle/settle.h>
#include <settle/version.h>

int main(int argc, char **argv)
{
    if (strcmp(settle_version(), SETTLE_VERSION) ||
        settle_version_api() >> 16 != SETTLE_API_VERSION_MAJOR) {
        fprintf(stderr, "headers %s, library %s\n", SETTLE_VERSION, settle_version());
        return 2;
    }
    SettleSettings s;
    settle_default_settings(&s);
    SettleContext *c = NULL;
    const SettleResult *r = NULL;
    if (argc != 2 || settle_open(&c, &s) < 0)
        return 3;
    int ret = settle_analyze_file(c, argv[1], &r);
    printf("%d %.3f %lld\n", ret, r ? r->load_time : NAN, r ? (long long)r->stable_frame : -1LL);
    settle_close(&c);
    return ret < 0;
}
C
# shellcheck disable=SC2046
cc -std=c11 -o "$tmp/user" "$tmp/user.c" $(pkg-config --cflags --libs settle) -lm 2>"$tmp/cc.log"
check $? "a program outside the tree builds with pkg-config's flags alone ($(head -n 1 "$tmp/cc.log"))"

libdir=$(dirname "$lib")
out=$(LD_LIBRARY_PATH=$libdir "$tmp/user" "$src/testdata/sample-startup.mp4" 2>&1)
check $? "it runs against the installed library: $out"
cli=$("$build/settle" analyze --json - "$src/testdata/sample-startup.mp4" 2>/dev/null |
  sed -n 's/.*"load_time":\([0-9.]*\).*/\1/p')
awk -v a="$(echo "$out" | cut -d' ' -f2)" -v b="$cli" 'BEGIN { exit !(b != "" && a - b < 1e-6 && b - a < 1e-6) }'
check $? "and gives the program's load time ($out; settle analyze: $cli)"
LD_LIBRARY_PATH=$libdir ldd "$tmp/user" | grep -q "libsettle.so.$api_major => $libdir/"
check $? "the program loaded the installed libsettle.so.$api_major"
done_testing
