#!/usr/bin/env bash
# One way to declare a command's options (src/util/optable.h): each command's
# table, as `ldbench --dump-options` lists it ("CMD<TAB>OPTION<TAB>METAVAR<TAB>HELP"),
# must agree with
#  1. the command's --help: every option of the table has its line there
#     ("  OPTION METAVAR ..."), and every option line of --help is in the table;
#  2. docs/ldbench.1: the load's options are the tags of OPTIONS and LONG
#     OPTIONS, both ways; a subcommand's options are each named in its
#     paragraph of SUBCOMMANDS, and every option of its synopsis (the
#     paragraph's tag line) is in its table;
#  3. the parse: every option is known to it (no "unknown option"), one that
#     takes a value says so when it has none, one that takes none says so
#     when given one ("--flag=x": one line, exit 2).
# No server: every command below stops at its command line (a load's -h/-p
# point at a closed port).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/../fixture/assert.sh"
LDBENCH=${LDBENCH:-$src/build/ldbench}
man1=$src/docs/ldbench.1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-optable.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$LDBENCH" --dump-options >"$tmp/table.tsv"
cmds=$(cut -f1 "$tmp/table.tsv" | sort -u | tr '\n' ' ')
assert_eq "compare gen:groups gen:mod-load gen:tree gen:users join listen-join load merge replay report " "$cmds" \
	"commands with an option table"
assert_ge 90 "$(grep -c '^load' "$tmp/table.tsv")" "the load's options in its table"
# each option once per table
dups=$(cut -f1,2 "$tmp/table.tsv" | sort | uniq -d | tr '\n' ' ')
assert_eq "" "$dups" "options declared twice"

