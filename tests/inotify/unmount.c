// SPDX-License-Identifier: GPL-2.0
/*
 * Unmounting a filesystem with watches on it: IN_UNMOUNT then IN_IGNORED
 * for every watch there, the umount succeeds and leaves no busy inode.
 * Unmounting one of two mounts of it (a bind mount) ends no watch.  On
 * tmpfs, and on ext4 on a loop device, whose unmount writes back and
 * closes a journal.
 */
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "kmsg.h"
#include "ext4.h"
#include "devino.h"

FIXTURE(unmount) {
	int fd;
};

/* The watched file system: a tmpfs, or ext4 on a loop device. */
FIXTURE_VARIANT(unmount) {
	bool ext4;
};

FIXTURE_VARIANT_ADD(unmount, tmpfs) {
	.ext4 = false,
};

FIXTURE_VARIANT_ADD(unmount, ext4) {
	.ext4 = true,
};

FIXTURE_SETUP(unmount)
{
	ASSERT_EQ(0, mkdir("mnt", 0755));
	if (variant->ext4) {
		ASSERT_EQ(0, rig_ext4_mount("mnt"));
	} else {
		ASSERT_EQ(0, mount("tmpfs", "mnt", "tmpfs", 0, "size=1m"));
	}
	ASSERT_EQ(0, mkdir("mnt/d", 0755));
	ASSERT_EQ(0, mknod("mnt/d/f", S_IFREG | 0644, 0));
	self->fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(unmount)
{
	close(self->fd);
	umount2("bind", MNT_DETACH);
	rmdir("bind");
	umount2("mnt", MNT_DETACH);
	rmdir("mnt");
}

TEST_F(unmount, every_watch_gets_unmount_then_ignored)
{
	int root = devino_watch(self->fd, "mnt", IN_CREATE);
	int d = devino_watch(self->fd, "mnt/d", IN_ALL_EVENTS);
	int f = devino_watch(self->fd, "mnt/d/f", IN_ATTRIB);
	int here = devino_watch(self->fd, ".", IN_CREATE);
	int wds[3] = { root, d, f };
	struct inotify_event ev[16];
	int n, i, j;

	ASSERT_LE(0, root);
	ASSERT_LE(0, d);
	ASSERT_LE(0, f);
	ASSERT_LE(0, here);
	ASSERT_EQ(0, umount("mnt"));
	n = devino_drain(self->fd, ev, ARRAY_LEN(ev));
	/* each of the three: IN_UNMOUNT, later IN_IGNORED; "." none */
	ASSERT_EQ(6, n);
	for (j = 0; j < 3; j++) {
		int un = -1, ig = -1;

		for (i = 0; i < n; i++) {
			if (ev[i].wd != wds[j])
				continue;
			if (ev[i].mask == IN_UNMOUNT && un < 0)
				un = i;
			else if (ev[i].mask == IN_IGNORED && ig < 0)
				ig = i;
			else
				devino_print("unexpected", &ev[i]);
		}
		ASSERT_LE(0, un);
		ASSERT_LT(un, ig);
	}
	/* the watch on the mount point's own filesystem is still there */
	ASSERT_EQ(0, rmdir("mnt"));
	EXPECT_NO_RECORDS(self->fd);
	ASSERT_EQ(0, mkdir("mnt", 0755));
	EXPECT_RECORDS(self->fd, { here, IN_CREATE, "mnt" });
	ASSERT_EQ(0, kmsg_count("Busy inodes"));
}

TEST_F(unmount, unmount_with_the_instance_closed_in_between)
{
	int other = devino_open(0);

	ASSERT_LE(0, other);
	ASSERT_LE(0, devino_watch(other, "mnt/d/f", IN_ALL_EVENTS));
	ASSERT_LE(0, devino_watch(self->fd, "mnt/d", IN_ALL_EVENTS));
	ASSERT_EQ(0, close(other));
	ASSERT_EQ(0, umount("mnt"));
	ASSERT_EQ(0, kmsg_count("Busy inodes"));
}

TEST_F(unmount, a_lazy_unmount_reports_when_the_filesystem_goes)
{
	int wd = devino_watch(self->fd, "mnt/d/f", IN_ATTRIB);
	int keep = open("mnt/d/f", O_RDONLY);

	ASSERT_LE(0, wd);
	ASSERT_LE(0, keep);
	ASSERT_EQ(0, umount2("mnt", MNT_DETACH));
	/* still in use: the superblock lives on and so does the watch */
	ASSERT_EQ(0, fchmod(keep, 0600));
	EXPECT_RECORDS(self->fd, { wd, IN_ATTRIB, "" });
	ASSERT_EQ(0, close(keep));
	EXPECT_RECORDS(self->fd, { wd, IN_UNMOUNT, "" }, { wd, IN_IGNORED, "" });
	ASSERT_EQ(0, kmsg_count("Busy inodes"));
}

TEST_F(unmount, unmounting_a_bind_mount_ends_no_watch)
{
	int d = devino_watch(self->fd, "mnt/d", IN_ATTRIB);

	ASSERT_LE(0, d);
	ASSERT_EQ(0, mkdir("bind", 0755));
	ASSERT_EQ(0, mount("mnt", "bind", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, umount("bind"));
	rmdir("bind");
	EXPECT_NO_RECORDS(self->fd);
	/* the watch still reports, through either path */
	ASSERT_EQ(0, chmod("mnt/d", 0700));
	EXPECT_RECORDS(self->fd, { d, IN_ATTRIB, "" });
	/* the last mount's umount ends it */
	ASSERT_EQ(0, umount("mnt"));
	EXPECT_RECORDS(self->fd, { d, IN_UNMOUNT, "" }, { d, IN_IGNORED, "" });
}

TEST_HARNESS_MAIN
