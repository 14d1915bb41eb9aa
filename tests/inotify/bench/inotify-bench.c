// SPDX-License-Identifier: GPL-2.0
/*
 * make bench for /dev/inotify: one workload, a burst of IN_MODIFY events
 * on a watched tmpfs directory, delivered through a mainline inotify fd and
 * through /dev/inotify, and the same writes with no watch at all.
 *
 * A round writes one byte to the files of a name mix in turn, EVENTS times
 * (alternating names keep both front ends from merging consecutive
 * events), then reads every event back.  Two mixes: "short", two files
 * with 2-byte names, and "mixed", 32 files whose names run from 1 to 255
 * bytes (mainline's records grow with the name, the device's are 264
 * bytes whatever it is).  The queue limit is raised above EVENTS first, so a
 * round that reads back fewer events than it wrote is a lost event and an
 * error, not a figure.  Rounds rotate the order of the three cases; the
 * figures are medians.
 *
 * Each figure is one line "bench inotify NAME VALUE UNIT" on stdout, which
 * rig/bench.sh collects from every kernel it boots.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/inotify_dev.h>

/* mainline's ABI: <sys/inotify.h> would clash with the 2004 names */
#define ML_MODIFY	0x002
#define ML_NONBLOCK	O_NONBLOCK

#define DIR		"/tmp/inotify-bench"
#define MAX_ROUNDS	31

enum backend { NONE, MAINLINE, DEVICE, BACKENDS };
static const char *const backend_name[BACKENDS] = { "unwatched", "mainline", "device" };

struct sample {
	double write_ns;	/* per write */
	double read_ns;		/* per event read back */
	double events_s;	/* events / (write time + read time) */
};

static int events = 100000;
static int rounds = 7;
static char buf[1 << 16];

static void die(const char *what)
{
	fprintf(stderr, "inotify-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int watch(enum backend b)
{
	struct inotify_watch_request req = { .dirname = DIR, .mask = IN_MODIFY };
	int fd;

	switch (b) {
	case MAINLINE:
		fd = syscall(SYS_inotify_init1, ML_NONBLOCK);
		if (fd < 0)
			die("inotify_init1");
		if (syscall(SYS_inotify_add_watch, fd, DIR, ML_MODIFY) < 0)
			die("inotify_add_watch");
		return fd;
	case DEVICE:
		fd = open("/dev/inotify", O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			die("open /dev/inotify");
		if (ioctl(fd, INOTIFY_WATCH, &req) < 0)
			die("INOTIFY_WATCH");
		return fd;
	default:
		return -1;
	}
}

/* The number of events queued on fd, read in 64 KiB chunks. */
static long drain(enum backend b, int fd)
{
	long n = 0;
	ssize_t r;
	char *p;

	for (;;) {
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EAGAIN)
			return n;
		if (r <= 0)
			die("read");
		if (b == DEVICE) {
			n += r / sizeof(struct inotify_event);
			continue;
		}
		/* mainline: struct inotify_event { int wd; u32 mask, cookie, len; } */
		for (p = buf; p < buf + r; n++)
			p += 16 + ((unsigned int *)p)[3];
	}
}

#define MAX_FILES 32

/* The files one round writes to, in turn. */
struct mix {
	const char *name;	/* "" for the short names: the figures' old names */
	int nfiles;
	int file[MAX_FILES];
};

static struct sample round_of(enum backend b, const struct mix *m)
{
	struct sample s = { 0 };
	int fd = watch(b);
	double t0, t1, t2;
	long got;
	int i;

	t0 = now_ns();
	for (i = 0; i < events; i++)
		if (pwrite(m->file[i % m->nfiles], "x", 1, 0) != 1)
			die("pwrite");
	t1 = now_ns();
	s.write_ns = (t1 - t0) / events;
	if (fd < 0)
		return s;
	got = drain(b, fd);
	t2 = now_ns();
	if (got != events) {
		fprintf(stderr, "inotify-bench: %s delivered %ld of %d events\n",
			backend_name[b], got, events);
		exit(1);
	}
	s.read_ns = (t2 - t1) / events;
	s.events_s = events / ((t2 - t0) / 1e9);
	close(fd);
	return s;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(struct sample *s, size_t field)
{
	double v[MAX_ROUNDS];
	int i;

	for (i = 0; i < rounds; i++)
		v[i] = *(double *)((char *)&s[i] + field);
	qsort(v, rounds, sizeof(v[0]), cmp_double);
	return v[rounds / 2];
}

static void set_queue_limit(void)
{
	FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "w");

	if (!f || fprintf(f, "%d\n", events + 1) < 0 || fclose(f))
		die("max_queued_events");
}

static void __attribute__((noreturn)) usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: inotify-bench [-n EVENTS] [-r ROUNDS]\n"
		"Times EVENTS watched writes per round (default %d) through\n"
		"mainline inotify and /dev/inotify, and EVENTS unwatched ones;\n"
		"prints the median of ROUNDS rounds (default %d, odd, at most %d).\n",
		events, rounds, MAX_ROUNDS);
	exit(rc);
}

