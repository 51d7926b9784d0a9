#!/usr/bin/env bash
# What the join with the server's log costs, in CPU time per operation (not
# rates: the machine is shared, its rates scatter), alternating rounds, the
# median of each:
#   1. the client: the same searches with --op-log (the tag on each
#      connection, a record per operation into the I/O thread's ring, the
#      writer thread) and without; then `ldbench join` of that op-log with the
#      server's log, timed on its own (CPU per operation joined, and the log's
#      MB read per CPU second);
#   2. the server's own logging: slapd with loglevel stats against loglevel 0
#      (restarted between rounds), 389 DS with its access log on against off
#      (nsslapd-accesslog-logging-enabled, at run time): the server's CPU
#      time (utime + stime of /proc/PID/stat) per operation.
#   3. with --callgrind: the client's instructions (valgrind callgrind, every
#      thread) for N and 2N searches, with and without --op-log: the marginal
#      instructions per search (the difference over N: start-up drops out) and
#      the fixed cost, steadier than CPU time on a shared machine.
# Client CPU is the ldbench process's user + system time (/usr/bin/time,
# 10 ms resolution: each round runs enough operations for 1 % or better).
# No traffic leaves 127.0.0.1.
#
#   bench/join_cost.sh [--rounds K] [--ops N] [--callgrind] [SERVER...]
#     SERVER     slapd, 389ds (default: both)
#     --rounds K rounds per mode (default 5)
#     --ops N    searches per client per run, 4 clients (default 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

rounds=5 ops=10000 servers=() callgrind=0
while (($# > 0)); do
	case $1 in
	--rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
	--ops) ops=${2:?--ops needs a value}; shift 2 ;;
	--callgrind) callgrind=1; shift ;;
	slapd | 389ds) servers+=("$1"); shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "join_cost: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$ops" =~ ^[1-9][0-9]*$ ]] ||
	{ echo "join_cost: --rounds and --ops must be whole numbers >= 1" >&2; exit 2; }
