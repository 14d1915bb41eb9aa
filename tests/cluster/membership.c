// SPDX-License-Identifier: GPL-2.0
/*
 * SSI membership (kernel/ssi/node.c, clms.c), from node 1 of 3: every node
 * up and agreed on one epoch; a node whose QEMU is killed is down for the
 * others within 3 s, and a call to it fails as soon; poll() on
 * /proc/cluster/nodes wakes at the change; booted again, the node joins
 * without a step by hand and the cluster agrees on a new epoch; and so
 * on for several kill/boot cycles.  Messages of a node that died, still
 * queued, are dropped without holding the others up; a link that drops
 * and comes back loses no message.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cluster_test.h"
#include "fault.h"
#include "kselftest_harness.h"
#include "variant.h"

#define NODES		3

#include "ics_fixture.h"
#define ALL_UP		((1UL << 1) | (1UL << 2) | (1UL << 3))
#define DOWN_MS		3000
#define JOIN_MS		10000

TEST(nodes_file_lists_every_node_up_and_one_epoch)
{
	struct view views[NODES + 1];
	unsigned long long epoch;
	int node;

	ASSERT_EQ(NODES, cluster_size());
	epoch = wait_agreement(ALL_UP, NODES, JOIN_MS, views);
	for (node = 1; node <= NODES; node++)
		TH_LOG("node %d: epoch %llu leader %d, %d listed", node,
		       views[node].epoch, views[node].leader,
		       views[node].listed);
	ASSERT_NE(0, epoch) TH_LOG("the nodes did not agree within %d ms",
				   JOIN_MS);
	for (node = 1; node <= NODES; node++) {
		EXPECT_EQ(node, views[node].self);
		EXPECT_EQ(1, views[node].leader);
		EXPECT_EQ(NODES, views[node].listed);
	}
}

/*
 * Whether @node's kernel saw every node up within JOIN_MS of its start,
 * from its log: the first time it saw each.  On the debug kernel, from
 * its joining (the first node it saw up, itself or one that was there
 * first): a debug kernel booting beside two others on a loaded host
 * takes more than 10 s to reach SSI's initcall at all.
 */
static int joined_within_10s(struct __test_metadata *_metadata, int node)
{
	char out[4096], *p;
	int seen = 0, late = 0, late_boot = 0;
	double self = -1;

	if (run_on(node, "dmesg | grep 'ssi: node [0-9]* up'", out,
		   sizeof(out)))
		return -1;
	for (p = out; (p = strchr(p, '[')); p++) {
		double t;
		int who;

		if (sscanf(p, "[ %lf] ssi: node %d up", &t, &who) != 2)
			continue;
		/* Later lines are nodes that booted again since. */
		if (who < 1 || who > NODES || (seen & (1 << who)))
			continue;
		if (self < 0)
			self = t;
		TH_LOG("node %d saw node %d up %.1f s after it booted", node,
		       who, t);
		late |= (t - self) * 1000 >= JOIN_MS;
		late_boot |= t * 1000 >= JOIN_MS;
		seen |= 1 << who;
	}
	if (late_boot && !rig_debug_kernel())
		return -1;
	return seen == (int)ALL_UP && !late ? 0 : -1;
}

TEST(each_node_saw_the_others_within_10s_of_booting)
{
	int node;

	for (node = 1; node <= NODES; node++)
		EXPECT_EQ(0, joined_within_10s(_metadata, node));
}

TEST(nodes_file_refuses_writes)
{
	int fd = open(NODES_FILE, O_WRONLY);

	/* root may open it (CAP_DAC_OVERRIDE); it has no write method. */
	if (fd >= 0) {
		EXPECT_EQ(-1, write(fd, "1", 1));
		EXPECT_EQ(EIO, errno);
		close(fd);
	} else {
		EXPECT_EQ(EACCES, errno);
	}
	fd = open(PS_FILE, O_WRONLY);
	if (fd >= 0) {
		EXPECT_EQ(-1, write(fd, "1", 1));
		EXPECT_EQ(EIO, errno);
		close(fd);
	} else {
		EXPECT_EQ(EACCES, errno);
	}
	EXPECT_EQ(0, cluster_run(2, "asuser sh -c 'echo 1 >" NODES_FILE "' ||"
				 " exit 0; exit 1", RUN_MS, NULL, 0));
}

