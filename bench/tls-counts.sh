#!/usr/bin/env bash
# Instructions per LDAPS bind with a connection of its own (-e bindeach,bindonly
# over ldaps), counted by valgrind --tool=callgrind, for ldbench (with each of
# its TLS libraries: --tls-library openssl and gnutls), ldclt and the TLS
# floor probes (bench/floor_probe_tls.c: OpenSSL, OpenSSL in ldbench's lean
# context, GnuTLS) on the same throwaway slapd (tests/fixture/slapd.sh, 127.0.0.1).
# Instruction counts do not depend on the machine's load, unlike CPU times.
#
#   bench/tls-counts.sh [--server slapd|389ds] [--key ec|rsa] [--tls 1.2|1.3]
#                       [--low N] [--high M] [--base BIN] [--search]
#     --server   slapd (default: the test fixture) or 389ds (a throwaway 389 DS
#                instance, tests/fixture/dirsrv.sh: its own RSA certificate,
#                TLS 1.3; --key and --tls do not apply; needs root)
#     --key      the server certificate's key type (default ec: P-256; rsa: 2048)
#     --tls      1.3 (default) or 1.2 (slapd offers no TLS 1.3: GnuTLS priority
#                NORMAL:-VERS-TLS1.3)
#     --low/--high  the two counts of binds (default 20 and 120): each tool runs
#                once per count with one thread (-n 1 -T COUNT, the probes -c);
#                the figure is the difference of the two runs' instructions in
#                the threads that do the binds (all but the main thread: that
#                leaves out start-up and ldbench's once-a-second sampling, which
#                valgrind's slowness would multiply), divided by high - low
#     --base BIN  also an earlier ldbench binary (before/after)
#     --search    also persistent LDAPS: instructions per search (-e
#                 esearch,random as the root DN, one connection, one handshake;
#                 ten times the counts), with each library
#
# Prints one line per tool and verification mode: "TOOL MODE: N instructions
# per bind". ldclt cannot verify (its -Z names an NSS database); ldbench and the
# probes run both without verification (-Z, as ldclt) and with it (the CA and
# 127.0.0.1 checked).  Builds nothing: uses build-bench/ (bench/vs-ldclt.sh
# builds it) unless LDBENCH and PROBE_TLS name the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
key=ec tls=1.3 low=20 high=120 base= search=0 server=slapd
while (($# > 0)); do
	case $1 in
	--server) server=${2:?}; shift 2 ;;
	--key) key=${2:?}; shift 2 ;;
	--tls) tls=${2:?}; shift 2 ;;
	--low) low=${2:?}; shift 2 ;;
	--high) high=${2:?}; shift 2 ;;
	--base) base=${2:?}; shift 2 ;;
	--search) search=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "tls-counts: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
[[ $server == slapd || $server == 389ds ]] || { echo "tls-counts: --server must be slapd or 389ds" >&2; exit 2; }
[[ $key == ec || $key == rsa ]] || { echo "tls-counts: --key must be ec or rsa" >&2; exit 2; }
[[ $tls == 1.2 || $tls == 1.3 ]] || { echo "tls-counts: --tls must be 1.2 or 1.3" >&2; exit 2; }
((low >= 1 && high > low)) || { echo "tls-counts: need 1 <= --low < --high" >&2; exit 2; }
LDBENCH=${LDBENCH:-$ROOT/build-bench/ldbench}
PROBE_TLS=${PROBE_TLS:-$ROOT/build-bench/ldbench-floor-probe-tls}
for b in "$LDBENCH" "$PROBE_TLS" ${base:+"$base"}; do
	[[ -x $b ]] || { echo "tls-counts: $b is not built (bench/vs-ldclt.sh builds build-bench/)" >&2; exit 2; }
done
for t in valgrind ldclt certutil; do
	command -v "$t" >/dev/null || { echo "tls-counts: $t is missing" >&2; exit 77; }
done
export LDBENCH LDBENCH_SOURCE_DIR=$ROOT
if [[ $server == 389ds ]]; then
	# shellcheck source=bench/lib.sh
	. "$ROOT/bench/lib.sh"
	bench_server_start 389ds
	out=$(mktemp -d /tmp/tls-counts.XXXXXX)
	trap 'dirsrv_remove; rm -rf "$out"' EXIT
	key="rsa (389 DS's own)" tls=1.3
