// SPDX-License-Identifier: GPL-2.0
/*
 * bsgcmd: send one SCSI command through a bsg node (SG_IO with struct
 * sg_io_v4) and print what it returned, decoding the sense data of a
 * CHECK CONDITION.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/bsg.h>
#include <scsi/sg.h>

#define TIMEOUT_MS	30000
#define SENSE_MAX	252
/* one READ(10) or WRITE(10): 16 MiB at most, in any block size */
#define XFER_MAX	(16u << 20)

enum { EXIT_GOOD, EXIT_ERR, EXIT_USAGE, EXIT_CHECK };

static const char *prog = "bsgcmd";
static const char *dev_path;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bsgcmd DEVICE COMMAND [ARGS]\n"
		"Send one SCSI command through a bsg node (/dev/bsg/H:C:T:L) and print\n"
		"what it returned.\n"
		"\n"
		"  inquiry                vendor, product, revision and device type\n"
		"  readcap                READ CAPACITY(16): blocks, block size, bytes\n"
		"  tur                    TEST UNIT READY\n"
		"  read LBA COUNT         READ(10) of COUNT blocks at LBA, as a hex dump\n"
		"  write LBA COUNT FILE   WRITE(10) of COUNT blocks at LBA from FILE\n"
		"\n"
		"Exit status: 0 good, 1 error (the message says which), 2 usage,\n"
		"3 CHECK CONDITION or another non-good SCSI status (sense decoded).\n");
}

static void __attribute__((noreturn)) fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s: %s\n", prog, dev_path, what, strerror(err));
	exit(EXIT_ERR);
}

static void __attribute__((noreturn)) bad_usage(const char *msg)
{
	fprintf(stderr, "%s: %s\n", prog, msg);
	usage(stderr);
	exit(EXIT_USAGE);
}

/*
 * Whether st is a bsg node: a character device of the "bsg" class.  Asked
 * before the open, since opening some devices does something (a watchdog
 * arms, a tape rewinds), and again of the file opened.
 */
static int is_bsg(const struct stat *st)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	if (!S_ISCHR(st->st_mode))
		return 0;
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/subsystem",
		 major(st->st_rdev), minor(st->st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return !strcmp(basename(target), "bsg");
}

