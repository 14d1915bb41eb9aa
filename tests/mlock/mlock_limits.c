// SPDX-License-Identifier: GPL-2.0
/*
 * The process side of the 2004 mlock-as-user patch, on 6.12 as it is: an
 * ordinary user (uid 1000, no capabilities) may lock memory up to
 * RLIMIT_MEMLOCK through mlock, mlock2, mlockall and MAP_LOCKED, gets ENOMEM
 * (EAGAIN for mmap, as the seed's do_mmap_pgoff) beyond it and EPERM with a
 * limit of 0; CAP_IPC_LOCK lifts the limit.  Each test runs in its own
 * process (the harness forks), so it may drop its privileges for good.
 */
#include <alloca.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mlock_test.h"
#include "unpriv.h"

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 0x01
#endif

#define LIMIT_PAGES 16

static long page;

static int set_memlock(rlim_t bytes)
{
	struct rlimit rl = { .rlim_cur = bytes, .rlim_max = bytes };

	return setrlimit(RLIMIT_MEMLOCK, &rl);
}

static void *map_pages(long n, int flags)
{
	void *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

FIXTURE(user) {
	char *buf;	/* twice the limit, not locked */
};

/* As uid 1000 without capabilities, RLIMIT_MEMLOCK = LIMIT_PAGES pages. */
FIXTURE_SETUP(user)
{
	page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, set_memlock(LIMIT_PAGES * page));
	ASSERT_EQ(0, become_unprivileged()) TH_LOG("%s", strerror(errno));
	self->buf = map_pages(2 * LIMIT_PAGES, 0);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, vmlck_kb());
}

FIXTURE_TEARDOWN(user)
{
}

TEST_F(user, mlock_within_the_limit_succeeds)
{
	ASSERT_EQ(0, mlock(self->buf, LIMIT_PAGES * page))
		TH_LOG("%s", strerror(errno));
	EXPECT_EQ(LIMIT_PAGES * page / 1024, vmlck_kb());
}

TEST_F(user, mlock_over_the_limit_is_enomem)
{
	EXPECT_EQ(-1, mlock(self->buf, (LIMIT_PAGES + 1) * page));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(0, vmlck_kb());
}

TEST_F(user, limit_counts_what_is_already_locked)
{
	ASSERT_EQ(0, mlock(self->buf, (LIMIT_PAGES - 1) * page));
	EXPECT_EQ(-1, mlock(self->buf + LIMIT_PAGES * page, 2 * page));
	EXPECT_EQ(ENOMEM, errno);
	/* Relocking what is locked costs nothing. */
	EXPECT_EQ(0, mlock(self->buf, (LIMIT_PAGES - 1) * page));
	EXPECT_EQ(0, mlock(self->buf + LIMIT_PAGES * page, page));
	EXPECT_EQ(LIMIT_PAGES * page / 1024, vmlck_kb());
}

TEST_F(user, munlock_gives_the_budget_back)
{
	ASSERT_EQ(0, mlock(self->buf, LIMIT_PAGES * page));
	ASSERT_EQ(0, munlock(self->buf, LIMIT_PAGES * page));
	EXPECT_EQ(0, vmlck_kb());
	EXPECT_EQ(0, mlock(self->buf + LIMIT_PAGES * page, LIMIT_PAGES * page));
}

TEST_F(user, mlock2_onfault_within_and_over_the_limit)
{
	ASSERT_EQ(0, mlock2(self->buf, LIMIT_PAGES * page, MLOCK_ONFAULT))
		TH_LOG("%s", strerror(errno));
	/* On fault: VmLck counts the range, resident or not. */
	EXPECT_EQ(LIMIT_PAGES * page / 1024, vmlck_kb());
	EXPECT_EQ(-1, mlock2(self->buf + LIMIT_PAGES * page, page,
			     MLOCK_ONFAULT));
	EXPECT_EQ(ENOMEM, errno);
}

TEST_F(user, mlockall_current_over_the_limit_is_enomem)
{
	/* The process maps more than LIMIT_PAGES pages: buf alone does. */
	EXPECT_EQ(-1, mlockall(MCL_CURRENT));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(0, vmlck_kb());
}

