// SPDX-License-Identifier: GPL-2.0
/*
 * A reader whose buffer faults slowly, here a userfaultfd page nobody has
 * filled yet, holds up no other reader of the same file: another thread's
 * read() gets the queued records at once, blocking or O_NONBLOCK, instead
 * of sleeping until the page arrives.  The slow reader goes on once it
 * does, with the record queued meanwhile, and no record is lost or handed
 * out twice.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "devino.h"

#define QUEUED 3

FIXTURE(slow) {
	int fd, wd, uffd;
	char *page;
	long page_size;
};

FIXTURE_VARIANT(slow) {
	int flags;
};

FIXTURE_VARIANT_ADD(slow, blocking) {
	.flags = 0,
};

FIXTURE_VARIANT_ADD(slow, nonblocking) {
	.flags = O_NONBLOCK,
};

FIXTURE_SETUP(slow)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	self->page_size = sysconf(_SC_PAGESIZE);
	self->page = mmap(NULL, self->page_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->page);
	self->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, self->uffd) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_API, &api));
	reg.range.start = (unsigned long)self->page;
	reg.range.len = self->page_size;
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_REGISTER, &reg));

	unlink("f");	/* a failed test's teardown may not have run */
	ASSERT_EQ(0, mknod("f", S_IFREG | 0644, 0));
	self->fd = devino_open(variant->flags);
	ASSERT_LE(0, self->fd);
	self->wd = devino_watch(self->fd, "f", IN_ATTRIB | IN_OPEN);
	ASSERT_LE(0, self->wd);
}

FIXTURE_TEARDOWN(slow)
{
	close(self->fd);
	close(self->uffd);
	munmap(self->page, self->page_size);
	unlink("f");
}

/* Record i is IN_ATTRIB when i is even, IN_OPEN when odd: none merges. */
static int record_mask(int i)
{
	return i % 2 ? IN_OPEN : IN_ATTRIB;
}

static int make_records(int n, int first)
{
	int i, fd;

	for (i = first; i < first + n; i++) {
		if (record_mask(i) == IN_ATTRIB) {
			if (chmod("f", i % 4 ? 0644 : 0600))
				return -errno;
			continue;
		}
		fd = open("f", O_RDONLY);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	return 0;
}

struct slow_read {
	int fd;
	char *buf;
	ssize_t ret;
	int err;
};

static void *slow_reader(void *arg)
{
	struct slow_read *r = arg;

	r->ret = read(r->fd, r->buf, QUEUED * REC_SIZE);
	r->err = errno;
	return NULL;
}

static void on_alarm(int sig)
{
}

TEST_F(slow, a_reader_stuck_on_a_fault_holds_up_no_other_reader)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct inotify_event got[QUEUED + 1];
	struct slow_read r = { .fd = self->fd, .buf = self->page };
	struct uffdio_zeropage zero = {
		.range = { (unsigned long)self->page, self->page_size },
	};
	struct pollfd pfd = { .fd = self->uffd, .events = POLLIN };
	struct uffd_msg msg;
	pthread_t t;
	ssize_t n;
	int i, more;

	ASSERT_EQ(0, make_records(QUEUED, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, slow_reader, &r));
	/* the slow reader is in the fault once userfaultfd reports it */
	ASSERT_EQ(1, poll(&pfd, 1, 20000));
	ASSERT_EQ(sizeof(msg), read(self->uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* no SA_RESTART: on a kernel that makes us wait, the alarm ends it */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	alarm(10);
	n = read(self->fd, got, sizeof(got));
	alarm(0);
	ASSERT_EQ(QUEUED * REC_SIZE, n)
		TH_LOG("the other reader's read(): %s",
		       n < 0 ? strerror(errno) : "short");
	for (i = 0; i < QUEUED; i++) {
		EXPECT_EQ(self->wd, got[i].wd);
		EXPECT_EQ(record_mask(i), got[i].mask);
	}
	/* the queue is empty now: O_NONBLOCK says so at once */
	if (variant->flags & O_NONBLOCK) {
		alarm(10);
		n = read(self->fd, got, sizeof(got));
		alarm(0);
		EXPECT_EQ(-1, n);
		EXPECT_EQ(EAGAIN, errno);
	}

	/* one more record, then the page: the slow reader goes on */
	ASSERT_EQ(0, make_records(1, QUEUED));
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_ZEROPAGE, &zero));
	ASSERT_EQ(0, pthread_join(t, NULL));
	more = devino_drain(self->fd, got, ARRAY_LEN(got));
	/* the last record, queued before the page came, and only there */
	ASSERT_EQ(REC_SIZE, r.ret) TH_LOG("the slow read(): %s",
					  r.ret < 0 ? strerror(r.err) : "");
	EXPECT_EQ(self->wd, ((struct inotify_event *)self->page)->wd);
	EXPECT_EQ(record_mask(QUEUED),
		  ((struct inotify_event *)self->page)->mask);
	EXPECT_EQ(0, more);
}

TEST_HARNESS_MAIN
