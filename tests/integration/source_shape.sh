#!/bin/bash
# The shape of the source, checked (no server needed):
# - every src/LAYER/ includes only its own layer and the layers below it, in
#   docs/design.md's order (read from its "Layers:" line);
# - a run's summary (report/reporter.h) knows none of the pipelines beside the
#   load: it includes neither the join nor the replication check and names no
#   replay type; they add their parts to it;
# - every source is src/main.c or directly in src/LAYER/ (CMake builds a deeper
#   one, but the checks here and docs/design.md's module table would miss it),
#   and no two share a file name;
# - no function is longer than 80 lines, but for the usage text;
# - every path a comment names (src/..., tests/..., docs/..., bench/...,
#   packaging/..., scenarios/..., or a module LAYER/NAME) exists;
# - no issue numbers in code or comments: they say nothing without the tracker;
# - the code follows .clang-format; without clang-format the test exits 77
#   (ctest: skipped) after the other checks, never a silent pass.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
src=${LDBENCH_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
cd "$src"

# "Layers: `util` < `values` < ..." in docs/design.md
order=$(sed -nE 's/^Layers: (.*)$/\1/p' docs/design.md | tr -d '`' | tr -d ' ' | tr '<' ' ')
[[ -n "$order" ]] || _fail "docs/design.md has no 'Layers:' line"
declare -A rank
r=0
for l in $order; do rank[$l]=$r; r=$((r + 1)); done
for d in src/*/; do
	l=$(basename "$d")
	[[ -n "${rank[$l]:-}" ]] || _fail "src/$l/ is not in docs/design.md's Layers line"
done
# Sources the layer check below would not see: deeper than src/LAYER/, or
# directly in src/ (but main.c).
stray=$(find src -name '*.[ch]' ! -path 'src/main.c' ! -regex 'src/[^/]*/[^/]*' | sort)
[[ -z "$stray" ]] || _fail "sources outside src/LAYER/ (a layer is one folder; the layer, size and module-table checks read src/*/*.[ch] only): $stray"
echo "ok: every source is src/main.c or src/LAYER/NAME"
# A file's name tells which one it is: no two sources under src/ share one
# (two replay_send.c, in cmd/ and run/, had a reader guess which was meant).
same=$(find src -name '*.[ch]' -printf '%f\n' | sort | uniq -d | tr '\n' ' ')
[[ -z "$same" ]] || _fail "file names used in more than one folder of src/ (name each after what it holds): $same"
echo "ok: every source's file name is its own"
bad=0
for f in src/*/*.[ch]; do
	l=$(basename "$(dirname "$f")")
	while read -r inc; do
		if ((rank[$inc] > rank[$l])); then
			echo "FAIL: $f (layer $l) includes $inc/, a layer above it" >&2
			bad=1
		fi
	done < <(grep -oE '^#include "[a-z_]+/' "$f" | sed -E 's/#include "//; s#/##' | sort -u)
done
((bad == 0)) || _fail "includes against the layers"
echo "ok: every layer includes only itself and the layers below ($order)"

# The summary's parts: reporter.h names none of the pipelines that add them.
knows=$(grep -nE '^#include "(report/join|report/join_int|server/repl_watch|report/replay_out|run/replay)\.h"|ldb_replay_run|ldb_rp_|ldb_join\b' \
	src/report/reporter.h || true)
[[ -z "$knows" ]] || { echo "$knows" >&2; _fail "report/reporter.h knows a pipeline beside the load: give it a part"; }
echo "ok: the run's summary knows the join, the replay and replication only as parts"

# Functions: a column-0 "{" opens one, the next column-0 "}" closes it.
long=$(awk -v max=80 '
	/^\{/ { start = FNR; name = prev; next }
	/^\}/ { if (start && FNR - start - 1 > max && name !~ /ldb_cli_usage/)
			printf "%s:%d: %d lines: %s\n", FILENAME, start, FNR - start - 1, name
		start = 0; next }
	{ prev = $0 }' src/main.c src/*/*.c)
[[ -z "$long" ]] || { echo "$long" >&2; _fail "functions over 80 lines"; }
echo "ok: no function over 80 lines (the usage text aside)"

