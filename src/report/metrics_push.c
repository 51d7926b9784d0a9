/* --metrics-push URL: the live metrics pushed to a Prometheus Pushgateway
 * (docs/metrics.md) by a thread of its own, at each sample and once at the
 * end: PUT URL/metrics/job/ldbench/instance/HOST, the group replaced each
 * time.  A push that fails: one warning line the first time, every failure
 * counted, the run goes on.  Only the newest text waits: a slow gateway
 * skips intermediate samples, never the final one. */
#include "report/metrics.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define PUSH_TIMEOUT_S 3

static struct {
	bool on, stop;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ldb_mpub *text;               /* waiting to be pushed, or NULL */
	char host[256], port[8], path[1024]; /* the gateway, the group's path */
	const char *url, *progname;
	unsigned long pushes, failures;
} ps = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* One connection to the gateway with the timeouts set.  @return it, or -1. */
static int dial(char *why, size_t cap)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int rc = getaddrinfo(ps.host, ps.port, &hints, &ai);
	if (rc != 0) {
		snprintf(why, cap, "%s", gai_strerror(rc));
		return -1;
	}
	int fd = -1;
	for (struct addrinfo *a = ai; a != NULL && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		struct timeval tv = { .tv_sec = PUSH_TIMEOUT_S };
		if (fd >= 0) {
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		}
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
			snprintf(why, cap, "%s", strerror(errno));
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	return fd;
}

static bool send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* One PUT.  @return 0, or -1 with the reason in why. */
static int push_once(const char *text, size_t len, char *why, size_t cap)
{
	int fd = dial(why, cap);
	if (fd < 0)
		return -1;
	char head[1600], resp[64] = "";
	int hl = snprintf(head, sizeof head,
	                  "PUT %s HTTP/1.1\r\nHost: %s:%s\r\nContent-Type: text/plain; version=0.0.4\r\n"
	                  "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	                  ps.path, ps.host, ps.port, len);
	int rc = -1;
	if (!send_all(fd, head, (size_t)hl) || !send_all(fd, text, len))
		snprintf(why, cap, "send: %s", strerror(errno));
	else if (recv(fd, resp, sizeof resp - 1, MSG_WAITALL) < 12)
		snprintf(why, cap, "no answer");
	else if (strncmp(resp + 9, "200", 3) != 0 && strncmp(resp + 9, "202", 3) != 0)
		snprintf(why, cap, "answered %.3s", resp + 9);
	else
		rc = 0;
	close(fd);
	return rc;
}

static void *pusher(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ps.mu);
	for (;;) {
		while (ps.text == NULL && !ps.stop)
			pthread_cond_wait(&ps.cv, &ps.mu);
		if (ps.text == NULL)
			break;
		struct ldb_mpub *t = ps.text;
		ps.text = NULL;
		pthread_mutex_unlock(&ps.mu);
		char why[256];
		int rc = push_once(t->text, t->len, why, sizeof why);
		ldb_mpub_unref(t);
		pthread_mutex_lock(&ps.mu);
		ps.pushes++;
		if (rc != 0 && ps.failures++ == 0)
			fprintf(stderr, "%s: warning: --metrics-push %s: %s (the run goes on; failures counted)\n",
			        ps.progname, ps.url, why);
	}
	pthread_mutex_unlock(&ps.mu);
	return NULL;
}

/* "http://HOST[:PORT][/PATH]" into ps.  @return 0, or -1. */
static int parse_url(const char *url)
{
	if (strncmp(url, "http://", 7) != 0)
		return -1;
	const char *h = url + 7, *slash = strchr(h, '/');
	size_t hn = slash != NULL ? (size_t)(slash - h) : strlen(h);
	const char *colon = memchr(h, ':', hn);
	size_t namelen = colon != NULL ? (size_t)(colon - h) : hn;
	if (namelen == 0 || namelen >= sizeof ps.host)
		return -1;
	memcpy(ps.host, h, namelen);
	ps.host[namelen] = '\0';
	size_t pl = colon != NULL ? hn - namelen - 1 : 0;
	if (colon != NULL && (pl == 0 || pl >= sizeof ps.port || strspn(colon + 1, "0123456789") < pl))
		return -1;
	snprintf(ps.port, sizeof ps.port, "%.*s", (int)(colon != NULL ? pl : 4), colon != NULL ? colon + 1 : "9091");
	const char *base = slash != NULL ? slash : "";
	size_t bl = strlen(base);
	while (bl > 0 && base[bl - 1] == '/')
		bl--;
	char host[200] = "";
	if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
		snprintf(host, sizeof host, "unknown");
	snprintf(ps.path, sizeof ps.path, "%.*s/metrics/job/ldbench/instance/%s", (int)bl, base, host);
	return 0;
}

int ldb_metrics_push_start(const struct ldb_metrics_settings *c, const char *progname, char *err, size_t cap)
{
	if (parse_url(c->push) != 0) {
		snprintf(err, cap, "--metrics-push '%s': not an http://HOST[:PORT][/PATH] URL", c->push);
		return -1;
	}
	ps.url = c->push;
	ps.progname = progname;
	if (pthread_create(&ps.th, NULL, pusher, NULL) != 0) {
		snprintf(err, cap, "--metrics-push: cannot start its thread");
		return -1;
	}
	pthread_setname_np(ps.th, "ldb-push");
	ps.on = true;
	return 0;
}

void ldb_metrics_push_offer(struct ldb_mpub *text)
{
	if (!ps.on)
		return;
	pthread_mutex_lock(&ps.mu);
	struct ldb_mpub *old = ps.text; /* a sample the gateway has not taken yet: the newer one replaces it */
	ps.text = ldb_mpub_ref(text);
	pthread_cond_signal(&ps.cv);
	pthread_mutex_unlock(&ps.mu);
	ldb_mpub_unref(old);
}

void ldb_metrics_push_stop(void)
{
	if (!ps.on)
		return;
	pthread_mutex_lock(&ps.mu);
	ps.stop = true;
	pthread_cond_signal(&ps.cv);
	pthread_mutex_unlock(&ps.mu);
	pthread_join(ps.th, NULL);
	if (ps.failures > 0)
		fprintf(stderr, "%s: warning: --metrics-push %s: %lu of %lu pushes failed\n", ps.progname, ps.url,
		        ps.failures, ps.pushes);
	ps.on = false;
}
