// SPDX-License-Identifier: GPL-2.0
/*
 * Queued records are charged to the memory cgroup of the task that opened
 * the device, not to whoever caused the events, and given back when the
 * instance closes.
 */
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "devino.h"

#define CGROOT "/sys/fs/cgroup"
#define CG CGROOT "/devino"
#define NAMES 3000

static long cg_current(void)
{
	char buf[32];

	if (sysfs_read(CG "/memory.current", buf, sizeof(buf)) <= 0)
		return -1;
	return atol(buf);
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
};

FIXTURE_SETUP(memcg)
{
	self->mounted = !mount("none", CGROOT, "cgroup2", 0, NULL);
	ASSERT_EQ(0, sysfs_write(CGROOT "/cgroup.subtree_control", "+memory"));
	rmdir(CG);
	ASSERT_EQ(0, mkdir(CG, 0755));
	ASSERT_EQ(0, mkdir("d", 0755));
}

FIXTURE_TEARDOWN(memcg)
{
	rmdir(CG);
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

TEST_HARNESS_MAIN
