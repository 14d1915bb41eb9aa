// SPDX-License-Identifier: GPL-2.0
/*
 * Load levelling: /proc/cluster/load (kernel/ssi/load.c), each node's
 * CPUs, runnable tasks and load averages, and balance (tools/balance),
 * the leveller that reads it on each node and moves CPU-bound processes
 * off a node with more runnable tasks than CPUs.
 *
 * The CPU-bound processes are this program run as "--spin", daemons
 * (init's children) in a session of their own, with nothing open but
 * /dev/null and "/" as their directory: nothing criu would not move.
 * They run at nice 19: still runnable tasks, which is what a node's
 * load counts, but criu, moving one of them, is not left a third of a
 * CPU on a slow node.
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "fault.h"
#include "kselftest_harness.h"
#include "orphan.h"
#include "../cluster/cluster_test.h"

#define MAX_SPIN	8
/*
 * Root's spinners on node 2: shell loops, each echoing its PID (setsid
 * runs in the background job itself, which leads no group).
 */
#define LOOP		"ulimit -t 600; while :; do :; done"
#define LOOPS		"cd / && for i in $(seq %d); do setsid sh -c '" LOOP \
			"' </dev/null >/dev/null 2>&1 & echo $!; done"

/* The spinner: never returns. */
static int spin(void)
{
	volatile unsigned long n = 0;

	/* Not left spinning by a test the harness killed at its timeout. */
	alarm(600);
	for (;;)
		n++;
	return 0;
}

/* A spinner of @uid's, a daemon: its PID, or -1. */
static pid_t start_spinner(uid_t uid)
{
	struct orphan o;
	pid_t pid = start_orphan(&o);

	if (pid)
		return pid;
	if (setpriority(PRIO_PROCESS, 0, 19) ||
	    (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))) ||
	    orphan_ready(&o))
		_exit(1);
	execl("/proc/self/exe", "levelling", "--spin", (char *)NULL);
	_exit(127);
}

/* The lines of @path that start with @what. */
static int lines_of(const char *path, const char *what)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, what, strlen(what));
	if (f)
		fclose(f);
	return n;
}

FIXTURE(lev) {
	char dir[128];
	pid_t spin[MAX_SPIN];
	int spinners;
	pid_t loop[MAX_SPIN];
	int loops;
	int period;		/* balance -p, in ms */
	int look;		/* how long a leveller's move may take, in ms */
};

