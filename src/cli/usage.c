/* --help's text: the synopsis, the option table's lines (cli/option_table.c),
 * the -e keywords, the subcommands and the exit statuses. */
#include "cli/cli.h"
#include "cli/ctx.h"

#include <stdio.h>

void ldb_cli_usage(const char *progname, FILE *out)
{
	fprintf(out,
	        "usage: %s [options] -e esearch|bindonly|add|delete|rename|attreplace=...[,keyword...]\n"
	        "       %s [options] --mix KIND:WEIGHT,...\n"
	        "       %s -e genldif=FILE,object=FILE|person|... [options]\n",
	        progname, progname, progname);
	fputs("ldclt-compatible LDAP load generator.\n\n", out);
	ldb_opt_help(cli_options, 15, 30, out); /* every option's line (cli/option_table.c) */
	fputs("\n"
	      "Execution keywords (-e):\n"
	      "  esearch                  search the base with the filter\n"
	      "  bindonly                 only connect and bind (needs -D, randombinddnfromfile or -o mech)\n"
	      "  bindeach                 new connection and bind for every operation\n"
	      "  close                    with bindeach: close the socket instead of unbinding\n"
	      "  random                   XXX of -f gets a random value in [-r, -R]\n"
	      "  incr[=STEP]              XXX of -f gets sequential values from -r to -R\n"
	      "  commoncounter            with incr: one counter shared by all threads\n"
	      "  noloop                   with incr: a thread stops past -R instead of wrapping\n"
	      "  counteach                count expected failures as operations too\n"
	      "  attrlist=A:B:...         attributes to ask for (at most 40)\n"
	      "  randomattrlist=A:B:...   ask for one random attribute of the list per search\n"
	      "  attrsonly=0|1            the search's attrsonly flag\n"
	      "  randombinddn             XXX of -D and -w get a random value\n"
	      "  randombinddnlow=N        low bound for randombinddn\n"
	      "  randombinddnhigh=N       high bound for randombinddn\n"
	      "  randombinddnfromfile=F   bind with random DN<TAB>password lines of F\n"
	      "  randombase               XXX of -b gets a random value\n"
	      "  randombaselow=N          low bound for randombase\n"
	      "  randombasehigh=N         high bound for randombase\n"
	      "  srchnentries=N           each search must return exactly N entries\n"
	      "  sampinterval=N           sampling interval in seconds (default 10)\n"
	      "  timestamp[=FORMAT]       prefix sample lines with strftime FORMAT (default %s)\n"
	      "  nozeropad                do not zero-pad XXX values\n"
	      "  smoothshutdown           let threads finish their operation at the end\n"
	      "  dontsleeponserverdown    no 1 s pause after an ignored server-down error\n"
	      "  noglobalstats            no periodic global statistics\n"
	      "  randomauthid             XXX of -o authid (and of -w) get a random value (not EXTERNAL)\n"
	      "  randomauthidlow=N        low bound for randomauthid\n"
	      "  randomauthidhigh=N       high bound for randomauthid\n"
	      "  add                      add entries <RDN from -f>,<base> (needs incr, random or rdn=)\n"
	      "  person                   with add: objectClass person, cn and sn = the RDN value\n"
	      "  emailPerson              with add: inetOrgPerson with mail <value>@example.com\n"
	      "  inetOrgPerson            with add: objectClass inetOrgPerson, cn and sn = the RDN value\n"
	      "  object=FILE              with add: entry template (\"attr: value\" lines, fields\n"
	      "                           [A=RNDN(lo;hi;n)], RNDS(n), INCRN(...), INCRNNOLOOP(...),\n"
	      "                           RNDFROMFILE(f), INCRFROMFILE(f), INCRFROMFILENOLOOP(f), [A])\n"
	      "  rdn=ATTR:VALUE           with object=: the RDN, same fields (instead of -f, incr, -r/-R)\n"
	      "  delete                   delete the entries <RDN from -f>,<base> (needs incr or random)\n"
	      "  rename                   rename entry number N to the RDN of the next number (ldclt)\n"
	      "  abandon                  send a search with the filter and abandon it at once (no answer)\n"
	      "  withnewparent            with rename: a new superior, --new-parent DN or the own parent\n"
	      "  attreplace=ATTR:MASK     replace ATTR with MASK, its X run as random printable characters\n"
	      "  attreplacefile=ATTR:FILE replace ATTR with FILE's content (read once)\n"
	      "  genldif=FILE             write the add workload's entries to FILE instead of adding\n"
	      "                           them (one thread; ends at -T N or a NOLOOP end)\n"
	      "  append                   with genldif: append to an existing FILE\n"
	      "  string                   with random: the X run of -f is random bytes (escaped in DNs)\n"
	      "  ascii                    with string: 7-bit printable bytes only\n"
	      "  v2                       binds say LDAP version 2 (the server must allow bind_v2)\n"
	      "  deref[=ATTR:DEREFATTR]   esearch asks the dereference control for DEREFATTR of the\n"
	      "                           entries ATTR names (default secretary:cn); with add and\n"
	      "                           inetOrgPerson each entry gets ATTR: <its own DN>\n"
	      "  referral=off             count search references and referral results (10) apart,\n"
	      "                           without following them (also without referral=)\n"
	      "  referral=on|rebind       also follow them (ldap:// only, one hop): the client's own\n"
	      "                           connection to the referred server, bound anonymously (on)\n"
	      "                           or with -D/-w (rebind); the same request sent there\n"
	      "  imagesdir=DIR            with add, emailPerson or inetOrgPerson: jpegPhoto values,\n"
	      "                           DIR's files in turn (read at start-up, 48 KiB at most each)\n"
	      "  cltcertname=, keydbfile=, keydbpin=  (ldclt's NSS client certificate) refused: use\n"
	      "                           --tls-cert FILE --tls-key FILE (PEM)\n"
	      "  scalab01                 ldclt's modem-pool scenario: random users (-D with XXX, -w,\n"
	      "                           randombinddnlow/high) log in (bind, read ntUserFlags, set it\n"
	      "                           to 1); a control connection as cn=super user,<-b> ends each\n"
	      "                           session (ntUserUnitsPerWeek, ntUserFlags 0); runs alone\n"
	      "  scalab01_cnxduration=S   a session's longest duration (default 3600 s)\n"
	      "  scalab01_maxcnxnb=N      sessions at once, the modem pool (default 5000)\n"
	      "  scalab01_wait=S          longest sleep between attempts (default 10 s)\n"
	      "\n"
	      "Subcommands: gen, compare, merge, report, join, listen-join, replay (each with --help).  The run\n"
	      "and every subcommand take their options anywhere on the line (GNU style); -- ends them.\n"
	      "\n"
	      "The password may also come from the LDBENCH_PASSWORD environment variable.\n"
	      "Exit status: 0 no problem, 2 error in parameters, 3 max errors reached,\n"
	      "4 cannot bind (or connect), 7 cannot initialize, 10 a --fail-if threshold held,\n"
	      "11 the pre-flight check found that the range does not match the data,\n"
	      "12 --find-max found no rate that met its objective, 13 a --fail-if threshold could not be\n"
	      "evaluated, 14 --server-log: the run could not be joined with the log,\n"
	      "15 --listeners: the server refused the listeners' search, 99 other error.\n",
	      out);
}

void ldb_cli_dump_options(FILE *out)
{
	ldb_opt_dump("load", cli_options, out);
}
