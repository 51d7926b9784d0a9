#!/usr/bin/env bash
# 389 DS's write rate with listeners for changes: is the limit the server's?
# (with 50 content-sync listeners 389 DS served 30-60 modifies/s here in
# tests/integration/dirsrv_listeners.sh).  No traffic leaves 127.0.0.1.
# Needs root (dscreate), 389-ds-base, python3-ldap under /usr/bin/python3.
#
#   bench/listen_dirsrv.sh [--seconds S] [--users N] [--settings]
#
# A 389 DS of its own (tests/fixture/dirsrv.sh, N users, default 1000) with
# the content synchronization and retro changelog plug-ins enabled (128
# sessions), then for each of: no listeners, 10, 25 and 50 sync listeners,
# 50 persistent searches, two writers, each for S seconds (default 10),
# closed loop, one modify in flight (a random user's description):
#  ldbench: -n 1 -e attreplace, the listeners in the same process
#           (--listeners N: the run also checks that every one arrived);
#           with no listeners and with 50 sync ones also -n 8 (ldbench-n8:
#           8 modifies in flight: does the server serialize them?);
#  python3-ldap: modify_s in a loop on one connection, the listeners held
#           by an ldbench of their own (--listeners N beside a search a
#           second) started before it.
# For each: writes per second, the server's CPU over the writer's run
# (ns-slapd's user + system ticks, /proc/PID/stat: cores busy) and the
# writer's own CPU (/usr/bin/time: ldbench's includes its listeners).
# --settings adds 50 sync listeners again with nsslapd-threadnumber 16 and
# with the retro changelog trimmed (nsslapd-changelogmaxage 60s), each
# set, the server restarted, and taken back.
# Prints a table; the figures go to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
S=10 users=1000 settings=0
while (($# > 0)); do
	case $1 in
	--seconds) S=${2:?}; shift 2 ;;
	--users) users=${2:?}; shift 2 ;;
	--settings) settings=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "listen_dirsrv: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
bin=${LDBENCH:-$ROOT/build/ldbench}
[[ -x $bin ]] || { echo "listen_dirsrv: build $bin first" >&2; exit 2; }
/usr/bin/python3 -c 'import ldap' 2>/dev/null || { echo "listen_dirsrv: python3-ldap is not installed" >&2; exit 2; }
((EUID == 0)) || { echo "listen_dirsrv: 389 DS's dscreate needs root" >&2; exit 2; }
# shellcheck source=tests/fixture/dirsrv.sh
. "$ROOT/tests/fixture/dirsrv.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-listen-dirsrv.XXXXXX")
trap 'dirsrv_remove; rm -rf "$work"' EXIT
dirsrv_create --users "$users"
HZ=$(getconf CLK_TCK)

