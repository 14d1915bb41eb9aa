/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the bsg tests: a scsi_debug disk of its own for each test,
 * its bsg node and its block device, and one SG_IO call.
 *
 * scsi_debug is a module: a test loads it with the parameters it needs
 * (dev_size_mb, sector_size, max_queue, delay...), which makes one host
 * with one disk, and unloads it when done, so that no setting outlives
 * the test.
 */
#ifndef TESTS_BSG_TEST_H
#define TESTS_BSG_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/bsg.h>
#include <scsi/sg.h>

#include "kmod.h"
#include "sysfs_file.h"

#define SDEBUG "/sys/bus/pseudo/drivers/scsi_debug/"
#define SDEBUG_PARAM "/sys/module/scsi_debug/parameters/"
#define SDEBUG_BLOCKS (8 * 1024 * 1024 / 512)	/* dev_size_mb 8, 512 bytes */

struct sdebug_disk {
	int host;
	char bsg[64];		/* /dev/bsg/H:0:0:0 */
	char block[64];		/* /dev/sdX */
};

/* The highest host number scsi_debug drives, or -1. */
static inline int sdebug_last_host(void)
{
	DIR *d = opendir("/sys/class/scsi_host");
	struct dirent *de;
	char path[300], name[32];
	int host, last = -1;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "host%d", &host) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/class/scsi_host/%s/proc_name",
			 de->d_name);
		if (sysfs_read(path, name, sizeof(name)) > 0 &&
		    !strncmp(name, "scsi_debug", 10) && host > last)
			last = host;
	}
	closedir(d);
	return last;
}

/* The one entry of a sysfs directory: -ENOENT if none, -EEXIST if more. */
static inline int sysfs_only_entry(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = -ENOENT;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!ret) {
			ret = -EEXIST;
			break;
		}
		snprintf(out, len, "%s", de->d_name);
		ret = 0;
	}
	closedir(d);
	return ret;
}

static inline int sdebug_disk_wait(struct sdebug_disk *disk);

/*
 * Load scsi_debug with "dev_size_mb=8" and @params (which may override
 * it), and wait for its disk's bsg and block nodes: 0, or -errno with the
 * module unloaded again.
 */
static inline int sdebug_disk_add_with(struct sdebug_disk *disk,
				       const char *params)
{
	char all[256];
	int ret;

	snprintf(all, sizeof(all), "dev_size_mb=8 %s", params);
	/*
	 * A test that failed may have left its disk behind (the harness
	 * does not always tear down after a failed assertion): take it
	 * away, so that one failure does not fail every later test.
	 */
	if (load_module(RIG_KERNEL_MODULE("scsi_debug"), all) &&
	    (errno != EEXIST || unload_module_wait("scsi_debug", 10000) ||
	     load_module(RIG_KERNEL_MODULE("scsi_debug"), all)))
		return -errno;
	disk->host = sdebug_last_host();
	ret = disk->host < 0 ? -ENODEV : sdebug_disk_wait(disk);
	if (ret)
		unload_module_wait("scsi_debug", 10000);
	return ret;
}

static inline int sdebug_disk_add(struct sdebug_disk *disk)
{
	return sdebug_disk_add_with(disk, "");
}

static inline int sdebug_disk_remove(struct sdebug_disk *disk);

/*
 * As sdebug_disk_add_with(), then make every command take @jiffies (and,
 * with @opts, set scsi_debug's opts): only once the disk is up, or sd's
 * own commands at probe time would take as long.
 */
static inline int sdebug_disk_add_slow(struct sdebug_disk *disk,
				       const char *params, int jiffies,
				       const char *opts)
{
	char val[16];
	int ret = sdebug_disk_add_with(disk, params);

	if (ret)
		return ret;
	snprintf(val, sizeof(val), "%d", jiffies);
	ret = sysfs_write(SDEBUG "delay", val);
	if (!ret && opts)
		ret = sysfs_write(SDEBUG "opts", opts);
	if (ret)
		sdebug_disk_remove(disk);
	return ret;
}

/* Wait for the new disk's bsg node and block node; 0 or -ETIMEDOUT. */
static inline int sdebug_disk_wait(struct sdebug_disk *disk)
{
	char path[128], name[256];
	struct stat st;
	int i;

	snprintf(disk->bsg, sizeof(disk->bsg), "/dev/bsg/%d:0:0:0", disk->host);
	snprintf(path, sizeof(path), "/sys/class/bsg/%d:0:0:0/device/block",
		 disk->host);
	for (i = 0; i < 2000; i++) {
		if (!stat(disk->bsg, &st) && !sysfs_only_entry(path, name, sizeof(name)))
			break;
		usleep(10 * 1000);
	}
	if (i == 2000)
		return -ETIMEDOUT;
	snprintf(disk->block, sizeof(disk->block), "/dev/%.32s", name);
	/*
	 * sd probes the disk asynchronously: wait until its node carries the
	 * disk's dev_t and opens (ENXIO until the disk is live).
	 */
	snprintf(path, sizeof(path), "/sys/block/%.32s/dev", name);
	for (i = 0; i < 2000; i++) {
		unsigned int maj, min;
		char dev[32];
		int fd;

		if (!stat(disk->block, &st) && sysfs_read(path, dev, sizeof(dev)) > 0 &&
		    sscanf(dev, "%u:%u", &maj, &min) == 2 &&
		    st.st_rdev == makedev(maj, min)) {
			fd = open(disk->block, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				close(fd);
				return 0;
			}
		}
		usleep(10 * 1000);
	}
	return -ETIMEDOUT;
}

