/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ics fixture of the cluster tests: ics_test loaded on the NODES
 * nodes for each test, and after it no call left waiting for a reply on
 * node 1, or on every node after a test that sets remote_calls (one
 * whose handlers or other nodes call; asking a node through its agent
 * takes a second or two on the debug kernel).  Include after
 * kselftest_harness.h, with NODES defined.
 */
#ifndef CLUSTER_ICS_FIXTURE_H
#define CLUSTER_ICS_FIXTURE_H

FIXTURE(ics) {
	int loaded;
	int remote_calls;
};

FIXTURE_SETUP(ics)
{
	ASSERT_EQ(0, ics_test_load(NODES));
	self->loaded = 1;
}

FIXTURE_TEARDOWN(ics)
{
	int node;

	for (node = 1; node <= (self->remote_calls ? NODES : 1); node++) {
		EXPECT_EQ(0, calls_left(node, 3000)) TH_LOG("node %d", node);
	}
	if (self->loaded)
		EXPECT_EQ(0, ics_test_unload(NODES));
}

#endif
