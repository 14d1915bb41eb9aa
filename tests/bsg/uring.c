// SPDX-License-Identifier: GPL-2.0
/*
 * SCSI commands through io_uring on a bsg node (IORING_OP_URING_CMD with
 * struct bsg_uring_cmd, patches 0017-0019), on a scsi_debug disk: data
 * and status as SG_IO gives them, sense in the user's buffer and in
 * big_cqe[0], every malformed command refused with its errno, registered
 * buffers, many commands in flight, a submission that neither faults nor
 * waits for a tag, the device deleted and the ring closed with commands
 * in flight, and a fault-injection loop over the submission path.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "fault.h"
#include "bsg_test.h"
#include "bsg_uring.h"

#define GOOD 0
#define CHECK_CONDITION 2
#define DRIVER_SENSE 0x08

/* The io_uring interface for write_one_read_other_with(): ctx is the ring. */
static int uring_send(void *ctx, int fd, const void *cdb, unsigned int cdb_len,
		      void *din, unsigned int din_len, const void *dout,
		      unsigned int dout_len, unsigned char *sense,
		      unsigned int sense_len, struct scsi_outcome *out)
{
	struct ucqe cqe = { 0 };
	int ret = bsg_uring_one(ctx, fd, cdb, cdb_len, din, din_len, dout,
				dout_len, sense, sense_len, &cqe);

	if (ret)
		return ret;
	if (cqe.res)
		return cqe.res;
	out->status = bsg_scsi_res2_device_status(cqe.res2);
	out->host = bsg_scsi_res2_host_status(cqe.res2);
	out->resid = bsg_scsi_res2_resid_len(cqe.res2);
	out->sense_len = bsg_scsi_res2_sense_len(cqe.res2);
	return 0;
}

FIXTURE(ring) {
	struct sdebug_disk d;
	struct uring r;
	int fd;
	unsigned char sense[64];
	struct ucqe cqe;
};

FIXTURE_SETUP(ring)
{
	self->r.fd = -1;
	ASSERT_EQ(0, sdebug_disk_add(&self->d));
	self->fd = open(self->d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, uring_init(&self->r, 64, SQE128_CQE32));
}

FIXTURE_TEARDOWN(ring)
{
	uring_exit(&self->r);
	if (self->fd >= 0)
		close(self->fd);
	EXPECT_EQ(0, sdebug_disk_remove(&self->d));
}

/* One command on the fixture's ring; the CQE is in self->cqe. */
#define ONE(cdb, len, din, din_len, dout, dout_len, sense, sense_len)	\
	bsg_uring_one(&self->r, self->fd, cdb, len, din, din_len, dout,	\
		      dout_len, sense, sense_len, &self->cqe)

TEST_F(ring, inquiry_names_the_device)
{
	unsigned char cdb[6] = { 0x12, 0, 0, 0, 96, 0 }, buf[96];

	ASSERT_EQ(0, ONE(cdb, 6, buf, sizeof(buf), NULL, 0, self->sense,
			 sizeof(self->sense)));
	ASSERT_EQ(0, self->cqe.res);
	ASSERT_EQ(GOOD, bsg_scsi_res2_device_status(self->cqe.res2));
	EXPECT_EQ(0, bsg_scsi_res2_host_status(self->cqe.res2));
	EXPECT_EQ(0, bsg_scsi_res2_driver_status(self->cqe.res2));
	EXPECT_EQ(0, bsg_scsi_res2_sense_len(self->cqe.res2));
	EXPECT_EQ(0, self->cqe.extra);
	ASSERT_LE(36, (int)sizeof(buf) - (int)bsg_scsi_res2_resid_len(self->cqe.res2));
	EXPECT_EQ(0, buf[0] & 0x1f);
	EXPECT_EQ(0, memcmp(buf + 8, "Linux   ", 8));
	EXPECT_EQ(0, memcmp(buf + 16, "scsi_debug      ", 16));
}

TEST_F(ring, read_capacity_16_agrees_with_sg_io)
{
	unsigned char cdb[16] = { 0x9e, 0x10, [13] = 32 }, ours[32], theirs[32];
	struct sg_io_v4 io;

	memset(ours, 0xa5, sizeof(ours));
	ASSERT_EQ(0, ONE(cdb, 16, ours, sizeof(ours), NULL, 0, NULL, 0));
	ASSERT_EQ(0, self->cqe.res);
	ASSERT_EQ(GOOD, bsg_scsi_res2_device_status(self->cqe.res2));
	ASSERT_EQ(0, sgio(self->fd, cdb, 16, theirs, sizeof(theirs), NULL, 0,
			  NULL, 0, &io));
	ASSERT_EQ(GOOD, io.device_status);
	EXPECT_EQ(0, memcmp(ours, theirs, sizeof(ours)));
	/* 8 MiB of 512-byte blocks: the last LBA is 16383 */
	EXPECT_EQ(SDEBUG_BLOCKS - 1, ours[6] << 8 | ours[7]);
}

TEST_F(ring, written_through_io_uring_reads_back_through_the_block_device)
{
	EXPECT_EQ(0, write_one_read_other_with(uring_send, &self->r, self->fd,
					       self->d.block, 300, 3, 0));
}

TEST_F(ring, written_through_the_block_device_reads_back_through_io_uring)
{
	EXPECT_EQ(0, write_one_read_other_with(uring_send, &self->r, self->fd,
					       self->d.block, 400, 4, 1));
}

