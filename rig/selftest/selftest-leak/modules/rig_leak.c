// SPDX-License-Identifier: GPL-2.0
/* rig self-test: allocates on load and forgets the pointer, for kmemleak to report. */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static int __init rig_leak_init(void)
{
	char *volatile p;

	p = kmalloc(128, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, 128);
	p = NULL;
	return 0;
}

static void __exit rig_leak_exit(void)
{
}

module_init(rig_leak_init);
module_exit(rig_leak_exit);
MODULE_DESCRIPTION("rig self-test: leaks an allocation");
MODULE_LICENSE("GPL");