/* A file read a byte at a time is the text read at once. */
TEST(nodes_file_reads_the_same_in_small_pieces)
{
	char whole[4096], bytes[4096];
	size_t len = 0;
	int fd;

	ASSERT_LT(0, read_text(NODES_FILE, whole, sizeof(whole)));
	fd = open(NODES_FILE, O_RDONLY);
	ASSERT_LE(0, fd);
	while (len < sizeof(bytes) - 1 && read(fd, bytes + len, 1) == 1)
		len++;
	bytes[len] = '\0';
	close(fd);
	EXPECT_STREQ(whole, bytes);
}

/* poll() reports nothing while nothing changes. */
TEST(poll_is_quiet_without_a_change)
{
	struct pollfd p = { .events = POLLPRI };
	char buf[4096];

	p.fd = open(NODES_FILE, O_RDONLY);
	ASSERT_LE(0, p.fd);
	ASSERT_LT(0, read(p.fd, buf, sizeof(buf)));
	EXPECT_EQ(0, poll(&p, 1, 300));
	close(p.fd);
}

struct sleeper {
	int node, ms, ret;
	long long ended;
};

/* An ICS call that waits for node's handler to sleep: its result. */
static void *sleep_call(void *arg)
{
	struct sleeper *s = arg;

	s->ret = ics("sleep %d %d %d", s->node, s->ms, s->ms + 10000);
	s->ended = now_ms();
	return NULL;
}

/* Waits up to @ms for /proc/cluster/nodes on this node to show @state. */
static long long wait_state(int node, char state, int ms)
{
	long long start = now_ms();
	struct view v;

	do {
		if (!node_view(cluster_self(), &v, RUN_MS) &&
		    v.state[node] == state)
			return now_ms() - start;
		sleep_ms(20);
	} while (now_ms() - start < ms);
	return -1;
}

/*
 * Node 2's agent waits for node 3 to be down in its own view and
 * then creates @flag: started before the kill, so that the time node 1
 * sees the flag appear bounds node 2's detection.
 */
static int watch_down_on_2(const char *flag)
{
	char cmd[256];

	unlink(flag);
	snprintf(cmd, sizeof(cmd),
		 "while grep -q '^3 .* up ' " NODES_FILE "; do sleep 0.02; done;"
		 " touch %s", flag);
	return cluster_start(2, cmd);
}

static long long wait_file(const char *path, int ms)
{
	long long start = now_ms();
	struct stat st;

	do {
		if (!stat(path, &st))
			return now_ms() - start;
		sleep_ms(20);
	} while (now_ms() - start < ms);
	return -1;
}

/* Waits up to @ms for @node to print @want for @cmd. */
static int wait_output(int node, const char *cmd, const char *want, int ms,
		       char *out, size_t len)
{
	long long end = now_ms() + ms;

	do {
		out[0] = '\0';
		if (!run_on(node, cmd, out, len) && !strcmp(out, want))
			return 0;
		sleep_ms(100);
	} while (now_ms() < end);
	return -1;
}

/*
 * What the membership notifier chain told ics_test on nodes 1 and 2: the
 * node's changes in order, each once.  Node 2's view may change a moment
 * before its chain is called: it has 2 s to catch up.
 */
static void expect_events(struct __test_metadata *_metadata,
			  const char *want)
{
	char out[4096];
	int node;

	for (node = 1; node <= 2; node++)
		EXPECT_EQ(0, wait_output(node, "cat " ICS_EVENTS, want, 2000,
					 out, sizeof(out)))
			TH_LOG("node %d's notifier events: %s", node, out);
}

