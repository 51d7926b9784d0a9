#!/usr/bin/env bash
# -S against real 389 DS replication (tests/fixture/dirsrv_repl.sh: a supplier
# and a consumer, one agreement): adds then deletes on the supplier, every 5th
# checked on the consumer: every checked write is seen, the delays are above 0
# and below the run's length, and the consumer holds what the supplier holds;
# between them random modifies with the consumer held back for 2 s: the
# writes modified again before they showed are superseded, none unseen.
# About a minute, most of it dscreate and instance removal: left out of the
# sanitizer builds (LDBENCH_TIME_FACTOR > 1), where the OpenLDAP pair
# (repl_openldap.sh) covers the same code.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/dirsrv_repl.sh"
. "$here/../fixture/assert.sh"
if ((${LDBENCH_TIME_FACTOR:-1} > 1)); then
	echo "repl_dirsrv: SKIPPED in a sanitizer build (see the header)"
	exit 77
fi
if ! command -v dscreate >/dev/null; then
	echo "repl_dirsrv: SKIPPED: 389-ds-base is not installed"
	exit 77
fi
if [[ "$(id -u)" != 0 ]]; then
	echo "repl_dirsrv: SKIPPED: not root (uid $(id -u)): 389 DS instances are made by dscreate as root"
	exit 77
fi
LDBENCH=${LDBENCH:-$here/../../build/ldbench}
dsrepl_start
out=$DSR_DIR/out.txt
sup=(-h 127.0.0.1 -p "$DSR_SPORT" -D "$DSR_ROOTDN" -w "$DSR_ROOTPW" -b "$DSR_BASE" -f "cn=dXXXX" -r1000 -R1099
	-n 2 --io-threads 1 -S "127.0.0.1:$DSR_CPORT" --repl-sample 5 --fail-if 'repl.unseen>0')
summary() { # FIELD: of the "Replication summary" line
	sed -nE "s/.*Replication summary 127.0.0.1:$DSR_CPORT: .*\\b$1 ([0-9]+),.*/\\1/p" "$out"
}
delay_us() { # 1 = min, 2 = max
	sed -nE "s|.*Replication summary 127.0.0.1:$DSR_CPORT: .*max ([0-9.]+)/[0-9.]+/[0-9.]+/[0-9.]+/([0-9.]+) ms.*|\\1 \\2|p" "$out" |
		awk -v i="$1" '{ printf "%d\n", $i * 1000 }'
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# the consumer's ns-slapd (its pid file names it), to hold it back
consumer_pid() {
	local f
	for f in /run/dirsrv/slapd-"$DSR_CNAME".pid /var/run/dirsrv/slapd-"$DSR_CNAME".pid; do
		[[ -s $f ]] && { cat "$f"; return; }
	done
	pgrep -f "ns-slapd .*slapd-$DSR_CNAME( |\$)" | head -n 1
}
for kind in add superseded delete; do
	if [[ $kind == superseded ]]; then
		# random values on the 100 entries at about 300 modifies/s for 6 s,
		# the consumer held back from 2 s to 4 s: the samples modified again
		# before they showed are superseded, none unseen, no wait for them.
		# Every write is a sample (--repl-sample 1): a sample is superseded
		# once the consumer has shown a later sample, and with the default
		# rate the run's last samples could be replaced by writes that were
		# not sampled, and then wait out --repl-timeout (unseen: seen once in
		# a clean-clone run, 2 of them)
		cpid=$(consumer_pid)
		[[ -n $cpid ]] || _fail "superseded: the consumer's process"
		(sleep 2 && kill -STOP "$cpid" && sleep 2 && kill -CONT "$cpid") &
		stopper=$!
		t0=$(now_ms)
		run_ldbench "$out" -h 127.0.0.1 -p "$DSR_SPORT" -D "$DSR_ROOTDN" -w "$DSR_ROOTPW" -b "$DSR_BASE" \
			-f "cn=dXXXX" -r1000 -R1099 -n 2 --io-threads 1 --rate 300 --duration 6s \
			-S "127.0.0.1:$DSR_CPORT" --repl-sample 1 --repl-timeout 60s -e random,attreplace=description:vXXXXXXXX
		t1=$(now_ms)
		wait "$stopper"
		assert_eq 0 "$RC" "superseded: exit status"
		assert_eq 0 "$(summary unseen)" "superseded: writes unseen"
		assert_ge 1 "$(summary superseded)" "superseded: writes superseded"
		assert_eq "$(summary checked)" "$(($(summary seen) + $(summary superseded)))" \
			"superseded: checked = seen + superseded"
		assert_le 30000 $((t1 - t0)) "superseded: the run ended well before --repl-timeout (ms)"
		continue
	fi
	t0=$(now_ms)
	if [[ $kind == add ]]; then
		run_ldbench "$out" "${sup[@]}" -e add,person,incr,commoncounter,noloop
	else
		run_ldbench "$out" "${sup[@]}" -e delete,incr,commoncounter,noloop
	fi
	t1=$(now_ms)
	assert_eq 0 "$RC" "$kind: exit status"
	assert_eq 20 "$(summary checked)" "$kind: writes checked"
	assert_eq 20 "$(summary seen)" "$kind: writes seen"
	assert_eq 0 "$(summary unseen)" "$kind: writes unseen"
	assert_ge 1 "$(delay_us 1)" "$kind: shortest delay (us)"
	assert_le $(((t1 - t0) * 1000)) "$(delay_us 2)" "$kind: longest delay (us) within the run"
	if [[ $kind == add ]]; then
		assert_eq 100 "$(dsrepl_count "$DSR_CURI" "$DSR_BASE" '(objectClass=person)')" "add: the consumer's entries"
	else
		assert_eq 0 "$(dsrepl_count "$DSR_CURI" "$DSR_BASE" '(objectClass=person)')" "delete: none left on the consumer"
	fi
done
assert_no_match "$DSR_ROOTPW" "$out" "no password in the output"
echo "repl_dirsrv: all passed"
