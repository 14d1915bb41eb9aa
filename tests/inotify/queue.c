// SPDX-License-Identifier: GPL-2.0
/*
 * The queue: overflow ends it with one IN_Q_OVERFLOW record, read() hands
 * out as many whole records as fit, over several batches, with nothing but
 * zeroes after each name, and loses none on a fault, readers are
 * woken at once (read, poll, epoll, SIGIO), FIONREAD counts bytes.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
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
