// SPDX-License-Identifier: GPL-2.0
/* rig self-test: oopses on load, on node 2 of a cluster (a NULL pointer dereference). */
#include <linux/init.h>
#include <linux/module.h>

static int __init rig_node_oops_init(void)
{
	int *volatile p = NULL;

	return *p;
}

module_init(rig_node_oops_init);
MODULE_DESCRIPTION("rig self-test: oopses on load, on another node than the tests'");
MODULE_LICENSE("GPL");
