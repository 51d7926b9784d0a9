#!/bin/bash
# The shape of the source, checked (no server needed):
# - every src/LAYER/ includes only its own layer and the layers below it, in
#   docs/design.md's order (read from its "Layers:" line);
# - no function is longer than 80 lines, but for the usage text;
# - the code follows .clang-format (when clang-format is installed).
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

# Functions: a column-0 "{" opens one, the next column-0 "}" closes it.
long=$(awk -v max=80 '
	/^\{/ { start = FNR; name = prev; next }
	/^\}/ { if (start && FNR - start - 1 > max && name !~ /ldb_cli_usage/)
			printf "%s:%d: %d lines: %s\n", FILENAME, start, FNR - start - 1, name
		start = 0; next }
	{ prev = $0 }' src/main.c src/*/*.c)
[[ -z "$long" ]] || { echo "$long" >&2; _fail "functions over 80 lines"; }
echo "ok: no function over 80 lines (the usage text aside)"

if command -v clang-format >/dev/null 2>&1; then
	unformatted=()
	for f in src/main.c src/*/*.[ch] tests/unit/*.[ch] tests/fuzz/*.c tests/tools/*.c bench/*.c; do
		clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
	done
	((${#unformatted[@]} == 0)) || _fail "not formatted as .clang-format says (clang-format -i): ${unformatted[*]}"
	echo "ok: the code follows .clang-format"
else
	echo "skip: clang-format is not installed"
fi
echo "source_shape: all passed"
