// SPDX-License-Identifier: GPL-2.0
/*
 * make bench for bsg: SCSI commands per second, and their latency, on a
 * scsi_debug disk that answers at once (delay=0), through each way a
 * program can send them from one thread:
 *
 *   sgv3     SG_IO with struct sg_io_hdr on /dev/sgN (the sg driver)
 *   sgio     SG_IO with struct sg_io_v4 on /dev/bsg/H:C:T:L
 *   uringD   IORING_OP_URING_CMD on the bsg node, D commands kept in
 *            flight (D = 1, 8, 32, 64)
 *
 * for INQUIRY (96 bytes in) and READ(10) of 4 KiB, and, for scale, 4 KiB
 * O_DIRECT reads of the disk's block device through io_uring at the same
 * depths (directD).  Each case runs ROUNDS times, the cases in turn;
 * figures are medians.  A command whose status is not GOOD is an error,
 * not a figure.  Each figure is a line "bench bsg NAME VALUE UNIT".
 */
#include <stdbool.h>
#include <time.h>
#include <scsi/sg.h>

#include "../bsg_test.h"
#include "../bsg_uring.h"

#define ROUNDS 5
#define MAXCMDS 4000		/* commands a round, at most */
#define MAXDEPTH 64

static const int depths[] = { 1, 8, 32, 64 };
#define NDEPTHS ((int)(sizeof(depths) / sizeof(depths[0])))

enum cmd { INQUIRY, READ4K, NCMDS };
static const char *const cmd_name[NCMDS] = { "inquiry", "read4k" };

static unsigned char bufs[MAXDEPTH][4096] __attribute__((aligned(4096)));
static double lat[MAXCMDS];
static int cmds = MAXCMDS;	/* commands a round, for this device */

struct result {
	double cmds_s, p50_us, p99_us;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "bsg-bench: %s: %s\n", what, strerror(err));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct result summarize(double t0, double t1)
{
	struct result r;

	qsort(lat, cmds, sizeof(lat[0]), cmp_double);
	r.cmds_s = cmds / ((t1 - t0) / 1e6);
	r.p50_us = lat[cmds / 2];
	r.p99_us = lat[cmds * 99 / 100];
	return r;
}

/* The CDB of a command; READ(10)s walk the first 4 MiB. */
static unsigned int make_cdb(enum cmd c, int i, unsigned char *cdb,
			     unsigned int *len)
{
	if (c == INQUIRY) {
		unsigned char inq[6] = { 0x12, 0, 0, 0, 96, 0 };

		memcpy(cdb, inq, 6);
		*len = 96;
		return 6;
	}
	cdb_rw10(cdb, 0x28, (i % 1024) * 8, 8);
	*len = 4096;
	return 10;
}

static struct result run_sgv3(int fd, enum cmd c)
{
	unsigned char cdb[16], sense[32];
	struct sg_io_hdr h;
	unsigned int len;
	double t0, t1, s;

	t0 = now_us();
	for (int i = 0; i < cmds; i++) {
		memset(&h, 0, sizeof(h));
		h.interface_id = 'S';
		h.dxfer_direction = SG_DXFER_FROM_DEV;
		h.cmd_len = make_cdb(c, i, cdb, &len);
		h.cmdp = cdb;
		h.dxfer_len = len;
		h.dxferp = bufs[0];
		h.mx_sb_len = sizeof(sense);
		h.sbp = sense;
		h.timeout = 30000;
		s = now_us();
		if (ioctl(fd, SG_IO, &h))
			die("SG_IO on /dev/sg", errno);
		lat[i] = now_us() - s;
		if (h.status || h.host_status || h.driver_status)
			die("sg v3 command not GOOD", EIO);
	}
	t1 = now_us();
	return summarize(t0, t1);
}

static struct result run_sgio(int fd, enum cmd c)
{
	unsigned char cdb[16], sense[32];
	struct sg_io_v4 io;
	unsigned int len, clen;
	double t0, t1, s;
	int ret;

