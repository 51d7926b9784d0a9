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

packages=(cmake make gcc clang pkg-config libldap-dev libssl-dev libcmocka-dev slapd ldap-utils openssl)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "tests/run.sh: installing ${missing[*]}"
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

variants=("$@")
((${#variants[@]})) || variants=(normal asan tsan)
jobs=$(nproc)
fail=0
for v in "${variants[@]}"; do
	case $v in
	normal) flags=() ;;
	asan) flags=(-DLDBENCH_ASAN=ON) ;;
	tsan) flags=(-DLDBENCH_TSAN=ON) ;;
	*) echo "tests/run.sh: unknown build '$v' (normal, asan, tsan)" >&2; exit 2 ;;
	esac
	dir=$ROOT/build-test-$v
	echo "=== $v build"
	cmake -S "$ROOT" -B "$dir" -DLDBENCH_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "${flags[@]}" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	echo "=== $v tests"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
	if [ "$v" = tsan ]; then
		# TSan needs the address space layout it was built for.
		run=(setarch "$(uname -m)" -R)
	else
		run=()
	fi
	(cd "$dir" && "${run[@]}" ctest --output-on-failure -j "$jobs") || fail=1
done
exit $fail