/*
 * One cycle: kill node 3 with an ICS call to it in flight, check that
 * nodes 1 and 2 see it down and the call fails within 3 s, and their
 * notifier chains tell of it; boot it again and wait until all three
 * agree on an epoch above @before.
 */
static int kill_and_boot(struct __test_metadata *_metadata,
			 unsigned long long *epoch)
{
	struct sleeper s = { .node = 3, .ms = 30000 };
	struct view views[NODES + 1];
	struct pollfd p = { .events = POLLPRI };
	long long killed, down1, down2, polled;
	unsigned long long before = *epoch;
	const char *flag = "/cluster/node3-down-on-2";
	char buf[4096], out[64];
	pid_t on3;
	pthread_t t;
	int id;

	/* The notifier chain's events from here on, on nodes 1 and 2. */
	if (run_on(1, "echo >" ICS_EVENTS, NULL, 0) ||
	    run_on(2, "echo >" ICS_EVENTS, NULL, 0))
		return -1;
	/* A process of node 3, which kill() reaches until node 3 dies. */
	if (cluster_run(3, "sleep 1000 >/dev/null 2>&1 </dev/null & echo $!",
			RUN_MS, out, sizeof(out)))
		return -1;
	on3 = atoi(out);
	EXPECT_EQ(3, on3 >> PID_SHIFT);
	EXPECT_EQ(0, kill(on3, 0));
	p.fd = open(NODES_FILE, O_RDONLY);
	if (p.fd < 0 || read(p.fd, buf, sizeof(buf)) <= 0 ||
	    poll(&p, 1, 0) < 0)
		return -1;
	id = watch_down_on_2(flag);
	if (id < 0 || pthread_create(&t, NULL, sleep_call, &s))
		return -1;
	sleep_ms(300);
	killed = now_ms();
	if (cluster_ctl("kill 3"))
		return -1;
	polled = poll(&p, 1, DOWN_MS) == 1 ? now_ms() - killed : -1;
	down1 = wait_state(3, 'd', DOWN_MS + 1000);
	if (down1 >= 0)
		down1 = now_ms() - killed;
	down2 = wait_file(flag, DOWN_MS + 2000);
	if (down2 >= 0)
		down2 = now_ms() - killed;
	pthread_join(t, NULL);
	close(p.fd);
	cluster_wait(2, id, RUN_MS, NULL, 0);
	TH_LOG("node 3 killed: poll woke after %lld ms, node 1 saw it down after %lld ms, node 2 after %lld ms, the call to it ended after %lld ms: %s",
	       polled, down1, down2, s.ended - killed, strerror(-s.ret));
	EXPECT_EQ(-EHOSTDOWN, s.ret);
	EXPECT_GT(DOWN_MS, s.ended - killed);
	EXPECT_LE(0, polled);
	EXPECT_LE(0, down1);
	EXPECT_GT(DOWN_MS, down1);
	/* node 2's view, seen through the agent and 9p: 20 ms polls. */
	EXPECT_LE(0, down2);
	EXPECT_GT(DOWN_MS, down2);
	/* An ICS call to it now fails at once; no live node has its PIDs. */
	EXPECT_EQ(-EHOSTDOWN, ics("echo 3 10 1"));
	EXPECT_EQ(-1, kill(on3, 0));
	EXPECT_EQ(ESRCH, errno);

	/* Nodes 1 and 2 agree without node 3. */
	*epoch = wait_agreement(ALL_UP & ~(1UL << 3), NODES, JOIN_MS, views);
	EXPECT_LT(before, *epoch);
	expect_events(_metadata, "down 3\n");

	if (cluster_ctl("start 3"))
		return -1;
	/* Its agent runs once it booted: the cluster agrees then. */
	if (cluster_run(3, "true", BOOT_MS, NULL, 0))
		return -1;
	before = *epoch;
	*epoch = wait_agreement(ALL_UP, NODES, JOIN_MS, views);
	TH_LOG("node 3 booted again: epoch %llu (was %llu)", *epoch, before);
	EXPECT_LT(before, *epoch);
	expect_events(_metadata, "down 3\nup 3\n");
	return joined_within_10s(_metadata, 3);
}

