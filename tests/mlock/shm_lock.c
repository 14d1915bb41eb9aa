// SPDX-License-Identifier: GPL-2.0
/*
 * SHM_LOCK charges the locking user, not the process: every segment a user
 * locks comes out of one RLIMIT_MEMLOCK budget (the user's ucounts), seen
 * by all of that user's processes; the charge stays with the segment after
 * the locking process exits and comes back at SHM_UNLOCK or destruction.
 * Only the owner or creator (or CAP_IPC_LOCK) may lock a segment, and
 * CAP_IPC_LOCK is not limited.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "unpriv.h"

#define LIMIT_PAGES 16

static long page;

static int set_memlock(rlim_t bytes)
{
	struct rlimit rl = { .rlim_cur = bytes, .rlim_max = bytes };

	return setrlimit(RLIMIT_MEMLOCK, &rl);
}

static int new_segment(long pages, int mode)
{
	return shmget(IPC_PRIVATE, pages * page, IPC_CREAT | mode);
}

static int shm_lock(int id)
{
	return shmctl(id, SHM_LOCK, NULL);
}

/* Runs fn in a child of this process; its exit status, or -1. */
static int in_child(int (*fn)(int), int arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(user) {
	int a, b;	/* LIMIT_PAGES-page segments of the user */
};

/* As uid 1000 without capabilities, RLIMIT_MEMLOCK = LIMIT_PAGES pages. */
FIXTURE_SETUP(user)
{
	page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, set_memlock(LIMIT_PAGES * page));
	ASSERT_EQ(0, become_unprivileged());
	self->a = new_segment(LIMIT_PAGES, 0600);
	self->b = new_segment(LIMIT_PAGES, 0600);
	ASSERT_LE(0, self->a) TH_LOG("shmget: %s", strerror(errno));
	ASSERT_LE(0, self->b);
}

FIXTURE_TEARDOWN(user)
{
	shmctl(self->a, IPC_RMID, NULL);
	shmctl(self->b, IPC_RMID, NULL);
}

TEST_F(user, lock_within_the_limit_succeeds)
{
	struct shmid_ds ds;

	ASSERT_EQ(0, shm_lock(self->a)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, shmctl(self->a, IPC_STAT, &ds));
	EXPECT_TRUE(ds.shm_perm.mode & SHM_LOCKED);
}

TEST_F(user, two_segments_share_one_budget)
{
	ASSERT_EQ(0, shm_lock(self->a));
	EXPECT_EQ(-1, shm_lock(self->b));
	EXPECT_EQ(ENOMEM, errno);
}

static int lock_segment(int id)
{
	if (shm_lock(id) == 0)
		return 0;
	return errno == ENOMEM ? 1 : 2;
}

TEST_F(user, another_process_of_the_user_sees_the_budget_used)
{
	ASSERT_EQ(0, shm_lock(self->a));
	/* 1: ENOMEM, as wanted */
	EXPECT_EQ(1, in_child(lock_segment, self->b));
}

TEST_F(user, charge_stays_with_the_segment_after_the_locker_exits)
{
	ASSERT_EQ(0, in_child(lock_segment, self->a));
	EXPECT_EQ(-1, shm_lock(self->b));
	EXPECT_EQ(ENOMEM, errno);
}

TEST_F(user, shm_unlock_gives_the_budget_back)
{
	ASSERT_EQ(0, in_child(lock_segment, self->a));
	ASSERT_EQ(0, shmctl(self->a, SHM_UNLOCK, NULL));
	EXPECT_EQ(0, shm_lock(self->b)) TH_LOG("%s", strerror(errno));
}

TEST_F(user, ipc_rmid_gives_the_budget_back)
{
	ASSERT_EQ(0, shm_lock(self->a));
	ASSERT_EQ(0, shmctl(self->a, IPC_RMID, NULL));
	EXPECT_EQ(0, shm_lock(self->b)) TH_LOG("%s", strerror(errno));
}

TEST_F(user, destruction_waits_for_the_last_detach)
{
	void *p;

	ASSERT_EQ(0, shm_lock(self->a));
	p = shmat(self->a, NULL, 0);
	ASSERT_NE((void *)-1, p);
	ASSERT_EQ(0, shmctl(self->a, IPC_RMID, NULL));
	EXPECT_EQ(-1, shm_lock(self->b));
	EXPECT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, shmdt(p));
	EXPECT_EQ(0, shm_lock(self->b)) TH_LOG("%s", strerror(errno));
}