TEST_F(user, mcl_future_locks_new_mappings_up_to_the_limit)
{
	char *a, *b;

	ASSERT_EQ(0, mlockall(MCL_FUTURE)) TH_LOG("%s", strerror(errno));
	a = map_pages(LIMIT_PAGES / 2, 0);
	ASSERT_NE(NULL, a) TH_LOG("within the limit: %s", strerror(errno));
	EXPECT_EQ(LIMIT_PAGES / 2 * page / 1024, vmlck_kb());
	b = map_pages(LIMIT_PAGES, 0);
	EXPECT_EQ(NULL, b);
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(user, mcl_future_brk_beyond_the_limit_fails)
{
	void *start;

	ASSERT_EQ(0, mlockall(MCL_FUTURE));
	start = sbrk(0);
	ASSERT_NE((void *)-1, sbrk(LIMIT_PAGES / 2 * page))
		TH_LOG("within the limit: %s", strerror(errno));
	EXPECT_EQ((void *)-1, sbrk(LIMIT_PAGES * page));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(0, brk(start));
}

TEST_F(user, map_locked_within_the_limit_succeeds)
{
	char *p = map_pages(LIMIT_PAGES, MAP_LOCKED);

	ASSERT_NE(NULL, p) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(LIMIT_PAGES * page / 1024, vmlck_kb());
}

TEST_F(user, map_locked_over_the_limit_is_eagain)
{
	EXPECT_EQ(NULL, map_pages(LIMIT_PAGES + 1, MAP_LOCKED));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, vmlck_kb());
}

/*
 * The 2004 patch refused to grow a locked mapping past the limit in
 * mremap() with EAGAIN, as mainline does: growing to exactly the limit
 * works, one page more fails and leaves the mapping as it was.
 */
TEST_F(user, mremap_growing_a_locked_mapping_past_the_limit_is_eagain)
{
	char *p = map_pages(LIMIT_PAGES / 2, MAP_LOCKED), *q;

	ASSERT_NE(NULL, p) TH_LOG("%s", strerror(errno));
	q = mremap(p, LIMIT_PAGES / 2 * page, LIMIT_PAGES * page,
		   MREMAP_MAYMOVE);
	ASSERT_NE(MAP_FAILED, q) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(LIMIT_PAGES * page / 1024, vmlck_kb());
	EXPECT_EQ(MAP_FAILED, mremap(q, LIMIT_PAGES * page,
				     (LIMIT_PAGES + 1) * page, MREMAP_MAYMOVE));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(LIMIT_PAGES * page / 1024, vmlck_kb());
	/* shrinking is always allowed, and gives the budget back */
	q = mremap(q, LIMIT_PAGES * page, page, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(page / 1024, vmlck_kb());
}

TEST(user_with_a_zero_limit_gets_eperm)
{
	char *p;

	page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, set_memlock(0));
	ASSERT_EQ(0, become_unprivileged());
	p = map_pages(1, 0);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(-1, mlock(p, page));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, mlockall(MCL_CURRENT));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(NULL, map_pages(1, MAP_LOCKED));
	EXPECT_EQ(EPERM, errno);
}

/* Touch n bytes of stack below this frame, a page at a time. */
static int __attribute__((noinline)) grow_stack(long n)
{
	volatile char *p = alloca(n);
	long i;

	for (i = n - 1; i >= 0; i -= page)
		p[i] = 1;
	return p[0];
}

/*
 * In a child as uid 1000: a locked stack (MCL_CURRENT | MCL_FUTURE) may
 * grow by grow bytes?  Its exit status: 0 if it grew, or the signal that
 * killed it.  RLIMIT_STACK is lifted, so only RLIMIT_MEMLOCK can stop it.
 */
static int stack_grows(long limit, long grow)
{
	struct rlimit stack = { RLIM_INFINITY, RLIM_INFINITY };
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (setrlimit(RLIMIT_STACK, &stack) || set_memlock(limit) ||
		    become_unprivileged() || mlockall(MCL_CURRENT | MCL_FUTURE))
			_exit(100);
		grow_stack(grow);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return WEXITSTATUS(status);
}

TEST(locked_stack_grows_within_the_limit_not_beyond)
{
	page = sysconf(_SC_PAGESIZE);
	/* 8 MiB (mainline's default limit) covers this small static program. */
	EXPECT_EQ(0, stack_grows(8 << 20, 2 << 20));
	EXPECT_EQ(SIGSEGV, stack_grows(8 << 20, 16 << 20));
	/* The control: the same growth under a larger limit. */
	EXPECT_EQ(0, stack_grows(64 << 20, 16 << 20));
}

/* Root keeps CAP_IPC_LOCK: the limit does not apply. */
TEST(cap_ipc_lock_is_not_limited)
{
	char *p;

	page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, set_memlock(LIMIT_PAGES * page));
	p = map_pages(4 * LIMIT_PAGES, 0);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, mlock(p, 4 * LIMIT_PAGES * page))
		TH_LOG("%s", strerror(errno));
	EXPECT_EQ(4 * LIMIT_PAGES * page / 1024, vmlck_kb());
	EXPECT_NE(NULL, map_pages(2 * LIMIT_PAGES, MAP_LOCKED));
	ASSERT_EQ(0, set_memlock(0));
	EXPECT_EQ(0, munlock(p, page));
	EXPECT_EQ(0, mlock(p, page)) TH_LOG("limit 0: %s", strerror(errno));
}

TEST_HARNESS_MAIN
