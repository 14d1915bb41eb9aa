// SPDX-License-Identifier: GPL-2.0
/*
 * The device's entry points with each allocation of the calling thread
 * failing in turn (tests/lib/fault.h, the debug kernel only): open(),
 * INOTIFY_WATCH, INOTIFY_IGNORE, read() into a buffer not yet faulted in,
 * and queueing the records of a watched directory's events.
 *
 * Each loop runs as uid 1000, which owns nothing else here, with
 * fs.inotify.max_user_instances or max_user_watches at exactly what the
 * loop needs: after every failed try the count must be back, or the next
 * open or watch of the check gets EMFILE or ENOSPC.  Every failed try must
 * leave no watch and no record behind; an event whose record could not be
 * allocated must show as the overflow record, never vanish.  The rig's
 * kmemleak scan and log checker see leaks and kernel reports (a failed
 * open used to hit a WARN_ON_ONCE on the uninitialised idr).
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "fault.h"
#include "sysfs_file.h"
#include "unpriv.h"
#include "variant.h"
#include "devino.h"

#define MAX_INSTANCES "/proc/sys/fs/inotify/max_user_instances"
#define MAX_WATCHES "/proc/sys/fs/inotify/max_user_watches"
#define DIR_MASK (IN_CREATE | IN_DELETE | IN_OPEN | IN_CLOSE | IN_ATTRIB)

/* A child's exit codes besides the loop's verdict (1). */
enum { SETUP_FAILED = 2 };

FIXTURE(fault) {
	char old_instances[32], old_watches[32];
};

FIXTURE_SETUP(fault)
{
	if (!rig_debug_kernel())
		SKIP(return, "fault injection runs on the debug kernel only");
	ASSERT_TRUE(fault_injection_available());
	ASSERT_EQ(0, fault_injection_setup());
	ASSERT_LE(0, sysfs_read(MAX_INSTANCES, self->old_instances, 32));
	ASSERT_LE(0, sysfs_read(MAX_WATCHES, self->old_watches, 32));
	/* what an earlier test's failed setup may have left */
	system("rm -rf w");
	ASSERT_EQ(0, mkdir("w", 0755));
	ASSERT_EQ(0, chown("w", RIG_USER_UID, RIG_USER_GID));
}

/*
 * In the parent: an ASSERT's longjmp in the test can lose the grandchild's
 * teardown, and a limit left at 1 would fail every later program.
 */
FIXTURE_TEARDOWN_PARENT(fault)
{
	if (!rig_debug_kernel())
		return;
	sysfs_write(MAX_INSTANCES, self->old_instances);
	sysfs_write(MAX_WATCHES, self->old_watches);
	system("rm -rf w");
}

/* A file of uid 1000's, which it may chmod. */
static int user_file(const char *path)
{
	return mknod(path, S_IFREG | 0644, 0) ||
	       chown(path, RIG_USER_UID, RIG_USER_GID) ? -errno : 0;
}

/* Run fn as uid 1000 (fault_loop() makes its fail-nth its own). */
static int as_user(int (*fn)(void *arg))
{
	return run_unprivileged(fn, NULL);
}

static int loop_verdict(const char *what, int ret, const struct fault_run *run)
{
	return fault_loop_report(what, ret, run) ? 1 : 0;
}

/*
 * A loop must also have reached the outcome it is about: 0 if @count
 * such tries were seen, else 1 after saying so.
 */
static int reached(const char *what, const char *outcome, int count)
{
	if (count)
		return 0;
	fprintf(stderr, "# %s: no try %s\n", what, outcome);
	return 1;
}

/* --- open() --- */

static int opened = -1;

static int open_op(void *arg)
{
	opened = devino_open(O_NONBLOCK);
	return opened < 0 ? -errno : 0;
}