/* A CHECK CONDITION's status, DRIVER_SENSE, sense length and sense code. */
static void check_sense(struct __test_metadata *_metadata,
			const struct ucqe *cqe, const unsigned char *sense,
			int code)
{
	ASSERT_EQ(0, cqe->res);
	ASSERT_EQ(CHECK_CONDITION, bsg_scsi_res2_device_status(cqe->res2));
	EXPECT_EQ(DRIVER_SENSE, bsg_scsi_res2_driver_status(cqe->res2));
	EXPECT_EQ(0, bsg_scsi_res2_host_status(cqe->res2));
	ASSERT_LE(8, bsg_scsi_res2_sense_len(cqe->res2));
	EXPECT_EQ(code, sense_code(sense, bsg_scsi_res2_sense_len(cqe->res2)));
}

TEST_F(ring, reading_past_the_end_is_lba_out_of_range)
{
	unsigned char cdb[10], buf[512];

	cdb_rw10(cdb, 0x28, SDEBUG_BLOCKS, 1);
	ASSERT_EQ(0, ONE(cdb, 10, buf, sizeof(buf), NULL, 0, self->sense,
			 sizeof(self->sense)));
	check_sense(_metadata, &self->cqe, self->sense, SENSE(0x5, 0x21, 0x00));
}

TEST_F(ring, an_unknown_opcode_is_invalid_command_operation_code)
{
	unsigned char cdb[6] = { 0xc0 };

	ASSERT_EQ(0, ONE(cdb, 6, NULL, 0, NULL, 0, self->sense,
			 sizeof(self->sense)));
	check_sense(_metadata, &self->cqe, self->sense, SENSE(0x5, 0x20, 0x00));
}

/* scsi_debug's injected medium error: blocks 1000-1009, opts bit 2. */
TEST_F(ring, an_injected_medium_error_is_a_medium_error)
{
	unsigned char cdb[10], buf[512];

	ASSERT_EQ(0, sdebug_medium_error_at_1000());
	cdb_rw10(cdb, 0x28, 1005, 1);
	ASSERT_EQ(0, ONE(cdb, 10, buf, sizeof(buf), NULL, 0, self->sense,
			 sizeof(self->sense)));
	check_sense(_metadata, &self->cqe, self->sense, SENSE(0x3, 0x11, 0x00));
}

/*
 * A short transfer (scsi_debug's every_nth=1 with opts SHORT_TRANSFER
 * moves half of every READ): big_cqe[0]'s residual is SG_IO's din_resid.
 */
TEST_F(ring, a_short_transfer_reports_its_residual)
{
	static unsigned char buf[8 * 512];
	unsigned char cdb[10];
	struct sg_io_v4 io;

	ASSERT_EQ(0, sysfs_write(SDEBUG "every_nth", "1"));
	ASSERT_EQ(0, sysfs_write(SDEBUG "opts", "0x100"));
	cdb_rw10(cdb, 0x28, 700, 8);
	ASSERT_EQ(0, sgio(self->fd, cdb, 10, buf, sizeof(buf), NULL, 0, NULL,
			  0, &io));
	EXPECT_EQ(GOOD, io.device_status);
	EXPECT_EQ(4 * 512, io.din_resid);
	ASSERT_EQ(0, ONE(cdb, 10, buf, sizeof(buf), NULL, 0, NULL, 0));
	ASSERT_EQ(0, self->cqe.res);
	EXPECT_EQ(GOOD, bsg_scsi_res2_device_status(self->cqe.res2));
	EXPECT_EQ((unsigned int)io.din_resid,
		  bsg_scsi_res2_resid_len(self->cqe.res2));
	ASSERT_EQ(0, sysfs_write(SDEBUG "opts", "0"));
	ASSERT_EQ(0, sysfs_write(SDEBUG "every_nth", "0"));
}

/*
 * The sense data stops at max_response_len (mainline's handler wrote up
 * to 96 bytes whatever it said); with no response buffer the status and
 * DRIVER_SENSE still come, with a sense length of 0.
 */
TEST_F(ring, sense_stops_at_max_response_len)
{
	unsigned char cdb[6] = { 0xc0 }, sense[64];

	memset(sense, 0xa5, sizeof(sense));
	ASSERT_EQ(0, ONE(cdb, 6, NULL, 0, NULL, 0, sense, 8));
	ASSERT_EQ(0, self->cqe.res);
	ASSERT_EQ(CHECK_CONDITION, bsg_scsi_res2_device_status(self->cqe.res2));
	EXPECT_EQ(8, bsg_scsi_res2_sense_len(self->cqe.res2));
	EXPECT_EQ(0x70, sense[0] & 0x7f);
	for (int i = 8; i < (int)sizeof(sense); i++) {
		ASSERT_EQ(0xa5, sense[i]) TH_LOG("sense byte %d written", i);
	}

	ASSERT_EQ(0, ONE(cdb, 6, NULL, 0, NULL, 0, NULL, sizeof(sense)));
	ASSERT_EQ(0, self->cqe.res);
	EXPECT_EQ(CHECK_CONDITION, bsg_scsi_res2_device_status(self->cqe.res2));
	EXPECT_EQ(DRIVER_SENSE, bsg_scsi_res2_driver_status(self->cqe.res2));
	EXPECT_EQ(0, bsg_scsi_res2_sense_len(self->cqe.res2));

	/* max_response_len 0 is the whole sense (mainline: up to 96 bytes) */
	memset(sense, 0xa5, sizeof(sense));
	ASSERT_EQ(0, ONE(cdb, 6, NULL, 0, NULL, 0, sense, 0));
	ASSERT_EQ(0, self->cqe.res);
	EXPECT_EQ(18, bsg_scsi_res2_sense_len(self->cqe.res2));
	EXPECT_EQ(SENSE(0x5, 0x20, 0x00), sense_code(sense, 18));
}

