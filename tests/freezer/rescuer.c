// SPDX-License-Identifier: GPL-2.0
/*
 * The rescuer of a WQ_FREEZABLE | WQ_MEM_RECLAIM workqueue, watched by
 * rescuer_probe: inside a freeze, a non-freezable thread and a device's
 * .suspend callback can destroy such a workqueue, and allocate and destroy
 * one, without waiting for the thaw (destroy_workqueue() stops the rescuer
 * with kthread_stop(), which cannot wake a frozen task); and work that the
 * rescuer runs may sleep freezable: the freeze waits for it to finish
 * instead of freezing the rescuer inside the work item and failing.
 */
#include <time.h>

#include "kselftest_harness.h"
#include "freezer_test.h"

#define RSP_DIR "/sys/kernel/debug/rescuer_probe"
#define FAILSLAB "/sys/kernel/debug/failslab/"
#define KTHREADD_FAIL "/proc/2/make-it-fail"

struct rsp_case {
	char name[NAME_LEN];
	int armed;
	unsigned long long started_ns, done_ns;
	int err;
};

struct rsp_report {
	unsigned long long freeze_start_ns, open_ns, close_ns;
	struct rsp_case cases[4];
	int nr_cases;
	int on_rescuer;
	unsigned long long rescue_started_ns, rescue_done_ns;
};

static int rsp_read(struct rsp_report *r)
{
	char line[256];
	FILE *f = fopen(RSP_DIR "/report", "r");
	int err = 0;

	if (!f)
		return -errno;
	memset(r, 0, sizeof(*r));
	while (fgets(line, sizeof(line), f)) {
		struct rsp_case *c = &r->cases[r->nr_cases];

		if (sscanf(line, "window %llu %llu %llu", &r->freeze_start_ns,
			   &r->open_ns, &r->close_ns) == 3)
			continue;
		if (r->nr_cases < 4 &&
		    sscanf(line, "case %63s %d %llu %llu %d", c->name, &c->armed,
			   &c->started_ns, &c->done_ns, &c->err) == 5) {
			r->nr_cases++;
			continue;
		}
		if (sscanf(line, "rescue %d %llu %llu", &r->on_rescuer,
			   &r->rescue_started_ns, &r->rescue_done_ns) == 3)
			continue;
		fprintf(stderr, "# unexpected report line: %s", line);
		err = -EPROTO;
	}
	fclose(f);
	return err;
}

/* The failslab attributes the rescue test sets, restored after it. */
static const char *const failslab_attrs[] = {
	"verbose", "space", "times", "interval", "ignore-gfp-wait",
	"task-filter", "probability",
};
#define NR_FAILSLAB (sizeof(failslab_attrs) / sizeof(failslab_attrs[0]))

FIXTURE(rescuer) {
	struct rsp_report r;
	char failslab[NR_FAILSLAB][32];
	char freeze_timeout[32];
};

static int failslab_set(const char *attr, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "%s", attr);
	return sysfs_write(path, val);
}

