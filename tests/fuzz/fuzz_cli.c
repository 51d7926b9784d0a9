/* libFuzzer target: the option parser.
 *
 * The input is split at NUL and newline bytes into arguments (at most 64) after
 * argv[0] = "ldbench"; ldb_cli_parse runs on them and ldb_config_free frees
 * everything.  Arguments holding a '/' are dropped from the input (return early)
 * so that -y and randombinddnfromfile= only ever name the small files this
 * target writes into its own working folder ("pw", "dns", "bad"), never a FIFO
 * or a device that would block.  stdout (--help, --version) goes to /dev/null.
 * Checks: a result that is neither RUN, EXIT_OK nor ERROR, or an ERROR without
 * a message, aborts. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "conf/config.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");
	if (f == NULL)
		abort();
	fputs(text, f);
	fclose(f);
}

static char work_dir[] = "/tmp/ldbench-fuzz-cli.XXXXXX";

static void remove_work_dir(void)
{
	(void)unlink("pw");
	(void)unlink("dns");
	(void)unlink("bad");
	(void)chdir("/");
	(void)rmdir(work_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (mkdtemp(work_dir) == NULL || chdir(work_dir) != 0)
		abort();
	atexit(remove_work_dir);
	put_file("pw", "secret\n");
	put_file("dns", "uid=a,dc=example,dc=com\tpw1\ncn=b,dc=example,dc=com\tpw2\n\n");
	put_file("bad", "no tab here\n");
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	unsetenv("LDBENCH_PASSWORD");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *argv[MAX_ARGS + 2];
	char prog[] = "ldbench";
	int argc = 0;
	argv[argc++] = prog;
	char *p = buf, *end = buf + size;
	while (p <= end && argc <= MAX_ARGS) {
		char *q = p;
		while (q < end && *q != '\0' && *q != '\n')
			q++;
		*q = '\0';
		if (strchr(p, '/') != NULL) {
			free(buf);
			return 0;
		}
		argv[argc++] = p;
		p = q + 1;
	}
	argv[argc] = NULL;

	struct ldb_config c;
	char err[512];
	ldb_config_init(&c);
	enum ldb_cli_result r = ldb_cli_parse(&c, argc, argv, err, sizeof err);
	if (r != LDB_CLI_RUN && r != LDB_CLI_EXIT_OK && r != LDB_CLI_ERROR && r != LDB_CLI_INIT_ERROR)
		abort();
	if ((r == LDB_CLI_ERROR || r == LDB_CLI_INIT_ERROR) && err[0] == '\0')
		abort();
	if (memchr(err, '\0', sizeof err) == NULL)
		abort();
	ldb_config_free(&c);
	free(buf);
	return 0;
}
