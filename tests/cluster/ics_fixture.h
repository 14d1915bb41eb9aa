/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ics fixture of the cluster tests: ics_test loaded on the NODES
 * nodes for each test.  After it: node 3 booted again if the test left
 * it down; fail_ics_receive and ssi.max_jobs put back after a test that
 * sets settings (one that changes them); and no call left waiting for a
 * reply on node 1, or on every node after a test that sets remote_calls
 * (one whose handlers or other nodes call; asking a node through its
 * agent takes a second or two on the debug kernel).  Include after
 * kselftest_harness.h, with NODES defined.
 */
#ifndef CLUSTER_ICS_FIXTURE_H
#define CLUSTER_ICS_FIXTURE_H

FIXTURE(ics) {
	int loaded;
	int remote_calls;
	int settings;
};

FIXTURE_SETUP(ics)
{
	ASSERT_EQ(0, ics_test_load(NODES));
	self->loaded = 1;
}

/*
 * What a test that failed half-way may have left: node 3 down, and with
 * @settings, fail_ics_receive on (the debug kernel) or ssi.max_jobs low.
 */
static void ics_settings_reset(struct __test_metadata *_metadata,
			       int settings)
{
	struct view views[NODES + 1];
	struct view v;
	int node;

	if (node_view(cluster_self(), &v, RUN_MS) == 0 && v.state[3] == 'd') {
		TH_LOG("node 3 is down: starting it again");
		EXPECT_EQ(0, cluster_ctl("start 3"));
		EXPECT_EQ(0, cluster_run(3, "true", BOOT_MS, NULL, 0));
		EXPECT_NE(0, wait_agreement((1UL << (NODES + 1)) - 2, NODES,
					    10000, views));
		EXPECT_EQ(0, ics_test_load(NODES));
	}
	for (node = 1; settings && node <= NODES; node++)
		EXPECT_EQ(0, run_on(node, "echo 1024 >" MAX_JOBS " && { ! test -e "
				    FAIL_RECEIVE " || echo 0 >" FAIL_RECEIVE
				    "/probability; }", NULL, 0))
			TH_LOG("node %d", node);
}

FIXTURE_TEARDOWN(ics)
{
	int node;

	ics_settings_reset(_metadata, self->settings);
	for (node = 1; node <= (self->remote_calls ? NODES : 1); node++) {
		EXPECT_EQ(0, calls_left(node, 3000)) TH_LOG("node %d", node);
	}
	if (self->loaded)
		EXPECT_EQ(0, ics_test_unload(NODES));
}

#endif
