// SPDX-License-Identifier: GPL-2.0
/*
 * Mounting and the module's life: mount errors, the stacking depth limit,
 * rmmod refused while mounted and clean after umount; countfs.fist's
 * per-mount counters, mount flag and ioctl (its uapi header is the one
 * fistgen generated), in the module and in its FUSE target; and the FUSE
 * target mounted by an ordinary user through fusermount3.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fist_test.h"
#include "unpriv.h"
#include "countfs/countfs_ioctl.h"

#define LOWER_DIR FIST_DIR "/mod-lower"
#define MNT FIST_DIR "/mod-mnt"
#define MNT2 FIST_DIR "/mod-mnt2"
#define MNT3 FIST_DIR "/mod-mnt3"

FIXTURE(mod) {
};

FIXTURE_SETUP(mod)
{
	mkdir(FIST_DIR, 0755);
	mkdir(LOWER_DIR, 0755);
	mkdir(MNT, 0755);
	mkdir(MNT2, 0755);
	mkdir(MNT3, 0755);
	ASSERT_EQ(0, mount("tmpfs", LOWER_DIR, "tmpfs", 0, NULL));
	ASSERT_EQ(0, fist_load(&fist_wrapfs));
	ASSERT_EQ(0, fist_load(&fist_countfs));
}

FIXTURE_TEARDOWN(mod)
{
	umount2(MNT3, MNT_DETACH);
	umount2(MNT2, MNT_DETACH);
	umount2(MNT, MNT_DETACH);
	umount2(LOWER_DIR, MNT_DETACH);
}

TEST_F(mod, mount_errors_name_the_cause)
{
	EXPECT_EQ(-1, mount(FIST_DIR "/missing", MNT, "wrapfs", 0, NULL));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, fist_write_file(LOWER_DIR "/file", "", 0));
	EXPECT_EQ(-1, mount(LOWER_DIR "/file", MNT, "wrapfs", 0, NULL));
	EXPECT_EQ(ENOTDIR, errno);
	EXPECT_EQ(-1, mount(LOWER_DIR, MNT, "wrapfs", 0, "colour=blue"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mount(LOWER_DIR, MNT, "countfs", 0, "nocount=3"));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(mod, stacking_stops_at_the_kernels_depth_limit)
{
	ASSERT_EQ(0, mount(LOWER_DIR, MNT, "wrapfs", 0, NULL));
	ASSERT_EQ(0, mount(MNT, MNT2, "countfs", 0, NULL));
	ASSERT_EQ(0, fist_write_file(MNT2 "/two", "2", 1));
	EXPECT_EQ(0, access(LOWER_DIR "/two", F_OK));
	/* FILESYSTEM_MAX_STACK_DEPTH is 2. */
	EXPECT_EQ(-1, mount(MNT2, MNT3, "wrapfs", 0, NULL));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(mod, rmmod_waits_for_umount)
{
	struct stat st;

	ASSERT_EQ(0, mount(LOWER_DIR, MNT, "wrapfs", 0, NULL));
	ASSERT_EQ(0, fist_write_file(MNT "/f", "f", 1));
	EXPECT_EQ(-1, unload_module("wrapfs"));
	EXPECT_EQ(EWOULDBLOCK, errno);
	ASSERT_EQ(0, umount(MNT));
	/*
	 * A mount the last test detached may still be on its way out (a
	 * lower mount a stacked one held is put from a workqueue when the
	 * task that put the upper one was exiting): wait a little for it.
	 */
	EXPECT_EQ(0, unload_module_wait("wrapfs", 5000));
	EXPECT_EQ(-1, stat("/sys/module/wrapfs", &st));
	EXPECT_EQ(-1, mount(LOWER_DIR, MNT, "wrapfs", 0, NULL));
	EXPECT_EQ(ENODEV, errno);
	ASSERT_EQ(0, fist_load(&fist_wrapfs));
	ASSERT_EQ(0, mount(LOWER_DIR, MNT, "wrapfs", 0, NULL));
	EXPECT_EQ(0, access(MNT "/f", F_OK));
}

