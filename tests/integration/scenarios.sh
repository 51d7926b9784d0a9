#!/usr/bin/env bash
# Every scenario file in scenarios/ runs against the fixture slapd with small
# counts (overridden on the command line: -T, -R, --sweep, --duration) and is
# checked against what the server counted (cn=Monitor deltas) or what the
# directory holds afterwards.  Also: --list-scenarios, and a bad file's one line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
scen=$(cd "$here/../../scenarios" && pwd)
fixture_start --users 200 --tls
out=$FIX_DIR/out.txt
snap=$FIX_DIR/snap
host=(-h 127.0.0.1 -p "$FIX_PORT")
root=("${host[@]}" -D "$FIX_ROOTDN" -y "$FIX_PWFILE")
printf 'user00001\n' >"$FIX_DIR/user1.pw"
ldadd() { LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null; }
ou() { printf 'dn: ou=%s,%s\nobjectClass: organizationalUnit\nou: %s\n\n' "$1" "$FIX_BASE" "$1"; }
# "KIND: attempted A, completed C, ..." -> C
completed() { sed -nE "s/.* $1: attempted [0-9]+, completed ([0-9]+),.*/\\1/p" "$out" | awk '{s += $1} END {print s + 0}'; }
attempted() { sed -nE "s/.* $1: attempted ([0-9]+),.*/\\1/p" "$out" | awk '{s += $1} END {print s + 0}'; }

