#!/usr/bin/env bash
# The Debian package (cpack -G DEB from the build tree): its control data and
# contents; a real dpkg install into a scratch root (dpkg --root), where
# `ldbench --version`, the ldclt link and `man ldbench` run from the installed
# files; the bash completion against the binary; removal. Then the Dockerfile,
# checked without a container engine: known instructions, COPY sources present,
# its RUN commands run here against the package (apt-get install simulated).
# Needs no server.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/assert.sh"
src=${LDBENCH_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
LDBENCH=${LDBENCH:-$src/build/ldbench}
build=$(cd "$(dirname "$LDBENCH")" && pwd)
for t in cpack dpkg dpkg-deb man apt-get; do
	command -v "$t" >/dev/null || _fail "$t is needed"
done
D=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-package.XXXXXX")
trap 'rm -rf "$D"' EXIT
version=$("$LDBENCH" --version | awk '{ print $NF }')
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || _fail "version '$version'"

# 1. build the packages
(cd "$build" && cpack -G DEB -B "$D/pkg" >"$D/cpack.txt" 2>&1) || _fail "cpack: $(tail -n 5 "$D/cpack.txt")"
deb=$(ls "$D"/pkg/ldbench_"$version"_*.deb)
ldclt_deb=$(ls "$D"/pkg/ldbench-ldclt_"$version"_*.deb)
dpkg-deb -I "$deb" >"$D/info.txt"
assert_match '^ Package: ldbench$' "$D/info.txt" "package name"
assert_match "^ Version: $version\$" "$D/info.txt" "package version"
assert_match '^ Depends: .*libldap-2\.5-0' "$D/info.txt" "depends on libldap-2.5-0"
assert_match '^ Depends: .*libssl3' "$D/info.txt" "depends on libssl3"
assert_match '^ Depends: .*libgnutls30' "$D/info.txt" "depends on libgnutls30 (the load's default TLS library)"
dpkg-deb -I "$ldclt_deb" >"$D/info2.txt"
assert_match "^ Depends: ldbench \(= $version\)\$" "$D/info2.txt" "ldbench-ldclt depends on this ldbench"
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$D/files.txt"
dpkg-deb -c "$ldclt_deb" | awk '{ print $6 }' >"$D/files2.txt"
for f in ./usr/bin/ldbench ./usr/share/man/man1/ldbench.1 ./usr/share/doc/ldbench/results.md \
	./usr/share/doc/ldbench/README.md ./usr/share/bash-completion/completions/ldbench; do
	grep -qxF "$f" "$D/files.txt" || _fail "the package lacks $f"
done
nscen=$(ls "$src"/scenarios/*.scen | wc -l)
assert_eq "$nscen" "$(grep -c '^\./usr/share/ldbench/scenarios/.*\.scen$' "$D/files.txt")" "every scenario packaged"
assert_eq 0 "$(grep -c '/ldclt$' "$D/files.txt" || true)" "no ldclt command in the main package"
assert_eq 0 "$(grep -c '^\./usr/bin/' "$D/files2.txt" || true)" "ldbench-ldclt puts nothing in /usr/bin (389-ds-base's ldclt)"
grep -qxF ./usr/lib/ldbench/ldclt "$D/files2.txt" || _fail "ldbench-ldclt lacks /usr/lib/ldbench/ldclt"

# 2. install both into a scratch root with dpkg (their dependencies are the host's)
R=$D/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
: >"$R/var/lib/dpkg/status"
dp() { dpkg --root="$R" --log=/dev/null "$@"; }
dp --force-depends -i "$deb" "$ldclt_deb" >"$D/dpkg.txt" 2>&1 || _fail "dpkg -i: $(tail -n 5 "$D/dpkg.txt")"
assert_eq 2 "$(dp -l | grep -c '^ii  ldbench')" "both packages installed in the scratch root"
assert_eq "ldbench version $version" "$("$R/usr/bin/ldbench" --version)" "ldbench --version from the package"
assert_eq "ldclt version 4.23 (ldbench $version)" "$("$R/usr/lib/ldbench/ldclt" --version)" "the ldclt link"
MANPATH=$R/usr/share/man MANWIDTH=100 man -P cat ldbench >"$D/man.txt" 2>"$D/man.err" || _fail "man ldbench: $(cat "$D/man.err")"
assert_match '^NAME' "$D/man.txt" "man ldbench: NAME section"
assert_match 'ldbench - ' "$D/man.txt" "man ldbench: the name line"
assert_match '[-]-hdr-log' "$D/man.txt" "man ldbench: a new option"
"$R/usr/bin/ldbench" --list-scenarios "$R/usr/share/ldbench/scenarios" >"$D/scen.txt"
assert_eq "$nscen" "$(wc -l <"$D/scen.txt")" "the packaged scenarios list"

# 3. the bash completion, as installed, against the binary
comp=$R/usr/share/bash-completion/completions/ldbench
complete_words() { # WORD... (the last is completed): the candidates, one a line
	(
		cd "$D"
		. "$comp"
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_ldbench
		printf '%s\n' "${COMPREPLY[@]}"
	)
}
complete_words ldbench -- >"$D/longs.txt"
"$LDBENCH" --help | grep -oE -- '(^|[ ,])--[a-z][a-z0-9-]+' | sed 's/^[ ,]*//' | sort -u >"$D/help_longs.txt"
assert_ge 30 "$(wc -l <"$D/help_longs.txt")" "long options in --help"
missing=$(comm -23 "$D/help_longs.txt" <(sort -u "$D/longs.txt"))
assert_eq "" "$missing" "every long option of --help is completed"
# (a last unknown option stops every parse before anything runs; only OPT itself must be known)
while read -r o; do
	(cd "$D" && timeout 20 "$LDBENCH" "$o" x --zz-end >"$D/o.txt" 2>&1 </dev/null) || true
	! grep -qF "unknown option '$o'" "$D/o.txt" || _fail "completion offers $o, which ldbench does not know"
done <"$D/longs.txt"
complete_words ldbench -e "bindeach,rand" >"$D/kw.txt"
grep -qxF bindeach,random "$D/kw.txt" || _fail "-e bindeach,rand does not complete to bindeach,random"
grep -qxF bindeach,randombaselow= "$D/kw.txt" || _fail "keywords with a value are offered with '='"
complete_words ldbench -e "" >"$D/kws.txt"
assert_ge 30 "$(wc -l <"$D/kws.txt")" "-e keywords offered"
while read -r k; do
	[[ "$k" == *= ]] && k=${k}1
	(cd "$D" && timeout 20 "$LDBENCH" -e "$k" --zz-end >"$D/k.txt" 2>&1 </dev/null) || true
	! grep -q "unknown keyword" "$D/k.txt" || _fail "completion offers -e $k, which ldbench does not know"
done <"$D/kws.txt"
assert_eq report "$(complete_words ldbench rep)" "subcommand"
assert_eq mod-load "$(complete_words ldbench gen mo)" "gen's datasets"
touch "$D/mine.scen"
LDBENCH_SCENARIO_DIR=$R/usr/share/ldbench/scenarios complete_words ldbench --scenario "" >"$D/sc.txt"
grep -qxF mine.scen "$D/sc.txt" || _fail "--scenario offers the current directory's .scen files"
assert_eq "$nscen" "$(grep -c "^$R/usr/share/ldbench/scenarios/.*\\.scen\$" "$D/sc.txt")" "--scenario offers the packaged scenarios"

# 4. the Dockerfile, without a container engine: its instructions, COPY sources
# in the build context (the directory holding the .deb), and the RUN commands
# run here, in a shell where apt-get install is simulated (dependencies resolved
# against this Debian 12 machine's lists), rm touches nothing, paths of the
# image's /tmp point into a scratch copy, and ldbench is the scratch root's.
df=$src/packaging/Dockerfile
ctx=$D/pkg
img=$D/image
mkdir -p "$img/tmp"
# one instruction a line (continuations joined), comments and blank lines dropped
sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$df" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' >"$D/instr.txt"
known='^(FROM|RUN|CMD|LABEL|EXPOSE|ENV|ADD|COPY|ENTRYPOINT|VOLUME|USER|WORKDIR|ARG|ONBUILD|STOPSIGNAL|HEALTHCHECK|SHELL) '
bad=$(grep -vE "$known" "$D/instr.txt" || true)
assert_eq "" "$bad" "every Dockerfile instruction is one Docker knows"
assert_match '^FROM debian:12' <(head -n 1 "$D/instr.txt") "a Debian 12 base"
assert_match '^ENTRYPOINT \["ldbench"\]$' "$D/instr.txt" "ldbench is the entry point"
nrun=0
while read -r ins rest; do
	case $ins in
	COPY)
		read -ra parts <<<"$rest"
		dest=${parts[-1]}
		for ((i = 0; i < ${#parts[@]} - 1; i++)); do
			matched=("$ctx"/${parts[i]})
			[[ -e "${matched[0]}" ]] || _fail "COPY ${parts[i]}: nothing in the build context matches"
			cp "${matched[@]}" "$img/${dest#/}"
		done ;;
	RUN)
		nrun=$((nrun + 1))
		cmd=${rest//\/tmp\//$img/tmp/}
		(
			set -e
			apt-get() {
				case $1 in
				update) echo "apt-get update: skipped (this machine's lists)" ;;
				install) shift; command apt-get install -s "$@" ;;
				*) _fail "RUN uses apt-get $1, which the test cannot simulate" ;;
				esac
			}
			rm() { echo "rm $*: skipped"; }
			ldbench() { "$R/usr/bin/ldbench" "$@"; }
			eval "$cmd"
		) >"$D/run$nrun.txt" 2>&1 || _fail "RUN step $nrun: $(tail -n 5 "$D/run$nrun.txt")"
		assert_match '^Inst ldbench ' "$D/run$nrun.txt" "RUN $nrun: apt-get installs the package with its dependencies"
		assert_match "^ldbench version $version\$" "$D/run$nrun.txt" "RUN $nrun: ldbench --version in the image" ;;
	esac
done <"$D/instr.txt"
assert_eq 1 "$nrun" "RUN steps checked"
cmd_default=$(sed -nE 's/^CMD \["([^"]*)"\]$/\1/p' "$D/instr.txt")
"$R/usr/bin/ldbench" "$cmd_default" >"$D/entry.txt" || _fail "the entry point with its CMD ($cmd_default)"
assert_match '^usage: ldbench' "$D/entry.txt" "the image's default command"

# 5. remove
dp -r ldbench-ldclt ldbench >"$D/rm.txt" 2>&1 || _fail "dpkg -r: $(tail -n 3 "$D/rm.txt")"
[[ ! -e "$R/usr/bin/ldbench" && ! -L "$R/usr/lib/ldbench/ldclt" ]] || _fail "files left after dpkg -r"
assert_eq 0 "$(dp -l 2>/dev/null | grep -c '^ii  ldbench' || true)" "nothing installed after removal"