/*
 * Become root of a new user namespace (uid 1000 mapped to 0), then
 * SHM_LOCK the segment: 0, 1 for ENOMEM, 2 for another error, 3 if the
 * namespace could not be made.
 */
static int lock_segment_in_a_user_ns(int id)
{
	if (become_root_of_a_user_ns())
		return 3;
	if (!shm_lock(id))
		return 0;
	return errno == ENOMEM ? 1 : 2;
}

/*
 * Charges go to the (user namespace, uid) pair's ucounts, and a charge
 * made in a user namespace also counts for the uid that made it: a
 * namespace is no way around its creator's limit, either way.
 */
TEST_F(user, a_user_namespace_shares_its_creators_budget)
{
	/* the budget used outside: nothing more inside */
	ASSERT_EQ(0, shm_lock(self->a));
	EXPECT_EQ(1, in_child(lock_segment_in_a_user_ns, self->b));
	ASSERT_EQ(0, shmctl(self->a, SHM_UNLOCK, NULL));
	/* used inside, by a namespace gone since: nothing more outside */
	ASSERT_EQ(0, in_child(lock_segment_in_a_user_ns, self->b));
	EXPECT_EQ(-1, shm_lock(self->a));
	EXPECT_EQ(ENOMEM, errno);
	/* and the inside's charge comes back with its segment */
	ASSERT_EQ(0, shmctl(self->b, SHM_UNLOCK, NULL));
	EXPECT_EQ(0, shm_lock(self->a)) TH_LOG("%s", strerror(errno));
}

/* Lower the limit to 0, then unlock: 0 only if SHM_UNLOCK worked. */
static int unlock_with_no_limit(int id)
{
	if (set_memlock(0))
		return 3;
	return shmctl(id, SHM_UNLOCK, NULL) ? 2 : 0;
}

/*
 * RLIMIT_MEMLOCK 0 refuses SHM_LOCK (EPERM), never SHM_UNLOCK: a process
 * that lowered its limit must still be able to give its budget back.
 */
TEST_F(user, shm_unlock_works_with_a_zero_limit)
{
	struct shmid_ds ds;

	ASSERT_EQ(0, shm_lock(self->a));
	ASSERT_EQ(0, in_child(unlock_with_no_limit, self->a));
	ASSERT_EQ(0, shmctl(self->a, IPC_STAT, &ds));
	EXPECT_FALSE(ds.shm_perm.mode & SHM_LOCKED);
	EXPECT_EQ(0, shm_lock(self->b)) TH_LOG("%s", strerror(errno));
}

TEST(user_with_a_zero_limit_gets_eperm)
{
	int id;

	page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, set_memlock(0));
	ASSERT_EQ(0, become_unprivileged());
	id = new_segment(1, 0600);
	ASSERT_LE(0, id);
	EXPECT_EQ(-1, shm_lock(id));
	EXPECT_EQ(EPERM, errno);
	shmctl(id, IPC_RMID, NULL);
}

static int lock_as_user(int id)
{
	if (set_memlock(LIMIT_PAGES * page) || become_unprivileged())
		return 3;
	if (shm_lock(id) == 0)
		return 0;
	return errno == EPERM ? 1 : 2;
}

TEST(locking_another_users_segment_is_eperm)
{
	int id;

	page = sysconf(_SC_PAGESIZE);
	id = new_segment(1, 0666);
	ASSERT_LE(0, id);
	/* 1: EPERM, as wanted */
	EXPECT_EQ(1, in_child(lock_as_user, id));
	shmctl(id, IPC_RMID, NULL);
}

/* Root keeps CAP_IPC_LOCK: its limit does not apply. */
TEST(cap_ipc_lock_is_not_limited)
{
	int id;

	page = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, set_memlock(LIMIT_PAGES * page));
	id = new_segment(4 * LIMIT_PAGES, 0600);
	ASSERT_LE(0, id);
	EXPECT_EQ(0, shm_lock(id)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, shmctl(id, SHM_UNLOCK, NULL));
	shmctl(id, IPC_RMID, NULL);
}

TEST_HARNESS_MAIN
