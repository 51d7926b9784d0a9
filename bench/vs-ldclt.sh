#!/usr/bin/env bash
# ldbench against ldclt (389 DS) on the same throwaway slapd and the same
# workloads, in one run.  Installs what is missing, builds ldbench (Release)
# into build-bench/, starts the test fixture (slapd on 127.0.0.1 with 10,000
# users), then for each workload runs both tools one after the other with the
# SAME arguments (the order flips from one workload to the next), and stops
# slapd at the end.  No traffic leaves 127.0.0.1.
#
#   bench/vs-ldclt.sh [--server slapd|slapd16|389ds|all] [--quick] [--seconds S]
#                     [--syscalls] [--only REGEX]
#     --server K   the server: slapd (default: the test fixture, 4 worker
#                  threads), slapd16 (the same with slapd's default 16 threads),
#                  389ds (a throwaway 389 DS instance, tests/fixture/dirsrv.sh:
#                  ldifgen's users, which are bigger entries than ldbench gen's;
#                  needs root), or all (the three, one after the other)
#     --seconds S  load per run, in whole seconds (-e sampinterval=S -N 1);
#                  default 5 (the whole script then takes about 5 minutes)
#     --quick      2 s per run
#     --only REGEX only the workloads whose names match (bash regex), e.g.
#                  --only '^add' or --only 'bindeach'
#     --syscalls   afterwards, run three workloads (random -n 64, random -n 4
#                  -a 16, bindeach -n 16) once more per tool under `perf stat`
#                  (linux-perf; installed if missing) and print system calls and
#                  context switches per operation (tracepoint counts, no ptrace)
#
# The bindeach and add workloads also get a third run, ldbench-floor-probe
# (bench/floor_probe.c): the plainest client of ldclt's closed-loop model (one
# thread per client, blocking sockets, requests pre-encoded, nothing else): the
# kernel's work per operation and the wake-ups of waiting for it, which a tool
# in that model can approach but not go far below; its CPU per operation is
# printed against ldclt's.  The ldaps bindeach workload's floor is
# ldbench-floor-probe-tls (bench/floor_probe_tls.c) with the library ldbench's
# load runs with (GnuTLS by default; OpenSSL in ldbench's lean context with
# LDBENCH_TLS_LIBRARY=openssl), without verification as ldclt.
#
# "ldaps bindeach verified -n 16" is the same load with ldbench verifying the
# server's certificate (--tls-cacert with the fixture's CA beside -Z);
# ldclt cannot verify and runs as in "ldaps bindeach -n 16".
#
# ldbench runs with its default TLS library (--tls-library); the environment
# variable LDBENCH_TLS_LIBRARY=openssl|gnutls, which ldbench reads as the
# default of --tls-library, runs it with the other:
#   LDBENCH_TLS_LIBRARY=openssl bench/vs-ldclt.sh --only ldaps
#
# Per run it measures:
#   ops     the server's completed operations from cn=Monitor (Search, or Bind
#           for the bind load), the same definition for both tools
#   wall    the tool's wall time (/usr/bin/time), process start-up, connects
#           and shutdown included for both tools: nothing is subtracted
#   CPU     the tool's user+system CPU (/usr/bin/time)
# and prints, per workload, both rates (ops / wall), their ratio, the client
# CPU per operation of each tool and their ratio, then PASS/MISS lines for the
# targets.  Tables as TSV: build-bench/results/<date>.tsv (comparison) and
# <date>-runs.tsv (every run, with slapd's CPU and "other CPU": what the rest
# of the machine used meanwhile; the script warns when that exceeds 10%).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

secs=5
syscalls=0
only=
server=slapd
all_args=("$@")
while (($# > 0)); do
	case $1 in
	--server)
		server=${2:?--server needs slapd, slapd16, 389ds or all}
		shift 2
		;;
	--quick) secs=2; shift ;;
	--syscalls) syscalls=1; shift ;;
	--only)
		only=${2:?--only needs a regex}
		shift 2
		;;
	--seconds)
		secs=${2:?--seconds needs a value}
		shift 2
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
		exit 0
		;;
	*) echo "vs-ldclt: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || { echo "vs-ldclt: --seconds must be a whole number >= 1" >&2; exit 2; }
