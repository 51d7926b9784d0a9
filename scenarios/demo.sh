#!/usr/bin/env bash
# The demo on a fresh Debian 12 machine: installs what is missing, builds
# ldbench, starts a throwaway slapd on 127.0.0.1 with 10,000 generated users,
# runs a random-UID search load and a bind load, then a few of the scenario
# files (scenarios/*.scen) with small counts, prints the results and stops the
# server.  Nothing leaves this machine.
#   scenarios/demo.sh [SECONDS_PER_LOAD]      (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
secs=${1:-10}

. "$ROOT/tests/fixture/packages.sh"
install_missing demo cmake make gcc pkg-config libldap-dev libssl-dev libgnutls28-dev zlib1g-dev libcmocka-dev slapd ldap-utils openssl

echo "demo: building"
cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=Release -DLDBENCH_TESTS=OFF >/dev/null
cmake --build "$ROOT/build" -j "$(nproc)" >/dev/null
export LDBENCH=$ROOT/build/ldbench LDBENCH_SOURCE_DIR=$ROOT

. "$ROOT/tests/fixture/slapd.sh"
echo "demo: starting slapd with 10,000 users"
fixture_start --users 10000
echo "demo: slapd on $FIX_URI, base $FIX_BASE"
export LDBENCH_PASSWORD=$FIX_ROOTPW   # keeps the password off the command line

echo
echo "=== random exact-UID searches: 4 threads x 16 in flight, ${secs} s"
"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -b "$FIX_PEOPLE" \
	-f "(uid=userXXXXX)" -e esearch,random,srchnentries=1,attrlist=uid:cn -r1 -R10000 \
	-n 4 -a 16 --interval "${secs}s" -N 1

echo
echo "=== random binds over the population, a connection per bind: 8 threads, ${secs} s"
unset LDBENCH_PASSWORD
"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX \
	-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000 \
	-n 8 --interval "${secs}s" -N 1

echo
echo "=== scenario files (scenarios/*.scen): the seeds' workloads by name"
"$LDBENCH" --list-scenarios "$ROOT/scenarios"
# a chosen few, with small counts given on the command line (they override the file's)
export LDBENCH_PASSWORD=$FIX_ROOTPW
root=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -b "$FIX_PEOPLE")
echo
echo "=== scenario random-uid-search (389 DS guide), over the 10,000 users, 8 x 2,000 searches"
"$LDBENCH" --scenario "$ROOT/scenarios/random-uid-search.scen" "${root[@]}" -R 10000 -T 2000 -Q
echo
echo "=== scenario sweep-search-random-cn (back-wt benchmark), concurrency 1, 4, 16, 2 s each"
"$LDBENCH" --scenario "$ROOT/scenarios/sweep-search-random-cn.scen" "${root[@]}" \
	--sweep 1,4,16 --duration 2s -Q 2>&1 | sed -n '/Sweep of/,$p'
unset LDBENCH_PASSWORD
echo
echo "=== scenario bind-random-population (389 DS guide), 4 x 500 binds, a connection each"
"$LDBENCH" --scenario "$ROOT/scenarios/bind-random-population.scen" -h 127.0.0.1 -p "$FIX_PORT" \
	-D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX -e randombinddnhigh=10000 -T 500 -Q

echo
echo "demo: stopping slapd"
fixture_stop
