// SPDX-License-Identifier: GPL-2.0
/*
 * SHM_HUGETLB within RLIMIT_MEMLOCK (patch 0004): while vm.hugetlb_shm_memlock
 * is 1, a user outside vm.hugetlb_shm_group and without CAP_IPC_LOCK may
 * create huge page segments up to its limit.  The segment is charged to the
 * user's ucounts, the budget SHM_LOCK uses, and keeps the charge until it is
 * destroyed, whatever becomes of its creator; every failed shmget() gives the
 * charge back.  Group members and CAP_IPC_LOCK are neither limited nor
 * charged, and with the sysctl at 0 the user gets mainline's EPERM.
 *
 * The test body runs as root and does each user's part in a child process,
 * so the fixture can restore the sysctls it changes.  A child's function
 * returns 0 or the errno it got.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fault.h"
#include "unpriv.h"
#include "variant.h"

#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"
#define SHM_MEMLOCK	"/proc/sys/vm/hugetlb_shm_memlock"
#define SHM_GROUP	"/proc/sys/vm/hugetlb_shm_group"
#define SHMMNI		"/proc/sys/kernel/shmmni"
#define RMID_FORCED	"/proc/sys/kernel/shm_rmid_forced"

#define POOL		8	/* huge pages in the pool */
#define OTHER_GID	4242	/* a group nobody is in */
#define ROUNDS		1000

static long hp;			/* huge page size in bytes */

/* The value after NAME in /proc/meminfo ("HugePages_Free:"), or -1. */
static long meminfo(const char *name)
{
	char line[128];
	long v = -1;
	size_t len = strlen(name);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && sscanf(line + len, "%ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static long read_long(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Write S to PATH in one write(); 0 or the errno. */
static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static int write_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return write_str(path, buf);
}

static int set_memlock(rlim_t bytes)
{
	struct rlimit rl = { .rlim_cur = bytes, .rlim_max = bytes };

	return setrlimit(RLIMIT_MEMLOCK, &rl);
}

static int new_huge(long bytes)
{
	return shmget(IPC_PRIVATE, bytes, IPC_CREAT | SHM_HUGETLB | 0600);
}

/* Create a segment of BYTES and leave it: 0 or the errno. */
static int create(long bytes)
{
	return new_huge(bytes) < 0 ? errno : 0;
}

/* Create a segment of BYTES and remove it again: 0 or the errno. */
static int create_and_remove(long bytes)
{
	int id = new_huge(bytes);

	if (id < 0)
		return errno;
	return shmctl(id, IPC_RMID, NULL) ? errno : 0;
}

static int segments_in_use(void)
{
	struct shm_info info;

	if (shmctl(0, SHM_INFO, (struct shmid_ds *)&info) < 0)
		return -1;
	return info.used_ids;
}

static void remove_all_segments(void)
{
	struct shm_info info;
	struct shmid_ds ds;
	int max, i, id;

	max = shmctl(0, SHM_INFO, (struct shmid_ds *)&info);
	for (i = 0; i <= max; i++) {
		id = shmctl(i, SHM_STAT, &ds);
		if (id >= 0)
			shmctl(id, IPC_RMID, NULL);
	}
}

/* Root without CAP_IPC_LOCK and outside group 0 (vm.hugetlb_shm_group's default). */
static int become_root_without_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	gid_t gid = OTHER_GID;

	if (setgroups(1, &gid) || setresgid(gid, gid, gid))
		return -1;
	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	data[CAP_TO_INDEX(CAP_IPC_LOCK)].permitted &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	return syscall(SYS_capset, &hdr, data);
}

enum who { USER, ROOT_NO_IPC_LOCK, ROOT };

/*
 * Run fn(arg) in a child as WHO with RLIMIT_MEMLOCK = LIMIT; its return
 * value (0 or an errno), or -1 if the child could not be set up or died.
 */
