/* The client's own figures: see clientcpu.h. */
#include "run/clientcpu.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CGROUP_ROOT "/sys/fs/cgroup"

/* Does the v1 controller list ("cpu,cpuacct") name cpu? */
static bool names_cpu(const char *list, size_t n)
{
	const char *p = list, *end = list + n;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t len = comma ? (size_t)(comma - p) : (size_t)(end - p);
		if (len == 3 && memcmp(p, "cpu", 3) == 0)
			return true;
		p += len + 1;
	}
	return false;
}

static bool readable(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return false;
	fclose(f);
	return true;
}

/* One line of /proc/self/cgroup: "ID:CONTROLLERS:PATH". */
static bool try_line(struct ldb_cgroup_cpu *cg, char *line)
{
	char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c2 == NULL)
		return false;
	char *ctl = c1 + 1;
	const char *path = c2 + 1;
	size_t nctl = (size_t)(c2 - ctl);
	c2[1 + strcspn(c2 + 1, "\n")] = '\0';
	if (strcmp(path, "/") == 0)
		path = "";
	if (nctl == 0) {
		cg->v2 = true;
		snprintf(cg->path, sizeof cg->path, CGROUP_ROOT "%s/cpu.stat", path);
		if (!readable(cg->path))
			snprintf(cg->path, sizeof cg->path, CGROUP_ROOT "/unified%s/cpu.stat", path);
	} else if (names_cpu(ctl, nctl)) {
		cg->v2 = false;
		snprintf(cg->path, sizeof cg->path, CGROUP_ROOT "/%.*s%s/cpu.stat", (int)nctl, ctl, path);
		if (!readable(cg->path))
			snprintf(cg->path, sizeof cg->path, CGROUP_ROOT "/cpu%s/cpu.stat", path);
	} else {
		return false;
	}
	return readable(cg->path);
}

int ldb_cgroup_find(struct ldb_cgroup_cpu *cg)
{
	char line[1024];
	bool found = false;
	memset(cg, 0, sizeof *cg);
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (f == NULL)
		return -1;
	/* a v1 cpu controller wins over the v2 line of a hybrid system */
	while (!found && fgets(line, sizeof line, f) != NULL) {
		struct ldb_cgroup_cpu c = { { 0 }, false };
		if (try_line(&c, line) && (!c.v2 || cg->path[0] == '\0')) {
			*cg = c;
			found = !c.v2;
		}
	}
	fclose(f);
	return cg->path[0] != '\0' ? 0 : -1;
}

int ldb_cgroup_throttled(const struct ldb_cgroup_cpu *cg, uint64_t *elapsed, uint64_t *periods, uint64_t *ns)
{
	char key[64];
	uint64_t v;
	bool have = false;
	if (cg->path[0] == '\0')
		return -1;
	FILE *f = fopen(cg->path, "r");
	if (f == NULL)
		return -1;
	*elapsed = *periods = *ns = 0;
	while (fscanf(f, "%63s %" SCNu64, key, &v) == 2) {
		if (strcmp(key, "nr_periods") == 0) {
			*elapsed = v;
		} else if (strcmp(key, "nr_throttled") == 0) {
			*periods = v;
			have = true;
		} else if (strcmp(key, "throttled_usec") == 0) {
			*ns = v * 1000;
		} else if (strcmp(key, "throttled_time") == 0) {
			*ns = v;
		}
	}
	fclose(f);
	return have ? 0 : -1;
}

int ldb_thread_cpu_ns(pthread_t t, uint64_t *ns)
{
	clockid_t id;
	struct timespec ts;
	if (pthread_getcpuclockid(t, &id) != 0 || clock_gettime(id, &ts) != 0)
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return 0;
}

int ldb_thread_run_delay_ns(int tid, uint64_t *ns)
{
	char path[64];
	uint64_t run, wait;
	snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	int n = fscanf(f, "%" SCNu64 " %" SCNu64, &run, &wait);
	fclose(f);
	if (n != 2)
		return -1;
	*ns = wait;
	return 0;
}