/* Submit one SQE as @edit leaves it; the CQE's res. */
static int submit_edited(struct uring *r, int fd,
			 void (*edit)(struct io_uring_sqe *sqe,
				      struct bsg_uring_cmd *cmd))
{
	static unsigned char tur[6], buf[512];
	struct io_uring_sqe *sqe = uring_sqe(r);
	struct ucqe cqe = { 0 };

	if (!sqe)
		return -10000;
	bsg_uring_prep(sqe, fd, tur, 6, NULL, 0, NULL, 0, NULL, 0, 7);
	((struct bsg_uring_cmd *)sqe->cmd)->din_xferp = (uintptr_t)buf;
	edit(sqe, (struct bsg_uring_cmd *)sqe->cmd);
	if (uring_submit(r, 0) != 1 || uring_wait(r, &cqe, 30000))
		return -10001;
	if (cqe.user_data != 7)
		return -10002;
	/* a refused command reports no SCSI outcome */
	if (cqe.res && cqe.res2)
		return -10003;
	return cqe.res;
}

#define EDIT(name, body)						\
	static void name(struct io_uring_sqe *sqe, struct bsg_uring_cmd *cmd) \
	{ (void)sqe; body; }

static unsigned char read10[10] = { 0x28, [8] = 1 };
static unsigned char write10[10] = { 0x2a, [8] = 1 };
static unsigned char page[512];

EDIT(protocol_1, cmd->protocol = 1)
EDIT(subprotocol_tmf, cmd->subprotocol = BSG_SUB_PROTOCOL_SCSI_TMF)
EDIT(request_len_0, cmd->request_len = 0)
EDIT(request_len_33, cmd->request_len = 33)
EDIT(request_len_65542, cmd->request_len = 65536 + 6)
EDIT(request_null, cmd->request = 0)
EDIT(reserved_set, cmd->reserved[11] = 1)
EDIT(din_iovec, cmd->din_iovec_count = 1; cmd->din_xfer_len = 16)
EDIT(dout_iovec, cmd->dout_iovec_count = 1; cmd->dout_xfer_len = 16)
EDIT(bidirectional, cmd->request = (uintptr_t)read10; cmd->request_len = 10;
     cmd->din_xfer_len = 512; cmd->dout_xferp = (uintptr_t)page;
     cmd->dout_xfer_len = 512)
EDIT(request_unmapped, cmd->request = 8)
EDIT(din_unmapped, cmd->request = (uintptr_t)read10; cmd->request_len = 10;
     cmd->din_xferp = 8; cmd->din_xfer_len = 512)
EDIT(dout_unmapped, cmd->request = (uintptr_t)write10; cmd->request_len = 10;
     cmd->dout_xferp = 8; cmd->dout_xfer_len = 512)
/* 64 KiB where nothing is mapped: pinned by the worker, which fails */
static void *hole;
EDIT(din_large_unmapped, cmd->request = (uintptr_t)read10;
     cmd->request_len = 10; cmd->din_xferp = (uintptr_t)hole;
     cmd->din_xfer_len = 65536)
EDIT(fixed_unregistered, cmd->request = (uintptr_t)read10;
     cmd->request_len = 10; cmd->din_xfer_len = 512;
     sqe->uring_cmd_flags = IORING_URING_CMD_FIXED; sqe->buf_index = 0)
EDIT(unknown_uring_cmd_flag, sqe->uring_cmd_flags = 1u << 7)
EDIT(good, (void)cmd)

TEST_F(ring, malformed_commands_get_their_errno)
{
	static const struct {
		const char *what;
		void (*edit)(struct io_uring_sqe *, struct bsg_uring_cmd *);
		int res;
	} cases[] = {
		{ "good TEST UNIT READY", good, 0 },
		{ "protocol 1", protocol_1, -EINVAL },
		{ "task management subprotocol", subprotocol_tmf, -EINVAL },
		{ "request_len 0", request_len_0, -EINVAL },
		{ "request_len 33", request_len_33, -EINVAL },
		{ "request_len 65542", request_len_65542, -EINVAL },
		{ "NULL request", request_null, -EINVAL },
		/* ignored, as in mainline: programs need not clear it */
		{ "reserved byte set", reserved_set, 0 },
		{ "din iovec", din_iovec, -EOPNOTSUPP },
		{ "dout iovec", dout_iovec, -EOPNOTSUPP },
		{ "bidirectional", bidirectional, -EOPNOTSUPP },
		{ "unmapped request", request_unmapped, -EFAULT },
		{ "unmapped din", din_unmapped, -EFAULT },
		{ "unmapped dout", dout_unmapped, -EFAULT },
		{ "64 KiB unmapped din", din_large_unmapped, -EFAULT },
		/* these two are io_uring's own checks, before bsg's */
		{ "fixed buffer, none registered", fixed_unregistered, -EFAULT },
		{ "unknown uring_cmd flag", unknown_uring_cmd_flag, -EINVAL },
	};

	hole = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	ASSERT_EQ(0, munmap(hole, 65536));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(cases[i].res, submit_edited(&self->r, self->fd, cases[i].edit))
			TH_LOG("%s", cases[i].what);
	}
}

