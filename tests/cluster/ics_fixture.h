/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ics fixture of the cluster tests: ics_test loaded on the NODES
 * nodes for each test, after what an earlier test may have left is put
 * back (ics_recover()).  After it: node 3 booted again if the test left
 * it down, a failure; fail_ics_receive and ssi.max_jobs put back after a
 * test that sets settings (one that changes them); and no call left
 * waiting for a reply on node 1, or on every node after a test that sets
 * remote_calls (one whose handlers or other nodes call; asking a node
 * through its agent takes a second or two on the debug kernel).  Include
 * after kselftest_harness.h, with NODES defined.
 */
#ifndef CLUSTER_ICS_FIXTURE_H
#define CLUSTER_ICS_FIXTURE_H

FIXTURE(ics) {
	int loaded;
	int remote_calls;
	int settings;
};

/*
 * What a test may have left, failing half-way or timed out (the harness
 * then kills it, and its teardown does not run): fail_ics_receive on (the
 * debug kernel) or ssi.max_jobs low on nodes 1 to @last (the tests change
 * them on nodes 1 and 2); node 3 down, its link down or its QEMU killed.
 * Put back, in that order: fail_ics_receive at 100% holds node 1's
 * reading.  A node 3 left down fails the test when @down_fails.
 */
static void ics_recover(struct __test_metadata *_metadata, int last,
			int down_fails)
{
	unsigned long all = (1UL << (NODES + 1)) - 2;
	struct view views[NODES + 1];
	struct view v;
	int node;

	for (node = 1; node <= last; node++)
		EXPECT_EQ(0, run_on(node, "echo 1024 >" MAX_JOBS " && { ! test -e "
				    FAIL_RECEIVE " || echo 0 >" FAIL_RECEIVE
				    "/probability; }", NULL, 0))
			TH_LOG("node %d", node);
	/* The link test's: node 1's membership held up, node 3's link. */
	if (last > 1) {
		ics("release");
		cluster_run(3, "ip link set eth0 up", 5000, NULL, 0);
	}
	if (node_view(cluster_self(), &v, RUN_MS)) {
		EXPECT_TRUE(0) TH_LOG("cannot read node %d's view of the cluster",
				      cluster_self());
		return;
	}
	if (v.state[3] != 'd')
		return;
	if (down_fails)
		EXPECT_NE('d', v.state[3]) TH_LOG("node 3 was left down");
	/* Its link brought up; if it is not running, it is started. */
	cluster_run(3, "ip link set eth0 up", 5000, NULL, 0);
	if (!wait_agreement(all, NODES, 10000, views)) {
		/* Running out of the cluster (bad parameters): booted again. */
		cluster_ctl("kill 3");
		cluster_ctl("start 3");
		cluster_run(3, "true", BOOT_MS, NULL, 0);
		EXPECT_NE(0, wait_agreement(all, NODES, 10000, views));
	}
	EXPECT_EQ(0, ics_test_load(NODES));
}

FIXTURE_SETUP(ics)
{
	/* Node 1's settings: read here, at no cost. */
	ics_recover(_metadata, 1, 0);
	ASSERT_EQ(0, ics_test_load(NODES));
	self->loaded = 1;
}

FIXTURE_TEARDOWN(ics)
{
	int node;

	ics_recover(_metadata, self->settings ? 2 : 0, 1);
	for (node = 1; node <= (self->remote_calls ? NODES : 1); node++) {
		EXPECT_EQ(0, calls_left(node, 3000)) TH_LOG("node %d", node);
	}
	if (self->loaded)
		EXPECT_EQ(0, ics_test_unload(NODES));
}

#endif
