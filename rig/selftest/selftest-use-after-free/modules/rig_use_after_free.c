// SPDX-License-Identifier: GPL-2.0
/* rig self-test: reads freed memory on load, for KASAN to report. */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

static int __init rig_use_after_free_init(void)
{
	char *volatile p;
	char c;

	p = kmalloc(64, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p[0] = 'x';
	kfree(p);
	c = p[8];
	pr_info("rig_use_after_free: read %d from freed memory\n", c);
	return 0;
}

static void __exit rig_use_after_free_exit(void)
{
}

module_init(rig_use_after_free_init);
module_exit(rig_use_after_free_exit);
MODULE_DESCRIPTION("rig self-test: use after free");
MODULE_LICENSE("GPL");