# the man page's text, escapes removed (\- \f. \& and quotes)
unroff() { sed -E -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/"//g'; }
# the option words of stdin: -x or --long-name, not a prefix such as --tls-...
words() { grep -oE -- '(^|[^a-zA-Z0-9-])--?[a-zA-Z][a-zA-Z0-9-]*' | sed -E 's/^[^-]+//' | grep -v -- '-$' | sort -u || true; }

for cmd in $cmds; do
	awk -F'\t' -v c="$cmd" '$1 == c { print $2 }' "$tmp/table.tsv" | sort -u >"$tmp/$cmd.table"
	# --- 1. --help --------------------------------------------------------
	cmdwords=${cmd//:/ } # gen:users is `ldbench gen users`
	# shellcheck disable=SC2086 # the command's words
	if [[ $cmd == load ]]; then "$LDBENCH" --help >"$tmp/$cmd.help"; else "$LDBENCH" $cmdwords --help >"$tmp/$cmd.help"; fi
	while IFS=$'\t' read -r c opt meta _; do
		[[ $c == "$cmd" ]] || continue
		line="  $opt"
		[[ $meta == - ]] || line+=" $meta"
		grep -qF -x -e "$line" "$tmp/$cmd.help" || grep -qF -e "$line  " "$tmp/$cmd.help" ||
			_fail "$cmd --help has no line '$line' (the table's $opt)"
	done <"$tmp/table.tsv"
	grep -E '^  --?[a-zA-Z]' "$tmp/$cmd.help" | grep -oE '^  --?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ' | sort -u >"$tmp/$cmd.helpopts"
	extra=$(comm -13 "$tmp/$cmd.table" "$tmp/$cmd.helpopts" | tr '\n' ' ')
	assert_eq "" "$extra" "$cmd --help's option lines not in its table"

	# --- 2. the man page --------------------------------------------------
	if [[ $cmd == load ]]; then
		awk '/^\.SH / { on = ($0 ~ /^\.SH (OPTIONS|"?LONG OPTIONS"?)$/); next }
			on && /^\.TP/ { t = 1; next } on && t { print; t = 0 }' "$man1" | unroff | words >"$tmp/$cmd.man"
		only_table=$(comm -23 "$tmp/$cmd.table" "$tmp/$cmd.man" | tr '\n' ' ')
		only_man=$(comm -13 "$tmp/$cmd.table" "$tmp/$cmd.man" | tr '\n' ' ')
		assert_eq "" "$only_table" "the load's options missing from the man page's OPTIONS/LONG OPTIONS"
		assert_eq "" "$only_man" "the man page's OPTIONS/LONG OPTIONS not in the load's table"
		continue
	fi
	# the paragraphs of SUBCOMMANDS whose tag is "ldbench CMD ...": the tag
	# lines (the synopsis) and the whole paragraphs
	awk -v c="$cmdwords" '/^\.SH / { on = ($0 == ".SH SUBCOMMANDS"); p = 0; next }
		on && /^\.(TP|IP|SH)/ { p = 0; t = ($0 ~ /^\.TP/); next }
		on && t { t = 0; s = $0; gsub(/\\f[BIRP]/, "", s); gsub(/\\-/, "-", s); p = (s ~ ("^ldbench " c "( |$)")); if (p) print > "/dev/stderr" }
		on && p { print }' "$man1" >"$tmp/$cmd.para" 2>"$tmp/$cmd.synopsis"
	assert_ge 1 "$(wc -l <"$tmp/$cmd.synopsis")" "a SUBCOMMANDS paragraph for ldbench $cmdwords"
	unroff <"$tmp/$cmd.para" | words >"$tmp/$cmd.man"
	unroff <"$tmp/$cmd.synopsis" | words >"$tmp/$cmd.syn"
	missing=$(comm -23 "$tmp/$cmd.table" "$tmp/$cmd.man" | tr '\n' ' ')
	assert_eq "" "$missing" "ldbench $cmd's options the man page does not name in its paragraph"
	only_man=$(comm -13 "$tmp/$cmd.table" "$tmp/$cmd.syn" | tr '\n' ' ')
	assert_eq "" "$only_man" "ldbench $cmd's man page synopsis names options not in its table"
done

# --- 3. the parse ------------------------------------------------------------
n=0
while IFS=$'\t' read -r cmd opt meta _; do
	if [[ $cmd == load ]]; then
		pre=("$LDBENCH")
		post=(-h 127.0.0.1 -p 1)
	else
		# shellcheck disable=SC2206 # the command's words
		pre=("$LDBENCH" ${cmd//:/ })
		post=()
	fi
	[[ $opt == --help || $opt == --version ]] && continue
	# known: given as it should be, the option is not refused as unknown
	if [[ $meta == - ]]; then
		timeout 20 "${pre[@]}" "$opt" "${post[@]}" </dev/null >"$tmp/o" 2>"$tmp/e" || true
	else
		timeout 20 "${pre[@]}" "$opt" x "${post[@]}" </dev/null >"$tmp/o" 2>"$tmp/e" || true
	fi
	! grep -qE "unknown (or ambiguous )?option" "$tmp/e" || _fail "$cmd $opt: the parse does not know it: $(cat "$tmp/e")"
	# a long option with a value where none goes, or without its value
	if [[ $opt == --* ]]; then
		if [[ $meta == - ]]; then
			set +e
			"${pre[@]}" "$opt=x" "${post[@]}" </dev/null >"$tmp/o" 2>"$tmp/e"
			rc=$?
			set -e
			assert_eq 2 "$rc" "$cmd $opt=x: exit status"
			assert_eq 1 "$(wc -l <"$tmp/e")" "$cmd $opt=x: one line ($(cat "$tmp/e"))"
			assert_match "${opt#--}(=x')? takes no value" "$tmp/e" "$cmd $opt=x"
		elif [[ $cmd != report ]]; then
			set +e
			"${pre[@]}" "${post[@]}" "$opt" </dev/null >"$tmp/o" 2>"$tmp/e"
			rc=$?
			set -e
			assert_eq 2 "$rc" "$cmd $opt without its value: exit status"
			assert_eq 1 "$(wc -l <"$tmp/e")" "$cmd $opt without its value: one line ($(cat "$tmp/e"))"
			assert_match "${opt}.* needs a|needs a value" "$tmp/e" "$cmd $opt without its value"
		fi
	fi
	n=$((n + 1))
done <"$tmp/table.tsv"
assert_ge 170 "$n" "options tried"
echo "ok: $n options: each command's table, --help, the man page and the parse agree"
