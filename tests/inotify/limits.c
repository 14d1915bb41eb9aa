// SPDX-License-Identifier: GPL-2.0
/*
 * As uid 1000 without capabilities: the device counts against the same
 * per-user limits as the inotify system calls (fs.inotify.max_user_*),
 * gives them back on close and ignore, and read permission decides what
 * may be watched.  A user namespace's root is counted as its creator.
 */
#include <sched.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "unpriv.h"

/* <sys/inotify.h> and <linux/inotify_dev.h> both define IN_*: keep apart */
#define DEVINO_PATH "/dev/inotify"
struct inotify_watch_request {
	char *dirname;
	unsigned long mask;
};
#define INOTIFY_WATCH _IOR('Q', 1, struct inotify_watch_request)
#define DEV_IN_ATTRIB 0x20

#define MAX_INSTANCES "/proc/sys/fs/inotify/max_user_instances"
#define MAX_WATCHES "/proc/sys/fs/inotify/max_user_watches"

static int dev_watch(int fd, const char *path)
{
	struct inotify_watch_request req = { (char *)path, DEV_IN_ATTRIB };

	return ioctl(fd, INOTIFY_WATCH, &req) < 0 ? -errno : 0;
}

FIXTURE(limits) {
	char old_instances[32], old_watches[32];
};

FIXTURE_SETUP(limits)
{
	ASSERT_LE(0, sysfs_read(MAX_INSTANCES, self->old_instances, 32));
	ASSERT_LE(0, sysfs_read(MAX_WATCHES, self->old_watches, 32));
	ASSERT_EQ(0, mkdir("u", 0755));
	ASSERT_EQ(0, chown("u", RIG_USER_UID, RIG_USER_GID));
	ASSERT_EQ(0, mkdir("secret", 0700));
	ASSERT_EQ(0, mknod("secret/f", S_IFREG | 0644, 0));
	ASSERT_EQ(0, mknod("unreadable", S_IFREG | 0200, 0));
}

FIXTURE_TEARDOWN(limits)
{
	sysfs_write(MAX_INSTANCES, self->old_instances);
	sysfs_write(MAX_WATCHES, self->old_watches);
	system("rm -rf u secret unreadable");
}

/* With max_user_instances 4: 2 syscall fds + 2 device fds, then EMFILE. */
static int instances(void *arg)
{
	int a = inotify_init1(0), b = inotify_init1(0);
	int c = open(DEVINO_PATH, O_RDONLY), d = open(DEVINO_PATH, O_RDONLY);

	if (a < 0 || b < 0 || c < 0 || d < 0)
		return 10;
	if (open(DEVINO_PATH, O_RDONLY) != -1 || errno != EMFILE)
		return 11;
	if (inotify_init1(0) != -1 || errno != EMFILE)
		return 12;
	/* a close gives one back, to either front end */
	close(c);
	c = inotify_init1(0);
	if (c < 0)
		return 13;
	close(a);
	a = open(DEVINO_PATH, O_RDONLY);
	if (a < 0)
		return 14;
	return 0;
}

TEST_F(limits, instances_are_counted_with_inotify_init)
{
	ASSERT_EQ(0, sysfs_write(MAX_INSTANCES, "4"));
	ASSERT_EQ(0, run_unprivileged(instances, NULL));
	/* the counts went back when the child's fds closed */
	ASSERT_EQ(0, run_unprivileged(instances, NULL));
}

/* With max_user_watches 6: 3 syscall watches + 3 device watches, then ENOSPC. */
static int watches(void *arg)
{
	int in = inotify_init1(0), dev = open(DEVINO_PATH, O_RDONLY);
	char path[32];
	int i, wd;

	if (in < 0 || dev < 0)
		return 10;
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "u/w%d", i);
		if (mknod(path, S_IFREG | 0644, 0))
			return 11;
	}
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "u/w%d", i);
		if (inotify_add_watch(in, path, IN_ATTRIB) < 0)
			return 12;
		snprintf(path, sizeof(path), "u/w%d", i + 3);
		if (dev_watch(dev, path))
			return 13;
	}
	if (dev_watch(dev, "u") != -ENOSPC)
		return 14;
	if (inotify_add_watch(in, "u", IN_ATTRIB) != -1 || errno != ENOSPC)
		return 15;
	/* watching an inode again is no new watch */
	if (dev_watch(dev, "u/w3"))
		return 16;
	/* removing a syscall watch lets the device add one */
	wd = inotify_add_watch(in, "u/w0", IN_ATTRIB);
	if (wd < 0 || inotify_rm_watch(in, wd))
		return 17;
	if (dev_watch(dev, "u"))
		return 18;
	close(dev);
	/* and closing the device gave its three back */
	for (i = 3; i < 6; i++) {
		snprintf(path, sizeof(path), "u/w%d", i);
		if (inotify_add_watch(in, path, IN_ATTRIB) < 0)
			return 19;
	}
	return 0;
}