/* A CHECK CONDITION whose sense cannot be written: EFAULT, status kept. */
TEST_F(ring, an_unwritable_response_is_efault_with_the_status)
{
	unsigned char cdb[6] = { 0xc0 };

	ASSERT_EQ(0, ONE(cdb, 6, NULL, 0, NULL, 0, (void *)8, 32));
	EXPECT_EQ(-EFAULT, self->cqe.res);
	EXPECT_EQ(CHECK_CONDITION, bsg_scsi_res2_device_status(self->cqe.res2));
	EXPECT_EQ(0, bsg_scsi_res2_sense_len(self->cqe.res2));
}

/* More pages than the queue's max_segments: EINVAL, as through SG_IO. */
TEST_F(ring, more_segments_than_the_queue_takes_is_einval)
{
	long pg = sysconf(_SC_PAGESIZE);
	long segs = disk_queue_limit(&self->d, "max_segments");
	unsigned char cdb[10];
	size_t len;
	void *buf;

	ASSERT_LT(0, segs);
	len = (size_t)(segs + 1) * pg;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	cdb_rw10(cdb, 0x28, 0, len / 512);
	ASSERT_EQ(0, ONE(cdb, 10, buf, len, NULL, 0, NULL, 0));
	EXPECT_EQ(-EINVAL, self->cqe.res);
	len -= pg;
	cdb_rw10(cdb, 0x28, 0, len / 512);
	ASSERT_EQ(0, ONE(cdb, 10, buf, len, NULL, 0, NULL, 0));
	EXPECT_EQ(0, self->cqe.res);
	EXPECT_EQ(GOOD, bsg_scsi_res2_device_status(self->cqe.res2));
	munmap(buf, len + pg);
}

/*
 * Rings without 128-byte SQEs or 32-byte CQEs cannot carry the command or
 * its outcome, and a polled ring has nothing to poll: EOPNOTSUPP.
 */
TEST_F(ring, rings_without_big_sqes_and_cqes_are_eopnotsupp)
{
	static const unsigned int flags[] = {
		0, IORING_SETUP_SQE128, IORING_SETUP_CQE32,
		SQE128_CQE32 | IORING_SETUP_IOPOLL,
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct io_uring_sqe *sqe;
		struct uring r;
		struct ucqe cqe = { 0 };

		ASSERT_EQ(0, uring_init(&r, 4, flags[i]));
		sqe = uring_sqe(&r);
		/* only the common part: a 64-byte SQE has no room for more */
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = self->fd;
		if (flags[i] & IORING_SETUP_SQE128)
			bsg_uring_prep(sqe, self->fd, page, 6, NULL, 0, NULL,
				       0, NULL, 0, 0);
		ASSERT_EQ(1, uring_submit(&r, 0));
		ASSERT_EQ(0, uring_wait(&r, &cqe, 30000));
		EXPECT_EQ(-EOPNOTSUPP, cqe.res) TH_LOG("ring flags %#x", flags[i]);
		uring_exit(&r);
	}
}

static int register_buffer(struct uring *r, void *buf, size_t len)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_BUFFERS,
		       &iov, 1) ? -errno : 0;
}

/*
 * Data in a buffer registered with the ring (IORING_URING_CMD_FIXED):
 * written from one half, read back through the block device and into
 * the other half; an address outside the buffer, or an index past the
 * registered ones, is EFAULT.
 */
TEST_F(ring, registered_buffers_carry_the_data)
{
	static unsigned char buf[2 * 4096] __attribute__((aligned(4096)));
	static unsigned char check[4096] __attribute__((aligned(4096)));
	struct io_uring_sqe *sqe;
	unsigned char cdb[10];
	int blk;

	ASSERT_EQ(0, register_buffer(&self->r, buf, sizeof(buf)));
	pattern(buf, 500, 5);
	cdb_rw10(cdb, 0x2a, 500, 8);
	sqe = uring_sqe(&self->r);
	bsg_uring_prep(sqe, self->fd, cdb, 10, NULL, 0, buf, 4096, NULL, 0, 1);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	ASSERT_EQ(1, uring_submit(&self->r, 0));
	ASSERT_EQ(0, uring_wait(&self->r, &self->cqe, 30000));
	ASSERT_EQ(0, self->cqe.res);
	ASSERT_EQ(GOOD, bsg_scsi_res2_device_status(self->cqe.res2));

	blk = open(self->d.block, O_RDONLY | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, blk);
	ASSERT_EQ(sizeof(check), pread(blk, check, sizeof(check), 500 * 512));
	close(blk);
	EXPECT_EQ(0, memcmp(buf, check, sizeof(check)));

	cdb_rw10(cdb, 0x28, 500, 8);
	memset(buf + 4096, 0, 4096);
	sqe = uring_sqe(&self->r);
	bsg_uring_prep(sqe, self->fd, cdb, 10, buf + 4096, 4096, NULL, 0, NULL,
		       0, 2);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	ASSERT_EQ(1, uring_submit(&self->r, 0));
	ASSERT_EQ(0, uring_wait(&self->r, &self->cqe, 30000));
	ASSERT_EQ(0, self->cqe.res);
	EXPECT_EQ(0, memcmp(buf, buf + 4096, 4096));

	/* 512 bytes past the end of the registered buffer */
	sqe = uring_sqe(&self->r);
	bsg_uring_prep(sqe, self->fd, cdb, 10, buf + 4096 + 512, 4096, NULL, 0,
		       NULL, 0, 3);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	ASSERT_EQ(1, uring_submit(&self->r, 0));
	ASSERT_EQ(0, uring_wait(&self->r, &self->cqe, 30000));
	EXPECT_EQ(-EFAULT, self->cqe.res);

	sqe = uring_sqe(&self->r);
	bsg_uring_prep(sqe, self->fd, cdb, 10, buf, 4096, NULL, 0, NULL, 0, 4);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 1;
	ASSERT_EQ(1, uring_submit(&self->r, 0));
	ASSERT_EQ(0, uring_wait(&self->r, &self->cqe, 30000));
	EXPECT_EQ(-EFAULT, self->cqe.res);
}

