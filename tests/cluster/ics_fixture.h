/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ics fixture of the cluster tests: ics_test loaded on the NODES
 * nodes for each test, and after it no node with a call left waiting for
 * a reply, its own or a handler's.  Include after kselftest_harness.h,
 * with NODES defined.
 */
#ifndef CLUSTER_ICS_FIXTURE_H
#define CLUSTER_ICS_FIXTURE_H

FIXTURE(ics) {
	int loaded;
};

FIXTURE_SETUP(ics)
{
	ASSERT_EQ(0, ics_test_load(NODES));
	self->loaded = 1;
}

FIXTURE_TEARDOWN(ics)
{
	int node;

	for (node = 1; node <= NODES; node++) {
		EXPECT_EQ(0, calls_left(node, 3000)) TH_LOG("node %d", node);
	}
	if (self->loaded)
		EXPECT_EQ(0, ics_test_unload(NODES));
}

#endif
