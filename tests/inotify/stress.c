// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency: threads add and remove watches while others create, write,
 * rename and delete, a reader drains, and instances are closed while
 * events are being delivered to them.  Every record read must be well
 * formed; the kernel must report nothing (the debug kernel's KASAN,
 * lockdep and kmemleak are the real judges here).  And while watches are
 * ignored, or their files deleted, as events arrive for them, no record
 * of a wd may come after that wd's IN_IGNORED.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>

#include "kselftest_harness.h"
#include "kmsg.h"
#include "sysfs_file.h"
#include "variant.h"
#include "devino.h"

#define DIRS 4
#define FILES 8
#define KNOWN (INOTIFY_DEV_BITS)
#define INOTIFY_DEV_BITS (IN_ACCESS | IN_MODIFY | IN_CREATE | IN_DELETE | \
	IN_RENAME | IN_ATTRIB | IN_MOVE | IN_UNMOUNT | IN_CLOSE | IN_OPEN | \
	IN_IGNORED | IN_Q_OVERFLOW)

static atomic_int stop;
static int shared_fd = -1;
static atomic_long records, bad_records, watch_errors, rounds;

static void path_of(char *buf, size_t len, unsigned int r)
{
	if (r % 3 == 0)
		snprintf(buf, len, "s%u", r / 3 % DIRS);
	else
		snprintf(buf, len, "s%u/f%u", r % DIRS, r / 7 % FILES);
}

static void *watcher(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[32];
	int wd;

	while (!stop) {
		int fd = shared_fd;

		path_of(path, sizeof(path), rand_r(&seed));
		wd = devino_watch(fd, path, rand_r(&seed) | IN_CREATE);
		/* the file may have been renamed away or deleted */
		if (wd < 0 && wd != -ENOENT)
			watch_errors++;
		if (rand_r(&seed) % 2)
			devino_ignore(fd, rand_r(&seed) % 64);
	}
	return NULL;
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char a[32], b[32];
	int f;

	while (!stop) {
		snprintf(a, sizeof(a), "s%u/f%u", rand_r(&seed) % DIRS,
			 rand_r(&seed) % FILES);
		snprintf(b, sizeof(b), "s%u/f%u", rand_r(&seed) % DIRS,
			 rand_r(&seed) % FILES);
		switch (rand_r(&seed) % 4) {
		case 0:
			f = open(a, O_CREAT | O_WRONLY, 0644);
			if (f >= 0) {
				if (write(f, "x", 1) != 1)
					watch_errors++;
				close(f);
			}
			break;
		case 1:
			rename(a, b);
			break;
		case 2:
			unlink(a);
			break;
		case 3:
			chmod(a, 0600 | (rand_r(&seed) & 044));
			break;
		}
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct inotify_event ev[32];
	ssize_t r;
	int i;

	while (!stop) {
		r = read(shared_fd, ev, sizeof(ev));
		if (r < 0)
			continue;
		if (r % REC_SIZE)
			bad_records++;
		for (i = 0; i < r / REC_SIZE; i++) {
			records++;
			if (ev[i].wd < -1 || !ev[i].mask ||
			    (ev[i].mask & ~KNOWN) ||
			    !memchr(ev[i].filename, 0, sizeof(ev[i].filename)))
				bad_records++;
		}
	}
	return NULL;
}

TEST(watch_churn_with_file_churn_and_closes)
{
	pthread_t t[6];
	struct timespec end, now, nap = { 0, 20 * 1000 * 1000 };
	char path[32];
	int i, seconds = 4;

	for (i = 0; i < DIRS; i++) {
		snprintf(path, sizeof(path), "s%d", i);
		ASSERT_EQ(0, mkdir(path, 0755));
	}
	shared_fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, shared_fd);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_create(&t[i], NULL, watcher, (void *)(long)i + 1));
		ASSERT_EQ(0, pthread_create(&t[2 + i], NULL, worker, (void *)(long)i + 7));
	}
	ASSERT_EQ(0, pthread_create(&t[4], NULL, reader, NULL));
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	do {
		/* a private instance, closed while events are arriving */
		int fd = devino_open(O_NONBLOCK);

		ASSERT_LE(0, fd);
		for (i = 0; i < DIRS; i++) {
			snprintf(path, sizeof(path), "s%d", i);
			ASSERT_LE(0, devino_watch(fd, path, IN_ALL_EVENTS));
		}
		nanosleep(&nap, NULL);
		ASSERT_EQ(0, close(fd));
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	stop = 1;
	for (i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	close(shared_fd);
	TH_LOG("%ld rounds, %ld records read", (long)rounds, (long)records);
	ASSERT_EQ(0, bad_records);
	ASSERT_EQ(0, watch_errors);
	ASSERT_LT(0, records);
	system("rm -rf s0 s1 s2 s3");
}

#define MORTALS 8		/* files whose watches are ended and made again */
#define MAX_WD (1 << 20)	/* wds are cyclic: none comes back in a run */

static int mortal_wd[MORTALS];
static unsigned char ignored[MAX_WD / 8];
static atomic_long late_records, ignored_seen, ends, overflows;

static void *toucher(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[32];

	while (!stop) {
		snprintf(path, sizeof(path), "m%u", rand_r(&seed) % MORTALS);
		chmod(path, 0600 | (rand_r(&seed) & 044));
	}
	return NULL;
}

/* INOTIFY_IGNORE a watch, or delete its file, then watch a new one. */
static void *ender(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[32];
	unsigned int i;
	int wd;

	while (!stop) {
		i = rand_r(&seed) % MORTALS;
		snprintf(path, sizeof(path), "m%u", i);
		if (rand_r(&seed) % 2) {
			if (devino_ignore(shared_fd, mortal_wd[i]))
				watch_errors++;
		} else if (unlink(path) || mknod(path, S_IFREG | 0644, 0)) {
			watch_errors++;
		}
		wd = devino_watch(shared_fd, path, IN_ATTRIB);
		if (wd < 0 || wd >= MAX_WD)
			watch_errors++;
		else
			mortal_wd[i] = wd;
		ends++;
	}
	return NULL;
}

/*
 * The only reader: the order it reads is the queue's.  An overflow would
 * hide records, late ones included, so it fails the test too.
 */
static void *ignored_checker(void *arg)
{
	struct pollfd p = { .fd = shared_fd, .events = POLLIN };
	struct inotify_event ev[32];
	ssize_t r;
	int i, wd;

	while (!stop) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		r = read(shared_fd, ev, sizeof(ev));
		for (i = 0; i < r / REC_SIZE; i++) {
			wd = ev[i].wd;
			if (ev[i].mask & IN_Q_OVERFLOW)
				overflows++;
			if (wd < 0 || wd >= MAX_WD)
				continue;
			if (ignored[wd / 8] & (1 << wd % 8))
				late_records++;
			if (ev[i].mask == IN_IGNORED) {
				ignored[wd / 8] |= 1 << wd % 8;
				ignored_seen++;
			}
		}
	}
	return NULL;
}

