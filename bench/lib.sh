# shellcheck shell=bash
# Helpers for the benchmark scripts in bench/ (sourced, not run).
#
#   bench_install_missing PKG...   apt-get install the Debian packages that are
#                                  not installed yet (sudo when not root)
#   bench_build ROOT DIR           Release build of ldbench (no tests) into DIR
#   bench_machine_ticks            "BUSY TOTAL" CPU ticks of the whole machine
#                                  (/proc/stat, all cores, USER_HZ units)
#   bench_proc_ticks PID           user+system CPU ticks of one process
#   bench_build_pair NAME ROOT REV the work tree's Release build (build-bench/) and
#                                  revision REV's (from a git worktree, into
#                                  build-bench-base/): sets BIN[new] and
#                                  BIN[base] (declare -A BIN first), exports
#                                  LDBENCH (the new one) and LDBENCH_SOURCE_DIR,
#                                  and removes the worktree at exit; NAME
#                                  prefixes its lines
#   bench_hz                       USER_HZ (ticks per second)
#   bench_global_total FILE        the N of the last "Global average rate: ...
#                                  total: N" line of an ldclt/ldbench output
#                                  ("-" when there is none)
#   bench_measure OUT TIMEOUT CMD...
#       runs CMD under /usr/bin/time and `timeout`, stdout+stderr to OUT.log,
#       and writes OUT.m: "rc wall user sys busy_s slapd_s" where wall/user/sys
#       come from /usr/bin/time (seconds, 10 ms resolution; user/sys include
#       the command's children), busy_s is the whole machine's non-idle CPU
#       seconds over the run and slapd_s the server's CPU seconds (needs
#       FIX_PID).  rc is the command's exit status (124 when it timed out).
#   bench_server_start KIND        the server of a run, on 127.0.0.1 with 10,000
#                                  users uid=user00001..user10000 (password =
#                                  uid) and ldaps: KIND slapd (the test
#                                  fixture: 4 threads, dbnosync), slapd16 (the
#                                  same with slapd's default 16 threads) or
#                                  389ds (tests/fixture/dirsrv.sh: dscreate,
#                                  dsctl ldifgen users --generic, offline
#                                  import; removed at exit).  Either way it
#                                  exports the FIX_* variables of
#                                  tests/fixture/slapd.sh the scripts use
#                                  (FIX_PORT FIX_LDAPS_PORT FIX_URI FIX_BASE
#                                  FIX_PEOPLE FIX_ROOTDN FIX_ROOTPW FIX_PWFILE
#                                  FIX_CA FIX_PID) and BENCH_SERVER (a label)
#   bench_mon_snapshot FILE        remember the server's per-kind counters
#   bench_mon_delta FILE OP        OPs (Search Bind Add Delete Modify Modrdn)
#                                  completed since, the reads' own subtracted:
#                                  slapd's cn=Operations,cn=Monitor
#                                  (fixture_monitor_*), 389 DS's
#                                  cn=snmp,cn=monitor (each read: one bind,
#                                  one search, both seen by the next read)
#   bench_count BASE FILTER        entries below BASE matching FILTER
#   bench_cg OUT FUNCTION ARGS...  runs $LDBENCH ARGS under valgrind's callgrind
#                                  (stdout to OUT, OUT.cg, OUT.vg) and prints
#                                  the instructions inside FUNCTION (every
#                                  thread)
#   bench_listen_field JSON NAME   the summary's listeners.NAME (a count)
#
# Works under `set -euo pipefail`.

bench_install_missing() {
	# shellcheck source=../tests/fixture/packages.sh
	. "$(dirname "${BASH_SOURCE[0]}")/../tests/fixture/packages.sh"
	install_missing bench "$@"
}

bench_build() { # ROOT DIR  (the compiler's output is shown only when the build fails)
	mkdir -p "$2"
	if ! { cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DLDBENCH_TESTS=OFF -DLDBENCH_FLOOR_PROBE=ON &&
		cmake --build "$2" -j "$(nproc)"; } >"$2/bench-build.log" 2>&1; then
		cat "$2/bench-build.log" >&2
		echo "bench: the build failed (log above, also in $2/bench-build.log)" >&2
		return 1
	fi
}

bench_build_pair() { # NAME ROOT REV
	local name=$1 root=$2 rev
	rev=$(git -C "$root" rev-parse --verify "$3^{commit}") || { echo "$name: no revision '$3'" >&2; exit 2; }
	echo "$name: building the work tree (new) and $3 = ${rev:0:12} (base), Release"
	bench_build "$root" "$root/build-bench"
	_BENCH_BASE_WT=$root/build-bench-base/src
	rm -rf "$_BENCH_BASE_WT" && git -C "$root" worktree prune && mkdir -p "$root/build-bench-base"
	git -C "$root" worktree add -q --detach "$_BENCH_BASE_WT" "$rev"
	trap 'git -C "'"$root"'" worktree remove --force "$_BENCH_BASE_WT" 2>/dev/null || true' EXIT
	bench_build "$_BENCH_BASE_WT" "$root/build-bench-base/build"
	BIN=([new]=$root/build-bench/ldbench [base]=$root/build-bench-base/build/ldbench)
	export LDBENCH=${BIN[new]} LDBENCH_SOURCE_DIR=$root
}

bench_hz() {
	getconf CLK_TCK
}

bench_machine_ticks() {
	# cpu user nice system idle iowait irq softirq steal guest guest_nice
	# (guest time is already inside user, so it is not added again)
	awk '$1 == "cpu" { busy = $2 + $3 + $4 + $7 + $8 + $9; print busy, busy + $5 + $6; exit }' /proc/stat
}

