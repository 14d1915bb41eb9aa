// SPDX-License-Identifier: GPL-2.0
/*
 * Every bad input gets its errno and changes nothing: unknown commands,
 * bad pointers, bad paths, bad masks, wds that are not this fd's, the
 * debugging commands without CAP_SYS_ADMIN, writes.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <termios.h>

#include "kselftest_harness.h"
#include "unpriv.h"
#include "devino.h"

FIXTURE(bad) {
	int fd;
};

FIXTURE_SETUP(bad)
{
	unlink("f");	/* a failed test skips its teardown */
	ASSERT_EQ(0, mknod("f", S_IFREG | 0644, 0));
	self->fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(bad)
{
	close(self->fd);
	unlink("f");
}

TEST_F(bad, unknown_commands_are_enotty)
{
	struct termios t;
	int v = 0;

	ASSERT_EQ(-1, ioctl(self->fd, _IOR(INOTIFY_IOCTL_MAGIC, 5, int), &v));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, _IOR(INOTIFY_IOCTL_MAGIC, 0, int), &v));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, _IOW(INOTIFY_IOCTL_MAGIC, 1,
					  struct inotify_watch_request), &v));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, tcgetattr(self->fd, &t));
	ASSERT_EQ(ENOTTY, errno);
}

TEST_F(bad, a_bad_request_pointer_is_efault)
{
	ASSERT_EQ(-1, ioctl(self->fd, INOTIFY_WATCH, (void *)8));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->fd, INOTIFY_IGNORE, (void *)8));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->fd, FIONREAD, (void *)8));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(bad, a_bad_path_pointer_is_efault)
{
	ASSERT_EQ(-EFAULT, devino_watch(self->fd, (const char *)8, IN_ALL_EVENTS));
}

TEST_F(bad, paths_too_long_are_enametoolong)
{
	static char path[PATH_MAX + 16];

	memset(path, 'a', NAME_MAX + 1);
	ASSERT_EQ(-ENAMETOOLONG, devino_watch(self->fd, path, IN_ALL_EVENTS));
	memset(path, 'a', sizeof(path) - 1);
	ASSERT_EQ(-ENAMETOOLONG, devino_watch(self->fd, path, IN_ALL_EVENTS));
}

TEST_F(bad, missing_paths_are_enoent)
{
	ASSERT_EQ(-ENOENT, devino_watch(self->fd, "no-such-file", IN_ALL_EVENTS));
	ASSERT_EQ(-ENOENT, devino_watch(self->fd, "", IN_ALL_EVENTS));
	ASSERT_EQ(-ENOTDIR, devino_watch(self->fd, "f/x", IN_ALL_EVENTS));
}

TEST_F(bad, a_mask_without_an_event_is_einval)
{
	ASSERT_EQ(-EINVAL, devino_watch(self->fd, "f", 0));
	ASSERT_EQ(-EINVAL, devino_watch(self->fd, "f", IN_UNMOUNT | IN_IGNORED));
	ASSERT_EQ(-EINVAL, devino_watch(self->fd, "f", IN_Q_OVERFLOW));
}

TEST_F(bad, a_mask_above_32_bits_is_einval)
{
	unsigned long mask = IN_ALL_EVENTS;

	if (sizeof(mask) == 4)
		SKIP(return, "a 32-bit unsigned long has no bits above 31");
	mask |= (unsigned long)1 << (sizeof(mask) * 8 - 1);
	ASSERT_EQ(-EINVAL, devino_watch(self->fd, "f", mask));
	/* upper bits set, but no sign extension: bit 31 is clear */
	mask = ~0UL << (sizeof(mask) * 4) | IN_ATTRIB;
	ASSERT_EQ(-EINVAL, devino_watch(self->fd, "f", mask));
	ASSERT_LE(0, devino_watch(self->fd, "f", IN_ALL_EVENTS));
}

/*
 * An int stored in the request's unsigned long: sign-extended in a 64-bit
 * program, as it is, 32 bits, in a 32-bit one.  Both mean the same mask.
 */