# --list-scenarios: every file, with its seed (or the issue it comes from) in the description
run_ldbench "$out" --list-scenarios "$scen"
assert_eq 0 "$RC" "exit status of --list-scenarios"
assert_eq "$(ls "$scen"/*.scen | wc -l)" "$(wc -l <"$out")" "one line per scenario file"
for f in "$scen"/*.scen; do
	name=$(basename "$f" .scen)
	assert_match "^$name +.*\\((seed 00[024]|issue [0-9]+), " "$out" "$name listed with its seed or issue"
	# the dataset's own DNs are parameters (${parent}, ${XXX}): the command line's -b, -D win
	grep -v '\${' "$f" >"$FIX_DIR/literal.scen" || true
	assert_no_match '^-[hpwyHDb]( |$)|^--tls-cacert' "$FIX_DIR/literal.scen" "$name names no server, identity or base"
done
assert_eq 17 "$(wc -l <"$out")" "17 scenarios"

# two workloads, a paged walk of the whole tree beside searches at a fixed rate:
# slapd's searches are bg's pages and fg's searches
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/paged-walk-vs-search.scen" "${host[@]}" --set "base=$FIX_BASE" \
	--set "people=$FIX_PEOPLE" --set 'filter=(uid=user[1-200%00000])' --set rate=20 --set clients=2 \
	--set page=50 --duration 3s --no-preflight --json "$FIX_DIR/pw.json"
assert_eq 0 "$RC" "paged-walk-vs-search: exit status"
assert_match ': fg: Target rate: 20\.00/sec' "$out" "paged-walk-vs-search: fg's rate"
pages=$(/usr/bin/python3 -c 'import json,sys; s=[json.loads(l) for l in open(sys.argv[1])][-1]["workloads"]
print(s["bg"]["ops"]["search"]["pages"] + s["fg"]["ops"]["search"]["completed"])' "$FIX_DIR/pw.json")
assert_eq "$pages" "$(fixture_monitor_delta "$snap" Search)" "paged-walk-vs-search: bg's pages + fg's searches"

# seed 000: exact search, 8 threads (-T 20: 160 searches)
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/exact-search-8-threads.scen" "${root[@]}" -b "$FIX_PEOPLE" -T 20
assert_eq 0 "$RC" "exact-search-8-threads: exit status"
assert_eq 160 "$(global_total "$out")" "exact-search-8-threads: 8 x 20 searches"
assert_eq 160 "$(fixture_monitor_delta "$snap" Search)" "exact-search-8-threads: server-side searches"
assert_match 'expected-result hits 160, misses 0$' "$out" "exact-search-8-threads: each found its entry"

# random UID search with attrlist=uid:cn over the 200 users
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/random-uid-search.scen" "${root[@]}" -b "$FIX_PEOPLE" -T 25 -v
assert_eq 0 "$RC" "random-uid-search: exit status"
# and the pre-flight check's 5 (the lowest, the highest, three between)
assert_eq 205 "$(fixture_monitor_delta "$snap" Search)" "random-uid-search: server-side searches"
assert_match ': Pre-flight: search \(uid=user00001\) 1, \(uid=user00050\) 1, \(uid=user00100\) 1, \(uid=user00150\) 1, \(uid=user00200\) 1 entries$' "$out" "random-uid-search: pre-flight line"
assert_match 'expected-result hits 200, misses 0$' "$out" "random-uid-search: every random UID exists"
assert_match 'uid:cn|uid, cn|uid cn' "$out" "random-uid-search: attrlist in the configuration"

# application account: binds as uid=user00001 and searches it
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/app-account-search.scen" "${host[@]}" -D "uid=user00001,$FIX_PEOPLE" \
	-y "$FIX_DIR/user1.pw" -b "$FIX_PEOPLE" -T 10
assert_eq 0 "$RC" "app-account-search: exit status"
assert_eq 40 "$(fixture_monitor_delta "$snap" Search)" "app-account-search: server-side searches"
assert_eq 4 "$(fixture_monitor_delta "$snap" Bind)" "app-account-search: one bind per thread"
assert_match 'expected-result hits 40, misses 0$' "$out" "app-account-search: the user finds itself"

# LDAPS, certificate verified; without TLS the scenario refuses to run
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/ldaps-exact-search.scen" -H "$FIX_LDAPS_URI" --tls-cacert "$FIX_CA" \
	-D "$FIX_ROOTDN" -y "$FIX_PWFILE" -b "$FIX_PEOPLE" -T 10
assert_eq 0 "$RC" "ldaps-exact-search: exit status"
assert_eq 40 "$(fixture_monitor_delta "$snap" Search)" "ldaps-exact-search: server-side searches"
run_ldbench "$out" --scenario "$scen/ldaps-exact-search.scen" "${root[@]}" -b "$FIX_PEOPLE" -T 10
assert_eq 2 "$RC" "ldaps-exact-search without TLS: exit status"
assert_match 'needs TLS.*ldaps-exact-search\.scen' "$out" "ldaps-exact-search without TLS: the reason"

# single-account bindeach binds; random binds over the population
fixture_monitor_snapshot "$snap"
conns=$(fixture_total_connections)
run_ldbench "$out" --scenario "$scen/bind-single-account.scen" "${host[@]}" -D "uid=user00001,$FIX_PEOPLE" \
	-y "$FIX_DIR/user1.pw" -T 10
assert_eq 0 "$RC" "bind-single-account: exit status"
assert_eq 40 "$(fixture_monitor_delta "$snap" Bind)" "bind-single-account: server-side binds"
assert_eq 40 "$(($(fixture_total_connections) - conns))" "bind-single-account: a connection per bind"
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/bind-random-population.scen" "${host[@]}" -D "uid=userXXXXX,$FIX_PEOPLE" \
	-w userXXXXX -T 15
assert_eq 0 "$RC" "bind-random-population: exit status"
assert_eq 62 "$(fixture_monitor_delta "$snap" Bind)" "bind-random-population: server-side binds (and the pre-flight's 2)"
assert_match ": Pre-flight: bind as uid=user00001,$FIX_PEOPLE: Success; as uid=user00200,$FIX_PEOPLE: Success\$" "$out" "bind-random-population: pre-flight binds"
assert_match 'Global no error occurs during this session\.$' "$out" "bind-random-population: every password matched"

# write-clean: 10 adds then 10 modifies
ou WriteBench | ldadd
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/write-clean.scen" "${root[@]}" -b "ou=WriteBench,$FIX_BASE"
assert_eq 0 "$RC" "write-clean: exit status"
assert_eq 10 "$(fixture_monitor_delta "$snap" Add)" "write-clean: server-side adds"
assert_eq 10 "$(fixture_monitor_delta "$snap" Modify)" "write-clean: server-side modifies"
assert_eq 10 "$(fixture_count "ou=WriteBench,$FIX_BASE" '(&(uid=user*)(sn=modified*))')" "write-clean: 10 modified entries"
assert_eq 1 "$(fixture_count "ou=WriteBench,$FIX_BASE" '(&(uid=user00010)(sn=modified00010))')" "write-clean: the last one"

# write-mix: per-kind counts equal the server's per-kind deltas
"$LDBENCH" gen users --suffix "$FIX_BASE" --parent "ou=MixBench,$FIX_BASE" --number 100 |
	awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^dn: dc=example,dc=com\n/' | ldadd
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/write-mix.scen" "${root[@]}" -b "ou=MixBench,$FIX_BASE" -R 100 -T 50
assert_eq 0 "$RC" "write-mix: exit status"
assert_eq 200 "$(global_total "$out")" "write-mix: 4 x 50 operations"
for kind in add:Add modify:Modify rename:Modrdn delete:Delete; do
	assert_eq "$(completed "${kind%%:*}")" "$(fixture_monitor_delta "$snap" "${kind#*:}")" "write-mix: ${kind%%:*} count = server's"
	assert_ge 1 "$(completed "${kind%%:*}")" "write-mix: some ${kind%%:*}s"
done

# seed 004: the sweeps, two small levels each
ou AddBench | ldadd
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/sweep-add-10k.scen" "${root[@]}" -b "ou=AddBench,$FIX_BASE" -R 30 --sweep 1,2
assert_eq 0 "$RC" "sweep-add-10k: exit status"
assert_eq 60 "$(fixture_monitor_delta "$snap" Add)" "sweep-add-10k: 30 adds per level"
assert_eq 60 "$(fixture_monitor_delta "$snap" Delete)" "sweep-add-10k: each deleted after"
assert_eq 0 "$(fixture_count "ou=AddBench,$FIX_BASE" '(cn=user*)')" "sweep-add-10k: the directory as it was"
assert_match '^2	' "$out" "sweep-add-10k: a table row for concurrency 2"

fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/sweep-search-random-cn.scen" "${root[@]}" -b "$FIX_PEOPLE" -R 200 --sweep 1,2 --duration 1s
assert_eq 0 "$RC" "sweep-search-random-cn: exit status"
d=$(fixture_monitor_delta "$snap" Search)
# the server also saw one pre-flight check's 5 searches (before the first level only)
assert_eq 1 "$(grep -c ': Pre-flight: search' "$out")" "sweep-search-random-cn: one pre-flight check"
assert_ge "$(($(completed search) + 5))" "$d" "sweep-search-random-cn: server searches >= client's completed + 5"
assert_le "$(($(attempted search) + 5))" "$d" "sweep-search-random-cn: server searches <= client's attempted + 5"
assert_ge 100 "$(completed search)" "sweep-search-random-cn: searches ran"
assert_no_match 'misses [1-9]' "$out" "sweep-search-random-cn: every (cn=userN) found"
assert_match '^1	.*	0$' "$out" "sweep-search-random-cn: table row 1, no error"
assert_match '^2	.*	0$' "$out" "sweep-search-random-cn: table row 2, no error"

fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/sweep-bind-random-dn.scen" "${host[@]}" -D "uid=userXXXXX,$FIX_PEOPLE" \
	-w userXXXXX -e randombinddnhigh=200 --sweep 1,2 --duration 1s
assert_eq 0 "$RC" "sweep-bind-random-dn: exit status"
d=$(fixture_monitor_delta "$snap" Bind)
assert_ge "$(($(completed bind) + 2))" "$d" "sweep-bind-random-dn: server binds >= client's completed + pre-flight"
assert_le "$(($(attempted bind) + 3 + 2))" "$d" "sweep-bind-random-dn: server binds <= attempted + binds at connect + pre-flight"
assert_ge 100 "$(completed bind)" "sweep-bind-random-dn: binds ran"
assert_match 'Global no error occurs during this session\.$' "$out" "sweep-bind-random-dn: no error"

# seed 002: a small tree (depth 2, fanout 3, 2 entries: 13 containers, 26 entries)
"$LDBENCH" gen tree --depth 2 --fanout 3 --entries 2 --suffix "ou=Tree,$FIX_BASE" 2>/dev/null | ldadd
tree="ou=Tree,$FIX_BASE"
run_ldbench "$out" --scenario "$scen/tree-search.scen" "${root[@]}" -b "$tree" -R 26 -n 2 --duration 1s
assert_eq 0 "$RC" "tree-search: exit status"
n=$(completed search)
assert_ge 100 "$n" "tree-search: searches ran"
assert_match "expected-result hits $n, misses 0\$" "$out" "tree-search: every entry found"
run_ldbench "$out" --scenario "$scen/tree-data-read.scen" "${root[@]}" -b "$tree" --duration 1s
assert_eq 0 "$RC" "tree-data-read: exit status"
n=$(completed search)
assert_ge 10 "$n" "tree-data-read: searches ran"
entries=$(sed -nE 's/.* search: attempted .*, entries ([0-9]+).*/\1/p' "$out" | tail -n 1)
# a search cut off by the end of the run may have brought part of its entries
assert_ge $((n * 26)) "$entries" "tree-data-read: 26 entries per completed search"
assert_le $(($(attempted search) * 26)) "$entries" "tree-data-read: at most 26 per search sent"
deep="ou=unit1,ou=unit1,$tree"
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/tree-add.scen" "${root[@]}" -b "$deep" -R 40
assert_eq 0 "$RC" "tree-add: exit status"
assert_eq 40 "$(fixture_monitor_delta "$snap" Add)" "tree-add: server-side adds"
assert_eq 40 "$(fixture_count "$deep" '(cn=new*)')" "tree-add: entries added"
run_ldbench "$out" --scenario "$scen/tree-delete.scen" "${root[@]}" -b "$deep" -R 40
assert_eq 0 "$RC" "tree-delete: exit status"
assert_eq 0 "$(fixture_count "$deep" '(cn=new*)')" "tree-delete: entries deleted"
assert_eq 26 "$(fixture_count "$tree" '(objectClass=inetOrgPerson)')" "tree-delete: the tree as it was"

