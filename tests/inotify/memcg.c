// SPDX-License-Identifier: GPL-2.0
/*
 * Queued records and watches are charged to the memory cgroup of the task
 * that opened the device, not to whoever caused the events or added the
 * watches later from another cgroup, and given back when the instance
 * closes.
 */
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "variant.h"
#include "devino.h"

#define CGROOT "/sys/fs/cgroup"
#define CG CGROOT "/devino"
#define CG_B CGROOT "/devino-b"
#define NAMES 3000
#define MAX_WATCHES "/proc/sys/fs/inotify/max_user_watches"
/*
 * Some 1.6 MB of marks (3.2 MB with the debug kernel's KASAN): well above
 * memcg's per-CPU charge batches.
 */
#define WATCHES rig_rounds(20000, 10000)

static long cg_current_of(const char *cg)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	if (sysfs_read(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atol(buf);
}

static long cg_current(void)
{
	return cg_current_of(CG);
}

static int join(const char *cg)
{
	char path[128], pid[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return sysfs_write(path, pid);
}

FIXTURE(memcg) {
	int mounted;
	char old_watches[32];
};

FIXTURE_SETUP(memcg)
{
	self->mounted = !mount("none", CGROOT, "cgroup2", 0, NULL);
	ASSERT_EQ(0, sysfs_write(CGROOT "/cgroup.subtree_control", "+memory"));
	rmdir(CG);
	rmdir(CG_B);
	ASSERT_EQ(0, mkdir(CG, 0755));
	ASSERT_EQ(0, mkdir(CG_B, 0755));
	ASSERT_EQ(0, mkdir("d", 0755));
	ASSERT_LE(0, sysfs_read(MAX_WATCHES, self->old_watches, 32));
}

/* In the parent: the watch limit must come back even after an ASSERT. */
FIXTURE_TEARDOWN_PARENT(memcg)
{
	sysfs_write(MAX_WATCHES, self->old_watches);
	rmdir(CG);
	rmdir(CG_B);
	if (self->mounted)
		umount(CGROOT);
	system("rm -rf d");
}

TEST_F(memcg, records_are_charged_to_the_opener)
{
	char name[256];
	long before, queued, closed;
	int fd, dir, i;

	/* open in the cgroup, then leave it: the events come from outside */
	ASSERT_EQ(0, join(CG));
	fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, devino_watch(fd, "d", IN_CREATE));
	ASSERT_EQ(0, join(CGROOT));
	before = cg_current();
	ASSERT_LE(0, before);

	dir = open("d", O_PATH | O_DIRECTORY);
	ASSERT_LE(0, dir);
	memset(name, 'n', 200);
	for (i = 0; i < NAMES; i++) {
		snprintf(name + 200, sizeof(name) - 200, "%d", i);
		ASSERT_EQ(0, mknodat(dir, name, S_IFREG | 0644, 0));
	}
	close(dir);
	queued = cg_current();
	/* NAMES records of some 250 bytes each: well over 400 KiB */
	TH_LOG("memory.current %ld before, %ld with %d records queued",
	       before, queued, NAMES);
	ASSERT_LE(before + 400 * 1024, queued);

	ASSERT_EQ(0, close(fd));
	closed = cg_current();
	TH_LOG("memory.current %ld after close", closed);
	ASSERT_GT(before + (queued - before) / 2, closed);
}

/*
 * A record that cannot be charged to the opener's cgroup, at its
 * memory.max, becomes the overflow record: the reader learns that records
 * were lost, no task is OOM-killed, and once the queue is drained records
 * come again.
 */
TEST_F_TIMEOUT(memcg, a_record_past_memory_max_becomes_the_overflow_record, 120)
{
	struct inotify_event ev[64];
	char name[256], max[32], events[256];
	int fd, dir, wd, i, n, total = 0, overflow = -1;
	cpu_set_t one;

	/* memcg charges in per-CPU batches: one CPU, one batch of slack */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, join(CG));
	fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	wd = devino_watch(fd, "d", IN_CREATE);
	ASSERT_LE(0, wd);
	ASSERT_EQ(0, join(CGROOT));
	/* room for some 256 KiB of records: about a thousand 230-byte ones */
	snprintf(max, sizeof(max), "%ld", cg_current() + 256 * 1024);
	ASSERT_EQ(0, sysfs_write(CG "/memory.max", max));

	/*
	 * Until a record is missing: each one that cannot be charged costs
	 * a round of reclaim in the cgroup, slow on the debug kernel.  The
	 * first failure queues the overflow record in its place, so the
	 * count falls behind at the second.
	 */
	dir = open("d", O_PATH | O_DIRECTORY);
	ASSERT_LE(0, dir);
	memset(name, 'n', 200);
	for (i = 0; i < NAMES; i++) {
		snprintf(name + 200, sizeof(name) - 200, "%d", i);
		ASSERT_EQ(0, mknodat(dir, name, S_IFREG | 0644, 0));
		ASSERT_EQ(0, ioctl(fd, INOTIFY_STATS, &n));
		if (n <= i)
			break;
	}
	/* records 0, 1, 2... in order, then the overflow record */
	while ((n = devino_drain(fd, ev, ARRAY_LEN(ev))) > 0) {
		for (i = 0; i < n && overflow < 0; i++, total++) {
			if (ev[i].mask == IN_Q_OVERFLOW) {
				ASSERT_EQ(-1, ev[i].wd);
				overflow = total;
				break;
			}
			snprintf(name + 200, sizeof(name) - 200, "%d", total);
			ASSERT_EQ(wd, ev[i].wd);
			ASSERT_STREQ(name, ev[i].filename);
		}
	}
	ASSERT_EQ(0, n);
	TH_LOG("%d of %d records fit under memory.max, then the overflow record",
	       overflow, NAMES);
	ASSERT_LT(0, overflow);
	ASSERT_GT(NAMES, overflow);
	/* nothing was killed to make room */
	ASSERT_LT(0, sysfs_read(CG "/memory.events", events, sizeof(events)));
	ASSERT_NE(NULL, strstr(events, "\noom_kill 0\n"));
	/* drained, the queue's memory is back: the next record fits */
	ASSERT_EQ(0, mknodat(dir, "again", S_IFREG | 0644, 0));
	EXPECT_RECORDS(fd, { wd, IN_CREATE, "again" });
	close(dir);
	close(fd);
}

