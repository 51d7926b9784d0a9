#!/bin/bash
# The CMake options a packager or a plain user meets (no server needed):
# - a build without CMocka still makes ldbench and registers no unit test;
# - -DLDBENCH_SERVER_TESTS=OFF registers no integration test;
# - the floor probe is built only on request;
# - optimised builds carry the hardening flags (stack protector, _FORTIFY_SOURCE,
#   full RELRO), checked on the binary itself;
# - -DLDBENCH_LDCLT_LINK=ON installs an `ldclt` link that prints ldclt's prefix.
# Runs in the normal build only (the sanitizer builds turn hardening off).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
src=${LDBENCH_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
if [[ "${LDBENCH_TIME_FACTOR:-1}" != 1 ]]; then
	echo "skip: sanitizer build (hardening is off there by design)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake -S "$src" -B "$tmp/b" -DCMAKE_BUILD_TYPE=Release -DCMOCKA_LIBRARY=OFF -DLDBENCH_SERVER_TESTS=OFF \
	-DLDBENCH_LDCLT_LINK=ON >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log" >&2; _fail "configure"; }
assert_match 'CMocka not found \(libcmocka-dev\): the unit tests are not built' "$tmp/configure.log" \
	"configure without CMocka says the unit tests are left out"
cmake --build "$tmp/b" -j "$(nproc)" >"$tmp/build.log" 2>&1 || { tail -n 30 "$tmp/build.log" >&2; _fail "build"; }
[[ -x "$tmp/b/ldbench" ]] || _fail "no ldbench built"
echo "ok: ldbench built without CMocka"
[[ ! -e "$tmp/b/ldbench-floor-probe" ]] || _fail "the floor probe was built without LDBENCH_FLOOR_PROBE"
echo "ok: no floor probe unless asked"
(cd "$tmp/b" && ctest -N) >"$tmp/ctest.txt"
assert_match '^Total Tests: 0$' "$tmp/ctest.txt" "no tests registered (no CMocka, no server tests)"

# hardening, read from the binary
readelf -d "$tmp/b/ldbench" >"$tmp/dyn.txt"
assert_match 'BIND_NOW|FLAGS.*NOW' "$tmp/dyn.txt" "full RELRO (BIND_NOW)"
readelf -lW "$tmp/b/ldbench" >"$tmp/seg.txt"
assert_match 'GNU_RELRO' "$tmp/seg.txt" "a RELRO segment"
nm -D "$tmp/b/ldbench" >"$tmp/syms.txt"
assert_match '__stack_chk_fail' "$tmp/syms.txt" "stack protector in use"
assert_match '__[a-z]+_chk' <(grep -v __stack_chk "$tmp/syms.txt") "_FORTIFY_SOURCE's checked functions in use"

DESTDIR=$tmp/root cmake --install "$tmp/b" --prefix /usr >"$tmp/install.log"
[[ -x "$tmp/root/usr/bin/ldbench" ]] || _fail "ldbench not installed"
assert_eq ldbench "$(readlink "$tmp/root/usr/bin/ldclt")" "the ldclt link points at ldbench"
[[ -f "$tmp/root/usr/share/man/man1/ldbench.1" ]] || _fail "man page not installed"
echo "ok: man page installed"
"$tmp/root/usr/bin/ldclt" -h >"$tmp/link.out" 2>&1 -e nosuchkeyword || true
assert_match '^ldclt' "$tmp/link.out" "through the link the program calls itself ldclt"
echo "build_options: all passed"
