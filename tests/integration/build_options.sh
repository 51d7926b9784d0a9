#!/bin/bash
# The CMake options a packager or a plain user meets (no server needed):
# - a build without CMocka still makes ldbench and registers no unit test;
#   where CMocka ships its CMake package, the build found it through that;
# - a source in a sub-folder of src/LAYER/ is built, not silently left out;
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
	echo "build_options: SKIPPED: sanitizer build (hardening is off there by design)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake -S "$src" -B "$tmp/b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_cmocka=ON -DCMOCKA_LIBRARY=OFF -DLDBENCH_SERVER_TESTS=OFF \
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

# CMocka through its CMake package where it ships one: this build's cache names it
cfg=$(ls /usr/lib/*/cmake/cmocka/cmocka-config.cmake /usr/lib/cmake/cmocka/cmocka-config.cmake 2>/dev/null | head -n 1 || true)
cache=$(dirname "${LDBENCH:-$src/build/ldbench}")/CMakeCache.txt
if [[ -n "$cfg" ]]; then
	[[ -f "$cache" ]] || _fail "no build cache at $cache (LDBENCH names the build's ldbench)"
	assert_eq "$(dirname "$cfg")" "$(sed -n 's/^cmocka_DIR:PATH=//p' "$cache")" "the build's CMocka package (cmocka_DIR)"
else
	echo "ok: no CMocka CMake package here: the build searched for the library (find_library)"
fi

# a source one folder deeper than src/LAYER/ is compiled into the core (configure only)
mkdir -p "$tmp/tree/src/util/deeper"
cp -r "$src/CMakeLists.txt" "$src/packaging" "$src/bench" "$tmp/tree/"
cp -r "$src/src/." "$tmp/tree/src/"
echo 'int ldb_deeper_probe(void);
int ldb_deeper_probe(void) { return 1; }' >"$tmp/tree/src/util/deeper/probe.c"
cmake -S "$tmp/tree" -B "$tmp/tb" -DLDBENCH_TESTS=OFF >"$tmp/tree.log" 2>&1 || { cat "$tmp/tree.log" >&2; _fail "configure (deeper source)"; }
grep -q 'src/util/deeper/probe\.c\.o:' "$tmp/tb/CMakeFiles/ldbench_core.dir/build.make" ||
	_fail "src/util/deeper/probe.c is not among ldbench_core's sources"
echo "ok: a source in a sub-folder of a layer is built"
echo "build_options: all passed"