/*
 * 64 READ(10)s of different blocks in one submission: 64 CQEs, one for
 * each, each with the block's data as the block device reads it.
 */
TEST_F(ring, many_commands_in_flight_each_complete_once)
{
	static unsigned char want[64][512] __attribute__((aligned(4096)));
	static unsigned char got[64][512];
	static unsigned char cdbs[64][10];
	unsigned char seen[64] = { 0 };
	int blk, i;

	blk = open(self->d.block, O_RDWR | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, blk);
	for (i = 0; i < 64; i++)
		memset(want[i], 0x40 + i, 512);
	ASSERT_EQ(sizeof(want), pwrite(blk, want, sizeof(want), 600 * 512));
	close(blk);
	memset(got, 0, sizeof(got));	/* present: issued inline */

	for (i = 0; i < 64; i++) {
		struct io_uring_sqe *sqe = uring_sqe(&self->r);

		ASSERT_NE(NULL, sqe);
		cdb_rw10(cdbs[i], 0x28, 600 + i, 1);
		bsg_uring_prep(sqe, self->fd, cdbs[i], 10, got[i], 512, NULL,
			       0, NULL, 0, i);
	}
	ASSERT_EQ(64, uring_submit(&self->r, 0));
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(0, uring_wait(&self->r, &self->cqe, 30000))
			TH_LOG("%d of 64 CQEs came", i);
		ASSERT_GT(64, self->cqe.user_data);
		EXPECT_EQ(0, seen[self->cqe.user_data]++);
		EXPECT_EQ(0, self->cqe.res);
		EXPECT_EQ(GOOD, bsg_scsi_res2_device_status(self->cqe.res2));
	}
	EXPECT_EQ(-EAGAIN, uring_peek(&self->r, &self->cqe));
	for (i = 0; i < 64; i++) {
		EXPECT_EQ(0, memcmp(want[i], got[i], 512)) TH_LOG("block %d", 600 + i);
	}
}

/* Answers page faults on a userfaultfd, noting who took them. */
struct resolver {
	int uffd;
	long page;
	int stop;
	int faults;
	pid_t tid[4];
};

static void *resolve(void *arg)
{
	struct resolver *rs = arg;
	struct pollfd pfd = { .fd = rs->uffd, .events = POLLIN };
	static unsigned char zero[65536];

	while (!__atomic_load_n(&rs->stop, __ATOMIC_ACQUIRE)) {
		struct uffdio_copy copy = { 0 };
		struct uffd_msg msg;

		if (poll(&pfd, 1, 20) != 1 ||
		    read(rs->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		if (rs->faults < 4)
			rs->tid[rs->faults++] = msg.arg.pagefault.feat.ptid;
		copy.dst = msg.arg.pagefault.address & ~(uint64_t)(rs->page - 1);
		copy.src = (uintptr_t)zero;
		copy.len = rs->page;
		ioctl(rs->uffd, UFFDIO_COPY, &copy);
	}
	return NULL;
}

/*
 * The submission path runs with IO_URING_F_NONBLOCK: it must not wait for
 * a page fault.  A CDB and a data buffer in pages userfaultfd holds back:
 * the faults must be taken by io_uring's worker (the command issued again
 * with -EAGAIN), never by the thread in io_uring_enter(), and the commands
 * complete once the pages come.
 */
TEST_F(ring, a_submission_does_not_wait_for_a_page_fault)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_THREAD_ID };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct resolver rs = { .page = sysconf(_SC_PAGESIZE) };
	unsigned char read_cdb[10], write_cdb[10];
	struct io_uring_sqe *sqe;
	pthread_t thread;
	pid_t me = syscall(SYS_gettid);
	unsigned char *area;
	int i;

	area = mmap(NULL, 3 * rs.page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	rs.uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, rs.uffd) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(rs.uffd, UFFDIO_API, &api));
	reg.range.start = (uintptr_t)area;
	reg.range.len = 3 * rs.page;
	ASSERT_EQ(0, ioctl(rs.uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, pthread_create(&thread, NULL, resolve, &rs));

	/*
	 * TEST UNIT READY (all zero) from page 0; READ(10) into page 1;
	 * WRITE(10) from page 2 at an odd address, which the block layer
	 * copies through a bounce page rather than pins.
	 */
	sqe = uring_sqe(&self->r);
	bsg_uring_prep(sqe, self->fd, area, 6, NULL, 0, NULL, 0, NULL, 0, 1);
	cdb_rw10(read_cdb, 0x28, 0, 1);
	sqe = uring_sqe(&self->r);
	bsg_uring_prep(sqe, self->fd, read_cdb, 10, area + rs.page, 512, NULL,
		       0, NULL, 0, 2);
	cdb_rw10(write_cdb, 0x2a, 50, 1);
	sqe = uring_sqe(&self->r);
	bsg_uring_prep(sqe, self->fd, write_cdb, 10, NULL, 0,
		       area + 2 * rs.page + 1, 512, NULL, 0, 3);
	ASSERT_EQ(3, uring_submit(&self->r, 0));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, uring_wait(&self->r, &self->cqe, 30000));
		EXPECT_EQ(0, self->cqe.res) TH_LOG("command %llu",
						   (unsigned long long)self->cqe.user_data);
		EXPECT_EQ(GOOD, bsg_scsi_res2_device_status(self->cqe.res2));
	}
	__atomic_store_n(&rs.stop, 1, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	ASSERT_EQ(3, rs.faults);
	for (i = 0; i < rs.faults; i++) {
		EXPECT_NE(me, rs.tid[i])
			TH_LOG("fault %d taken in io_uring_enter()'s thread", i);
	}
	close(rs.uffd);
	munmap(area, 3 * rs.page);
}

