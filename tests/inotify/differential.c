// SPDX-License-Identifier: GPL-2.0
/*
 * One workload watched at once through a mainline inotify fd and through
 * /dev/inotify: after translating mainline's masks to the 2004 bits, both
 * saw the same records in the same order.
 */
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "kselftest_harness.h"
#include "devino.h"

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
	{ ML_IGNORED, IN_IGNORED },
	/* ML_DELETE_SELF: the device has no such record */
};

#define PATHS 5
static const char *const paths[PATHS] = { "a", "b", "a/f", "m", "m/g" };

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
	umount("m");
}

TEST(mainline_and_device_see_the_same_events)
{
	int ml = syscall(SYS_inotify_init1, O_NONBLOCK);
	int dev = devino_open(O_NONBLOCK);
	int mlwd[PATHS], devwd[PATHS], i, j;
	static struct stream want, got;
	static char buf[65536];
	ssize_t r;

	ASSERT_LE(0, ml);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, mkdir("a", 0755));
	ASSERT_EQ(0, mkdir("b", 0755));
	ASSERT_EQ(0, mkdir("m", 0755));
	ASSERT_EQ(0, mount("tmpfs", "m", "tmpfs", 0, "size=1m"));
	ASSERT_EQ(0, mknod("a/f", S_IFREG | 0644, 0));
	ASSERT_EQ(0, mknod("m/g", S_IFREG | 0644, 0));
	for (i = 0; i < PATHS; i++) {
		mlwd[i] = syscall(SYS_inotify_add_watch, ml, paths[i], ML_ALL_EVENTS);
		devwd[i] = devino_watch(dev, paths[i], IN_ALL_EVENTS);
		ASSERT_LE(0, mlwd[i]);
		ASSERT_LE(0, devwd[i]);
	}

	workload();

	/* mainline's records, translated */
	while ((r = read(ml, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + r;) {
			struct ml_event *e = (struct ml_event *)p;
			int wd = -2, mask = 0;

			for (i = 0; i < PATHS; i++)
				if (mlwd[i] == e->wd)
					wd = devwd[i];
			for (j = 0; j < ARRAY_LEN(translate); j++)
				if (e->mask & translate[j].ml)
					mask |= translate[j].dev;
			if (mask)
				push(&want, wd, mask, e->len ? e->name : "");
			p += sizeof(*e) + e->len;
		}
	}
	ASSERT_LE(10, want.n);
	got.n = devino_drain(dev, got.ev, ARRAY_LEN(got.ev));
	ASSERT_LE(0, got.n);
	for (i = 0; i < want.n && i < got.n; i++) {
		if (want.ev[i].wd != got.ev[i].wd ||
		    want.ev[i].mask != got.ev[i].mask ||
		    strcmp(want.ev[i].filename, got.ev[i].filename)) {
			devino_print("mainline", &want.ev[i]);
			devino_print("device  ", &got.ev[i]);
			break;
		}
	}
	TH_LOG("%d records each", got.n);
	ASSERT_EQ(want.n, got.n);
	ASSERT_EQ(want.n, i);
	close(ml);
	close(dev);
	system("rm -rf a b; rmdir m");
}

TEST_HARNESS_MAIN
