// SPDX-License-Identifier: GPL-2.0
/* rig self-test: oopses on load with a NULL pointer dereference. */
#include <linux/init.h>
#include <linux/module.h>

static int __init rig_oops_init(void)
{
	int *volatile p = NULL;

	return *p;
}

module_init(rig_oops_init);
MODULE_DESCRIPTION("rig self-test: oopses on load");
MODULE_LICENSE("GPL");
