// SPDX-License-Identifier: GPL-2.0
/*
 * rig self-test: allocates on load and forgets the pointers, for kmemleak to
 * report.  Several objects, because the last pointer can stay behind in a
 * cached (not cleared) task stack, which kmemleak scans and takes for a
 * reference.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#define RIG_LEAKS	8

static noinline int rig_leak_one(void)
{
	char *p = kmalloc(128, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, 128);
	return 0;
}

static int __init rig_leak_init(void)
{
	int i, err;

	for (i = 0; i < RIG_LEAKS; i++) {
		err = rig_leak_one();
		if (err)
			return err;
	}
	return 0;
}

static void __exit rig_leak_exit(void)
{
}

module_init(rig_leak_init);
module_exit(rig_leak_exit);
MODULE_DESCRIPTION("rig self-test: leaks allocations");
MODULE_LICENSE("GPL");
