// SPDX-License-Identifier: GPL-2.0
/*
 * make bench for fistgen's file systems: in one boot, the same workloads
 * on a tmpfs directory (the lower file system), through wrapfs and
 * rot13fs stacked on it, through the same two descriptions' FUSE target
 * (fistgen -T fuse), and through mainline's overlayfs (its upper layer on
 * the same tmpfs) for comparison:
 *
 *   seq-write       a 32 MiB file written in 128 KiB writes, then fsync
 *   cached-read     the file read whole in 128 KiB reads, in the cache
 *   uncached-read   the same after drop_caches: tmpfs keeps its data, so
 *                   this drops only the stacked file system's own cache
 *                   (rot13fs's decoded pages, read and decoded again)
 *   random-read     20,000 4 KiB preads at random aligned offsets, cached
 *   metadata        10,000 empty files created, stat()ed and unlinked
 *   rot13           rot13 of the 32 MiB in user space, built as the kernel
 *                   builds the module's filter: the filter's own cost
 *
 * Each figure is the median of ROUNDS rounds, the targets taking turns in
 * every round; the FUSE targets take part in the first round only, with
 * 1,000 files for the metadata workload (FUSE_FILES).  One line "bench fist-bench NAME VALUE UNIT" per figure,
 * with NAME TARGET-WORKLOAD, then the ratios to the lower file system
 * (TARGET/lower-WORKLOAD: 1.00 is as fast, above is faster); rot13fs's
 * cost above wrapfs's is printed beside rot13's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DIR	"/tmp/fist-bench"
#define SIZE	(32 << 20)
#define CHUNK	(128 << 10)
#define RANDOM_READS 20000
#define FILES	10000
/*
 * Through FUSE each operation is a round trip to the daemon, some
 * hundred times slower under TCG: its targets run one round, with a
 * tenth of the files (their figures are rates all the same).
 */
#define FUSE_FILES 1000
#define ROUNDS	5

enum target { LOWER, WRAPFS, ROT13FS, OVERLAY, WRAPFS_FUSE, ROT13FS_FUSE, TARGETS };
static const char *const names[TARGETS] = {
	"lower", "wrapfs", "rot13fs", "overlayfs", "wrapfs-fuse", "rot13fs-fuse",
};
static const char *const dirs[TARGETS] = {
	DIR "/lower/plain", DIR "/wrapfs/w", DIR "/rot13fs/r", DIR "/overlay/o",
	DIR "/wrapfs-fuse/wf", DIR "/rot13fs-fuse/rf",
};

enum work { SEQ_WRITE, CACHED_READ, UNCACHED_READ, RANDOM_READ, METADATA, WORKS };
static const char *const works[WORKS] = {
	"seq-write", "cached-read", "uncached-read", "random-read", "metadata",
};
static const char *const units[WORKS] = { "MB/s", "MB/s", "MB/s", "reads/s", "files/s" };

static double samples[TARGETS][WORKS][ROUNDS];
static char buf[CHUNK];

static void die(const char *what)
{
	fprintf(stderr, "fist-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void load(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/modules/fistgen/%s.ko", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST))
		die(path);
	close(fd);
}

/* fistgen -T fuse's daemon for @name over the lower tmpfs at @mnt. */
static void fuse_mount(const char *name, const char *mnt)
{
	char daemon[128];
	int status;
	pid_t pid;

	snprintf(daemon, sizeof(daemon), "/tests/fistgen/fist/%s-fuse", name);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execl(daemon, daemon, DIR "/lower", mnt, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die(daemon);
}

static void setup(void)
{
	const char *mkd[] = { DIR, DIR "/lower", DIR "/wrapfs", DIR "/rot13fs",
			      DIR "/overlay", DIR "/empty", DIR "/wrapfs-fuse",
			      DIR "/rot13fs-fuse" };

	for (size_t i = 0; i < sizeof(mkd) / sizeof(mkd[0]); i++)
		if (mkdir(mkd[i], 0755) && errno != EEXIST)
			die(mkd[i]);
	if (mount("tmpfs", DIR "/lower", "tmpfs", 0, "size=512m"))
		die("tmpfs");
	if (mkdir(DIR "/lower/plain", 0755) || mkdir(DIR "/lower/w", 0755) ||
	    mkdir(DIR "/lower/e", 0755) ||	/* rot13 of "r" */
	    mkdir(DIR "/lower/ov", 0755) || mkdir(DIR "/lower/ovwork", 0755))
		die("lower directories");
	if (mkdir(DIR "/lower/ov/o", 0755))
		die("overlay directory");
	if (mkdir(DIR "/lower/wf", 0755) ||
	    mkdir(DIR "/lower/es", 0755))	/* rot13 of "rf" */
		die("FUSE directories");
	load("wrapfs");
	load("rot13fs");
	if (mount(DIR "/lower", DIR "/wrapfs", "wrapfs", 0, NULL))
		die("mount wrapfs");
	if (mount(DIR "/lower", DIR "/rot13fs", "rot13fs", 0, NULL))
		die("mount rot13fs");
	if (mount("overlay", DIR "/overlay", "overlay", 0,
		  "lowerdir=" DIR "/empty,upperdir=" DIR "/lower/ov,workdir="
		  DIR "/lower/ovwork"))
		die("mount overlay");
	fuse_mount("wrapfs", DIR "/wrapfs-fuse");
	fuse_mount("rot13fs", DIR "/rot13fs-fuse");
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "3", 1) != 1)
		die("drop_caches");
	close(fd);
}

