// SPDX-License-Identifier: GPL-2.0
/*
 * What a fanotify listener sees of /dev/inotify itself.  The device's file
 * is FMODE_NONOTIFY from its ->open(), so that reading it makes no event
 * for an inotify watcher of /dev (a devinotify watching /dev would feed on
 * its own reads).  The open's permission event comes before ->open(), so
 * a listener could see FAN_OPEN_PERM for the device and never its close.
 * It does not: a listener that reports file descriptors (every one that
 * can ask for permission events) gets nothing at all for a character
 * device, /dev/zero included, and one that reports file handles
 * (FAN_REPORT_FID, notification only) gets all of /dev/zero's open,
 * access and close and none of the device's.  A regular file shows that
 * the first listener works.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/fanotify.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "devino.h"

struct user {
	const char *path;
	int err;
};

/* Open the path, read from it (a record, for the device), close it. */
static void *use_it(void *arg)
{
	struct user *u = arg;
	struct inotify_event ev;
	char buf[64];
	int fd, wd;

	fd = open(u->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		u->err = errno;
		return NULL;
	}
	if (!strcmp(u->path, DEVINO_PATH)) {
		wd = devino_watch(fd, ".", IN_ATTRIB);
		if (wd < 0 || chmod(".", 0755) ||
		    read(fd, &ev, sizeof(ev)) != REC_SIZE)
			u->err = EIO;
	} else if (read(fd, buf, sizeof(buf)) <= 0) {
		u->err = EIO;
	}
	close(fd);
	return NULL;
}

/*
 * Mark @path for @mask with a listener of class/flags @init, let a thread
 * use it, allow its open, and return the events seen, ORed, in *@seen and
 * the number of FAN_OPEN_PERM in *@perms.
 */
static int listen_to(const char *path, unsigned int init, unsigned long long mask,
		     unsigned long long *seen, int *perms)
{
	struct user u = { .path = path };
	struct pollfd p;
	char buf[4096];
	pthread_t t;
	int fan, done = 0, idle = 0;
	ssize_t r;

	*seen = 0;
	*perms = 0;
	fan = fanotify_init(init | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY);
	if (fan < 0)
		return -errno;
	if (fanotify_mark(fan, FAN_MARK_ADD, mask, AT_FDCWD, path))
		return -errno;
	if (pthread_create(&t, NULL, use_it, &u))
		return -EAGAIN;
	p.fd = fan;
	p.events = POLLIN;
	/* until the thread is done and nothing more came for half a second */
	while (idle < 5) {
		if (poll(&p, 1, 100) == 0) {
			if (!done && !pthread_tryjoin_np(t, NULL))
				done = 1;
			idle += done;
			continue;
		}
		idle = 0;
		r = read(fan, buf, sizeof(buf));
		for (struct fanotify_event_metadata *m = (void *)buf;
		     r > 0 && FAN_EVENT_OK(m, r); m = FAN_EVENT_NEXT(m, r)) {
			*seen |= m->mask;
			if (m->mask & (FAN_OPEN_PERM | FAN_ACCESS_PERM)) {
				struct fanotify_response a = {
					.fd = m->fd, .response = FAN_ALLOW,
				};

				*perms += !!(m->mask & FAN_OPEN_PERM);
				if (write(fan, &a, sizeof(a)) != sizeof(a))
					return -errno;
			}
			if (m->fd >= 0)
				close(m->fd);
		}
	}
	close(fan);
	return u.err ? -u.err : 0;
}

#define CONTENT (FAN_OPEN_PERM | FAN_ACCESS_PERM | FAN_OPEN | FAN_ACCESS | \
		 FAN_CLOSE_NOWRITE)
#define NOTIF (FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE)

TEST(a_content_listener_sees_a_regular_file)
{
	unsigned long long seen;
	int perms, fd;

	fd = open("f", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "data\n", 5));
	close(fd);
	ASSERT_EQ(0, listen_to("f", FAN_CLASS_CONTENT, CONTENT, &seen, &perms));
	unlink("f");
	EXPECT_EQ(1, perms);
	EXPECT_EQ(CONTENT, seen & CONTENT) TH_LOG("seen %#llx", seen);
}

/* So no permission event of the device is left without its close. */
TEST(a_content_listener_sees_no_character_device)
{
	const char *devs[] = { "/dev/zero", DEVINO_PATH };
	unsigned long long seen;
	int perms, i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, listen_to(devs[i], FAN_CLASS_CONTENT, CONTENT,
				       &seen, &perms));
		EXPECT_EQ(0, perms) TH_LOG("%s", devs[i]);
		EXPECT_EQ(0, seen & CONTENT) TH_LOG("%s: seen %#llx", devs[i], seen);
	}
}

TEST(a_file_handle_listener_sees_all_of_dev_zero_and_none_of_the_device)
{
	unsigned long long seen;
	int perms;

	ASSERT_EQ(0, listen_to("/dev/zero", FAN_CLASS_NOTIF | FAN_REPORT_FID,
			       NOTIF, &seen, &perms));
	EXPECT_EQ(NOTIF, seen & NOTIF) TH_LOG("/dev/zero: seen %#llx", seen);
	ASSERT_EQ(0, listen_to(DEVINO_PATH, FAN_CLASS_NOTIF | FAN_REPORT_FID,
			       NOTIF, &seen, &perms));
	EXPECT_EQ(0, seen & NOTIF) TH_LOG("/dev/inotify: seen %#llx", seen);
}

TEST_HARNESS_MAIN
