// SPDX-License-Identifier: GPL-2.0
/*
 * Every parameter type reads the same through /sys/parameters and
 * /sys/module, and a value written through either path reads back through
 * the other, both formatted by the type's own get op.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "sysparams.h"

FIXTURE(types) {
	char tree[128];
	char module[128];
};

/*
 * dflt: what sysparams_test.ko starts with; set1 is written through
 * /sys/parameters and got1 read back through /sys/module, set2 the other
 * way round.  set2 ends in a newline, as echo writes it.
 */
FIXTURE_VARIANT(types) {
	const char *param, *dflt, *set1, *got1, *set2, *got2;
};

#define TYPE(p, d, s1, g1, s2, g2)					\
	FIXTURE_VARIANT_ADD(types, p) {					\
		.param = #p, .dflt = d, .set1 = s1, .got1 = g1,		\
		.set2 = s2, .got2 = g2,					\
	}

TYPE(p_int, "-7\n", "-2147483648", "-2147483648\n", "123\n", "123\n");
TYPE(p_uint, "7\n", "4294967295", "4294967295\n", "0x10\n", "16\n");
TYPE(p_long, "-70000\n", "-9223372036854775808", "-9223372036854775808\n",
     "5\n", "5\n");
TYPE(p_ulong, "70000\n", "18446744073709551615", "18446744073709551615\n",
     "0\n", "0\n");
TYPE(p_short, "-3\n", "-32768", "-32768\n", "32767\n", "32767\n");
TYPE(p_ushort, "3\n", "65535", "65535\n", "0\n", "0\n");
TYPE(p_byte, "200\n", "255", "255\n", "0\n", "0\n");
TYPE(p_bool, "Y\n", "n", "N\n", "1\n", "Y\n");
TYPE(p_invbool, "Y\n", "n", "N\n", "y\n", "Y\n");
TYPE(p_bint, "1\n", "0", "0\n", "y\n", "1\n");
TYPE(p_hexint, "0x00beef\n", "255", "0x0000ff\n", "0x12345678\n",
     "0x12345678\n");
TYPE(p_charp, "hello\n", "abc def", "abc def\n", "x", "x\n");
TYPE(p_string, "world\n", "1234567", "1234567\n", "s\n", "s\n\n");
TYPE(p_array, "1,2,3,4\n", "9,8", "9,8\n", "5,6,7,-1\n", "5,6,7,-1\n");
TYPE(p_names, "a,b\n", "x,yy,zzz", "x,yy,zzz\n", "q", "q\n");
TYPE(p_once, "Y,N\n", "Y,Y", "Y,Y\n", "1,1", "Y,Y\n");
TYPE(p_even, "2\n", "4", "4\n", "-10\n", "-10\n");
TYPE(p_slow, "1\n", "2", "2\n", "3\n", "3\n");

FIXTURE_SETUP(types)
{
	ASSERT_EQ(0, load_module(TEST_KO, NULL))
		TH_LOG("finit_module %s: %s", TEST_KO, strerror(errno));
	tree_path(self->tree, sizeof(self->tree), TEST_MOD, variant->param);
	module_path(self->module, sizeof(self->module), TEST_MOD,
		    variant->param);
}

FIXTURE_TEARDOWN(types)
{
	EXPECT_EQ(0, unload_module(TEST_MOD))
		TH_LOG("delete_module: %s", strerror(errno));
}

TEST_F(types, default_reads_the_same_both_ways)
{
	char buf[256];

	ASSERT_LT(0, sysfs_read(self->tree, buf, sizeof(buf)))
		TH_LOG("%s: %s", self->tree, strerror(errno));
	EXPECT_STREQ(variant->dflt, buf);
	ASSERT_LT(0, sysfs_read(self->module, buf, sizeof(buf)));
	EXPECT_STREQ(variant->dflt, buf);
}

TEST_F(types, written_through_the_tree_reads_back_in_sys_module)
{
	char buf[256];

	ASSERT_EQ(0, sysfs_write(self->tree, variant->set1));
	ASSERT_LT(0, sysfs_read(self->module, buf, sizeof(buf)));
	EXPECT_STREQ(variant->got1, buf);
}

TEST_F(types, written_through_sys_module_reads_back_in_the_tree)
{
	char buf[256];

	ASSERT_EQ(0, sysfs_write(self->module, variant->set2));
	ASSERT_LT(0, sysfs_read(self->tree, buf, sizeof(buf)));
	EXPECT_STREQ(variant->got2, buf);
}

TEST_HARNESS_MAIN
