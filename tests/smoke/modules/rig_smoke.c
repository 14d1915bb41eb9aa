// SPDX-License-Identifier: GPL-2.0
/*
 * rig_smoke: the smallest module a guest test can load, to prove that
 * modules built against build/linux load and unload in the guest.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static int answer = 42;
module_param(answer, int, 0444);
MODULE_PARM_DESC(answer, "A value the test reads back from sysfs");

static int __init rig_smoke_init(void)
{
	pr_info("rig_smoke: loaded, answer=%d\n", answer);
	return 0;
}

static void __exit rig_smoke_exit(void)
{
	pr_info("rig_smoke: unloaded\n");
}

module_init(rig_smoke_init);
module_exit(rig_smoke_exit);
MODULE_DESCRIPTION("Smoke-test module of the lwn2004 rig");
MODULE_LICENSE("GPL");
