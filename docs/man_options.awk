# The man page's option lists from the option tables, one way to declare
# an option (src/util/optable.h): docs/ldbench.1
# is made from the template docs/ldbench.1.in and `ldbench --dump-options`
# (CMD<TAB>OPTION<TAB>METAVAR<TAB>HELP, in each table's order):
#
#   awk -f docs/man_options.awk TABLE.tsv docs/ldbench.1.in > docs/ldbench.1
#
# (the build does it: the target `man`, and tests/integration/man_options.sh
# holds the checked-in docs/ldbench.1 to what it makes).  In the template, a
# list is the lines from
#   .\" @options CMD short|long     (CMD's options -x, or --name)
# to
#   .\" @end
# holding one description per option, each after its own
#   .\" @opt OPTION
# line.  The list comes out as one .TP entry per option of CMD's table, in
# the table's order: its tag (the option and its metavar, from the table),
# then its description.  An option of the table without a description, or a
# description of an option the table does not have, is an error (exit 1,
# one line per option on stderr): the man page cannot fall behind the table.
# A list opened with
#   .\" @options CMD all
# holds no description: each of CMD's options comes with its --help text
# (the subcommands' lists; their prose is in SUBCOMMANDS).

function esc(s)
{
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	return s
}

# METAVAR in the man page's fonts: placeholders (upper case: N, FILE, ADDR)
# in italics, literal words (lower case and numbers: gnutls, 1.2) in bold,
# the punctuation between them ([ ] | : , ...) in roman.
function fonts(m,    out, c, run, font, f)
{
	out = ""
	run = ""
	font = ""
	while (m != "") {
		c = substr(m, 1, 1)
		if (c ~ /[A-Z_]/ || (font == "I" && c ~ /[0-9]/))
			f = "I"
		else if (c ~ /[a-z0-9]/ || (font == "B" && c ~ /[.-]/ && substr(m, 2, 1) ~ /[a-z0-9]/))
			f = "B"
		else
			f = "R"
		if (f != font && run != "") {
			out = out (font == "R" ? esc(run) : "\\f" font esc(run) "\\fR")
			run = ""
		}
		font = f
		run = run c
		m = substr(m, 2)
	}
	if (run != "")
		out = out (font == "R" ? esc(run) : "\\f" font esc(run) "\\fR")
	return out
}

function tag(opt, meta)
{
	return "\\fB" esc(opt) "\\fR" (meta == "-" ? "" : " " fonts(meta))
}

function fail(msg)
{
	print "man_options: " msg > "/dev/stderr"
	bad = 1
}

BEGIN {
	FS = "\t"
	print ".\\\" Generated from docs/ldbench.1.in and the option tables by docs/man_options.awk:"
	print ".\\\" edit the template (and the tables), then `cmake --build build --target man-update`."
}

# the tables
FNR == NR {
	kind = ($2 ~ /^--/) ? "long" : "short"
	key = $1 " " kind
	n[key]++
	order[key, n[key]] = $2
	key = $1 " all"
	n[key]++
	order[key, n[key]] = $2
	meta[$1, $2] = $3
	help[$1, $2] = $4
	next
}

# roff text from --help's: escapes, and no control character first
function text(s)
{
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

# the template
/^\.\\" @options / {
	split($0, w, " ")
	cmd = w[3]
	key = cmd " " w[4]
	if (w[4] != "short" && w[4] != "long" && w[4] != "all")
		fail(FILENAME ":" FNR ": @options " cmd " " w[4] ": short, long or all")
	if (!(key in n))
		fail(FILENAME ":" FNR ": no table has " key " options")
	inlist = 1
	cur = ""
	delete body
	delete seen
	next
}
inlist && /^\.\\" @opt / {
	cur = substr($0, 10)
	if (w[4] == "all")
		fail(FILENAME ":" FNR ": @opt in an 'all' list (its options' texts are their --help's)")
	if (!((cmd, cur) in meta) || ((cur ~ /^--/) ? "long" : "short") != w[4])
		fail(FILENAME ":" FNR ": " cur " is not one of ldbench " cmd "'s " w[4] " options in its table")
	if (cur in seen)
		fail(FILENAME ":" FNR ": " cur " described twice")
	seen[cur] = 1
	body[cur] = ""
	next
}
inlist && /^\.\\" @end$/ {
	for (i = 1; i <= n[key]; i++) {
		o = order[key, i]
		if (w[4] == "all") {
			print ".TP"
			print tag(o, meta[cmd, o])
			print text(help[cmd, o])
			continue
		}
		if (!(o in seen)) {
			fail(FILENAME ": ldbench " cmd "'s " o " (its table) has no description in the template")
			continue
		}
		print ".TP"
		print tag(o, meta[cmd, o])
		printf "%s", body[o]
	}
	inlist = 0
	next
}
inlist {
	if (cur == "") {
		if ($0 != "")
			fail(FILENAME ":" FNR ": text before the first @opt of a list")
		next
	}
	body[cur] = body[cur] $0 "\n"
	next
}
{ print }

END {
	if (inlist)
		fail(FILENAME ": an @options list without its @end")
	exit bad
}
