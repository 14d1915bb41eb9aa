// SPDX-License-Identifier: GPL-2.0
/*
 * One workload watched at once through a mainline inotify fd and through
 * /dev/inotify: after translating mainline's masks to the 2004 bits, both
 * saw the same records in the same order.  The workload covers every kind
 * of event, deleting watched objects, a rename over a watched target,
 * RENAME_EXCHANGE and an unmount; a second test fills both queues to
 * overflow.  Both run on tmpfs and on ext4 on a loop device.
 */
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "kselftest_harness.h"
#include "ext4.h"
#include "sysfs_file.h"
#include "devino.h"

#define MAX_QUEUED "/proc/sys/fs/inotify/max_queued_events"

/* mainline's ABI (<sys/inotify.h> would clash with the 2004 names) */
#define ML_ACCESS	0x001
#define ML_MODIFY	0x002
#define ML_ATTRIB	0x004
#define ML_CLOSE_WRITE	0x008
#define ML_CLOSE_NOWRITE 0x010
#define ML_OPEN		0x020
#define ML_MOVED_FROM	0x040
#define ML_MOVED_TO	0x080
#define ML_CREATE	0x100
#define ML_DELETE	0x200
#define ML_DELETE_SELF	0x400
#define ML_MOVE_SELF	0x800
#define ML_ALL_EVENTS	0xfff
#define ML_UNMOUNT	0x2000
#define ML_Q_OVERFLOW	0x4000
#define ML_IGNORED	0x8000

struct ml_event {
	int wd;
	unsigned int mask, cookie, len;
	char name[];
};

static const struct {
	unsigned int ml;
	int dev;
} translate[] = {
	{ ML_ACCESS, IN_ACCESS },	{ ML_MODIFY, IN_MODIFY },
	{ ML_ATTRIB, IN_ATTRIB },	{ ML_CLOSE_WRITE, IN_CLOSE },
	{ ML_CLOSE_NOWRITE, IN_CLOSE },	{ ML_OPEN, IN_OPEN },
	{ ML_MOVED_FROM, IN_DELETE | IN_MOVE },
	{ ML_MOVED_TO, IN_CREATE | IN_MOVE },
	{ ML_CREATE, IN_CREATE },	{ ML_DELETE, IN_DELETE },
	{ ML_MOVE_SELF, IN_RENAME },	{ ML_UNMOUNT, IN_UNMOUNT },
	{ ML_IGNORED, IN_IGNORED },	{ ML_Q_OVERFLOW, IN_Q_OVERFLOW },
	/* ML_DELETE_SELF: the device has no such record */
};

#define PATHS 8
static const char *const paths[PATHS] = {
	"a", "b", "a/f", "m", "m/g", "b/t", "b/x", "a/sub2",
};

struct stream {
	struct inotify_event ev[512];
	int n;
};

/* Append unless it merges with the last record, as both front ends do. */
static void push(struct stream *s, int wd, int mask, const char *name)
{
	struct inotify_event *last = s->n ? &s->ev[s->n - 1] : NULL;

	if (last && !(mask & (IN_IGNORED | IN_MOVE)) && last->wd == wd &&
	    last->mask == mask && !strcmp(last->filename, name))
		return;
	if (s->n == 512)
		return;
	memset(&s->ev[s->n], 0, sizeof(s->ev[0]));
	s->ev[s->n].wd = wd;
	s->ev[s->n].mask = mask;
	snprintf(s->ev[s->n].filename, 256, "%s", name);
	s->n++;
}

static void workload(void)
{
	struct timeval tv[2] = { { 1, 0 }, { 2, 0 } };
	char buf[8];
	int f;

	f = open("a/f", O_RDWR);
	write(f, "xyz", 3);
	lseek(f, 0, SEEK_SET);
	read(f, buf, 3);
	ftruncate(f, 1);
	close(f);
	chmod("a/f", 0600);
	utimes("a/f", tv);
	close(open("a/new", O_CREAT | O_WRONLY, 0644));
	mkdir("a/sub", 0755);
	symlink("f", "a/sym");
	link("a/f", "a/hard");
	rename("a/new", "a/renamed");
	rename("a/renamed", "b/moved");
	rename("a/f", "b/f");
	unlink("b/moved");
	unlink("a/hard");
	rmdir("a/sub");
	f = open("m/g", O_RDONLY);
	close(f);
	unlink("a/sym");
	/* over a watched target, then a watched name swapped with another */
	close(open("a/src", O_CREAT | O_WRONLY, 0644));
	rename("a/src", "b/t");
	close(open("a/y", O_CREAT | O_WRONLY, 0644));
	renameat2(AT_FDCWD, "a/y", AT_FDCWD, "b/x", RENAME_EXCHANGE);
	/* watched objects deleted: a file, then a directory */
	unlink("b/f");
	rmdir("a/sub2");
	umount("m");
}

FIXTURE(diff) {
	int ml, dev;
	char old_max[32];
};

/* The workload in the tmpfs the tests run in, or in a fresh ext4. */
FIXTURE_VARIANT(diff) {
	bool ext4;
};

FIXTURE_VARIANT_ADD(diff, tmpfs) {
	.ext4 = false,
};

FIXTURE_VARIANT_ADD(diff, ext4) {
	.ext4 = true,
};

/* A second mount of the variant's file system, at "m". */
static int mount_m(bool ext4)
{
	if (mkdir("m", 0755))
		return -errno;
	if (ext4)
		return rig_ext4_mount("m");
	return mount("tmpfs", "m", "tmpfs", 0, "size=1m") ? -errno : 0;
}

