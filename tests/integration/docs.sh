#!/usr/bin/env bash
# The documentation cannot rot:
#  1. `ldbench --help` and the man page (docs/ldbench.1) list the same short
#     flags, long options and -e keywords, compared both ways;
#  2. the man page renders without a warning;
#  3. every runnable block of docs/guide.md (```sh blocks whose first line is
#     "# test", convention at the top of the guide) runs, in order, against the
#     fixture slapd, with the guide's lab variables set from the fixture.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/../fixture/assert.sh"
LDBENCH=${LDBENCH:-$src/build/ldbench}
man1=$src/docs/ldbench.1
guide=$src/docs/guide.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- 1. option lists: --help against the man page --------------------------
"$LDBENCH" --help >"$tmp/help.txt"
# --help: "  -x ..." lines, every --long in lines that start with "  --", and the
# keywords of the "Execution keywords (-e):" block
{
	sed -nE 's/^  (-[a-zA-Z]) .*/\1/p' "$tmp/help.txt"
	grep -E '^  --' "$tmp/help.txt" | grep -oE -- '--[a-z][a-z0-9-]*'
} | sort -u >"$tmp/help.opts"
awk '/^Execution keywords \(-e\):/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-zA-Z]/ { print }' \
	"$tmp/help.txt" | sed -E 's/^  ([a-zA-Z]+).*/\1/' | sort -u >"$tmp/help.kw"
# the man page's source: the tag line after each .TP in OPTIONS and LONG
# OPTIONS, and in EXECUTION KEYWORDS (macro, \- and font escapes removed)
tags() {
	awk -v s="$1" '/^\.SH / { on = (substr($0, 5) == s || substr($0, 5) == "\"" s "\"") ; next }
		on && /^\.TP/ { t = 1; next } on && t { print; t = 0 }' "$man1" |
		sed -E -e 's/^\.[A-Z]+ //' -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/"//g'
}
{
	tags OPTIONS
	tags "LONG OPTIONS"
} | grep -oE -- '(^|[[:space:]])--?[a-zA-Z][a-z0-9-]*' | tr -d ' \t' | sort -u >"$tmp/man.opts"
tags "EXECUTION KEYWORDS" | sed -E 's/^([a-zA-Z]+).*/\1/' | sort -u >"$tmp/man.kw"
MANWIDTH=200 LC_ALL=C.UTF-8 man -l "$man1" 2>/dev/null | col -b >"$tmp/man.txt"
assert_ge 25 "$(wc -l <"$tmp/help.opts")" "options listed by --help"
assert_ge 40 "$(wc -l <"$tmp/help.kw")" "-e keywords listed by --help"
for kind in opts kw; do
	only_help=$(comm -23 "$tmp/help.$kind" "$tmp/man.$kind" | tr '\n' ' ')
	only_man=$(comm -13 "$tmp/help.$kind" "$tmp/man.$kind" | tr '\n' ' ')
	assert_eq "" "$only_help" "$kind in --help but not in the man page"
	assert_eq "" "$only_man" "$kind in the man page but not in --help"
done
# the subcommands, exit statuses and scenario options have their sections
for s in "SCENARIO FILES" SUBCOMMANDS OUTPUT "EXIT STATUS" EXAMPLES; do
	assert_match "^$s\$" "$tmp/man.txt" "man page section $s"
done
for st in 0 2 3 4 7 10 99; do
	assert_match "^       $st( |\$)" "$tmp/man.txt" "exit status $st described"
done
for sub in "gen users" "gen groups" "gen mod-load" "gen tree" "ldbench compare" "ldbench merge"; do
	assert_match "$sub" "$tmp/man.txt" "subcommand $sub described"
done

