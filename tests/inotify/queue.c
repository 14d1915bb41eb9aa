// SPDX-License-Identifier: GPL-2.0
/*
 * The queue: overflow ends it with one IN_Q_OVERFLOW record, read() hands
 * out as many whole records as fit, over several batches, with nothing but
 * zeroes after each name, and loses none on a fault, readers are
 * woken at once (read, poll, epoll, SIGIO), FIONREAD counts bytes.
 */
#include <poll.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "variant.h"
#include "devino.h"

#define MAX_QUEUED "/proc/sys/fs/inotify/max_queued_events"

FIXTURE(queue) {
	int fd, wd;
	char old_max[32];
};

FIXTURE_SETUP(queue)
{
	ASSERT_LE(0, sysfs_read(MAX_QUEUED, self->old_max, sizeof(self->old_max)));
	ASSERT_EQ(0, mknod("f", S_IFREG | 0644, 0));
	self->fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	self->wd = devino_watch(self->fd, "f", IN_ATTRIB | IN_OPEN | IN_CLOSE);
	ASSERT_LE(0, self->wd);
}

/*
 * In the parent: the queue limit comes back even after a timeout.  (The
 * fd is the test child's, closed when it exits.)
 */
FIXTURE_TEARDOWN_PARENT(queue)
{
	sysfs_write(MAX_QUEUED, self->old_max);
	unlink("f");
}

/* n records that cannot merge: chmod alternating between two modes */
static void make_events(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		chmod("f", i % 2 ? 0644 : 0600);
		close(open("f", O_RDONLY));
	}
}

TEST_F(queue, a_full_queue_ends_with_one_overflow_record)
{
	struct inotify_event ev[16];
	int fd, n, wd, i;

	ASSERT_EQ(0, sysfs_write(MAX_QUEUED, "5"));
	fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	wd = devino_watch(fd, "f", IN_ATTRIB | IN_OPEN);
	ASSERT_LE(0, wd);
	/* ATTRIB, OPEN, ATTRIB...: no two alike in a row, none merged */
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, chmod("f", i % 2 ? 0644 : 0600));
		close(open("f", O_RDONLY));
	}
	n = devino_drain(fd, ev, ARRAY_LEN(ev));
	ASSERT_EQ(6, n);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(wd, ev[i].wd);
		ASSERT_EQ(i % 2 ? IN_OPEN : IN_ATTRIB, ev[i].mask);
	}
	ASSERT_EQ(-1, ev[5].wd);
	ASSERT_EQ(IN_Q_OVERFLOW, ev[5].mask);
	ASSERT_EQ(0, ev[5].filename[0]);
	/* drained, the queue takes events again */
	ASSERT_EQ(0, chmod("f", 0600));
	EXPECT_RECORDS(fd, { wd, IN_ATTRIB, "" });
	close(fd);
}

TEST_F(queue, read_returns_every_whole_record_that_fits)
{
	struct inotify_event ev[8];
	ssize_t r;

	make_events(3);	/* 3 x (ATTRIB, OPEN, CLOSE) = 9 records */
	r = read(self->fd, ev, 2 * REC_SIZE + REC_SIZE / 2);
	ASSERT_EQ(2 * REC_SIZE, r);
	r = read(self->fd, ev, sizeof(ev));
	ASSERT_EQ(7 * REC_SIZE, r);
	ASSERT_EQ(IN_ATTRIB, ev[1].mask);
	ASSERT_EQ(IN_CLOSE, ev[6].mask);
}

/* name i: a letter, then i % 3 picks 200, 0 or 49 more of them */
static void long_or_short_name(char *name, int i)
{
	static const int more[3] = { 200, 0, 49 };

	memset(name, 'a' + i % 26, 1 + more[i % 3]);
	name[1 + more[i % 3]] = '\0';
}

