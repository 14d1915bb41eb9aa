// SPDX-License-Identifier: GPL-2.0
/*
 * kthread_create_flags() with bits that are not freezer flags: EINVAL, no
 * thread, the thread function never runs, and one warning in the kernel
 * log however often it happens.  The valid flags, tried the same way, do
 * create a thread: the probe can tell the two apart.
 */
#include "kselftest_harness.h"
#include "freezer_test.h"

#define WARN_TEXT "kthread: invalid freezer flags"

FIXTURE(flags) {
	struct probe_report r;
};

FIXTURE_SETUP(flags)
{
	ASSERT_EQ(0, probe_load());
}

FIXTURE_TEARDOWN(flags)
{
	EXPECT_EQ(0, probe_unload());
}

/* Try flags through the probe; the report says what the kernel answered. */
static void try_flags(struct __test_metadata *_metadata,
		      struct probe_report *r, unsigned int flags)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "invalid %#x", flags);
	ASSERT_EQ(0, probe_ctl(cmd));
	ASSERT_EQ(0, probe_read(r));
	ASSERT_EQ(flags, r->invalid_flags);
}

/* Announce the one warning to the rig, if this boot has not printed it. */
static void expect_the_warning(struct __test_metadata *_metadata)
{
	int before = kmsg_count(WARN_TEXT);

	ASSERT_LE(0, before);
	if (before == 0)
		ASSERT_EQ(0, expect_kernel_warning(WARN_TEXT));
}

TEST_F(flags, bits_outside_the_freezer_flags_are_einval)
{
	static const unsigned int bad[] = {
		0x2, 0x3, 0x80000000, 0xffffffff, 0x100,
	};

	expect_the_warning(_metadata);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		try_flags(_metadata, &self->r, bad[i]);
		EXPECT_EQ(-EINVAL, self->r.invalid_err)
			TH_LOG("flags %#x: expected -EINVAL, got %d", bad[i],
			       self->r.invalid_err);
		EXPECT_EQ(0, self->r.invalid_ran)
			TH_LOG("flags %#x: the thread function ran", bad[i]);
	}
}

TEST_F(flags, rejected_call_leaves_no_task)
{
	expect_the_warning(_metadata);
	try_flags(_metadata, &self->r, 0x2);
	ASSERT_EQ(-EINVAL, self->r.invalid_err);
	EXPECT_EQ(0, count_tasks_named_settled("fzp_invalid"));
}

TEST_F(flags, warning_is_printed_once_per_boot)
{
	expect_the_warning(_metadata);
	for (int i = 0; i < 3; i++)
		try_flags(_metadata, &self->r, 0x4);
	EXPECT_EQ(1, kmsg_count(WARN_TEXT));
}

TEST_F(flags, valid_flags_create_a_thread_that_runs)
{
	/* The same path with flags the kernel takes: the thread ran. */
	try_flags(_metadata, &self->r, 0x1);
	EXPECT_EQ(0, self->r.invalid_err);
	EXPECT_EQ(1, self->r.invalid_ran);
	try_flags(_metadata, &self->r, 0);
	EXPECT_EQ(0, self->r.invalid_err);
	EXPECT_EQ(1, self->r.invalid_ran);
	EXPECT_EQ(0, count_tasks_named_settled("fzp_invalid"));
}

TEST_HARNESS_MAIN