#define MAX_QUEUED "/proc/sys/fs/inotify/max_queued_events"

FIXTURE(ignored) {
	char old_max[32];
};

/*
 * A queue long enough that a reader stalled on a busy host does not let it
 * overflow: an overflow hides records, and so fails the test.
 */
FIXTURE_SETUP(ignored)
{
	ASSERT_LE(0, sysfs_read(MAX_QUEUED, self->old_max, sizeof(self->old_max)));
	ASSERT_EQ(0, sysfs_write(MAX_QUEUED, "1048576"));
}

/* In the parent: the limit comes back even after a timeout. */
FIXTURE_TEARDOWN_PARENT(ignored)
{
	sysfs_write(MAX_QUEUED, self->old_max);
}

TEST_F(ignored, no_record_follows_its_watchs_ignored)
{
	struct timespec nap = { 4, 0 };
	pthread_t t[4];
	char path[32];
	int i;

	shared_fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, shared_fd);
	for (i = 0; i < MORTALS; i++) {
		snprintf(path, sizeof(path), "m%d", i);
		ASSERT_EQ(0, mknod(path, S_IFREG | 0644, 0));
		mortal_wd[i] = devino_watch(shared_fd, path, IN_ATTRIB);
		ASSERT_LE(0, mortal_wd[i]);
	}
	stop = 0;
	ASSERT_EQ(0, pthread_create(&t[0], NULL, toucher, (void *)1L));
	ASSERT_EQ(0, pthread_create(&t[1], NULL, toucher, (void *)2L));
	ASSERT_EQ(0, pthread_create(&t[2], NULL, ender, (void *)3L));
	ASSERT_EQ(0, pthread_create(&t[3], NULL, ignored_checker, NULL));
	nanosleep(&nap, NULL);
	stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	close(shared_fd);
	TH_LOG("%ld watches ended, %ld IN_IGNORED read, %ld records after one",
	       (long)ends, (long)ignored_seen, (long)late_records);
	EXPECT_EQ(0, watch_errors);
	EXPECT_LT(0, ignored_seen);
	EXPECT_EQ(0, late_records);
	EXPECT_EQ(0, overflows);
	system("rm -f m*");
}