	t0 = now_us();
	for (int i = 0; i < cmds; i++) {
		clen = make_cdb(c, i, cdb, &len);
		s = now_us();
		ret = sgio(fd, cdb, clen, bufs[0], len, NULL, 0, sense,
			   sizeof(sense), &io);
		lat[i] = now_us() - s;
		if (ret)
			die("bsg SG_IO", -ret);
		if (io.device_status || io.transport_status)
			die("bsg SG_IO command not GOOD", EIO);
	}
	t1 = now_us();
	return summarize(t0, t1);
}

/*
 * Keep @depth commands in flight on @r until cmds have completed: bsg
 * commands on @fd, or (@direct) 4 KiB reads of the block device @fd.
 */
static struct result run_uring(struct uring *r, int fd, enum cmd c,
			       int depth, int direct)
{
	static unsigned char cdbs[MAXDEPTH][16], sense[MAXDEPTH][32];
	double start[MAXDEPTH], t0, t1;
	int sent = 0, done = 0, ret, free_slots[MAXDEPTH], nfree = 0;

	/* commands complete in any order: a slot is reused once its CQE came */
	for (int i = depth - 1; i >= 0; i--)
		free_slots[nfree++] = i;
	t0 = now_us();
	while (done < cmds) {
		struct ucqe cqe = { 0 };

		while (sent < cmds && sent - done < depth) {
			struct io_uring_sqe *sqe = uring_sqe(r);
			int slot = free_slots[--nfree];
			unsigned int len, clen;

			if (!sqe)
				die("no free SQE", EBUSY);
			if (direct) {
				sqe->opcode = IORING_OP_READ;
				sqe->fd = fd;
				sqe->addr = (uintptr_t)bufs[slot];
				sqe->len = 4096;
				sqe->off = (sent % 1024) * 4096ull;
				sqe->user_data = slot;
			} else {
				clen = make_cdb(c, sent, cdbs[slot], &len);
				bsg_uring_prep(sqe, fd, cdbs[slot], clen,
					       bufs[slot], len, NULL, 0,
					       sense[slot], sizeof(sense[slot]),
					       slot);
			}
			start[slot] = now_us();
			sent++;
		}
		ret = uring_submit(r, 1);
		if (ret < 0)
			die("io_uring_enter", -ret);
		while (!uring_peek(r, &cqe)) {
			double t = now_us();

			if (direct ? cqe.res != 4096 :
			    cqe.res || bsg_scsi_res2_device_status(cqe.res2) ||
			    bsg_scsi_res2_host_status(cqe.res2))
				die("io_uring command not GOOD", cqe.res < 0 ? -cqe.res : EIO);
			lat[done++] = t - start[cqe.user_data];
			free_slots[nfree++] = cqe.user_data;
		}
	}
	t1 = now_us();
	return summarize(t0, t1);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

/* Cases: 0 sgv3, 1 sgio, 2.. uring at each depth; then direct depths. */
#define NCASES (2 + NDEPTHS)

/*
 * One device: scsi_debug loaded with @params; each figure's name starts
 * with @prefix.  0, or the exit status of a failure to unload.
 */
static int bench_device(const char *params, const char *prefix, int n,
			bool direct)
{
	static double cs[NCMDS][NCASES][ROUNDS], p50[NCMDS][NCASES][ROUNDS];
	static double p99[NCMDS][NCASES][ROUNDS];
	static double dcs[NDEPTHS][ROUNDS], dp50[NDEPTHS][ROUNDS], dp99[NDEPTHS][ROUNDS];
	char path[128], name[256], label[32];
	struct sdebug_disk d;
	struct uring r;
	int bsg, sg, blk, ret;

	cmds = n;
	ret = sdebug_disk_add_with(&d, params);
	if (ret)
		die("loading scsi_debug", -ret);
	snprintf(path, sizeof(path), "/sys/class/bsg/%d:0:0:0/device/scsi_generic",
		 d.host);
	if (sysfs_only_entry(path, name, sizeof(name)))
		die("no sg node for the disk (CONFIG_CHR_DEV_SG?)", ENOENT);
	snprintf(path, sizeof(path), "/dev/%.64s", name);
	sg = open(path, O_RDWR | O_CLOEXEC);
	bsg = open(d.bsg, O_RDWR | O_CLOEXEC);
	blk = open(d.block, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (sg < 0 || bsg < 0 || blk < 0)
		die("opening the disk's nodes", errno);
	ret = uring_init(&r, 2 * MAXDEPTH, SQE128_CQE32);
	if (ret)
		die("io_uring_setup", -ret);

	printf("bench bsg: scsi_debug %s, %d commands a round, %d rounds, medians\n",
	       params, cmds, ROUNDS);
	for (int k = 0; k < ROUNDS; k++) {
		for (int c = 0; c < NCMDS; c++) {
			for (int i = 0; i < NCASES; i++) {
				/* rotate the order, so no case always goes first */
				int j = (i + k) % NCASES;
				struct result res;

				if (j == 0)
					res = run_sgv3(sg, c);
				else if (j == 1)
					res = run_sgio(bsg, c);
				else
					res = run_uring(&r, bsg, c, depths[j - 2], 0);
				cs[c][j][k] = res.cmds_s;
				p50[c][j][k] = res.p50_us;
				p99[c][j][k] = res.p99_us;
			}
		}
		for (int i = 0; direct && i < NDEPTHS; i++) {
			struct result res = run_uring(&r, blk, READ4K, depths[i], 1);

			dcs[i][k] = res.cmds_s;
			dp50[i][k] = res.p50_us;
			dp99[i][k] = res.p99_us;
		}
	}

	for (int c = 0; c < NCMDS; c++) {
		double sgio_cs = 0, uring1_cs = 0, uring32_cs = 0;

		for (int j = 0; j < NCASES; j++) {
			double m = median(cs[c][j], ROUNDS);

			if (j == 0)
				snprintf(label, sizeof(label), "sgv3");
			else if (j == 1)
				snprintf(label, sizeof(label), "sgio");
			else
				snprintf(label, sizeof(label), "uring%d", depths[j - 2]);
			printf("bench bsg %s%s_%s_cmds_s %.0f cmds/s\n", prefix, cmd_name[c], label, m);
			printf("bench bsg %s%s_%s_p50_us %.1f us\n", prefix, cmd_name[c], label,
			       median(p50[c][j], ROUNDS));
			printf("bench bsg %s%s_%s_p99_us %.1f us\n", prefix, cmd_name[c], label,
			       median(p99[c][j], ROUNDS));
			if (j == 1)
				sgio_cs = m;
			if (j == 2)
				uring1_cs = m;
			if (j >= 2 && depths[j - 2] == 32)
				uring32_cs = m;
		}
		/* the targets: >= 2 and <= 1.10 */
		printf("bench bsg %s%s_uring32_vs_sgio_cmds_s %.2f ratio\n", prefix, cmd_name[c],
		       uring32_cs / sgio_cs);
		printf("bench bsg %s%s_uring1_vs_sgio_cost %.2f ratio\n", prefix, cmd_name[c],
		       sgio_cs / uring1_cs);
	}
	for (int i = 0; direct && i < NDEPTHS; i++) {
		printf("bench bsg %sread4k_direct%d_cmds_s %.0f reads/s\n", prefix, depths[i],
		       median(dcs[i], ROUNDS));
		printf("bench bsg %sread4k_direct%d_p50_us %.1f us\n", prefix, depths[i],
		       median(dp50[i], ROUNDS));
		printf("bench bsg %sread4k_direct%d_p99_us %.1f us\n", prefix, depths[i],
		       median(dp99[i], ROUNDS));
	}
	uring_exit(&r);
	close(blk);
	close(bsg);
	close(sg);
	return sdebug_disk_remove(&d) ? 1 : 0;
}

/*
 * The case, a disk that answers at once (delay=0: scsi_debug
 * completes the command in the submitting thread, so nothing is ever in
 * flight and io_uring can only save system calls), and a disk that takes
 * 50 us a media command (ndelay=50000, completed from a timer; without
 * high-resolution timers it takes a tick, 4 ms), where commands in
 * flight overlap: fewer commands a round there, and no O_DIRECT reads
 * (the block layer merges them, so they would not measure the same).
 */
int main(void)
{
	return bench_device("delay=0", "", MAXCMDS, true) ||
	       bench_device("delay=0 ndelay=50000", "tick_", 400, false);
}