bench_proc_ticks() { # PID
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return 0; }
	# fields after the ")" that closes comm: state is 1st, utime 12th, stime 13th
	awk '{ print $12 + $13 }' <<<"${stat##*) }"
}

bench_global_total() { # FILE
	local n
	n=$(sed -n 's/.*Global average rate:.*total: *\([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1)
	echo "${n:--}"
}

bench_measure() { # OUT TIMEOUT CMD...
	local out=$1 limit=$2 rc=0 m0 s0 m1 s1 hz
	shift 2
	hz=$(bench_hz)
	read -r m0 _ < <(bench_machine_ticks)
	s0=$(bench_proc_ticks "${FIX_PID:?bench_measure needs FIX_PID}")
	/usr/bin/time -f '%e %U %S' -o "$out.time" \
		timeout -k 5 "$limit" "$@" >"$out.log" 2>&1 || rc=$?
	read -r m1 _ < <(bench_machine_ticks)
	s1=$(bench_proc_ticks "$FIX_PID")
	local wall user sys
	# /usr/bin/time writes "Command exited with non-zero status N" first when N != 0
	read -r wall user sys < <(tail -n 1 "$out.time")
	awk -v rc="$rc" -v w="$wall" -v u="$user" -v s="$sys" -v hz="$hz" \
		-v mb=$((m1 - m0)) -v sb=$((s1 - s0)) \
		'BEGIN { printf "%d %.2f %.2f %.2f %.2f %.2f\n", rc, w, u, s, mb / hz, sb / hz }' >"$out.m"
	return 0
}

bench_server_start() { # KIND
	BENCH_SERVER=$1
	case $1 in
	slapd | slapd16)
		# shellcheck source=../tests/fixture/slapd.sh
		. "$(dirname "${BASH_SOURCE[0]}")/../tests/fixture/slapd.sh"
		local t=4
		[[ $1 == slapd ]] || t=16
		fixture_start --users 10000 --tls --nosync --threads "$t"
		BENCH_SERVER="slapd ($t threads)"
		;;
	389ds)
		# shellcheck source=../tests/fixture/dirsrv.sh
		. "$(dirname "${BASH_SOURCE[0]}")/../tests/fixture/dirsrv.sh"
		trap dirsrv_remove EXIT
		dirsrv_create --users 10000
		FIX_PORT=$DS_PORT FIX_LDAPS_PORT=$DS_LDAPS_PORT FIX_URI=$DS_URI FIX_BASE=$DS_BASE
		FIX_PEOPLE=$DS_PEOPLE FIX_ROOTDN=$DS_ROOTDN FIX_ROOTPW=$DS_ROOTPW FIX_PWFILE=$DS_PWFILE
		FIX_CA=$DS_CA
		FIX_PID=$(cat "/run/dirsrv/slapd-$DS_NAME.pid")
		export FIX_PORT FIX_LDAPS_PORT FIX_URI FIX_BASE FIX_PEOPLE FIX_ROOTDN FIX_ROOTPW FIX_PWFILE FIX_CA FIX_PID
		local v # ns-slapd -v exits with 1
		v=$({ ns-slapd -v 2>/dev/null || true; } | sed -n 's/.*389-Directory\/\([0-9.]*\).*/\1/p' | head -n 1)
		BENCH_SERVER="389 DS $v"
		;;
	*) echo "bench: unknown server '$1' (slapd, slapd16 or 389ds)" >&2; return 2 ;;
	esac
	export BENCH_SERVER
}

_bench_snmp_attr() { # OP
	case $1 in
	Search) echo searchops ;;
	Bind) echo simpleauthbinds ;;
	Add) echo addentryops ;;
	Delete) echo removeentryops ;;
	Modify) echo modifyentryops ;;
	Modrdn) echo modifyrdnops ;;
	*) echo "bench: no cn=snmp counter for $1" >&2; return 1 ;;
	esac
}

bench_mon_snapshot() { # FILE
	if [[ -z ${DS_NAME:-} ]]; then
		fixture_monitor_snapshot "$1"
		return
	fi
	dirsrv_search -b cn=snmp,cn=monitor -s base '(objectClass=*)' >"$1"
}

bench_mon_delta() { # FILE OP
	if [[ -z ${DS_NAME:-} ]]; then
		fixture_monitor_delta "$1" "$2"
		return
	fi
	local attr before now
	attr=$(_bench_snmp_attr "$2") || return 1
	before=$(awk -v a="$attr:" 'tolower($1) == a { print $2 }' "$1")
	now=$(dirsrv_snmp "$attr")
	# the snapshot's read (search) and this read (bind) are in between
	case $2 in Search | Bind) echo $((now - before - 1)) ;; *) echo $((now - before)) ;; esac
}

bench_count() { # BASE FILTER
	if [[ -z ${DS_NAME:-} ]]; then
		fixture_count "$1" "$2"
	else
		dirsrv_count "$1" "$2"
	fi
}

bench_cg() {
	local out=$1 fn=$2
	shift 2
	valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file="$out.cg" "$LDBENCH" "$@" >"$out" 2>"$out.vg"
	awk '/^(summary|totals):/ { print $2; exit }' "$out.cg"
}

bench_listen_field() {
	grep '^{"type":"summary"' "$1" | grep -oE "\"listeners\":\\{[^}]*" | grep -oE "\"$2\":[0-9]+" | cut -d: -f2
}
