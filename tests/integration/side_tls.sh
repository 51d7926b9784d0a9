#!/usr/bin/env bash
# Side connections over TLS (side/ldapconn): --monitor's reads, the pre-flight
# check and the -S watcher take the load's TLS policy.  Against slapd over
# ldaps and over StartTLS, with a CA that did not sign the server certificate
# (FIX_OTHER_CA), each stops the run before the load with ONE line saying the
# certificate did not verify and exit status 4, as the load's clients do
# (tls_load.sh); with the right --tls-cacert, and with --tls-insecure, each
# works (the server's counters agree, the pre-flight line, every checked
# write seen).  -S watches the server itself here: it shows its own writes at
# once, which is all the TLS path needs (repl_openldap.sh covers replicas).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 200 --tls
out=$FIX_DIR/out.txt
ldaps=(-H "ldaps://127.0.0.1:$FIX_LDAPS_PORT")
starttls=(-h 127.0.0.1 -p "$FIX_PORT" --starttls)
root=(-D "$FIX_ROOTDN" -w "$FIX_ROOTPW")
search=("${root[@]}" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1 -r1 -R200 -n 2 -T 20)
cannot() { # FILE WHAT PREFIX: one line, the certificate named, exit 4, no load
	assert_eq 4 "$RC" "$2: exit status"
	assert_eq 1 "$(grep -c 'certificate verify failed' "$1")" "$2: one line"
	assert_match "$3cannot connect to ldaps?://127\.0\.0\.1:[0-9]+ \(TLS\): certificate verify failed: the server certificate is not signed by --tls-cacert $FIX_OTHER_CA or not issued for 127\.0\.0\.1\$" "$1" "$2: the line"
	assert_no_match 'Global average rate|T000:' "$1" "$2: no load ran"
}

for mode in ldaps starttls; do
	if [[ $mode == ldaps ]]; then tls=("${ldaps[@]}"); else tls=("${starttls[@]}"); fi

	# 1. --monitor (--no-preflight: the monitor's own connection only)
	run_ldbench "$out" "${tls[@]}" --tls-cacert "$FIX_OTHER_CA" "${search[@]}" --monitor --no-preflight
	cannot "$out" "$mode --monitor, unknown CA" '^ldbench: --monitor: '
	for trust in "--tls-cacert $FIX_CA" --tls-insecure; do
		# shellcheck disable=SC2086 # two words or one
		run_ldbench "$out" "${tls[@]}" $trust "${search[@]}" --monitor --no-preflight
		assert_eq 0 "$RC" "$mode --monitor, $trust: exit status"
		assert_match ': Server \(cn=Monitor\): search completed 40 \(client: 40 completed, 0 in flight\): agree$' "$out" \
			"$mode --monitor, $trust: the server's count agrees"
	done

	# 2. the pre-flight check
	run_ldbench "$out" "${tls[@]}" --tls-cacert "$FIX_OTHER_CA" "${search[@]}"
	cannot "$out" "$mode pre-flight, unknown CA" '^ldbench\[[0-9]+\]: Pre-flight: '
	assert_no_match 'Pre-flight: search' "$out" "$mode pre-flight, unknown CA: nothing searched"
	for trust in "--tls-cacert $FIX_CA" --tls-insecure; do
		# shellcheck disable=SC2086
		run_ldbench "$out" "${tls[@]}" $trust "${search[@]}"
		assert_eq 0 "$RC" "$mode pre-flight, $trust: exit status"
		assert_match ': Pre-flight: search \(uid=user00001\) 1, \(uid=user00050\) 1, \(uid=user00100\) 1, \(uid=user00150\) 1, \(uid=user00200\) 1 entries$' \
			"$out" "$mode pre-flight, $trust: the line"
	done

	# 3. -S: the watcher's connection to the server (HOST:PORT takes the run's scheme)
	if [[ $mode == ldaps ]]; then consumer="127.0.0.1:$FIX_LDAPS_PORT"; else consumer="127.0.0.1:$FIX_PORT"; fi
	adds=("${root[@]}" -b "$FIX_BASE" -n 2 --io-threads 1 -S "$consumer" --repl-sample 5 -e add,person,incr,commoncounter,noloop)
	run_ldbench "$out" "${tls[@]}" --tls-cacert "$FIX_OTHER_CA" "${adds[@]}" -f "cn=$mode-aXXX" -r100 -R149
	cannot "$out" "$mode -S, unknown CA" "^ldbench: -S $consumer: "
	assert_eq 0 "$(fixture_count "$FIX_BASE" "(cn=$mode-a*)")" "$mode -S, unknown CA: nothing written"
	i=0
	for trust in "--tls-cacert $FIX_CA" --tls-insecure; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		run_ldbench "$out" "${tls[@]}" $trust "${adds[@]}" -f "cn=$mode-b${i}XXX" -r100 -R149
		assert_eq 0 "$RC" "$mode -S, $trust: exit status"
		assert_match "Replication summary $consumer: checked 10, seen 10, unseen 0," "$out" \
			"$mode -S, $trust: every checked write seen"
	done
done
echo "side_tls: all passed"