/*
 * The disk QEMU gives a group that asks for one (group.conf scsi-disk=MB),
 * on the virtio-scsi controller: its bsg and block nodes.  0 or -errno.
 */
static inline int virtio_disk_find(struct sdebug_disk *disk)
{
	char path[600], model[64], name[256];
	DIR *d = opendir("/sys/class/bsg");
	struct dirent *de;
	int ret = -ENOENT;

	if (!d)
		return -errno;
	while (ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/bsg/%s/device/model",
			 de->d_name);
		if (sysfs_read(path, model, sizeof(model)) <= 0 ||
		    strncmp(model, "QEMU HARDDISK", 13))
			continue;
		snprintf(path, sizeof(path), "/sys/class/bsg/%s/device/block",
			 de->d_name);
		if (sysfs_only_entry(path, name, sizeof(name)))
			continue;
		snprintf(disk->bsg, sizeof(disk->bsg), "/dev/bsg/%.32s", de->d_name);
		snprintf(disk->block, sizeof(disk->block), "/dev/%.32s", name);
		disk->host = -1;
		ret = 0;
	}
	closedir(d);
	return ret;
}

/*
 * Unload scsi_debug, with its disk: 0 or -errno.  Commands answer at once
 * again first, so that sd's last ones (SYNCHRONIZE CACHE) do not wait for
 * a delay a test set.
 */
static inline int sdebug_disk_remove(struct sdebug_disk *disk)
{
	sysfs_write(SDEBUG "opts", "0");
	sysfs_write(SDEBUG "delay", "0");
	return unload_module_wait("scsi_debug", 10000);
}

/*
 * Make scsi_debug fail reads of blocks 1000-1009 with MEDIUM ERROR
 * (medium_error_start/count, opts bit 2): 0 or -errno.
 */
static inline int sdebug_medium_error_at_1000(void)
{
	int ret = sysfs_write(SDEBUG_PARAM "medium_error_start", "1000");

	if (!ret)
		ret = sysfs_write(SDEBUG_PARAM "medium_error_count", "10");
	if (!ret)
		ret = sysfs_write(SDEBUG "opts", "2");
	return ret;
}

/* The disk's queue limit @name (max_segments...) from sysfs, or -1. */
static inline long disk_queue_limit(const struct sdebug_disk *disk,
				    const char *name)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), "/sys/block/%.32s/queue/%s",
		 disk->block + 5, name);
	if (sysfs_read(path, val, sizeof(val)) <= 0)
		return -1;
	return atol(val);
}

/* One SG_IO with a SCSI command; 0 (whatever the SCSI status) or -errno. */
static inline int sgio(int fd, const void *cdb, unsigned int cdb_len,
		       void *din, unsigned int din_len, const void *dout,
		       unsigned int dout_len, unsigned char *sense,
		       unsigned int sense_len, struct sg_io_v4 *io)
{
	memset(io, 0, sizeof(*io));
	io->guard = 'Q';
	io->protocol = BSG_PROTOCOL_SCSI;
	io->subprotocol = BSG_SUB_PROTOCOL_SCSI_CMD;
	io->request_len = cdb_len;
	io->request = (uintptr_t)cdb;
	io->max_response_len = sense_len;
	io->response = (uintptr_t)sense;
	io->din_xfer_len = din_len;
	io->din_xferp = (uintptr_t)din;
	io->dout_xfer_len = dout_len;
	io->dout_xferp = (uintptr_t)dout;
	io->timeout = 30000;
	return ioctl(fd, SG_IO, io) ? -errno : 0;
}

/* The sense key, ASC and ASCQ of fixed or descriptor sense data, packed. */
static inline int sense_code(const unsigned char *s, unsigned int len)
{
	if (len >= 14 && (s[0] & 0x7e) == 0x70)
		return (s[2] & 0xf) << 16 | s[12] << 8 | s[13];
	if (len >= 4 && (s[0] & 0x7e) == 0x72)
		return (s[1] & 0xf) << 16 | s[2] << 8 | s[3];
	return -1;
}

