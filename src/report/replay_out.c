/* The replay's fidelity report (report/replay_out.h): text and JSON. */
#include "report/replay_out.h"

#include <inttypes.h>
#include <string.h>

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static uint64_t skipped(const struct ldb_rp_result *r, int why)
{
	return r->skipped[why] + (why == LDB_RP_SKIP_CONN_FAILED ? r->ops_conn_failed
	                          : why == LDB_RP_SKIP_CONN_LOST ? r->ops_conn_lost
	                                                         : 0);
}

/* no_pw_dn[i] is a DN listed before it (the senders note a DN per bind). */
static bool dn_listed(const struct ldb_rp_result *r, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (strcmp(r->no_pw_dn[j], r->no_pw_dn[i]) == 0)
			return true;
	return false;
}

static void text_kinds(const struct ldb_rp_result *r, FILE *out)
{
	fprintf(out, "%-9s %8s %8s %8s %8s %8s %9s %9s %9s\n", "kind", "read", "sent", "answered", "compared", "differ",
	        "p50 ms", "p99 ms", "max ms");
	for (int t = 1; t < LDB_SLOG_NOPTYPES; t++) {
		const struct ldb_rp_kind_stats *k = &r->kind[t];
		if (k->read == 0 && k->sent == 0)
			continue;
		fprintf(out, "%-9s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64,
		        ldb_slog_optype_name(t), k->read, k->sent, k->answered, k->compared, k->differ);
		if (k->answered)
			fprintf(out, " %9.3f %9.3f %9.3f\n", ms(ldb_hist_percentile(&k->lat, 50)),
			        ms(ldb_hist_percentile(&k->lat, 99)), ms(ldb_hist_percentile(&k->lat, 100)));
		else
			fprintf(out, " %9s %9s %9s\n", "-", "-", "-");
	}
}

static void text_skips(const struct ldb_rp_result *r, FILE *out)
{
	for (int w = 1; w < LDB_RP_NSKIPS; w++) {
		uint64_t n = skipped(r, w);
		if (n == 0)
			continue;
		fprintf(out, "not sent, %s: %" PRIu64, ldb_rp_skip_name(w), n);
		for (int i = 0; i < LDB_RP_EXAMPLES && r->first_line[w][i]; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : " (log lines ", r->first_line[w][i]);
		fputs(r->first_line[w][0] ? ")\n" : "\n", out);
	}
	for (unsigned i = 0; i < r->nno_pw_dn; i++)
		if (!dn_listed(r, i))
			fprintf(out, "  bind DN without a password: %s\n", r->no_pw_dn[i]);
	if (r->unmapped_anon)
		fprintf(out, "binds without a password sent anonymously: %" PRIu64 "\n", r->unmapped_anon);
	if (r->synthetic)
		fprintf(out, "writes sent with synthetic content: %" PRIu64 "\n", r->synthetic);
	if (r->audit_changes || r->audit_sent)
		fprintf(out,
		        "audit log: %" PRIu64 " changes, %" PRIu64 " writes sent with their content, %" PRIu64
		        " changes unmatched, %" PRIu64 " operational attributes left out\n",
		        r->audit_changes, r->audit_sent, r->audit_unmatched, r->audit_dropped_attrs);
	for (int w = 1; w < LDB_SLOG_NSKIPS; w++) {
		if (r->slog.skipped[w] == 0)
			continue;
		fprintf(out, "log lines skipped, %s: %" PRIu64, ldb_slog_skip_name(w), r->slog.skipped[w]);
		for (int i = 0; i < LDB_SLOG_FIRST_LINES && r->slog.first[w][i].file; i++)
			fprintf(out, "%s%s:%" PRIu64, i ? ", " : " (", r->slog.first[w][i].file,
			        r->slog.first[w][i].line);
		fputs(r->slog.first[w][0].file ? ")\n" : "\n", out);
	}
}

