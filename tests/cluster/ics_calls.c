// SPDX-License-Identifier: GPL-2.0
/*
 * ICS (kernel/ssi/ics.c) through modules/ics_test.c, on every node:
 * calls and replies of every size up to 64 KiB, to each node and to
 * itself; a handler that calls a third node; bad calls; a timeout;
 * calls from many threads on every node at once, every reply checked;
 * one-way messages from two nodes at once, each delivered once and in
 * order; a node whose handlers fall behind refusing calls and holding
 * messages back past ssi.max_jobs; handlers that may not call refused
 * with EDEADLK; and fault injection over the sending
 * path (fail-nth) and the receiving one (fail_ics_receive).
 */
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "cluster_test.h"
#include "fault.h"
#include "kmsg.h"
#include "kselftest_harness.h"
#include "sysfs_file.h"

#define NODES		3

#include "ics_fixture.h"

TEST_F(ics, calls_of_every_size_reach_each_node_and_this_one)
{
	static const unsigned int sizes[] = { 0, 1, 100, 4096, 65535, 65536 };
	unsigned int i;
	int node;

	for (node = 1; node <= NODES; node++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			EXPECT_EQ(0, ics("echo %d %u %u", node, sizes[i],
					 node * 100 + i))
				TH_LOG("echo to node %d of %u bytes", node,
				       sizes[i]);
		}
}

TEST_F(ics, bad_calls_fail_with_their_errno)
{
	/* Larger than ICS_MAX_PAYLOAD. */
	EXPECT_EQ(-EINVAL, ics("echo 2 65537 1"));
	/* Nodes that are not up, and no nodes at all. */
	EXPECT_EQ(-EHOSTDOWN, ics("echo 9 10 1"));
	EXPECT_EQ(-EHOSTDOWN, ics("echo 0 10 1"));
	EXPECT_EQ(-EHOSTDOWN, ics("echo 63 10 1"));
	EXPECT_EQ(-EHOSTDOWN, ics("echo 64 10 1"));
	EXPECT_EQ(-EHOSTDOWN, ics("echo -1 10 1"));
	EXPECT_EQ(-EHOSTDOWN, ics("send 9 1"));
	/* The module's own parser. */
	EXPECT_EQ(-EINVAL, ics("what 2"));
	EXPECT_EQ(-EINVAL, ics("send 64 1"));
}

TEST_F(ics, a_slow_handler_times_the_call_out)
{
	long long t0 = now_ms();

	EXPECT_EQ(-ETIMEDOUT, ics("sleep 2 1500 300"));
	EXPECT_LE(300, now_ms() - t0);
	EXPECT_GT(1400, now_ms() - t0);
	/*
	 * Its late reply comes while the next call waits: that call must
	 * not take it for its own (it would end 1.2 s early).
	 */
	t0 = now_ms();
	EXPECT_EQ(0, ics("sleep 2 2500 10000"));
	EXPECT_LE(2500, now_ms() - t0);
	EXPECT_EQ(0, ics("echo 2 64 5"));
}

/*
 * A caller that asked to run late does not read the socket for the
 * others: its replies come through the reading work, in time, with
 * readers calling at once.  Returns which call failed, or 0.
 */
static int late_caller(int policy)
{
	struct sched_param none = { 0 };
	int i;

	if (policy == SCHED_IDLE ? sched_setscheduler(0, SCHED_IDLE, &none) :
	    setpriority(PRIO_PROCESS, 0, 10))
		return 100;
	for (i = 0; i < 50; i++)
		if (ics("echo %d 256 %d 3000", 2 + i % 2, i))
			return i + 1;
	return 0;
}

/* How many messages callers of this node have read for ICS. */
static long long caller_reads(void)
{
	char text[32];

	if (read_text(ICS_CALLER_READS, text, sizeof(text)) <= 0)
		return -1;
	return atoll(text);
}