TEST_F(bad, an_int_mask_means_its_32_bits_in_both_abis)
{
	int all = (int)IN_ALL_EVENTS;
	int wd;

	wd = devino_watch(self->fd, "f", (unsigned long)(long)all);
	ASSERT_LE(0, wd) TH_LOG("%s", strerror(-wd));
	ASSERT_EQ(0, chmod("f", 0600));
	EXPECT_RECORDS(self->fd, { wd, IN_ATTRIB, "" });
}

TEST_F(bad, wds_that_are_not_this_fds_are_einval)
{
	int other = devino_open(0);
	int wd;

	ASSERT_LE(0, other);
	wd = devino_watch(other, "f", IN_ATTRIB);
	ASSERT_LE(0, wd);
	ASSERT_EQ(-EINVAL, devino_ignore(self->fd, wd));
	ASSERT_EQ(-EINVAL, devino_ignore(self->fd, -1));
	ASSERT_EQ(-EINVAL, devino_ignore(self->fd, INT_MIN));
	ASSERT_EQ(-EINVAL, devino_ignore(self->fd, INT_MAX));
	/* the other fd's watch is untouched */
	ASSERT_EQ(0, chmod("f", 0600));
	EXPECT_RECORDS(other, { wd, IN_ATTRIB, "" });
	close(other);
}

TEST_F(bad, the_64_bit_request_from_a_32_bit_program_is_enotty)
{
	/* what INOTIFY_WATCH is for a 64-bit program: an 8-byte pointer */
	unsigned int watch64 = _IOR(INOTIFY_IOCTL_MAGIC, 1, uint64_t[2]);
	char req[16] = { 0 };

	if (watch64 == INOTIFY_WATCH)
		SKIP(return, "this is the 64-bit program: its number is right");
	ASSERT_EQ(-1, ioctl(self->fd, watch64, req));
	ASSERT_EQ(ENOTTY, errno);
}

TEST_F(bad, writing_to_the_device_is_einval)
{
	struct inotify_event ev = { 0 };
	int rw = open(DEVINO_PATH, O_RDWR);

	ASSERT_EQ(-1, write(self->fd, &ev, sizeof(ev)));
	ASSERT_EQ(EBADF, errno);
	ASSERT_LE(0, rw);
	ASSERT_EQ(-1, write(rw, &ev, sizeof(ev)));
	ASSERT_EQ(EINVAL, errno);
	close(rw);
	ASSERT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	ASSERT_EQ(ESPIPE, errno);
}

TEST_F(bad, stats_and_setdebug_answer_root)
{
	int n = -1, flags = INOTIFY_DEBUG_NONE;

	ASSERT_LE(0, devino_watch(self->fd, "f", IN_ATTRIB | IN_OPEN));
	ASSERT_EQ(0, chmod("f", 0600));
	close(open("f", O_RDONLY));
	ASSERT_EQ(0, ioctl(self->fd, INOTIFY_STATS, &n));
	ASSERT_EQ(2, n);
	ASSERT_EQ(-1, ioctl(self->fd, INOTIFY_STATS, (void *)8));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(0, ioctl(self->fd, INOTIFY_SETDEBUG, &flags));
	flags = INOTIFY_DEBUG_ALL;
	ASSERT_EQ(-1, ioctl(self->fd, INOTIFY_SETDEBUG, &flags));
	ASSERT_EQ(EOPNOTSUPP, errno);
	ASSERT_EQ(-1, ioctl(self->fd, INOTIFY_SETDEBUG, (void *)8));
	ASSERT_EQ(EFAULT, errno);
}

static int stats_as_user(void *arg)
{
	int fd = devino_open(0), v = 0;

	if (fd < 0)
		return 10;
	if (ioctl(fd, INOTIFY_STATS, &v) != -1 || errno != EPERM)
		return 11;
	if (ioctl(fd, INOTIFY_SETDEBUG, &v) != -1 || errno != EPERM)
		return 12;
	return 0;
}

TEST_F(bad, stats_and_setdebug_are_eperm_for_a_user)
{
	ASSERT_EQ(0, run_unprivileged(stats_as_user, NULL));
}

TEST_HARNESS_MAIN