static void text_diffs(const struct ldb_rp_result *r, FILE *out)
{
	for (int t = 1; t < LDB_SLOG_NOPTYPES; t++) {
		const struct ldb_rp_kind_stats *k = &r->kind[t];
		if (k->differ == 0)
			continue;
		fprintf(out, "results differing, %s: %" PRIu64 " (code %" PRIu64 ", entries %" PRIu64 ")\n",
		        ldb_slog_optype_name(t), k->differ, k->diff_code, k->diff_entries);
		for (unsigned i = 0; i < k->ndiff_ex; i++) {
			const struct ldb_rp_diff *d = &k->diff_ex[i];
			fprintf(out, "  conn=%" PRId64 " op=%" PRId64 ": recorded err=%d", d->conn, d->op, d->rec_err);
			if (d->rec_n >= 0)
				fprintf(out, " entries=%" PRId64, d->rec_n);
			fprintf(out, ", got err=%d", d->got_err);
			if (d->got_n >= 0)
				fprintf(out, " entries=%" PRId64, d->got_n);
			fputc('\n', out);
		}
	}
}

void ldb_replay_text(const struct ldb_rp_result *r, bool recorded, FILE *out)
{
	fprintf(out, "replay of a %s log: %" PRIu64 " lines, window %.3f s, %" PRIu64 " recorded connections",
	        ldb_slog_format_name(r->format), r->slog.lines, (double)r->window_ns / 1e9, r->conns_read);
	if (r->passes > 1)
		fprintf(out, "; %u passes (--loop)", r->passes);
	fputc('\n', out);
	/* the senders count a connect under way as opened, and again as failed
	 * when it fails (a failure before the connect is failed alone) */
	const uint64_t tried = r->conns_opened > r->conns_failed ? r->conns_opened : r->conns_failed;
	fprintf(out,
	        "connections attempted %" PRIu64 ": established %" PRIu64 ", failed %" PRIu64 ", lost %" PRIu64
	        "; elapsed %.3f s\n",
	        tried, tried - r->conns_failed, r->conns_failed, r->conns_lost, (double)r->elapsed_ns / 1e9);
	if (r->conn_error[0])
		fprintf(out, "first connection failure: %s\n", r->conn_error);
	if (r->interrupted)
		fputs("interrupted by a signal (SIGINT or SIGTERM): the replay stopped part way; what it sent is "
		      "below\n",
		      out);
	text_kinds(r, out);
	text_skips(r, out);
	text_diffs(r, out);
	if (r->unanswered)
		fprintf(out, "requests unanswered: %" PRIu64 "\n", r->unanswered);
	if (r->proto_errors)
		fprintf(out, "answers that were not LDAP: %" PRIu64 "\n", r->proto_errors);
	if (recorded && ldb_hist_count(&r->late))
		fprintf(out, "lateness against the schedule: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		        ms(ldb_hist_percentile(&r->late, 50)), ms(ldb_hist_percentile(&r->late, 99)),
		        ms(ldb_hist_percentile(&r->late, 100)));
	if (r->error[0])
		fprintf(out, "log read error: %s\n", r->error);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_hist(FILE *f, const struct ldb_hist *h)
{
	fprintf(f, "{\"count\":%" PRIu64 ",\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}", ldb_hist_count(h),
	        ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 99)), ms(ldb_hist_percentile(h, 100)));
}

static void json_kind(FILE *f, const struct ldb_rp_kind_stats *k)
{
	fprintf(f,
	        "{\"read\":%" PRIu64 ",\"sent\":%" PRIu64 ",\"answered\":%" PRIu64 ",\"compared\":%" PRIu64
	        ",\"differ\":%" PRIu64 ",\"differ_code\":%" PRIu64 ",\"differ_entries\":%" PRIu64 ",\"latency\":",
	        k->read, k->sent, k->answered, k->compared, k->differ, k->diff_code, k->diff_entries);
	json_hist(f, &k->lat);
	fputs(",\"examples\":[", f);
	for (unsigned i = 0; i < k->ndiff_ex; i++) {
		const struct ldb_rp_diff *d = &k->diff_ex[i];
		fprintf(f,
		        "%s{\"conn\":%" PRId64 ",\"op\":%" PRId64 ",\"recorded_err\":%d,\"got_err\":%d,\"recorded_"
		        "entries\":%" PRId64 ",\"got_entries\":%" PRId64 "}",
		        i ? "," : "", d->conn, d->op, d->rec_err, d->got_err, d->rec_n, d->got_n);
	}
	fputs("]}", f);
}

