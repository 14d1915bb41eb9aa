// SPDX-License-Identifier: GPL-2.0
/*
 * bsg's permission rules, as uid 1000 without capabilities: the node's mode
 * decides who opens it; then a read-safe command (INQUIRY, READ(10)) goes
 * through any open, a write command (WRITE(10)) only through a node open
 * for writing, and any other command needs CAP_SYS_RAWIO.
 */
#include "kselftest_harness.h"
#include "unpriv.h"
#include "bsg_test.h"

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

/* One command on a fresh open of the node; its SG_IO result. */
static int command(int flags, const unsigned char *cdb, int write)
{
	static unsigned char buf[512];
	unsigned char sense[32];
	struct sg_io_v4 io;
	int fd = open(node, flags), ret;

	if (fd < 0)
		return -1000 - errno;
	ret = sgio(fd, cdb, cdb[0] == 0x12 || cdb[0] >= 0xc0 ? 6 : 10,
		   write ? NULL : buf, write ? 0 : sizeof(buf),
		   write ? buf : NULL, write ? sizeof(buf) : 0,
		   sense, sizeof(sense), &io);
	close(fd);
	if (!ret && io.device_status)
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
	ASSERT_EQ(0, run_unprivileged(rules, NULL));
}

TEST_HARNESS_MAIN