else
	# shellcheck source=tests/fixture/slapd.sh
	. "$ROOT/tests/fixture/slapd.sh"
	[[ $tls == 1.3 ]] || export FIX_EXTRA_GLOBAL="TLSCipherSuite NORMAL:-VERS-TLS1.3"
	fixture_start --users 10000 --tls --tls-key "$key" --nosync
	out=$FIX_DIR/counts
fi
mkdir -p "$out" "$out/nss"
certutil -N -d "sql:$out/nss" --empty-password
certutil -A -d "sql:$out/nss" -n bench-ca -t "CT,," -i "$FIX_CA"
binds=(-D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX -n 1
	-e "bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000")
insecure=(-h 127.0.0.1 -p "$FIX_LDAPS_PORT" -Z "$out/nss/cert9.db")
verified=(-H "ldaps://127.0.0.1:$FIX_LDAPS_PORT" --tls-cacert "$FIX_CA")

# The instructions of every thread but the first (callgrind --separate-threads).
workers() { # LABEL COUNT CMD...
	local f=$out/$1-$2.cg n total=0
	shift 2
	valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$f" "$@" >"$f.log" 2>&1 ||
		{ echo "tls-counts: failed: $* (log: $f.log)" >&2; return 1; }
	for t in "$f"-*; do
		[[ $t == "$f-01" ]] && continue
		n=$(awk '/^summary:/ { print $2; exit }' "$t")
		total=$((total + n))
	done
	echo "$total"
}
per_op() { # NAME MODE CMD-WITH-COUNT-AS-@N@...
	local name=$1 mode=$2 a b lo_cmd hi_cmd
	shift 2
	lo_cmd=("${@//@N@/$low}") hi_cmd=("${@//@N@/$high}")
	a=$(workers "$name-$mode" "$low" "${lo_cmd[@]}") || return 0
	b=$(workers "$name-$mode" "$high" "${hi_cmd[@]}") || return 0
	printf '%-22s %-10s %10d instructions per %s\n' "$name" "$mode" $(((b - a) / (high - low))) "${unit:-bind}"
}
echo "tls-counts: $server on 127.0.0.1:$FIX_LDAPS_PORT, $key key, TLS $tls; binds $low and $high per run"
per_op ldclt insecure ldclt "${insecure[@]}" "${binds[@]}" -T @N@
for lib in openssl gnutls; do
	per_op "ldbench-$lib" insecure "$LDBENCH" "${insecure[@]}" "${binds[@]}" --tls-library $lib -e sampinterval=1 -T @N@
	per_op "ldbench-$lib" verified "$LDBENCH" "${verified[@]}" "${binds[@]}" --tls-library $lib -e sampinterval=1 -T @N@
done
if [[ -n $base ]]; then # an earlier binary, with its default library
	per_op base insecure "$base" "${insecure[@]}" "${binds[@]}" -e sampinterval=1 -T @N@
	per_op base verified "$base" "${verified[@]}" "${binds[@]}" -e sampinterval=1 -T @N@
fi
probe=(-p "$FIX_LDAPS_PORT" -n 1 -c @N@ --people "$FIX_PEOPLE" --users 10000)
for lib in openssl openssl-lean gnutls; do
	per_op "probe-$lib" insecure "$PROBE_TLS" "$lib" "${probe[@]}"
	per_op "probe-$lib" verified "$PROBE_TLS" "$lib" "${probe[@]}" --cacert "$FIX_CA"
done
if ((search)); then
	unit=search low=$((low * 10)) high=$((high * 10))
	srch=(-D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random
		-r1 -R10000 -n 1 -e sampinterval=1)
	for lib in openssl gnutls; do
		per_op "ldbench-$lib-persistent" verified "$LDBENCH" "${verified[@]}" "${srch[@]}" --tls-library $lib -T @N@
	done
	[[ -z $base ]] || per_op "base-persistent" verified "$base" "${verified[@]}" "${srch[@]}" -T @N@
fi
