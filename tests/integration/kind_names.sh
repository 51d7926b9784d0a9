#!/bin/bash
# The operation table tells the truth (no server needed): outside src/ops/, no
# code names an operation kind.  A kind is any value of conf/config.h's enum
# ldb_op but LDB_OP_COUNT (read from the enum, so a new kind is checked too);
# code is what is left of src/ and bench/ once comments and string literals
# are blanked; the enum's own definition is not a use.  What differs between
# kinds is a row field or hook of struct ldb_opdesc (docs/design.md,
# "Operations: one table"): the connection's own bind is the row with
# connect_bind, the add's missing parents the row with parents.
#
# The only uses allowed are listed below as FILE:FUNCTION (the function whose
# body holds the name: the last line at column 0 that opens a definition),
# each with its reason.  tests/ is not scanned: the unit tests assert what
# the rows hold, kind by kind.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
src=${LDBENCH_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
cd "$src"
[[ -f src/conf/config.h && -d src/ops ]] || {
	echo "skip: no source tree at $src"
	exit 77
}
command -v perl >/dev/null 2>&1 || {
	echo "skip: perl is not installed (it blanks the comments)"
	exit 77
}

# FILE:FUNCTION  reason
allowed=(
	# -e scalab01 is ldclt's fixed scenario (a login's bind, search and
	# modify, a control connection's search and modifies) done by blocking
	# libldap calls and counted under those kinds: a scenario made of given
	# kinds, as --mix names its kinds, not one kind's logic.
	"src/run/scalab01.c:login_bind"
	"src/run/scalab01.c:login_check"
	"src/run/scalab01.c:login_lock"
	"src/run/scalab01.c:login"
	"src/run/scalab01.c:ldb_s1_begin"
	"src/run/scalab01.c:session_end"
	"src/run/scalab01.c:ldb_s1_kinds"
	"src/cmd/load.c:scalab01_line"
	"src/cli/keywords.c:cli_check_scalab01"
)

kinds=$(awk '/^enum ldb_op \{/ { on = 1; next } on && /^\};/ { exit }
	on { gsub(/[ \t,]/, ""); sub(/=.*/, ""); if ($0 != "" && $0 != "LDB_OP_COUNT") print }' src/conf/config.h)
n=$(echo "$kinds" | grep -c '^LDB_OP_' || true)
assert_ge 1 "$n" "kinds read from enum ldb_op"
re="(^|[^A-Za-z0-9_])($(echo "$kinds" | paste -sd'|'))([^A-Za-z0-9_]|\$)"

# Each use: FILE:LINE:FUNCTION:text, comments and strings blanked (newlines kept).
uses=$(
	for f in $(find src bench -name '*.[ch]' -not -path 'src/ops/*' | sort); do
		perl -0777 -pe 's{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]/ /g; $c }gse;
			s{//[^\n]*}{}g; s{"(?:\\.|[^"\\\n])*"}{""}g' "$f" |
			awk -v f="$f" -v re="$re" '
				/^enum ldb_op \{/ && f == "src/conf/config.h" { skip = 1 }
				skip { if (/^\};/) skip = 0; next }
				/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { fn = $0; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn) }
				$0 ~ re { gsub(/^[ \t]+/, ""); printf "%s:%d:%s: %s\n", f, FNR, fn, $0 }'
	done
)
bad=0
seen=()
while IFS= read -r u; do
	[[ -n "$u" ]] || continue
	file=${u%%:*}
	rest=${u#*:}
	fn=${rest#*:}
	fn=${fn%%:*}
	ok=0
	for a in "${allowed[@]}"; do
		if [[ "$a" == "$file:$fn" ]]; then
			ok=1
			seen+=("$a")
		fi
	done
	if ((ok == 0)); then
		echo "FAIL: $u" >&2
		bad=1
	fi
done <<<"$uses"
((bad == 0)) || _fail "code outside src/ops/ names an operation kind: make it a row field or hook (src/ops/ops.h)"
echo "ok: outside src/ops/ no code names a kind ($n kinds) but the allowed uses"

# An allowed use that is gone is taken off the list (it would hide a new one).
for a in "${allowed[@]}"; do
	found=0
	for s in "${seen[@]}"; do [[ "$s" == "$a" ]] && found=1; done
	((found == 1)) || _fail "allowed use $a names no kind any more: take it off the list"
done
echo "ok: every allowed use is still one (${#allowed[@]})"
echo "kind_names: all passed"
