// SPDX-License-Identifier: GPL-2.0
/*
 * balance-bench: JOBS CPU-bound jobs of a user's, each as many loops as
 * this node runs in WORK_S seconds of CPU, started together on node 1 of
 * 3 (a count of loops, not a CPU clock, which a restore starts again
 * from 0): how long until the last one is done with the leveller
 * (tools/balance) off, and on on every node.  Run on node 1 by make bench.
 *
 * Each figure is one line "bench migration NAME VALUE UNIT" on stdout:
 *   balance_off_s        the last job's end, leveller off
 *   balance_on_s         the same, with balance -p 500 on each node
 *   balance_speedup_ratio  off / on
 *   balance_moves        the moves the leveller made
 * A kernel without /proc/cluster/load gives none (the reference kernel
 * has it: config/ref.config turns off only what other groups compare).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "orphan.h"

#define JOBS	3
#define WORK_S	20
#define DIR	"/cluster/balance-bench"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A million loops: the jobs' unit of work. */
static void chunk(void)
{
	volatile unsigned long spin = 0;
	int i;

	for (i = 0; i < 1000000; i++)
		spin++;
}

/* A job: @chunks chunks, wherever it runs, then DIR/done.N. */
static int job(int n, long chunks)
{
	char path[64];
	int fd;

	while (chunks-- > 0)
		chunk();
	snprintf(path, sizeof(path), DIR "/done.%d", n);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	return fd < 0;
}

/* Job @n as uid 1000, a daemon in a session of its own: 0 or -1. */
static int start_job(int n, long chunks)
{
	char num[16], work[32];
	struct orphan o;
	pid_t pid;

	snprintf(num, sizeof(num), "%d", n);
	snprintf(work, sizeof(work), "%ld", chunks);
	pid = start_orphan(&o);
	if (pid)
		return pid < 0 ? -1 : 0;
	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000) ||
	    orphan_ready(&o))
		_exit(1);
	execl("/proc/self/exe", "balance-bench", "--job", num, work,
	      (char *)NULL);
	_exit(127);
}

/* Seconds from the jobs' start to the last one's end, or -1. */
static double run_jobs(long chunks)
{
	double start = now_s();
	char path[64];
	int n, done = 0;

	for (n = 0; n < JOBS; n++)
		if (start_job(n, chunks))
			return -1;
	while (done < JOBS && now_s() - start < 30.0 * JOBS * WORK_S) {
		usleep(100000);
		for (done = 0, n = 0; n < JOBS; n++) {
			snprintf(path, sizeof(path), DIR "/done.%d", n);
			done += !access(path, F_OK);
		}
	}
	return done == JOBS ? now_s() - start : -1;
}

/* The moves the levellers printed, or -1. */
static int moves(void)
{
	char path[64], line[256];
	int node, n = 0;

	for (node = 1; node <= 3; node++) {
		FILE *f;

		snprintf(path, sizeof(path), DIR "/balance.%d", node);
		f = fopen(path, "r");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f))
			n += !strncmp(line, "moved ", 6);
		fclose(f);
	}
	return n;
}

static int levellers(int on)
{
	char cmd[256];
	int node;

	for (node = 1; node <= 3; node++) {
		if (on)
			snprintf(cmd, sizeof(cmd),
				 "setsid balance -p 500 </dev/null >" DIR
				 "/balance.%d 2>&1 &", node);
		else
			snprintf(cmd, sizeof(cmd), "killall -q balance; true");
		if (node == cluster_self() ? system(cmd) :
		    cluster_run(node, cmd, 30000, NULL, 0))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double off, on, t;
	long chunks = 0;
	int n;

	if (argc == 4 && !strcmp(argv[1], "--job"))
		return job(atoi(argv[2]), atol(argv[3]));
	if (access("/proc/cluster/load", F_OK))
		return 0;
	/* The chunks this node runs in a second of CPU. */
	t = cpu_s();
	while (cpu_s() - t < 1.0 && ++chunks)
		chunk();
	chunks *= WORK_S;
	if (system("rm -rf " DIR) || mkdir(DIR, 0777) || chmod(DIR, 0777))
		return 1;
	off = run_jobs(chunks);
	if (off < 0 || system("rm -f " DIR "/done.*") || levellers(1))
		return 1;
	on = run_jobs(chunks);
	n = moves();
	if (levellers(0) || on < 0 || n < 0)
		return 1;
	printf("bench migration balance_off_s %.1f s\n", off);
	printf("bench migration balance_on_s %.1f s\n", on);
	printf("bench migration balance_speedup_ratio %.2f ratio\n", off / on);
	printf("bench migration balance_moves %d moves\n", n);
	return system("rm -rf " DIR) != 0;
}