TEST_F_TIMEOUT(ics, a_killed_node_is_down_within_3s_and_rejoins, 600)
{
	struct view views[NODES + 1];
	unsigned long long epoch;

	self->remote_calls = 1;
	epoch = wait_agreement(ALL_UP, NODES, JOIN_MS, views);
	ASSERT_NE(0, epoch);
	ASSERT_EQ(0, kill_and_boot(_metadata, &epoch));
	/* The module is loaded on the new boot of node 3 again. */
	ASSERT_EQ(0, ics_test_load(NODES));
	EXPECT_EQ(0, ics("echo 3 100 1"));
}

/*
 * Messages of node 3 still queued on node 1 when node 3 is seen down:
 * node 1 takes none in until then (fail_ics_receive holds the first,
 * the others wait behind it).  None is handled, and node 2's reply to
 * node 1 comes in time: TIPC can no longer reach node 3, so they are
 * dropped at once.  Held 5 s each, as a message from a node not seen up
 * may be, they would keep it 100 s.
 */
TEST_F_TIMEOUT(ics, messages_of_a_boot_that_died_hold_nothing_up, 600)
{
	unsigned long long in, rep, miss;
	struct view views[NODES + 1];
	long long down, t0;
	int ret, left;

	if (!fault_injection_available())
		SKIP(return, "no fault injection in this kernel (std): the debug kernel runs it");
	/* A reboot, as in kill_and_boot_cycles: -m32 adds nothing to it. */
	if (sizeof(long) != 8)
		SKIP(return, "all kernel-side: the 64-bit run does it");
	self->remote_calls = 1;
	self->settings = 1;
	ASSERT_NE(0, wait_agreement(ALL_UP, NODES, JOIN_MS, views));
	ASSERT_EQ(0, fail_receive_at(1, 100, 0, 1000000));
	ASSERT_EQ(0, cluster_run(3, "echo 'send 1 20' >" ICS_CALL, RUN_MS,
				 NULL, 0));
	/* Held: the retries of its first message fail, every 10 ms. */
	t0 = now_ms();
	do {
		left = fail_times_left(1);
		ASSERT_LE(0, left);
		if (left < 1000000 - 3)
			break;
		sleep_ms(50);
	} while (now_ms() - t0 < 10000);
	ASSERT_GT(1000000 - 3, left) TH_LOG("node 1 held no message");
	ASSERT_EQ(0, cluster_ctl("kill 3"));
	down = wait_state(3, 'd', DOWN_MS + 2000);
	EXPECT_EQ(0, fail_receive(1, 0));
	ASSERT_LE(0, down);
	t0 = now_ms();
	ret = ics("echo 2 100 1 5000");
	TH_LOG("node 1 saw node 3 down after %lld ms; the call to node 2 then took %lld ms",
	       down, now_ms() - t0);
	EXPECT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	EXPECT_EQ(0, seq_stats(1, 3, &in, &rep, &miss));
	EXPECT_EQ(0, in + rep + miss) TH_LOG("messages of a dead boot handled");

	ASSERT_EQ(0, cluster_ctl("start 3"));
	ASSERT_EQ(0, cluster_run(3, "true", BOOT_MS, NULL, 0));
	ASSERT_NE(0, wait_agreement(ALL_UP, NODES, JOIN_MS, views));
	ASSERT_EQ(0, ics_test_load(NODES));
	EXPECT_EQ(0, ics("echo 3 100 1"));
}

/*
 * Node 3's link taken down and brought up again, with no reboot: node 1
 * sees it down, then up again with the same ICS socket, and the nodes
 * agree on a new epoch.  Node 1's membership notifier (ics_test's
 * downstall) holds node 1's later changes up from the moment it sees
 * node 3 down until a message of node 3's waits for them: node 3 sends
 * 200 to node 1 from its own notifier, the moment it sees node 1 up
 * again, and they must be held, not dropped.  None is lost, and calls
 * go both ways.  (Messages sent while the link is down, or queued when
 * node 1 sees node 3 down, are not sure to arrive: TIPC purges them.)
 */