TEST(records_in_many_reads_hold_each_name_and_zeroes_after_it)
{
	struct inotify_event ev[64];
	char name[256];
	int fd, dir, wd, i, j, k, round;
	ssize_t r;

	ASSERT_EQ(0, mkdir("d", 0755));
	dir = open("d", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dir);
	fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	wd = devino_watch(fd, "d", IN_CREATE);
	ASSERT_LE(0, wd);
	/* names long and short in turn, read back 40, then 64 at a time */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 40; i++) {
			long_or_short_name(name, i + round);
			ASSERT_EQ(0, mknodat(dir, name, S_IFREG | 0644, 0));
		}
		r = read(fd, ev, sizeof(ev));
		ASSERT_EQ(40 * REC_SIZE, r);
		for (i = 0; i < 40; i++) {
			long_or_short_name(name, i + round);
			ASSERT_EQ(wd, ev[i].wd);
			ASSERT_EQ(IN_CREATE, ev[i].mask);
			ASSERT_STREQ(name, ev[i].filename);
			k = strlen(name);
			for (j = k; j < 256; j++)
				ASSERT_EQ(0, ev[i].filename[j]) {
					TH_LOG("record %d byte %d after \"%s\"", i, j, name);
				}
			ASSERT_EQ(0, unlinkat(dir, name, 0));
		}
	}
	close(fd);
	close(dir);
	rmdir("d");
}

TEST_F(queue, a_buffer_under_one_record_is_einval)
{
	char buf[REC_SIZE];

	make_events(1);
	ASSERT_EQ(-1, read(self->fd, buf, REC_SIZE - 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, read(self->fd, buf, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(REC_SIZE, read(self->fd, buf, REC_SIZE));
}

TEST_F(queue, an_empty_nonblocking_read_is_eagain)
{
	struct inotify_event ev;

	ASSERT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	ASSERT_EQ(EAGAIN, errno);
}

TEST_F(queue, fionread_counts_the_queued_bytes)
{
	int q = -1;

	ASSERT_EQ(0, ioctl(self->fd, FIONREAD, &q));
	ASSERT_EQ(0, q);
	make_events(2);
	ASSERT_EQ(0, ioctl(self->fd, FIONREAD, &q));
	ASSERT_EQ(6 * REC_SIZE, q);
}

/*
 * FIONREAD's int holds the bytes of 8,134,407 records (INT_MAX / 264); a
 * longer queue must report the whole records one read() can return
 * (MAX_RW_COUNT, INT_MAX rounded down to a page, is 8,134,392 of them),
 * never a wrapped negative count.  8.1 million records take some 330 MB (group.conf asks
 * for the memory); the debug kernel, where KASAN and kmemleak track each
 * one, cannot hold them, so there the same test queues 20,000 and checks
 * the product below the clamp.  The -m32 build, whose compat ioctl reaches
 * the same code, queues 200,000: one clamp run a boot is enough.
 */
#define MAX_RW_COUNT (INT_MAX & ~(sysconf(_SC_PAGESIZE) - 1))
#define FIONREAD_RECORDS (MAX_RW_COUNT / REC_SIZE)

struct attrib_writer {
	int fd[2];
	long n;
};

/* n IN_ATTRIB records, alternating between two watched files: none merge. */
static void *attrib_writer(void *arg)
{
	struct attrib_writer *w = arg;
	long i;

	for (i = 0; i < w->n; i++)
		if (fchmod(w->fd[i & 1], 0644))
			return (void *)-1L;
	return NULL;
}

TEST_F_TIMEOUT(queue, fionread_stops_at_the_whole_records_an_int_holds, 600)
{
	long total = rig_rounds(sizeof(long) == 8 ? FIONREAD_RECORDS + 1000 :
				200000, 20000);
	struct attrib_writer w[2];
	pthread_t th[2];
	char max[32], name[8];
	int fd, q, stats, i, j;
	void *ret;

	snprintf(max, sizeof(max), "%ld", total + 10);
	ASSERT_EQ(0, sysfs_write(MAX_QUEUED, max));
	fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	/* two writers, on two CPUs, each with its own pair of files */
	for (i = 0; i < 2; i++) {
		w[i].n = total / 2;
		for (j = 0; j < 2; j++) {
			snprintf(name, sizeof(name), "a%d%d", i, j);
			w[i].fd[j] = open(name, O_CREAT | O_RDONLY | O_CLOEXEC, 0644);
			ASSERT_LE(0, w[i].fd[j]);
			ASSERT_LE(0, devino_watch(fd, name, IN_ATTRIB));
		}
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, attrib_writer, &w[i]));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(th[i], &ret));
		ASSERT_EQ(NULL, ret);
	}
	ASSERT_EQ(0, ioctl(fd, INOTIFY_STATS, &stats));
	ASSERT_EQ(0, ioctl(fd, FIONREAD, &q));
	TH_LOG("%d records queued, FIONREAD %d", stats, q);
	/* no record is like the one before it: none merged, every one queued */
	ASSERT_EQ(total / 2 * 2, stats);
	if (stats > FIONREAD_RECORDS) {
		ASSERT_EQ(FIONREAD_RECORDS * REC_SIZE, q);
	} else {
		ASSERT_EQ(stats * REC_SIZE, q);
	}
	/* a whole number of records, which one read() can take */
	ASSERT_EQ(0, q % REC_SIZE);
	close(fd);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			close(w[i].fd[j]);
			snprintf(name, sizeof(name), "a%d%d", i, j);
			unlink(name);
		}
}