# --help's exit-status and subcommand lists, against their sources of truth: the exit
# statuses of enum ldb_exit (src/conf/config.h) are the man page's EXIT STATUS tags, are in
# design.md's "Exit status", and each is in --help's "Exit status:" list; every subcommand
# main.c dispatches is in --help's "Subcommands:" line and has its man page synopsis
codes=$(sed -nE 's/^[[:space:]]*LDB_EXIT_[A-Z_]+ = ([0-9]+).*/\1/p' "$src/src/conf/config.h" | sort -n | tr '\n' ' ')
assert_ge 9 "$(wc -w <<<"$codes")" "exit statuses in enum ldb_exit"
man_codes=$(awk '/^\.SH "?EXIT STATUS/ { on = 1; next } /^\.SH / { on = 0 } on && /^\.TP/ { t = 1; next }
	on && t { t = 0; sub(/^\.B /, ""); print }' "$man1" | sort -n | tr '\n' ' ')
assert_eq "$codes" "$man_codes" "the man page's EXIT STATUS tags are enum ldb_exit's"
help_codes=$(awk '/^Exit status:/ { on = 1 } on' "$tmp/help.txt" | grep -oE '(^|[ :])[0-9]+ ' | tr -d ' :' |
	sort -n | tr '\n' ' ')
assert_eq "$codes" "$help_codes" "--help's exit-status list is enum ldb_exit's"
design_status=$(awk '/^## Exit status/ { on = 1; next } /^## / { on = 0 } on' "$src/docs/design.md")
for c in $codes; do
	grep -qE "(^|[^0-9])$c [a-z\`]" <<<"$design_status" || _fail "docs/design.md's Exit status does not name $c"
done
subs=$(grep -oE 'strcmp\(argv\[1\], "[a-z-]+"\) == 0' "$src/src/main.c" | sed -E 's/.*"(.*)".*/\1/')
assert_ge 4 "$(wc -w <<<"$subs")" "subcommands main.c dispatches"
help_subs=$(sed -nE 's/^Subcommands: ([^(]*).*/\1/p' "$tmp/help.txt" | tr -d ',')
for sub in $subs; do
	grep -qw -- "$sub" <<<"$help_subs" || _fail "--help's Subcommands line ($help_subs) leaves out $sub"
	assert_match "^\\.B ldbench $sub\$" "$man1" "man page synopsis of $sub"
done

# --- 2. the man page renders cleanly -----------------------------------------
warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$man1" 2>&1 >/dev/null || true)
assert_eq "" "$warn" "man -l --warnings: no warning"
warn=$(groff -man -Tutf8 -ww -z "$man1" 2>&1 || true)
assert_eq "" "$warn" "groff -ww: no warning"

# --- 3. the guide's OpenLDAP commands, against a real slapd --------------------
. "$here/../fixture/slapd.sh"
fixture_start --users 10 --tls
mkdir "$FIX_DIR/bin"
ln -s "$LDBENCH" "$FIX_DIR/bin/ldbench"
PATH=$FIX_DIR/bin:$PATH
# the lab, from the fixture (the names the guide's "# lab" block sets)
HOST=127.0.0.1
PORT=$FIX_PORT
URI=$FIX_URI
LDAPS_URI=$FIX_LDAPS_URI
CA=$FIX_CA
DM=$FIX_ROOTDN
DMPW=$FIX_PWFILE
SUFFIX=$FIX_BASE
BENCH=$FIX_DIR/bench
SCEN=$src/scenarios
stop_server() { _fix_kill; }
start_server() { _fix_launch "$FIX_PORT" "$FIX_LDAPS_PORT"; }
offline_add() { slapadd -q -f "$FIX_DIR/slapd.conf" -l "$1"; }
set_threads() {
	sed -i -E "s/^threads .*/threads $1/" "$FIX_DIR/slapd.conf"
	fixture_restart
}
export LDAPNOINIT=1 # no ldap.conf / .ldaprc of the host
# the runnable blocks, each announced with its line in the guide
awk -v f="$guide" '
	/^```sh$/ { inb = 1; first = 1; next }
	inb && /^```$/ { inb = 0; if (run) print "echo \"== guide block done (" f ":" start ")\""; run = 0; next }
	inb && first { first = 0; if ($0 == "# test") { run = 1; start = NR; print "echo \"== guide block at " f ":" NR "\"" } ; next }
	inb && run { print }
' "$guide" >"$tmp/guide.sh"
nblocks=$(grep -c '^echo "== guide block at' "$tmp/guide.sh")
assert_ge 15 "$nblocks" "runnable blocks in the guide"
assert_eq 1 "$(grep -c '^# lab$' "$guide")" "one lab block in the guide"
set +e
(
	# the guide runs in this shell's child with the functions above; slapd
	# restarts in it change FIX_PID, so it reports the last one back
	set -euo pipefail
	. "$tmp/guide.sh"
	echo "$FIX_PID" >"$tmp/pid"
) >"$tmp/guide.out" 2>&1
rc=$?
set -e
[ -s "$tmp/pid" ] && FIX_PID=$(cat "$tmp/pid")
if [ "$rc" -ne 0 ] && [ ! -s "$tmp/pid" ]; then
	# a restart may have happened before the failure: stop whatever slapd holds the port
	pkill_pid=$(cat "$FIX_DIR/slapd.pid" 2>/dev/null || true)
	[ -n "$pkill_pid" ] && FIX_PID=$pkill_pid
fi
if [ "$rc" -ne 0 ]; then
	tail -n 40 "$tmp/guide.out" >&2
	_fail "the guide's block $(grep '== guide block at' "$tmp/guide.out" | tail -n 1 | sed 's/.*at //') failed (exit $rc)"
fi
assert_eq "$nblocks" "$(grep -c '^== guide block done' "$tmp/guide.out")" "every runnable block of the guide ran"
assert_match 'expected 200, actual 200' "$tmp/guide.out" "guide: validation counts"
assert_match 'user00200 matches=1' "$tmp/guide.out" "guide: last UID found"
assert_match '^dn:uid=user00001,ou=PerfBench' "$tmp/guide.out" "guide: one bind (ldapwhoami)"
assert_match 'test containers remaining: 0' "$tmp/guide.out" "guide: clean-up"
assert_match 'fail-if .*holds|fail-if .*does not hold' "$tmp/guide.out" "guide: compare ran"
assert_no_match "$FIX_ROOTPW" "$tmp/guide.out" "guide: the password never printed"

# docs/design.md's module table names every source file (src/LAYER/NAME.c or .h as
# `LAYER/NAME`), and nothing that is gone
design=$LDBENCH_SOURCE_DIR/docs/design.md
for src in "$LDBENCH_SOURCE_DIR"/src/*/*.c "$LDBENCH_SOURCE_DIR"/src/*/*.h; do
	rel=${src#"$LDBENCH_SOURCE_DIR"/src/}; m=${rel%.[ch]}
	grep -Eq "^\| .*\`$m(\.h)?\`" "$design" || _fail "docs/design.md's module table does not name src/$rel"
done
for m in $(sed -nE 's/^\| ([^|]*)\|.*/\1/p' "$design" | grep -oE '`[a-z_]+/[a-z_]+(\.h)?`' | tr -d '`' | sort -u); do
	[ -e "$LDBENCH_SOURCE_DIR/src/$m.c" ] || [ -e "$LDBENCH_SOURCE_DIR/src/$m" ] ||
		_fail "docs/design.md names a module '$m' that src/ does not have"
done
echo "ok: the module table matches src/"
echo "docs: all passed"
