// SPDX-License-Identifier: GPL-2.0
/*
 * bsg on a disk behind a real HBA driver: the 16 MiB SCSI disk QEMU
 * emulates on a virtio-scsi controller (group.conf scsi-disk=16), which
 * every boot of the group gets empty.  INQUIRY, READ CAPACITY(16), data
 * both ways against the block device, and the sense of a read past the
 * end, as on scsi_debug.
 */
#include "kselftest_harness.h"
#include "bsg_test.h"

FIXTURE(virtio) {
	struct sdebug_disk d;
	int fd;
	unsigned char sense[64];
	struct sg_io_v4 io;
};

FIXTURE_SETUP(virtio)
{
	ASSERT_EQ(0, virtio_disk_find(&self->d))
		TH_LOG("no QEMU HARDDISK in /sys/class/bsg: is scsi-disk= in group.conf?");
	self->fd = open(self->d.bsg, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(virtio)
{
	close(self->fd);
}

TEST_F(virtio, inquiry_names_qemus_disk)
{
	unsigned char cdb[6] = { 0x12, 0, 0, 0, 96, 0 }, buf[96];

	ASSERT_EQ(0, sgio(self->fd, cdb, 6, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(0, self->io.device_status);
	EXPECT_EQ(0, buf[0] & 0x1f);
	EXPECT_EQ(0, memcmp(buf + 8, "QEMU    ", 8));
	EXPECT_EQ(0, memcmp(buf + 16, "QEMU HARDDISK   ", 16));
}

TEST_F(virtio, read_capacity_16_gives_16_mib)
{
	unsigned char cdb[16] = { 0x9e, 0x10, [13] = 32 }, buf[32];
	uint64_t last = 0;
	int i;

	ASSERT_EQ(0, sgio(self->fd, cdb, 16, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(0, self->io.device_status);
	for (i = 0; i < 8; i++)
		last = last << 8 | buf[i];
	EXPECT_EQ(16 * 2048 - 1, last);
	EXPECT_EQ(512, buf[10] << 8 | buf[11]);
}

TEST_F(virtio, data_goes_both_ways_with_the_block_device)
{
	EXPECT_EQ(0, write_one_read_other(self->fd, self->d.block, 300, 3, 0));
	EXPECT_EQ(0, write_one_read_other(self->fd, self->d.block, 400, 4, 1));
}

TEST_F(virtio, reading_past_the_end_is_lba_out_of_range)
{
	unsigned char cdb[10], buf[512];

	cdb_rw10(cdb, 0x28, 16 * 2048, 1);
	ASSERT_EQ(0, sgio(self->fd, cdb, 10, buf, sizeof(buf), NULL, 0,
			  self->sense, sizeof(self->sense), &self->io));
	ASSERT_EQ(2, self->io.device_status);
	EXPECT_EQ(SENSE(0x5, 0x21, 0x00),
		  sense_code(self->sense, self->io.response_len));
}

TEST_HARNESS_MAIN
