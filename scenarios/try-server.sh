#!/usr/bin/env bash
# A throwaway slapd for trying the documentation's commands: on 127.0.0.1
# only, with N generated users (uid=user00001.., ou=People,dc=example,dc=com,
# each user's password its uid), cn=Monitor, and slapd's stats log (loglevel
# stats) in DIR/stats.log for --server-log, `ldbench replay` and `ldbench
# join`.  Prints the URI, the base, the root DN with its password file and the
# log's path, then waits: Ctrl-C (or SIGTERM) stops the server and removes its
# database; DIR (the log, the password file) stays for what you replay later.
#   scenarios/try-server.sh [--users N] [--tls] [--dir DIR]
#       N default 10000; --tls also StartTLS and ldaps with a throwaway CA
#       (its path printed); DIR default /tmp/ldbench-try (its stats.log emptied)
# Needs build/ldbench (scenarios/demo.sh or tests/run.sh builds it), slapd and
# ldap-utils.  Exit status: 0 stopped by a signal, 2 bad usage or no ldbench.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
users=10000 dir=/tmp/ldbench-try tls=()
usage() { echo "usage: scenarios/try-server.sh [--users N] [--tls] [--dir DIR]" >&2; exit 2; }
while (($#)); do
	case $1 in
	--users) [[ ${2:-} =~ ^[1-9][0-9]{0,5}$ ]] || usage; users=$2; shift 2 ;;
	--tls) tls=(--tls); shift ;;
	--dir) [[ -n ${2:-} ]] || usage; dir=$2; shift 2 ;;
	*) usage ;;
	esac
done
export LDBENCH=${LDBENCH:-$ROOT/build/ldbench} LDBENCH_SOURCE_DIR=$ROOT
if [[ ! -x $LDBENCH ]]; then
	echo "try-server: no $LDBENCH: build it first (scenarios/demo.sh, or cmake -S . -B build && cmake --build build)" >&2
	exit 2
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
: >"$dir/stats.log"
export FIX_STATS_LOG=$dir/stats.log
# shellcheck source=../tests/fixture/slapd.sh
. "$ROOT/tests/fixture/slapd.sh"
fixture_start --users "$users" "${tls[@]}"
cp "$FIX_PWFILE" "$dir/rootpw"
chmod 600 "$dir/rootpw"
cat <<EOF
try-server: slapd (pid $FIX_PID) with $users users; Ctrl-C stops it
  URI        $FIX_URI   (-h 127.0.0.1 -p $FIX_PORT)
  base       $FIX_PEOPLE   (uid=user00001.., password = uid)
  root DN    $FIX_ROOTDN   (password file $dir/rootpw)
  stats log  $dir/stats.log
EOF
if ((${#tls[@]})); then
	echo "  ldaps      $FIX_LDAPS_URI   (CA $FIX_CA; StartTLS on $FIX_URI)"
fi
echo "  try        $LDBENCH -h 127.0.0.1 -p $FIX_PORT -D '$FIX_ROOTDN' -y $dir/rootpw -b $FIX_PEOPLE" \
	"-f '(uid=userXXXXX)' -e esearch,random -r1 -R$users -n 4 --duration 10s --server-log $dir/stats.log"
sleeper=
trap 'echo "try-server: stopping slapd"; [[ -n $sleeper ]] && kill "$sleeper" 2>/dev/null; exit 0' INT TERM
while :; do
	sleep 3600 &
	sleeper=$!
	wait "$sleeper" || true
done
