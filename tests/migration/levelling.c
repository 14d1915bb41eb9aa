// SPDX-License-Identifier: GPL-2.0
/*
 * Load levelling: /proc/cluster/load (kernel/ssi/load.c), each node's
 * CPUs, runnable tasks and load averages, what a leveller reads.
 *
 * The CPU-bound processes are this program run as "--spin", daemons
 * (init's children) in a session of their own, with nothing open but
 * /dev/null and "/" as their directory: nothing criu would not move.
 */
#include <signal.h>
#include <sys/stat.h>

#include "fault.h"
#include "kselftest_harness.h"
#include "../cluster/cluster_test.h"

#define LOAD_FILE	"/proc/cluster/load"
#define MAX_SPIN	8
/* Root's spinners on node 2: shell loops, which the kill does not match. */
#define LOOP		"while :; do :; done"
#define LOOPS(n)	"cd / && for i in $(seq " #n "); do setsid sh -c '" LOOP \
			"' </dev/null >/dev/null 2>&1 & done"
#define KILL_LOOPS	"pkill -f 'while :; do :; don[e]'; true"

struct load {
	int cpus, run;
	char avg[48];			/* "L1 L5 L15" as printed */
};

/*
 * /proc/cluster/load into @l, indexed by node: the nodes listed, or
 * -errno; -EPROTO for a line that is not "NODE CPUS RUN L1 L5 L15".
 */
static int read_load(struct load *l)
{
	char text[4096], *line, *save;
	int ret = read_text(LOAD_FILE, text, sizeof(text)), n = 0;

	if (ret < 0)
		return ret;
	memset(l, 0, sizeof(*l) * (MAX_NODE + 1));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int a[8];
		int node, len = 0;

		if (sscanf(line, "%d %d %d %u.%2u %u.%2u %u.%2u%n", &node,
			   &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6],
			   &a[7], &len) != 9 || line[len] || node < 1 ||
		    node > MAX_NODE || l[node].cpus)
			return -EPROTO;
		l[node].cpus = a[0];
		l[node].run = a[1];
		snprintf(l[node].avg, sizeof(l[node].avg), "%s",
			 strchr(strchr(strchr(line, ' ') + 1, ' ') + 1, ' ') +
			 1);
		n++;
	}
	return n;
}

/* The spinner: never returns. */
static int spin(void)
{
	volatile unsigned long n = 0;

	for (;;)
		n++;
	return 0;
}

/* A spinner of @uid's, a daemon: its PID, or -1. */
static pid_t start_spinner(uid_t uid)
{
	int p[2], status;
	pid_t pid = -1, mid;

	if (pipe(p))
		return -1;
	mid = fork();
	if (!mid) {
		pid_t c;

		close(p[0]);
		c = fork();
		if (!c) {
			int null = open("/dev/null", O_RDWR);

			if (null < 0 || dup2(null, 0) || dup2(null, 1) != 1 ||
			    dup2(null, 2) != 2 || chdir("/") || setsid() < 0 ||
			    (uid && (setresgid(uid, uid, uid) ||
				     setresuid(uid, uid, uid))))
				_exit(1);
			close(p[1]);
			if (null > 2)
				close(null);
			execl("/proc/self/exe", "levelling", "--spin",
			      (char *)NULL);
			_exit(127);
		}
		_exit(c < 0 || write(p[1], &c, sizeof(c)) != sizeof(c));
	}
	close(p[1]);
	if (mid > 0 && read(p[0], &pid, sizeof(pid)) != sizeof(pid))
		pid = -1;
	close(p[0]);
	if (mid > 0)
		waitpid(mid, &status, 0);
	return pid;
}

FIXTURE(lev) {
	char dir[128];
	pid_t spin[MAX_SPIN];
	int spinners;
};

