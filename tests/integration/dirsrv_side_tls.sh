#!/bin/bash
# Side connections over TLS on 389 DS (the ctest fixture "dirsrv"): --monitor's
# reads, the pre-flight check and the -S watcher, over LDAPS and StartTLS.
# With a CA that did not sign the instance's certificate (made here), each
# stops the run before the load with ONE line saying the certificate did not
# verify and exit status 4, as the load's clients do; with the instance CA
# (--tls-cacert), and with --tls-insecure, each works (cn=snmp agrees with the
# client, the pre-flight line, every checked write seen: -S watches the
# instance itself, which shows its own writes at once).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dsside.XXXXXX")
cleanup() {
	dirsrv_search -b "$DS_BASE" '(cn=ldb17side*)' 1.1 2>/dev/null | sed -n 's/^dn: //p' |
		while read -r dn; do LDAPNOINIT=1 ldapdelete -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" "$dn"; done || true
	rm -rf "$work"
}
trap cleanup EXIT
out=$work/out
other=$work/other-ca.pem
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=ldbench unrelated CA" -keyout "$work/other.key" \
	-out "$other" 2>/dev/null
root=(-D "$DS_ROOTDN" -w "$DS_ROOTPW")
X=$(printf 'X%.0s' $(seq "$DS_WIDTH"))
search=("${root[@]}" -b "$DS_PEOPLE" -f "(uid=user$X)" -e esearch,random,srchnentries=1 -r"$DS_FIRST" -R"$DS_LAST" -n 2 -T 20)
cannot() { # FILE WHAT PREFIX: one line, the certificate named, exit 4, no load
	assert_eq 4 "$RC" "$2: exit status"
	assert_eq 1 "$(grep -c 'certificate verify failed' "$1")" "$2: one line"
	assert_match "$3cannot connect to ldaps?://127\.0\.0\.1:[0-9]+ \(TLS\): certificate verify failed: the server certificate is not signed by --tls-cacert $other or not issued for 127\.0\.0\.1\$" "$1" "$2: the line"
	assert_no_match 'Global average rate|T000:' "$1" "$2: no load ran"
}

for mode in ldaps starttls; do
	if [[ $mode == ldaps ]]; then
		tls=(-H "$DS_LDAPS_URI")
		consumer="127.0.0.1:$DS_LDAPS_PORT"
	else
		tls=(-h 127.0.0.1 -p "$DS_PORT" --starttls)
		consumer="127.0.0.1:$DS_PORT"
	fi

	# 1. --monitor (cn=snmp,cn=monitor)
	run_ldbench "$out" "${tls[@]}" --tls-cacert "$other" "${search[@]}" --monitor --no-preflight
	cannot "$out" "$mode --monitor, unknown CA" '^ldbench: --monitor: '
	for trust in "--tls-cacert $DS_CA" --tls-insecure; do
		# shellcheck disable=SC2086 # two words or one
		run_ldbench "$out" "${tls[@]}" $trust "${search[@]}" --monitor --no-preflight
		assert_eq 0 "$RC" "$mode --monitor, $trust: exit status"
		assert_match '^ldbench\[[0-9]+\]: Server \(cn=snmp,cn=monitor\): search completed 40 \(client: 40 completed, 0 in flight\): agree$' \
			"$out" "$mode --monitor, $trust: the server's count agrees"
	done

	# 2. the pre-flight check
	run_ldbench "$out" "${tls[@]}" --tls-cacert "$other" "${search[@]}"
	cannot "$out" "$mode pre-flight, unknown CA" '^ldbench\[[0-9]+\]: Pre-flight: '
	assert_no_match 'Pre-flight: search' "$out" "$mode pre-flight, unknown CA: nothing searched"
	for trust in "--tls-cacert $DS_CA" --tls-insecure; do
		# shellcheck disable=SC2086
		run_ldbench "$out" "${tls[@]}" $trust "${search[@]}"
		assert_eq 0 "$RC" "$mode pre-flight, $trust: exit status"
		assert_match ': Pre-flight: search \(uid=user[0-9]+\) 1, \(uid=user[0-9]+\) 1, \(uid=user[0-9]+\) 1, \(uid=user[0-9]+\) 1, \(uid=user[0-9]+\) 1 entries$' \
			"$out" "$mode pre-flight, $trust: the line"
	done

	# 3. -S: the watcher's connection (HOST:PORT takes the run's scheme)
	adds=("${root[@]}" -b "$DS_BASE" -n 2 --io-threads 1 -S "$consumer" --repl-sample 5 -e add,person,incr,commoncounter,noloop)
	run_ldbench "$out" "${tls[@]}" --tls-cacert "$other" "${adds[@]}" -f "cn=ldb17side-$mode-aXXX" -r100 -R149
	cannot "$out" "$mode -S, unknown CA" "^ldbench: -S $consumer: "
	assert_eq 0 "$(dirsrv_count "$DS_BASE" "(cn=ldb17side-$mode-a*)")" "$mode -S, unknown CA: nothing written"
	i=0
	for trust in "--tls-cacert $DS_CA" --tls-insecure; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		run_ldbench "$out" "${tls[@]}" $trust "${adds[@]}" -f "cn=ldb17side-$mode-b${i}XXX" -r100 -R149
		assert_eq 0 "$RC" "$mode -S, $trust: exit status"
		assert_match "Replication summary $consumer: checked 10, seen 10, unseen 0," "$out" \
			"$mode -S, $trust: every checked write seen"
	done
done
echo "dirsrv_side_tls: all passed"
