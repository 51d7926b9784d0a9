#!/usr/bin/env bash
# The whole test suite on a Debian 12 machine (as root or with sudo):
# installs what is missing, then builds and runs every test (unit and
# integration against a real slapd) three times: a normal -Werror build,
# AddressSanitizer+UndefinedBehaviorSanitizer, and ThreadSanitizer.
#   tests/run.sh            all three builds
#   tests/run.sh normal     just one of: normal asan tsan
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

. "$ROOT/tests/fixture/packages.sh"
install_missing tests/run.sh cmake make gcc clang clang-format pkg-config libldap-dev libssl-dev libgnutls28-dev libcmocka-dev slapd ldap-utils \
	openssl man-db groff-base bsdextrautils util-linux coreutils
# zlib (--hdr-log), the browser, plotter, readers and packaging tools of the report tests
install_missing tests/run.sh zlib1g-dev chromium gnuplot-nox python3 python3-pandas dpkg apt
# strace: the join's wait for a buffered log reads on from where it stopped (gates_slapd, dirsrv_gates)
install_missing tests/run.sh strace
# the capture proxy (tests/tools/ldapcapture.py): RFC 4511 types to decode what ldbench sent
install_missing tests/run.sh python3-ldap3
# Node.js and npm (hdr-histogram-js, the independent reader): Debian's, unless a Node.js that
# brings its own npm is there already (Debian's npm package conflicts with such a nodejs)
command -v npm >/dev/null 2>&1 || install_missing tests/run.sh nodejs npm
# the 389 DS fixture (tests/fixture/dirsrv.sh): dscreate/dsctl, lib389, certutil; ldclt
# (tests/integration/ldclt_compat.sh)
install_missing tests/run.sh 389-ds-base python3-lib389 libnss3-tools iproute2
# Cyrus SASL's password mechanisms for slapd's and 389 DS's SASL binds (sasl_binds, dirsrv_sasl:
# CRAM-MD5, DIGEST-MD5, SCRAM-SHA-*; the scram plugin is in 2.1.28's libsasl2-modules)
install_missing tests/run.sh libsasl2-modules
# a real Prometheus and Pushgateway for the live metrics (metrics_prometheus; started by the test on
# loopback: Debian's prometheus package may start a service on :9090, which no test uses)
install_missing tests/run.sh prometheus prometheus-pushgateway
# (389 DS's replication pair, tests/fixture/dirsrv_repl.sh, uses the same)

variants=("$@")
((${#variants[@]})) || variants=(normal asan tsan)
jobs=$(nproc)
fail=0
passed=0 failed=0 skipped=0 # over every build and the fuzz targets, for the closing line
for v in "${variants[@]}"; do
	case $v in
	normal) flags=() ;;
	asan) flags=(-DLDBENCH_ASAN=ON) ;;
	tsan) flags=(-DLDBENCH_TSAN=ON) ;;
	*) echo "tests/run.sh: unknown build '$v' (normal, asan, tsan)" >&2; exit 2 ;;
	esac
	dir=$ROOT/build-test-$v
	echo "=== $v build"
	cmake -S "$ROOT" -B "$dir" -DLDBENCH_WERROR=ON -DLDBENCH_FLOOR_PROBE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "${flags[@]}" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	echo "=== $v tests"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp
	if [ "$v" = tsan ]; then
		# TSan needs the address space layout it was built for.
		run=(setarch "$(uname -m)" -R)
	else
		run=()
	fi
	(cd "$dir" && "${run[@]}" ctest --output-on-failure -j "$jobs") | tee "$dir/ctest.out" || fail=1
	# "100% tests passed, 0 tests failed out of 32": ctest counts a skipped test
	# (exit 77: a check that could not run) as passed; it lists them apart,
	# "  12 - integration.saturation (Skipped)", and so does the closing line.
	nfail= ntotal=
	read -r nfail ntotal < <(sed -nE 's/.* tests passed, ([0-9]+) tests failed out of ([0-9]+)$/\1 \2/p' "$dir/ctest.out" |
		tail -n 1) || true
	nskip=$(grep -cE '^[[:space:]]+[0-9]+ - .* \(Skipped\)$' "$dir/ctest.out" || true)
	if [[ -z "${ntotal:-}" ]]; then
		fail=1
		failed=$((failed + 1))
	else
		passed=$((passed + ntotal - nfail - nskip))
		failed=$((failed + nfail))
		skipped=$((skipped + nskip))
		((nfail == 0)) || fail=1
	fi
done

# ---------------------------------------------------------------------------
# Fuzzing (tests/fuzz/fuzz_*.c): only when clang is available.  Each libFuzzer
# target (option parser, XXX patterns, response parser, filter encoder) is
# built with -fsanitize=fuzzer,address,undefined and run for a bounded time
# (LDBENCH_FUZZ_SECONDS, default 20) from its seed corpus in tests/fuzz/corpus/
# (copied: the run's finds stay in the build folder); any crash, leak, timeout
# or sanitizer report fails the suite.  Runs with the full suite (no build
# named on the command line); LDBENCH_FUZZ=1 forces it, LDBENCH_FUZZ=0 skips it.
fuzz=${LDBENCH_FUZZ:-auto}
[ "$fuzz" != auto ] || { (($# == 0)) && fuzz=1 || fuzz=0; }
if [ "$fuzz" = 1 ] && command -v clang >/dev/null 2>&1; then
	echo "=== fuzz build (clang)"
	fdir=$ROOT/build-test-fuzz
	if ! CC=clang cmake -S "$ROOT" -B "$fdir" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DLDBENCH_FUZZ=ON -DLDBENCH_WERROR=ON >/dev/null || ! cmake --build "$fdir" --target ldbench_fuzz -j "$jobs" >/dev/null; then
		echo "fuzz: build failed" >&2
		failed=$((failed + 1))
		fail=1
	else
		echo "=== fuzz runs (${LDBENCH_FUZZ_SECONDS:-20} s each, $jobs at a time)"
		fuzz_one() { # name: runs one target from its corpus; its log in $fdir/NAME.log
			local name=$1 corpus=$fdir/corpus/$1
			mkdir -p "$corpus" "$fdir/artifacts/$name"
			if [ -d "$ROOT/tests/fuzz/corpus/$name" ]; then
				cp -n "$ROOT/tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null || true
			fi
			ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
				"$fdir/tests/$name" -max_total_time="${LDBENCH_FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=2048 \
				-max_len=4096 -print_final_stats=1 -artifact_prefix="$fdir/artifacts/$name/" "$corpus" \
				>"$fdir/$name.log" 2>&1
		}
		names=() pids=()
		for src in "$ROOT"/tests/fuzz/fuzz_*.c; do
			names+=("$(basename "$src" .c)")
			fuzz_one "${names[-1]}" &
			pids+=("$!")
			while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
		done
		for k in "${!names[@]}"; do
			name=${names[$k]}
			if wait "${pids[$k]}"; then
				echo "fuzz: $name ok ($(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$fdir/$name.log" | grep -oE '[0-9]+$') runs)"
				passed=$((passed + 1))
			else
				echo "fuzz: $name FAILED (log: $fdir/$name.log, input in $fdir/artifacts/$name/)" >&2
				tail -n 40 "$fdir/$name.log" >&2
				failed=$((failed + 1))
				fail=1
			fi
		done
	fi
elif [ "$fuzz" = 1 ]; then
	echo "=== fuzz: skipped (no clang)"
	skipped=$((skipped + 1))
fi
echo "suite: $passed passed, $failed failed, $skipped skipped"
exit $fail