TEST_F(queue, a_fault_loses_no_event)
{
	struct inotify_event ev[4];
	char *map;
	long page = sysconf(_SC_PAGESIZE);
	/* an address no program maps, hidden from the compiler's checks */
	void *volatile bad = (void *)8;

	make_events(1);
	/* nothing copied: EFAULT, and the three records stay queued */
	ASSERT_EQ(-1, read(self->fd, bad, sizeof(ev)));
	ASSERT_EQ(EFAULT, errno);
	/* one record fits before an unmapped page: 1 record, not EFAULT */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + page, page));
	ASSERT_EQ(REC_SIZE, read(self->fd, map + page - REC_SIZE - 8, 3 * REC_SIZE));
	ASSERT_EQ(IN_ATTRIB, ((struct inotify_event *)(map + page - REC_SIZE - 8))->mask);
	ASSERT_EQ(0, munmap(map, page));
	EXPECT_RECORDS(self->fd, { self->wd, IN_OPEN, "" },
		       { self->wd, IN_CLOSE, "" });
}

/*
 * read() takes up to 32 events at a time off the queue (inotify_dev_user.c):
 * a fault in a later batch ends the read after the whole records before
 * it, and every record from there on is still queued, in order.  The
 * buffer's pages are touched first, so that the unmapped page after the
 * 69th record is the only fault, in the third batch; the second test
 * leaves them untouched, so that the read also faults them in on its way.
 */
static void later_batch_fault(struct __test_metadata *_metadata, bool touch)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd, dir, wd, i, n, fit = 2 * 32 + 5, total = fit + 20;
	struct inotify_event *buf, ev[64];
	char name[16], *map;
	size_t len;

	ASSERT_EQ(0, mkdir("d", 0755));
	dir = open("d", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dir);
	fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	wd = devino_watch(fd, "d", IN_CREATE);
	ASSERT_LE(0, wd);
	for (i = 0; i < total; i++) {
		snprintf(name, sizeof(name), "n%02d", i);
		ASSERT_EQ(0, mknodat(dir, name, S_IFREG | 0644, 0));
	}
	/* pages for 69 records, then an unmapped one just after the 69th */
	len = ((fit * REC_SIZE + 8) / page + 2) * page;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + len - page, page));
	if (touch)
		memset(map, 0xff, len - page);
	buf = (void *)(map + len - page - fit * REC_SIZE - 8);
	ASSERT_EQ(fit * REC_SIZE, read(fd, buf, total * REC_SIZE));
	for (i = 0; i < fit; i++) {
		snprintf(name, sizeof(name), "n%02d", i);
		ASSERT_EQ(wd, buf[i].wd);
		ASSERT_STREQ(name, buf[i].filename);
	}
	ASSERT_EQ(0, munmap(map, len - page));
	n = devino_drain(fd, ev, ARRAY_LEN(ev));
	ASSERT_EQ(total - fit, n);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%02d", fit + i);
		ASSERT_STREQ(name, ev[i].filename);
	}
	close(fd);
	close(dir);
	system("rm -rf d");
}