/* Open in A, move to B, add the watches there: A pays, as for records. */
TEST_F_TIMEOUT(memcg, watches_are_charged_to_the_opener, 120)
{
	long a0, b0, a1, b1;
	cpu_set_t one;
	char path[32];
	int fd, i;

	/* memcg charges in per-CPU batches: one CPU, one batch of slack */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, sysfs_write(MAX_WATCHES, "30000"));
	for (i = 0; i < WATCHES; i++) {
		snprintf(path, sizeof(path), "d/%d", i);
		ASSERT_EQ(0, mknod(path, S_IFREG | 0644, 0));
	}
	ASSERT_EQ(0, join(CG));
	fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, join(CG_B));
	a0 = cg_current_of(CG);
	b0 = cg_current_of(CG_B);
	for (i = 0; i < WATCHES; i++) {
		snprintf(path, sizeof(path), "d/%d", i);
		ASSERT_LE(0, devino_watch(fd, path, IN_ATTRIB));
	}
	a1 = cg_current_of(CG);
	b1 = cg_current_of(CG_B);
	TH_LOG("%d watches: the opener's cgroup %ld -> %ld, the caller's %ld -> %ld",
	       WATCHES, a0, a1, b0, b1);
	ASSERT_EQ(0, join(CGROOT));
	EXPECT_LE(a0 + 1024 * 1024, a1);
	EXPECT_GT(b0 + 512 * 1024, b1);
	ASSERT_EQ(0, close(fd));
}

TEST_HARNESS_MAIN