case $server in
slapd | slapd16 | 389ds) ;;
all) # each server in a run of its own, the same other arguments
	rest=()
	for ((k = 0; k < ${#all_args[@]}; k++)); do
		if [[ ${all_args[$k]} == --server ]]; then k=$((k + 1)); else rest+=("${all_args[$k]}"); fi
	done
	for s in slapd slapd16 389ds; do "$0" "${rest[@]}" --server "$s" || exit $?; done
	exit 0
	;;
*) echo "vs-ldclt: --server must be slapd, slapd16, 389ds or all" >&2; exit 2 ;;
esac

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_install_missing cmake make gcc pkg-config libldap-dev libssl-dev zlib1g-dev slapd ldap-utils \
	389-ds-base libnss3-tools time coreutils gawk libgnutls28-dev
[[ $server != 389ds ]] || bench_install_missing python3-lib389
((syscalls == 0)) || bench_install_missing linux-perf
LDCLT=$(command -v ldclt || echo /usr/bin/ldclt)
[[ -x "$LDCLT" ]] || { echo "vs-ldclt: ldclt not found after installing 389-ds-base" >&2; exit 1; }

echo "vs-ldclt: building ldbench (Release) into build-bench/; its TLS library: ${LDBENCH_TLS_LIBRARY:-the default (gnutls)}"
bench_build "$ROOT" "$ROOT/build-bench"
export LDBENCH=$ROOT/build-bench/ldbench LDBENCH_SOURCE_DIR=$ROOT
FLOOR=$ROOT/build-bench/ldbench-floor-probe
FLOOR_TLS=$ROOT/build-bench/ldbench-floor-probe-tls

stamp=$(date +%Y-%m-%d_%H%M%S)
resdir=$ROOT/build-bench/results
mkdir -p "$resdir"
tsv=$resdir/$stamp-$server.tsv
runs_tsv=$resdir/$stamp-$server-runs.tsv
logdir=$resdir/$stamp-$server-logs
mkdir -p "$logdir"

echo "vs-ldclt: starting $server (127.0.0.1) with 10,000 users"
bench_server_start "$server"
echo "vs-ldclt: $BENCH_SERVER pid $FIX_PID on $FIX_URI; $secs s of load per run; $(nproc) cores"
read -r _ load1 _ < <(cut -d' ' -f1-3 /proc/loadavg)
echo "vs-ldclt: load average before the runs: $load1"

# Workloads: name, operation counted in cn=Monitor, arguments given to BOTH tools.
people=$FIX_PEOPLE
common=(-h 127.0.0.1 -e "sampinterval=$secs" -N 1)
plain=(-p "$FIX_PORT")
# ldaps as ldclt does it: -Z names an NSS database, which neither tool's TLS can read, so both
# run without certificate verification (ldbench says so); the same handshakes for both
nssdir=$ROOT/build-bench/nss
rm -rf "$nssdir" && mkdir -p "$nssdir"
certutil -N -d "sql:$nssdir" --empty-password
certutil -A -d "sql:$nssdir" -n bench-ca -t "CT,," -i "$FIX_CA"
tls=(-p "$FIX_LDAPS_PORT" -Z "$nssdir/cert9.db")
exact=("${plain[@]}" -b "$people" -f "(uid=user00042)" -e esearch)
random=(-b "$people" -f "(uid=userXXXXX)" -e "esearch,random" -r1 -R10000)
binds=(-D "uid=userXXXXX,$people" -w userXXXXX
	-e "bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000")
# adds: every run gets its own range (RLOW..RHIGH, set per run) under ou=AddBench
LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=AddBench,$FIX_BASE
objectClass: organizationalUnit
ou: AddBench
LDIF
adds=("${plain[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "ou=AddBench,$FIX_BASE" -f "cn=aXXXXXXXX"
	-e "add,person,incr,commoncounter,noloop" -r RLOW -R RHIGH)

names=() ops=() argv=() floor_argv=()
added=0
add_workload() { # NAME OP ARGS...
	added=0
	[[ -z $only || $1 =~ $only ]] || return 0
	added=1
	names+=("$1")
	ops+=("$2")
	shift 2
	local q
	printf -v q '%q ' "$@"
	argv+=("$q")
	floor_argv+=("")
}
with_floor() { # ARGS... : the floor probe's arguments for the workload added last
	local q
	((added)) || return 0
	printf -v q '%q ' "$@"
	floor_argv[${#names[@]} - 1]=$q
}
for n in 1 4 16 64; do add_workload "exact -n $n" Search "${exact[@]}" -n "$n"; done
for n in 1 4 16 64; do add_workload "random -n $n" Search "${plain[@]}" "${random[@]}" -n "$n"; done
add_workload "exact -n 4 -a 16" Search "${exact[@]}" -n 4 -a 16
add_workload "random -n 4 -a 16" Search "${plain[@]}" "${random[@]}" -n 4 -a 16
add_workload "bindeach -n 16" Bind "${plain[@]}" "${binds[@]}" -n 16
with_floor bindeach -p "$FIX_PORT" -n 16 -s "$secs" --people "$people" --users 10000
add_workload "add -n 4" Add "${adds[@]}" -n 4
with_floor add -p "$FIX_PORT" -n 4 -s "$secs" --base "ou=AddBench,$FIX_BASE" --bind-dn "$FIX_ROOTDN" --first FIRST
add_workload "add -n 16" Add "${adds[@]}" -n 16
with_floor add -p "$FIX_PORT" -n 16 -s "$secs" --base "ou=AddBench,$FIX_BASE" --bind-dn "$FIX_ROOTDN" --first FIRST
add_workload "ldaps random -n 16" Search "${tls[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" "${random[@]}" -n 16
add_workload "ldaps bindeach -n 16" Bind "${tls[@]}" "${binds[@]}" -n 16
floor_lib=gnutls
[[ ${LDBENCH_TLS_LIBRARY:-gnutls} != openssl ]] || floor_lib=openssl-lean
with_floor @tls@ "$floor_lib" -p "$FIX_LDAPS_PORT" -n 16 -s "$secs" --people "$people" --users 10000
# the same with ldbench verifying the server's certificate (--tls-cacert added: run_tool);
# ldclt cannot verify, it runs as above
add_workload "ldaps bindeach verified -n 16" Bind "${tls[@]}" "${binds[@]}" -n 16
((${#names[@]})) || { echo "vs-ldclt: no workload matches --only '$only'" >&2; exit 2; }

limit=$((secs * 3 + 60))

# An add run's entries are deleted after it (by ldbench), so that every add run
# starts from the same directory: slapd's add rate falls as ou=AddBench grows
# (5,654/s, 4,376/s, 3,617/s, 3,303/s ... in successive runs without this).
remove_adds() { # INDEX LOW ADDED
	local hi=$(($2 + $3 + 63)) left # values taken by requests in flight at the stop may be missing
	"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "ou=AddBench,$FIX_BASE" \
		-f cn=aXXXXXXXX -e delete,incr,commoncounter,noloop -r "$2" -R "$hi" -I 32 -n 4 \
		>"$logdir/$(printf '%02d' "$1")-remove.log" 2>&1 || true
	left=$(bench_count "ou=AddBench,$FIX_BASE" "(cn=a*)")
	((left == 0)) || problems+=("${names[$1]}: $left added entries were left after the clean-up")
}
printf 'workload\ttool\trc\tops_monitor\ttool_total\twall_s\tuser_s\tsys_s\trate_per_s\tclient_cpu_us_per_op\tslapd_cpu_s\tmachine_busy_s\tother_cpu_s\n' >"$runs_tsv"
declare -A rate cpu rc_of
problems=()
disturbed=()

run_tool() { # INDEX TOOL (ldbench, ldclt or floor)
	local i=$1 tool=$2 bin args snap out
	case $tool in
	ldbench)
		bin=$LDBENCH
		eval "args=(${argv[$i]})"
		# -Z's NSS database is ignored and the certificate verified with the CA's PEM
		[[ ${names[$i]} != *verified* ]] || args+=(--tls-cacert "$FIX_CA")
		;;
	ldclt) bin=$LDCLT; eval "args=(${argv[$i]})" ;;
	floor) bin=$FLOOR; eval "args=(${floor_argv[$i]})" ;;
	esac
	if [[ $tool == floor && ${args[0]} == @tls@ ]]; then # the LDAPS probe
		bin=$FLOOR_TLS
		args=("${args[@]:1}")
	fi
	# adds: a fresh range of a million values for every run (the floor's from 50,000,000)
	local lo=$(((i * 2 + 1) * 1000000)) pre=("${common[@]}")
	case $tool in
	ldclt) lo=$((lo + 1000000)) ;;
	floor) lo=$((50000000 + i * 1000000)) pre=() ;;
	esac
	args=("${args[@]/#RLOW/$lo}")
	args=("${args[@]/#RHIGH/$((lo + 999999))}")
	args=("${args[@]/#FIRST/$lo}")
	snap=$logdir/snap
	out=$logdir/$(printf '%02d' "$i")-$tool
	{ printf '%s' "$bin"; printf ' %s' "${pre[@]@Q}" "${args[@]@Q}"; echo; } >"$out.cmd"
	bench_mon_snapshot "$snap"
	if [[ $tool == floor ]]; then # the probe's bind password, for its add runs
		LDBENCH_PASSWORD=$FIX_ROOTPW bench_measure "$out" "$limit" "$bin" "${args[@]}"
	else
		bench_measure "$out" "$limit" "$bin" "${pre[@]}" "${args[@]}"
	fi
	local n total rcode wall user sys busy slapd
	n=$(bench_mon_delta "$snap" "${ops[$i]}")
	total=$(bench_global_total "$out.log")
	[[ ${ops[$i]} != Add ]] || remove_adds "$i" "$lo" "$n"
	read -r rcode wall user sys busy slapd <"$out.m"
	local line
	line=$(awk -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v b="$busy" -v sl="$slapd" 'BEGIN {
		r = (w > 0) ? n / w : 0
		c = (n > 0) ? (u + s) * 1e6 / n : 0
		o = b - u - s - sl; if (o < 0) o = 0
		printf "%.0f\t%.2f\t%.2f", r, c, o }')
	local r c other
	IFS=$'\t' read -r r c other <<<"$line"
	rate[$i,$tool]=$r
	cpu[$i,$tool]=$c
	rc_of[$i,$tool]=$rcode
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${names[$i]}" "$tool" "$rcode" "$n" "$total" \
		"$wall" "$user" "$sys" "$r" "$c" "$slapd" "$busy" "$other" >>"$runs_tsv"
	printf '  %-7s rc=%-3s %8s %-6s in %6s s = %7s/s  client CPU %5s+%-5s s = %7s us/op  (tool says %s; slapd CPU %s s; other CPU %s s)\n' \
		"$tool" "$rcode" "$n" "${ops[$i]}" "$wall" "$r" "$user" "$sys" "$c" "$total" "$slapd" "$other"
	if awk -v o="$other" -v w="$wall" -v c="$(nproc)" 'BEGIN { exit !(o > 0.1 * w * c) }'; then
		disturbed+=("${names[$i]} ($tool): other processes used $other s of CPU in $wall s")
	fi
	if [[ $rcode != 0 ]]; then
		problems+=("${names[$i]}: $tool exited with status $rcode (command: $out.cmd, output: $out.log)")
		sed 's/^/      | /' "$out.log" | tail -n 15
	fi
	# ldbench counts completed operations; the server may also have completed
	# the few that were in flight when it stopped (at most threads x depth).
	if [[ $tool == ldbench && $total =~ ^[0-9]+$ && $rcode == 0 ]]; then
		local inflight
		inflight=$(awk -v a="${args[*]}" 'BEGIN {
			n = 10; d = 1; k = split(a, w, " ")
			for (j = 1; j < k; j++) { if (w[j] == "-n") n = w[j + 1]; if (w[j] == "-a") d = w[j + 1] }
			print n * d }')
		if ((n < total || n - total > inflight)); then
			problems+=("${names[$i]}: ldbench reported total $total, cn=Monitor counted $n ${ops[$i]} (allowed: total..total+$inflight)")
		fi
	fi
}

echo
for i in "${!names[@]}"; do
	echo "== ${names[$i]}"
	if ((i % 2 == 0)); then
		run_tool "$i" ldbench
		run_tool "$i" ldclt
	else
		run_tool "$i" ldclt
		run_tool "$i" ldbench
	fi
	[[ -z ${floor_argv[$i]} ]] || run_tool "$i" floor
done

# The comparison table, aligned on the terminal and as TSV.
{
	printf 'workload\tldbench_ops_per_s\tldclt_ops_per_s\trate_ratio\tldbench_cpu_us_per_op\tldclt_cpu_us_per_op\tcpu_ratio\tfloor_cpu_us_per_op\n'
	for i in "${!names[@]}"; do
		awk -v w="${names[$i]}" -v rb="${rate[$i,ldbench]}" -v rl="${rate[$i,ldclt]}" \
			-v cb="${cpu[$i,ldbench]}" -v cl="${cpu[$i,ldclt]}" -v cf="${cpu[$i,floor]:--}" 'BEGIN {
			rr = (rl > 0) ? sprintf("%.2f", rb / rl) : "-"
			cr = (cl > 0 && cb > 0) ? sprintf("%.2f", cb / cl) : "-"
			printf "%s\t%d\t%d\t%s\t%.1f\t%.1f\t%s\t%s\n", w, rb, rl, rr, cb, cl, cr, cf }'
	done
} >"$tsv"

echo
echo "server: $BENCH_SERVER"
echo "ops = operations completed according to the server (cn=Monitor; 389 DS: cn=snmp,cn=monitor); rate = ops / the tool's wall time"
echo "(process start-up, connects and shutdown are inside the wall time of both tools; nothing is subtracted);"
echo "client CPU = the tool's user+system time (/usr/bin/time) / ops.  Ratios are ldbench / ldclt."
echo
awk -F'\t' '
	NR == 1 { printf "%-20s %12s %12s %7s %14s %14s %7s\n", "workload", "ldbench op/s", "ldclt op/s", "rate x",
		"ldbench us/op", "ldclt us/op", "CPU x"; next }
	{ printf "%-20s %12s %12s %7s %14s %14s %7s\n", $1, $2, $3, $4, $5, $6, $7 }' "$tsv"
echo
echo "The floor: ldbench-floor-probe, the plainest client of the closed-loop model (a thread per client,"
echo "blocking sockets, requests pre-encoded, nothing measured), on the same server in the same run."
echo "What it spends is the kernel's work per operation and the sleep and wake-up of waiting for it:"
echo "a client with one request in flight per connection can approach it, not go far below it."
awk -F'\t' '
	NR == 1 { printf "%-20s %12s %14s %14s %12s %14s\n", "workload", "floor us/op", "ldbench us/op", "ldclt us/op",
		"floor/ldclt", "ldbench/floor"; next }
	$8 != "-" && $8 > 0 { printf "%-20s %12.1f %14s %14s %11.2fx %13.2fx\n", $1, $8, $5, $6,
		($6 > 0) ? $8 / $6 : 0, $5 / $8 }' "$tsv"
echo

# Targets (issue): PASS/MISS per workload.
verdict() { # NAME MAX_CPU_RATIO MIN_RATE_RATIO(- for none) LABEL
	local i idx=-1
	for i in "${!names[@]}"; do [[ ${names[$i]} == "$1" ]] && idx=$i; done
	((idx >= 0)) || return 0
	if [[ ${rc_of[$idx,ldbench]} != 0 || ${rc_of[$idx,ldclt]} != 0 ]]; then
		echo "MISS  $4 [$1]: a tool failed (ldbench rc=${rc_of[$idx,ldbench]}, ldclt rc=${rc_of[$idx,ldclt]})"
		return 0
	fi
	awk -v l="$4 [$1]" -v maxc="$2" -v minr="$3" -v rb="${rate[$idx,ldbench]}" -v rl="${rate[$idx,ldclt]}" \
		-v cb="${cpu[$idx,ldbench]}" -v cl="${cpu[$idx,ldclt]}" -v cf="${cpu[$idx,floor]:-}" 'BEGIN {
		cr = (cl > 0) ? cb / cl : 99; rr = (rl > 0) ? rb / rl : 0
		ok = (cr <= maxc + 1e-9)
		msg = sprintf("client CPU/op %.2fx (target <= %.2fx)", cr, maxc)
		if (minr != "-") { ok = ok && (rr >= minr - 1e-9); msg = msg sprintf(", rate %.2fx (target >= %.2fx)", rr, minr) }
		else msg = msg sprintf(", rate %.2fx (no target)", rr)
		if (cf != "" && cl > 0) {
			msg = msg sprintf("; the floor is %.2fx ldclt", cf / cl)
			if (!ok && cf / cl > maxc) msg = msg " (the target is below it)"
		}
		printf "%s  %s: %s\n", ok ? "PASS" : "MISS", l, msg }'
}
echo "Targets:"
verdict "exact -n 64" 0.70 1.00 "ldclt's own arguments"
verdict "random -n 64" 0.70 1.00 "ldclt's own arguments"
verdict "exact -n 4 -a 16" 0.45 1.30 "64 in flight, pipelined"
verdict "random -n 4 -a 16" 0.45 1.30 "64 in flight, pipelined"
verdict "bindeach -n 16" 0.50 - "a connection and bind per operation"
verdict "add -n 4" 0.50 - "adds (ldclt's add,person,incr,commoncounter,noloop)"
verdict "add -n 16" 0.50 - "adds (ldclt's add,person,incr,commoncounter,noloop)"
verdict "ldaps random -n 16" 1.00 - "LDAPS, persistent connections"
verdict "ldaps bindeach -n 16" 0.90 - "LDAPS, a connection and handshake per bind"
verdict "ldaps bindeach verified -n 16" 1.00 - "LDAPS, a handshake per bind, ldbench verifying (ldclt cannot)"
# TLS's own cost: ldbench over ldaps against ldbench in clear text, same load
tls_cost() { # TLS_NAME PLAIN_NAME MAX
	local i t=-1 p=-1
	for i in "${!names[@]}"; do
		[[ ${names[$i]} == "$1" ]] && t=$i
		[[ ${names[$i]} == "$2" ]] && p=$i
	done
	((t >= 0 && p >= 0)) || return 0
	awk -v ct="${cpu[$t,ldbench]}" -v cp="${cpu[$p,ldbench]}" -v m="$3" -v l="$1 vs $2" 'BEGIN {
		r = (cp > 0) ? ct / cp : 99
		printf "%s  TLS cost, ldbench [%s]: client CPU/op %.2fx clear text (target <= %.2fx)\n", (r <= m) ? "PASS" : "MISS", l, r, m }'
}
tls_cost "ldaps random -n 16" "random -n 16" 1.5
echo
if ((${#problems[@]})); then
	echo "Problems:"
	printf '  %s\n' "${problems[@]}"
	echo
fi
# System calls per operation, counted by kernel tracepoints (perf stat).
syscall_list=(read write sendto recvfrom sendmsg recvmsg writev readv poll ppoll epoll_wait epoll_pwait epoll_pwait2
	select futex socket connect close setsockopt getsockopt fcntl epoll_ctl shutdown)
perf_run() { # INDEX TOOL
	local i=$1 tool=$2 bin args out ev s n
	if [[ $tool == ldbench ]]; then bin=$LDBENCH; else bin=$LDCLT; fi
	eval "args=(${argv[$i]})"
	out=$logdir/$(printf '%02d' "$i")-$tool-perf
	ev=raw_syscalls:sys_enter,context-switches,task-clock
	for s in "${syscall_list[@]}"; do ev+=,syscalls:sys_enter_$s; done
	bench_mon_snapshot "$logdir/snap"
	perf stat -x, -e "$ev" -o "$out.stat" -- timeout -k 5 "$limit" "$bin" "${common[@]}" "${args[@]}" \
		>"$out.log" 2>&1 || true
	n=$(bench_mon_delta "$logdir/snap" "${ops[$i]}")
	awk -F, -v n="$n" -v t="$tool" '
		$1 !~ /^[0-9.]+$/ { next }
		$3 == "raw_syscalls:sys_enter" { all = $1; next }
		$3 == "context-switches" { cs = $1; next }
		$3 == "task-clock" { ms = $1; next }
		{ sub(/^syscalls:sys_enter_/, "", $3); if ($1 / n >= 0.05) top = top sprintf(" %s %.2f", $3, $1 / n) }
		END { printf "  %-7s %8d ops: %5.2f syscalls/op, %4.2f context switches/op, %5.1f us CPU/op (task-clock);%s\n",
			t, n, all / n, cs / n, ms * 1000 / n, top }' "$out.stat"
}
if ((syscalls)); then
	if perf stat -e raw_syscalls:sys_enter -- true >/dev/null 2>&1; then
		echo "System calls per operation (perf stat tracepoint counts; every syscall >= 0.05/op named):"
		for i in "${!names[@]}"; do
			case ${names[$i]} in
			"random -n 64" | "random -n 4 -a 16" | "bindeach -n 16")
				echo "== ${names[$i]}"
				perf_run "$i" ldbench
				perf_run "$i" ldclt
				;;
			esac
		done
		echo
	else
		echo "vs-ldclt: perf cannot count tracepoints here (perf_event_paranoid, tracefs); no syscall counts" >&2
	fi
fi

read -r _ load1 _ < <(cut -d' ' -f1-3 /proc/loadavg)
echo "vs-ldclt: load average after the runs: $load1"
if ((${#disturbed[@]})); then
	echo "vs-ldclt: WARNING: other processes took more than 10% of the machine during ${#disturbed[@]} of $((2 * ${#names[@]})) runs;"
	echo "          those figures measure the neighbours as much as the tools (other_cpu_s in the runs TSV):"
	printf '            %s\n' "${disturbed[@]}"
fi
echo "vs-ldclt: comparison  $tsv"
echo "vs-ldclt: every run   $runs_tsv"
echo "vs-ldclt: commands and outputs in $logdir/"
