// SPDX-License-Identifier: GPL-2.0
/*
 * downtime-bench: how long a process of 1, 16 and 64 MiB is stopped by
 * a move to node 2 (a write to /proc/PID/goto, which returns once it runs
 * there: its tasks are stopped from the dump's start to the resume),
 * beside a plain "criu dump" then "criu restore" of the same process on
 * this node (the anchor: what CRIU alone costs).  Run on node 1 of 3 by
 * make bench.
 *
 * Each figure is one line "bench migration NAME VALUE UNIT" on stdout,
 * the median of RUNS:
 *   criu_local_{1,16,64}mib_s   criu dump, then criu restore, here
 *   migrate_{1,16,64}mib_s      the write to /proc/PID/goto
 *   migrate_vs_criu_{1,16,64}mib_ratio
 * A kernel without /proc/self/goto gives criu_local only.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "orphan.h"

#define RUNS	3
#define DIR	"/cluster/downtime-bench"

/* The sleeper's memory: kept where the compiler cannot drop the writes. */
static char *volatile kept;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * A process of @mib MiB, every page written, a child of init leading its
 * own session, with nothing of this node's open: its PID, or -1.
 */
static pid_t start_sleeper(int mib)
{
	struct orphan o;
	pid_t pid = start_orphan(&o);

	if (pid)
		return pid;
	kept = malloc((size_t)mib << 20);
	if (!kept)
		_exit(1);
	memset(kept, 0x5a, (size_t)mib << 20);
	if (orphan_ready(&o))
		_exit(1);
	for (;;)
		pause();
}

/* Runs @cmd with sh: 0 if it exited 0. */
static int sh(const char *cmd)
{
	int status = system(cmd);

	return status == -1 || !WIFEXITED(status) || WEXITSTATUS(status);
}

/* criu dump (which kills it) and criu restore of @pid: seconds, or -1. */
static double criu_local(pid_t pid)
{
	char cmd[256];
	double t0;

	if (sh("rm -rf " DIR " && mkdir -p " DIR))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "criu dump -t %d -D " DIR " -o dump.log && "
		 "criu restore -D " DIR " --restore-detached -o restore.log", pid);
	t0 = now_s();
	if (sh(cmd))
		return -1;
	return now_s() - t0;
}

/* The write of "2" to /proc/@pid/goto: seconds, or -1. */
static double migrate(pid_t pid)
{
	char path[32];
	double t0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/goto", pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	t0 = now_s();
	if (write(fd, "2", 1) != 1) {
		fprintf(stderr, "downtime-bench: %d: %s\n", pid, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return now_s() - t0;
}

/* The median of RUNS of @how on new processes of @mib MiB, or -1. */
static double median(double (*how)(pid_t), int mib)
{
	double s[RUNS];
	int i;

	for (i = 0; i < RUNS; i++) {
		pid_t pid = start_sleeper(mib);

		s[i] = pid > 0 ? how(pid) : -1;
		/* here, or on node 2 through its origin: kill() finds it */
		if (pid > 0)
			kill(pid, SIGKILL);
		if (s[i] < 0) {
			fprintf(stderr, "downtime-bench: %d MiB failed\n", mib);
			return -1;
		}
	}
	qsort(s, RUNS, sizeof(s[0]), cmp_d);
	return s[RUNS / 2];
}

int main(void)
{
	static const int sizes[] = { 1, 16, 64 };
	int i, moves = !access("/proc/self/goto", F_OK);
	double c, m;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < 3; i++) {
		c = median(criu_local, sizes[i]);
		if (c < 0)
			return 1;
		printf("bench migration criu_local_%dmib_s %.2f s\n", sizes[i], c);
		if (!moves)
			continue;
		m = median(migrate, sizes[i]);
		if (m < 0)
			return 1;
		printf("bench migration migrate_%dmib_s %.2f s\n", sizes[i], m);
		printf("bench migration migrate_vs_criu_%dmib_ratio %.2f x\n",
		       sizes[i], m / c);
	}
	sh("rm -rf " DIR);
	return 0;
}