static double seq_write(const char *file)
{
	double t = now();
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die(file);
	for (size_t done = 0; done < SIZE; done += CHUNK)
		if (write(fd, buf, CHUNK) != CHUNK)
			die("write");
	if (fsync(fd) || close(fd))
		die("fsync");
	return SIZE / 1e6 / (now() - t);
}

static double seq_read(const char *file)
{
	int fd = open(file, O_RDONLY);
	double t = now();
	ssize_t n;
	size_t total = 0;

	if (fd < 0)
		die(file);
	while ((n = read(fd, buf, CHUNK)) > 0)
		total += n;
	if (n < 0 || total != SIZE)
		die("read");
	t = now() - t;
	close(fd);
	return SIZE / 1e6 / t;
}

static double random_read(const char *file)
{
	int fd = open(file, O_RDONLY);
	double t;

	if (fd < 0)
		die(file);
	srandom(1);
	t = now();
	for (int i = 0; i < RANDOM_READS; i++) {
		off_t off = (off_t)(random() % (SIZE / 4096)) * 4096;

		if (pread(fd, buf, 4096, off) != 4096)
			die("pread");
	}
	t = now() - t;
	close(fd);
	return RANDOM_READS / t;
}

static double metadata(const char *dir, int files)
{
	char path[256];
	struct stat st;
	double t = now();

	for (int i = 0; i < files; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%05d", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || close(fd))
			die(path);
	}
	for (int i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%05d", dir, i);
		if (stat(path, &st))
			die(path);
	}
	for (int i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%05d", dir, i);
		if (unlink(path))
			die(path);
	}
	return files / (now() - t);
}

/*
 * Built as the kernel builds rot13fs's filter: no vector registers, no
 * vectorisation (the kernel's -mno-sse and friends), so that this is the
 * cost of the filter the module runs.
 */
__attribute__((target("general-regs-only"), optimize("no-tree-vectorize")))
static void rot13(char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = data[i];

		if ((c >= 'a' && c <= 'm') || (c >= 'A' && c <= 'M'))
			data[i] = c + 13;
		else if ((c >= 'n' && c <= 'z') || (c >= 'N' && c <= 'Z'))
			data[i] = c - 13;
	}
}

static double rot13_mbs(void)
{
	static char data[SIZE];
	double t;

	memset(data, 'q', sizeof(data));
	t = now();
	rot13(data, sizeof(data));
	t = now() - t;
	return data[SIZE / 2] == 'd' ? SIZE / 1e6 / t : 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	double s[ROUNDS];

	memcpy(s, v, sizeof(s));
	qsort(s, ROUNDS, sizeof(double), cmp);
	return s[ROUNDS / 2];
}

int main(void)
{
	double rot13[ROUNDS], m[TARGETS][WORKS];
	char file[128];

	memset(buf, 'x', sizeof(buf));
	setup();
	for (int r = 0; r < ROUNDS; r++) {
		rot13[r] = rot13_mbs();
		for (int i = 0; i < TARGETS; i++) {
			int t = (i + r) % TARGETS;	/* a different first each round */
			bool fuse = t == WRAPFS_FUSE || t == ROT13FS_FUSE;

			if (fuse && r) {
				for (int w = 0; w < WORKS; w++)
					samples[t][w][r] = samples[t][w][0];
				continue;
			}
			snprintf(file, sizeof(file), "%s/big", dirs[t]);
			samples[t][SEQ_WRITE][r] = seq_write(file);
			seq_read(file);		/* warm */
			samples[t][CACHED_READ][r] = seq_read(file);
			samples[t][RANDOM_READ][r] = random_read(file);
			drop_caches();
			samples[t][UNCACHED_READ][r] = seq_read(file);
			samples[t][METADATA][r] = metadata(dirs[t], fuse ? FUSE_FILES : FILES);
			if (unlink(file))
				die(file);
		}
	}
	for (int t = 0; t < TARGETS; t++) {
		for (int w = 0; w < WORKS; w++) {
			m[t][w] = median(samples[t][w]);
			printf("bench fist-bench %s-%s %.1f %s\n", names[t], works[w],
			       m[t][w], units[w]);
		}
	}
	for (int t = WRAPFS; t < TARGETS; t++)
		for (int w = 0; w < WORKS; w++)
			printf("bench fist-bench %s/lower-%s %.2f ratio\n", names[t],
			       works[w], m[t][w] / m[LOWER][w]);
	/*
	 * rot13fs's cost above wrapfs's, in seconds per MB, against rot13's
	 * own: the filter should be all of it.
	 */
	printf("bench fist-bench rot13-in-user-space %.1f MB/s\n", median(rot13));
	for (int w = SEQ_WRITE; w <= UNCACHED_READ; w++)
		printf("bench fist-bench rot13fs-minus-wrapfs-%s %.2f us/MB\n", works[w],
		       1e6 * (1 / m[ROT13FS][w] - 1 / m[WRAPFS][w]));
	printf("bench fist-bench rot13-cost %.2f us/MB\n", 1e6 / median(rot13));
	umount(DIR "/rot13fs-fuse");
	umount(DIR "/wrapfs-fuse");
	umount(DIR "/overlay");
	umount(DIR "/rot13fs");
	umount(DIR "/wrapfs");
	umount(DIR "/lower");
	return 0;
}
