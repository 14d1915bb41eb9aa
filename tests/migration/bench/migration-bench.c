// SPDX-License-Identifier: GPL-2.0
/*
 * migration-bench: how long onnode takes to run a program that does
 * nothing, on node 2 and on this node through its own relay, beside a
 * local fork, exec and wait of the same program (the anchor).  Run on
 * node 1 of 3 by make bench.
 *
 * Each figure is one line "bench migration NAME VALUE UNIT" on stdout.
 *   exec_local_{p50,p99}_ms     fork, execve of /bin/true, waitpid
 *   onnode_self_{p50,p99}_ms    "onnode 1 /bin/true", from fork to exit
 *   onnode_node2_{p50,p99}_ms   "onnode 2 /bin/true", from fork to exit
 * (p99: the 99th of 100 runs.)  A kernel without /proc/cluster/rexec
 * gives exec_local only.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS	100

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Runs @argv RUNS times, input and output on /dev/null, and prints the
 * median and the slowest but one.
 */
static void bench(const char *name, char *const argv[])
{
	long long ns[RUNS];
	int i, status;

	for (i = 0; i < RUNS; i++) {
		long long t0 = now_ns();
		pid_t pid = fork();

		if (pid < 0) {
			perror("migration-bench: fork");
			exit(1);
		}
		if (!pid) {
			int fd = open("/dev/null", O_RDWR);

			/* Its errors, if any, in the bench's log. */
			if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
				_exit(126);
			execv(argv[0], argv);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "migration-bench: %s: status %#x\n",
				name, status);
			exit(1);
		}
		ns[i] = now_ns() - t0;
	}
	qsort(ns, RUNS, sizeof(ns[0]), cmp_ll);
	printf("bench migration %s_p50_ms %.2f ms\n", name, ns[RUNS / 2] / 1e6);
	printf("bench migration %s_p99_ms %.2f ms\n", name,
	       ns[RUNS * 99 / 100 - 1] / 1e6);
}

int main(void)
{
	char *local[] = { "/bin/true", NULL };
	char *self[] = { "/bin/onnode", "1", "/bin/true", NULL };
	char *node2[] = { "/bin/onnode", "2", "/bin/true", NULL };

	setvbuf(stdout, NULL, _IOLBF, 0);
	bench("exec_local", local);
	if (access("/proc/cluster/rexec", F_OK))
		return 0;
	bench("onnode_self", self);
	bench("onnode_node2", node2);
	return 0;
}