TEST_F(ics, callers_that_run_late_get_their_replies_through_the_work)
{
	int policies[] = { SCHED_OTHER, SCHED_IDLE }, i, status;
	long long reads = caller_reads();
	pid_t kids[2];

	/* A caller at nice 0 reads its replies itself. */
	ASSERT_LE(0, reads);
	for (i = 0; i < 20; i++)
		ASSERT_EQ(0, ics("echo 2 64 %d", i));
	EXPECT_LT(reads, caller_reads());
	/* Alone, late callers read none: the work reads every reply. */
	reads = caller_reads();
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		ASSERT_LE(0, kids[i]);
		if (!kids[i])
			_exit(late_caller(policies[i]));
		ASSERT_EQ(kids[i], waitpid(kids[i], &status, 0));
		EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
			TH_LOG("%s caller alone: see the exit code",
			       i ? "SCHED_IDLE" : "nice 10");
	}
	EXPECT_EQ(reads, caller_reads());
	/* Beside a caller that reads for everyone. */
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		ASSERT_LE(0, kids[i]);
		if (!kids[i])
			_exit(late_caller(policies[i]));
	}
	for (i = 0; i < 50; i++)
		EXPECT_EQ(0, ics("echo 3 64 %d", i));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(kids[i], waitpid(kids[i], &status, 0));
		EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
			TH_LOG("%s caller: see the exit code",
			       i ? "SCHED_IDLE" : "nice 10");
	}
}

TEST_F(ics, a_handler_calls_a_third_node)
{
	self->remote_calls = 1;

	/* Node 1 calls node 2, whose handler calls node 3, and back. */
	EXPECT_EQ(0, ics("relay 2 3 1000 7"));
	EXPECT_EQ(0, ics("relay 3 2 65536 8"));
	/* The handler calls the node that called it, which waits. */
	EXPECT_EQ(0, ics("relay 2 1 4096 9"));
	/* And node 2 calls node 3 to call node 1. */
	EXPECT_EQ(0, cluster_run(2, "echo 'relay 3 1 500 3' >" ICS_CALL,
				 RUN_MS, NULL, 0));
	EXPECT_EQ(-EHOSTDOWN, ics("relay 2 9 10 1"));
}

struct caller {
	int thread, calls, failed, first_err;
	long long slowest;	/* ms */
};

static void *call_many(void *arg)
{
	struct caller *c = arg;
	int i;

	for (i = 0; i < c->calls; i++) {
		int node = 1 + (c->thread + i) % NODES;
		long long t0 = now_ms(), took;
		int ret = ics("echo %d %d %d", node, (i * 997) % 20000,
			      c->thread * 100000 + i);

		took = now_ms() - t0;
		if (took > c->slowest)
			c->slowest = took;
		if (ret) {
			c->failed++;
			if (!c->first_err)
				c->first_err = ret;
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(ics, calls_from_many_threads_on_every_node_at_once, 600)
{
	int threads = 8, calls = rig_rounds(200, 40), i, node, id[NODES + 1];
	struct caller c[8];
	pthread_t t[8];
	char cmd[512];

	self->remote_calls = 1;
	/* Nodes 2 and 3: four shells each, calling every node. */
	snprintf(cmd, sizeof(cmd),
		 "f=/tmp/ics-failed; rm -f $f; for p in 1 2 3 4; do"
		 " (for i in $(seq %d); do"
		 " echo \"echo $(( (p + i) %% 3 + 1 )) $(( i * 13 %% 9000 )) $i\""
		 " >" ICS_CALL " || { echo \"shell $p call $i failed\" >>$f; exit 1; };"
		 " done) & done; wait; ! cat $f 2>/dev/null",
		 calls / 2);
	for (node = 2; node <= NODES; node++) {
		id[node] = cluster_start(node, cmd);
		ASSERT_LE(0, id[node]);
	}
	for (i = 0; i < threads; i++) {
		c[i] = (struct caller){ .thread = i, .calls = calls };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, call_many, &c[i]));
	}
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, c[i].failed)
			TH_LOG("thread %d: %d of %d calls failed, first with %s",
			       i, c[i].failed, calls, strerror(-c[i].first_err));
		/*
		 * No call stalls for seconds short of its 10 s timeout (a
		 * reply left unread with no reader woken would wait for the
		 * next message; under this load one comes within ms).
		 */
		TH_LOG("thread %d: slowest call %lld ms", i, c[i].slowest);
		EXPECT_GT(5000, c[i].slowest);
	}
	for (node = 2; node <= NODES; node++) {
		char out[1024];

		EXPECT_EQ(0, cluster_wait(node, id[node], 300000, out,
					  sizeof(out)))
			TH_LOG("node %d: %s", node, out);
	}
}