TEST(a_fault_in_a_later_batch_loses_no_event)
{
	later_batch_fault(_metadata, true);
}

TEST(a_fault_in_a_later_batch_after_faulting_pages_in_loses_no_event)
{
	later_batch_fault(_metadata, false);
}

/*
 * A watch removed while the queue is full: its IN_IGNORED is one of the
 * records the overflow record stands for, as in mainline; the queue ends
 * with that one overflow record, and the watch is gone all the same.
 */
TEST_F(queue, a_watch_removed_on_a_full_queue_is_gone_behind_the_overflow)
{
	struct inotify_event ev[16];
	int fd, wd, n, i;

	ASSERT_EQ(0, sysfs_write(MAX_QUEUED, "4"));
	fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	wd = devino_watch(fd, "f", IN_ATTRIB | IN_OPEN);
	ASSERT_LE(0, wd);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, chmod("f", i % 2 ? 0644 : 0600));
		close(open("f", O_RDONLY));
	}
	ASSERT_EQ(0, devino_ignore(fd, wd));
	n = devino_drain(fd, ev, ARRAY_LEN(ev));
	ASSERT_EQ(5, n);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(wd, ev[i].wd);
	ASSERT_EQ(-1, ev[4].wd);
	ASSERT_EQ(IN_Q_OVERFLOW, ev[4].mask);
	/* the wd is free: no longer a watch, no records from the file */
	ASSERT_EQ(-EINVAL, devino_ignore(fd, wd));
	ASSERT_EQ(0, chmod("f", 0600));
	EXPECT_NO_RECORDS(fd);
	close(fd);
}

static void *chmod_later(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	chmod(arg, 0600);
	return NULL;
}

TEST_F(queue, a_blocked_read_is_woken_by_an_event)
{
	int fd = devino_open(0);
	struct inotify_event ev[4];
	pthread_t t;
	int wd;

	ASSERT_LE(0, fd);
	wd = devino_watch(fd, "f", IN_ATTRIB);
	ASSERT_LE(0, wd);
	ASSERT_EQ(0, pthread_create(&t, NULL, chmod_later, "f"));
	ASSERT_EQ(REC_SIZE, read(fd, ev, sizeof(ev)));
	ASSERT_EQ(wd, ev[0].wd);
	ASSERT_EQ(IN_ATTRIB, ev[0].mask);
	pthread_join(t, NULL);
	close(fd);
}

static void on_alarm(int sig)
{
}

TEST_F(queue, a_signal_interrupts_a_blocked_read)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct inotify_event ev;
	int fd = devino_open(0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	alarm(1);
	ASSERT_EQ(-1, read(fd, &ev, sizeof(ev)));
	ASSERT_EQ(EINTR, errno);
	close(fd);
}

TEST_F(queue, poll_and_epoll_say_pollin_when_events_are_queued)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	struct epoll_event ee = { .events = EPOLLIN }, out;
	int ep = epoll_create1(0);
	pthread_t t;

	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ee));
	ASSERT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(0, epoll_wait(ep, &out, 1, 0));
	/* a poll asleep before the event is woken by it */
	ASSERT_EQ(0, pthread_create(&t, NULL, chmod_later, "f"));
	ASSERT_EQ(1, poll(&p, 1, 5000));
	ASSERT_EQ(POLLIN, p.revents & POLLIN);
	pthread_join(t, NULL);
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(EPOLLIN, out.events & EPOLLIN);
	EXPECT_RECORDS(self->fd, { self->wd, IN_ATTRIB, "" });
	ASSERT_EQ(0, poll(&p, 1, 0));
	close(ep);
}

static volatile sig_atomic_t sigio_count;

static void on_sigio(int sig)
{
	sigio_count++;
}

TEST_F(queue, o_async_sends_sigio_on_an_event)
{
	struct sigaction sa = { .sa_handler = on_sigio };

	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	ASSERT_EQ(0, fcntl(self->fd, F_SETOWN, getpid()));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK | O_ASYNC));
	ASSERT_EQ(0, sigio_count);
	ASSERT_EQ(0, chmod("f", 0600));
	ASSERT_LT(0, sigio_count);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
}

TEST_HARNESS_MAIN