#define SENSE(key, asc, ascq) ((key) << 16 | (asc) << 8 | (ascq))

/* READ(10) (0x28) or WRITE(10) (0x2a) of count blocks at lba. */
static inline void cdb_rw10(unsigned char *cdb, unsigned char op, uint32_t lba,
			    uint16_t count)
{
	memset(cdb, 0, 10);
	cdb[0] = op;
	cdb[2] = lba >> 24;
	cdb[3] = lba >> 16;
	cdb[4] = lba >> 8;
	cdb[5] = lba;
	cdb[7] = count >> 8;
	cdb[8] = count;
}

/* 8 blocks of a pattern that names its LBA and the test. */
static inline void pattern(unsigned char *buf, uint32_t lba, unsigned char salt)
{
	int i;

	for (i = 0; i < 8 * 512; i++)
		buf[i] = (unsigned char)(lba + i / 512 * 7 + i * 13 + salt);
}

/* How a command ended, through whichever interface sent it. */
struct scsi_outcome {
	unsigned int status;		/* the SCSI status byte */
	unsigned int host;		/* the host byte */
	unsigned int resid;		/* bytes not transferred */
	unsigned int sense_len;		/* sense bytes written */
};

/*
 * An interface that sends one SCSI command on the bsg node fd: 0 with
 * @out filled, or -errno.  sgio_send() is SG_IO's; the io_uring tests
 * have theirs.
 */
typedef int (*scsi_send_t)(void *ctx, int fd, const void *cdb,
			   unsigned int cdb_len, void *din, unsigned int din_len,
			   const void *dout, unsigned int dout_len,
			   unsigned char *sense, unsigned int sense_len,
			   struct scsi_outcome *out);

static inline int sgio_send(void *ctx, int fd, const void *cdb,
			    unsigned int cdb_len, void *din,
			    unsigned int din_len, const void *dout,
			    unsigned int dout_len, unsigned char *sense,
			    unsigned int sense_len, struct scsi_outcome *out)
{
	struct sg_io_v4 io;
	int ret = sgio(fd, cdb, cdb_len, din, din_len, dout, dout_len, sense,
		       sense_len, &io);

	if (ret)
		return ret;
	out->status = io.device_status;
	out->host = io.transport_status;
	out->resid = din_len ? io.din_resid : io.dout_resid;
	out->sense_len = io.response_len;
	return 0;
}

/*
 * WRITE(10) 8 blocks at lba through the bsg node fd with @send, read them
 * back through the block device with O_DIRECT: 0 if they are the same, 1
 * if not, 2 if the command's status was not GOOD, or -errno.  With
 * @block_first, the other way round.
 */
static inline int write_one_read_other_with(scsi_send_t send, void *ctx,
					    int fd, const char *block,
					    uint32_t lba, unsigned char salt,
					    int block_first)
{
	static unsigned char out[8 * 512] __attribute__((aligned(4096)));
	static unsigned char in[8 * 512] __attribute__((aligned(4096)));
	unsigned char cdb[10], sense[32];
	struct scsi_outcome res = { 0 };
	int blk, ret;

	blk = open(block, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (blk < 0)
		return -errno;
	/*
	 * The blocks must not hold the pattern already (scsi_debug's hosts
	 * share one store, QEMU's disk lives for the boot, and the -m32
	 * run repeats the test): a write that never reached them would
	 * read back right.
	 */
	do {
		pattern(out, lba, salt++);
		if (pread(blk, in, sizeof(in), lba * 512ull) != sizeof(in)) {
			close(blk);
			return -EIO;
		}
	} while (!memcmp(out, in, sizeof(in)));
	memset(in, 0, sizeof(in));
	if (block_first) {
		ret = pwrite(blk, out, sizeof(out), lba * 512ull) == sizeof(out) ? 0 : -EIO;
		cdb_rw10(cdb, 0x28, lba, 8);
		if (!ret)
			ret = send(ctx, fd, cdb, 10, in, sizeof(in), NULL, 0,
				   sense, sizeof(sense), &res);
	} else {
		cdb_rw10(cdb, 0x2a, lba, 8);
		ret = send(ctx, fd, cdb, 10, NULL, 0, out, sizeof(out), sense,
			   sizeof(sense), &res);
		if (!ret && !res.status)
			ret = pread(blk, in, sizeof(in), lba * 512ull) == sizeof(in) ? 0 : -EIO;
	}
	close(blk);
	if (ret)
		return ret;
	if (res.status || res.host || res.resid)
		return 2;
	return memcmp(out, in, sizeof(in)) ? 1 : 0;
}

static inline int write_one_read_other(int fd, const char *block, uint32_t lba,
				       unsigned char salt, int block_first)
{
	return write_one_read_other_with(sgio_send, NULL, fd, block, lba,
					 salt, block_first);
}

#endif /* TESTS_BSG_TEST_H */
