// SPDX-License-Identifier: GPL-2.0
/*
 * sysparams_none: a module whose only parameter has permission 0, so it has
 * /sys/module/sysparams_none but no parameters directory and no entry in
 * /sys/parameters.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static int hidden = 1;
module_param(hidden, int, 0);

static int __init sysparams_none_init(void)
{
	return 0;
}

static void __exit sysparams_none_exit(void)
{
}

module_init(sysparams_none_init);
module_exit(sysparams_none_exit);
MODULE_DESCRIPTION("A module without visible parameters, for the /sys/parameters tests");
MODULE_LICENSE("GPL");