TEST_F_TIMEOUT(ics, messages_from_two_nodes_arrive_once_and_in_order, 600)
{
	int count = rig_rounds(10000, 2000), id;
	unsigned long long in1, rep1, miss1, in3, rep3, miss3;
	long long end;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "echo 'send 2 %d' >" ICS_CALL, count);
	id = cluster_start(3, cmd);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, ics("send 2 %d", count));
	ASSERT_EQ(0, cluster_wait(3, id, 300000, NULL, 0));
	/* Sent is not yet handled: wait for the counts to settle. */
	end = now_ms() + 30000;
	do {
		ASSERT_EQ(0, seq_stats(2, 1, &in1, &rep1, &miss1));
		ASSERT_EQ(0, seq_stats(2, 3, &in3, &rep3, &miss3));
		if (in1 + miss1 >= (unsigned long long)count &&
		    in3 + miss3 >= (unsigned long long)count)
			break;
		sleep_ms(200);
	} while (now_ms() < end);
	TH_LOG("node 2 got %llu/%llu/%llu from node 1 and %llu/%llu/%llu from node 3 (in order/repeated/missing)",
	       in1, rep1, miss1, in3, rep3, miss3);
	EXPECT_EQ(count, in1);
	EXPECT_EQ(count, in3);
	EXPECT_EQ(0, rep1 + rep3);
	EXPECT_EQ(0, miss1 + miss3);
}

static int call_node2(void *arg)
{
	return ics("echo 2 3000 11");
}

/*
 * fault_loop() checks the errno (an allocation's); here, that the failed
 * call did not stay in node 1's table of calls waiting for a reply.
 */
static int call_check(void *arg, int err)
{
	return calls_left(1, 3000) ? -1 : 0;
}

/* Every allocation of the calling side fails in turn (fail-nth). */
TEST_F_TIMEOUT(ics, fault_injection_on_the_sending_side, 600)
{
	struct fault_run run;
	int ret;

	if (!fault_injection_available())
		SKIP(return, "no fault injection in this kernel (std): the debug kernel runs it");
	ASSERT_EQ(0, fault_injection_setup());
	ret = fault_loop(call_node2, call_check, NULL, 200, &run);
	ASSERT_EQ(0, fault_loop_report("ics_call to node 2", ret, &run));
	EXPECT_EQ(0, ics("echo 2 3000 12"));
}

/*
 * Node 2 fails a third of its receiving side's allocations (a request
 * or message taken in, a handler's reply): a call then gets its reply
 * or ENOMEM, and no one-way message is lost or repeated.  The calls go
 * to the echo that is not quick: a quick one allocates nothing.
 */
