// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/parameters/<mod> comes with the module's load and goes with its
 * unload or its failed load, every time; 1,000 rounds (250 on the debug
 * kernel, where each is about ten times slower) leave no entry behind (and, on
 * the debug kernel, no leak for kmemleak to find).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "sysparams.h"
#include "variant.h"

#define LINK	"/sys/parameters/" TEST_MOD

TEST(entry_appears_at_load_and_goes_at_unload)
{
	struct stat st;

	ASSERT_TRUE(gone(LINK));
	ASSERT_EQ(0, load_module(TEST_KO, NULL));
	/* EXPECT: the module is unloaded whatever the link is */
	EXPECT_EQ(0, lstat(LINK, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	EXPECT_EQ(0, access(LINK "/p_int", R_OK));
	ASSERT_EQ(0, unload_module(TEST_MOD));
	EXPECT_TRUE(gone(LINK));
	EXPECT_TRUE(gone("/sys/module/" TEST_MOD));
}

/*
 * fail_init=1 makes the init function fail after sysfs was set up, with
 * ENODEV only if it found the link there: the link was made, then removed.
 */
TEST(failed_init_removes_the_entry)
{
	EXPECT_EQ(-1, load_module(TEST_KO, "fail_init=1"));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_TRUE(gone(LINK));
	EXPECT_TRUE(gone("/sys/module/" TEST_MOD));
	/* and nothing stale stops the next load */
	ASSERT_EQ(0, load_module(TEST_KO, NULL));
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

/* Refused by parse_args(), before sysfs: there was never a link. */
TEST(rejected_load_parameter_leaves_no_entry)
{
	EXPECT_EQ(-1, load_module(TEST_KO, "p_int=abc"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_TRUE(gone(LINK));
	EXPECT_TRUE(gone("/sys/module/" TEST_MOD));
}

/* A fixture only to give the loop more than the harness's default 30 s. */
FIXTURE(rounds) {
};

FIXTURE_SETUP(rounds)
{
}

FIXTURE_TEARDOWN(rounds)
{
}

TEST_F_TIMEOUT(rounds, repeated_loads_and_unloads_leave_nothing, 300)
{
	struct timespec t0, t1;
	char buf[32];
	int i, missing = 0, stale = 0;
	const int cycles = rig_rounds(1000, 250);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < cycles; i++) {
		if (i % 2) {
			/* Every other round fails in init, after sysfs setup. */
			ASSERT_EQ(-1, load_module(TEST_KO, "fail_init=1"));
			ASSERT_EQ(ENODEV, errno) TH_LOG("round %d", i);
		} else {
			ASSERT_EQ(0, load_module(TEST_KO, NULL))
				TH_LOG("round %d: %s", i, strerror(errno));
			if (sysfs_read(LINK "/p_int", buf, sizeof(buf)) <= 0)
				missing++;
			ASSERT_EQ(0, unload_module(TEST_MOD))
				TH_LOG("round %d: %s", i, strerror(errno));
		}
		if (!gone(LINK))
			stale++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%d rounds in %.1f s", cycles,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	EXPECT_EQ(0, missing);
	EXPECT_EQ(0, stale);
}

TEST_HARNESS_MAIN