FIXTURE_SETUP(lev)
{
	snprintf(self->dir, sizeof(self->dir), "/cluster/lev.%d", getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	self->spinners = 0;
}

FIXTURE_TEARDOWN(lev)
{
	char cmd[256];
	int i;

	run_on(2, KILL_LOOPS, NULL, 0);
	/* kill() of a PID of this node's range reaches it where it is. */
	for (i = 0; i < self->spinners; i++)
		kill(self->spin[i], SIGKILL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

static int spinners(FIXTURE_DATA(lev) *self, int n, uid_t uid)
{
	while (n-- > 0 && self->spinners < MAX_SPIN) {
		pid_t pid = start_spinner(uid);

		if (pid < 0)
			return -1;
		self->spin[self->spinners++] = pid;
	}
	return 0;
}

/*
 * Node 1's load averages as node @reader's /proc/cluster/load gives them
 * (through ICS from node 2), read between two reads of this node's
 * /proc/loadavg that agree, in @avg: 0, 1 if they differ, -1 if the two
 * reads never agreed (an update every 5 s).
 */
static int averages_of_1(int reader, char *avg, size_t size)
{
	struct load l[MAX_NODE + 1];
	char a[128], b[128], text[4096], *line;
	int i;

	for (i = 0; i < 30; i++) {
		if (read_text("/proc/loadavg", a, sizeof(a)) < 0 ||
		    run_on(reader, "cat " LOAD_FILE, text, sizeof(text)) ||
		    read_text("/proc/loadavg", b, sizeof(b)) < 0)
			return -1;
		*strchr(strchr(strchr(a, ' ') + 1, ' ') + 1, ' ') = '\0';
		*strchr(strchr(strchr(b, ' ') + 1, ' ') + 1, ' ') = '\0';
		if (strcmp(a, b))
			continue;
		snprintf(avg, size, "%s", a);
		/* Node 1's line is the first: "1 CPUS RUN L1 L5 L15". */
		line = text;
		if (sscanf(line, "1 %d %d", &l[1].cpus, &l[1].run) != 2)
			return -1;
		line = strchr(strchr(strchr(line, ' ') + 1, ' ') + 1, ' ');
		if (!line || !strchr(line, '\n'))
			return -1;
		*strchr(line, '\n') = '\0';
		if (strcmp(a, line + 1))
			printf("# node %d reads %s, /proc/loadavg %s\n", reader,
			       line + 1, a);
		return strcmp(a, line + 1) ? 1 : 0;
	}
	return -1;
}

/*
 * Every node that is up has a line, with its CPUs; an idle node reads 0
 * runnable tasks, the reader or ICS's worker not counted, and CPU-bound
 * processes show; node 1's load averages are its /proc/loadavg's, read
 * here and from node 2.
 */
TEST_F_TIMEOUT(lev, load_lists_each_node_and_what_runs_there, 300)
{
	struct load l[MAX_NODE + 1];
	unsigned int idle = 0;
	long long end;
	int i, cpus, seen = 0;
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
	ASSERT_EQ(0, run_on(2, LOOPS(2), NULL, 0));
	ASSERT_EQ(0, spinners(self, cpus + 1, 1000));
	end = now_ms() + rig_rounds(20000, 60000);
	while (seen != 3 && now_ms() < end) {
		ASSERT_EQ(3, read_load(l));
		seen |= (l[1].run >= cpus + 1) | (l[2].run >= 2) << 1;
		sleep_ms(100);
	}
	EXPECT_EQ(3, seen) TH_LOG("node 1 ran %d, node 2 %d", l[1].run,
				  l[2].run);
	/* Node 1 busy: averages that are not 0.00, read here and there. */
	EXPECT_EQ(0, averages_of_1(1, avg, sizeof(avg)));
	EXPECT_EQ(0, averages_of_1(2, avg, sizeof(avg)));
	EXPECT_NE(0, strncmp(avg, "0.00 ", 5)) TH_LOG("node 1: %s", avg);
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

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--spin"))
		return spin();
	return test_harness_run(argc, argv);
}
