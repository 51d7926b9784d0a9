#!/usr/bin/env bash
# Every ldbench command the documentation shows runs here, against the fixture
# slapd, with its exit status and key output lines asserted.
#
# What is extracted, automatically (a newly documented command is picked up
# without editing this file):
#   - README.md and docs/*.md: every line of a fenced or an indented code block
#     (continuation lines joined, comment lines and trailing "  # ..." dropped)
#     that calls ldbench as a command (`ldbench ...`, `.../ldbench ...`, also
#     inside a quoted remote command such as pdsh's), and every inline code
#     span `ldbench ...` that holds an option;
#   - docs/ldbench.1: the lines of its .nf/.fi blocks (EXAMPLES), unescaped;
#   - scenarios/*.scen: the commands in their comments ("#   ldbench ...").
# docs/guide.md's "# test" blocks are run in order, whole, by docs.sh: their
# commands are listed here as covered there, and not run twice.
#
# Each command must match exactly one entry of the expectation table below
# (KEY: a fixed string the command contains, padded with a blank on each side
# so that a key may end with one); a command without an entry, with two, or
# that does not give the status and lines of its entry FAILS the test, with a
# line naming FILE:LINE.  A synopsis (a usage line with placeholders) has a
# skip entry with its reason, printed.
#
# What the test changes in a command, and nothing else:
#   host and port   HOST, H, ldap1(.example.com) -> 127.0.0.1 and the fixture's
#                   ports (-p added when the line relies on 389); ldaps://HOST
#   credentials     "cn=Directory Manager", DN, DM -> the fixture's root DN;
#                   -w PW -> its password; -y pwfile|/root/dm.pw|dm.pw -> its
#                   password file; LDBENCH_PASSWORD for the Kubernetes job
#   base            -b BASE|B -> ou=People,dc=example,dc=com (the fixture's users;
#                   also sweep-search-random-cn's -b, see its entry)
#   paths           /tmp/ and /results/ -> this test's work directory (which
#                   holds scenarios/, tmpl.ldif, the records compare and
#                   merge read); ca.pem|ca.crt -> the fixture's CA;
#                   s.scen (the man page's "any scenario file") -> one;
#                   build-bench/ldbench -> the binary under test
#   durations       --duration Ns -> 500ms, --warmup Ns -> 200ms, sampinterval=N
#                   -> 1, -N N -> -N 1 --interval 500ms, --start-at -> 2 s ahead
#   population      a range over the docs' population from 1 (-r1 -R99999) -> the fixture's
#                   200 users (-R200); distributed.md's million users (seven X) -> its
#                   five-digit uids (userXXXXX), in its entries below
#   counts          per entry below (`add`/`sub`): -T, -R, --sweep, a bind
#                   range, so that each run is short; the docs' `...` (the
#                   server, identity and base left out) becomes the fixture's
#                   -h -p -D -y -b, and where `...` also hides the workload the
#                   entry adds a short one.
# The commands run in the order of the files, each file's in a work directory
# of its own (a file's commands may use what its earlier ones made).
# Commands that cannot run here (pdsh, the Kubernetes Job) are checked for
# their ldbench part: pdsh's quoted command runs locally for two "hosts" at
# once (hostname answered by a shell function), the Job's container command
# with its environment.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/../fixture/assert.sh"
LDBENCH=${LDBENCH:-$src/build/ldbench}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-doccmd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the fixture's slapd writes its stats log here (the README's commands on
# scenarios/try-server.sh's log read it as /tmp/ldbench-try/stats.log)
export FIX_STATS_LOG=$tmp/stats.log

