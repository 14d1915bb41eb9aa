/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the /dev/inotify tests: open, watch, drain and compare the
 * records a watch produced with the ones a test expects.
 */
#ifndef TESTS_INOTIFY_DEVINO_H
#define TESTS_INOTIFY_DEVINO_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/inotify_dev.h>

#define DEVINO_PATH "/dev/inotify"
#define REC_SIZE ((int)sizeof(struct inotify_event))

static inline int devino_open(int flags)
{
	return open(DEVINO_PATH, O_RDONLY | O_CLOEXEC | flags);
}

/* The wd, or -errno. */
static inline int devino_watch(int fd, const char *path, unsigned long mask)
{
	struct inotify_watch_request req = {
		.dirname = (char *)path,
		.mask = mask,
	};
	int wd = ioctl(fd, INOTIFY_WATCH, &req);

	return wd < 0 ? -errno : wd;
}

/* 0, or -errno. */
static inline int devino_ignore(int fd, int wd)
{
	return ioctl(fd, INOTIFY_IGNORE, &wd) < 0 ? -errno : 0;
}

/*
 * Read every record queued now (the fd need not be non-blocking: FIONREAD
 * says how much is there).  Returns the number of records put in ev, at
 * most max, or -errno.
 */
static inline int devino_drain(int fd, struct inotify_event *ev, int max)
{
	int queued, n = 0;
	ssize_t r;

	while (n < max) {
		if (ioctl(fd, FIONREAD, &queued) < 0)
			return -errno;
		if (!queued)
			break;
		r = read(fd, &ev[n], (size_t)(max - n) * REC_SIZE);
		if (r < 0)
			return -errno;
		if (r % REC_SIZE)
			return -EIO;
		n += r / REC_SIZE;
	}
	return n;
}

/* What a test expects one record to be. */
struct want {
	int wd;
	int mask;
	const char *name;	/* "" for the watched object itself */
};

static inline void devino_print(const char *what, const struct inotify_event *e)
{
	fprintf(stderr, "#   %s wd=%d mask=%#x name=\"%s\"\n", what, e->wd,
		e->mask, e->filename);
}

/*
 * 1 if got[0..n) is exactly want[0..nwant), else 0 after printing both
 * lists.  Also checks that each filename is NUL-terminated and zero-padded.
 */
static inline int devino_match(const struct inotify_event *got, int n,
			       const struct want *want, int nwant)
{
	int i, ok = n == nwant;
	size_t len;

	for (i = 0; ok && i < n; i++) {
		len = strnlen(got[i].filename, sizeof(got[i].filename));
		ok = got[i].wd == want[i].wd && got[i].mask == want[i].mask &&
		     len < sizeof(got[i].filename) &&
		     !strcmp(got[i].filename, want[i].name);
		while (ok && ++len < sizeof(got[i].filename))
			ok = !got[i].filename[len];
	}
	if (ok)
		return 1;
	fprintf(stderr, "#  expected %d records:\n", nwant);
	for (i = 0; i < nwant; i++) {
		struct inotify_event e = { .wd = want[i].wd, .mask = want[i].mask };

		snprintf(e.filename, sizeof(e.filename), "%s", want[i].name);
		devino_print("want", &e);
	}
	fprintf(stderr, "#  got %d:\n", n);
	for (i = 0; i < n; i++)
		devino_print("got ", &got[i]);
	return 0;
}

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Drain fd and assert that it held exactly the records of the want[] array. */
#define EXPECT_RECORDS(fd, ...)						\
	do {								\
		const struct want _w[] = { __VA_ARGS__ };		\
		struct inotify_event _got[64];				\
		int _n = devino_drain(fd, _got, ARRAY_LEN(_got));	\
		ASSERT_LE(0, _n);					\
		ASSERT_TRUE(devino_match(_got, _n, _w, ARRAY_LEN(_w))); \
	} while (0)

/* Assert that nothing is queued on fd. */
#define EXPECT_NO_RECORDS(fd)						\
	do {								\
		struct inotify_event _got[64];				\
		int _n = devino_drain(fd, _got, ARRAY_LEN(_got));	\
		ASSERT_LE(0, _n);					\
		ASSERT_TRUE(devino_match(_got, _n, NULL, 0));		\
	} while (0)

#endif /* TESTS_INOTIFY_DEVINO_H */