# The comments of the code, tests, benchmarks and build files, one line per
# comment line: "FILE:LINE: text" (C: /* */ and whole-line //; the rest: #).
comment_lines() {
	local c=() other=() f
	for f in "$@"; do case $f in *.c | *.h) c+=("$f") ;; *) other+=("$f") ;; esac; done
	awk 'FNR == 1 { inc = 0 }
	{
		line = $0; out = ""
		while (line != "") {
			if (inc) {
				i = index(line, "*/")
				if (i) { out = out " " substr(line, 1, i - 1); line = substr(line, i + 2); inc = 0 }
				else { out = out " " line; line = "" }
			} else if ((i = index(line, "/*")) > 0) { line = substr(line, i + 2); inc = 1 }
			else if (match(line, /^[ \t]*\/\//)) { out = out " " substr(line, RLENGTH + 1); line = "" }
			else line = ""
		}
		if (out != "") print FILENAME ":" FNR ":" out
	}' "${c[@]}"
	awk 'match($0, /(^|[ \t])#/) { print FILENAME ":" FNR ":" substr($0, RSTART + RLENGTH) }' "${other[@]}"
}
commented=(src/main.c src/*/*.[ch] tests/unit/*.[ch] tests/fuzz/*.c tests/tools/*.c tests/integration/*.sh
	tests/fixture/*.sh tests/run.sh tests/CMakeLists.txt CMakeLists.txt bench/*.c bench/*.sh packaging/*)
comments=$(mktemp)
trap 'rm -f "$comments"' EXIT
comment_lines "${commented[@]}" >"$comments"

# Paths in comments: a top-level folder's path (src/run/conn.c, docs/design.md,
# tests/fixture/*.sh) or a module named by its layer (report/sampler,
# cli/ctx.h: src/LAYER/NAME.c or .h), not inside a longer path ($dir/bench/x).
# Words in capitals are placeholders (src/LAYER/NAME.c); ops/s is a rate.
layers=$(echo "$order" | tr ' ' '|')
missing=$(grep -oE "^[^:]+:[0-9]+:|(^|[^A-Za-z0-9_./\$-])((src|tests|docs|bench|packaging|scenarios)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*]|($layers)/[A-Za-z0-9_.-]*[A-Za-z0-9_])" \
	"$comments" | awk '/^[^:]+:[0-9]+:$/ { loc = $0; next } { sub(/^[^A-Za-z]/, ""); print loc " " $0 }' |
	while read -r loc p; do
		[[ "$p" =~ [A-Z]{2,} || "$p" =~ ^ops/s(ec)?$ ]] && continue
		case $p in
		src/* | tests/* | docs/* | bench/* | packaging/* | scenarios/*) c=$p ;;
		*) c=src/$p ;;
		esac
		[[ -e "$c" || -e "$c.c" || -e "$c.h" ]] || compgen -G "$c" >/dev/null || echo "$loc $p"
	done)
[[ -z "$missing" ]] || { echo "$missing" >&2; _fail "comments name paths that do not exist"; }
echo "ok: every path a comment names exists"

# Issue numbers in code or comments: the word and a number, with or without
# a space, "_" or "#" between.
numbered=$(grep -nHiE 'issue[ _#]?[0-9]' "${commented[@]}" || true)
[[ -z "$numbered" ]] || { echo "$numbered" >&2; _fail "issue numbers in the code: say what the rule is"; }
echo "ok: no issue numbers in code or comments"

if command -v clang-format >/dev/null 2>&1; then
	# one clang-format for every file (a process per file took most of this
	# test's time); it names each file that differs in its warnings
	said=$(clang-format --dry-run -Werror src/main.c src/*/*.[ch] tests/unit/*.[ch] tests/fuzz/*.c \
		tests/tools/*.c bench/*.c 2>&1 >/dev/null || echo "clang-format: failed")
	unformatted=$(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p; /^clang-format: failed$/p' <<<"$said" |
		sort -u | tr '\n' ' ')
	[[ -z "$unformatted" ]] || _fail "not formatted as .clang-format says (clang-format -i): $unformatted"
	echo "ok: the code follows .clang-format"
else
	echo "source_shape: SKIPPED: clang-format is not installed: the layout was not checked (the rest passed)"
	exit 77
fi
echo "source_shape: all passed"
