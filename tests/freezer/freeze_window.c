// SPDX-License-Identifier: GPL-2.0
/*
 * One freeze held for a second, watched by freezer_probe: what is freezable
 * makes no progress inside the window and is frozen when the thaw begins,
 * what is not keeps running, and a thread created freezable inside the
 * window (or created before it and woken inside it) runs only after thaw,
 * while one that calls set_freezable() from its function does work in the
 * window before it gets there.  A thread frozen before its function and
 * stopped inside the window still runs its function, and kthread_stop()
 * returns what the function returned.
 */
#include <time.h>

#include "kselftest_harness.h"
#include "freezer_test.h"

/* The freeze is held this long: long enough for 1 ms actors to run. */
#define HOLD_S 1

FIXTURE(window) {
	struct probe_report r;
};

FIXTURE_SETUP(window)
{
	struct timespec settle = { 0, 300 * 1000 * 1000 };

	ASSERT_EQ(0, probe_load());
	/* A freezable thread created now, woken by the module in the window. */
	ASSERT_EQ(0, probe_ctl("hold"));
	/* Another, stopped in the window once it is frozen. */
	ASSERT_EQ(0, probe_ctl("stophold"));
	ASSERT_EQ(0, freeze_cycle(HOLD_S));
	/* Let what was held back after the thaw run. */
	nanosleep(&settle, NULL);
	ASSERT_EQ(0, probe_read(&self->r));
	ASSERT_EQ(1, self->r.windows);
}

FIXTURE_TEARDOWN(window)
{
	EXPECT_EQ(0, probe_unload());
}

static void check_held_back(struct __test_metadata *_metadata,
			    const struct probe_report *r, const char *name)
{
	const struct actor *a = find_actor(r, name);

	ASSERT_NE(NULL, a) TH_LOG("no actor %s in the report", name);
	ASSERT_EQ(1, a->freezable);
	EXPECT_EQ(0, a->runs_in_window)
		TH_LOG("%s ran %d times in the window", name, a->runs_in_window);
	/* It did run outside it: the counter is alive. */
	EXPECT_LT(0, a->runs) TH_LOG("%s never ran", name);
}

static void check_kept_running(struct __test_metadata *_metadata,
			       const struct probe_report *r, const char *name)
{
	const struct actor *a = find_actor(r, name);

	ASSERT_NE(NULL, a) TH_LOG("no actor %s in the report", name);
	ASSERT_EQ(0, a->freezable);
	EXPECT_LT(0, a->runs_in_window)
		TH_LOG("%s did not run in the window (%d runs in all)", name,
		       a->runs);
}

static void check_frozen_at_thaw(struct __test_metadata *_metadata,
				 const struct probe_report *r, const char *name,
				 int frozen)
{
	const struct actor *a = find_actor(r, name);

	ASSERT_NE(NULL, a) TH_LOG("no actor %s in the report", name);
	EXPECT_EQ(frozen, a->frozen_at_thaw)
		TH_LOG("%s: frozen when the thaw began: expected %d, got %d",
		       name, frozen, a->frozen_at_thaw);
}

/* A freezable thread made inside the window: ran after it, frozen in it. */
static void check_spawn(struct __test_metadata *_metadata,
			const struct probe_report *r, const char *name,
			int created_in_window)
{
	const struct spawn *s = find_spawn(r, name);

	ASSERT_NE(NULL, s) TH_LOG("no spawn %s in the report", name);
	ASSERT_EQ(0, s->err) TH_LOG("creating %s failed: %d", name, s->err);
	EXPECT_EQ(created_in_window, s->created_in_window);
	ASSERT_NE(0, s->first_run_ns) TH_LOG("%s never ran its function", name);
	EXPECT_EQ(0, s->ran_in_window);
	/* The clock may be coarse: the same tick as the thaw is after it. */
	EXPECT_LE(r->close_ns, s->first_run_ns)
		TH_LOG("%s ran at %llu, the window closed at %llu", name,
		       s->first_run_ns, r->close_ns);
	/* Counted as frozen: it was in the refrigerator when thaw began. */
	EXPECT_EQ(1, s->frozen_at_thaw);
}

TEST_F(window, freeze_window_was_held_for_pm_test_delay)
{
	unsigned long long len = self->r.close_ns - self->r.open_ns;

	ASSERT_LT(0, self->r.open_ns);
	ASSERT_LT(self->r.open_ns, self->r.close_ns);
	EXPECT_LE(HOLD_S * 1000000000ULL * 9 / 10, len)
		TH_LOG("window lasted %llu ns", len);
}