static int open_bsg(const char *path, int flags)
{
	struct stat st, fst;
	int fd;

	if (stat(path, &st))
		fail("stat", errno);
	if (!is_bsg(&st)) {
		fprintf(stderr, "%s: %s: not a bsg node (want /dev/bsg/H:C:T:L)\n",
			prog, path);
		exit(EXIT_ERR);
	}
	fd = open(path, flags | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		fail("open", errno);
	if (fstat(fd, &fst))
		fail("fstat", errno);
	if (fst.st_rdev != st.st_rdev || !S_ISCHR(fst.st_mode)) {
		fprintf(stderr, "%s: %s: changed while it was opened\n", prog, path);
		exit(EXIT_ERR);
	}
	return fd;
}

static const char *const sense_keys[16] = {
	"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR",
	"HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT",
	"BLANK CHECK", "VENDOR SPECIFIC", "COPY ABORTED", "ABORTED COMMAND",
	"EQUAL", "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED",
};

/* The additional sense codes a person meets most; others print as numbers. */
static const struct {
	unsigned char asc, ascq;
	const char *name;
} asc_names[] = {
	{ 0x00, 0x00, "no additional sense information" },
	{ 0x04, 0x00, "logical unit not ready, cause not reportable" },
	{ 0x04, 0x01, "logical unit is in process of becoming ready" },
	{ 0x04, 0x02, "logical unit not ready, initializing command required" },
	{ 0x11, 0x00, "unrecovered read error" },
	{ 0x1a, 0x00, "parameter list length error" },
	{ 0x20, 0x00, "invalid command operation code" },
	{ 0x21, 0x00, "logical block address out of range" },
	{ 0x24, 0x00, "invalid field in cdb" },
	{ 0x25, 0x00, "logical unit not supported" },
	{ 0x26, 0x00, "invalid field in parameter list" },
	{ 0x27, 0x00, "write protected" },
	{ 0x28, 0x00, "not ready to ready change, medium may have changed" },
	{ 0x29, 0x00, "power on, reset, or bus device reset occurred" },
	{ 0x2a, 0x01, "mode parameters changed" },
	{ 0x3a, 0x00, "medium not present" },
	{ 0x44, 0x00, "internal target failure" },
};

static const char *asc_name(unsigned char asc, unsigned char ascq)
{
	size_t i;

	for (i = 0; i < sizeof(asc_names) / sizeof(asc_names[0]); i++)
		if (asc_names[i].asc == asc && asc_names[i].ascq == ascq)
			return asc_names[i].name;
	return "(not in bsgcmd's table)";
}

/* Fixed (0x70, 0x71) or descriptor (0x72, 0x73) format sense data, on stderr. */
static void print_sense(const unsigned char *s, unsigned int len)
{
	unsigned int key, asc, ascq, i;

	if (len < 8) {
		fprintf(stderr, "sense: %u bytes, too short to decode\n", len);
		return;
	}
	switch (s[0] & 0x7f) {
	case 0x70:
	case 0x71:
		key = s[2] & 0xf;
		asc = len > 12 ? s[12] : 0;
		ascq = len > 13 ? s[13] : 0;
		break;
	case 0x72:
	case 0x73:
		key = s[1] & 0xf;
		asc = s[2];
		ascq = s[3];
		break;
	default:
		fprintf(stderr, "sense: response code %#x, not decoded:", s[0]);
		for (i = 0; i < len; i++)
			fprintf(stderr, " %02x", s[i]);
		fprintf(stderr, "\n");
		return;
	}
	fprintf(stderr, "sense key: 0x%x %s\n", key, sense_keys[key]);
	fprintf(stderr, "asc/ascq: 0x%02x/0x%02x %s\n", asc, ascq, asc_name(asc, ascq));
}

/* The SAM status codes' names. */
static const char *status_name(unsigned int status)
{
	switch (status) {
	case 0x00: return "GOOD";
	case 0x02: return "CHECK CONDITION";
	case 0x04: return "CONDITION MET";
	case 0x08: return "BUSY";
	case 0x18: return "RESERVATION CONFLICT";
	case 0x28: return "TASK SET FULL";
	case 0x30: return "ACA ACTIVE";
	case 0x40: return "TASK ABORTED";
	default: return "(unknown status)";
	}
}

struct cmd {
	unsigned char cdb[16];
	unsigned int cdb_len;
	void *din, *dout;
	unsigned int din_len, dout_len;
	unsigned char sense[SENSE_MAX];
	struct sg_io_v4 io;
};

/* SG_IO; returns 0 on GOOD status, EXIT_CHECK after printing the sense. */
static int run(int fd, struct cmd *c)
{
	struct sg_io_v4 *io = &c->io;

	memset(io, 0, sizeof(*io));
	io->guard = 'Q';
	io->protocol = BSG_PROTOCOL_SCSI;
	io->subprotocol = BSG_SUB_PROTOCOL_SCSI_CMD;
	io->request_len = c->cdb_len;
	io->request = (uintptr_t)c->cdb;
	io->max_response_len = sizeof(c->sense);
	io->response = (uintptr_t)c->sense;
	io->din_xfer_len = c->din_len;
	io->din_xferp = (uintptr_t)c->din;
	io->dout_xfer_len = c->dout_len;
	io->dout_xferp = (uintptr_t)c->dout;
	io->timeout = TIMEOUT_MS;
	if (ioctl(fd, SG_IO, io)) {
		if (errno == EPERM)
			fail("SG_IO (a write command needs the node open for writing or CAP_SYS_RAWIO)",
			     errno);
		if (errno == EINVAL && (c->din_len > XFER_MAX / 2 || c->dout_len > XFER_MAX / 2))
			fail("SG_IO (more than the device takes in one command?)", errno);
		fail("SG_IO", errno);
	}
	if (!io->device_status && !io->transport_status && !io->driver_status)
		return 0;
	fprintf(stderr, "status: device 0x%x %s, transport 0x%x, driver 0x%x\n",
		io->device_status, status_name(io->device_status),
		io->transport_status, io->driver_status);
	if (io->response_len)
		print_sense(c->sense, io->response_len);
	return EXIT_CHECK;
}

static const char *const device_types[32] = {
	[0x00] = "disk", [0x01] = "tape", [0x02] = "printer",
	[0x03] = "processor", [0x04] = "write-once", [0x05] = "cd/dvd",
	[0x07] = "optical memory", [0x08] = "medium changer",
	[0x0c] = "storage array", [0x0d] = "enclosure services",
	[0x0e] = "simplified disk", [0x0f] = "optical card reader",
	[0x11] = "object storage", [0x14] = "host managed zoned disk",
};

/* Printable bytes of an INQUIRY field, trailing spaces dropped. */
static void print_field(const char *label, const unsigned char *p, int len)
{
	while (len > 0 && (p[len - 1] == ' ' || !p[len - 1]))
		len--;
	printf("%s: %.*s\n", label, len, (const char *)p);
}

static int inquiry(int fd)
{
	static unsigned char buf[96];
	struct cmd c = {
		.cdb = { 0x12, 0, 0, 0, sizeof(buf), 0 },
		.cdb_len = 6,
		.din = buf,
		.din_len = sizeof(buf),
	};
	const char *type;
	int ret = run(fd, &c);

	if (ret)
		return ret;
	if (c.din_len - c.io.din_resid < 36) {
		fprintf(stderr, "%s: %s: INQUIRY returned %d bytes, under 36\n",
			prog, dev_path, (int)(c.din_len - c.io.din_resid));
		return EXIT_ERR;
	}
	type = device_types[buf[0] & 0x1f];
	print_field("vendor", buf + 8, 8);
	print_field("product", buf + 16, 16);
	print_field("revision", buf + 32, 4);
	printf("device type: 0x%x %s\n", buf[0] & 0x1f, type ? type : "(other)");
	return 0;
}

/* READ CAPACITY(16): the last LBA and the block size. */
static int capacity(int fd, uint64_t *blocks, uint32_t *bsize)
{
	unsigned char buf[32];
	struct cmd c = {
		.cdb = { 0x9e, 0x10, [13] = sizeof(buf) },
		.cdb_len = 16,
		.din = buf,
		.din_len = sizeof(buf),
	};
	uint64_t last = 0;
	int i, ret = run(fd, &c);

	if (ret)
		return ret;
	for (i = 0; i < 8; i++)
		last = last << 8 | buf[i];
	*blocks = last + 1;
	*bsize = (uint32_t)buf[8] << 24 | buf[9] << 16 | buf[10] << 8 | buf[11];
	return 0;
}

static int readcap(int fd)
{
	uint64_t blocks;
	uint32_t bsize;
	int ret = capacity(fd, &blocks, &bsize);

	if (ret)
		return ret;
	printf("blocks: %" PRIu64 "\n", blocks);
	printf("block size: %" PRIu32 "\n", bsize);
	printf("bytes: %" PRIu64 "\n", blocks * bsize);
	return 0;
}

static int tur(int fd)
{
	struct cmd c = { .cdb = { 0 }, .cdb_len = 6 };
	int ret = run(fd, &c);

	if (!ret)
		printf("ready\n");
	return ret;
}

static unsigned long number(const char *s, const char *what, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v > max) {
		fprintf(stderr, "%s: %s: %s is not a number from 0 to %lu\n",
			prog, s, what, max);
		exit(EXIT_USAGE);
	}
	return v;
}