FIXTURE_SETUP(lev)
{
	snprintf(self->dir, sizeof(self->dir), "/cluster/lev.%d", getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	self->spinners = 0;
	self->loops = 0;
	/* None left by a test the harness killed at its timeout. */
	for (int i = 1; i <= 3; i++)
		run_on(i, "killall -q balance; true", NULL, 0);
	self->period = rig_rounds(500, 1000);
	/* Samples, age and streak, then a criu dump and restore. */
	self->look = rig_rounds(60000, 240000);
}

/* @path's lines as the harness's comments. */
static void show(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		printf("# %s: %s", strrchr(path, '/') + 1, line);
	if (f)
		fclose(f);
}

/*
 * Whether each node reads idle at some read within a minute, as the
 * tests after this one need: the nodes that do not, as a mask, each
 * with what runs there logged.
 */
static int busy_nodes(struct __test_metadata *_metadata)
{
	long long end = now_ms() + 60000;
	struct load l[MAX_NODE + 1];
	unsigned int idle = 0;
	char out[2048];
	int i;

	while (idle != 0xe && now_ms() < end) {
		if (read_load(l) == 3)
			for (i = 1; i <= 3; i++)
				idle |= !l[i].run << i;
		if (idle != 0xe)
			sleep_ms(500);
	}
	for (i = 1; i <= 3; i++) {
		if (idle & 1 << i)
			continue;
		run_on(i, "ps -o pid,ppid,nice,stat,args | grep ' R'", out,
		       sizeof(out));
		TH_LOG("node %d not idle after a minute:\n%s", i, out);
	}
	return ~idle & 0xe;
}

FIXTURE_TEARDOWN(lev)
{
	long long end = now_ms() + 120000;
	char cmd[256], path[256];
	int i, left;

	for (i = 1; i <= 3; i++)
		run_on(i, "killall -q balance; true", NULL, 0);
	for (i = 0; i < self->loops; i++)
		kill(self->loop[i], SIGKILL);
	/*
	 * kill() of a PID of this node's range reaches it where it is; one
	 * the leveller was moving when it was killed may come back on its
	 * target after the kill: kill until none is listed.
	 */
	do {
		left = 0;
		for (i = 0; i < self->spinners; i++) {
			kill(self->spin[i], SIGKILL);
			left += ps_node_of(self->spin[i]) != 0;
		}
		if (left)
			sleep_ms(500);
	} while (left && now_ms() < end);
	if (left)
		TH_LOG("%d spinners still listed after 120 s", left);
	/* Nothing left running for the tests after: each node idle again. */
	EXPECT_EQ(0, busy_nodes(_metadata));
	if (!__test_passed(_metadata))
		for (i = 1; i <= 3; i++) {
			snprintf(path, sizeof(path), "%s/balance.%d", self->dir, i);
			show(path);
			snprintf(path, sizeof(path), "%s/dry.%d", self->dir, i);
			show(path);
		}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

static int spinners(FIXTURE_DATA(lev) *self, int n, uid_t uid)
{
	if (self->spinners + n > MAX_SPIN)
		return -1;
	while (n-- > 0) {
		pid_t pid = start_spinner(uid);

		if (pid < 0)
			return -1;
		self->spin[self->spinners++] = pid;
	}
	return 0;
}

/* @n of root's loops on node 2, their PIDs kept: 0 or -1. */
static int start_loops(FIXTURE_DATA(lev) *self, int n)
{
	char cmd[256], out[256] = "", *p, *end;
	int ret;

	snprintf(cmd, sizeof(cmd), LOOPS, n);
	/* The PIDs echoed are kept even if the command failed: killed after. */
	ret = run_on(2, cmd, out, sizeof(out));
	for (p = out; self->loops < MAX_SPIN; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p || pid < 1)
			break;
		self->loop[self->loops++] = pid;
		n--;
	}
	return ret || n ? -1 : 0;
}

/* Starts balance @args on @node, its output in the fixture's directory. */
static int start_balance(FIXTURE_DATA(lev) *self, int node, const char *name,
			 const char *args)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "setsid balance -v -p %d %s </dev/null >%s/%s.%d 2>&1 &",
		 self->period, args, self->dir, name, node);
	return run_on(node, cmd, NULL, 0);
}

static int moves(FIXTURE_DATA(lev) *self)
{
	char path[256];
	int i, n = 0;

	for (i = 1; i <= 3; i++) {
		snprintf(path, sizeof(path), "%s/balance.%d", self->dir, i);
		n += lines_of(path, "moved ");
	}
	return n;
}

/* The nodes the spinners are on, as "1 1 2". */
static void placement(FIXTURE_DATA(lev) *self, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < self->spinners && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%d", i ? " " : "",
				ps_node_of(self->spin[i]));
}

/*
 * The load averages of @node's line, read between two reads of its
 * /proc/loadavg that agree, in @avg: 0 if the line's are the same, 1 if
 * not, -1 if the two reads did not agree within 30 s (60 s on the debug
 * kernel).
 */