static void json_skips(const struct ldb_rp_result *r, FILE *f)
{
	fputs("\"skipped\":{", f);
	for (int w = 1, n = 0; w < LDB_RP_NSKIPS; w++) {
		fprintf(f, "%s\"%s\":{\"count\":%" PRIu64 ",\"first_lines\":[", n++ ? "," : "", ldb_rp_skip_name(w),
		        skipped(r, w));
		for (int i = 0; i < LDB_RP_EXAMPLES && r->first_line[w][i]; i++)
			fprintf(f, "%s%" PRIu64, i ? "," : "", r->first_line[w][i]);
		fputs("]}", f);
	}
	fputs("},\"no_password_dns\":[", f);
	for (unsigned i = 0, n = 0; i < r->nno_pw_dn; i++) {
		if (dn_listed(r, i))
			continue;
		fputs(n++ ? "," : "", f);
		json_str(f, r->no_pw_dn[i]);
	}
	fputs("],\"log_skipped\":{", f);
	for (int w = 1, n = 0; w < LDB_SLOG_NSKIPS; w++) {
		fprintf(f, "%s\"%s\":{\"count\":%" PRIu64 ",\"first\":[", n++ ? "," : "", ldb_slog_skip_name(w),
		        r->slog.skipped[w]);
		for (int i = 0; i < LDB_SLOG_FIRST_LINES && r->slog.first[w][i].file; i++) {
			fputs(i ? "," : "", f);
			json_str(f, r->slog.first[w][i].file);
			fprintf(f, ",%" PRIu64, r->slog.first[w][i].line);
		}
		fputs("]}", f);
	}
	fputs("}", f);
}

void ldb_replay_put_json(FILE *f, const struct ldb_rp_result *r, bool recorded)
{
	fprintf(f,
	        ",\"replay\":{\"format\":\"%s\",\"lines\":%" PRIu64 ",\"window_s\":%.6f,\"elapsed_s\":%.6f,"
	        "\"timing\":\"%s\",\"passes\":%u,\"interrupted\":%s,\"connections\":{\"recorded\":%" PRIu64
	        ",\"opened\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"lost\":%" PRIu64 "},\"unanswered\":%" PRIu64
	        ",\"unmapped_anonymous\":%" PRIu64 ",\"synthetic_writes\":%" PRIu64 ",\"audit\":{\"changes\":%" PRIu64
	        ",\"sent\":%" PRIu64 ",\"unmatched\":%" PRIu64 ",\"dropped_attrs\":%" PRIu64 "},",
	        ldb_slog_format_name(r->format), r->slog.lines, (double)r->window_ns / 1e9, (double)r->elapsed_ns / 1e9,
	        recorded ? "recorded" : "asap", r->passes, r->interrupted ? "true" : "false", r->conns_read,
	        r->conns_opened, r->conns_failed, r->conns_lost, r->unanswered, r->unmapped_anon, r->synthetic,
	        r->audit_changes, r->audit_sent, r->audit_unmatched, r->audit_dropped_attrs);
	json_skips(r, f);
	fputs(",\"kinds\":{", f);
	for (int t = 1, n = 0; t < LDB_SLOG_NOPTYPES; t++) {
		if (r->kind[t].read == 0 && r->kind[t].sent == 0)
			continue;
		fprintf(f, "%s\"%s\":", n++ ? "," : "", ldb_slog_optype_name(t));
		json_kind(f, &r->kind[t]);
	}
	fputs("},\"lateness\":", f);
	json_hist(f, &r->late);
	fputs("}", f);
}