dsconf_() { PREFIX=$DS_PREFIX timeout 120 dsconf -D "$DS_ROOTDN" -y "$DS_PWFILE" "$DS_URI" "$@" >>"$work/dsconf.log" 2>&1; }
modify() { # LDIF on stdin, as the root DN
	LDAPNOINIT=1 ldapmodify -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >>"$work/dsconf.log" 2>&1
}
dsconf_ plugin retro-changelog enable
dsconf_ plugin contentsync enable
modify <<EOF
dn: cn=Content Synchronization,cn=plugins,cn=config
changetype: modify
replace: nsslapd-pluginarg0
nsslapd-pluginarg0: 128
EOF
restart() { dirsrv_stop && dirsrv_start; }
restart
slapd_pid() { pgrep -f "ns-slapd .*slapd-$DS_NAME" | head -n 1; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

X=$(printf 'X%.0s' $(seq "$DS_WIDTH"))
base=(-h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -w "$DS_ROOTPW" -b "$DS_PEOPLE")
cat >"$work/writer.py" <<'EOF'
import random, sys, time
import ldap
uri, dn, pwfile, people, width, users, seconds = sys.argv[1:8]
c = ldap.initialize(uri)
c.simple_bind_s(dn, open(pwfile).read())
n, end = 0, time.monotonic() + float(seconds)
while time.monotonic() < end:
    u = random.randint(1, int(users))
    v = "p%06d" % random.randint(0, 999999)
    c.modify_s("uid=user%0*d,%s" % (int(width), u, people), [(ldap.MOD_REPLACE, "description", v.encode())])
    n += 1
print(n)
EOF

settle() { # the last row's connections (and sync sessions) gone: at most 30 s
	local i
	for ((i = 0; i < 150 && $(dirsrv_monitor currentconnections) > conns0 + 1; i++)); do
		sleep 0.2
	done
}

# One measurement: the writer's writes/s, the server's cores busy, the writer's CPU seconds.
row() { # KIND N WRITER
	local kind=$1 n=$2 writer=$3 pid t0 t1 w0 w1 writes cpu hold=
	local largs=()
	((n > 0)) && largs=(--listeners "$n" --listen-kind "$kind" --listen-base "$DS_PEOPLE")
	pid=$(slapd_pid)
	settle
	if [[ $writer == python3-ldap && $n -gt 0 ]]; then
		# the listeners held by an ldbench of their own (a search a second beside them)
		"$bin" "${base[@]}" -f "uid=user$X" -r1 -R"$users" -e esearch,random --rate 1 --interval 1s \
			--duration $((S + 60))s "${largs[@]}" >"$work/hold.out" 2>&1 &
		hold=$!
		local i
		for ((i = 0; i < 600; i++)); do # the refreshes over: its load's first sample line
			grep -q 'latency (ms)' "$work/hold.out" && break
			sleep 0.2
		done
		grep -q 'latency (ms)' "$work/hold.out" ||
			{ echo "listen_dirsrv: the listeners did not start: $(tail -n 3 "$work/hold.out")" >&2; exit 1; }
	fi
	t0=$(ticks "$pid")
	w0=$SECONDS
	if [[ $writer == ldbench* ]]; then
		local inflight=1
		[[ $writer == ldbench-n8 ]] && inflight=8
		/usr/bin/time -f '%U %S' -o "$work/w.time" "$bin" "${base[@]}" -f "uid=user$X" -r1 -R"$users" -n $inflight \
			--io-threads 1 -e attreplace=description:wXXXXXX,random --duration "${S}s" "${largs[@]}" \
			--json "$work/w.json" >"$work/w.out" 2>&1
		writes=$(sed -nE 's/.*modify: attempted [0-9]+, completed [0-9]+, succeeded ([0-9]+),.*/\1/p' "$work/w.out" |
			tail -n 1)
	else
		/usr/bin/time -f '%U %S' -o "$work/w.time" /usr/bin/python3 "$work/writer.py" "$DS_URI" "$DS_ROOTDN" \
			"$DS_PWFILE" "$DS_PEOPLE" "$DS_WIDTH" "$users" "$S" >"$work/w.out" 2>&1
		writes=$(tail -n 1 "$work/w.out")
	fi
	t1=$(ticks "$pid")
	w1=$SECONDS
	if [[ -n $hold ]]; then
		kill -INT "$hold" 2>/dev/null || true
		wait "$hold" 2>/dev/null || true
	fi
	settle
	cpu=$(awk '{ print $1 + $2 }' "$work/w.time")
	local miss=-
	[[ $writer == ldbench* && $n -gt 0 ]] &&
		miss=$(grep '^{"type":"summary"' "$work/w.json" | grep -oE '"listeners":\{[^}]*' | grep -oE '"missing":[0-9]+' |
			cut -d: -f2)
	printf '%-8s %9s %-13s %9.1f %13.2f %11.2f %8s\n' "$kind" "$n" "$writer" "$(awk -v w="$writes" -v s="$S" \
		'BEGIN { print w / s }')" "$(awk -v a="$t0" -v b="$t1" -v hz="$HZ" -v s=$((w1 - w0)) \
		'BEGIN { print (b - a) / hz / (s > 0 ? s : 1) }')" "$cpu" "$miss"
}

header() {
	printf '%-8s %9s %-13s %9s %13s %11s %8s\n' kind listeners writer writes/s "server cores" "writer s" missing
}
conns0=$(dirsrv_monitor currentconnections)
echo "389 DS $(ns-slapd -v 2>/dev/null | sed -n 2p), $users users, ${S} s per row, one modify in flight (ldbench-n8: 8)"
header
for spec in sync:0 sync:10 sync:25 sync:50 psearch:50; do
	for writer in ldbench python3-ldap; do
		row "${spec%%:*}" "${spec#*:}" "$writer"
	done
	[[ $spec == sync:0 || $spec == sync:50 ]] && row "${spec%%:*}" "${spec#*:}" ldbench-n8
done
if ((settings)); then
	echo "== nsslapd-threadnumber 16 (the server restarted)"
	old=$(dirsrv_search -b cn=config -s base nsslapd-threadnumber | sed -n 's/^nsslapd-threadnumber: //p')
	modify <<EOF
dn: cn=config
changetype: modify
replace: nsslapd-threadnumber
nsslapd-threadnumber: 16
EOF
	restart
	header
	row sync 50 ldbench
	modify <<EOF
dn: cn=config
changetype: modify
replace: nsslapd-threadnumber
nsslapd-threadnumber: ${old:-16}
EOF
	echo "== the retro changelog trimmed: nsslapd-changelogmaxage 60s (the server restarted)"
	modify <<EOF
dn: cn=Retro Changelog Plugin,cn=plugins,cn=config
changetype: modify
replace: nsslapd-changelogmaxage
nsslapd-changelogmaxage: 60s
EOF
	restart
	header
	row sync 50 ldbench
	row sync 0 ldbench
fi