/* Name i of n: its length runs evenly from 1 to 255 bytes. */
static void open_mix(struct mix *m, const char *name, int n, int mixed)
{
	char path[sizeof(DIR) + 1 + 256];
	int i, len, at = sizeof(DIR);

	m->name = name;
	m->nfiles = n;
	memcpy(path, DIR "/", at);
	for (i = 0; i < n; i++) {
		len = mixed ? 1 + i * 254 / (n - 1) : 2;
		memset(path + at, mixed ? 'a' + i % 26 : 'f', len);
		path[at + len] = '\0';
		if (!mixed)
			path[at + 1] = '0' + i;
		m->file[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (m->file[i] < 0)
			die("open " DIR "/*");
	}
}

static void print_mix(struct sample s[BACKENDS][MAX_ROUNDS], const char *mix,
		      int have_dev)
{
	enum backend b;

	for (b = 0; b < BACKENDS; b++) {
		if (b == DEVICE && !have_dev) {
			printf("bench inotify device absent\n");
			continue;
		}
		printf("bench inotify %s%s_write_ns %.0f ns/write\n", mix,
		       backend_name[b],
		       median(s[b], offsetof(struct sample, write_ns)));
		if (b == NONE)
			continue;
		printf("bench inotify %s%s_read_ns %.0f ns/event\n", mix,
		       backend_name[b],
		       median(s[b], offsetof(struct sample, read_ns)));
		printf("bench inotify %s%s_events_s %.0f events/s\n", mix,
		       backend_name[b],
		       median(s[b], offsetof(struct sample, events_s)));
	}
	printf("bench inotify %sunwatched_vs_watched_mainline %.2f ratio\n", mix,
	       median(s[NONE], offsetof(struct sample, write_ns)) /
	       median(s[MAINLINE], offsetof(struct sample, write_ns)));
	if (!have_dev)
		return;
	printf("bench inotify %sunwatched_vs_watched_device %.2f ratio\n", mix,
	       median(s[NONE], offsetof(struct sample, write_ns)) /
	       median(s[DEVICE], offsetof(struct sample, write_ns)));
	printf("bench inotify %sdevice_vs_mainline_events_s %.2f ratio\n", mix,
	       median(s[DEVICE], offsetof(struct sample, events_s)) /
	       median(s[MAINLINE], offsetof(struct sample, events_s)));
}

int main(int argc, char **argv)
{
	static struct sample s[2][BACKENDS][MAX_ROUNDS];
	int have_dev = access("/dev/inotify", F_OK) == 0;
	static struct mix mixes[2];
	int opt, r, k, x;
	enum backend b;

	while ((opt = getopt(argc, argv, "n:r:h")) != -1) {
		switch (opt) {
		case 'n':
			events = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (events < 1 || rounds < 1 || rounds > MAX_ROUNDS || !(rounds & 1))
		usage(2);

	set_queue_limit();
	if (mkdir(DIR, 0755) && errno != EEXIST)
		die("mkdir " DIR);
	open_mix(&mixes[0], "", 2, 0);
	open_mix(&mixes[1], "mixed_", MAX_FILES, 1);

	for (r = 0; r < rounds; r++) {
		for (x = 0; x < 2; x++) {
			for (k = 0; k < BACKENDS; k++) {
				b = (r + k) % BACKENDS;
				if (b == DEVICE && !have_dev)
					continue;
				s[x][b][r] = round_of(b, &mixes[x]);
			}
		}
	}

	printf("bench inotify: %d events per round, %d rounds, medians\n", events, rounds);
	for (x = 0; x < 2; x++)
		print_mix(s[x], mixes[x].name, have_dev);
	return 0;
}
