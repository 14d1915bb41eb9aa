// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/freezer: its form, that it agrees with what
 * freezer_probe created and with /proc, and that it agrees with the table
 * in Documentation/power/freezing-of-tasks.rst for the threads and
 * workqueues of the 2004 patch that this kernel has.
 */
#include "kselftest_harness.h"
#include "freezer_test.h"
#include "unpriv.h"

FIXTURE(list) {
};

FIXTURE_SETUP(list)
{
	ASSERT_EQ(0, probe_load());
}

FIXTURE_TEARDOWN(list)
{
	EXPECT_EQ(0, probe_unload());
}

static void check_entry(struct __test_metadata *_metadata, const char *kind,
			const char *name, const char *freezable)
{
	struct freezer_entry e;

	ASSERT_EQ(1, freezer_lookup(kind, name, &e))
		TH_LOG("no %s %s in " FREEZER_LIST, kind, name);
	EXPECT_STREQ(freezable, e.freezable)
		TH_LOG("%s %s: freezable should be %s, is %s", kind, name,
		       freezable, e.freezable);
	/* Nothing is frozen while a reader runs. */
	EXPECT_STREQ(strcmp(kind, "kthread") ? "-" : "no", e.frozen);
}

TEST_F(list, every_line_has_the_documented_form)
{
	struct freezer_entry e;
	char head[64];

	/* A lookup that matches nothing still parses every line. */
	EXPECT_EQ(0, freezer_lookup("kthread", "no such thread", &e));
	ASSERT_LT(0, sysfs_read(FREEZER_LIST, head, sizeof(head)));
	EXPECT_EQ(0, strncmp(head, "# kind pid freezable frozen name\n", 33));
}

TEST_F(list, probe_threads_are_listed_as_created)
{
	check_entry(_metadata, "kthread", "fzp_thread_frz", "yes");
	check_entry(_metadata, "kthread", "fzp_thread_nofrz", "no");
	/* Made freezable by its own set_freezable(), the old way. */
	check_entry(_metadata, "kthread", "fzp_thread_late", "yes");
}

TEST_F(list, kthread_workers_are_listed_as_created)
{
	check_entry(_metadata, "kthread", "fzp_worker_frz", "yes");
	check_entry(_metadata, "kthread", "fzp_worker_nofrz", "no");
}

TEST_F(list, workqueues_and_their_rescuers_agree)
{
	check_entry(_metadata, "workqueue", "fzwqf", "yes");
	check_entry(_metadata, "workqueue", "fzwqn", "no");
	check_entry(_metadata, "kthread", "kworker/R-fzwqf", "yes");
	check_entry(_metadata, "kthread", "kworker/R-fzwqn", "no");
}

TEST_F(list, thread_created_freezable_and_not_woken_is_pending)
{
	ASSERT_EQ(0, probe_ctl("hold"));
	check_entry(_metadata, "kthread", "fzp_held", "pending");
}

TEST_F(list, pid_is_the_one_proc_shows)
{
	struct freezer_entry e;
	char path[64], comm[64];

	ASSERT_EQ(1, freezer_lookup("kthread", "fzp_thread_frz", &e));
	snprintf(path, sizeof(path), "/proc/%s/comm", e.pid);
	ASSERT_LT(0, sysfs_read(path, comm, sizeof(comm)));
	EXPECT_STREQ("fzp_thread_frz\n", comm);
}

TEST_F(list, names_longer_than_comm_are_listed_whole)
{
	struct freezer_entry e;

	/* 17 characters: a task's comm holds 15. */
	ASSERT_EQ(1, freezer_lookup("kthread", "fzp_thread_nofrz", &e));
}

TEST_F(list, seed_threads_agree_with_the_documented_table)
{
	/* Frozen in 2004, never frozen today (see the table for why). */
	check_entry(_metadata, "kthread", "ksoftirqd/0", "no");
	check_entry(_metadata, "kthread", "migration/0", "no");
	check_entry(_metadata, "workqueue", "events", "no");
	check_entry(_metadata, "workqueue", "writeback", "no");
	/* Today's freezable counterparts. */
	check_entry(_metadata, "workqueue", "events_freezable", "yes");
	check_entry(_metadata, "workqueue", "events_freezable_pwr_efficient",
		    "yes");
	/* Created with KTHREAD_FREEZABLE by this series. */
	check_entry(_metadata, "kthread", "oom_reaper", "yes");
	check_entry(_metadata, "kthread", "kthreadd", "no");
}

static int read_list_as_user(void *unused)
{
	char buf[64];

	return sysfs_read(FREEZER_LIST, buf, sizeof(buf)) == -EACCES ? 0 : 1;
}

TEST_F(list, unprivileged_user_cannot_read_it)
{
	EXPECT_EQ(0, run_unprivileged(read_list_as_user, NULL));
}

TEST_HARNESS_MAIN
