/* --metrics-listen's endpoint: see metrics.h. */
#include "report/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define REQ_CAP 4096

struct mclient {
	int fd;         /* -1: free */
	uint64_t since; /* accepted (ms, monotonic) */
	char req[REQ_CAP];
	size_t got;
	/* the response, once the request is whole: the head, then the body
	 * (the published text, held by reference: not copied) */
	bool responding, final; /* final: it carries the final text */
	char head[200];
	size_t hlen, sent; /* sent: of head and body together */
	struct ldb_mpub *body;
};

static struct {
	bool open, listening; /* --metrics-listen or --metrics-push; --metrics-listen */
	int lfd, wake[2];
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ldb_mpub *text; /* the latest published text */
	bool final, stop;
	bool scraped_final; /* a response carrying the final text went out whole */
	struct mclient cl[LDB_METRICS_CLIENTS];
} ep = { .lfd = -1, .wake = { -1, -1 }, .mu = PTHREAD_MUTEX_INITIALIZER };

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

const char *ldb_run_id(void)
{
	static char id[17];
	if (id[0] == '\0') {
		unsigned long long r = 0;
		if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
			r = ((unsigned long long)time(NULL) << 20) ^ (unsigned long long)getpid() ^ now_ms();
		snprintf(id, sizeof id, "%016llx", r);
	}
	return id;
}

struct ldb_mpub *ldb_mpub_ref(struct ldb_mpub *p)
{
	if (p != NULL)
		atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
	return p;
}