TEST_F_TIMEOUT(ics, fault_injection_on_the_receiving_side, 600)
{
	int i, ok = 0, nomem = 0, calls = rig_rounds(300, 100);
	int count = rig_rounds(3000, 1000);
	unsigned long long in, rep, miss, in0, rep0, miss0;

	if (!fault_injection_available())
		SKIP(return, "no fault injection in this kernel (std): the debug kernel runs it");
	self->settings = 1;
	ASSERT_EQ(0, seq_stats(2, 1, &in0, &rep0, &miss0));
	ASSERT_EQ(0, fail_receive(2, 33));
	for (i = 0; i < calls; i++) {
		int ret = ics("wecho 2 %d %d", i * 37 % 5000, i);

		if (!ret) {
			ok++;
		} else if (ret == -ENOMEM) {
			nomem++;
		} else {
			EXPECT_EQ(0, ret) TH_LOG("call %d: %s", i, strerror(-ret));
			break;
		}
	}
	EXPECT_EQ(0, ics("send 2 %d", count));
	ASSERT_EQ(0, wait_seq(2, 1, in0 + miss0, count, 60000, &in, &rep,
			      &miss));
	ASSERT_EQ(0, fail_receive(2, 0));
	TH_LOG("%d calls answered, %d with ENOMEM; %llu messages in order, %llu repeated, %llu missing",
	       ok, nomem, in - in0, rep - rep0, miss - miss0);
	EXPECT_LT(0, ok);
	EXPECT_LT(0, nomem);
	EXPECT_EQ(count, in - in0);
	EXPECT_EQ(0, rep - rep0);
	EXPECT_EQ(0, miss - miss0);
	EXPECT_EQ(0, ics("echo 2 1000 1"));
}

/*
 * Each allocation of node 2's receiving side fails in turn, once, as
 * fail-nth would do it for a task: fail_ics_receive's space lets the
 * ones before it through (should_fail() takes a request's job as its
 * length, a reply as the service's reply_max, 64 KiB).  A job that
 * cannot be allocated is taken in again a moment later; a reply that
 * cannot be is answered with ENOMEM.
 */
TEST_F_TIMEOUT(ics, each_allocation_of_the_receiving_side_fails_in_turn, 300)
{
	static const struct {
		const char *what;
		long space;
		int ret;
	} points[] = {
		{ "the request's job", 0, 0 },
		{ "the reply", 1000 + 1, -ENOMEM },
	};
	unsigned long long in0, rep0, miss0, in, rep, miss;
	unsigned int i;

	if (!fault_injection_available())
		SKIP(return, "no fault injection in this kernel (std): the debug kernel runs it");
	self->settings = 1;
	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		ASSERT_EQ(0, fail_receive_at(2, 100, points[i].space, 1));
		EXPECT_EQ(points[i].ret, ics("wecho 2 1000 %u", i))
			TH_LOG("%s failed", points[i].what);
		EXPECT_EQ(0, fail_times_left(2))
			TH_LOG("%s was not allocated where the test thought",
			       points[i].what);
	}
	/* A one-way message whose job fails is taken in again, once. */
	ASSERT_EQ(0, seq_stats(2, 1, &in0, &rep0, &miss0));
	ASSERT_EQ(0, fail_receive_at(2, 100, 0, 1));
	ASSERT_EQ(0, ics("send 2 3"));
	ASSERT_EQ(0, wait_seq(2, 1, in0 + miss0, 3, 30000, &in, &rep,
			      &miss));
	EXPECT_EQ(0, fail_times_left(2));
	ASSERT_EQ(0, fail_receive(2, 0));
	EXPECT_EQ(3, in - in0);
	EXPECT_EQ(0, rep - rep0);
	EXPECT_EQ(0, miss - miss0);
	EXPECT_EQ(0, ics("wecho 2 1000 9"));
}

static void *sleep_on_2(void *arg)
{
	int *ret = arg;

	*ret = ics("sleep 2 3000 30000");
	return NULL;
}

/* The most jobs node @node had of each kind: 0, or -1. */
static int job_peaks(int node, int *requests, int *messages)
{
	char out[256];

	if (run_on(node, "cat " ICS_JOBS, out, sizeof(out)))
		return -1;
	return sscanf(out, "requests %*d peak %d messages %*d peak %d",
		      requests, messages) == 2 ? 0 : -1;
}