static int racy_fd = -1, steady_fd = -1;
static atomic_long unmounts, unmount_records;
static atomic_int last_error;

/* "u" (a tmpfs mounted and lazily unmounted over and over) or a file in it */
static void u_path(char *buf, size_t len, unsigned int r)
{
	if (r % 4 == 0)
		snprintf(buf, len, "u");
	else
		snprintf(buf, len, "u/f%u", r % FILES);
}

static void racy_error(int err)
{
	watch_errors++;
	last_error = err;
}

/*
 * WATCH and IGNORE on whatever instance racy_fd holds now: the closer may
 * replace it under us, and the mounter may take the file system away
 * between the path lookup and the mark (ENOENT).
 */
static void *racy_watcher(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[32];
	int wd;

	while (!stop) {
		u_path(path, sizeof(path), rand_r(&seed));
		wd = devino_watch(racy_fd, path, IN_ALL_EVENTS);
		if (wd < 0 && wd != -ENOENT)
			racy_error(-wd);
		/* the unmount or the close may have ended the wd already */
		if (wd >= 0 && rand_r(&seed) % 2)
			devino_ignore(racy_fd, wd);
	}
	return NULL;
}

/*
 * A new instance in racy_fd's place, over and over: dup2() closes the old
 * one while the watchers may be in an ioctl on it, whose file reference
 * then makes the watcher, not the closer, release the instance.
 */
static void *closer(void *arg)
{
	struct inotify_event ev[16];
	ssize_t r;
	int fd, i;

	while (!stop) {
		/* what the instance queued: well formed, unmounts counted */
		while ((r = read(racy_fd, ev, sizeof(ev))) > 0) {
			for (i = 0; i < r / REC_SIZE; i++) {
				if (ev[i].mask & IN_UNMOUNT)
					unmount_records++;
				if (!ev[i].mask || (ev[i].mask & ~KNOWN))
					bad_records++;
			}
		}
		fd = devino_open(O_NONBLOCK);
		if (fd < 0 || dup2(fd, racy_fd) != racy_fd) {
			racy_error(errno);
			break;
		}
		close(fd);
		rounds++;
	}
	return NULL;
}

/* Mount a tmpfs on "u", fill it, and detach it while it is being watched. */
static void *mounter(void *arg)
{
	struct timespec nap = { 0, 2 * 1000 * 1000 };
	char path[32];
	int i, wd;

	while (!stop) {
		if (mount("tmpfs", "u", "tmpfs", 0, "size=1m")) {
			racy_error(errno);
			break;
		}
		for (i = 0; i < FILES; i++) {
			snprintf(path, sizeof(path), "u/f%d", i);
			close(open(path, O_CREAT | O_WRONLY, 0644));
		}
		/* an instance nobody closes: each unmount must reach it */
		wd = devino_watch(steady_fd, "u", IN_RENAME);
		if (wd < 0)
			racy_error(-wd);
		nanosleep(&nap, NULL);
		if (umount2("u", MNT_DETACH)) {
			racy_error(errno);
			break;
		}
		unmounts++;
	}
	return NULL;
}

/*
 * Instances closed, and the watched file system unmounted, while other
 * threads add and remove watches on them: the kernel must report nothing,
 * leak nothing and leave no busy inode, and every unmount must reach a
 * watch on an instance left open (one IN_UNMOUNT record each).
 */