static int as(enum who who, long limit, int (*fn)(long), long arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (set_memlock(limit))
			_exit(255);
		if (who == USER && become_unprivileged())
			_exit(255);
		if (who == ROOT_NO_IPC_LOCK && become_root_without_ipc_lock())
			_exit(255);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(pool) {
	long memlock, group;	/* the sysctls as they were */
};

FIXTURE_SETUP(pool)
{
	long kb = meminfo("Hugepagesize:");

	ASSERT_LT(0, kb);
	hp = kb * 1024;
	ASSERT_EQ(0, write_long(NR_HUGEPAGES, POOL));
	ASSERT_EQ(POOL, meminfo("HugePages_Total:"));
	ASSERT_EQ(POOL, meminfo("HugePages_Free:"));
	self->memlock = read_long(SHM_MEMLOCK);
	self->group = read_long(SHM_GROUP);
	ASSERT_LE(0, self->memlock);
	ASSERT_LE(0, self->group);
	ASSERT_EQ(0, write_long(SHM_MEMLOCK, 1));
	ASSERT_EQ(0, write_long(SHM_GROUP, 0));
}

FIXTURE_TEARDOWN(pool)
{
	remove_all_segments();
	write_long(SHM_MEMLOCK, self->memlock);
	write_long(SHM_GROUP, self->group);
}

TEST_F(pool, user_within_the_limit_succeeds)
{
	EXPECT_EQ(0, as(USER, 2 * hp, create, hp));
	EXPECT_EQ(1, segments_in_use());
}

TEST_F(pool, user_at_exactly_the_limit_succeeds)
{
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
}

TEST_F(pool, user_over_the_limit_gets_enomem_and_no_segment)
{
	EXPECT_EQ(ENOMEM, as(USER, 2 * hp, create, 3 * hp));
	EXPECT_EQ(0, segments_in_use());
	EXPECT_EQ(0, meminfo("HugePages_Rsvd:"));
}

/* The charge is whole huge pages: 1 byte over one page costs two. */
TEST_F(pool, the_charge_is_rounded_up_to_whole_huge_pages)
{
	ASSERT_EQ(0, as(USER, 2 * hp, create, hp + 1));
	EXPECT_EQ(ENOMEM, as(USER, 2 * hp, create, 1));
}

TEST_F(pool, user_with_a_zero_limit_gets_eperm)
{
	EXPECT_EQ(EPERM, as(USER, 0, create, hp));
	EXPECT_EQ(0, segments_in_use());
}

TEST_F(pool, the_charge_outlives_the_creating_process)
{
	ASSERT_EQ(0, as(USER, 2 * hp, create, hp));
	/* Another process of the same user finds one page left. */
	EXPECT_EQ(ENOMEM, as(USER, 2 * hp, create, 2 * hp));
	EXPECT_EQ(0, as(USER, 2 * hp, create, hp));
	EXPECT_EQ(ENOMEM, as(USER, 2 * hp, create, hp));
}

/* A shmem segment of BYTES, locked with SHM_LOCK: 0 or the errno. */
static int shm_lock_shmem(long bytes)
{
	int id = shmget(IPC_PRIVATE, bytes, IPC_CREAT | 0600);

	if (id < 0)
		return errno;
	return shmctl(id, SHM_LOCK, NULL) ? errno : 0;
}

TEST_F(pool, shm_lock_draws_on_the_same_budget)
{
	ASSERT_EQ(0, as(USER, 2 * hp, create, hp));
	EXPECT_EQ(ENOMEM, as(USER, 2 * hp, shm_lock_shmem, hp + 1));
	EXPECT_EQ(0, as(USER, 2 * hp, shm_lock_shmem, hp));
	EXPECT_EQ(ENOMEM, as(USER, 2 * hp, create, hp));
}

TEST_F(pool, ipc_rmid_gives_the_charge_back)
{
	ASSERT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
	ASSERT_EQ(ENOMEM, as(USER, 2 * hp, create, hp));
	remove_all_segments();
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
}

/* The budget is given back when the last attach goes, not at IPC_RMID. */
static int rmid_while_attached(long bytes)
{
	int id = new_huge(bytes);
	void *p;

	if (id < 0)
		return errno;
	p = shmat(id, NULL, 0);
	if (p == (void *)-1)
		return errno;
	if (shmctl(id, IPC_RMID, NULL))
		return errno;
	if (create(hp) != ENOMEM)
		return 201;	/* charge gone before the detach */
	if (shmdt(p))
		return errno;
	return create_and_remove(bytes);
}

TEST_F(pool, destruction_after_the_last_detach_gives_the_charge_back)
{
	EXPECT_EQ(0, as(USER, 2 * hp, rmid_while_attached, 2 * hp));
}

TEST_F(pool, group_member_is_neither_limited_nor_charged)
{
	ASSERT_EQ(0, write_long(SHM_GROUP, RIG_USER_GID));
	EXPECT_EQ(0, as(USER, hp, create, 3 * hp));
	ASSERT_EQ(0, write_long(SHM_GROUP, 0));
	/* Out of the group again: the three pages were not charged. */
	EXPECT_EQ(0, as(USER, hp, create, hp));
}

TEST_F(pool, cap_ipc_lock_is_neither_limited_nor_charged)
{
	EXPECT_EQ(0, as(ROOT, hp, create, 3 * hp));
	/* uid 0 without the capability: charged, and nothing was yet. */
	EXPECT_EQ(0, as(ROOT_NO_IPC_LOCK, 2 * hp, create, 2 * hp));
	EXPECT_EQ(ENOMEM, as(ROOT_NO_IPC_LOCK, 2 * hp, create, hp));
}

TEST_F(pool, sysctl_off_restores_mainlines_eperm)
{
	ASSERT_EQ(0, write_long(SHM_MEMLOCK, 0));
	EXPECT_EQ(EPERM, as(USER, 2 * hp, create, hp));
	EXPECT_EQ(0, segments_in_use());
	/* ... and leaves the group and CAP_IPC_LOCK as they were. */
	EXPECT_EQ(0, as(ROOT, 0, create, hp));
	ASSERT_EQ(0, write_long(SHM_GROUP, RIG_USER_GID));
	EXPECT_EQ(0, as(USER, 0, create, hp));
	/* Nothing was charged while it was off. */
	ASSERT_EQ(0, write_long(SHM_GROUP, 0));
	ASSERT_EQ(0, write_long(SHM_MEMLOCK, 1));
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
}

TEST_F(pool, sysctl_takes_only_0_and_1)
{
	EXPECT_EQ(EINVAL, write_str(SHM_MEMLOCK, "2\n"));
	EXPECT_EQ(EINVAL, write_str(SHM_MEMLOCK, "-1\n"));
	EXPECT_EQ(EINVAL, write_str(SHM_MEMLOCK, "on\n"));
	EXPECT_EQ(1, read_long(SHM_MEMLOCK));
	EXPECT_EQ(0, write_str(SHM_MEMLOCK, "0\n"));
	EXPECT_EQ(0, read_long(SHM_MEMLOCK));
}

static int turn_the_sysctl_off(long unused)
{
	return write_long(SHM_MEMLOCK, 0);
}

TEST_F(pool, the_sysctl_is_root_only)
{
	EXPECT_EQ(EACCES, as(USER, hp, turn_the_sysctl_off, 0));
	EXPECT_EQ(1, read_long(SHM_MEMLOCK));
}

/*
 * The charge is the segment's, not the sysctl's: turned off while charged
 * segments exist, it still lets their destruction give every page back.
 */
TEST_F(pool, turning_the_sysctl_off_keeps_the_charges_of_existing_segments)
{
	ASSERT_EQ(0, as(USER, 2 * hp, create, hp));
	ASSERT_EQ(0, as(USER, 2 * hp, create, hp));
	ASSERT_EQ(0, write_long(SHM_MEMLOCK, 0));
	remove_all_segments();
	ASSERT_EQ(0, segments_in_use());
	ASSERT_EQ(0, write_long(SHM_MEMLOCK, 1));
	/* the whole budget, not what was charged while it was on */
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
	EXPECT_EQ(ENOMEM, as(USER, 2 * hp, create, hp));
}

static int created = -1;

static int shmget_op(void *arg)
{
	created = new_huge(2 * hp);
	return created < 0 ? -errno : 0;
}

/*
 * After a failed shmget() no segment is left and the whole budget is
 * there: a segment of all of it can be created (and is removed again).
 * One that succeeded despite its fault is removed first.
 */
static int budget_whole(void *arg, int err)
{
	if (!err && shmctl(created, IPC_RMID, NULL))
		return -errno;
	if (segments_in_use())
		return -EEXIST;
	return -create_and_remove(2 * hp);
}

/* In the child, as uid 1000 with 2 huge pages of RLIMIT_MEMLOCK. */
static int shmget_fault_loop(long unused)
{
	struct fault_run run;
	int ret;

	ret = fault_loop(shmget_op, budget_whole, NULL, 500, &run);
	if (!ret && shmctl(created, IPC_RMID, NULL))
		ret = -errno;
	return fault_loop_report("shmget(SHM_HUGETLB) as uid 1000", ret, &run) ?
	       206 : 0;
}

TEST_F(pool, a_failed_shmget_gives_the_charge_back_at_every_fault)
{
	if (!rig_debug_kernel())
		SKIP(return, "fault injection runs on the debug kernel only");
	ASSERT_TRUE(fault_injection_available());
	ASSERT_EQ(0, fault_injection_setup());
	ASSERT_EQ(0, as(USER, 2 * hp, shmget_fault_loop, 0));
	EXPECT_EQ(0, segments_in_use());
	EXPECT_EQ(0, meminfo("HugePages_Rsvd:"));
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
}

/* Within the limit but more than the pool: the reservation fails. */
TEST_F(pool, failed_reservation_gives_the_charge_back)
{
	EXPECT_EQ(ENOMEM, as(USER, 2 * POOL * hp, create, (POOL + 1) * hp));
	EXPECT_EQ(0, segments_in_use());
	EXPECT_EQ(0, meminfo("HugePages_Rsvd:"));
	EXPECT_EQ(0, as(USER, POOL * hp, create, POOL * hp));
}

/* No free id: ipc_addid() fails after the file exists. */
TEST_F(pool, failed_id_allocation_gives_the_charge_back)
{
	long shmmni = read_long(SHMMNI);

	ASSERT_LT(0, shmmni);
	ASSERT_EQ(0, write_long(SHMMNI, 0));
	EXPECT_EQ(ENOSPC, as(USER, 2 * hp, create, 2 * hp));
	ASSERT_EQ(0, write_long(SHMMNI, shmmni));
	EXPECT_EQ(0, segments_in_use());
	EXPECT_EQ(POOL, meminfo("HugePages_Free:"));
	EXPECT_EQ(0, meminfo("HugePages_Rsvd:"));
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
}

TEST_F(pool, shm_rmid_forced_gives_the_charge_back_at_exit)
{
	long forced = read_long(RMID_FORCED);

	ASSERT_LE(0, forced);
	ASSERT_EQ(0, write_long(RMID_FORCED, 1));
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
	EXPECT_EQ(0, segments_in_use());
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
	write_long(RMID_FORCED, forced);
}

/* In a new IPC namespace: create and leave; the namespace dies with us. */
static int create_in_new_ipc_ns(long bytes)
{
	if (unshare(CLONE_NEWIPC))
		return errno;
	if (become_root_without_ipc_lock())
		return 202;
	return create(bytes);
}

TEST_F(pool, ipc_namespace_teardown_gives_the_charge_back)
{
	struct timespec step = { 0, 50 * 1000 * 1000 };
	int tries;

	ASSERT_EQ(0, as(ROOT, 2 * hp, create_in_new_ipc_ns, 2 * hp));
	/*
	 * The namespace is freed from a workqueue after the child exits;
	 * wait up to 30 s for its segment's reservation to go (the pages
	 * were never touched, so HugePages_Free does not move).
	 */
	for (tries = 0; tries < 600; tries++) {
		if (meminfo("HugePages_Rsvd:") == 0)
			break;
		nanosleep(&step, NULL);
	}
	ASSERT_EQ(0, meminfo("HugePages_Rsvd:"));
	EXPECT_EQ(0, as(ROOT_NO_IPC_LOCK, 2 * hp, create, 2 * hp));
}

/*
 * ROUNDS times each: fill the budget and IPC_RMID; fill it, attach,
 * IPC_RMID, detach; ask for more than it; ask for more than the pool
 * (within a limit raised by the caller for that).  The budget is whole
 * afterwards.
 */
static int fill_and_release(long limit)
{
	void *p;
	int i, id, err;

	for (i = 0; i < ROUNDS; i++) {
		err = create_and_remove(limit);
		if (err)
			return err;
		id = new_huge(limit);
		if (id < 0)
			return errno;
		p = shmat(id, NULL, 0);
		if (p == (void *)-1)
			return errno;
		if (shmctl(id, IPC_RMID, NULL) || shmdt(p))
			return errno;
		if (create(limit + hp) != ENOMEM)
			return 203;
	}
	return 0;
}

static int ask_for_more_than_the_pool(long unused)
{
	int i;

	for (i = 0; i < ROUNDS; i++)
		if (create((POOL + 1) * hp) != ENOMEM)
			return 204;
	return 0;
}

TEST_F(pool, a_thousand_rounds_leave_the_budget_whole)
{
	ASSERT_EQ(0, as(USER, 2 * hp, fill_and_release, 2 * hp));
	ASSERT_EQ(0, as(USER, 2 * POOL * hp, ask_for_more_than_the_pool, 0));
	EXPECT_EQ(0, segments_in_use());
	EXPECT_EQ(POOL, meminfo("HugePages_Free:"));
	EXPECT_EQ(0, meminfo("HugePages_Rsvd:"));
	EXPECT_EQ(0, as(USER, 2 * hp, create, 2 * hp));
	EXPECT_EQ(ENOMEM, as(USER, 2 * hp, create, hp));
}

/* A plain TEST: runs without the fixture's writes to the sysctl. */
TEST(the_sysctl_is_on_in_this_config)
{
	EXPECT_EQ(1, read_long(SHM_MEMLOCK));
}

TEST_HARNESS_MAIN