void ldb_mpub_unref(struct ldb_mpub *p)
{
	if (p == NULL || atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
		return;
	free(p->text);
	free(p);
}

static void drop(struct mclient *m)
{
	if (m->fd >= 0)
		close(m->fd);
	ldb_mpub_unref(m->body);
	m->fd = -1;
	m->body = NULL;
	m->responding = m->final = false;
	m->got = m->hlen = m->sent = 0;
}

/* A whole request in m->req: the response's head, and for GET /metrics the
 * latest text as its body (a reference); 404 otherwise. */
static void respond(struct mclient *m)
{
	bool ok = strncmp(m->req, "GET /metrics ", 13) == 0 || strncmp(m->req, "GET /metrics?", 13) == 0;
	static const char nf[] = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
	                         "Connection: close\r\n\r\nnot found\n";
	m->responding = true;
	if (!ok) {
		memcpy(m->head, nf, sizeof nf - 1);
		m->hlen = sizeof nf - 1;
		return;
	}
	pthread_mutex_lock(&ep.mu);
	m->body = ldb_mpub_ref(ep.text);
	m->final = ep.final;
	pthread_mutex_unlock(&ep.mu);
	int hl = snprintf(m->head, sizeof m->head,
	                  "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
	                  "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	                  m->body != NULL ? m->body->len : 0);
	m->hlen = hl > 0 && (size_t)hl < sizeof m->head ? (size_t)hl : 0;
}

static void on_read(struct mclient *m)
{
	ssize_t r = recv(m->fd, m->req + m->got, REQ_CAP - 1 - m->got, 0);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		drop(m);
		return;
	}
	if (r < 0)
		return;
	m->got += (size_t)r;
	m->req[m->got] = '\0';
	if (strstr(m->req, "\r\n\r\n") != NULL || strstr(m->req, "\n\n") != NULL || m->got == REQ_CAP - 1)
		respond(m);
}

static void on_write(struct mclient *m)
{
	size_t blen = m->body != NULL ? m->body->len : 0, len = m->hlen + blen;
	struct iovec iov[2];
	int n = 0;
	if (m->sent < m->hlen)
		iov[n++] = (struct iovec){ .iov_base = m->head + m->sent, .iov_len = m->hlen - m->sent };
	if (blen > 0) {
		size_t off = m->sent > m->hlen ? m->sent - m->hlen : 0;
		iov[n++] = (struct iovec){ .iov_base = m->body->text + off, .iov_len = blen - off };
	}
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
	ssize_t w = sendmsg(m->fd, &mh, MSG_NOSIGNAL);
	if (w < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (w < 0) {
		drop(m);
		return;
	}
	m->sent += (size_t)w;
	if (m->sent < len)
		return;
	if (m->final) {
		pthread_mutex_lock(&ep.mu);
		ep.scraped_final = true;
		pthread_cond_broadcast(&ep.cv);
		pthread_mutex_unlock(&ep.mu);
	}
	shutdown(m->fd, SHUT_WR);
	drop(m);
}

/* A new connection: into a free slot, or the oldest one's. */
static void on_accept(void)
{
	int fd = accept4(ep.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	struct mclient *pick = NULL;
	for (int i = 0; i < LDB_METRICS_CLIENTS; i++) {
		struct mclient *m = &ep.cl[i];
		if (m->fd < 0) {
			pick = m;
			break;
		}
		if (pick == NULL || m->since < pick->since)
			pick = m;
	}
	drop(pick);
	pick->fd = fd;
	pick->since = now_ms();
}

static void *serve(void *arg)
{
	(void)arg;
	struct pollfd pf[LDB_METRICS_CLIENTS + 2];
	for (;;) {
		pf[0] = (struct pollfd){ .fd = ep.lfd, .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = ep.wake[0], .events = POLLIN };
		uint64_t now = now_ms();
		for (int i = 0; i < LDB_METRICS_CLIENTS; i++) {
			struct mclient *m = &ep.cl[i];
			if (m->fd >= 0 && now - m->since > LDB_METRICS_TIMEOUT_MS)
				drop(m);
			pf[i + 2] = (struct pollfd){ .fd = m->fd, .events = m->responding ? POLLOUT : POLLIN };
		}
		if (poll(pf, LDB_METRICS_CLIENTS + 2, 250) < 0 && errno != EINTR)
			break;
		if (pf[1].revents != 0)
			break;
		for (int i = 0; i < LDB_METRICS_CLIENTS; i++) {
			struct mclient *m = &ep.cl[i];
			if (m->fd < 0 || pf[i + 2].fd != m->fd || pf[i + 2].revents == 0)
				continue;
			if (m->responding)
				on_write(m);
			else
				on_read(m);
		}
		if (pf[0].revents & POLLIN)
			on_accept();
	}
	return NULL;
}

/* The listening socket.  @return it, or -1 with one line in err. */
static int listen_on(const struct ldb_metrics_settings *c, char *err, size_t cap)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, c->addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)c->port);
		sl = sizeof *a4;
	} else {
		inet_pton(AF_INET6, c->addr, &a6->sin6_addr);
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)c->port);
		sl = sizeof *a6;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 64) != 0) {
		snprintf(err, cap, "--metrics-listen %s: cannot listen: %s", c->listen, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int ldb_metrics_open(const struct ldb_metrics_settings *c, const char *progname, char *err, size_t cap)
{
	if (ep.open)
		return 0;
	if (c->push != NULL && ldb_metrics_push_start(c, progname, err, cap) != 0)
		return -1;
	ep.open = true;
	if (c->listen == NULL)
		return 0;
	ep.listening = true;
	ep.lfd = listen_on(c, err, cap);
	if (ep.lfd < 0)
		return -1;
	for (int i = 0; i < LDB_METRICS_CLIENTS; i++)
		ep.cl[i].fd = -1;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ep.cv, &ca);
	pthread_condattr_destroy(&ca);
	(void)ldb_run_id();
	if (pipe2(ep.wake, O_CLOEXEC) != 0 || pthread_create(&ep.th, NULL, serve, NULL) != 0) {
		snprintf(err, cap, "--metrics-listen %s: cannot start its thread", c->listen);
		close(ep.lfd);
		return -1;
	}
	pthread_setname_np(ep.th, "ldb-metrics"); /* found in /proc/PID/task (bench/metrics_overhead.sh) */
	return 0;
}

bool ldb_metrics_active(void)
{
	return ep.open;
}

void ldb_metrics_publish(char *text, size_t len, bool final)
{
	struct ldb_mpub *p = malloc(sizeof *p);
	if (p == NULL) {
		free(text);
		return;
	}
	atomic_init(&p->refs, 1); /* the endpoint's */
	p->len = len;
	p->text = text;
	ldb_metrics_push_offer(p);
	pthread_mutex_lock(&ep.mu);
	struct ldb_mpub *old = ep.text;
	ep.text = p;
	ep.final = final;
	ep.scraped_final = false;
	pthread_mutex_unlock(&ep.mu);
	ldb_mpub_unref(old);
}

/* --metrics-linger: until the first whole scrape of the final text, or the time is up. */
static void linger(uint64_t ms)
{
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += (time_t)(ms / 1000);
	dl.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&ep.mu);
	while (!ep.scraped_final)
		if (pthread_cond_timedwait(&ep.cv, &ep.mu, &dl) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&ep.mu);
}

void ldb_metrics_close(const struct ldb_metrics_settings *c)
{
	if (!ep.open)
		return;
	ldb_metrics_push_stop();
	ep.open = false;
	if (!ep.listening) { /* --metrics-push alone: the last text was the pusher's */
		ldb_mpub_unref(ep.text);
		ep.text = NULL;
		return;
	}
	ep.listening = false;
	if (c->linger_ms > 0)
		linger(c->linger_ms);
	ssize_t w = write(ep.wake[1], "x", 1);
	(void)w;
	pthread_join(ep.th, NULL);
	for (int i = 0; i < LDB_METRICS_CLIENTS; i++)
		drop(&ep.cl[i]);
	close(ep.lfd);
	close(ep.wake[0]);
	close(ep.wake[1]);
	ldb_mpub_unref(ep.text);
	ep.text = NULL;
}
