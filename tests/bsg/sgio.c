// SPDX-License-Identifier: GPL-2.0
/*
 * Linux 6.12's bsg, as a program uses it: SG_IO with struct sg_io_v4 on
 * /dev/bsg/H:C:T:L of a scsi_debug disk.  INQUIRY and READ CAPACITY(16)
 * report the device; data written through bsg reads back through the
 * block device and the reverse; a CHECK CONDITION carries the right sense;
 * read() and write() on the node, bad headers, bad pointers, more segments
 * than the queue takes and a bidirectional transfer each give their errno.
 */
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "bsg_test.h"

#define GOOD 0
#define CHECK_CONDITION 2

FIXTURE(disk) {
	struct sdebug_disk d;
	int fd;
	unsigned char sense[64];
	struct sg_io_v4 io;
};

FIXTURE_SETUP(disk)
{
	ASSERT_EQ(0, sdebug_disk_add(&self->d));
	self->fd = open(self->d.bsg, O_RDWR | O_CLOEXEC);
	if (self->fd < 0)
		sdebug_disk_remove(&self->d);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(disk)
{
	close(self->fd);
	EXPECT_EQ(0, sdebug_disk_remove(&self->d));
}

TEST_F(disk, inquiry_names_the_device)
{
	unsigned char cdb[6] = { 0x12, 0, 0, 0, 96, 0 }, buf[96];

	ASSERT_EQ(0, sgio(self->fd, cdb, 6, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(GOOD, self->io.device_status);
	ASSERT_LE(36, (int)sizeof(buf) - self->io.din_resid);
	EXPECT_EQ(0, buf[0] & 0x1f);	/* a disk */
	EXPECT_EQ(0, memcmp(buf + 8, "Linux   ", 8));
	EXPECT_EQ(0, memcmp(buf + 16, "scsi_debug      ", 16));
}

TEST_F(disk, read_capacity_16_gives_the_size)
{
	unsigned char cdb[16] = { 0x9e, 0x10, [13] = 32 }, buf[32];
	char mb[16], bs[16];
	uint64_t last = 0;
	uint32_t bsize;
	int i;

	ASSERT_LT(0, sysfs_read(SDEBUG "dev_size_mb", mb, sizeof(mb)));
	ASSERT_LT(0, sysfs_read(SDEBUG "sector_size", bs, sizeof(bs)));
	ASSERT_EQ(0, sgio(self->fd, cdb, 16, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(GOOD, self->io.device_status);
	for (i = 0; i < 8; i++)
		last = last << 8 | buf[i];
	bsize = (uint32_t)buf[8] << 24 | buf[9] << 16 | buf[10] << 8 | buf[11];
	EXPECT_EQ(atoi(bs), bsize);
	EXPECT_EQ((uint64_t)atoi(mb) * 1024 * 1024 / bsize, last + 1);
}

TEST_F(disk, written_through_bsg_reads_back_through_the_block_device)
{
	EXPECT_EQ(0, write_one_read_other(self->fd, self->d.block, 100, 1, 0));
}

TEST_F(disk, written_through_the_block_device_reads_back_through_bsg)
{
	EXPECT_EQ(0, write_one_read_other(self->fd, self->d.block, 200, 2, 1));
}

TEST_F(disk, reading_past_the_end_is_lba_out_of_range)
{
	unsigned char cdb[10], buf[512];
	char mb[16];

	ASSERT_LT(0, sysfs_read(SDEBUG "dev_size_mb", mb, sizeof(mb)));
	cdb_rw10(cdb, 0x28, atoi(mb) * 2048, 1);
	ASSERT_EQ(0, sgio(self->fd, cdb, 10, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(CHECK_CONDITION, self->io.device_status);
	ASSERT_LT(0, self->io.response_len);
	EXPECT_EQ(SENSE(0x5, 0x21, 0x00),
		  sense_code(self->sense, self->io.response_len));
}

TEST_F(disk, an_unknown_opcode_is_invalid_command_operation_code)
{
	unsigned char cdb[6] = { 0xc0 };

	ASSERT_EQ(0, sgio(self->fd, cdb, 6, NULL, 0, NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(CHECK_CONDITION, self->io.device_status);
	EXPECT_EQ(SENSE(0x5, 0x20, 0x00),
		  sense_code(self->sense, self->io.response_len));
}

/* scsi_debug's injected medium error: blocks 1000-1009, opts bit 2. */
TEST_F(disk, an_injected_medium_error_is_a_medium_error)
{
	unsigned char cdb[10], buf[512];

	ASSERT_EQ(0, sdebug_medium_error_at_1000());
	cdb_rw10(cdb, 0x28, 1005, 1);
	ASSERT_EQ(0, sgio(self->fd, cdb, 10, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(CHECK_CONDITION, self->io.device_status);
	EXPECT_EQ(SENSE(0x3, 0x11, 0x00),
		  sense_code(self->sense, self->io.response_len));
	/* with the injection off again, the same read is good */
	ASSERT_EQ(0, sysfs_write(SDEBUG "opts", "0"));
	ASSERT_EQ(0, sgio(self->fd, cdb, 10, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	EXPECT_EQ(GOOD, self->io.device_status);
}

/* With dsense=1 the same CHECK CONDITION comes in descriptor format. */
TEST_F(disk, descriptor_sense_when_the_device_uses_it)
{
	unsigned char cdb[10], buf[512];
	char mb[16];

	ASSERT_EQ(0, sysfs_write(SDEBUG "dsense", "1"));
	ASSERT_LT(0, sysfs_read(SDEBUG "dev_size_mb", mb, sizeof(mb)));
	cdb_rw10(cdb, 0x28, atoi(mb) * 2048, 1);
	ASSERT_EQ(0, sgio(self->fd, cdb, 10, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(CHECK_CONDITION, self->io.device_status);
	ASSERT_LE(8, self->io.response_len);
	EXPECT_EQ(0x72, self->sense[0] & 0x7f);
	EXPECT_EQ(SENSE(0x5, 0x21, 0x00),
		  sense_code(self->sense, self->io.response_len));
}

TEST_F(disk, read_and_write_on_the_node_are_einval)
{
	char buf[sizeof(struct sg_io_v4)] = { 0 };

	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(disk, a_bad_guard_protocol_or_subprotocol_is_einval)
{
	unsigned char cdb[6] = { 0 };	/* TEST UNIT READY */
	struct sg_io_v4 io;

	ASSERT_EQ(0, sgio(self->fd, cdb, 6, NULL, 0, NULL, 0, NULL, 0, &io));
	ASSERT_EQ(GOOD, io.device_status);
	io.guard = 'S';
	EXPECT_EQ(-1, ioctl(self->fd, SG_IO, &io));
	EXPECT_EQ(EINVAL, errno);
	io.guard = 'Q';
	io.protocol = 1;
	EXPECT_EQ(-1, ioctl(self->fd, SG_IO, &io));
	EXPECT_EQ(EINVAL, errno);
	io.protocol = BSG_PROTOCOL_SCSI;
	io.subprotocol = BSG_SUB_PROTOCOL_SCSI_TMF;
	EXPECT_EQ(-1, ioctl(self->fd, SG_IO, &io));
	EXPECT_EQ(EINVAL, errno);
	/* a CDB one byte longer than a command's 32 */
	io.subprotocol = BSG_SUB_PROTOCOL_SCSI_CMD;
	io.request_len = 33;
	EXPECT_EQ(-1, ioctl(self->fd, SG_IO, &io));
	EXPECT_EQ(EINVAL, errno);
	/*
	 * 65536 + 6 is a 6-byte CDB in the kernel's 16-bit cmd_len: it must
	 * be refused, not run as TEST UNIT READY (patch 0015).
	 */
	io.request_len = 65536 + 6;
	EXPECT_EQ(-1, ioctl(self->fd, SG_IO, &io));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(disk, bad_pointers_are_efault)
{
	void *volatile bad = (void *)8;	/* hidden from the compiler's checks */
	unsigned char cdb[10];

	cdb_rw10(cdb, 0x28, 0, 1);
	EXPECT_EQ(-EFAULT, sgio(self->fd, NULL, 10, NULL, 0, NULL, 0,
				NULL, 0, &self->io));
	EXPECT_EQ(-EFAULT, sgio(self->fd, bad, 10, NULL, 0, NULL, 0,
				NULL, 0, &self->io));
	EXPECT_EQ(-EFAULT, sgio(self->fd, cdb, 10, bad, 512, NULL, 0,
				NULL, 0, &self->io));
	cdb_rw10(cdb, 0x2a, 0, 1);
	EXPECT_EQ(-EFAULT, sgio(self->fd, cdb, 10, NULL, 0, bad, 512,
				NULL, 0, &self->io));
	/* and the header itself */
	EXPECT_EQ(-1, ioctl(self->fd, SG_IO, bad));
	EXPECT_EQ(EFAULT, errno);
}

/*
 * 64 KiB (more pages than the kernel pins from a stack array) at an
 * address with nothing mapped: EFAULT, and on the debug kernel no
 * kmemleak report of the page array (patch 0016).
 */
TEST_F(disk, a_large_unmapped_buffer_is_efault_and_leaks_nothing)
{
	size_t len = 64 * 1024;
	unsigned char cdb[10];
	void *hole;

	hole = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	ASSERT_EQ(0, munmap(hole, len));
	cdb_rw10(cdb, 0x28, 0, len / 512);
	for (int i = 0; i < 8; i++) {
		EXPECT_EQ(-EFAULT, sgio(self->fd, cdb, 10, hole, len, NULL, 0,
					NULL, 0, &self->io));
	}
}

/*
 * A buffer of more segments than the queue takes in one request
 * (scsi_debug's queue merges no pages, so one page is one segment) is
 * EINVAL; one of exactly max_segments pages is mapped and sent.
 */
TEST_F(disk, more_segments_than_the_queue_takes_is_einval)
{
	long page = sysconf(_SC_PAGESIZE);
	long segs = disk_queue_limit(&self->d, "max_segments");
	unsigned char cdb[10];
	size_t len;
	void *buf;

	ASSERT_LT(0, segs);
	len = (size_t)(segs + 1) * page;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	cdb_rw10(cdb, 0x28, 0, len / 512);
	EXPECT_EQ(-EINVAL, sgio(self->fd, cdb, 10, buf, len, NULL, 0,
				NULL, 0, &self->io));
	len -= page;
	cdb_rw10(cdb, 0x28, 0, len / 512);
	EXPECT_EQ(0, sgio(self->fd, cdb, 10, buf, len, NULL, 0, NULL, 0,
			  &self->io));
	munmap(buf, len + page);
}

TEST_F(disk, a_bidirectional_request_is_eopnotsupp)
{
	unsigned char cdb[10], in[512], out[512] = { 0 };

	cdb_rw10(cdb, 0x28, 0, 1);
	EXPECT_EQ(-EOPNOTSUPP, sgio(self->fd, cdb, 10, in, sizeof(in), out,
				    sizeof(out), NULL, 0, &self->io));
}

/*
 * scsi_debug loaded with sector_size=4096: READ CAPACITY(16) gives the
 * block size and count, and a READ(10) of one block through bsg is the
 * block device's first 4096 bytes at that LBA.
 */
TEST(a_4096_byte_sector_disk)
{
	static unsigned char viabsg[4096], viablk[4096] __attribute__((aligned(4096)));
	unsigned char cdb16[16] = { 0x9e, 0x10, [13] = 32 }, cap[32], cdb[10];
	struct sdebug_disk d;
	struct sg_io_v4 io;
	int fd, blk;

	ASSERT_EQ(0, sdebug_disk_add_with(&d, "sector_size=4096"));
	fd = open(d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sgio(fd, cdb16, 16, cap, sizeof(cap), NULL, 0, NULL, 0, &io));
	ASSERT_EQ(GOOD, io.device_status);
	EXPECT_EQ(4096, cap[8] << 24 | cap[9] << 16 | cap[10] << 8 | cap[11]);
	EXPECT_EQ(8 * 1024 * 1024 / 4096 - 1, cap[6] << 8 | cap[7]);

	blk = open(d.block, O_RDWR | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, blk);
	memset(viablk, 0x5a, sizeof(viablk));
	ASSERT_EQ(sizeof(viablk), pwrite(blk, viablk, sizeof(viablk), 7 * 4096));
	close(blk);
	cdb_rw10(cdb, 0x28, 7, 1);
	ASSERT_EQ(0, sgio(fd, cdb, 10, viabsg, sizeof(viabsg), NULL, 0, NULL, 0, &io));
	ASSERT_EQ(GOOD, io.device_status);
	EXPECT_EQ(0, io.din_resid);
	EXPECT_EQ(0, memcmp(viabsg, viablk, sizeof(viabsg)));
	close(fd);
	EXPECT_EQ(0, sdebug_disk_remove(&d));
}

/*
 * Two targets (num_tgts=2), each with its own bsg node; one deleted while
 * its node is open: SG_IO on that node then fails with ENODEV at once,
 * and the other target still answers.
 */
TEST(a_device_deleted_while_its_node_is_open)
{
	unsigned char tur[6] = { 0 };
	char second[64], path[128];
	struct sdebug_disk d;
	struct sg_io_v4 io;
	struct stat st;
	int fd0, fd1, i;

	ASSERT_EQ(0, sdebug_disk_add_with(&d, "num_tgts=2"));
	snprintf(second, sizeof(second), "/dev/bsg/%d:0:1:0", d.host);
	for (i = 0; i < 500 && stat(second, &st); i++)
		usleep(10 * 1000);
	fd0 = open(d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd0);
	fd1 = open(second, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd1) TH_LOG("%s: %s", second, strerror(errno));
	ASSERT_EQ(0, sgio(fd1, tur, 6, NULL, 0, NULL, 0, NULL, 0, &io));
	ASSERT_EQ(GOOD, io.device_status);

	snprintf(path, sizeof(path), "/sys/class/scsi_device/%d:0:1:0/device/delete",
		 d.host);
	ASSERT_EQ(0, sysfs_write(path, "1"));
	EXPECT_EQ(-1, stat(second, &st));
	EXPECT_EQ(-ENODEV, sgio(fd1, tur, 6, NULL, 0, NULL, 0, NULL, 0, &io));
	ASSERT_EQ(0, sgio(fd0, tur, 6, NULL, 0, NULL, 0, NULL, 0, &io));
	EXPECT_EQ(GOOD, io.device_status);
	close(fd1);
	close(fd0);
	EXPECT_EQ(0, sdebug_disk_remove(&d));
}

TEST_HARNESS_MAIN