/* max_user_instances is 1: a count kept by a failed open makes this EMFILE. */
static int instance_count_is_back(void *arg, int err)
{
	int fd;

	if (!err)
		close(opened);
	fd = devino_open(0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int open_loop(void *arg)
{
	struct fault_run run;
	int ret;

	ret = fault_loop(open_op, instance_count_is_back, NULL, 200, &run);
	if (!ret)
		close(opened);
	return loop_verdict("open(/dev/inotify)", ret, &run);
}

TEST_F(fault, open_fails_cleanly_and_gives_the_instance_back)
{
	ASSERT_EQ(0, sysfs_write(MAX_INSTANCES, "1"));
	ASSERT_EQ(0, as_user(open_loop));
}

/* --- INOTIFY_WATCH --- */

static int dev = -1, watched = -1;

static int watch_op(void *arg)
{
	watched = devino_watch(dev, "w/f", IN_ATTRIB);
	return watched < 0 ? watched : 0;
}

/*
 * max_user_watches is 1: a count kept by a failed watch makes the check's
 * own watch ENOSPC.  A failed watch must also see nothing: chmod of w/f
 * queues no record.
 */
static int watch_count_is_back(void *arg, int err)
{
	struct inotify_event ev[4];
	int n, wd;

	if (!err && devino_ignore(dev, watched))
		return -EIO;
	if (chmod("w/f", 0600) || chmod("w/f", 0644))
		return -errno;
	n = devino_drain(dev, ev, ARRAY_LEN(ev));
	/* after a try that succeeded, only its IN_IGNORED or the overflow */
	if (n != !err)
		return n < 0 ? n : -EEXIST;
	wd = devino_watch(dev, "w/g", IN_ATTRIB);
	if (wd < 0)
		return wd;
	if (devino_ignore(dev, wd) || devino_drain(dev, ev, ARRAY_LEN(ev)) != 1)
		return -EIO;
	return 0;
}

static int watch_loop(void *arg)
{
	struct fault_run run;
	int ret;

	dev = devino_open(O_NONBLOCK);
	if (dev < 0)
		return SETUP_FAILED;
	ret = fault_loop(watch_op, watch_count_is_back, NULL, 200, &run);
	ret = loop_verdict("INOTIFY_WATCH", ret, &run);
	close(dev);
	return ret;
}

TEST_F(fault, watch_fails_cleanly_and_gives_the_watch_back)
{
	ASSERT_EQ(0, user_file("w/f"));
	ASSERT_EQ(0, user_file("w/g"));
	ASSERT_EQ(0, sysfs_write(MAX_WATCHES, "1"));
	ASSERT_EQ(0, as_user(watch_loop));
}

/* --- INOTIFY_IGNORE --- */

static int ignore_op(void *arg)
{
	return devino_ignore(dev, watched);
}

/*
 * IN_IGNORED, or the overflow record if its record could not be allocated:
 * the watch is gone either way, and the reader is told.
 */
static int overflows;

static int ignored_or_overflow(void)
{
	struct inotify_event ev[4];
	int n = devino_drain(dev, ev, ARRAY_LEN(ev));

	if (n != 1)
		return n < 0 ? n : -EIO;
	if (ev[0].wd == watched && ev[0].mask == IN_IGNORED)
		return 0;
	if (ev[0].wd == -1 && ev[0].mask == IN_Q_OVERFLOW) {
		overflows++;
		return 0;
	}
	devino_print("neither IN_IGNORED nor the overflow", &ev[0]);
	return -EPROTO;
}

static int rewatch(void *arg, int err)
{
	int ret;

	/* INOTIFY_IGNORE has nothing to fail: the watch went either way */
	if (err)
		return -EEXIST;
	ret = ignored_or_overflow();
	if (ret)
		return ret;
	watched = devino_watch(dev, "w/f", IN_ATTRIB);
	return watched < 0 ? watched : 0;
}

static int ignore_loop(void *arg)
{
	struct fault_run run;
	int ret;

	dev = devino_open(O_NONBLOCK);
	if (dev < 0)
		return SETUP_FAILED;
	watched = devino_watch(dev, "w/f", IN_ATTRIB);
	if (watched < 0)
		return SETUP_FAILED;
	ret = fault_loop(ignore_op, rewatch, NULL, 50, &run);
	if (!ret)
		ret = ignored_or_overflow();
	ret = loop_verdict("INOTIFY_IGNORE", ret, &run) ||
	      reached("INOTIFY_IGNORE", "made the overflow record", overflows);
	close(dev);
	return ret;
}

TEST_F(fault, ignore_always_ends_the_watch_and_says_so)
{
	ASSERT_EQ(0, user_file("w/f"));
	ASSERT_EQ(0, as_user(ignore_loop));
}

/* --- read() --- */

/* Records that cannot merge, more than one batch (32) of the read: 13 x 3. */
#define QUEUED 39

static struct inotify_event got[QUEUED];
static int got_n, efaults, short_reads;

static int make_records(void)
{
	int i, fd;

	for (i = 0; i < QUEUED / 3; i++) {
		if (chmod("w/f", i % 2 ? 0644 : 0600))
			return -errno;
		fd = open("w/f", O_RDONLY);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	return 0;
}

static int records_are_whole(const struct inotify_event *ev, int n)
{
	static const int masks[] = { IN_ATTRIB, IN_OPEN, IN_CLOSE };
	int i;

	if (n != QUEUED)
		return -ENODATA;
	for (i = 0; i < n; i++)
		if (ev[i].wd != watched || ev[i].mask != masks[i % 3] ||
		    ev[i].filename[0])
			return -EPROTO;
	return 0;
}

/*
 * Into a fresh mapping, so the copy has pages to fault in: a page that
 * cannot be allocated makes read() stop at the last whole record, or give
 * EFAULT if there was none, which here is the allocation's failure.
 */
static int read_op(void *arg)
{
	size_t len = QUEUED * REC_SIZE;
	ssize_t r;
	void *buf;

	got_n = 0;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -errno;
	r = read(dev, buf, len);
	if (r > 0) {
		memcpy(got, buf, r);
		got_n = r / REC_SIZE;
	}
	munmap(buf, len);
	if (r < 0 && errno == EFAULT) {
		efaults++;
		return -ENOMEM;
	}
	if (r < 0)
		return -errno;
	if (got_n < QUEUED)
		short_reads++;
	return r % REC_SIZE ? -EIO : 0;
}

/* What was read and what is still queued are the records, in order. */
static int nothing_lost(void *arg, int err)
{
	int n, ret;

	n = devino_drain(dev, got + got_n, QUEUED - got_n);
	if (n < 0)
		return n;
	ret = records_are_whole(got, got_n + n);
	if (ret) {
		fprintf(stderr, "# read %d records, then %d were queued\n",
			got_n, n);
		return ret;
	}
	return make_records();
}

static int read_loop(void *arg)
{
	struct fault_run run;
	int ret;

	dev = devino_open(O_NONBLOCK);
	if (dev < 0)
		return SETUP_FAILED;
	watched = devino_watch(dev, "w/f", IN_ATTRIB | IN_OPEN | IN_CLOSE);
	if (watched < 0 || make_records())
		return SETUP_FAILED;
	ret = fault_loop(read_op, nothing_lost, NULL, 100, &run);
	if (!ret && got_n != QUEUED)
		ret = -ENODATA;
	ret = loop_verdict("read()", ret, &run) ||
	      reached("read()", "was EFAULT", efaults) ||
	      reached("read()", "was a short read", short_reads);
	close(dev);
	return ret;
}

TEST_F(fault, read_loses_no_record_when_the_buffer_cannot_be_faulted_in)
{
	ASSERT_EQ(0, user_file("w/f"));
	ASSERT_EQ(0, as_user(read_loop));
}

/* --- queueing the records of events --- */

static int create_op(void *arg)
{
	int fd = open("w/new", O_RDONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * A failed creat() made no file and no record.  One that succeeded made
 * its three records, one of which may have become the overflow record
 * (only one allocation fails per try).
 */
static int created_or_overflow(void *arg, int err)
{
	static const int masks[] = { IN_CREATE, IN_OPEN, IN_CLOSE };
	struct inotify_event ev[8];
	int i, n, seen = 0;

	n = devino_drain(dev, ev, ARRAY_LEN(ev));
	if (n < 0)
		return n;
	if (err)
		return n || !access("w/new", F_OK) ? -EEXIST : 0;
	if (n != ARRAY_LEN(masks))
		return -ENODATA;
	for (i = 0; i < n; i++) {
		if (ev[i].wd == -1 && ev[i].mask == IN_Q_OVERFLOW &&
		    !ev[i].filename[0] && !seen++) {
			overflows++;
			continue;
		}
		if (ev[i].wd != watched || ev[i].mask != masks[i] ||
		    strcmp(ev[i].filename, "new")) {
			devino_print("unexpected", &ev[i]);
			return -EPROTO;
		}
	}
	return unlink("w/new") || devino_drain(dev, ev, ARRAY_LEN(ev)) != 1 ?
	       -EIO : 0;
}

static int create_loop(void *arg)
{
	struct fault_run run;
	int ret;

	dev = devino_open(O_NONBLOCK);
	if (dev < 0)
		return SETUP_FAILED;
	watched = devino_watch(dev, "w", DIR_MASK);
	if (watched < 0)
		return SETUP_FAILED;
	ret = fault_loop(create_op, created_or_overflow, NULL, 500, &run);
	if (!ret)
		ret = created_or_overflow(NULL, 0);
	ret = loop_verdict("records of a creat() in a watched directory",
			   ret, &run) ||
	      reached("records of a creat()", "made the overflow record",
		      overflows);
	close(dev);
	return ret;
}

TEST_F(fault, a_record_that_cannot_be_allocated_becomes_the_overflow)
{
	ASSERT_EQ(0, as_user(create_loop));
}

TEST_HARNESS_MAIN