static int stats(const char *dir, struct countfs_stats *st)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), ret;

	if (fd < 0)
		return -errno;
	memset(st, 0xa5, sizeof(*st));
	ret = ioctl(fd, COUNTFS_IOC_STATS, st) ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * The bytes getdents64 gives for @dir, or -1: not opendir(), which
 * fstat()s the directory first.
 */
static int listing_size(const char *dir)
{
	char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY), n = 0, got;

	if (fd < 0)
		return -1;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		n += got;
	close(fd);
	return got < 0 ? -1 : n;
}

/* countfs over LOWER_DIR at @mnt: the module, or its FUSE daemon. */
static int mount_countfs(bool fuse, const char *mnt, const char *opts)
{
	if (fuse)
		return fist_fuse_mount(&fist_countfs_fuse, LOWER_DIR, mnt, opts);
	return mount(LOWER_DIR, mnt, "countfs", 0, opts) ? -errno : 0;
}

static void counts_each_mount_apart(struct __test_metadata *_metadata,
				    bool fuse)
{
	struct countfs_stats a, b, c;
	struct stat st;
	int fd;

	ASSERT_EQ(0, mount_countfs(fuse, MNT, ""));
	ASSERT_EQ(0, mount_countfs(fuse, MNT2, "nocount"));
	ASSERT_EQ(0, stats(MNT, &a));
	EXPECT_EQ(1, a.counting);
	EXPECT_EQ(0, a.pad);
	ASSERT_EQ(0, fist_write_file(MNT "/x", "x", 1));
	EXPECT_EQ(0, stat(MNT "/x", &st));
	EXPECT_EQ(-1, stat(MNT "/nothing", &st));
	EXPECT_EQ(-1, link(MNT "/x", MNT "/y"));
	EXPECT_EQ(EPERM, errno);
	ASSERT_EQ(0, stats(MNT, &b));
	/* lookup, create, open, write, getattr, link at least. */
	EXPECT_LE(a.ops + 6, b.ops);
	EXPECT_LE(a.lookups + 1, b.lookups);
	EXPECT_EQ(a.refused + 1, b.refused);

	ASSERT_EQ(0, fist_write_file(MNT2 "/z", "z", 1));
	EXPECT_EQ(-1, link(MNT2 "/z", MNT2 "/w"));
	ASSERT_EQ(0, stats(MNT2, &c));
	EXPECT_EQ(0, c.counting);
	EXPECT_EQ(0, c.ops);
	EXPECT_EQ(0, c.lookups);
	EXPECT_EQ(1, c.refused);
	/* The other mount did not count these. */
	ASSERT_EQ(0, stats(MNT, &a));
	EXPECT_EQ(b.refused, a.refused);

	fd = open(MNT, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, COUNTFS_IOC_STATS, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, _IOWR(COUNTFS_IOC_MAGIC, 99, struct countfs_stats), &a));
	EXPECT_EQ(ENOTTY, errno);
	close(fd);
}

TEST_F(mod, countfs_counts_each_mount_apart)
{
	counts_each_mount_apart(_metadata, false);
}

/* The same description's FUSE target: the same counters, flag and ioctl. */
TEST_F(mod, countfs_fuse_counts_each_mount_apart)
{
	counts_each_mount_apart(_metadata, true);
}

/*
 * everycall.fist's call rules replace the lower calls: reads end at once,
 * writes and chmod are refused with the rule's errno, a listing is empty
 * (not even "." and "..") and ioctls give the rule's EDOM; the lower file
 * is untouched.
 */
