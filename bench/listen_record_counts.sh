#!/usr/bin/env bash
# What the listeners' recordings for another host's writes cost the client,
# in user-space instructions (valgrind callgrind: counts that do not depend
# on how busy the shared machine is).  No traffic leaves 127.0.0.1.
#
#   bench/listen_record_counts.sh [--listeners N] [--short S] [--long L]
#
# A slapd with syncprov (tests/fixture/slapd.sh --syncprov, 1000 users).
#  --listen-record: the matcher thread (--toggle-collect=ldb_match_main,
#         which writes the records) with N listeners (default 10) beside a
#         modify load at 100/s for S and L seconds, without and with the
#         option: instructions per notification = (I(L) - I(S)) /
#         (notes(L) - notes(S)) (the matcher's idle polling is in its count,
#         which moves with valgrind's timing: compare the recording alone,
#         --toggle-collect=ldb_lrec_note, the same way); the listeners' I/O
#         threads are unchanged.
#  --write-record: the load's I/O thread (--toggle-collect=ldb_iothread_main:
#         the tap) and the recorder's writer thread (--toggle-collect=writer)
#         over -T 200*S and -T 200*L modifies, without and with the option:
#         per write = (I(L) - I(S)) / (200 (L - S)).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=10 short=4 long=12
while (($# > 0)); do
	case $1 in
	--listeners) N=${2:?}; shift 2 ;;
	--short) short=${2:?}; shift 2 ;;
	--long) long=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "listen_record_counts: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
command -v valgrind >/dev/null || { echo "listen_record_counts: valgrind is not installed" >&2; exit 2; }
bin=${LDBENCH:-$ROOT/build/ldbench}
[[ -x $bin ]] || { echo "listen_record_counts: build $bin first" >&2; exit 2; }
export LDBENCH=$bin LDBENCH_SOURCE_DIR=$ROOT
# shellcheck source=tests/fixture/slapd.sh
. "$ROOT/tests/fixture/slapd.sh"
fixture_start --users 1000 --syncprov
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f 'uid=userXXXXX' -r1
	-R1000 -n 1 -e attreplace=description:cXXXXXX,random)

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cg() { bench_cg "$@"; }
field() { bench_listen_field "$@"; }
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.0f", (b - a) / n }'; }

match_per_note() { # TAG FUNCTION EXTRA...: FUNCTION's instructions per notification
	local tag=$1 fn=$2
	shift 2
	local s l
	s=$(cg "$D/$tag.s" "$fn" "${common[@]}" --rate 100 --duration "${short}s" --listeners "$N" \
		--listen-base "$FIX_PEOPLE" --json "$D/$tag.s.json" "$@")
	l=$(cg "$D/$tag.l" "$fn" "${common[@]}" --rate 100 --duration "${long}s" --listeners "$N" \
		--listen-base "$FIX_PEOPLE" --json "$D/$tag.l.json" "$@")
	per "$s" "$l" $(($(field "$D/$tag.l.json" notifications) - $(field "$D/$tag.s.json" notifications)))
}
io_per_write() { # TAG FUNCTION EXTRA...: FUNCTION's instructions per modify
	local tag=$1 fn=$2
	shift 2
	local s l
	s=$(cg "$D/$tag.s" "$fn" "${common[@]}" -T $((200 * short)) "$@")
	l=$(cg "$D/$tag.l" "$fn" "${common[@]}" -T $((200 * long)) "$@")
	per "$s" "$l" $((200 * (long - short)))
}

echo "== --listen-record: the matcher, $N listeners, modifies at 100/s for $short s and $long s"
m0=$(match_per_note m0 ldb_match_main)
m1=$(match_per_note m1 ldb_match_main --listen-record "$D/notes.rec")
mr=$(match_per_note mr ldb_lrec_note --listen-record "$D/notes.rec")
echo "== --write-record: $((200 * short)) and $((200 * long)) modifies"
w0=$(io_per_write w0 ldb_iothread_main)
w1=$(io_per_write w1 ldb_iothread_main --write-record "$D/writes.rec")
wr=$(io_per_write wr writer --write-record "$D/writes.rec")

printf '%-52s %12s\n' "client instructions (callgrind)" "per item"
printf '%-52s %12s\n' "matcher per notification, no --listen-record" "$m0"
printf '%-52s %12s\n' "matcher per notification, --listen-record" "$m1"
printf '%-52s %12s\n' "of which the recording (ldb_lrec_note)" "$mr"
printf '%-52s %12s\n' "load's I/O thread per modify, no --write-record" "$w0"
printf '%-52s %12s\n' "load's I/O thread per modify, --write-record" "$w1"
printf '%-52s %12s\n' "--write-record's writer thread per modify" "$wr"