TEST_F(limits, watches_are_counted_with_inotify_add_watch)
{
	ASSERT_EQ(0, sysfs_write(MAX_WATCHES, "6"));
	ASSERT_EQ(0, run_unprivileged(watches, NULL));
	ASSERT_EQ(0, system("rm -f u/w*"));
	ASSERT_EQ(0, run_unprivileged(watches, NULL));
}

static int permission(void *arg)
{
	int dev = open(DEVINO_PATH, O_RDONLY);

	if (dev < 0)
		return 10;
	/* a directory the user cannot read: no names from it */
	if (dev_watch(dev, "secret") != -EACCES)
		return 11;
	/* nor can it reach what is inside */
	if (dev_watch(dev, "secret/f") != -EACCES)
		return 12;
	/* a file it may write but not read */
	if (dev_watch(dev, "unreadable") != -EACCES)
		return 13;
	/* its own directory is fine */
	if (dev_watch(dev, "u"))
		return 14;
	return 0;
}

TEST_F(limits, watching_needs_read_permission)
{
	ASSERT_EQ(0, run_unprivileged(permission, NULL));
}

#define NS_MAX_INSTANCES "/proc/sys/user/max_inotify_instances"

/*
 * With max_user_instances 4: uid 1000 holds 2 instances, then makes a user
 * namespace and opens more as its root.  Those count in the namespace and,
 * through it, against uid 1000 outside: 2 more, then EMFILE, for both front
 * ends.  The namespace's own limit (user.max_inotify_instances, which its
 * root may lower) applies on top.
 */
static int user_namespace(void *arg)
{
	int out1 = open(DEVINO_PATH, O_RDONLY), out2 = inotify_init1(0);
	int in1, in2;

	if (out1 < 0 || out2 < 0)
		return 10;
	if (become_root_of_a_user_ns())
		return 11;
	in1 = open(DEVINO_PATH, O_RDONLY);
	in2 = inotify_init1(0);
	if (in1 < 0 || in2 < 0)
		return 12;
	/* uid 1000's four are used, whichever namespace opened them */
	if (open(DEVINO_PATH, O_RDONLY) != -1 || errno != EMFILE)
		return 13;
	if (inotify_init1(0) != -1 || errno != EMFILE)
		return 14;
	/* one closed outside is one more inside */
	close(out1);
	out1 = open(DEVINO_PATH, O_RDONLY);
	if (out1 < 0)
		return 15;
	/* the namespace's own limit, 2: it has 2, uid 1000 3 of its 4 */
	close(out1);
	if (sysfs_write(NS_MAX_INSTANCES, "2"))
		return 16;
	if (open(DEVINO_PATH, O_RDONLY) != -1 || errno != EMFILE)
		return 17;
	close(in2);
	if (open(DEVINO_PATH, O_RDONLY) < 0)
		return 18;
	return 0;
}

TEST_F(limits, a_user_namespace_counts_against_its_creator)
{
	ASSERT_EQ(0, sysfs_write(MAX_INSTANCES, "4"));
	ASSERT_EQ(0, run_unprivileged(user_namespace, NULL));
	/* and everything came back when the child exited */
	ASSERT_EQ(0, run_unprivileged(instances, NULL));
}

/*
 * With max_user_watches 4: two device watches outside, then two more as
 * root of a user namespace, then ENOSPC there, for both front ends.
 */
static int user_namespace_watches(void *arg)
{
	int out = open(DEVINO_PATH, O_RDONLY), in, dev, i;
	char path[32];

	if (out < 0)
		return 10;
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "u/n%d", i);
		if (mknod(path, S_IFREG | 0644, 0))
			return 11;
	}
	if (dev_watch(out, "u/n0") || dev_watch(out, "u/n1"))
		return 12;
	if (become_root_of_a_user_ns())
		return 13;
	dev = open(DEVINO_PATH, O_RDONLY);
	in = inotify_init1(0);
	if (dev < 0 || in < 0)
		return 14;
	if (dev_watch(dev, "u/n2") || inotify_add_watch(in, "u/n3", IN_ATTRIB) < 0)
		return 15;
	if (dev_watch(dev, "u/n4") != -ENOSPC)
		return 16;
	if (inotify_add_watch(in, "u/n4", IN_ATTRIB) != -1 || errno != ENOSPC)
		return 17;
	/* one given back outside is one more inside */
	close(out);
	if (dev_watch(dev, "u/n4"))
		return 18;
	return 0;
}

TEST_F(limits, a_user_namespace_counts_watches_against_its_creator)
{
	ASSERT_EQ(0, sysfs_write(MAX_WATCHES, "4"));
	ASSERT_EQ(0, run_unprivileged(user_namespace_watches, NULL));
}

TEST_HARNESS_MAIN
