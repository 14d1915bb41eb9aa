// SPDX-License-Identifier: GPL-2.0
/*
 * rig self-test: on a cluster of two, node 1's test has node 2 load a
 * module that oopses; the run must fail for node 2's kernel report.
 */
#include "cluster.h"
#include "kselftest_harness.h"

TEST(node_2_loads_a_module_that_oopses)
{
	char out[512];

	/* insmod dies in the oops: its status is not the point. */
	cluster_run(2, "insmod /modules/selftest-node-oops/rig_node_oops.ko",
		    60000, out, sizeof(out));
	TH_LOG("node 2: %s", out);
}

TEST_HARNESS_MAIN