/*
 * ssi.max_jobs on node 2 set to 4, with a message handler slower than
 * its sender: no more than 4 messages wait for it, and none is lost or
 * repeated; of 8 calls to a handler that sleeps 3 s, those beyond the
 * 4 that wait are refused at once with ENOBUFS.
 */
TEST_F_TIMEOUT(ics, a_node_behind_on_its_handlers_keeps_its_backlog_bounded,
	       300)
{
	int count = 100, i, ok = 0, refused = 0, ret[8], req_peak, msg_peak;
	unsigned long long in0, rep0, miss0, in, rep, miss;
	pthread_t t[8];
	char text[16];

	self->settings = 1;
	/* Out of range, or no number: refused, the limit unchanged. */
	EXPECT_EQ(-EINVAL, sysfs_write(MAX_JOBS, "0"));
	EXPECT_EQ(-EINVAL, sysfs_write(MAX_JOBS, "8193"));
	EXPECT_EQ(-EINVAL, sysfs_write(MAX_JOBS, "four"));
	EXPECT_EQ(-ERANGE, sysfs_write(MAX_JOBS, "4294967296"));
	EXPECT_LT(0, sysfs_read(MAX_JOBS, text, sizeof(text)));
	EXPECT_STREQ("1024\n", text);
	ASSERT_EQ(0, seq_stats(2, 1, &in0, &rep0, &miss0));
	ASSERT_EQ(0, cluster_run(2, "echo 4 >" MAX_JOBS " && echo 20 >"
				 ICS_MSG_DELAY " && echo >" ICS_JOBS, RUN_MS,
				 NULL, 0));
	EXPECT_EQ(0, ics("send 2 %d", count));
	ASSERT_EQ(0, wait_seq(2, 1, in0 + miss0, count, 60000, &in, &rep,
			      &miss));
	EXPECT_EQ(count, in - in0);
	EXPECT_EQ(0, rep - rep0);
	EXPECT_EQ(0, miss - miss0);

	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, sleep_on_2, &ret[i]));
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		if (!ret[i])
			ok++;
		else if (ret[i] == -ENOBUFS)
			refused++;
		else
			TH_LOG("call %d: %s", i, strerror(-ret[i]));
	}
	EXPECT_EQ(0, job_peaks(2, &req_peak, &msg_peak));
	EXPECT_EQ(0, cluster_run(2, "echo 1024 >" MAX_JOBS " && echo 0 >"
				 ICS_MSG_DELAY, RUN_MS, NULL, 0));
	TH_LOG("%d calls answered, %d refused; at most %d requests and %d messages waited",
	       ok, refused, req_peak, msg_peak);
	EXPECT_EQ(8, ok + refused);
	EXPECT_LE(4, ok);
	EXPECT_LE(1, refused);
	EXPECT_EQ(4, req_peak);
	EXPECT_EQ(4, msg_peak);
	EXPECT_EQ(0, ics("wecho 2 1000 1"));
}

/*
 * A handler that must not call gets EDEADLK: a quick one (the reading
 * work runs it, and would wait for itself) and a one-way message's
 * (messages queue behind it).  The kernel warns at the first, once: the
 * once is reset first, and only node 1, whose log the test announces the
 * warning to, is asked.
 */
TEST_F(ics, a_handler_that_may_not_call_gets_edeadlk)
{
	ASSERT_EQ(0, sysfs_write("/sys/kernel/debug/clear_warn_once", "1"));
	ASSERT_EQ(0, expect_kernel_warning("ics_call"));
	EXPECT_EQ(-EDEADLK, ics("quickcall 1"));
	EXPECT_EQ(-EDEADLK, ics("msgcall"));
	/* The work and the message handler go on. */
	EXPECT_EQ(0, ics("echo 1 64 1"));
	EXPECT_EQ(-EDEADLK, ics("msgcall"));
}

TEST_HARNESS_MAIN
