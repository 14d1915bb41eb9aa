// SPDX-License-Identifier: GPL-2.0
/* rig self-test: panics on load. */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/panic.h>

static int __init rig_panic_init(void)
{
	panic("rig self-test: panic on purpose");
	return 0;
}

module_init(rig_panic_init);
MODULE_DESCRIPTION("rig self-test: panics on load");
MODULE_LICENSE("GPL");
