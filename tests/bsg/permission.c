// SPDX-License-Identifier: GPL-2.0
/*
 * bsg's permission rules, as uid 1000 without capabilities: the node's mode
 * decides who opens it; then a read-safe command (INQUIRY, READ(10)) goes
 * through any open, a write command (WRITE(10)) only through a node open
 * for writing, and any other command needs CAP_SYS_RAWIO.  The same rules
 * hold for SG_IO and for io_uring (IORING_OP_URING_CMD), and a user with
 * CAP_SYS_RAWIO alone may send any command.
 */
#include <grp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "kselftest_harness.h"
#include "unpriv.h"
#include "bsg_test.h"
#include "bsg_uring.h"

FIXTURE(perm) {
	struct sdebug_disk d;
};

FIXTURE_SETUP(perm)
{
	ASSERT_EQ(0, sdebug_disk_add(&self->d));
}

FIXTURE_TEARDOWN(perm)
{
	EXPECT_EQ(0, sdebug_disk_remove(&self->d));
}

static const char *node;

/* 0 if opening the node as the user is EACCES, as its mode 0600 says */
static int open_refused(void *arg)
{
	return open(node, O_RDONLY) == -1 && errno == EACCES ? 0 : 1;
}

TEST_F(perm, the_nodes_mode_keeps_the_user_out)
{
	struct stat st;

	ASSERT_EQ(0, stat(self->d.bsg, &st));
	ASSERT_EQ(0600, st.st_mode & 0777);
	node = self->d.bsg;
	ASSERT_EQ(0, run_unprivileged(open_refused, NULL));
}

/* Send commands through io_uring rather than SG_IO. */
static int via_uring;

/*
 * One command on a fresh open of the node: 0, -2000 if its SCSI status
 * was not GOOD, -1000 - errno if the node did not open, or -errno.
 */
static int command(int flags, const unsigned char *cdb, int write)
{
	static unsigned char buf[512];
	unsigned char sense[32];
	struct scsi_outcome res;
	struct uring r;
	int fd = open(node, flags), ret;
	unsigned int len = cdb[0] == 0x12 || cdb[0] >= 0xc0 ? 6 : 10;

	if (fd < 0)
		return -1000 - errno;
	if (via_uring) {
		struct ucqe cqe = { 0 };

		ret = uring_init(&r, 4, SQE128_CQE32);
		if (!ret)
			ret = bsg_uring_one(&r, fd, cdb, len, write ? NULL : buf,
					    write ? 0 : sizeof(buf),
					    write ? buf : NULL,
					    write ? sizeof(buf) : 0, sense,
					    sizeof(sense), &cqe);
		uring_exit(&r);
		if (!ret)
			ret = cqe.res;
		if (!ret)
			res.status = bsg_scsi_res2_device_status(cqe.res2);
	} else {
		ret = sgio_send(NULL, fd, cdb, len, write ? NULL : buf,
				write ? 0 : sizeof(buf), write ? buf : NULL,
				write ? sizeof(buf) : 0, sense, sizeof(sense),
				&res);
	}
	close(fd);
	if (!ret && res.status)
		return -2000;
	return ret;
}

static int rules(void *arg)
{
	unsigned char inquiry[6] = { 0x12, 0, 0, 0, 255, 0 };
	unsigned char rd[10], wr[10], vendor[6] = { 0xc0 };

	cdb_rw10(rd, 0x28, 0, 1);
	cdb_rw10(wr, 0x2a, 0, 1);
	if (command(O_RDONLY, inquiry, 0) || command(O_RDONLY, rd, 0))
		return 10;
	if (command(O_RDONLY, wr, 1) != -EPERM)
		return 11;
	if (command(O_RDWR, wr, 1))
		return 12;
	/* not read- or write-safe: CAP_SYS_RAWIO only, open for writing or not */
	if (command(O_RDWR, vendor, 0) != -EPERM)
		return 13;
	return 0;
}

TEST_F(perm, write_commands_need_the_node_open_for_writing)
{
	node = self->d.bsg;
	ASSERT_EQ(0, chmod(node, 0666));
	via_uring = 0;
	ASSERT_EQ(0, run_unprivileged(rules, NULL));
}

TEST_F(perm, the_same_rules_hold_through_io_uring)
{
	node = self->d.bsg;
	ASSERT_EQ(0, chmod(node, 0666));
	via_uring = 1;
	ASSERT_EQ(0, run_unprivileged(rules, NULL));
}

/*
 * CAP_SYS_RAWIO without root: the vendor command (0xc0) gets past the
 * filter and comes back as the device's CHECK CONDITION (-2000), and a
 * WRITE(10) goes through a node open read-only, through both interfaces.
 */
static int rawio_rules(void *arg)
{
	unsigned char wr[10], vendor[6] = { 0xc0 };

	cdb_rw10(wr, 0x2a, 0, 1);
	for (via_uring = 0; via_uring < 2; via_uring++) {
		if (command(O_RDONLY, vendor, 0) != -2000)
			return 20 + via_uring;
		if (command(O_RDONLY, wr, 1))
			return 22 + via_uring;
	}
	return 0;
}

TEST_F(perm, cap_sys_rawio_alone_lifts_the_command_filter)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	int status;
	pid_t pid;

	node = self->d.bsg;
	ASSERT_EQ(0, chmod(node, 0666));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* uid 1000 keeping CAP_SYS_RAWIO, and only it */
		if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
		    setresgid(RIG_USER_GID, RIG_USER_GID, RIG_USER_GID) ||
		    setresuid(RIG_USER_UID, RIG_USER_UID, RIG_USER_UID))
			_exit(30);
		data[0].effective = data[0].permitted = 1u << CAP_SYS_RAWIO;
		if (syscall(SYS_capset, &hdr, data))
			_exit(31);
		_exit(rawio_rules(NULL));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