/* The CDB of READ(10) (0x28) or WRITE(10) (0x2a). */
static void rw10(struct cmd *c, unsigned char op, uint32_t lba, uint16_t count)
{
	c->cdb[0] = op;
	c->cdb[2] = lba >> 24;
	c->cdb[3] = lba >> 16;
	c->cdb[4] = lba >> 8;
	c->cdb[5] = lba;
	c->cdb[7] = count >> 8;
	c->cdb[8] = count;
	c->cdb_len = 10;
}

static int transfer(int fd, int write, const char *lba_s, const char *count_s,
		    const char *file)
{
	uint32_t lba = number(lba_s, "LBA", UINT32_MAX);
	uint16_t count = number(count_s, "COUNT", UINT16_MAX);
	struct cmd c = { 0 };
	uint64_t blocks;
	uint32_t bsize;
	uint64_t len;
	size_t i;
	unsigned char *buf;
	int ret, in;

	/* the block size sizes the buffer: READ(10) counts blocks */
	ret = capacity(fd, &blocks, &bsize);
	if (ret)
		return ret;
	/* 64-bit: a 32-bit size_t would wrap for a large block size */
	len = (uint64_t)count * bsize;
	if (!len || len > XFER_MAX) {
		fprintf(stderr, "%s: %s: %u blocks of %u bytes: from 1 byte to %u\n",
			prog, dev_path, count, bsize, XFER_MAX);
		return EXIT_USAGE;
	}
	buf = calloc(1, len);
	if (!buf)
		fail("buffer", ENOMEM);
	rw10(&c, write ? 0x2a : 0x28, lba, count);
	if (write) {
		size_t got = 0;
		ssize_t r = 0;

		in = open(file, O_RDONLY | O_CLOEXEC);
		if (in < 0)
			fail(file, errno);
		while (got < len && (r = read(in, buf + got, len - got)) > 0)
			got += r;
		if (r < 0)
			fail(file, errno);
		close(in);
		if (got < len) {
			fprintf(stderr, "%s: %s: %zu bytes, %" PRIu64 " wanted (%u blocks of %u)\n",
				prog, file, got, len, count, bsize);
			return EXIT_ERR;
		}
		c.dout = buf;
		c.dout_len = len;
	} else {
		c.din = buf;
		c.din_len = len;
	}
	ret = run(fd, &c);
	if (ret)
		return ret;
	if (write) {
		printf("wrote %" PRIu64 " bytes at LBA %" PRIu32 "\n",
		       len - c.io.dout_resid, lba);
		return 0;
	}
	len -= c.io.din_resid;
	for (i = 0; i < len; i++) {
		if (!(i % 16))
			printf("%08zx:", i);
		printf(" %02x%s", buf[i], i % 16 == 15 || i + 1 == len ? "\n" : "");
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int fd, need;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 3)
		bad_usage("a device and a command, please");
	dev_path = argv[1];
	cmd = argv[2];
	need = !strcmp(cmd, "read") ? 5 : !strcmp(cmd, "write") ? 6 : 3;
	if (strcmp(cmd, "inquiry") && strcmp(cmd, "readcap") &&
	    strcmp(cmd, "tur") && strcmp(cmd, "read") && strcmp(cmd, "write"))
		bad_usage("unknown command");
	if (argc != need)
		bad_usage("wrong number of arguments for that command");
	/* a write command needs the node open for writing (or CAP_SYS_RAWIO) */
	fd = open_bsg(dev_path, !strcmp(cmd, "write") ? O_RDWR : O_RDONLY);
	if (!strcmp(cmd, "inquiry"))
		return inquiry(fd);
	if (!strcmp(cmd, "readcap"))
		return readcap(fd);
	if (!strcmp(cmd, "tur"))
		return tur(fd);
	return transfer(fd, !strcmp(cmd, "write"), argv[3], argv[4],
			need == 6 ? argv[5] : NULL);
}
