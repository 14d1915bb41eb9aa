// SPDX-License-Identifier: GPL-2.0
/*
 * Clusterwide PIDs (kernel/pid.c's pid_init_range(), set by kernel/ssi):
 * node N's processes get PIDs of [N << 16, (N + 1) << 16); init and
 * kthreadd keep 1 and 2 on every node; 1,000 forks on each of the three
 * nodes at once give no PID twice; a new PID namespace numbers from 1.
 *
 * "pids --fork N FILE", run on another node by its agent, forks N
 * children that exit at once and writes their PIDs to FILE.
 */
#include <sched.h>
#include <sys/wait.h>

#include "cluster_test.h"
#include "kselftest_harness.h"

#define NODES		3
#define FORKS		1000
#define SELF_PATH	"/tests/cluster/pids"

/*
 * Forks @n children, their PIDs in @pids, each reaped before the next
 * (a thousand at once would not fit in the debug kernel's memory): 0,
 * or -1 with errno set.  PIDs cycle through the node's range, so none
 * comes twice in a thousand.
 */
static int fork_many(int n, pid_t *pids)
{
	int i;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (!pids[i])
			_exit(0);
		if (waitpid(pids[i], NULL, 0) != pids[i])
			return -1;
	}
	return 0;
}

static int fork_to_file(int n, const char *file)
{
	pid_t *pids = calloc(n, sizeof(*pids));
	char tmp[256];
	FILE *f;
	int i;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	if (!pids || fork_many(n, pids))
		return 1;
	f = fopen(tmp, "w");
	if (!f)
		return 1;
	for (i = 0; i < n; i++)
		fprintf(f, "%d\n", pids[i]);
	if (fclose(f) || rename(tmp, file))
		return 1;
	return 0;
}

TEST(this_nodes_pids_are_in_its_range)
{
	char buf[64];
	pid_t child;

	EXPECT_EQ(1, getpid() >> PID_SHIFT);
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(0);
	EXPECT_EQ(1, child >> PID_SHIFT);
	waitpid(child, NULL, 0);
	/* pid_max covers the node's range. */
	ASSERT_LT(0, read_text("/proc/sys/kernel/pid_max", buf, sizeof(buf)));
	EXPECT_LE(2 << PID_SHIFT, atoi(buf));
}

TEST(init_and_kthreadd_keep_pids_1_and_2_on_every_node)
{
	int node;

	for (node = 1; node <= NODES; node++) {
		char out[256];

		ASSERT_EQ(0, run_on(node, "cat /proc/1/comm /proc/2/comm", out,
				    sizeof(out)));
		EXPECT_STREQ("init\nkthreadd\n", out) TH_LOG("node %d", node);
	}
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

/* Only for the timeout: the harness gives a TEST() 30 s. */
FIXTURE(slow) {
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

TEST_F_TIMEOUT(slow, a_thousand_forks_on_each_node_give_no_pid_twice, 600)
{
	static pid_t all[NODES * FORKS];
	char cmd[256], file[64];
	int node, id[NODES + 1], i, n = 0, dup = 0;

	for (node = 2; node <= NODES; node++) {
		snprintf(file, sizeof(file), "/cluster/pids.%d", node);
		unlink(file);
		snprintf(cmd, sizeof(cmd), SELF_PATH " --fork %d %s", FORKS,
			 file);
		id[node] = cluster_start(node, cmd);
		ASSERT_LE(0, id[node]);
	}
	ASSERT_EQ(0, fork_many(FORKS, all)) TH_LOG("fork: %s", strerror(errno));
	for (i = 0; i < FORKS; i++)
		EXPECT_EQ(1, all[i] >> PID_SHIFT);
	n = FORKS;
	for (node = 2; node <= NODES; node++) {
		FILE *f;
		int pid, got = 0;

		ASSERT_EQ(0, cluster_wait(node, id[node], 300000, NULL, 0));
		snprintf(file, sizeof(file), "/cluster/pids.%d", node);
		f = fopen(file, "r");
		ASSERT_NE(NULL, f);
		while (fscanf(f, "%d", &pid) == 1 && n < NODES * FORKS) {
			EXPECT_EQ(node, pid >> PID_SHIFT) TH_LOG("pid %d", pid);
			all[n++] = pid;
			got++;
		}
		fclose(f);
		EXPECT_EQ(FORKS, got) TH_LOG("node %d", node);
	}
	qsort(all, n, sizeof(all[0]), cmp_pid);
	for (i = 1; i < n; i++)
		if (all[i] == all[i - 1])
			dup++;
	EXPECT_EQ(0, dup);
	EXPECT_EQ(NODES * FORKS, n);
}

static pid_t fork_one(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

static int set_last_pid(int pid)
{
	char buf[16];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY), n, ok;

	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%d", pid);
	ok = write(fd, buf, n) == n;
	close(fd);
	return ok ? 0 : -1;
}

/* At the end of its range a node wraps to its start, not below it. */
TEST(pids_wrap_within_the_nodes_range)
{
	int lo = 1 << PID_SHIFT, hi = 2 << PID_SHIFT;
	pid_t a, b, c;

	ASSERT_EQ(0, set_last_pid(hi - 3));
	a = fork_one();
	b = fork_one();
	c = fork_one();
	TH_LOG("after %d: %d, %d, %d", hi - 3, a, b, c);
	/* A kernel thread made meanwhile may take one of the last two. */
	EXPECT_LE(hi - 2, a);
	EXPECT_GT(hi, a);
	EXPECT_GT(hi, b);
	EXPECT_LE(lo, b);
	/* Then back to the range's start, not beyond its end. */
	EXPECT_LE(lo, c);
	EXPECT_GT(a, c);
	/* ns_last_pid 0 does not bring back PIDs below the range. */
	ASSERT_EQ(0, set_last_pid(0));
	a = fork_one();
	EXPECT_EQ(1, a >> PID_SHIFT) TH_LOG("pid %d", a);
}

/* A new PID namespace numbers its processes from 1, as everywhere. */
TEST(a_new_pid_namespace_is_untouched)
{
	pid_t child;
	int status;

	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pid_t grandchild;

		if (getpid() != 1)
			_exit(1);
		grandchild = fork();
		if (!grandchild)
			_exit(0);
		if (grandchild != 2 || waitpid(grandchild, NULL, 0) != 2)
			_exit(2);
		_exit(0);
	}
	EXPECT_EQ(1, child >> PID_SHIFT);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--fork"))
		return fork_to_file(atoi(argv[2]), argv[3]);
	return test_harness_run(argc, argv);
}
