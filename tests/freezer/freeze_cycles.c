// SPDX-License-Identifier: GPL-2.0
/*
 * 100 freeze cycles in a row while a thread keeps creating and stopping
 * freezable and non-freezable threads, kthread workers and workqueues:
 * every cycle freezes (no EBUSY, no "Freezing ... failed"), the churn goes
 * on between them and inside them (every 25th freeze is held for a second,
 * long enough for the churn to create and destroy freezable workqueues and
 * threads there, and for the 1-jiffy actors to be caught if they ran), and
 * nothing freezable ran in any of the 100 windows.
 */
#include "kselftest_harness.h"
#include "freezer_test.h"

#define CYCLES 100

FIXTURE(cycles) {
};

FIXTURE_SETUP(cycles)
{
	ASSERT_EQ(0, probe_load());
}

FIXTURE_TEARDOWN(cycles)
{
	EXPECT_EQ(0, probe_unload());
}

/*
 * Nothing here is timed; the harness's 30 s were too few for the debug
 * kernel on a slow host (78 cycles done, each held one taking 4 s).
 */
TEST_F_TIMEOUT(cycles, hundred_freezes_with_threads_coming_and_going, 300)
{
	struct probe_report r;
	int failed_before;
	int i, err = 0;
	static const char *const held_back[] = {
		"fzp_thread_frz", "fzp_thread_late", "fzp_worker_frz", "fzwqf",
	};

	failed_before = kmsg_count(" failed after ");
	ASSERT_LE(0, failed_before);
	ASSERT_EQ(0, probe_ctl("churn on"));
	for (i = 0; i < CYCLES && !err; i++)
		err = freeze_cycle(i % 25 ? 0 : 1);
	EXPECT_EQ(0, probe_ctl("churn off"));
	ASSERT_EQ(0, err) TH_LOG("cycle %d of %d failed: %d", i, CYCLES, err);

	ASSERT_EQ(0, probe_read(&r));
	EXPECT_EQ(CYCLES, r.windows);
	EXPECT_EQ(0, r.churn_errors);
	/*
	 * The churn made progress between the freezes, and inside them: rounds
	 * started in a window made and destroyed freezable workqueues there.
	 */
	EXPECT_LT(0, r.churn_rounds);
	EXPECT_LT(0, r.churn_rounds_in_window);
	for (i = 0; i < 4; i++) {
		const struct actor *a = find_actor(&r, held_back[i]);

		ASSERT_NE(NULL, a);
		EXPECT_EQ(0, a->runs_in_window)
			TH_LOG("%s ran %d times inside the windows", a->name,
			       a->runs_in_window);
	}
	EXPECT_EQ(failed_before, kmsg_count(" failed after "));
}

TEST_HARNESS_MAIN