TEST_F(window, thread_created_freezable_made_no_progress)
{
	check_held_back(_metadata, &self->r, "fzp_thread_frz");
}

TEST_F(window, thread_made_freezable_late_made_no_progress)
{
	check_held_back(_metadata, &self->r, "fzp_thread_late");
}

TEST_F(window, non_freezable_thread_kept_running)
{
	check_kept_running(_metadata, &self->r, "fzp_thread_nofrz");
}

TEST_F(window, freezable_kthread_worker_made_no_progress)
{
	check_held_back(_metadata, &self->r, "fzp_worker_frz");
}

TEST_F(window, non_freezable_kthread_worker_kept_running)
{
	check_kept_running(_metadata, &self->r, "fzp_worker_nofrz");
}

TEST_F(window, work_on_freezable_workqueue_ran_only_after_thaw)
{
	check_held_back(_metadata, &self->r, "fzwqf");
}

TEST_F(window, work_on_non_freezable_workqueue_kept_running)
{
	check_kept_running(_metadata, &self->r, "fzwqn");
}

TEST_F(window, freezable_tasks_were_frozen_when_thaw_began)
{
	check_frozen_at_thaw(_metadata, &self->r, "fzp_thread_frz", 1);
	check_frozen_at_thaw(_metadata, &self->r, "fzp_thread_late", 1);
	check_frozen_at_thaw(_metadata, &self->r, "fzp_worker_frz", 1);
	check_frozen_at_thaw(_metadata, &self->r, "fzp_thread_nofrz", 0);
	check_frozen_at_thaw(_metadata, &self->r, "fzp_worker_nofrz", 0);
}

TEST_F(window, rescuers_are_never_frozen)
{
	/* destroy_workqueue() must be able to stop them inside a freeze. */
	check_frozen_at_thaw(_metadata, &self->r, "kworker/R-fzwqf", 0);
	check_frozen_at_thaw(_metadata, &self->r, "kworker/R-fzwqn", 0);
}

TEST_F(window, thread_created_in_window_by_a_thread_ran_after_thaw)
{
	check_spawn(_metadata, &self->r, "fzp_spawn_thread", 1);
}

TEST_F(window, thread_created_in_window_from_a_timer_ran_after_thaw)
{
	check_spawn(_metadata, &self->r, "fzp_spawn_timer", 1);
}

TEST_F(window, thread_created_before_and_woken_in_window_ran_after_thaw)
{
	check_spawn(_metadata, &self->r, "fzp_held", 0);
}

/*
 * The difference the flag makes: created in the same window by the same
 * thread, the thread with KTF_FREEZABLE did nothing there, the one whose
 * function opts in with set_freezable() did its work first.
 */
TEST_F(window, set_freezable_thread_created_in_window_ran_in_it_unlike_flagged)
{
	const struct spawn *late = find_spawn(&self->r, "fzp_spawn_late");
	const struct spawn *flagged = find_spawn(&self->r, "fzp_spawn_thread");

	ASSERT_NE(NULL, late);
	ASSERT_NE(NULL, flagged);
	ASSERT_EQ(0, late->err);
	ASSERT_EQ(1, late->created_in_window);
	ASSERT_EQ(1, flagged->created_in_window);
	EXPECT_EQ(1, late->ran_in_window)
		TH_LOG("the set_freezable() thread first ran at %llu, window %llu-%llu",
		       late->first_run_ns, self->r.open_ns, self->r.close_ns);
	/* It froze at its set_freezable(), inside the window. */
	EXPECT_EQ(1, late->frozen_at_thaw);
	EXPECT_EQ(0, flagged->ran_in_window);
}

TEST_F(window, kthread_stop_of_thread_frozen_before_its_function)
{
	const struct stopped *st = &self->r.stopped;

	ASSERT_EQ(0, st->err);
	ASSERT_EQ(1, st->frozen_before_stop)
		TH_LOG("the thread was not frozen when kthread_stop() was called");
	/* Its function ran, after the thaw, and saw kthread_should_stop(). */
	ASSERT_NE(0, st->first_run_ns) TH_LOG("its function never ran");
	EXPECT_EQ(0, st->ran_in_window);
	/* kthread_stop() returns the function's result, not -EINTR. */
	EXPECT_EQ(42, st->stop_ret);
	/* Like any frozen thread's, it waited for the thaw. */
	EXPECT_LE(self->r.close_ns, st->stop_done_ns);
}

TEST_HARNESS_MAIN
