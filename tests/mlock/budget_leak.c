// SPDX-License-Identifier: GPL-2.0
/*
 * Locking and releasing the whole budget 1,000 times, in every form, leaves
 * the whole budget: afterwards the limit can still be filled exactly, and
 * not exceeded.  A charge without its uncharge (or the reverse) shows here
 * as a lock that fails early or one that succeeds over the limit.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mlock_test.h"
#include "unpriv.h"

#define LIMIT_PAGES	16
#define ROUNDS		1000

static long page;

/* The hard limit the mlockall test raises the soft one to. */
#define HARD_LIMIT	(64 << 20)

static int set_memlock(rlim_t bytes)
{
	struct rlimit rl = { .rlim_cur = bytes, .rlim_max = HARD_LIMIT };

	return setrlimit(RLIMIT_MEMLOCK, &rl);
}

FIXTURE(user) {
	char *buf;
	int seg, big;	/* LIMIT_PAGES and LIMIT_PAGES + 1 pages */
};

FIXTURE_SETUP(user)
{
	page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, set_memlock(LIMIT_PAGES * page));
	ASSERT_EQ(0, become_unprivileged());
	self->buf = mmap(NULL, 2 * LIMIT_PAGES * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	self->seg = shmget(IPC_PRIVATE, LIMIT_PAGES * page, IPC_CREAT | 0600);
	self->big = shmget(IPC_PRIVATE, (LIMIT_PAGES + 1) * page,
			   IPC_CREAT | 0600);
	ASSERT_LE(0, self->seg);
	ASSERT_LE(0, self->big);
}

FIXTURE_TEARDOWN(user)
{
	shmctl(self->seg, IPC_RMID, NULL);
	shmctl(self->big, IPC_RMID, NULL);
}

/* The process budget and the user's shm budget are both whole. */
static void expect_budget_whole(struct __test_metadata *_metadata,
				FIXTURE_DATA(user) *self)
{
	EXPECT_EQ(0, vmlck_kb());
	EXPECT_EQ(0, mlock(self->buf, LIMIT_PAGES * page))
		TH_LOG("process budget short: %s", strerror(errno));
	EXPECT_EQ(0, munlock(self->buf, LIMIT_PAGES * page));
	EXPECT_EQ(-1, mlock(self->buf, (LIMIT_PAGES + 1) * page))
		TH_LOG("process budget over the limit");
	EXPECT_EQ(0, shmctl(self->seg, SHM_LOCK, NULL))
		TH_LOG("shm budget short: %s", strerror(errno));
	EXPECT_EQ(0, shmctl(self->seg, SHM_UNLOCK, NULL));
	EXPECT_EQ(-1, shmctl(self->big, SHM_LOCK, NULL))
		TH_LOG("shm budget over the limit");
	EXPECT_EQ(ENOMEM, errno);
}

TEST_F(user, mlock_and_munlock)
{
	int i;

	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(0, mlock(self->buf, LIMIT_PAGES * page))
			TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_EQ(0, munlock(self->buf, LIMIT_PAGES * page));
	}
	expect_budget_whole(_metadata, self);
}

TEST_F(user, mlock2_onfault_and_munmap)
{
	char *p;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		p = mmap(NULL, LIMIT_PAGES * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, p);
		ASSERT_EQ(0, mlock2(p, LIMIT_PAGES * page, MLOCK_ONFAULT))
			TH_LOG("round %d: %s", i, strerror(errno));
		p[0] = 1;
		ASSERT_EQ(0, munmap(p, LIMIT_PAGES * page));
	}
	expect_budget_whole(_metadata, self);
}

TEST_F(user, map_locked_and_munmap)
{
	char *p;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		p = mmap(NULL, LIMIT_PAGES * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
		ASSERT_NE(MAP_FAILED, p) TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_EQ(0, munmap(p, LIMIT_PAGES * page));
	}
	expect_budget_whole(_metadata, self);
}

TEST_F(user, shm_lock_and_unlock)
{
	int i;

	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(0, shmctl(self->seg, SHM_LOCK, NULL))
			TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_EQ(0, shmctl(self->seg, SHM_UNLOCK, NULL));
	}
	expect_budget_whole(_metadata, self);
}

TEST_F(user, shm_lock_and_destroy)
{
	int i, id;

	for (i = 0; i < ROUNDS; i++) {
		id = shmget(IPC_PRIVATE, LIMIT_PAGES * page, IPC_CREAT | 0600);
		ASSERT_LE(0, id) TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_EQ(0, shmctl(id, SHM_LOCK, NULL))
			TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_EQ(0, shmctl(id, IPC_RMID, NULL));
	}
	expect_budget_whole(_metadata, self);
}

/* mlockall needs a limit above the whole process: raise it for the loop. */
TEST_F(user, mlockall_and_munlockall)
{
	int i;

	ASSERT_EQ(0, set_memlock(HARD_LIMIT));
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(0, mlockall(MCL_CURRENT))
			TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_EQ(0, munlockall());
	}
	ASSERT_EQ(0, set_memlock(LIMIT_PAGES * page));
	expect_budget_whole(_metadata, self);
}

TEST_HARNESS_MAIN
