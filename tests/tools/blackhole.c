/* blackhole: a TCP listener on 127.0.0.1 that misbehaves on purpose, for the
 * fault tests (tests/integration/faults.sh, signals.sh).
 *
 *   blackhole --mode silent|close|full|garbage --port-file FILE
 *
 * Binds 127.0.0.1 on an ephemeral port, writes the port number (and a newline)
 * to FILE once it listens (written to FILE.tmp, then renamed, so a reader never
 * sees half a number), then accepts forever:
 *   silent  keeps every connection open and never reads nor answers;
 *   close   closes every connection as soon as it is accepted;
 *   full    never accepts: its accept queue (backlog 0) is filled at once by
 *           one connection of its own, so the kernel drops every SYN that
 *           comes after and each client's connect stays under way (SYN_SENT)
 *           for as long as the system retries it (about two minutes);
 *   garbage answers every connection with an HTTP status line (bytes that
 *           are not LDAP) as soon as it is accepted, and keeps it open.
 * Exits 0 on SIGTERM or SIGINT.  Raises its own descriptor limit to the hard
 * limit so that silent can hold thousands of clients.  Prints the number of
 * connections it accepted to stderr when it exits.
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: blackhole --mode silent|close|full|garbage --port-file FILE\n");
}

static int write_port_file(const char *path, int port)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return -1;
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "%d\n", port);
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

/* full: one connection of its own, left in the accept queue (kept open). */
static int fill_queue(const struct sockaddr_in *a)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)a, sizeof *a) != 0)
		return -1;
	struct timespec ts = { 0, 100 * 1000 * 1000 }; /* its handshake's last ACK is queued */
	nanosleep(&ts, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *port_file = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
			mode = argv[++i];
		else if (strcmp(argv[i], "--port-file") == 0 && i + 1 < argc)
			port_file = argv[++i];
		else {
			usage();
			return 2;
		}
	}
	if (mode == NULL || port_file == NULL ||
	    (strcmp(mode, "silent") != 0 && strcmp(mode, "close") != 0 && strcmp(mode, "full") != 0 &&
	     strcmp(mode, "garbage") != 0)) {
		usage();
		return 2;
	}
	int silent = strcmp(mode, "silent") == 0, full = strcmp(mode, "full") == 0;
	int garbage = strcmp(mode, "garbage") == 0;

	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}

	/* no SA_RESTART: a signal interrupts accept() */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		perror("blackhole: socket");
		return 1;
	}
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = 0;
	socklen_t alen = sizeof a;
	if (bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, full ? 0 : 4096) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) != 0) {
		perror("blackhole: bind/listen");
		return 1;
	}
	if (full && fill_queue(&a) != 0) {
		perror("blackhole: cannot fill its accept queue");
		return 1;
	}
	if (write_port_file(port_file, ntohs(a.sin_port)) != 0) {
		perror("blackhole: cannot write the port file");
		return 1;
	}
	if (full) {
		while (!stop_flag)
			pause();
		fprintf(stderr, "blackhole: full mode, nothing accepted\n");
		return 0;
	}

	unsigned long accepted = 0, dropped = 0;
	while (!stop_flag) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				/* out of descriptors: let the backlog wait a little */
				dropped++;
				struct timespec ts = { 0, 10 * 1000 * 1000 };
				nanosleep(&ts, NULL);
				continue;
			}
			if (errno == ECONNABORTED)
				continue;
			perror("blackhole: accept");
			return 1;
		}
		accepted++;
		if (garbage) {
			static const char http[] = "HTTP/1.0 400 Bad Request\r\n\r\n";
			ssize_t w = write(fd, http, sizeof http - 1);
			(void)w; /* a client gone already is no matter */
		}
		if (!silent && !garbage)
			close(fd);
		/* silent: the descriptor stays open, never read, until exit */
	}
	fprintf(stderr, "blackhole: %s mode, %lu connections accepted%s\n", mode, accepted,
	        dropped ? " (ran out of descriptors at times)" : "");
	return 0;
}