TEST_F_TIMEOUT(ics, a_link_that_drops_and_comes_back_loses_nothing, 300)
{
	unsigned long long before, epoch, in0, rep0, miss0, in, rep, miss;
	long long down, end, held0, held;
	struct view views[NODES + 1];
	char out[256];

	/* ICS and TIPC alone: no system call of the test's own. */
	if (sizeof(long) != 8)
		SKIP(return, "all kernel-side: the 64-bit run does it");
	self->remote_calls = 1;
	self->settings = 1;
	before = wait_agreement(ALL_UP, NODES, JOIN_MS, views);
	ASSERT_NE(0, before);
	ASSERT_EQ(0, seq_stats(1, 3, &in0, &rep0, &miss0));
	ASSERT_LE(0, read_text(ICS_HELD_UNSEEN, out, sizeof(out)));
	held0 = atoll(out);
	ASSERT_EQ(0, ics("downstall 3 30000"));
	ASSERT_EQ(0, cluster_run(3, "ip link set eth0 down", RUN_MS, NULL, 0));
	down = wait_state(3, 'd', DOWN_MS + 2000);
	EXPECT_EQ(0, cluster_run(3, "echo 'sendup 1 200' >" ICS_CALL ";"
				 " ip link set eth0 up", RUN_MS, NULL, 0));
	/* Released once one is held (for 5 s at most), looked at here. */
	end = now_ms() + 20000;
	while (read_text(ICS_HOLDING, out, sizeof(out)) > 0 && out[0] != 'Y' &&
	       now_ms() < end)
		sleep_ms(10);
	EXPECT_EQ(0, ics("release"));
	ASSERT_LE(0, down);
	ASSERT_EQ(0, wait_seq(1, 3, in0 + miss0, 200, 30000, &in, &rep,
			      &miss));
	ASSERT_LE(0, read_text(ICS_HELD_UNSEEN, out, sizeof(out)));
	held = atoll(out) - held0;
	TH_LOG("node 1 saw node 3 down after %lld ms; then got %llu of its 200 messages in order, %llu repeated, %llu missing; %lld came before it saw node 3 up",
	       down, in - in0, rep - rep0, miss - miss0, held);
	/* The first at least: the others wait behind it in the socket. */
	EXPECT_LE(1, held) TH_LOG("none came early: the test tested nothing");
	EXPECT_EQ(200, in - in0);
	EXPECT_EQ(0, rep - rep0);
	EXPECT_EQ(0, miss - miss0);
	/* Node 3's notifier sent them all ("sendup -ERR" otherwise). */
	EXPECT_EQ(0, cluster_run(3, "cat " ICS_EVENTS, RUN_MS, out,
				 sizeof(out)));
	EXPECT_EQ(NULL, strstr(out, "sendup")) TH_LOG("node 3: %s", out);
	epoch = wait_agreement(ALL_UP, NODES, JOIN_MS, views);
	EXPECT_LT(before, epoch);
	EXPECT_EQ(0, ics("echo 3 100 1"));
	EXPECT_EQ(0, cluster_run(3, "echo 'echo 1 100 2' >" ICS_CALL, RUN_MS,
				 NULL, 0));
}

/*
 * Bad SSI parameters on node 3's command line, after its good ones, each
 * refused with a line in its log: ssi.node=64 and ssi.max_jobs=0 leave
 * the values before them, ssi.nodes=99 and ssi.tolerance=10 fall back to
 * 0, and ssi.iface=lo, no Ethernet device, keeps node 3 out of the
 * cluster before the join changes anything: it sees no node up, itself
 * included, and the others do not see it.  Booted again without them, it
 * joins.
 */
