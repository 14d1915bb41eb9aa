// SPDX-License-Identifier: GPL-2.0
/*
 * balance [-p MS] [-a] [-n] [-v]: the SSI cluster's load leveller, in the
 * spirit of the Mosix one OpenSSI shipped.  Run as root on each node
 * that should shed load; nothing starts it (it is off by default).
 *
 * Each period (-p, 2000 ms by default, jittered by a quarter either way)
 * it reads every node's runnable tasks from /proc/cluster/load and the
 * CPU time of this node's processes from /proc/PID/stat.  When this node
 * is overloaded, it moves one CPU-bound process to the least loaded node
 * by writing that node to /proc/PID/goto.  Its rules:
 *
 *  - This node's load is the least of its last four samples (SAMPLES),
 *    and at most the count of its processes that used at least half
 *    their share of the CPUs in the last period (kernel threads not
 *    counted; a process counts once, whatever its threads), so that a
 *    task runnable for a while that uses no CPU of note (a kernel
 *    thread after a restore, on a slow node) does not make it shed.
 *    Another node's load is the second highest of its last four
 *    samples: a target is not taken for idler than two of them show,
 *    nor for busier after one sample that caught a task runnable for a
 *    moment (two nodes idle but for that would tie, and a random pick
 *    among them make more moves).  A load that has just come there
 *    shows after two samples.
 *  - It sheds only when its load is above its CPUs.
 *  - A process is CPU-bound when it used at least half its share of the
 *    CPUs (CPUs / load) in each of the last two periods.  What moves is
 *    a child of init (the kernel moves nothing else) with its
 *    descendants: it weighs as many CPU-bound processes as its tree has.
 *  - It moves a tree only if the target, with that weight, would have
 *    no more runnable tasks per CPU than this node would have without
 *    it: with the loads as sampled, the way back cannot look better.
 *    Among equal targets it picks at random, so that nodes shedding at
 *    once spread.
 *  - One move a period; after it, all samples start again.  A process
 *    must have run here for MIN_AGE periods (a move restarts its clock).
 *    One whose move failed is left alone for REFUSED_S seconds, or for
 *    good when it cannot move (EOPNOTSUPP, EPERM, EINVAL).
 *  - Only users' trees move (every uid of every process in it other
 *    than root's when it was scanned), unless -a.
 *
 * Each move is a line on stdout: "moved PID to NODE" with the loads, or
 * with -n, "would move PID to NODE", and nothing moves.  With -v, each
 * period also writes to stderr why nothing moved.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOAD_FILE	"/proc/cluster/load"
#define NODES_FILE	"/proc/cluster/nodes"
#define MAX_NODES	63
#define MAX_PROCS	8192
#define SAMPLES		4
#define STREAK		2	/* periods a process must be CPU-bound */
#define MIN_AGE		8ULL	/* periods a process must have run here */
#define REFUSED_S	60
#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */
#define FOREVER		1e300

struct node {
	int cpus;
	int samples;			/* how many of run[] are filled */
	int run[SAMPLES];
};

struct proc {
	pid_t pid, ppid;
	unsigned long long start;	/* clock ticks since boot */
	unsigned long long cpu;		/* utime + stime, in ticks */
	int users;			/* no uid of it root's */
	int kthread;
	int busy;			/* CPU-bound this period */
	int streak;			/* periods CPU-bound in a row */
	double refused;			/* left alone until then (monotonic) */
};

static struct node nodes[MAX_NODES + 1];
static struct proc procs[2][MAX_PROCS];
static int nprocs[2];
static int self, all, dry, verbose, period = 2000;
static long ticks;