FIXTURE_SETUP(diff)
{
	ASSERT_LE(0, sysfs_read(MAX_QUEUED, self->old_max, sizeof(self->old_max)));
	if (variant->ext4) {
		ASSERT_EQ(0, mkdir("x", 0755));
		ASSERT_EQ(0, rig_ext4_mount("x"));
		ASSERT_EQ(0, chdir("x"));
	}
	ASSERT_EQ(0, mkdir("a", 0755));
	ASSERT_EQ(0, mkdir("b", 0755));
}

/*
 * In the parent (its working directory is the tmpfs one), so that the
 * queue limit comes back even after a timeout.
 */
FIXTURE_TEARDOWN_PARENT(diff)
{
	const char *top = variant->ext4 ? "x/" : "";
	char cmd[64];

	sysfs_write(MAX_QUEUED, self->old_max);
	snprintf(cmd, sizeof(cmd), "umount -l %sm; rm -rf %sa %sb %sm", top,
		 top, top, top);
	system(cmd);
	if (variant->ext4) {
		umount2("x", MNT_DETACH);
		rmdir("x");
	}
}

/* mainline's records on ml, translated, wds mapped through mlwd/devwd */
static void read_mainline(int ml, const int *mlwd, const int *devwd, int nwd,
			  struct stream *want)
{
	static char buf[65536];
	ssize_t r;
	int i, j;

	while ((r = read(ml, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + r;) {
			struct ml_event *e = (struct ml_event *)p;
			int wd = e->wd == -1 ? -1 : -2, mask = 0;

			for (i = 0; i < nwd; i++)
				if (mlwd[i] == e->wd)
					wd = devwd[i];
			for (j = 0; j < ARRAY_LEN(translate); j++)
				if (e->mask & translate[j].ml)
					mask |= translate[j].dev;
			if (mask)
				push(want, wd, mask, e->len ? e->name : "");
			p += sizeof(*e) + e->len;
		}
	}
}

/* 1 if both streams are the same, else 0 after printing where they part */
static int same_streams(const struct stream *want, const struct stream *got)
{
	int i;

	for (i = 0; i < want->n && i < got->n; i++) {
		if (want->ev[i].wd != got->ev[i].wd ||
		    want->ev[i].mask != got->ev[i].mask ||
		    strcmp(want->ev[i].filename, got->ev[i].filename)) {
			devino_print("mainline", &want->ev[i]);
			devino_print("device  ", &got->ev[i]);
			return 0;
		}
	}
	if (want->n != got->n)
		fprintf(stderr, "#  mainline %d records, the device %d\n",
			want->n, got->n);
	return want->n == got->n;
}

TEST_F(diff, mainline_and_device_see_the_same_events)
{
	int mlwd[PATHS], devwd[PATHS], i;
	static struct stream want, got;

	self->ml = syscall(SYS_inotify_init1, O_NONBLOCK);
	self->dev = devino_open(O_NONBLOCK);
	ASSERT_LE(0, self->ml);
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, mount_m(variant->ext4));
	ASSERT_EQ(0, mknod("a/f", S_IFREG | 0644, 0));
	ASSERT_EQ(0, mknod("m/g", S_IFREG | 0644, 0));
	ASSERT_EQ(0, mknod("b/t", S_IFREG | 0644, 0));
	ASSERT_EQ(0, mknod("b/x", S_IFREG | 0644, 0));
	ASSERT_EQ(0, mkdir("a/sub2", 0755));
	for (i = 0; i < PATHS; i++) {
		mlwd[i] = syscall(SYS_inotify_add_watch, self->ml, paths[i],
				  ML_ALL_EVENTS);
		devwd[i] = devino_watch(self->dev, paths[i], IN_ALL_EVENTS);
		ASSERT_LE(0, mlwd[i]);
		ASSERT_LE(0, devwd[i]);
	}

	workload();

	want.n = 0;
	read_mainline(self->ml, mlwd, devwd, PATHS, &want);
	ASSERT_LE(10, want.n);
	got.n = devino_drain(self->dev, got.ev, ARRAY_LEN(got.ev));
	ASSERT_LE(0, got.n);
	TH_LOG("%d records each", got.n);
	ASSERT_TRUE(same_streams(&want, &got));
	close(self->ml);
	close(self->dev);
}

/*
 * Both queues at the same shared limit (max_queued_events), both
 * overflowing on the same workload: the same records, then one overflow
 * record each, at the same place.
 */
TEST_F(diff, both_overflow_at_the_same_record)
{
	static struct stream want, got;
	int mlwd, devwd, i;
	char name[16];

	ASSERT_EQ(0, sysfs_write(MAX_QUEUED, "8"));
	self->ml = syscall(SYS_inotify_init1, O_NONBLOCK);
	self->dev = devino_open(O_NONBLOCK);
	ASSERT_LE(0, self->ml);
	ASSERT_LE(0, self->dev);
	mlwd = syscall(SYS_inotify_add_watch, self->ml, "a", ML_ALL_EVENTS);
	devwd = devino_watch(self->dev, "a", IN_ALL_EVENTS);
	ASSERT_LE(0, mlwd);
	ASSERT_LE(0, devwd);
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "a/n%d", i);
		ASSERT_EQ(0, mknod(name, S_IFREG | 0644, 0));
	}
	want.n = 0;
	read_mainline(self->ml, &mlwd, &devwd, 1, &want);
	got.n = devino_drain(self->dev, got.ev, ARRAY_LEN(got.ev));
	ASSERT_EQ(9, got.n);
	ASSERT_EQ(IN_Q_OVERFLOW, got.ev[8].mask);
	ASSERT_TRUE(same_streams(&want, &got));
	close(self->ml);
	close(self->dev);
}

TEST_HARNESS_MAIN
