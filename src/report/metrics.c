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
#include <time.h>
#include <unistd.h>

#define REQ_CAP 4096

struct mclient {
	int fd;         /* -1: free */
	uint64_t since; /* accepted (ms, monotonic) */
	char req[REQ_CAP];
	size_t got;
	char *out; /* the response, once the request is whole */
	size_t len, sent;
};

static struct {
	bool open, listening; /* --metrics-listen or --metrics-push; --metrics-listen */
	int lfd, wake[2];
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *text; /* the latest published text */
	size_t len;
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

static void drop(struct mclient *m)
{
	if (m->fd >= 0)
		close(m->fd);
	free(m->out);
	m->fd = -1;
	m->out = NULL;
	m->got = m->len = m->sent = 0;
}

/* A whole request in m->req: the response into m->out (a copy of the text
 * for GET /metrics, 404 otherwise). */
static void respond(struct mclient *m)
{
	bool ok = strncmp(m->req, "GET /metrics ", 13) == 0 || strncmp(m->req, "GET /metrics?", 13) == 0;
	static const char nf[] = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
	                         "Connection: close\r\n\r\nnot found\n";
	char head[200];
	pthread_mutex_lock(&ep.mu);
	size_t tlen = ok ? ep.len : 0;
	int hl = snprintf(head, sizeof head,
	                  "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
	                  "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	                  tlen);
	m->out = malloc(ok ? (size_t)hl + tlen + 1 : sizeof nf);
	if (m->out != NULL && ok) {
		memcpy(m->out, head, (size_t)hl);
		if (tlen > 0)
			memcpy(m->out + hl, ep.text, tlen);
		m->len = (size_t)hl + tlen;
		m->out[m->len] = ok && ep.final ? 'F' : '-'; /* past the end: this carries the final text */
	} else if (m->out != NULL) {
		memcpy(m->out, nf, sizeof nf);
		m->len = sizeof nf - 1;
		m->out[m->len] = '-';
	}
	pthread_mutex_unlock(&ep.mu);
	if (m->out == NULL)
		drop(m);
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
	ssize_t w = send(m->fd, m->out + m->sent, m->len - m->sent, MSG_NOSIGNAL);
	if (w < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (w < 0) {
		drop(m);
		return;
	}
	m->sent += (size_t)w;
	if (m->sent < m->len)
		return;
	if (m->out[m->len] == 'F') {
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
			pf[i + 2] = (struct pollfd){ .fd = m->fd, .events = m->out != NULL ? POLLOUT : POLLIN };
		}
		if (poll(pf, LDB_METRICS_CLIENTS + 2, 250) < 0 && errno != EINTR)
			break;
		if (pf[1].revents != 0)
			break;
		for (int i = 0; i < LDB_METRICS_CLIENTS; i++) {
			struct mclient *m = &ep.cl[i];
			if (m->fd < 0 || pf[i + 2].fd != m->fd || pf[i + 2].revents == 0)
				continue;
			if (m->out != NULL)
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
	ldb_metrics_push_offer(text, len);
	pthread_mutex_lock(&ep.mu);
	char *old = ep.text;
	ep.text = text;
	ep.len = len;
	ep.final = final;
	ep.scraped_final = false;
	pthread_mutex_unlock(&ep.mu);
	free(old);
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
	if (!ep.listening)
		return;
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
	free(ep.text);
	ep.text = NULL;
}
