// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's threads this series creates with KTF_FREEZABLE run in the
 * test kernel and are frozen in a held freeze: oom_reaper, khugepaged (THP
 * in madvise mode, which the kernel turns off by default on a guest with
 * less than 512 MiB, so the fixture turns it on), ksmd, and pktcdvd's kcdrwd, for a packet device set up
 * on a scsi_debug CD-ROM: the fixture loads scsi_debug with ptype=5, a
 * disk the sr driver takes as /dev/sr0, for the test only.  kthreadd,
 * which is never frozen, is the control.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "kselftest_harness.h"
#include "freezer_test.h"

#define PKT_CLASS "/sys/class/pktcdvd/"
#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"

FIXTURE(converted) {
	char pkt_dev[32];	/* "MAJ:MIN" of pktcdvd0, to remove it */
	char thp[16];		/* THP's mode before the test */
};

/* The word in [brackets] of THP_ENABLED: the mode in force. */
static int thp_mode(char *out, size_t len)
{
	char buf[128], *b, *e;

	if (sysfs_read(THP_ENABLED, buf, sizeof(buf)) < 0)
		return -errno;
	b = strchr(buf, '[');
	e = b ? strchr(b, ']') : NULL;
	if (!e)
		return -EPROTO;
	*e = '\0';
	snprintf(out, len, "%s", b + 1);
	return 0;
}

/* The "MAJ:MIN" of the pktcdvd device, from the class's device_map. */
static int pkt_lookup(char *out, size_t len)
{
	char map[256], name[32], pkt[32], cd[32];

	if (sysfs_read(PKT_CLASS "device_map", map, sizeof(map)) < 0)
		return -errno;
	if (sscanf(map, "%31s %31s %31s", name, pkt, cd) != 3)
		return -ENOENT;
	snprintf(out, len, "%s", pkt);
	return 0;
}

FIXTURE_SETUP(converted)
{
	struct stat st;
	char dev[32];

	/* khugepaged runs while THP is in madvise (or always) mode. */
	ASSERT_EQ(0, thp_mode(self->thp, sizeof(self->thp)));
	ASSERT_EQ(0, sysfs_write(THP_ENABLED, "madvise"));

	ASSERT_EQ(0, load_module(RIG_KERNEL_MODULE("scsi_debug"),
				 "ptype=5 dev_size_mb=2"))
		TH_LOG("cannot load scsi_debug: %s", strerror(errno));
	for (int i = 0; i < 500 && stat("/sys/block/sr0/dev", &st); i++)
		usleep(10 * 1000);
	ASSERT_EQ(0, stat("/sys/block/sr0", &st))
		TH_LOG("no /sys/block/sr0 after loading scsi_debug ptype=5");
	ASSERT_LT(0, sysfs_read("/sys/block/sr0/dev", dev, sizeof(dev)));
	dev[strcspn(dev, "\n")] = '\0';
	if (pkt_lookup(self->pkt_dev, sizeof(self->pkt_dev)))
		ASSERT_EQ(0, sysfs_write(PKT_CLASS "add", dev))
			TH_LOG("cannot set up a packet device on sr0 (%s)", dev);
	ASSERT_EQ(0, pkt_lookup(self->pkt_dev, sizeof(self->pkt_dev)));
	ASSERT_EQ(0, probe_load());
}

FIXTURE_TEARDOWN(converted)
{
	EXPECT_EQ(0, probe_unload());
	EXPECT_EQ(0, sysfs_write(PKT_CLASS "remove", self->pkt_dev));
	EXPECT_EQ(0, unload_module_wait("scsi_debug", 10000));
	EXPECT_EQ(0, sysfs_write(THP_ENABLED, self->thp));
}

static void check_listed_freezable(struct __test_metadata *_metadata,
				   const char *name, const char *freezable)
{
	struct freezer_entry e;

	ASSERT_EQ(1, freezer_lookup("kthread", name, &e))
		TH_LOG("no kthread %s in " FREEZER_LIST, name);
	EXPECT_STREQ(freezable, e.freezable);
}

static void check_frozen(struct __test_metadata *_metadata,
			 const struct probe_report *r, const char *name,
			 int frozen)
{
	const struct named *n = find_named(r, name);

	ASSERT_NE(NULL, n) TH_LOG("no %s in the report", name);
	ASSERT_NE(-1, n->frozen_at_thaw) TH_LOG("no thread %s was running", name);
	EXPECT_EQ(frozen, n->frozen_at_thaw)
		TH_LOG("%s: frozen when the thaw began: expected %d, got %d",
		       name, frozen, n->frozen_at_thaw);
}

TEST_F(converted, converted_threads_are_listed_freezable)
{
	check_listed_freezable(_metadata, "oom_reaper", "yes");
	check_listed_freezable(_metadata, "khugepaged", "yes");
	check_listed_freezable(_metadata, "ksmd", "yes");
	check_listed_freezable(_metadata, "pktcdvd0", "yes");
	check_listed_freezable(_metadata, "kthreadd", "no");
}

TEST_F(converted, converted_threads_are_frozen_in_a_held_freeze)
{
	struct probe_report r;

	ASSERT_EQ(0, freeze_cycle(1));
	ASSERT_EQ(0, probe_read(&r));
	ASSERT_EQ(1, r.windows);
	check_frozen(_metadata, &r, "oom_reaper", 1);
	check_frozen(_metadata, &r, "khugepaged", 1);
	check_frozen(_metadata, &r, "ksmd", 1);
	check_frozen(_metadata, &r, "pktcdvd0", 1);
	check_frozen(_metadata, &r, "kthreadd", 0);
}

TEST_HARNESS_MAIN
