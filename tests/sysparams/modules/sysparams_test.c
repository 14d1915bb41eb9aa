// SPDX-License-Identifier: GPL-2.0
/*
 * sysparams_test: one parameter of every type kernel/params.c offers, with
 * a mix of permissions, for the /sys/parameters tests.  The expected default
 * of each is in the tests (tests/sysparams/param_types.c).
 */
#include <linux/delay.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/path.h>

static int p_int = -7;
module_param(p_int, int, 0644);
static unsigned int p_uint = 7;
module_param(p_uint, uint, 0644);
static long p_long = -70000;
module_param(p_long, long, 0644);
static unsigned long p_ulong = 70000;
module_param(p_ulong, ulong, 0600);
static short p_short = -3;
module_param(p_short, short, 0644);
static unsigned short p_ushort = 3;
module_param(p_ushort, ushort, 0640);
static unsigned char p_byte = 200;
module_param(p_byte, byte, 0644);
static bool p_bool = true;
module_param(p_bool, bool, 0644);
static bool p_invbool;
module_param(p_invbool, invbool, 0644);
static int p_bint = 1;
module_param(p_bint, bint, 0644);
static unsigned int p_hexint = 0xbeef;
module_param(p_hexint, hexint, 0644);
static char *p_charp = "hello";
module_param(p_charp, charp, 0644);
static char p_string[8] = "world";
module_param_string(p_string, p_string, sizeof(p_string), 0644);
static int p_array[4] = { 1, 2, 3, 4 };
static unsigned int p_array_num = 4;
module_param_array(p_array, int, &p_array_num, 0644);
/* Allocating elements: a rejected write must free what it parsed. */
static char *p_names[3] = { "a", "b" };
static unsigned int p_names_num = 2;
module_param_array(p_names, charp, &p_names_num, 0644);
/* A set op that looks at the old value: a set element cannot be cleared. */
static bool p_once[2] = { true, false };
module_param_array(p_once, bool_enable_only, NULL, 0644);
static int p_ro = 5;
module_param(p_ro, int, 0444);
static int p_hidden = 9;
module_param(p_hidden, int, 0);

/* A custom type that only takes even numbers. */
static int p_even = 2;

static int even_set(const char *val, const struct kernel_param *kp)
{
	int n, err;

	err = kstrtoint(val, 0, &n);
	if (err)
		return err;
	if (n % 2)
		return -EINVAL;
	*(int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops even_ops = {
	.set = even_set,
	.get = param_get_int,
};
module_param_cb(p_even, &even_ops, &p_even, 0644);

/* An int whose reads take a millisecond, to hold a show open across rmmod. */
static int p_slow = 1;

static int slow_get(char *buf, const struct kernel_param *kp)
{
	msleep(1);
	return param_get_int(buf, kp);
}

static const struct kernel_param_ops slow_ops = {
	.set = param_set_int,
	.get = slow_get,
};
module_param_cb(p_slow, &slow_ops, &p_slow, 0644);

/*
 * Makes the load fail after the parameters were added to sysfs: with
 * ENODEV if /sys/parameters/sysparams_test was there by then, so that a
 * test seeing it gone afterwards knows it was removed, ESRCH if not.
 */
static bool fail_init;
module_param(fail_init, bool, 0444);

static int __init sysparams_test_init(void)
{
	struct path path;

	if (!fail_init)
		return 0;
	if (kern_path("/sys/parameters/" KBUILD_MODNAME, 0, &path))
		return -ESRCH;
	path_put(&path);
	return -ENODEV;
}

static void __exit sysparams_test_exit(void)
{
}

module_init(sysparams_test_init);
module_exit(sysparams_test_exit);
MODULE_DESCRIPTION("Parameters of every type, for the /sys/parameters tests");
MODULE_LICENSE("GPL");