static double now_s(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads this node's number from the membership file. */
static int read_self(void)
{
	FILE *f = fopen(NODES_FILE, "r");
	char line[256];
	int n = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "self %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/*
 * One sample of every node's runnable tasks.  A node missing from the
 * file (down) loses its samples.  0, or -1 if the file could not be read.
 */
static int sample_load(void)
{
	int seen[MAX_NODES + 1] = { 0 };
	FILE *f = fopen(LOAD_FILE, "r");
	char line[256];
	int n, cpus, run, i, err;

	if (!f)
		return -1;
	errno = 0;
	while (fgets(line, sizeof(line), f)) {
		struct node *nd;

		if (sscanf(line, "%d %d %d", &n, &cpus, &run) != 3 ||
		    n < 1 || n > MAX_NODES || cpus < 1 || run < 0)
			continue;
		nd = &nodes[n];
		seen[n] = 1;
		nd->cpus = cpus;
		memmove(nd->run + 1, nd->run, sizeof(nd->run) - sizeof(int));
		nd->run[0] = run;
		if (nd->samples < SAMPLES)
			nd->samples++;
	}
	err = ferror(f) ? errno ?: EIO : 0;
	fclose(f);
	if (err) {
		errno = err;
		return -1;
	}
	for (i = 1; i <= MAX_NODES; i++)
		if (!seen[i])
			nodes[i].samples = 0;
	return 0;
}

/*
 * This node's steady load, the least of its samples, or another node's,
 * the second highest: -1 while it has too few samples.
 */
static int steady(int n)
{
	int i, load = nodes[n].run[0], top = -1;

	if (nodes[n].samples < SAMPLES)
		return -1;
	for (i = 0; i < SAMPLES; i++) {
		int run = nodes[n].run[i];

		if (n == self) {
			load = run < load ? run : load;
		} else if (run > top) {
			load = top;
			top = run;
		} else if (run > load) {
			load = run;
		}
	}
	return load;
}

static void forget_samples(void)
{
	int i;

	for (i = 1; i <= MAX_NODES; i++)
		nodes[i].samples = 0;
}

/* The start of @dirfd's file @name, NUL-terminated, in @buf: 0 or -1. */
static int read_small(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY);
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	return 0;
}

/* /proc/PID/stat and status read through @dirfd, /proc/PID: 0 or -1. */
static int read_stat(int dirfd, struct proc *p)
{
	char buf[1024], *paren, state, *line;
	unsigned long long ut, st;
	unsigned int flags, uid[4];

	if (read_small(dirfd, "stat", buf, sizeof(buf)))
		return -1;
	/* The command may hold anything: its last ')' ends it. */
	paren = strrchr(buf, ')');
	if (!paren || sscanf(paren + 1,
		   " %c %d %*d %*d %*d %*d %u %*u %*u %*u %*u %llu %llu"
		   " %*d %*d %*d %*d %*d %*d %llu",
		   &state, &p->ppid, &flags, &ut, &st, &p->start) != 6)
		return -1;
	p->cpu = ut + st;
	p->kthread = !!(flags & PF_KTHREAD);
	/* Real, effective, saved and filesystem uids: none of them root. */
	if (read_small(dirfd, "status", buf, sizeof(buf)))
		return -1;
	line = strstr(buf, "\nUid:");
	if (!line || sscanf(line, "\nUid: %u %u %u %u", &uid[0], &uid[1],
			    &uid[2], &uid[3]) != 4)
		return -1;
	p->users = uid[0] && uid[1] && uid[2] && uid[3];
	return 0;
}

static const struct proc *find(int gen, pid_t pid)
{
	int lo = 0, hi = nprocs[gen] - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (procs[gen][mid].pid == pid)
			return &procs[gen][mid];
		if (procs[gen][mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/*
 * This node's processes into generation @gen, with what each used since
 * the last scan (@elapsed seconds ago) against @share of a CPU: the count
 * of CPU-bound ones that are not kernel threads.
 */
static int scan(int gen, double elapsed, double share)
{
	DIR *dir = opendir("/proc");
	struct dirent *d;
	int n = 0, bound = 0, i;

	nprocs[gen] = 0;
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < MAX_PROCS) {
		struct proc *p = &procs[gen][n];
		const struct proc *old;
		char *end, path[32];
		long pid = strtol(d->d_name, &end, 10);
		int fd;

		if (*end || pid < 1 || pid > INT_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld", pid);
		fd = open(path, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			continue;
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		if (read_stat(fd, p)) {
			close(fd);
			continue;
		}
		close(fd);
		old = find(!gen, p->pid);
		if (old && old->start == p->start) {
			p->refused = old->refused;
			p->busy = elapsed > 0 &&
				  (p->cpu - old->cpu) / (double)ticks >=
				  elapsed * share / 2;
			p->streak = p->busy ? old->streak + 1 : 0;
		}
		n++;
	}
	closedir(dir);
	/* readdir lists /proc's PIDs in order: find() relies on it. */
	for (i = 1; i < n; i++)
		if (procs[gen][i].pid < procs[gen][i - 1].pid)
			n = i;
	nprocs[gen] = n;
	for (i = 0; i < n; i++)
		bound += procs[gen][i].busy && !procs[gen][i].kthread;
	return bound;
}

/*
 * The processes of @p's tree (what a move of it takes) that have been
 * CPU-bound for STREAK periods; *@users is cleared if one of the tree
 * has a uid of root's.
 */
static int weight(int gen, const struct proc *p, int *users)
{
	int i, w = p->streak >= STREAK;

	if (!p->users)
		*users = 0;
	for (i = 0; i < nprocs[gen]; i++) {
		const struct proc *c = &procs[gen][i];

		if (c->ppid == p->pid && c->pid != p->pid)
			w += weight(gen, c, users);
	}
	return w;
}

/* The least loaded other node, at random among equals: 0 if none. */
static int target(int *load)
{
	int n, best = 0, ties = 0;

	for (n = 1; n <= MAX_NODES; n++) {
		int l = steady(n);

		if (n == self || l < 0)
			continue;
		/* l / cpus against the best's load / cpus */
		if (!best || l * nodes[best].cpus < *load * nodes[n].cpus) {
			ties = 1;
		} else if (l * nodes[best].cpus > *load * nodes[n].cpus ||
			   rand() % ++ties) {
			continue;
		}
		best = n;
		*load = l;
	}
	return best;
}

/*
 * Writes @to to the goto of @p, if it is still the process scanned (the
 * same start time through the same /proc/PID): 0 or an errno.
 */
static int move(const struct proc *p, int to)
{
	char path[32], num[16];
	struct proc now;
	int dirfd, fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d", p->pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY);
	if (dirfd < 0)
		return errno;
	if (read_stat(dirfd, &now) || now.start != p->start) {
		close(dirfd);
		return ESRCH;
	}
	fd = openat(dirfd, "goto", O_WRONLY);
	close(dirfd);
	if (fd < 0)
		return errno;
	snprintf(num, sizeof(num), "%d", to);
	if (write(fd, num, strlen(num)) < 0)
		ret = errno;
	close(fd);
	return ret;
}

static void say(const char *why, int load, int bound, int to, int tload)
{
	if (verbose)
		fprintf(stderr, "balance: load %d (%d CPU-bound) of %d CPUs, node %d at %d: %s\n",
			load, bound, nodes[self].cpus, to, tload, why);
}

/* One period's decision, on generation @gen of the scan. */
static void level(int gen, int bound)
{
	int load = steady(self), cpus = nodes[self].cpus;
	unsigned long long now = now_s(CLOCK_BOOTTIME) * ticks;
	unsigned long long age = MIN_AGE * period * ticks / 1000;
	struct proc *pick = NULL;
	int i, to, tload = 0, w = 0, ret;

	if (load < 0 || cpus < 1) {
		say("too few samples", load, bound, 0, 0);
		return;
	}
	if (bound < load)
		load = bound;
	if (load <= cpus) {
		say("not overloaded", load, bound, 0, 0);
		return;
	}
	to = target(&tload);
	if (!to) {
		say("no other node", load, bound, 0, 0);
		return;
	}
	/*
	 * The heaviest tree after whose move the target has no more runnable
	 * tasks per CPU than this node: the way back cannot look better.
	 */
	for (i = 0; i < nprocs[gen]; i++) {
		struct proc *p = &procs[gen][i];
		int pw, users = 1;

		if (p->ppid != 1 || p->kthread || p->pid == getpid() ||
		    p->refused > now_s(CLOCK_MONOTONIC) || now < p->start + age)
			continue;
		pw = weight(gen, p, &users);
		if (!pw || (!users && !all) || pw <= w ||
		    (long long)(tload + pw) * cpus >
		    (long long)(load - pw) * nodes[to].cpus)
			continue;
		pick = p;
		w = pw;
	}
	if (!pick) {
		say("no process to move", load, bound, to, tload);
		return;
	}
	forget_samples();
	if (dry) {
		printf("would move %d to %d (load %d/%d here, %d/%d there)\n",
		       pick->pid, to, load, cpus, tload, nodes[to].cpus);
		return;
	}
	ret = move(pick, to);
	if (!ret) {
		printf("moved %d to %d (load %d/%d here, %d/%d there)\n",
		       pick->pid, to, load, cpus, tload, nodes[to].cpus);
		return;
	}
	fprintf(stderr, "balance: %d to %d: %s\n", pick->pid, to,
		strerror(ret));
	/* What the process holds cannot move, or the kernel says no. */
	if (ret == EOPNOTSUPP || ret == EPERM || ret == EINVAL)
		pick->refused = FOREVER;
	/* Busy, or the node or the process went: not the process's fault. */
	else if (ret != EBUSY && ret != EAGAIN && ret != EHOSTDOWN &&
		 ret != ESRCH)
		pick->refused = now_s(CLOCK_MONOTONIC) + REFUSED_S;
}

static int usage(void)
{
	fprintf(stderr, "usage: balance [-p MS] [-a] [-n] [-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double last, share = 1;
	int opt, gen = 0;
	char *end;
	long arg;

	while ((opt = getopt(argc, argv, "p:anv")) != -1) {
		switch (opt) {
		case 'p':
			errno = 0;
			arg = strtol(optarg, &end, 10);
			if (errno || *end || arg < 100 || arg > 3600000)
				return usage();
			period = arg;
			break;
		case 'a':
			all = 1;
			break;
		case 'n':
			dry = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			return usage();
		}
	}
	if (optind != argc)
		return usage();
	if (geteuid()) {
		fprintf(stderr, "balance: it moves other users' processes: run it as root\n");
		return 1;
	}
	self = read_self();
	ticks = sysconf(_SC_CLK_TCK);
	if (self < 1 || self > MAX_NODES || ticks < 1) {
		fprintf(stderr, "balance: %s: not a node of an SSI cluster\n",
			NODES_FILE);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	srand(getpid() ^ time(NULL));
	scan(gen, 0, share);
	last = now_s(CLOCK_MONOTONIC);
	for (;;) {
		long ms = period * 3L / 4 + rand() % (period / 2 + 1);
		struct timespec nap = { ms / 1000, ms % 1000 * 1000000 };
		double now;
		int bound, load;

		nanosleep(&nap, NULL);
		if (sample_load()) {
			fprintf(stderr, "balance: %s: %s\n", LOAD_FILE,
				strerror(errno));
			continue;
		}
		/* After the sample, which waits for the other nodes. */
		now = now_s(CLOCK_MONOTONIC);
		/* A process's fair share of a CPU, on this node's load now. */
		load = nodes[self].samples ? nodes[self].run[0] : 0;
		share = load > nodes[self].cpus ?
			(double)nodes[self].cpus / load : 1;
		gen = !gen;
		bound = scan(gen, now - last, share);
		last = now;
		level(gen, bound);
	}
}
