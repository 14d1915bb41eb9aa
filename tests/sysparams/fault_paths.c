// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/parameters' entry points with each allocation of the calling thread
 * failing in turn (tests/lib/fault.h, the debug kernel only): loading a
 * module with parameters, which adds its /sys/parameters link, and writing
 * an array of charp, which parses into a scratch array (patch 0001).
 * A failed load leaves no /sys/module entry and no link; a failed write
 * leaves the array as it was.  The rig's kmemleak scan and log checker see
 * leaks and kernel reports.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "fault.h"
#include "sysfs_file.h"
#include "sysparams.h"
#include "variant.h"

#define LINK		"/sys/parameters/" TEST_MOD
#define MODDIR		"/sys/module/" TEST_MOD
#define NAMES		MODDIR "/parameters/p_names"
#define LOAD_PARAMS	"p_array=5,6 p_names=x,yy"

FIXTURE(fault) {
};

FIXTURE_SETUP(fault)
{
	if (!rig_debug_kernel())
		SKIP(return, "fault injection runs on the debug kernel only");
	ASSERT_TRUE(fault_injection_available());
	ASSERT_EQ(0, fault_injection_setup());
	ASSERT_TRUE(gone(MODDIR));
}

/* In the parent: an ASSERT's longjmp can lose the grandchild's teardown. */
FIXTURE_TEARDOWN_PARENT(fault)
{
	if (rig_debug_kernel() && !gone(MODDIR))
		unload_module(TEST_MOD);
}

static int load_op(void *arg)
{
	return load_module(TEST_KO, LOAD_PARAMS) ? -errno : 0;
}

/*
 * A failed load left nothing.  One that succeeded has its link (a load
 * must not succeed without it) and is unloaded again.
 */
static int not_loaded(void *arg, int err)
{
	if (!err && gone(LINK))
		return -ENOENT;
	if (!err && unload_module(TEST_MOD))
		return -errno;
	if (!gone(LINK) || !gone(MODDIR))
		return -EEXIST;
	return 0;
}

TEST_F_TIMEOUT(fault, a_failed_load_leaves_no_module_and_no_link, 600)
{
	struct fault_run run;
	char buf[64];
	int ret;

	ret = fault_loop(load_op, not_loaded, NULL, 5000, &run);
	ASSERT_EQ(0, fault_loop_report("finit_module(\"" LOAD_PARAMS "\")",
				       ret, &run));
	EXPECT_LT(0, run.failed);
	/* the clean load has its parameters and its link */
	ASSERT_LT(0, sysfs_read(LINK "/p_names", buf, sizeof(buf)));
	EXPECT_STREQ("x,yy\n", buf);
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

static int write_op(void *arg)
{
	return sysfs_write(NAMES, "x,yy,zzz");
}

/* A failed write left "a,b"; one that succeeded is written back. */
static int unchanged(void *arg, int err)
{
	char buf[64];
	int ret;

	if (!err) {
		ret = sysfs_write(NAMES, "a,b");
		if (ret)
			return ret;
	}
	ret = sysfs_read(NAMES, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	if (strcmp(buf, "a,b\n")) {
		fprintf(stderr, "# p_names reads \"%s\" after the try\n", buf);
		return -EPROTO;
	}
	return 0;
}

TEST_F(fault, a_failed_array_write_leaves_the_array_as_it_was)
{
	struct fault_run run;
	char buf[64];
	int ret;

	ASSERT_EQ(0, load_module(TEST_KO, NULL));
	ret = fault_loop(write_op, unchanged, NULL, 200, &run);
	ASSERT_EQ(0, fault_loop_report("write of a charp array", ret, &run));
	EXPECT_LT(0, run.failed);
	ASSERT_LT(0, sysfs_read(NAMES, buf, sizeof(buf)));
	EXPECT_STREQ("x,yy,zzz\n", buf);
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

TEST_HARNESS_MAIN
