#!/usr/bin/env bash
# Every line of tests/bad_invocations.txt is a bad command line.  For each one
# ldbench must exit with status 2 within one second, print nothing on stdout and
# exactly one line on stderr that starts with "ldbench: ", never echo the test
# password, and never open a connection: the fixture server's total connection
# count must not move over the whole corpus.
#
# Environment: LDBENCH (the binary), LDBENCH_SOURCE_DIR (the source tree).
set -u

: "${LDBENCH:?set LDBENCH to the ldbench binary}"
: "${LDBENCH_SOURCE_DIR:?set LDBENCH_SOURCE_DIR to the source tree}"

CORPUS="$LDBENCH_SOURCE_DIR/tests/bad_invocations.txt"
SECRET="Zq7pSecretPw"
MAX_NS=$((1000000000 * ${LDBENCH_TIME_FACTOR:-1}))  # sanitizer builds get more

# shellcheck source=../fixture/slapd.sh
source "$LDBENCH_SOURCE_DIR/tests/fixture/slapd.sh"

work=$(mktemp -d /tmp/ldbench_bad_invocations.XXXXXX)

finish() {
	local status=$1
	if declare -F fixture_stop >/dev/null; then
		fixture_stop
	fi
	rm -rf "$work"
	exit "$status"
}

fixture_start || { echo "FAIL: the fixture server did not start" >&2; finish 1; }

# A password in the environment would change what some lines mean.
unset LDBENCH_PASSWORD

# Reading the count may itself connect: measure that drift first.
c0=$(fixture_total_connections) || { echo "FAIL: cannot read the connection count" >&2; finish 1; }
c1=$(fixture_total_connections) || { echo "FAIL: cannot read the connection count" >&2; finish 1; }
drift=$((c1 - c0))

failures=0
count=0
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case "$line" in
	'' | '#'*) continue ;;
	esac
	count=$((count + 1))
	args=()
	eval "args=($line)"
	short=${line:0:100}

	start=$(date +%s%N)
	timeout 10 "$LDBENCH" "${args[@]}" -h 127.0.0.1 -p "$FIX_PORT" \
		>"$work/out" 2>"$work/err" </dev/null
	rc=$?
	elapsed=$(($(date +%s%N) - start))
	if [ "$elapsed" -ge "$MAX_NS" ]; then
		# a busy machine (ctest runs two tests at once) can stall one start:
		# the bound must hold on a second try
		start=$(date +%s%N)
		timeout 10 "$LDBENCH" "${args[@]}" -h 127.0.0.1 -p "$FIX_PORT" >/dev/null 2>&1 </dev/null
		elapsed=$(($(date +%s%N) - start))
	fi

	problems=()
	[ "$rc" -eq 2 ] || problems+=("exit status $rc, not 2")
	[ -s "$work/out" ] && problems+=("stdout is not empty: $(head -c 200 "$work/out")")
	nl=$(wc -l <"$work/err")
	bytes=$(wc -c <"$work/err")
	if [ "$nl" -ne 1 ] || [ "$bytes" -ne "$(head -n 1 "$work/err" | wc -c)" ]; then
		problems+=("stderr is not exactly one line ($nl newlines)")
	fi
	case "$(head -n 1 "$work/err")" in
	'ldbench: '*) ;;
	*) problems+=("stderr does not start with 'ldbench: '") ;;
	esac
	grep -q "$SECRET" "$work/err" && problems+=("stderr shows the password")
	[ "$elapsed" -lt "$MAX_NS" ] || problems+=("took $((elapsed / 1000000)) ms")

	if [ "${#problems[@]}" -gt 0 ]; then
		failures=$((failures + 1))
		echo "FAIL line $lineno: $short"
		for p in "${problems[@]}"; do
			echo "    $p"
		done
		echo "    stderr: $(head -c 300 "$work/err")"
	else
		echo "ok   line $lineno: $(head -c 160 "$work/err")"
	fi
done <"$CORPUS"

c2=$(fixture_total_connections) || { echo "FAIL: cannot read the connection count" >&2; finish 1; }
if [ $((c2 - c1)) -ne "$drift" ]; then
	echo "FAIL: the server saw $((c2 - c1 - drift)) connection(s) during the corpus (count $c1 -> $c2, drift $drift)"
	failures=$((failures + 1))
fi

if [ "$count" -lt 45 ]; then
	echo "FAIL: only $count invocations in $CORPUS (at least 45 expected)"
	failures=$((failures + 1))
fi

echo "$count bad invocations, $failures failure(s)"
[ "$failures" -eq 0 ] && finish 0
finish 1