TEST_F_TIMEOUT(ics, bad_boot_parameters_are_refused_with_a_log_line, 600)
{
	static const char *const lines[] = {
		"ssi: ssi.node=64: not a node number from 1 to 63",
		/* `0' invalid for parameter `ssi.max_jobs', quotes and all */
		"0. invalid for parameter .ssi.max_jobs.",
		"ssi: ssi.nodes=99: not from 1 to 63",
		"ssi: ssi.tolerance=10: not from 50 to 30000 ms",
		"ssi: node 3 cannot bring up lo (-22): not in the cluster",
	};
	struct view views[NODES + 1];
	unsigned long long before;
	char cmd[512] = "dmesg | grep -c", out[4096];
	unsigned int i;

	if (sizeof(long) != 8)
		SKIP(return, "a reboot again: the 64-bit run does it");
	self->remote_calls = 1;
	before = wait_agreement(ALL_UP, NODES, JOIN_MS, views);
	ASSERT_NE(0, before);
	ASSERT_EQ(0, cluster_ctl("kill 3"));
	ASSERT_EQ(0, cluster_ctl("start 3 ssi.node=64 ssi.max_jobs=0 ssi.nodes=99 ssi.tolerance=10 ssi.iface=lo"));
	ASSERT_EQ(0, cluster_run(3, "cd /sys/module/ssi/parameters &&"
				 " cat max_jobs nodes tolerance iface",
				 BOOT_MS, out, sizeof(out)));
	EXPECT_STREQ("1024\n0\n0\nlo\n", out);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
			 " -e '%s'", lines[i]);
	/* The join runs in a work item: its line may come after the agent. */
	EXPECT_EQ(0, wait_output(3, cmd, "5\n", 10000, out, sizeof(out)))
		TH_LOG("%s: %s", cmd, out);
	/* grep -c exits 1 when it counts none. */
	EXPECT_EQ(0, cluster_run(3, "grep -c ' up ' " NODES_FILE "; true",
				 RUN_MS, out, sizeof(out)));
	EXPECT_STREQ("0\n", out);
	/* Node 3 would have joined within a second or two of its agent. */
	sleep_ms(2000);
	EXPECT_NE(0, wait_agreement(ALL_UP & ~(1UL << 3), NODES, JOIN_MS,
				    views));

	/* Booted again as it should be, it joins. */
	ASSERT_EQ(0, cluster_ctl("kill 3"));
	ASSERT_EQ(0, cluster_ctl("start 3"));
	ASSERT_EQ(0, cluster_run(3, "true", BOOT_MS, NULL, 0));
	EXPECT_LT(before, wait_agreement(ALL_UP, NODES, JOIN_MS, views));
	ASSERT_EQ(0, ics_test_load(NODES));
	EXPECT_EQ(0, ics("echo 3 100 1"));
}

/*
 * More cycles: kmemleak and lockdep look at every node at the end.  10
 * with the first test, 64-bit (3 on the debug kernel, where a boot of
 * node 3 takes four times as long); -m32's one, in the first test, covers
 * its own system calls (poll() and kill() of a node that died).
 */
TEST_F_TIMEOUT(ics, kill_and_boot_cycles, 3000)
{
	struct view views[NODES + 1];
	unsigned long long epoch;
	int i, cycles = rig_rounds(9, 2);

	if (sizeof(long) != 8)
		SKIP(return, "a reboot again: the 64-bit run does them");
	self->remote_calls = 1;
	epoch = wait_agreement(ALL_UP, NODES, JOIN_MS, views);
	ASSERT_NE(0, epoch);
	for (i = 0; i < cycles; i++) {
		TH_LOG("cycle %d of %d", i + 1, cycles);
		ASSERT_EQ(0, kill_and_boot(_metadata, &epoch));
		ASSERT_EQ(0, ics_test_load(NODES));
		ASSERT_EQ(0, ics("echo 3 100 %d", i));
		ASSERT_EQ(0, ics("relay 3 2 1000 %d", i));
	}
}

TEST_HARNESS_MAIN
