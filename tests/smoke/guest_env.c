// SPDX-License-Identifier: GPL-2.0
/*
 * The guest the rig boots: our kernel, the pseudo filesystems the tests
 * rely on, and an ordinary user that really is unprivileged.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "unpriv.h"

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

TEST(runs_the_kernel_the_rig_built)
{
	char built[256];
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	ASSERT_EQ(0, read_line("/etc/rig/kernel.release", built, sizeof(built)));
	TH_LOG("uname -r: %s, built: %s", u.release, built);
	EXPECT_STREQ(built, u.release);
	EXPECT_NE(NULL, strstr(u.release, "-lwn2004"));
}

static void expect_fs(struct __test_metadata *_metadata, const char *path,
		      long magic)
{
	struct statfs sfs;

	ASSERT_EQ(0, statfs(path, &sfs)) TH_LOG("statfs %s: %s", path,
						 strerror(errno));
	EXPECT_EQ(magic, (long)sfs.f_type) TH_LOG("%s is not mounted", path);
}

TEST(pseudo_filesystems_are_mounted)
{
	expect_fs(_metadata, "/proc", PROC_SUPER_MAGIC);
	expect_fs(_metadata, "/sys", SYSFS_MAGIC);
	expect_fs(_metadata, "/dev", TMPFS_MAGIC);	/* devtmpfs */
	expect_fs(_metadata, "/sys/kernel/debug", DEBUGFS_MAGIC);
	expect_fs(_metadata, "/tmp", TMPFS_MAGIC);
}

TEST(devtmpfs_has_the_basic_nodes)
{
	struct stat st;
	int fd;

	ASSERT_EQ(0, stat("/dev/null", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(makedev(1, 3), st.st_rdev);
	fd = open("/dev/null", O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(3, write(fd, "abc", 3));
	close(fd);
	EXPECT_EQ(0, access("/dev/ttyS1", F_OK));
}

TEST(runs_as_root_in_the_guest)
{
	EXPECT_EQ(0, getuid());
	EXPECT_EQ(0, geteuid());
}

static int unprivileged_view(void *arg)
{
	int fd;

	if (getuid() != RIG_USER_UID || geteuid() != RIG_USER_UID ||
	    getgid() != RIG_USER_GID)
		return 1;
	/* Root-only files stay closed to the ordinary user. */
	fd = open("/proc/sys/kernel/hostname", O_WRONLY);
	if (fd >= 0 || errno != EACCES)
		return 2;
	/* Without CAP_SYS_ADMIN, sethostname() is refused. */
	if (sethostname("x", 1) == 0 || errno != EPERM)
		return 3;
	/* /tmp is writable for everyone. */
	fd = open("/tmp/rig-unpriv", O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		return 4;
	close(fd);
	unlink("/tmp/rig-unpriv");
	return 0;
}

TEST(ordinary_user_has_no_privileges)
{
	EXPECT_EQ(0, run_unprivileged(unprivileged_view, NULL));
}

TEST(asuser_helper_runs_commands_as_uid_1000)
{
	char out[64] = "";
	FILE *p;

	p = popen("asuser id -u", "r");
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, fgets(out, sizeof(out), p));
	EXPECT_EQ(0, pclose(p));
	EXPECT_STREQ("1000\n", out);
	p = popen("asuser grep CapEff /proc/self/status", "r");
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, fgets(out, sizeof(out), p));
	EXPECT_EQ(0, pclose(p));
	EXPECT_STREQ("CapEff:\t0000000000000000\n", out);
}

TEST_HARNESS_MAIN