static int read_value(const char *path, char *out, size_t len)
{
	int n = sysfs_read(path, out, len);

	if (n < 0)
		return n;
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

FIXTURE_SETUP(rescuer)
{
	char path[128];

	for (unsigned int i = 0; i < NR_FAILSLAB; i++) {
		snprintf(path, sizeof(path), FAILSLAB "%s", failslab_attrs[i]);
		ASSERT_EQ(0, read_value(path, self->failslab[i],
					sizeof(self->failslab[i])));
	}
	ASSERT_EQ(0, read_value("/sys/power/pm_freeze_timeout",
				self->freeze_timeout,
				sizeof(self->freeze_timeout)));
	unload_module("rescuer_probe");
	ASSERT_EQ(0, load_module(RIG_MODULE_PATH("freezer", "rescuer_probe"), ""));
}

FIXTURE_TEARDOWN(rescuer)
{
	/* Whatever the test did: kthreadd may create threads again. */
	EXPECT_EQ(0, sysfs_write(KTHREADD_FAIL, "0"));
	for (unsigned int i = NR_FAILSLAB; i-- > 0;)
		EXPECT_EQ(0, failslab_set(failslab_attrs[i], self->failslab[i]));
	EXPECT_EQ(0, sysfs_write("/sys/power/pm_freeze_timeout",
				 self->freeze_timeout));
	EXPECT_EQ(0, unload_module("rescuer_probe") ? -errno : 0);
}

static void check_case_in_window(struct __test_metadata *_metadata,
				 const struct rsp_report *r, const char *name)
{
	const struct rsp_case *c = NULL;

	for (int i = 0; i < r->nr_cases; i++)
		if (!strcmp(r->cases[i].name, name))
			c = &r->cases[i];
	ASSERT_NE(NULL, c) TH_LOG("no case %s in the report", name);
	ASSERT_EQ(1, c->armed);
	ASSERT_EQ(0, c->err) TH_LOG("%s failed: %d", name, c->err);
	ASSERT_NE(0, c->started_ns) TH_LOG("%s never started", name);
	EXPECT_LE(r->open_ns, c->started_ns);
	ASSERT_NE(0, c->done_ns) TH_LOG("%s never returned", name);
	EXPECT_LT(c->done_ns, r->close_ns)
		TH_LOG("%s returned %llu ms after the thaw began: it waited for it",
		       name, (c->done_ns - r->close_ns) / 1000000);
}

/*
 * One suspend cycle to pm_test=devices, held 1 s: the thread cases run when
 * the freeze completes, the suspend cases from the platform driver's
 * .suspend.  Every call must return inside the window.
 */
TEST_F_TIMEOUT(rescuer, destroy_and_alloc_in_a_freeze_return_inside_it, 90)
{
	ASSERT_EQ(0, sysfs_write(RSP_DIR "/ctl", "arm"));
	ASSERT_EQ(0, suspend_cycle("devices", 1));
	ASSERT_EQ(0, rsp_read(&self->r));
	ASSERT_NE(0, self->r.open_ns) TH_LOG("no freeze window was seen");
	ASSERT_NE(0, self->r.close_ns);
	check_case_in_window(_metadata, &self->r, "thread_destroy_old");
	check_case_in_window(_metadata, &self->r, "thread_alloc_destroy");
	check_case_in_window(_metadata, &self->r, "suspend_destroy_old");
	check_case_in_window(_metadata, &self->r, "suspend_alloc_destroy");
}

/*
 * Hold back worker creation: every slab allocation of kthreadd fails, so
 * no new kworker can be made, and queued work that finds no idle worker
 * goes to the rescuers.
 */
static int kthreadd_allocations_fail(int on)
{
	static const char *const attrs[][2] = {
		{ "verbose", "0" }, { "space", "0" }, { "times", "-1" },
		{ "interval", "1" }, { "ignore-gfp-wait", "N" },
		{ "task-filter", "Y" }, { "probability", "100" },
	};
	int err = 0;

	if (!on) {
		err = sysfs_write(KTHREADD_FAIL, "0");
		return failslab_set("probability", "0") ?: err;
	}
	for (unsigned int i = 0; i < sizeof(attrs) / sizeof(attrs[0]) && !err; i++)
		err = failslab_set(attrs[i][0], attrs[i][1]);
	return err ?: sysfs_write(KTHREADD_FAIL, "1");
}

TEST_F_TIMEOUT(rescuer, freezable_sleep_in_rescued_work_does_not_fail_the_freeze, 90)
{
	int failed_before = kmsg_count(" failed after ");
	int rescue, err;

	ASSERT_LE(0, failed_before);
	/* A failure comes in 5 s, not the default 20. */
	ASSERT_EQ(0, sysfs_write("/sys/power/pm_freeze_timeout", "5000"));
	ASSERT_EQ(0, kthreadd_allocations_fail(1));
	rescue = sysfs_write(RSP_DIR "/ctl", "rescue");
	ASSERT_EQ(0, kthreadd_allocations_fail(0));
	ASSERT_EQ(0, rescue) TH_LOG("the work never started: %d", rescue);

	/* The work sleeps freezable for 2 s from now. */
	err = freeze_cycle(0);
	ASSERT_EQ(0, rsp_read(&self->r));
	ASSERT_EQ(1, self->r.on_rescuer)
		TH_LOG("the work ran on a worker, not on the rescuer");
	EXPECT_EQ(0, err) TH_LOG("the freeze failed: %d", err);
	EXPECT_EQ(failed_before, kmsg_count(" failed after "));
	/* It was in flight when the freeze began; the freeze waited for it. */
	ASSERT_NE(0, self->r.rescue_done_ns) TH_LOG("the work never finished");
	EXPECT_LT(self->r.freeze_start_ns, self->r.rescue_done_ns);
	EXPECT_LT(self->r.rescue_done_ns, self->r.open_ns);
}

TEST_HARNESS_MAIN