/* Fill @n SQEs with TEST UNIT READY on @fd, user_data 0..n-1. */
static void prep_turs(struct uring *r, int fd, int n)
{
	static const unsigned char tur[6];

	for (int i = 0; i < n; i++)
		bsg_uring_prep(uring_sqe(r), fd, tur, 6, NULL, 0, NULL, 0,
			       NULL, 0, i);
}

/*
 * A task whose completed commands are not reaped yet must still get a tag
 * for SG_IO on the same queue: the commands' requests are freed when they
 * end, not when the task runs their completion.  scsi_debug takes 4
 * commands at a time here (max_queue=4) and answers after a delay, so the
 * 4 commands hold every tag when SG_IO asks for one.
 */
TEST(sg_io_gets_a_tag_while_ring_commands_wait_to_be_reaped)
{
	unsigned char tur[6] = { 0 };
	struct sdebug_disk d;
	struct sg_io_v4 io;
	struct uring r;
	struct ucqe cqe = { 0 };
	int fd, i;

	ASSERT_EQ(0, sdebug_disk_add_slow(&d, "max_queue=4", 20, NULL));
	fd = open(d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uring_init(&r, 8, SQE128_CQE32));
	prep_turs(&r, fd, 4);
	ASSERT_EQ(4, uring_submit(&r, 0));
	/* blocks for a tag until one of the 4 ends */
	ASSERT_EQ(0, sgio(fd, tur, 6, NULL, 0, NULL, 0, NULL, 0, &io));
	EXPECT_EQ(GOOD, io.device_status);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, uring_wait(&r, &cqe, 30000));
		EXPECT_EQ(0, cqe.res);
	}
	uring_exit(&r);
	close(fd);
	EXPECT_EQ(0, sdebug_disk_remove(&d));
}

/*
 * Submit @n READ(10)s of one block on @fd, user_data 0..n-1, with sense
 * buffers: 0 or -errno.
 */
static unsigned char read_sense[64][32];

static int submit_reads(struct uring *r, int fd, int n, uint32_t lba)
{
	static unsigned char cdbs[64][10], data[64][512];
	unsigned char (*sense)[32] = read_sense;
	int i;

	/* present pages: the commands are issued inline, not by a worker */
	memset(data, 0, sizeof(data));

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = uring_sqe(r);

		if (!sqe)
			return -EBUSY;
		cdb_rw10(cdbs[i], 0x28, lba + i, 1);
		bsg_uring_prep(sqe, fd, cdbs[i], 10, data[i], 512, NULL, 0,
			       sense[i], sizeof(sense[i]), i);
	}
	return uring_submit(r, 0) == n ? 0 : -EIO;
}

/*
 * The device deleted (sysfs delete) with 32 commands sent: one at a time
 * reaches it (queue_depth 1), slowly (delay), so most still wait in the
 * block layer when the deletion begins.  Every command gets one CQE:
 * GOOD, or failed by the deletion with a host byte saying so (DID_ERROR
 * or DID_NO_CONNECT) and res 0; no 33rd CQE; a command sent to the
 * deleted device afterwards is ENODEV.
 */
TEST(commands_in_flight_when_the_device_is_deleted_each_complete)
{
	unsigned char tur[6] = { 0 }, seen[32] = { 0 };
	char path[128];
	struct sdebug_disk d;
	struct uring r;
	struct ucqe cqe = { 0 };
	int fd, i, good = 0, failed = 0;

	ASSERT_EQ(0, sdebug_disk_add_slow(&d, "", 20, NULL));
	snprintf(path, sizeof(path), "/sys/class/scsi_device/%d:0:0:0/device/queue_depth",
		 d.host);
	ASSERT_EQ(0, sysfs_write(path, "1"));
	fd = open(d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uring_init(&r, 64, SQE128_CQE32));
	ASSERT_EQ(0, submit_reads(&r, fd, 32, 0));
	snprintf(path, sizeof(path), "/sys/class/scsi_device/%d:0:0:0/device/delete",
		 d.host);
	ASSERT_EQ(0, sysfs_write(path, "1"));
	for (i = 0; i < 32; i++) {
		unsigned int host;

		ASSERT_EQ(0, uring_wait(&r, &cqe, 30000)) TH_LOG("%d of 32 CQEs", i);
		ASSERT_GT(32, cqe.user_data);
		EXPECT_EQ(0, seen[cqe.user_data]++);
		EXPECT_EQ(0, cqe.res);
		host = bsg_scsi_res2_host_status(cqe.res2);
		if (!host && !bsg_scsi_res2_device_status(cqe.res2)) {
			good++;
		} else {
			EXPECT_TRUE(host == 0x07 || host == 0x01)
				TH_LOG("command %d: host byte %#x", (int)cqe.user_data, host);
			/* it moved nothing */
			EXPECT_EQ(512, bsg_scsi_res2_resid_len(cqe.res2));
			failed++;
		}
	}
	TH_LOG("%d commands completed, %d failed with the device", good, failed);
	EXPECT_LT(0, failed);
	usleep(100 * 1000);
	EXPECT_EQ(-EAGAIN, uring_peek(&r, &cqe));

	ASSERT_EQ(0, bsg_uring_one(&r, fd, tur, 6, NULL, 0, NULL, 0, NULL, 0,
				   &cqe));
	EXPECT_EQ(-ENODEV, cqe.res);
	uring_exit(&r);
	close(fd);
	EXPECT_EQ(0, sdebug_disk_remove(&d));
}