static int averages_of(int node, char *avg, size_t size)
{
	long long end = now_ms() + rig_rounds(30000, 60000);
	struct load l[MAX_NODE + 1];
	char a[128], b[128];

	while (now_ms() < end) {
		if (run_on(node, "cat /proc/loadavg", a, sizeof(a)) ||
		    read_load(l) < node ||
		    run_on(node, "cat /proc/loadavg", b, sizeof(b)))
			return -1;
		*strchr(strchr(strchr(a, ' ') + 1, ' ') + 1, ' ') = '\0';
		*strchr(strchr(strchr(b, ' ') + 1, ' ') + 1, ' ') = '\0';
		if (!strcmp(a, b)) {
			snprintf(avg, size, "%s", a);
			if (strcmp(a, l[node].avg))
				printf("# node %d: /proc/loadavg %s, load %s\n",
				       node, a, l[node].avg);
			return strcmp(a, l[node].avg) ? 1 : 0;
		}
	}
	return -1;
}

/*
 * Every node that is up has a line, with its CPUs; an idle node reads 0
 * runnable tasks, the reader or ICS's worker not counted, and CPU-bound
 * processes show; each node's load averages are its /proc/loadavg's.
 */
TEST_F_TIMEOUT(lev, load_lists_each_node_and_what_runs_there, 600)
{
	struct load l[MAX_NODE + 1];
	unsigned int idle = 0;
	long long end;
	int i, cpus, ret, seen = 0;
	char avg[128];

	ASSERT_EQ(3, read_load(l));
	for (i = 1; i <= 3; i++)
		EXPECT_LE(1, l[i].cpus) TH_LOG("node %d", i);
	cpus = l[1].cpus;
	/* Each node idle at some read: nothing but the answerer runs. */
	end = now_ms() + rig_rounds(30000, 120000);
	while (idle != 0xe && now_ms() < end) {
		ASSERT_EQ(3, read_load(l));
		for (i = 1; i <= 3; i++)
			if (!l[i].run)
				idle |= 1 << i;
		sleep_ms(100);
	}
	EXPECT_EQ(0xe, idle) TH_LOG("nodes seen idle: mask %#x", idle);
	/* Node 2 busy: its count, through ICS, shows its spinners. */
	ASSERT_EQ(0, start_loops(self, 2));
	ASSERT_EQ(0, spinners(self, cpus + 1, 1000));
	end = now_ms() + rig_rounds(20000, 60000);
	while (seen != 3 && now_ms() < end) {
		ASSERT_EQ(3, read_load(l));
		seen |= (l[1].run >= cpus + 1) | (l[2].run >= 2) << 1;
		sleep_ms(100);
	}
	EXPECT_EQ(3, seen) TH_LOG("node 1 ran %d, node 2 %d", l[1].run,
				  l[2].run);
	/*
	 * Each node's averages, the same on either side; node 2's, busy,
	 * not 0.00 once the next update (every 5 s) has counted its loops.
	 */
	EXPECT_EQ(0, averages_of(1, avg, sizeof(avg)));
	EXPECT_EQ(0, averages_of(3, avg, sizeof(avg)));
	end = now_ms() + 30000;
	do {
		ret = averages_of(2, avg, sizeof(avg));
		if (ret || strncmp(avg, "0.00 ", 5))
			break;
		sleep_ms(1000);
	} while (now_ms() < end);
	EXPECT_EQ(0, ret);
	EXPECT_NE(0, strncmp(avg, "0.00 ", 5)) TH_LOG("node 2: %s", avg);
}

static int read_load_op(void *arg)
{
	struct load *l = arg;
	int ret = read_load(l);

	return ret < 0 ? ret : ret == 3 ? 0 : -EPROTO;
}

/* A read changes nothing: there is nothing to undo. */
static int read_load_check(void *arg, int err)
{
	return 0;
}

/*
 * Each allocation a read makes fails in turn: ENOMEM, and no call left
 * waiting for its reply on this node.
 */
TEST_F_TIMEOUT(lev, a_failed_allocation_fails_the_read, 300)
{
	struct load l[MAX_NODE + 1];
	struct fault_run run;
	int ret;

	if (!fault_injection_available())
		SKIP(return, "no fault injection in this kernel (std): the debug kernel runs it");
	ASSERT_EQ(0, fault_injection_setup());
	ret = fault_loop(read_load_op, read_load_check, l, 300, &run);
	EXPECT_EQ(0, fault_loop_report("a read of /proc/cluster/load", ret,
				       &run));
	EXPECT_EQ(0, calls_left(1, 10000));
	EXPECT_EQ(3, read_load(l));
}