# dataset parameters: --set moves the range, and the pre-flight line shows where it went
run_ldbench "$out" --scenario "$scen/random-uid-search.scen" "${root[@]}" --set first=101 --set last=150 -T 5
assert_eq 0 "$RC" "random-uid-search --set first/last: exit status"
assert_match ': Pre-flight: search \(uid=user00101\) 1, \(uid=user00113\) 1, \(uid=user00125\) 1, \(uid=user00137\) 1, \(uid=user00150\) 1 entries$' "$out" "--set first/last: the range searched"
assert_match 'expected-result hits 40, misses 0$' "$out" "--set first/last: every search found its entry"
# --dataset ldifgen on this ldbench-shaped data: user002..user201 are not there: exit 11, no load
fixture_monitor_snapshot "$snap"
run_ldbench "$out" --scenario "$scen/random-uid-search.scen" "${root[@]}" --dataset ldifgen --set count=200 -T 5
assert_eq 11 "$RC" "random-uid-search --dataset ldifgen on other data: exit status"
assert_match ': Pre-flight: search \(uid=user002\) 0, \(uid=user051\) 0, \(uid=user101\) 0, \(uid=user151\) 0, \(uid=user201\) 0 entries$' "$out" "--dataset ldifgen: user002..user201, three digits"
assert_match ': Pre-flight failed: the filter \(uid=user002\) \(value 2 of -r 2 -R 201\) returns 0 entries, expected 1 \(srchnentries\): the range does not match the data under ou=People,dc=example,dc=com \(--no-preflight runs anyway\)$' "$out" "--dataset ldifgen: the one line"
assert_match ': Exit status 11 - The range does not match the data \(pre-flight check\)\.$' "$out" "--dataset ldifgen: exit line"
assert_no_match 'Global average rate' "$out" "--dataset ldifgen: no load ran"
assert_eq 5 "$(fixture_monitor_delta "$snap" Search)" "--dataset ldifgen: only the pre-flight's searches"
# ... and on ldifgen-shaped data (count 10: user02..user11, two digits) every search hits
{
	ou Ldifgen
	for i in $(seq 2 11); do
		printf 'dn: uid=user%02d,ou=Ldifgen,%s\nobjectClass: inetOrgPerson\nuid: user%02d\ncn: user%02d\nsn: user%02d\n\n' \
			"$i" "$FIX_BASE" "$i" "$i" "$i"
	done
} | ldadd
run_ldbench "$out" --scenario "$scen/random-uid-search.scen" "${root[@]}" --dataset ldifgen --set count=10 \
	--set "parent=ou=Ldifgen,$FIX_BASE" -T 5
assert_eq 0 "$RC" "random-uid-search --dataset ldifgen on ldifgen data: exit status"
assert_match ': Pre-flight: search \(uid=user02\) 1, \(uid=user04\) 1, \(uid=user06\) 1, \(uid=user08\) 1, \(uid=user11\) 1 entries$' "$out" "--dataset ldifgen count 10: user02..user11"
assert_match 'expected-result hits 40, misses 0$' "$out" "--dataset ldifgen: every search found its entry"
run_ldbench "$out" "${root[@]}" --set first=1 -e esearch
assert_eq 2 "$RC" "--set without --scenario: exit status"
assert_match '--set sets a scenario.s parameters: it needs --scenario FILE' "$out" "--set without --scenario: the reason"

# a bad file: one line naming the file and the line, exit 2, no connection
printf '# bad\n-e esearch\n-n zero\n' >"$FIX_DIR/bad.scen"
run_ldbench "$out" --scenario "$FIX_DIR/bad.scen" "${root[@]}"
assert_eq 2 "$RC" "bad scenario: exit status"
assert_eq 1 "$(wc -l <"$out")" "bad scenario: one line"
assert_match "bad\\.scen:3: -n" "$out" "bad scenario: file and line"
echo "scenarios: all passed"