/* A hex or decimal sysfs counter of scsi device H:0:0:0, or -1. */
static long sdev_counter(int host, const char *name)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), "/sys/class/scsi_device/%d:0:0:0/device/%s",
		 host, name);
	if (sysfs_read(path, val, sizeof(val)) <= 0)
		return -1;
	return strtol(val, NULL, 0);
}

/*
 * Wait up to 30 s until scsi device H:0:0:0 has ended every command it
 * was given (passthrough commands are not in the block device's
 * inflight count): 0 or -ETIMEDOUT.
 */
static int wait_idle(int host)
{
	for (int i = 0; i < 3000; i++) {
		long done = sdev_counter(host, "iodone_cnt");

		if (done >= 0 && done == sdev_counter(host, "iorequest_cnt") &&
		    sdev_counter(host, "device_busy") == 0)
			return 0;
		usleep(10 * 1000);
	}
	return -ETIMEDOUT;
}

/*
 * The ring closed, and the task gone, with commands in flight whose
 * reads hit an injected medium error, so each has sense data: nothing
 * hangs or leaks, the device goes idle and the module unloads; the sense
 * of a closed ring's commands is not copied (the buffers keep their
 * canary), since nobody can read their CQEs.
 */
TEST(commands_in_flight_when_the_ring_is_closed_or_the_task_exits)
{
	unsigned char tur[6] = { 0 };
	struct sdebug_disk d;
	struct sg_io_v4 io;
	struct uring r;
	int fd, status;
	long before;
	pid_t pid;

	ASSERT_EQ(0, sdebug_disk_add_slow(&d, "medium_error_start=0 "
					  "medium_error_count=64", 25, "2"));
	fd = open(d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);

	memset(read_sense, 0xa5, sizeof(read_sense));
	ASSERT_EQ(0, uring_init(&r, 64, SQE128_CQE32));
	before = sdev_counter(d.host, "iorequest_cnt");
	ASSERT_EQ(0, submit_reads(&r, fd, 32, 0));
	uring_exit(&r);
	/* the device gets all 32 (issued inline, they were not cancelled) */
	for (int i = 0; i < 3000 &&
	     sdev_counter(d.host, "iorequest_cnt") < before + 32; i++)
		usleep(10 * 1000);
	ASSERT_EQ(before + 32, sdev_counter(d.host, "iorequest_cnt"));
	ASSERT_EQ(0, wait_idle(d.host));
	usleep(10 * 1000);	/* a system call or two: any task work runs */
	for (size_t i = 0; i < sizeof(read_sense); i++) {
		ASSERT_EQ(0xa5, ((unsigned char *)read_sense)[i])
			TH_LOG("sense of a closed ring's command written, byte %zu", i);
	}

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (uring_init(&r, 64, SQE128_CQE32) || submit_reads(&r, fd, 32, 0))
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, wait_idle(d.host));

	ASSERT_EQ(0, sgio(fd, tur, 6, NULL, 0, NULL, 0, NULL, 0, &io));
	EXPECT_EQ(GOOD, io.device_status);
	close(fd);
	EXPECT_EQ(0, sdebug_disk_remove(&d));
}

/*
 * A submission does not wait for a tag: scsi_debug takes 4 commands at a
 * time (max_queue=4) and answers after a delay; 16 sent in one
 * io_uring_enter() must all be taken without one ending first (a
 * submission that waited for a tag would have waited for a command to
 * end, and its CQE would be there when the call returns).
 */
TEST(a_submission_does_not_wait_for_a_tag)
{
	struct sdebug_disk d;
	struct ucqe cqe = { 0 };
	struct uring r;
	int fd, i;

	ASSERT_EQ(0, sdebug_disk_add_slow(&d, "max_queue=4", 100, NULL));
	fd = open(d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uring_init(&r, 16, SQE128_CQE32));
	prep_turs(&r, fd, 16);
	ASSERT_EQ(16, uring_submit(&r, 0));
	EXPECT_EQ(-EAGAIN, uring_peek(&r, &cqe))
		TH_LOG("a command ended before the submission returned");
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, uring_wait(&r, &cqe, 30000));
		EXPECT_EQ(0, cqe.res);
		EXPECT_EQ(GOOD, bsg_scsi_res2_device_status(cqe.res2));
	}
	uring_exit(&r);
	close(fd);
	EXPECT_EQ(0, sdebug_disk_remove(&d));
}

/*
 * A command issued after submission has ended reads the SQE as it was
 * submitted, not the ring slot the program has reused since (patch
 * 0017): a 64 KiB READ linked behind a slow TEST UNIT READY (IOSQE_IO_LINK)
 * is issued when that ends, 400 ms later, and then goes to io_uring's
 * worker (it is over 8 pages); its slot is overwritten with a bad
 * protocol as soon as io_uring_enter() returns.  The READ must run.
 */
