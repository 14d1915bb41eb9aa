// SPDX-License-Identifier: GPL-2.0
/*
 * Watch descriptors: one per inode and instance, the mask replaced when the
 * inode is watched again, INOTIFY_IGNORE ending a watch with IN_IGNORED,
 * instances independent of each other.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "devino.h"

#define MAX_INSTANCES "/proc/sys/fs/inotify/max_user_instances"
#define MAX_WATCHES "/proc/sys/fs/inotify/max_user_watches"

FIXTURE(watches) {
	int fd;
	char old_instances[32], old_watches[32];
};

FIXTURE_SETUP(watches)
{
	ASSERT_LE(0, sysfs_read(MAX_INSTANCES, self->old_instances, 32));
	ASSERT_LE(0, sysfs_read(MAX_WATCHES, self->old_watches, 32));
	/* what a test whose setup failed after this left */
	system("rm -rf d");
	ASSERT_EQ(0, mkdir("d", 0755));
	ASSERT_EQ(0, mknod("d/f", S_IFREG | 0644, 0));
	self->fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd);
}

/*
 * In the parent, so that the limits come back whatever the test did (the
 * fd is the test child's, closed when it exits).
 */
FIXTURE_TEARDOWN_PARENT(watches)
{
	sysfs_write(MAX_INSTANCES, self->old_instances);
	sysfs_write(MAX_WATCHES, self->old_watches);
	system("rm -rf d");
}

TEST_F(watches, first_wd_is_not_negative_and_each_inode_gets_its_own)
{
	int a = devino_watch(self->fd, "d", IN_ALL_EVENTS);
	int b = devino_watch(self->fd, "d/f", IN_ALL_EVENTS);

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_NE(a, b);
}

TEST_F(watches, the_same_inode_by_another_path_gets_the_same_wd)
{
	int a = devino_watch(self->fd, "d/f", IN_ATTRIB);

	ASSERT_LE(0, a);
	ASSERT_EQ(0, link("d/f", "d/h"));
	ASSERT_EQ(0, symlink("f", "d/s"));
	ASSERT_EQ(a, devino_watch(self->fd, "d/h", IN_ATTRIB));
	ASSERT_EQ(a, devino_watch(self->fd, "d/s", IN_ATTRIB));
	ASSERT_EQ(a, devino_watch(self->fd, "./d/../d/f", IN_ATTRIB));
}

TEST_F(watches, watching_again_replaces_the_mask)
{
	int wd = devino_watch(self->fd, "d/f", IN_ATTRIB);

	ASSERT_LE(0, wd);
	ASSERT_EQ(wd, devino_watch(self->fd, "d/f", IN_OPEN));
	ASSERT_EQ(0, chmod("d/f", 0600));
	close(open("d/f", O_RDONLY));
	EXPECT_RECORDS(self->fd, { wd, IN_OPEN, "" });
}

TEST_F(watches, ignore_queues_in_ignored_and_ends_the_watch)
{
	int wd = devino_watch(self->fd, "d/f", IN_ATTRIB);

	ASSERT_LE(0, wd);
	ASSERT_EQ(0, devino_ignore(self->fd, wd));
	ASSERT_EQ(0, chmod("d/f", 0600));
	EXPECT_RECORDS(self->fd, { wd, IN_IGNORED, "" });
	ASSERT_EQ(-EINVAL, devino_ignore(self->fd, wd));
}

TEST_F(watches, a_new_watch_does_not_get_an_ignored_wd_back)
{
	int a = devino_watch(self->fd, "d/f", IN_ATTRIB);
	int b;

	ASSERT_LE(0, a);
	ASSERT_EQ(0, devino_ignore(self->fd, a));
	b = devino_watch(self->fd, "d/f", IN_ATTRIB);
	ASSERT_LE(0, b);
	ASSERT_NE(a, b);
}

TEST_F(watches, wds_stay_unique_over_many_watches)
{
	static int seen[1024];
	char path[64];
	int i, j, wd;

	for (i = 0; i < 1024; i++) {
		snprintf(path, sizeof(path), "d/n%d", i);
		ASSERT_EQ(0, mknod(path, S_IFREG | 0644, 0));
		wd = devino_watch(self->fd, path, IN_ATTRIB);
		ASSERT_LE(0, wd);
		for (j = 0; j < i; j++) {
			ASSERT_NE(seen[j], wd);
		}
		seen[i] = wd;
		/* every other watch goes: freed wds must not come back */
		if (i % 2) {
			ASSERT_EQ(0, devino_ignore(self->fd, wd));
		}
	}
}

TEST_F(watches, instances_have_their_own_watches_and_queues)
{
	int other = devino_open(O_NONBLOCK);
	int a, b;

	ASSERT_LE(0, other);
	/* a first watch here, so that the two instances' wds for d/f differ */
	ASSERT_LE(0, devino_watch(self->fd, "d", IN_CREATE));
	a = devino_watch(self->fd, "d/f", IN_ATTRIB);
	b = devino_watch(other, "d/f", IN_OPEN);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_NE(a, b);
	ASSERT_EQ(0, chmod("d/f", 0600));
	close(open("d/f", O_RDONLY));
	EXPECT_RECORDS(self->fd, { a, IN_ATTRIB, "" });
	EXPECT_RECORDS(other, { b, IN_OPEN, "" });
	/* a wd of one instance means nothing to the other */
	ASSERT_EQ(-EINVAL, devino_ignore(other, a));
	ASSERT_EQ(0, devino_ignore(other, b));
	ASSERT_EQ(0, close(other));
	ASSERT_EQ(0, chmod("d/f", 0644));
	EXPECT_RECORDS(self->fd, { a, IN_ATTRIB, "" });
}

/*
 * With room for exactly one more instance and two watches, each round's
 * close must give back all three, or the next round's open or watch
 * fails (EMFILE, ENOSPC).  The inodes go at teardown: a watch left on
 * them would show as "Busy inodes".
 */
TEST_F(watches, closing_the_instance_ends_its_watches)
{
	int other, i;

	/* root uses one instance here (self->fd) and no watch */
	ASSERT_EQ(0, sysfs_write(MAX_INSTANCES, "2"));
	ASSERT_EQ(0, sysfs_write(MAX_WATCHES, "2"));
	other = devino_open(O_NONBLOCK);
	ASSERT_LE(0, other);
	ASSERT_LE(0, devino_watch(other, "d/f", IN_ATTRIB));
	ASSERT_EQ(0, close(other));
	for (i = 0; i < 100; i++) {
		other = devino_open(0);
		ASSERT_LE(0, other);
		ASSERT_LE(0, devino_watch(other, "d/f", IN_ALL_EVENTS));
		ASSERT_LE(0, devino_watch(other, "d", IN_ALL_EVENTS));
		ASSERT_EQ(0, chmod("d/f", 0600));
		ASSERT_EQ(0, close(other));
	}
}

TEST_HARNESS_MAIN
