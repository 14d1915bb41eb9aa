// SPDX-License-Identifier: GPL-2.0
/*
 * The generated file systems with each allocation of the calling thread
 * failing in turn (tests/lib/fault.h, the debug kernel only): mount,
 * lookup, create and writeback (an fsync of rot13fs's page cache).  Each
 * failed try must leave things as they were: no mount, no cached
 * negative dentry hiding a file that exists, no file on one side only,
 * no lost data.  The rig's kmemleak scan and log checker see leaks and
 * kernel reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fault.h"
#include "fist_test.h"
#include "variant.h"

FIXTURE(fault) {
	char lower[64];
	char mnt[64];
	int n;
};

FIXTURE_VARIANT(fault) {
	const struct fist_fs *fs;
};

FIXTURE_VARIANT_ADD(fault, wrapfs) { &fist_wrapfs };
FIXTURE_VARIANT_ADD(fault, rot13fs) { &fist_rot13fs };

FIXTURE_SETUP(fault)
{
	int err;

	if (!rig_debug_kernel())
		SKIP(return, "fault injection runs on the debug kernel only");
	ASSERT_TRUE(fault_injection_available());
	ASSERT_EQ(0, fault_injection_setup());
	snprintf(self->lower, sizeof(self->lower), FIST_DIR "/flower-%d", getpid());
	snprintf(self->mnt, sizeof(self->mnt), FIST_DIR "/fmnt-%d", getpid());
	err = fist_setup(variant->fs, false, self->lower, self->mnt, "");
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
}

FIXTURE_TEARDOWN(fault)
{
	fist_teardown(self->lower, self->mnt);
}

struct ctx {
	struct __test_metadata *meta;
	const struct fist_fs *fs;
	const char *lower, *mnt;
	char path[256], lpath[256];
	int n, fd;
};

static bool mounted(const char *dir)
{
	struct stat a, b;
	char parent[256];

	snprintf(parent, sizeof(parent), "%s/..", dir);
	return !stat(dir, &a) && !stat(parent, &b) && a.st_dev != b.st_dev;
}

static int mount_op(void *arg)
{
	struct ctx *c = arg;

	return mount(c->lower, c->mnt, c->fs->name, 0, "") ? -errno : 0;
}

static int not_mounted(void *arg, int err)
{
	struct ctx *c = arg;

	if (!err && umount(c->mnt))
		return -errno;
	return mounted(c->mnt) ? -EBUSY : 0;
}

TEST_F_TIMEOUT(fault, a_failed_mount_leaves_nothing_mounted, 600)
{
	struct ctx c = { .fs = variant->fs, .lower = self->lower };
	struct fault_run run;
	char mnt[80];
	int ret;

	snprintf(mnt, sizeof(mnt), "%s-2", self->mnt);
	mkdir(mnt, 0755);
	c.mnt = mnt;
	ret = fault_loop(mount_op, not_mounted, &c, 2000, &run);
	/* The last, clean try mounted it. */
	EXPECT_TRUE(mounted(mnt));
	umount(mnt);
	rmdir(mnt);
	ASSERT_EQ(0, fault_loop_report("mount", ret, &run));
	EXPECT_LT(0, run.failed);
}

/* stat() of a file that exists below but was never looked up above. */
static int lookup_op(void *arg)
{
	struct ctx *c = arg;
	struct stat st;

	snprintf(c->path, sizeof(c->path), "%s/f%d", c->mnt, c->n);
	return stat(c->path, &st) ? -errno : 0;
}

/* A failed lookup cached nothing: the next one finds the file. */
static int found_after(void *arg, int err)
{
	struct ctx *c = arg;
	struct stat st;

	if (!err) {
		c->n++;
		return 0;
	}
	if (stat(c->path, &st)) {
		fprintf(stderr, "# %s: %s after a failed lookup\n", c->path,
			strerror(errno));
		return -ENOENT;
	}
	c->n++;
	return 0;
}