TEST(a_later_issue_reads_its_own_sqe_not_the_reused_slot)
{
	static unsigned char buf[65536], tur[6], read_cdb[10];
	struct sdebug_disk d;
	struct ucqe cqe = { 0 };
	struct io_uring_sqe *sqe;
	struct uring r;
	int fd, i;

	ASSERT_EQ(0, sdebug_disk_add_slow(&d, "", 100, NULL));
	fd = open(d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uring_init(&r, 4, SQE128_CQE32));
	sqe = uring_sqe(&r);
	bsg_uring_prep(sqe, fd, tur, 6, NULL, 0, NULL, 0, NULL, 0, 1);
	sqe->flags |= IOSQE_IO_LINK;
	cdb_rw10(read_cdb, 0x28, 0, sizeof(buf) / 512);
	sqe = uring_sqe(&r);
	bsg_uring_prep(sqe, fd, read_cdb, 10, buf, sizeof(buf), NULL, 0, NULL,
		       0, 2);
	ASSERT_EQ(2, uring_submit(&r, 0));
	((struct bsg_uring_cmd *)sqe->cmd)->protocol = 1;
	((struct bsg_uring_cmd *)sqe->cmd)->request_len = 0;
	EXPECT_EQ(-EAGAIN, uring_peek(&r, &cqe))
		TH_LOG("the TEST UNIT READY ended before the slot was reused");
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, uring_wait(&r, &cqe, 30000));
		EXPECT_EQ(0, cqe.res) TH_LOG("command %d", (int)cqe.user_data);
		EXPECT_EQ(GOOD, bsg_scsi_res2_device_status(cqe.res2));
	}
	uring_exit(&r);
	close(fd);
	EXPECT_EQ(0, sdebug_disk_remove(&d));
}

/*
 * A timeout shorter than BLK_MIN_SG_TIMEOUT (7 s) is taken as 7 s, as
 * through SG_IO: a command of timeout_ms 1 on a disk that answers in
 * 3 s comes back GOOD, not timed out (the block layer checks timeouts
 * to the second, so the disk must take longer than that).
 */
TEST(a_timeout_under_7_s_is_7_s)
{
	static unsigned char tur[6];
	struct sdebug_disk d;
	struct ucqe cqe = { 0 };
	struct io_uring_sqe *sqe;
	struct uring r;
	int fd;

	ASSERT_EQ(0, sdebug_disk_add_slow(&d, "", 750, NULL));
	fd = open(d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uring_init(&r, 4, SQE128_CQE32));
	sqe = uring_sqe(&r);
	bsg_uring_prep(sqe, fd, tur, 6, NULL, 0, NULL, 0, NULL, 0, 1);
	((struct bsg_uring_cmd *)sqe->cmd)->timeout_ms = 1;
	ASSERT_EQ(1, uring_submit(&r, 0));
	ASSERT_EQ(0, uring_wait(&r, &cqe, 30000));
	EXPECT_EQ(0, cqe.res);
	EXPECT_EQ(GOOD, bsg_scsi_res2_device_status(cqe.res2));
	EXPECT_EQ(0, bsg_scsi_res2_host_status(cqe.res2));
	uring_exit(&r);
	close(fd);
	EXPECT_EQ(0, sdebug_disk_remove(&d));
}

/* One READ(10) through a new ring: the fault loop's operation. */
struct read_op {
	int fd;
	unsigned char sense[32];
};

static int uring_read_once(void *arg)
{
	struct read_op *op = arg;
	static unsigned char buf[4096];
	unsigned char cdb[10];
	struct uring r;
	struct ucqe cqe = { 0 };
	int ret;

	ret = uring_init(&r, 4, SQE128_CQE32);
	if (ret)
		return ret;
	cdb_rw10(cdb, 0x28, 8, 8);
	ret = bsg_uring_one(&r, op->fd, cdb, 10, buf, sizeof(buf), NULL, 0,
			    op->sense, sizeof(op->sense), &cqe);
	uring_exit(&r);
	if (ret)
		return ret;
	/* -EAGAIN is io_uring's to retry, never the program's to see */
	if (cqe.res == -EAGAIN)
		return -EIO;
	if (cqe.res)
		return cqe.res;
	return bsg_scsi_res2_device_status(cqe.res2) ? -EIO : 0;
}

/* A READ changes nothing: there is nothing to check or undo. */
static int nothing_to_undo(void *arg, int err)
{
	return 0;
}

/*
 * Each allocation of the submission path failed in turn (the debug
 * kernel's fail-nth): ENOMEM or a retry from the worker, never a crash,
 * a leak or a lost CQE.  fail-nth fails the submitting thread's
 * allocations only: the worker's retry is not failed here.
 */
TEST_F(ring, a_fault_injection_loop_over_the_submission_path)
{
	struct read_op op = { .fd = self->fd };
	struct fault_run run;
	int ret;

	if (!fault_injection_available())
		SKIP(return, "no fail-nth in this kernel (the debug kernel has it)");
	ASSERT_EQ(0, fault_injection_setup());
	ret = fault_loop(uring_read_once, nothing_to_undo, &op, 200, &run);
	EXPECT_EQ(0, fault_loop_report("io_uring READ(10) on bsg", ret, &run));
}

TEST_HARNESS_MAIN