/*
 * Node 1 with two more spinners of a user's than it has CPUs, node 2 with
 * as many of root's as it has CPUs (which stay), node 3 idle, the
 * leveller on every node: one spinner moves, to node 3, the least loaded;
 * then nothing moves for 20 periods, though node 1 still has one more
 * than its CPUs: wherever it went, that node would have as many.
 */
TEST_F_TIMEOUT(lev, the_leveller_spreads_cpu_bound_processes_and_stops, 900)
{
	struct load l[MAX_NODE + 1];
	char where[64], later[64];
	long long end;
	int i, away = 0, to = 0;

	ASSERT_EQ(3, read_load(l));
	/* The moves expected are worked out for the rig's 1 CPU a node. */
	for (i = 1; i <= 3; i++)
		ASSERT_EQ(1, l[i].cpus) TH_LOG("node %d", i);
	ASSERT_EQ(0, start_loops(self, l[2].cpus));
	ASSERT_EQ(0, spinners(self, l[1].cpus + 2, 1000));
	for (i = 1; i <= 3; i++)
		ASSERT_EQ(0, start_balance(self, i, "balance", ""));
	end = now_ms() + self->look;
	while (!away && now_ms() < end) {
		sleep_ms(500);
		for (i = 0; i < self->spinners; i++) {
			int node = ps_node_of(self->spin[i]);

			if (node > 1) {
				away++;
				to = node;
			}
		}
	}
	placement(self, where, sizeof(where));
	ASSERT_EQ(1, away) TH_LOG("spinners on nodes %s", where);
	EXPECT_EQ(3, to) TH_LOG("spinners on nodes %s", where);
	sleep_ms(20 * self->period);
	placement(self, later, sizeof(later));
	EXPECT_STREQ(where, later);
	EXPECT_EQ(1, moves(self)) TH_LOG("spinners on nodes %s", later);
}

/*
 * With root's spinners on node 1, balance -n says nothing, while balance
 * -a -n beside it says, twice, that it would move one of them; nothing
 * moves.  And a user may not run it.
 */
TEST_F_TIMEOUT(lev, the_leveller_moves_no_root_process_without_a, 900)
{
	struct load l[MAX_NODE + 1];
	char path[256], plain[256], line[256] = "", where[64];
	long long end;
	int i, pid = 0, ours = 0;
	FILE *f;

	EXPECT_EQ(1, run_on(1, "timeout 10 asuser balance", NULL, 0));
	ASSERT_EQ(3, read_load(l));
	ASSERT_EQ(0, spinners(self, l[1].cpus + 1, 0));
	ASSERT_EQ(0, start_balance(self, 1, "balance", "-n"));
	ASSERT_EQ(0, start_balance(self, 1, "dry", "-a -n"));
	snprintf(path, sizeof(path), "%s/dry.1", self->dir);
	snprintf(plain, sizeof(plain), "%s/balance.1", self->dir);
	end = now_ms() + self->look;
	while (lines_of(path, "would move ") < 2 && now_ms() < end)
		sleep_ms(500);
	EXPECT_LE(2, lines_of(path, "would move "));
	EXPECT_EQ(0, lines_of(plain, "would move "));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (!pid && fgets(line, sizeof(line), f))
		sscanf(line, "would move %d", &pid);
	fclose(f);
	for (i = 0; i < self->spinners; i++)
		ours += self->spin[i] == pid;
	EXPECT_EQ(1, ours) TH_LOG("%s", line);
	placement(self, where, sizeof(where));
	for (i = 0; i < self->spinners; i++)
		EXPECT_EQ(1, ps_node_of(self->spin[i])) TH_LOG("on %s", where);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--spin"))
		return spin();
	return test_harness_run(argc, argv);
}