TEST_F_TIMEOUT(fault, a_failed_lookup_hides_nothing, 600)
{
	struct ctx c = { .fs = variant->fs, .mnt = self->mnt };
	struct fault_run run;
	char name[64];
	int ret;

	for (int i = 0; i < 400; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		ASSERT_EQ(0, fist_write_file(LOWER(name), "", 0));
	}
	ret = fault_loop(lookup_op, found_after, &c, 400, &run);
	ASSERT_EQ(0, fault_loop_report("lookup", ret, &run));
	EXPECT_LT(0, run.failed);
}

/*
 * mknod(S_IFREG) creates through ->mknod and opens nothing: a failure is
 * the create's own (open(O_CREAT) may create and then fail to open).
 */
static int create_op(void *arg)
{
	struct ctx *c = arg;

	c->n++;
	snprintf(c->path, sizeof(c->path), "%s/new%d", c->mnt, c->n);
	snprintf(c->lpath, sizeof(c->lpath), "%s/%s", c->lower,
		 fist_lower_name(c->fs, c->path + strlen(c->mnt) + 1));
	return mknod(c->path, S_IFREG | 0644, 0) ? -errno : 0;
}

/* A failed create left no file, above or below. */
static int not_created(void *arg, int err)
{
	struct ctx *c = arg;
	bool upper = access(c->path, F_OK) == 0;
	bool lower = access(c->lpath, F_OK) == 0;

	if (err && (upper || lower)) {
		fprintf(stderr, "# %s: %s above, %s below after a failed create\n",
			c->path, upper ? "there" : "absent", lower ? "there" : "absent");
		return -EEXIST;
	}
	return 0;
}

TEST_F_TIMEOUT(fault, a_failed_create_leaves_no_file, 600)
{
	struct ctx c = { .fs = variant->fs, .mnt = self->mnt, .lower = self->lower };
	struct fault_run run;
	int ret;

	ret = fault_loop(create_op, not_created, &c, 400, &run);
	ASSERT_EQ(0, fault_loop_report("create", ret, &run));
	EXPECT_LT(0, run.failed);
}

static const char data[] = "Writeback under memory pressure keeps every byte.\n";

/* A write and an fsync: through rot13fs's page cache, writeback. */
static int writeback_op(void *arg)
{
	struct ctx *c = arg;

	if (pwrite(c->fd, data, strlen(data), 0) != (ssize_t)strlen(data))
		return -errno;
	return fsync(c->fd) ? -errno : 0;
}

/*
 * Whatever failed, what the file reads through the mount is, after a
 * clean fsync, what the lower file holds: a write-back that failed lost
 * nothing it had taken.
 */
static int nothing_lost(void *arg, int err)
{
	struct ctx *c = arg;
	char want[sizeof(data)];
	ssize_t n;
	size_t len = 0;
	char *got;
	int ok;

	if (fsync(c->fd))
		return -errno;
	n = pread(c->fd, want, sizeof(want), 0);
	if (n < 0)
		return -errno;
	fist_encode_data(c->fs, want, n);
	got = fist_read_file(c->lpath, &len);
	ok = got && len == (size_t)n && !memcmp(got, want, len);
	free(got);
	if (!ok) {
		fprintf(stderr, "# %s: %zu bytes below, %zd through the mount, or other bytes\n",
			c->lpath, len, n);
		return -EIO;
	}
	/* The next try writes again: the file starts empty. */
	return ftruncate(c->fd, 0) ? -errno : 0;
}

TEST_F_TIMEOUT(fault, a_failed_writeback_loses_no_data, 600)
{
	struct ctx c = { .fs = variant->fs };
	struct fault_run run;
	int ret;

	snprintf(c.path, sizeof(c.path), "%s", UPPER("wb"));
	snprintf(c.lpath, sizeof(c.lpath), "%s", LOWER("wb"));
	c.fd = open(c.path, O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, c.fd);
	ret = fault_loop(writeback_op, nothing_lost, &c, 400, &run);
	ASSERT_EQ(0, fault_loop_report("write and fsync", ret, &run));
	EXPECT_LT(0, run.failed);
	close(c.fd);
}

TEST_HARNESS_MAIN
