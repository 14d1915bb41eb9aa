// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/freezer: its form, that it agrees with what
 * freezer_probe created and with /proc, and that it agrees with the table
 * in Documentation/power/freezing-of-tasks.rst for the threads and
 * workqueues of the 2004 patch that this kernel has.
 */
#include <sys/stat.h>

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
	/* fzp_thread_late is freezable once its function has run. */
	ASSERT_EQ(0, probe_wait_for_run("fzp_thread_late"));
	check_entry(_metadata, "kthread", "fzp_thread_frz", "yes");
	check_entry(_metadata, "kthread", "fzp_thread_nofrz", "no");
	/* Made freezable by its own set_freezable(), the old way. */
	check_entry(_metadata, "kthread", "fzp_thread_late", "yes");
}

TEST_F(list, kthread_workers_are_listed_as_created)
{
	/* "pending" until the worker's function has run. */
	ASSERT_EQ(0, probe_wait_for_run("fzp_worker_frz"));
	check_entry(_metadata, "kthread", "fzp_worker_frz", "yes");
	check_entry(_metadata, "kthread", "fzp_worker_nofrz", "no");
}

TEST_F(list, workqueues_and_their_rescuers_agree)
{
	check_entry(_metadata, "workqueue", "fzwqf", "yes");
	check_entry(_metadata, "workqueue", "fzwqn", "no");
	/* A rescuer is never frozen, whatever its workqueue. */
	check_entry(_metadata, "kthread", "kworker/R-fzwqf", "no");
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

	/* 16 characters: a task's comm holds 15. */
	ASSERT_EQ(1, freezer_lookup("kthread", "fzp_thread_nofrz", &e));
}

TEST_F(list, seed_threads_agree_with_the_documented_table)
{
	/* Not frozen in 2004 either: PF_NOFREEZE set after creation. */
	check_entry(_metadata, "kthread", "ksoftirqd/0", "no");
	check_entry(_metadata, "kthread", "migration/0", "no");
	/* Frozen in 2004, never frozen today (see the table for why). */
	check_entry(_metadata, "workqueue", "events", "no");
	check_entry(_metadata, "workqueue", "writeback", "no");
	/* Today's freezable counterparts. */
	check_entry(_metadata, "workqueue", "events_freezable", "yes");
	check_entry(_metadata, "workqueue", "events_freezable_pwr_efficient",
		    "yes");
	/* Created with KTF_FREEZABLE by this series. */
	check_entry(_metadata, "kthread", "oom_reaper", "yes");
	check_entry(_metadata, "kthread", "ksmd", "yes");
	check_entry(_metadata, "kthread", "kthreadd", "no");
}

/*
 * The listing walks the task and workqueue lists under RCU while threads
 * and workqueues come and go; on the debug kernel KASAN and lockdep watch.
 */
TEST_F(list, reads_race_with_threads_and_workqueues_coming_and_going)
{
	struct probe_report r;
	struct freezer_entry e;
	int i, found, bad = 0, seen = 0;

	ASSERT_EQ(0, probe_ctl("churn on"));
	for (i = 0; i < 300; i++) {
		found = freezer_lookup("kthread", "fzp_churn_frz", &e);
		if (found < 0)
			bad++;
		else
			seen += found;
	}
	EXPECT_EQ(0, probe_ctl("churn off"));
	EXPECT_EQ(0, bad) TH_LOG("%d of 300 reads failed or did not parse", bad);
	/* The listing did see the threads that came and went. */
	EXPECT_LT(0, seen);
	ASSERT_EQ(0, probe_read(&r));
	/* Threads and workqueues did come and go meanwhile. */
	EXPECT_LT(0, r.churn_rounds);
	EXPECT_EQ(0, r.churn_errors);
}

static int read_list_as_user(void *unused)
{
	char buf[64];

	return sysfs_read(FREEZER_LIST, buf, sizeof(buf)) == -EACCES ? 0 : 1;
}

/*
 * debugfs itself is 0700, so the user's EACCES alone would not show the
 * file's own mode: check that too.
 */
TEST_F(list, only_root_can_read_it)
{
	struct stat st;

	ASSERT_EQ(0, stat(FREEZER_LIST, &st));
	EXPECT_EQ(0400, st.st_mode & 07777);
	EXPECT_EQ(0, run_unprivileged(read_list_as_user, NULL));
}

TEST_HARNESS_MAIN