TEST(unmount_and_close_race_watch_and_ignore)
{
	struct timespec nap = { rig_rounds(3, 2), 0 };
	struct inotify_event ev[16];
	long steady_unmounts;
	pthread_t t[4];
	ssize_t r;
	int i;

	ASSERT_EQ(0, mkdir("u", 0755));
	steady_fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, steady_fd);
	stop = 0;
	rounds = 0;
	bad_records = 0;
	watch_errors = 0;
	racy_fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, racy_fd);
	ASSERT_EQ(0, pthread_create(&t[0], NULL, mounter, NULL));
	ASSERT_EQ(0, pthread_create(&t[1], NULL, closer, NULL));
	ASSERT_EQ(0, pthread_create(&t[2], NULL, racy_watcher, (void *)5L));
	ASSERT_EQ(0, pthread_create(&t[3], NULL, racy_watcher, (void *)6L));
	nanosleep(&nap, NULL);
	stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	close(racy_fd);
	umount2("u", MNT_DETACH);
	rmdir("u");
	/*
	 * Whether a closed instance had read its IN_UNMOUNT first is luck;
	 * the steady instance's count is not: the last reference to each
	 * detached mount went before its holder's system call returned.
	 */
	TH_LOG("%ld unmounts, %ld instances closed, %ld IN_UNMOUNT read on them",
	       (long)unmounts, (long)rounds, (long)unmount_records);
	steady_unmounts = 0;
	while ((r = read(steady_fd, ev, sizeof(ev))) > 0)
		for (i = 0; i < r / REC_SIZE; i++)
			if (ev[i].mask & IN_UNMOUNT)
				steady_unmounts++;
	close(steady_fd);
	if (watch_errors)
		TH_LOG("%ld errors, the last %s", (long)watch_errors,
		       strerror(last_error));
	EXPECT_EQ(0, watch_errors);
	EXPECT_EQ(0, bad_records);
	EXPECT_LT(0, unmounts);
	EXPECT_LT(0, rounds);
	EXPECT_EQ(unmounts, steady_unmounts);
	EXPECT_EQ(0, kmsg_count("Busy inodes"));
}

#define READERS 4
#define MAX_WRITES 20000

static atomic_long read_total;
static atomic_int readers_done;
static long seen_seq[MAX_WRITES];

/*
 * A reader of many on one fd: each record it gets is one chmod's, whose
 * mode (its low bits) and name say which write made it; none may come
 * twice.  Short reads with small buffers make the readers interleave.
 */
static void *many_reader(void *arg)
{
	struct pollfd p = { .fd = shared_fd, .events = POLLIN };
	struct inotify_event ev[3];
	long idx;
	ssize_t r;
	int i;

	while (!stop || poll(&p, 1, 0) > 0) {
		if (poll(&p, 1, 50) <= 0)
			continue;
		r = read(shared_fd, ev, sizeof(ev));
		for (i = 0; i < r / REC_SIZE; i++) {
			if (ev[i].mask & IN_Q_OVERFLOW) {
				overflows++;
				continue;
			}
			idx = strtol(ev[i].filename + 1, NULL, 10);
			if (idx < 0 || idx >= MAX_WRITES ||
			    __atomic_fetch_add(&seen_seq[idx], 1, __ATOMIC_RELAXED))
				late_records++;	/* a record handed out twice */
			read_total++;
		}
	}
	readers_done++;
	return NULL;
}

/*
 * Several readers on one fd drain a full queue at once: every record is
 * read exactly once (read() takes events off the queue only under its
 * mutex, after peeking and copying them).  Each record is a file created,
 * named after its number, so no two merge; they are all queued before
 * the readers start, so that the readers contend for them.
 */
TEST(several_readers_on_one_fd_read_each_record_once)
{
	int writes = rig_rounds(MAX_WRITES / 2, 5000);
	pthread_t t[READERS];
	char path[32];
	int i, wd, fd;

	ASSERT_EQ(0, mkdir("r", 0755));
	shared_fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, shared_fd);
	wd = devino_watch(shared_fd, "r", IN_CREATE);
	ASSERT_LE(0, wd);
	for (i = 0; i < writes; i++) {
		snprintf(path, sizeof(path), "r/n%d", i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		ASSERT_LE(0, fd);
		close(fd);
	}
	/* the readers end once the queue is empty */
	stop = 1;
	late_records = 0;
	overflows = 0;
	for (i = 0; i < READERS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, many_reader, NULL));
	for (i = 0; i < READERS; i++)
		pthread_join(t[i], NULL);
	close(shared_fd);
	TH_LOG("%d creates, %ld records read by %d readers", writes,
	       (long)read_total, READERS);
	EXPECT_EQ(0, overflows);
	EXPECT_EQ(0, late_records);
	EXPECT_EQ(writes, read_total);
	system("rm -rf r");
}

TEST_HARNESS_MAIN
