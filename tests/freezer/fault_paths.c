// SPDX-License-Identifier: GPL-2.0
/*
 * The series' freezer entry points with each allocation of the calling
 * thread failing in turn (tests/lib/fault.h, the debug kernel only):
 * kthread_create_flags() and the allocation of a WQ_FREEZABLE |
 * WQ_MEM_RECLAIM workqueue, each called by freezer_probe in this thread's
 * context.  Every failure must be a clean ENOMEM with no thread or
 * workqueue left behind; the rig's kmemleak scan and log checker see leaks
 * and kernel reports.  fail-nth counts this thread's fault points only:
 * kthreadd's fork of the new thread (and of a rescuer) is not failed, and
 * the series' own code allocates nothing, so these walk the error paths
 * of the callers it changed (the creation request, the name, the
 * workqueue's structures), not of kthreadd.
 */
#include "kselftest_harness.h"
#include "fault.h"
#include "variant.h"
#include "freezer_test.h"

FIXTURE(fault) {
	int ctl;
};

FIXTURE_SETUP(fault)
{
	if (!rig_debug_kernel())
		SKIP(return, "fault injection runs on the debug kernel only");
	/* The debug kernel must have it: a missing interface is a failure. */
	ASSERT_TRUE(fault_injection_available());
	ASSERT_EQ(0, fault_injection_setup());
	ASSERT_EQ(0, probe_load());
	self->ctl = open(PROBE_CTL, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, self->ctl);
}

FIXTURE_TEARDOWN(fault)
{
	if (!rig_debug_kernel())
		return;
	close(self->ctl);
	EXPECT_EQ(0, probe_unload());
}

static int ctl_fd;

/* One command to freezer_probe, written on the fd opened beforehand. */
static int ctl_cmd(void *cmd)
{
	size_t len = strlen(cmd);

	return write(ctl_fd, cmd, len) == (ssize_t)len ? 0 : -errno;
}

/* The thread was created and stopped, or it was never created. */
static int no_fault_thread(void *arg, int err)
{
	/* comm holds 15 characters of "fzp_fault_thread". */
	return count_tasks_named_settled("fzp_fault_threa") ? -EEXIST : 0;
}

/*
 * No workqueue, and no rescuer of one, is left.  destroy_workqueue()
 * unlists the workqueue before it returns; its stopped rescuer stays
 * listed until it is reaped, so that one is waited for.
 */
static int no_fault_wq(void *arg, int err)
{
	struct freezer_entry e;

	if (freezer_lookup("workqueue", "fzp_fault_wq", &e))
		return -EEXIST;
	if (freezer_lookup_settled("kthread", "kworker/R-fzp_fault_wq"))
		return -EEXIST;
	return 0;
}

TEST_F(fault, kthread_create_flags_fails_cleanly_when_its_allocations_fail)
{
	struct fault_run run;
	int ret;

	ctl_fd = self->ctl;
	ret = fault_loop(ctl_cmd, no_fault_thread, "fault_thread", 100, &run);
	EXPECT_EQ(0, fault_loop_report("kthread_create_flags(KTF_FREEZABLE)",
				       ret, &run));
	/* The loop did reach error paths, not only fallbacks. */
	EXPECT_LT(0, run.failed);
}

TEST_F(fault, freezable_workqueue_allocation_fails_cleanly_when_its_allocations_fail)
{
	struct fault_run run;
	int ret;

	ctl_fd = self->ctl;
	ret = fault_loop(ctl_cmd, no_fault_wq, "fault_wq", 1000, &run);
	EXPECT_EQ(0, fault_loop_report("alloc_workqueue(WQ_FREEZABLE | WQ_MEM_RECLAIM)",
				       ret, &run));
	EXPECT_LT(0, run.failed);
}

TEST_HARNESS_MAIN
