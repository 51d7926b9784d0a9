#!/usr/bin/env bash
# The man page's option lists come from the option tables:
# docs/ldbench.1 is what docs/man_options.awk makes of the template
# docs/ldbench.1.in and `ldbench --dump-options` (packaging/man.cmake).
#  1. docs/ldbench.1 (checked in, installed) is that output, byte for byte,
#     and the build's own (build/ldbench.1) too;
#  2. each of the load's options has its .TP entry, its tag the table's
#     option and metavar, in the table's order; each subcommand's, in its
#     SUBCOMMAND OPTIONS list, with its --help text;
#  3. the generator refuses a table and a template that disagree: an option
#     of the table without a description, a description of no option.
# No server.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/../fixture/assert.sh"
LDBENCH=${LDBENCH:-$src/build/ldbench}
gen=$src/docs/man_options.awk
tmpl=$src/docs/ldbench.1.in
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-manopt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v awk >/dev/null || { echo "skipped: no awk"; exit 77; }

"$LDBENCH" --dump-options >"$tmp/table.tsv"
set +e
awk -f "$gen" "$tmp/table.tsv" "$tmpl" >"$tmp/ldbench.1" 2>"$tmp/err"
rc=$?
set -e
assert_eq 0 "$rc" "the generator on the tables and the template ($(cat "$tmp/err"))"
assert_eq 0 "$(wc -c <"$tmp/err")" "the generator's complaints"

# --- 1. the checked-in page is the generated one ------------------------
if ! cmp -s "$tmp/ldbench.1" "$src/docs/ldbench.1"; then
	diff -u "$src/docs/ldbench.1" "$tmp/ldbench.1" | head -40 >&2 || true
	_fail "docs/ldbench.1 is not what the tables and docs/ldbench.1.in make: cmake --build build --target man-update"
fi
echo "ok: docs/ldbench.1 = the generator's output"
bin=$(dirname "$LDBENCH")
if [[ -f $bin/ldbench.1 ]]; then
	cmp -s "$bin/ldbench.1" "$src/docs/ldbench.1" || _fail "the build's ldbench.1 differs from docs/ldbench.1"
	echo "ok: the build's ldbench.1 = docs/ldbench.1"
fi

# --- 2. every load option an entry, its tag from the table, in order -----
# the tags of OPTIONS and LONG OPTIONS, fonts and escapes removed
awk '/^\.SH / { on = ($0 ~ /^\.SH (OPTIONS|"?LONG OPTIONS"?)$/); next }
	on && /^\.TP/ { t = 1; next } on && t { print; t = 0 }' "$src/docs/ldbench.1" |
	sed -E -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$tmp/tags"
# the table's, short options first (OPTIONS), then the long ones
{
	awk -F'\t' '$1 == "load" && $2 !~ /^--/ { print $2 ($3 == "-" ? "" : " " $3) }' "$tmp/table.tsv"
	awk -F'\t' '$1 == "load" && $2 ~ /^--/ { print $2 ($3 == "-" ? "" : " " $3) }' "$tmp/table.tsv"
} >"$tmp/want"
assert_ge 90 "$(wc -l <"$tmp/want")" "the load's options"
if ! cmp -s "$tmp/want" "$tmp/tags"; then
	diff -u "$tmp/want" "$tmp/tags" | head -20 >&2 || true
	_fail "the man page's option tags are not the table's (option, metavar, order)"
fi
echo "ok: $(wc -l <"$tmp/tags") option entries, each the table's option and metavar, in its order"
# a description follows each tag (not the next .TP)
nodesc=$(awk '/^\.SH / { on = ($0 ~ /^\.SH (OPTIONS|"?LONG OPTIONS"?)$/); next }
	on && /^\.TP/ { getline tag; getline d; if (d ~ /^\.(TP|SH)/) print tag }' "$src/docs/ldbench.1" | head -3)
assert_eq "" "$nodesc" "option entries without a description"

# each subcommand's list (SUBCOMMAND OPTIONS, .SS "ldbench CMD"): its table's
# options, in order, each with its --help text
for cmd in $(cut -f1 "$tmp/table.tsv" | grep -vx load | sort -u); do
	title="ldbench ${cmd//:/ }"
	awk -v t="$title" '/^\.S[HS] / { s = $0; sub(/^\.S[HS] "?/, "", s); sub(/"$/, "", s); gsub(/\\-/, "-", s); on = (s == t); next }
		on && /^\.TP/ { getline tag; getline d; print tag "\t" d }' "$src/docs/ldbench.1" |
		sed -E -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\&//' >"$tmp/sub"
	awk -F'\t' -v c="$cmd" '$1 == c { print $2 ($3 == "-" ? "" : " " $3) "\t" $4 }' "$tmp/table.tsv" >"$tmp/subwant"
	assert_ge 1 "$(wc -l <"$tmp/subwant")" "$cmd's options"
	if ! cmp -s "$tmp/subwant" "$tmp/sub"; then
		diff -u "$tmp/subwant" "$tmp/sub" | head -10 >&2 || true
		_fail "the man page's list of $title is not its table's (option, metavar, --help text, order)"
	fi
done
echo "ok: each subcommand's list is its table's, with its --help text"

# --- 3. a table and a template that disagree are refused -----------------
# an option added to the table without a description
{ cat "$tmp/table.tsv"; printf 'load\t--no-such-option\tN\n'; } >"$tmp/more.tsv"
set +e
awk -f "$gen" "$tmp/more.tsv" "$tmpl" >/dev/null 2>"$tmp/err"
rc=$?
set -e
assert_eq 1 "$rc" "the generator with an option the template does not describe"
assert_match "ldbench load's --no-such-option \(its table\) has no description" "$tmp/err" "its complaint"
# an option gone from the table, its description left
grep -v -P '^load\t-q\t' "$tmp/table.tsv" >"$tmp/less.tsv"
set +e
awk -f "$gen" "$tmp/less.tsv" "$tmpl" >/dev/null 2>"$tmp/err"
rc=$?
set -e
assert_eq 1 "$rc" "the generator with a description of an option the table does not have"
assert_match "-q is not one of ldbench load's short options in its table" "$tmp/err" "its complaint"
echo "ok: the generator refuses a table and a template that disagree"