static void call_rules(struct __test_metadata *_metadata,
		       const struct fist_fs *fs)
{
	char buf[16], *text;
	size_t len;
	int fd;

	ASSERT_EQ(0, fist_write_file(LOWER_DIR "/below", "lower data", 10));
	if (fs->fuse) {
		ASSERT_EQ(0, fist_fuse_mount(fs, LOWER_DIR, MNT, ""));
	} else {
		ASSERT_EQ(0, fist_load(fs));
		ASSERT_EQ(0, mount(LOWER_DIR, MNT, fs->name, 0, NULL));
	}
	fd = open(MNT "/below", O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(-1, write(fd, "upper", 5));
	EXPECT_EQ(EROFS, errno);
	EXPECT_EQ(-1, ioctl(fd, _IO('f', 0x7e)));
	EXPECT_EQ(EDOM, errno);
	close(fd);
	EXPECT_EQ(-1, chmod(MNT "/below", 0600));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(0, listing_size(MNT));
	text = fist_read_file(LOWER_DIR "/below", &len);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(10, len);
	EXPECT_EQ(0, memcmp(text, "lower data", 10));
	free(text);
}

TEST_F(mod, call_rules_replace_the_lower_call)
{
	call_rules(_metadata, &fist_everycall);
}

TEST_F(mod, call_rules_replace_the_lower_call_in_the_fuse_target)
{
	call_rules(_metadata, &fist_everycall_fuse);
}

TEST_F(mod, a_fuse_daemon_refuses_what_the_module_refuses)
{
	ASSERT_EQ(0, fist_write_file(LOWER_DIR "/file", "", 0));
	EXPECT_EQ(-EIO, fist_fuse_mount(&fist_wrapfs_fuse, FIST_DIR "/missing",
					MNT, ""));
	EXPECT_EQ(-EIO, fist_fuse_mount(&fist_wrapfs_fuse, LOWER_DIR "/file",
					MNT, ""));
	EXPECT_EQ(-EIO, fist_fuse_mount(&fist_wrapfs_fuse, LOWER_DIR, MNT,
					"colour=blue"));
	/* Nothing was mounted there. */
	EXPECT_EQ(-1, umount(MNT));
	EXPECT_EQ(EINVAL, errno);
}

/* Runs fusermount3 -u @mnt: its exit status, or -1. */
static int fusermount_u(const char *mnt)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/usr/bin/fusermount3", "fusermount3", "-u", mnt, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * As uid 1000: rot13fs's daemon mounted over its own directory (through
 * the set-user-ID fusermount3), a file written, its rot13 below, and
 * fusermount3 -u.  An exit status, 0 if all went as expected.
 */
static int user_mount(void *arg)
{
	const char *lower = FIST_DIR "/user-lower", *mnt = FIST_DIR "/user-mnt";
	struct stat st;
	char *text;
	size_t len;

	if (fist_fuse_mount(&fist_rot13fs_fuse, lower, mnt, ""))
		return 1;
	if (fist_write_file(FIST_DIR "/user-mnt/Hello", "Hello, world", 12))
		return 2;
	text = fist_read_file(FIST_DIR "/user-lower/Uryyb", &len);
	if (!text || len != 12 || memcmp(text, "Uryyb, jbeyq", 12))
		return 3;
	free(text);
	/* Its own mount: the mount's owner is the user. */
	if (stat(mnt, &st) || st.st_uid != RIG_USER_UID)
		return 4;
	if (fusermount_u(mnt))
		return 5;
	if (!access(FIST_DIR "/user-mnt/Hello", F_OK))
		return 6;
	return 0;
}

TEST_F(mod, an_ordinary_user_mounts_the_fuse_target_with_fusermount3)
{
	const char *lower = FIST_DIR "/user-lower", *mnt = FIST_DIR "/user-mnt";

	ASSERT_EQ(0, mkdir(lower, 0755));
	ASSERT_EQ(0, mkdir(mnt, 0755));
	ASSERT_EQ(0, chown(lower, RIG_USER_UID, RIG_USER_GID));
	ASSERT_EQ(0, chown(mnt, RIG_USER_UID, RIG_USER_GID));
	EXPECT_EQ(0, run_unprivileged(user_mount, NULL));
	umount2(mnt, MNT_DETACH);
	unlink(FIST_DIR "/user-lower/Uryyb");
	rmdir(lower);
	rmdir(mnt);
}

TEST_HARNESS_MAIN