# --- 1. extraction -------------------------------------------------------------
# one line per command: FILE:LINE <TAB> WHERE <TAB> COMMAND, WHERE one of block,
# inline, scen, test (a guide "# test" block)
extract() {
	awk '
	function emit(where, cmd) {
		gsub(/[[:space:]]+/, " ", cmd); sub(/^ /, "", cmd); sub(/ $/, "", cmd)
		if (cmd ~ /(^|[[:space:]"'"'"'(;|&])([^[:space:]"'"'"'`]*\/)?ldbench [^[:space:]]/)
			printf "%s:%d\t%s\t%s\n", name, start, where, cmd
	}
	function code(where, text) {
		if (pending != "") text = pending " " text; else start = FNR
		if (text ~ /\\$/) { sub(/\\$/, "", text); pending = text; return }
		pending = ""
		if (text ~ /^[[:space:]]*#/) return
		sub(/[[:space:]]+#[[:space:]].*$/, "", text)
		emit(where, text)
	}
	FNR == 1 { fence = 0; html = 0; indented = 0; blank = 1; pending = ""; carry = ""; nf = 0; scen = FILENAME ~ /\.scen$/; man = FILENAME ~ /\.1$/; name = FILENAME }
	scen { if ($0 ~ /^#   /) code("scen", substr($0, 2)); next }
	man && /^\.nf/ { nf = 1; next }
	man && /^\.fi/ { nf = 0; pending = ""; next }
	man { if (nf && $0 !~ /^\./) { t = $0; gsub(/\\-/, "-", t); gsub(/\\e/, "\\", t); gsub(/\\f[BIRP]/, "", t); code("block", t) } next }
	# an HTML comment (the guide'"'"'s notes on its own tests) shows no command
	!fence && /<!--/ { html = 1 }
	html { if ($0 ~ /-->/) html = 0; next }
	/^```/ { if (!fence) { fence = 1; first = 1; test = 0 } else fence = 0; pending = ""; carry = ""; next }
	fence { if (first) { first = 0; test = ($0 == "# test") } code(test ? "test" : "block", $0); next }
	# an indented code block starts after a blank line (an indented line right
	# after text goes on with that paragraph or list item)
	/^(    |\t)/ && (indented || blank) { indented = 1; blank = 0; code("block", $0); next }
	{ indented = 0; blank = ($0 ~ /^[[:space:]]*$/) }
	{
		# a code span may go on over the next line: join until the backticks pair up
		if (carry != "") line = carry " " $0; else { line = $0; cstart = FNR }
		if (gsub(/`/, "`", line) % 2 == 1 && $0 != "") { carry = line; next }
		carry = ""; start = cstart
		while (match(line, /`ldbench [^`]*`/)) {
			span = substr(line, RSTART + 1, RLENGTH - 2)
			if (span ~ / -/) emit("inline", span)
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$@"
}

# --- 2. the expectation table ----------------------------------------------------
# E KEY [rc=REGEX] [out=REGEX]... [add=ARGS] [sub=SED] [env=SH] [pre=SH] [post=SH]
#   [mode=pdsh] [skip=REASON]
#   rc    the exit status, an extended regex (default 0)
#   out   a line the output (stdout and stderr) must hold, extended regex
#   add   options put right after the word ldbench (a scenario's counts: the
#         command line overrides the file)
#   sub   a sed -E script (delimiter %) applied after the common substitutions
#   env   shell run first (variables the documented context provides)
#   pre   shell run before the command, in the work directory (files it reads)
#   post  shell run after it, in the work directory; must succeed
n_e=0
declare -a K RC OUT ADD SUB ENV PRE POST MODE SKIP USED
E() {
	local i=$n_e
	K[i]=$1; RC[i]=0; OUT[i]=""; ADD[i]=""; SUB[i]=""; ENV[i]=""; PRE[i]=""; POST[i]=""; MODE[i]=""
	SKIP[i]=""; USED[i]=0
	shift
	for a in "$@"; do
		case $a in
		rc=*) RC[i]=${a#rc=} ;;
		out=*) OUT[i]+=${a#out=}$'\n' ;;
		add=*) ADD[i]=${a#add=} ;;
		sub=*) SUB[i]=${a#sub=} ;;
		env=*) ENV[i]=${a#env=} ;;
		pre=*) PRE[i]=${a#pre=} ;;
		post=*) POST[i]=${a#post=} ;;
		mode=*) MODE[i]=${a#mode=} ;;
		skip=*) SKIP[i]=${a#skip=} ;;
		*) _fail "expectation '$1': bad field '$a'" ;;
		esac
	done
	n_e=$((n_e + 1))
}
ok='Exit status 0 - No problem during execution\.'
noerr='Global no error occurs during this session\.'
# a short search workload, for the docs' "ldbench ..." that leaves it out
work="-f '(uid=userXXXXX)' -e esearch,random -r1 -R200 -T 10"
sweep2='Sweep of 2 runs'

# synopses: usage lines, not commands
E 'BASE.json... -- CHANGE.json...' skip='synopsis of compare (placeholders)'
E 'compare BASE... -- CHANGE...' skip='synopsis of compare (placeholders)'
E 'merge [--json OUT] FILE...' skip='synopsis of merge (placeholders)'
E 'join --op-log FILE LOG...' skip='synopsis of join (placeholders)'
E 'join --op-log FILE [--json OUT]' skip='synopsis of join (placeholders)'
E 'replay --profile LOG...' skip='synopsis of replay --profile (placeholders)'
E 'replay --profile [--from TIME]' skip='synopsis of replay --profile (placeholders)'
E '--scenario FILE -h HOST -p PORT -y PWFILE' skip='a written scenario run (placeholders)'
E 'replay -H URI LOG...' skip='synopsis of replay (placeholders)'
E 'replay LOG... -H URI' skip='synopsis of replay (placeholders)'
E 'replay -H ldap://HOST:PORT | -h HOST -p PORT' skip='synopsis of replay (placeholders)'
E 'replay -H ldap[s]://HOST[:PORT] | -h HOST -p PORT' skip='synopsis of replay (placeholders)'
E 'replay -H URI --json FILE LOG...' skip='synopsis of a replay with records (placeholders)'
E 'replay -H URI --timing recorded --password-map FILE --interval 1s --metrics-listen' \
	skip='synopsis of a replay with live metrics (placeholders; metrics_replay.sh runs one against Prometheus)'
E 'compare BASE.json -- CHANGE.json' skip='synopsis of compare (placeholders)'
E "replay: --fail-if 'p99>5parsecs'" skip='an error line quoted, not a command'
E "compare: --fail-if 'x.search.p99>+10%'" skip='an error line quoted, not a command'
E '--scenario FILE [options]' skip='synopsis of --scenario (placeholders)'
E 'listen-join --writes W --notes N' skip='synopsis of listen-join (placeholders)'
E '--write-record writes.rec' skip='the writing host of a two-host example (listen_join.sh runs the same three steps on loopback)'
E 'listen-join --writes writes.rec --notes notes.rec' skip='the joining step of a two-host example (listen_join.sh runs it)'

# README.md
E '-e esearch,random -r1 -R99999 -n 8 -N 6 ' out='Average rate: ' out="$ok"
E '-n 4 -a 16 --warmup 10s --duration 60s --json run.json ' out='^ldbench\[[0-9]+\]: Measured time: ' out="$ok" \
	post='grep -q "\"type\":\"summary\"" run.json'
E '-n 5000 --held --probe-every 25s --connect-rate 2000/s ' sub='s%-n 5000 %-n 50 %; s%-R1000 %-R200 %; s%--warmup 5s --duration 60s%--warmup 1s --duration 2s%' \
	out='^ldbench\[[0-9]+\]: Held connections: 50 of 50 up at the end, lost 0, re-opened 0; all 50 connected [0-9.]+ s after the start$' out="$ok"
# the fixture's slapd has no syncprov: the listeners' search is refused, one line, exit 15
E '--listeners 50 --listen-base ' sub='s%-R1000 %-R200 %' rc=15 \
	out='^ldbench: the server does not support RFC 4533 sync searches below ou=People,dc=example,dc=com \(unavailableCriticalExtension\)$'
E '-n 16 --rate 20000 --duration 60s ' add="-f '(uid=userXXXXX)'" out='Target rate: 20000\.00/sec' out="$ok"
E 'object=tmpl.ldif,rdn=uid:user[A=INCRNNOLOOP(1000;1999;4)]' out='add: attempted 1000, completed 1000, succeeded 1000' \
	out="$noerr"
# after the populate above: the mix over the entries it added (the doc's line runs until stopped)
E '--mix search:80,modify:15,compare:5 ' add='-T 20' out='modify: attempted [0-9]+, completed' \
	out='compare: attempted [0-9]+, completed' out="$noerr" out="$ok"
E 'randombinddnlow=1,randombinddnhigh=100000' add='-T 5' sub='s%randombinddnhigh=100000%randombinddnhigh=200%' \
	out='bind: attempted 50, completed 50, succeeded 50' out='TLS: handshakes [0-9]+, resumed [0-9]+, server certificate verified' \
	out="$ok"
E "compare base-*.json -- change-*.json --fail-if 'rate<-5%'" \
	pre='for f in base-1 base-2 change-1 change-2; do cp ref.json $f.json; done' \
	out="^fail-if 'rate<-5%': does not hold\$" out='^\(2 base runs, 2 change runs;'
E '--list-scenarios scenarios' out='^random-uid-search +' out='^write-mix +'
E '--scenario scenarios/random-uid-search.scen -h HOST -D DN -y pwfile -b BASE ' add='-T 20' \
	out='expected-result hits 160, misses 0$' out="$ok"
# scenarios/try-server.sh's stats log: the fixture's (FIX_STATS_LOG above)
trylog='mkdir -p tmp/ldbench-try && ln -sf "$FIX_STATS_LOG" tmp/ldbench-try/stats.log'
E '--op-log run.oplog --server-log /tmp/ldbench-try/stats.log' pre="$trylog" out="$ok" \
	out='Server log \(openldap\), search: [0-9]+ of [0-9]+ operations joined \(100\.0 %\)'
E 'join --op-log run.oplog /tmp/ldbench-try/stats.log' out='search: [0-9]+ of [0-9]+ operations joined \(100\.0 %\)'
E 'replay --profile /tmp/ldbench-try/stats.log' pre="$trylog" out='^  search +requests [1-9][0-9]* '
E 'replay -h HOST -p 389 --password-rule ldbench --default-password-file pwfile recorded.log' \
	pre='cp "$FIX_STATS_LOG" recorded.log' \
	sub='s%--default-password-file pwfile%--default-password-file "$PWFILE"%' \
	out='^replay of a openldap log: [1-9][0-9]* lines' out='^search +[1-9][0-9]* +[1-9][0-9]* '

# docs/distributed.md
# (the two local "hosts" listen on ports of their own; nothing scrapes them: a short linger)
E 'pdsh -w load[1-4] "ldbench ' mode=pdsh \
	sub='s%userXXXXXXX%userXXXXX%;s%0\.0\.0\.0:9464 --metrics-linger 60s%127.0.0.1:2946$(hostname | tr -dc 0-9) --metrics-linger 1s%' env='T=$(($(date +%s) + 2))' \
	post='for h in load1 load2; do grep -q "Exit status 0 - " tmp/run-$h.txt && grep -q "\"type\":\"summary\"" tmp/run-$h.json || exit 1; done'
E 'merge run-load*.json --json merged.json ' pre='cp tmp/run-load*.json .' \
	out='^merged 2 runs: run-load1\.json \([^)]*\) run-load2\.json \([^)]*\)$' out='^search +[0-9]+ ' \
	post='grep -q "\"merged\":{\"runs\":2," merged.json'
E "compare baseline.json -- merged.json --fail-if 'rate<-5%' --fail-if 'p99>+10%'" rc='0|1' pre='cp ref.json baseline.json' \
	out="^fail-if 'rate<-5%': (holds \\(search rate [-+0-9.]+%\\)|does not hold)\$" \
	out="^fail-if 'p99>\\+10%': (holds \\(search p99 [-+0-9.]+%\\)|does not hold)\$"
# (its Pushgateway: a closed port here, the warning said and the run going on)
E '--start-at "$START_AT" --interval 1s --metrics-push http://pushgateway.monitoring:9091 --json /results/run-$JOB_COMPLETION_INDEX.json' \
	sub='s%userXXXXXXX%userXXXXX%;s%http://pushgateway\.monitoring:9091%http://127.0.0.1:9%' out='--metrics-push http://127.0.0.1:9: Connection refused' \
	env='JOB_COMPLETION_INDEX=0; lo=1; hi=$FIX_USERS; START_AT=@$(($(date +%s) + 2)); export LDBENCH_PASSWORD=$(cat "$PWFILE")' \
	out="$ok" post='grep -q "\"type\":\"summary\"" results/run-0.json'
E 'merge /results/run-*.json --json /results/merged.json' out='^merged 1 run: ' \
	post='grep -q "\"merged\":{\"runs\":1," results/merged.json'

# docs/guide.md (outside its "# test" blocks)
E 'gen tree --depth 5 --fanout 5 --entries 5 --suffix ou=Tree,' env='SUFFIX=dc=example,dc=com' \
	out='gen tree: 3906 containers \(levels 0-5, the top entry included\), 19530 entries, 23436 in all'
E 'random-uid-search.scen -h ldap1.example.com -p 389 ' add='-T 20' out='expected-result hits 160, misses 0$' \
	out='Server \(cn=Monitor\): search completed 160 \(client: 160 completed, 0 in flight\): agree' out="$ok"

# docs/migrating-from-ldclt.md
E '--scenario scenarios/exact-search-8-threads.scen -h H -D DM -y dm.pw -b B' add='-T 20' \
	out='expected-result hits 160, misses 0$' out="$ok"
# "..." stands for the rest of the ldclt command: here a short exact search
E '-H ldaps://H --tls-cacert ca.pem ...' add="-f '(uid=user00001)' -e esearch -n 2 -T 5" \
	out='search: attempted 10, completed 10, succeeded 10' out='server certificate verified' out="$ok"

# docs/results.md
# docs/metrics.md (nothing scrapes it here: a short linger)
E '--metrics-listen 0.0.0.0:9464 --metrics-linger 30s' add="$work" out="$ok" \
	sub='s%0\.0\.0\.0:9464 --metrics-linger 30s%127.0.0.1:29463 --metrics-linger 1s%'
E '... --json run.json ' add="$work" out="$ok" post='grep -q "\"type\":\"summary\"" run.json'
E '... --csv run.csv ' add="$work" out="$ok" post='head -n 1 run.csv | grep -q "^sample,t_s,"'
E '... --json - ' add="$work" out='^\{"type":"summary",' out="$ok"
E 'compare a.json -- b.json -- -c.json' pre='cp ref.json a.json; cp ref.json b.json; cp ref.json ./-c.json' \
	out='^\(1 base run, 2 change runs;'
E 'merge --json - a.json b.json >merged.json' pre='cp ref.json a.json; cp ref.json b.json' \
	out='^merged 2 runs: a\.json .*b\.json' post='test "$(wc -l <merged.json)" = 1 && grep -q "\"merged\":{\"runs\":2," merged.json'

# scenarios/*.scen comments: the datasets they name, then the runs (-T, -R,
# --sweep and --duration on the command line override the file's)
E 'gen users --suffix dc=example,dc=com --parent ou=People,dc=example,dc=com --number 1000 ' \
	out='^dn: uid=user01000,ou=People,dc=example,dc=com$'
E 'gen users --suffix dc=example,dc=com --parent ou=People,dc=example,dc=com --number 200 --ldif-file /tmp/bench/users.ldif' \
	pre='mkdir -p tmp/bench' out='^Successfully created LDIF file: .*/tmp/bench/users\.ldif$' \
	post='test "$(grep -c "^dn: uid=" tmp/bench/users.ldif)" = 200'
E 'gen users --suffix dc=example,dc=com --parent ou=People,dc=example,dc=com --number 10000 ' \
	out='^Successfully created LDIF file: .*/tmp/bench/users10k\.ldif$'
E 'gen users --suffix dc=example,dc=com --parent ou=MixBench,dc=example,dc=com --number 1000 ' \
	out='^Successfully created LDIF file: .*/tmp/bench/mix-users\.ldif$'
E 'gen mod-load --num-users 10 --create-users --parent ou=WriteBench,' out='^dn: uid=user00010,ou=WriteBench,dc=example,dc=com$' \
	out='^changetype: modify$'
E 'scenarios/app-account-search.scen ' add='-T 10' out='expected-result hits 40, misses 0$' out="$ok"
E 'authrate.scen -H URI --set base=BASE' skip='synopsis of authrate.scen (placeholders)'
E '--scenario walk.scen -H ldap://HOST' skip='an example file of the guide, written in its text (workloads.sh runs the same two workloads)'
E 'paged-walk-vs-search.scen -H URI --set base=SUFFIX' skip='synopsis of paged-walk-vs-search.scen (placeholders; scenarios.sh runs the file)'
E ' --flow upd ' out='upd: attempted [0-9]+, completed [0-9]+, succeeded [0-9]+, counted [0-9]+, errors 0$' \
	out='upd.user: attempted [0-9]+' out='upd.2.modify: attempted [0-9]+' out='upd.3.compare: attempted [0-9]+' out="$ok"
E 'scenarios/authrate.scen -h HOST' add='-T 10' out='login: attempted 80, completed 80, succeeded 80, counted 80, errors 0$' \
	out='bind: attempted 80, completed 80, succeeded 80' out="$ok"
E 'scenarios/bind-random-population.scen ' add='-T 10' out='bind: attempted 40, completed 40, succeeded 40' out="$noerr"
E 'scenarios/bind-single-account.scen ' add='-T 10' out='bind: attempted 40, completed 40, succeeded 40' out="$ok"
E 'exact-search-8-threads.scen -h HOST -p 389 ' add='-T 20' out='expected-result hits 160, misses 0$' out="$ok"
E 'scenarios/ldaps-exact-search.scen ' add='-T 10' out='expected-result hits 40, misses 0$' \
	out='server certificate verified' out="$ok"
E 'random-uid-search.scen -h HOST -p 389 ' add='-T 20' out='expected-result hits 160, misses 0$' out="$ok"
E 'scenarios/sweep-add-10k.scen ' add='-R 30 --sweep 1,2' out="$sweep2" out='add: attempted 30, completed 30, succeeded 30' \
	post='test "$(ldapsearch -LLL -x -H "$URI" -D "$ROOTDN" -y "$PWFILE" -b ou=AddBench,dc=example,dc=com "(cn=user*)" dn | grep -c "^dn:")" = 0'
E 'scenarios/sweep-bind-random-dn.scen ' add='-e randombinddnhigh=200 --sweep 1,2 --duration 500ms' out="$sweep2" out="$noerr"
# the comment's lab holds only the 10,000 users under dc=example,dc=com; this one also holds
# ou=PerfBench's, whose cn values repeat ou=People's: its own users' container as the base
E 'scenarios/sweep-search-random-cn.scen ' add='-R 200 --sweep 1,2 --duration 500ms' \
	sub='s%-b dc=example,dc=com( |$)%-b ou=People,dc=example,dc=com\1%' out="$sweep2" out='misses 0$' out="$noerr"
E 'scenarios/tree-add.scen ' add='-R 40' out='add: attempted 40, completed 40, succeeded 40' out="$ok"
E 'scenarios/tree-data-read.scen ' add='--duration 500ms' out='search entries returned: [1-9][0-9]* ' out="$ok"
E 'scenarios/tree-delete.scen ' add='-R 40' out='delete: attempted 40, completed 40, succeeded 40' out="$ok"
E 'scenarios/tree-search.scen ' add='-R 12 --duration 500ms' out='expected-result hits [1-9][0-9]*, misses 0$' out="$ok"
E 'scenarios/write-clean.scen ' out='add: attempted 10, completed 10, succeeded 10' \
	out='modify: attempted 10, completed 10, succeeded 10' out="$ok"
E '-e delete,incr,commoncounter,noloop -r 1 -R 10 -n 1' out='delete: attempted 10, completed 10, succeeded 10' out="$ok"
E 'scenarios/write-mix.scen ' add='-R 100 -T 50' out='rename: attempted [0-9]+' out='^ldbench\[[0-9]+\]: Global average rate: .*total: +200$' \
	out="$ok"

# docs/install.md: the package's paths are the source tree's here (tests/integration/package.sh
# installs the package itself)
E '--list-scenarios /usr/share/ldbench/scenarios' sub='s%/usr/share/ldbench/scenarios%scenarios%' \
	out='^random-uid-search +' out='^write-mix +'
E 'ldbench --version' out='^ldbench version [0-9]+\.[0-9]+\.[0-9]+$'

# docs/results.md and migrating-from-ldclt.md: report, --html, --hdr-log
E 'report FILE.json... -o report.html' skip='synopsis of report (placeholders)'
E 'report [-o report.html] FILE.json... [-- CHANGE.json...]' skip='synopsis of report (placeholders)'
E '... --html run.html' add="$work" out="$ok" post='grep -q "<svg" run.html && grep -q "</html>" run.html'
E '... --hdr-log run.hlog' add="$work" out="$ok" post='grep -q "^#\[StartTime: " run.hlog && grep -q "^Tag=search," run.hlog'
# the guide's ldifgen numbering on the fixture's ldbench-numbered users: the pre-flight says the
# range does not match the data and stops (exit 11) before the load
E '--dataset ldifgen --set count=200 ...' rc=11 out='Pre-flight failed: the filter \(uid=user002\)'

# docs/capacity.md
E "--find-max 'p99<5ms,errors<1' --warmup 2s --duration 10s --json capacity.json" rc='0|12' \
	out='Find-max of [0-9]+ steps \(objective p99<5ms,errors<1\)' \
	post='grep -q "^{\"type\":\"find_max\"" capacity.json'
# an option named in the text, not a command
E 'gen users --generic' skip='names an option of gen users (no command)'

# docs/ldbench.1's EXAMPLES
E '-e esearch,random,srchnentries=1 -r1 -R99999 -n 8 -N 6 ' out='Average rate: ' out="$ok"
E 'gen users --suffix dc=example,dc=com --number 10000 --ldif-file u.ldif' out='^Successfully created LDIF file: u\.ldif$'
E 'randombinddnlow=1,randombinddnhigh=10000 -n 8 -T 1000' \
	sub='s%randombinddnhigh=10000%randombinddnhigh=200%; s%-T 1000%-T 5%' out='bind: attempted 40, completed 40, succeeded 40' \
	out="$ok"
E 'random-uid-search.scen -h ldap1 -D ' out='expected-result hits 800, misses 0$' out="$ok"
# s.scen names any scenario file: this one
E '--scenario s.scen ... ' sub='s%s\.scen%scenarios/random-uid-search.scen%' out="$ok" \
	post='for f in base1 base2 base3; do grep -q "\"type\":\"summary\"" $f.json || exit 1; done'
E "compare --fail-if 'rate<-5%' base*.json -- new*.json" rc='0|1' \
	out="^fail-if 'rate<-5%': (holds \\(search rate [-+0-9.]+%\\)|does not hold)\$" out='^\(3 base runs, 3 change runs;'
# on a loaded test machine the p99 gate may or may not hold: its line either way
E "-f \"(uid=user00001)\" -e esearch -n 4 --duration 60s --fail-if 'p99>5ms'" rc='0|10' \
	out='(Exit status 0 - No problem|Threshold failed: p99>5ms \(search is [0-9.]+ ms\))' \
	out='search: attempted [0-9]+, completed' out='server certificate verified'

# --- 3. every command has exactly one entry ---------------------------------------
# entry_of CMD: the index of its one entry; "" (and a reason on stdout) otherwise
entry_of() {
	local padded=" $1 " i found=""
	for ((i = 0; i < n_e; i++)); do
		if [[ $padded == *"${K[i]}"* ]]; then
			[ -z "$found" ] || { echo "two expectation entries ('${K[found]}' and '${K[i]}')"; return; }
			found=$i
		fi
	done
	[ -n "$found" ] || { echo "no expectation entry"; return; }
	echo "=$found"
}
# check_coverage LIST: one line per command without exactly one entry; status 1 then
check_coverage() {
	local loc where cmd e bad=0
	while IFS=$'\t' read -r loc where cmd; do
		[ "$where" = test ] && continue
		e=$(entry_of "$cmd")
		if [ "${e:0:1}" != "=" ]; then
			echo "FAIL: $loc: $e for the documented command: $cmd"
			bad=1
		fi
	done <"$1"
	return $bad
}
# the check itself can fail: a documented command nobody expected
printf 'docs/new.md:1\tblock\tldbench --some-new-option 42\n' >"$tmp/fake.list"
if check_coverage "$tmp/fake.list" >"$tmp/fake.out"; then
	_fail "a command without an expectation entry passed the coverage check"
fi
assert_match '^FAIL: docs/new\.md:1: no expectation entry for the documented command: ldbench --some-new-option 42$' \
	"$tmp/fake.out" "coverage check: an unknown command fails with its place"

cd "$src"
extract README.md docs/*.md docs/ldbench.1 scenarios/*.scen >"$tmp/commands.list"
total=$(wc -l <"$tmp/commands.list")
ntest=$(awk -F'\t' '$2 == "test"' "$tmp/commands.list" | wc -l)
assert_ge 50 "$total" "ldbench commands found in the docs"
assert_ge 15 "$ntest" "commands in the guide's # test blocks (docs.sh runs them)"
if ! check_coverage "$tmp/commands.list" >"$tmp/coverage.out"; then
	cat "$tmp/coverage.out" >&2
	_fail "documented commands without exactly one expectation entry (add one to $(basename "$0")'s table)"
fi
echo "ok: $total documented commands, each with its entry ($ntest in the guide's # test blocks, run by docs.sh)"

# --- 4. the lab: the fixture, the datasets the commands name --------------------------
. "$here/../fixture/slapd.sh"
fixture_start --users 200 --tls
export LDAPNOINIT=1
# each documentation file gets a work directory of its own: its commands may
# build on each other, as a reader following that file would, and no other file's
# records get in the way of a glob
mkdir -p "$FIX_DIR/bin"
ln -s "$LDBENCH" "$FIX_DIR/bin/ldbench"
PATH=$FIX_DIR/bin:$PATH
# workdir FILE: W, the (new or existing) work directory of FILE
workdir() {
	W=$FIX_DIR/work/$(tr '/' '_' <<<"$1")
	[ -d "$W" ] && return
	mkdir -p "$W/tmp/bench" "$W/results"
	ln -s "$src/scenarios" "$W/scenarios"
	printf 'user00001\n' >"$W/tmp/bench/user00001.pw"
	cat >"$W/tmpl.ldif" <<'T'
objectclass: top
objectclass: person
objectclass: organizationalPerson
objectclass: inetOrgPerson
sn: user[A]
cn: user[A]
T
	cp "$FIX_DIR/ref.json" "$W/ref.json"
}
ldadd() { ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null; }
nosuffix() { awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^dn: dc=example,dc=com\n/'; }
ou() { printf 'dn: ou=%s,%s\nobjectClass: organizationalUnit\nou: %s\n\n' "$1" "$FIX_BASE" "$1"; }
"$LDBENCH" gen users --suffix "$FIX_BASE" --parent "ou=PerfBench,$FIX_BASE" --number 200 | nosuffix | ldadd
"$LDBENCH" gen users --suffix "$FIX_BASE" --parent "ou=MixBench,$FIX_BASE" --number 100 | nosuffix | ldadd
{ ou WriteBench; ou AddBench; } | ldadd
# a depth-5 tree as the tree scenarios need, one container per level (12 entries)
"$LDBENCH" gen tree --depth 5 --fanout 1 --entries 2 --suffix "ou=Tree,$FIX_BASE" 2>/dev/null | ldadd
# the record that compare and merge read where the docs name files of earlier runs
"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -b "$FIX_PEOPLE" -f '(uid=userXXXXX)' \
	-e esearch,random -r1 -R200 -T 10 -n 2 -Q --json "$FIX_DIR/ref.json" >/dev/null

# --- 5. run each -----------------------------------------------------------------
q() { printf "'%s'" "$1"; } # the fixture's values hold no quote
# the common substitutions (header): the documented line -> the line run here
substitute() {
	local c=$1 lp="$FIX_LDAPS_PORT" p="$FIX_PORT"
	# the documented paths first: the fixture's own live under /tmp too
	c=$(sed -E -e "s%(^|[ \">=])/tmp/%\\1$W/tmp/%g" -e "s%(^|[ \">=])/results/%\\1$W/results/%g" <<<"$c")
	c=$(sed -E \
		-e "s%ldaps://(HOST|H|ldap1)(:636)?%ldaps://127.0.0.1:$lp%g" \
		-e "s%ldap://ldap1\\.example\\.com%ldap://127.0.0.1:$p%g" \
		-e "s%(^| )-h (HOST|H|ldap1\\.example\\.com|ldap1)( |\$)%\\1-h 127.0.0.1\\3%g" \
		-e "s%(^| )-p (389|PORT)( |\$)%\\1-p $p\\3%g" \
		-e "s%(^| )-D (\"cn=Directory Manager\"|'cn=Directory Manager'|DN|DM)( |\$)%\\1-D $(q "$FIX_ROOTDN")\\3%g" \
		-e "s%(^| )-w PW( |\$)%\\1-w $(q "$FIX_ROOTPW")\\2%g" \
		-e "s%(^| )-y (pwfile|/root/dm\\.pw|dm\\.pw)( |\$)%\\1-y $(q "$FIX_PWFILE")\\3%g" \
		-e "s%(^| )-b (BASE|B)( |\$)%\\1-b $(q "$FIX_PEOPLE")\\3%g" \
		-e "s%(--tls-cacert )(ca\\.pem|ca\\.crt)( |\$)%\\1$(q "$FIX_CA")\\3%g" \
		-e "s%(^| )build-bench/ldbench %\\1ldbench %g" \
		-e "s%--duration [0-9]+s%--duration 500ms%g" \
		-e "s%--warmup [0-9]+s%--warmup 200ms%g" \
		<<<"$c")
	if [[ $c == *sampinterval=* ]]; then
		c=$(sed -E 's%sampinterval=[0-9]+%sampinterval=1%g' <<<"$c")
	else
		c=$(sed -E 's%(^| )-N [0-9]+( |$)%\1-N 1 --interval 500ms\2%g' <<<"$c")
	fi
	# a range over the docs' whole population (from 1), larger than the fixture's: the
	# fixture's (the pre-flight check would rightly stop a range that does not match the data)
	local re='(^| )-R ?([0-9]+)( |$)' from1='(^| )-r ?1( |$)'
	while [[ $c =~ $from1 && $c =~ $re ]] && ((BASH_REMATCH[2] > FIX_USERS)); do
		c=${c/"${BASH_REMATCH[0]}"/"${BASH_REMATCH[1]}-R$FIX_USERS${BASH_REMATCH[3]}"}
	done
	local srv
	srv="-D $(q "$FIX_ROOTDN") -y $(q "$FIX_PWFILE") -b $(q "$FIX_PEOPLE")"
	[[ $c == *" -H "* ]] || srv="-h 127.0.0.1 -p $p $srv"
	c=${c//" ... "/" $srv "}
	[[ $c == *" ..." ]] && c="${c% ...} $srv"
	if [[ $c == *"-h 127.0.0.1"* && $c != *" -p "* ]]; then
		c=${c/"-h 127.0.0.1"/"-h 127.0.0.1 -p $p"}
	fi
	printf '%s' "$c"
}
# insert ARGS after the (first) word ldbench
add_args() {
	local c=$1 a=$2
	[ -z "$a" ] && { printf '%s' "$c"; return; }
	sed -E "0,/(^|[ \"'])ldbench /s%(^|[ \"'])ldbench %\\1ldbench $a %" <<<"$c"
}
ran=0 skipped=0 failed=0
while IFS=$'\t' read -r loc where cmd; do
	if [ "$where" = test ]; then
		continue
	fi
	e=$(entry_of "$cmd"); i=${e#=}
	USED[i]=1
	if [ -n "${SKIP[i]}" ]; then
		echo "skip: $loc: ${SKIP[i]}: $cmd"
		skipped=$((skipped + 1))
		continue
	fi
	workdir "${loc%:*}"
	run=$cmd
	if [ "${MODE[i]}" = pdsh ]; then
		# the quoted remote command, unescaped as the remote shell sees it
		run=$(sed -E 's/^[^"]*"(.*)"$/\1/; s/\\\$/$/g' <<<"$run")
	fi
	run=$(substitute "$run")
	[ -n "${SUB[i]}" ] && run=$(sed -E "${SUB[i]}" <<<"$run")
	run=$(add_args "$run" "${ADD[i]}")
	if [ "${MODE[i]}" = pdsh ]; then
		run="pids=; for h in load1 load2; do ( hostname() { echo \"\$h\"; }; $run ) & pids=\"\$pids \$!\"; done
rc=0; for p in \$pids; do wait \$p || rc=\$?; done; exit \$rc"
	fi
	script="cd $(q "$W")
PWFILE=$(q "$FIX_PWFILE"); ROOTDN=$(q "$FIX_ROOTDN"); URI=$(q "$FIX_URI")
${ENV[i]}
${PRE[i]}
$run"
	echo "== $loc: $cmd"
	echo "   runs: ${run//"$FIX_ROOTPW"/*****}"
	set +e
	t0=$(date +%s%N)
	timeout 120 bash -c "$script" >"$tmp/out" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	set -e
	why=""
	[[ $rc =~ ^(${RC[i]})$ ]] || why="exit status $rc, expected ${RC[i]}"
	if [ -z "$why" ]; then
		while IFS= read -r re; do
			[ -z "$re" ] && continue
			grep -Eq -- "$re" "$tmp/out" || { why="no line matches /$re/"; break; }
		done <<<"${OUT[i]}"
	fi
	if [ -z "$why" ] && [ -n "${POST[i]}" ]; then
		(cd "$W" && PWFILE=$FIX_PWFILE ROOTDN=$FIX_ROOTDN URI=$FIX_URI bash -c "${POST[i]}") >"$tmp/post" 2>&1 ||
			why="the check after it failed: ${POST[i]}"
	fi
	if grep -qF -- "$FIX_ROOTPW" "$tmp/out"; then
		why="the password is in its output"
	fi
	if [ -n "$why" ]; then
		tail -n 25 "$tmp/out" | sed 's/^/   | /'
		echo "FAIL: $loc: $why: $cmd" >&2
		failed=$((failed + 1))
	else
		echo "   ok (exit $rc, $ms ms)"
		ran=$((ran + 1))
	fi
done <"$tmp/commands.list"
for ((i = 0; i < n_e; i++)); do
	[ "${USED[i]}" = 1 ] || echo "note: expectation '${K[i]}' matches no documented command any more (remove it)"
done
echo "ran $ran, skipped $skipped (synopses), $ntest in docs.sh's guide blocks, failed $failed"
assert_eq 0 "$failed" "documented commands that failed"
echo "doc_commands: all passed"