((${#servers[@]} > 0)) || servers=(slapd 389ds)

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_install_missing cmake make gcc pkg-config libldap-dev libssl-dev zlib1g-dev slapd ldap-utils gawk valgrind
LDBENCH=${LDBENCH:-}
if [[ -z "$LDBENCH" ]]; then
	bench_build "$ROOT" "$ROOT/build-bench"
	LDBENCH=$ROOT/build-bench/ldbench
fi
export LDBENCH

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one run: MODE OUT [LDBENCH ARGS...]: OUT.m as bench_measure writes it
run() {
	local out=$1
	shift
	bench_measure "$out" 300 "$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" \
		-b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random -r1 -R10000 -n 4 --io-threads 2 -T "$ops" "$@"
	read -r rc _ <"$out.m"
	((rc == 0)) || { echo "join_cost: ldbench exited $rc (see $out.log)" >&2; tail -n 5 "$out.log" >&2; exit 1; }
}
# us of the client's CPU (user + sys) per operation of OUT.m; of the server's
cpu_op() { awk -v n=$((4 * ops)) '{ printf "%.3f\n", ($3 + $4) * 1e6 / n }' "$1.m"; }
srv_op() { awk -v n=$((4 * ops)) '{ printf "%.3f\n", $6 * 1e6 / n }' "$1.m"; }

# the server's access log on or off
slapd_log() { # on|off
	local conf=$FIX_DIR/slapd.conf
	sed -i '/^loglevel /d; /^logfile /d' "$conf"
	if [[ $1 == on ]]; then
		printf '%s\n' "loglevel stats" "logfile $LOG" >>"$conf"
		export FIX_STATS_LOG=$LOG
	else
		echo "loglevel 0" >>"$conf"
		unset FIX_STATS_LOG
	fi
	fixture_restart >/dev/null
}
ds_log() { # on|off
	LDAPNOINIT=1 ldapmodify -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >/dev/null <<EOF
dn: cn=config
changetype: modify
replace: nsslapd-accesslog-logging-enabled
nsslapd-accesslog-logging-enabled: $1
EOF
}
server_log() { if [[ $1 == slapd ]]; then slapd_log "$2"; else ds_log "$2"; fi; }

# callgrind's instructions of the client: N and 2N searches (2 clients), off and on
instructions() { # TMP
	local n=2000 m t a b
	declare -A I
	for m in off on; do
		for t in $n $((2 * n)); do
			local extra=()
			[[ $m == off ]] || extra=(--op-log "$1/cg.oplog")
			valgrind --tool=callgrind --callgrind-out-file="$1/cg.$m.$t" "$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" \
				-D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random -r1 \
				-R10000 -n 2 --io-threads 1 -T "$t" "${extra[@]}" >"$1/cg.$m.$t.log" 2>&1
			I[$m.$t]=$(awk '/^(summary|totals):/ { print $2; exit }' "$1/cg.$m.$t")
		done
	done
	for m in off on; do
		a=${I[$m.$n]} b=${I[$m.$((2 * n))]}
		awk -v m="$m" -v a="$a" -v b="$b" -v n=$((2 * n)) 'BEGIN {
			printf "client instructions (callgrind), %s: %.0f per search (marginal), %.2f M fixed\n", \
				m == "on" ? "with --op-log" : "without the op-log", (b - a) / n, (a - (b - a)) / 1e6 }'
	done
}

one_server() { # SERVER
	local srv=$1 tmp
	tmp=$(mktemp -d)
	if [[ $srv == slapd ]]; then
		LOG=$tmp/stats.log
		export FIX_STATS_LOG=$LOG
	fi
	bench_server_start "$srv" >/dev/null
	[[ $srv == slapd ]] || LOG=$(dirsrv_access_log)
	echo "== $BENCH_SERVER: $rounds rounds, 4 clients x $ops searches, on a loaded machine (2 cores shared)"
	local r
	: >"$tmp/off" && : >"$tmp/on" && : >"$tmp/join" && : >"$tmp/rate" && : >"$tmp/s0" && : >"$tmp/s1"
	server_log "$srv" on
	run "$tmp/warm" # the server's caches
	for ((r = 1; r <= rounds; r++)); do
		# 1. the client, alternating: without, with --op-log
		run "$tmp/off$r"
		cpu_op "$tmp/off$r" >>"$tmp/off"
		run "$tmp/on$r" --op-log "$tmp/op$r.oplog"
		cpu_op "$tmp/on$r" >>"$tmp/on"
		[[ $srv == slapd ]] || dirsrv_log_buffering off # 389 DS's buffered access log: written out
		local bytes
		bytes=$(stat -c %s "$LOG")
		/usr/bin/time -f '%e %U %S' -o "$tmp/j$r.time" "$LDBENCH" join --op-log "$tmp/op$r.oplog" "$LOG" >"$tmp/j$r.log"
		grep -q "search: $((4 * ops)) of $((4 * ops)) operations joined" "$tmp/j$r.log" ||
			{ echo "join_cost: not every search joined:" >&2; cat "$tmp/j$r.log" >&2; exit 1; }
		awk -v n=$((4 * ops)) -v b="$bytes" '{ c = $2 + $3; if (c < 0.01) c = 0.01;
			printf "%.3f\n", c * 1e6 / n > "/dev/stderr"; printf "%.1f\n", b / 1e6 / c }' \
			"$tmp/j$r.time" 2>>"$tmp/join" >>"$tmp/rate"
		rm -f "$tmp/op$r.oplog"
		[[ $srv == slapd ]] || dirsrv_log_buffering on # as by default
		# 2. the server's logging, alternating: off, on
		server_log "$srv" off
		run "$tmp/s0_$r"
		srv_op "$tmp/s0_$r" >>"$tmp/s0"
		server_log "$srv" on
		run "$tmp/s1_$r"
		srv_op "$tmp/s1_$r" >>"$tmp/s1"
	done
	local off on j rate s0 s1
	off=$(median <"$tmp/off") on=$(median <"$tmp/on") j=$(median <"$tmp/join") rate=$(median <"$tmp/rate")
	s0=$(median <"$tmp/s0") s1=$(median <"$tmp/s1")
	awk -v s="$BENCH_SERVER" -v off="$off" -v on="$on" -v j="$j" -v rate="$rate" -v s0="$s0" -v s1="$s1" \
		-v mb="$(($(stat -c %s "$LOG") / 1000000))" 'BEGIN {
		printf "client CPU per search, without the op-log: %.2f us; with --op-log: %.2f us (%+.1f %%)\n", off, on, 100 * (on - off) / off
		printf "ldbench join afterwards: %.2f us CPU per search joined; the log read at %.0f MB per CPU second (log %d MB)\n", j, rate, mb
		printf "server CPU per search, its access log off: %.2f us; on: %.2f us (%+.1f %%)\n", s0, s1, 100 * (s1 - s0) / s0 }'
	((callgrind == 0)) || instructions "$tmp"
	echo "rounds (us per search): client off $(tr '\n' ' ' <"$tmp/off")| on $(tr '\n' ' ' <"$tmp/on")| server log off $(tr '\n' ' ' <"$tmp/s0")| on $(tr '\n' ' ' <"$tmp/s1")"
	rm -rf "$tmp"
}

for s in "${servers[@]}"; do
	(one_server "$s")
done
