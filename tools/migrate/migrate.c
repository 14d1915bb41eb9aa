// SPDX-License-Identifier: GPL-2.0
/*
 * migrate PID NODE: move process PID, with its children, to node NODE of
 * the SSI cluster, under the same PID.  It writes NODE to
 * /proc/PID/goto, which the kernel checks (Documentation/admin-guide/
 * ssi.rst) before it runs this program again, as /sbin/ssi-migrate PID
 * NODE OWNER, its usermode helper, as root.  The helper moves the process
 * with Debian's criu: it dumps the tree into a root-only directory of
 * the cluster's shared file system with the tasks left stopped, checks
 * that each task is OWNER's ("UID:GID", from the kernel; "-" when the
 * writer has CAP_SYS_ADMIN), has node NODE restore it stopped (onnode
 * NODE criu restore), checks its files there (migrate --verify), lets
 * the restored ones run (migrate --resume), and only then kills the
 * tasks left here, stopped till then, and waits for them to end.  If the
 * dump fails, criu has resumed the tasks itself; if a later step fails
 * before the restored ones run, the helper kills what the node restored
 * (migrate --abort) and resumes the tasks here with SIGCONT: a node that
 * dies during a move loses nothing.  A process its owner kills during
 * the move stays dead.  The helper signals tasks through pidfds, which
 * name this node's own only.  It tells each PID's origin, through
 * /proc/cluster/moved, where its process lives: before the restore for a
 * PID that goes back to its origin (which lets its number go), before
 * the restored ones run for the others (which their origins hold); an
 * origin that cannot be told fails the move, one that is down is not
 * told.  It exits with 0, or with the errno the write returns: EPERM
 * when a task is not OWNER's, EOPNOTSUPP when criu cannot dump the
 * process or it holds what cannot move (a file or device of this node,
 * more than MAX_TASKS tasks), EHOSTDOWN when the node is down or went
 * down, EIO when the restore failed on a live node or an origin could
 * not be told, ESRCH when its owner killed a process of the tree here
 * during the move (the rest go on here), EIO too when its owner
 * continued one.  criu's error lines go to the kernel log.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define IMAGES		"/cluster/.ssi-migrate"
#define NODES_FILE	"/proc/cluster/nodes"
#define MOVED_FILE	"/proc/cluster/moved"
#define PID_SHIFT	16	/* a PID's origin: the node of its range */
#define SHARED		"/cluster"	/* the file system every node mounts */
/* Tasks (threads) a tree may have: more are refused, EOPNOTSUPP. */
#define MAX_TASKS	1024
#define RESUME_TRIES	2
/* How long the stopped originals may take to end once killed. */
#define REAP_MS		5000
/*
 * migrate --resume: every task was gone, killed by its owner once it
 * lived there.  migrate --abort: a task there runs, resumed already.
 */
#define ALL_GONE	3
#define RAN		4

static int parse_int(const char *s, int *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 1 || n > INT_MAX)
		return -1;
	*v = n;
	return 0;
}

/*
 * Sends @sig to process @pid of this node, through a pidfd: kill() of a
 * PID whose process moved away goes to the node it lives on (its origin
 * sends it there), and the originals or copies the helper signals are
 * this node's own.  0, or -1 with errno.
 */
static int signal_local(pid_t pid, int sig)
{
	int fd = syscall(SYS_pidfd_open, pid, 0), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
	close(fd);
	return ret;
}

/* ----- the helper, as the kernel runs it ----- */

/* Runs @argv with its output in @log (appended), input /dev/null. */
static int run(char *const argv[], const char *log)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(out, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Whether /proc/cluster/nodes says node @node is up. */
static int node_up(int node)
{
	FILE *f = fopen(NODES_FILE, "r");
	char line[256];
	int n, up = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d", &n) == 1 && n == node &&
		    strstr(line, " up"))
			up = 1;
	fclose(f);
	return up;
}

/*
 * Whether node @node is down, or goes down within 5 s: a node that died
 * is seen down after the link's tolerance (1.5 s by default).
 */
static int gone(int node)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (!node_up(node))
			return 1;
		usleep(100000);
	}
	return 0;
}

/* This node's number, or 0. */
static int self_node(void)
{
	FILE *f = fopen(NODES_FILE, "r");
	char line[256];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "self %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/*
 * Tells the origin of each of the @n PIDs in @tasks whose origin is
 * (@home) or is not (!@home) @node that it lives on @to: 0, or the
 * first errno.  An origin that is down is not told.
 */
static int tell(const pid_t *tasks, int n, int node, int home, int to)
{
	char line[32];
	int i, len, e = 0;

	for (i = 0; i < n; i++) {
		int fd;

		if ((tasks[i] >> PID_SHIFT == node) != home)
			continue;
		/* A node that went down forgot its numbers: nothing to tell. */
		if (!node_up(tasks[i] >> PID_SHIFT))
			continue;
		len = snprintf(line, sizeof(line), "%d %d", tasks[i], to);
		fd = open(MOVED_FILE, O_WRONLY);
		if (fd < 0 || write(fd, line, len) != len)
			e = e ? e : errno;
		if (fd >= 0)
			close(fd);
	}
	return e;
}

/*
 * The threads of the @n processes in @tasks, from /proc: how many, or -1
 * if there are more than MAX_TASKS.
 */
static int threads(const pid_t *tasks, int n, pid_t *tids)
{
	int i, m = 0;

	for (i = 0; i < n && m >= 0; i++) {
		char path[64];
		struct dirent *d;
		DIR *dir;

		snprintf(path, sizeof(path), "/proc/%d/task", tasks[i]);
		dir = opendir(path);
		while (dir && m >= 0 && (d = readdir(dir))) {
			int tid = atoi(d->d_name);

			if (tid <= 0)
				continue;
			if (m == MAX_TASKS)
				m = -1;
			else
				tids[m++] = tid;
		}
		if (dir)
			closedir(dir);
	}
	return m;
}

/*
 * The process @pid and its descendants, from /proc, after the @n already
 * in @tasks: how many then, or -1 past MAX_TASKS.  With @tasks NULL, each
 * is sent @sig instead, however many they are.
 */
static int tree(pid_t pid, pid_t *tasks, int n, int sig)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	if (!tasks)
		signal_local(pid, sig);
	else if (n == MAX_TASKS)
		return -1;
	else
		tasks[n++] = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return n;
	while (n >= 0 && (d = readdir(dir))) {
		char file[320];
		FILE *f;
		int child;

		if (d->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "/proc/%d/task/%s/children", pid,
			 d->d_name);
		f = fopen(file, "r");
		if (!f)
			continue;
		while (n >= 0 && fscanf(f, "%d", &child) == 1)
			n = tree(child, tasks, n, sig);
		fclose(f);
	}
	closedir(dir);
	return n;
}

static void signal_tree(const pid_t *tasks, int n, int sig)
{
	int i;

	for (i = 0; i < n; i++)
		signal_local(tasks[i], sig);
}

/*
 * Kills the stopped originals, the @n processes of @tasks, and waits for
 * them to end (REAP_MS at most): the PIDs are listed on one node only
 * when the write returns.
 */
static void end_originals(const pid_t *tasks, int n)
{
	long long left = REAP_MS;
	struct pollfd p;
	int i;

	for (i = 0; i < n; i++) {
		p.fd = syscall(SYS_pidfd_open, tasks[i], 0);
		p.events = POLLIN;
		if (p.fd < 0)
			continue;
		if (!syscall(SYS_pidfd_send_signal, p.fd, SIGKILL, NULL, 0)) {
			struct timespec a, b;

			clock_gettime(CLOCK_MONOTONIC, &a);
			if (left > 0)
				poll(&p, 1, left);
			clock_gettime(CLOCK_MONOTONIC, &b);
			left -= (b.tv_sec - a.tv_sec) * 1000 +
				(b.tv_nsec - a.tv_nsec) / 1000000;
		}
		close(p.fd);
	}
}

static void report_line(pid_t pid, int node, const char *line)
{
	FILE *k = fopen("/dev/kmsg", "w");

	if (!k)
		return;
	fprintf(k, "ssi-migrate: %d to node %d: %s", pid, node, line);
	fclose(k);
}

/* criu's error lines, at most 3, to the kernel log. */
static void report(pid_t pid, int node, const char *log)
{
	FILE *f = fopen(log, "r");
	char line[512];
	int n = 0;

	while (f && n < 3 && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "Error"))
			continue;
		report_line(pid, node, line);
		n++;
	}
	if (f)
		fclose(f);
}

/*
 * Whether a character device is the same on every node: mem's null,
 * zero, full, random and urandom.
 */
static int same_everywhere(dev_t rdev)
{
	unsigned int m = minor(rdev);

	return major(rdev) == 1 &&
	       (m == 3 || m == 5 || m == 7 || m == 8 || m == 9);
}

/* pipefs's device: its FIFOs are the anonymous pipes, which criu moves. */
static dev_t pipe_dev(void)
{
	static dev_t dev;
	struct stat st;
	int p[2];

	if (!dev && !pipe(p)) {
		if (!fstat(p[0], &st))
			dev = st.st_dev;
		close(p[0]);
		close(p[1]);
	}
	return dev;
}

/*
 * Whether /proc/@pid/@what (cwd, fd/N) is a directory, regular file,
 * named FIFO or device: 1 with its inode number in *@ino and whether it
 * is on the shared file system in *@shared (never, for a device: it is
 * this node's), 0 if it is something else (a pipe, a socket) or a
 * device the same on every node, -1 if gone.
 */
static int file_of(pid_t pid, const char *what, unsigned long long *ino,
		   int *shared)
{
	struct stat st, cluster;
	char path[128];
	int fifo;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	/* 9p says the server's file system type: the mount's device tells. */
	if (stat(path, &st) || stat(SHARED, &cluster))
		return -1;
	fifo = S_ISFIFO(st.st_mode) && st.st_dev != pipe_dev();
	if ((S_ISCHR(st.st_mode) && same_everywhere(st.st_rdev)) ||
	    (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !fifo &&
	     !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)))
		return 0;
	*ino = st.st_ino;
	*shared = (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || fifo) &&
		  st.st_dev == cluster.st_dev;
	return 1;
}

/*
 * Whether @path is part of the system: it and each directory above it
 * root's, writable by root only, no link.  The nodes boot one image, and
 * no user can put another file there meanwhile.
 */
static int system_file(const char *path)
{
	char part[PATH_MAX];
	const char *slash = path;
	struct stat st;

	if (*path != '/' || strlen(path) >= sizeof(part))
		return 0;
	do {
		slash = strchr(slash + 1, '/');
		snprintf(part, sizeof(part), "%.*s",
			 slash ? (int)(slash - path) : (int)strlen(path), path);
		if (lstat(*part ? part : "/", &st) || st.st_uid ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)) || S_ISLNK(st.st_mode))
			return 0;
	} while (slash);
	return 1;
}

/*
 * A file @pid maps or runs, /proc/@pid/@what, of path @file: on the
 * shared file system, its inode goes to @f (checked by --verify where it
 * is restored, as criu opens it again by path); elsewhere, it must be a
 * system file (system_file()) that it does not write through the map
 * (!@writes).  A file not found at @file (deleted, or the kernel's own:
 * memfd, shared anonymous memory) is left to criu.  0, or EOPNOTSUPP
 * with a line in the kernel log.
 */
static int record_mapped(FILE *f, pid_t pid, const char *what,
			 const char *file, int writes, int node, int *lines)
{
	struct stat st, at, cluster;
	char proc[128], line[PATH_MAX + 128];

	snprintf(proc, sizeof(proc), "/proc/%d/%s", pid, what);
	if (stat(proc, &st) || !S_ISREG(st.st_mode) || stat(SHARED, &cluster))
		return 0;
	if (st.st_dev == cluster.st_dev) {
		fprintf(f, "%d %s %llu\n", pid, what,
			(unsigned long long)st.st_ino);
		++*lines;
		return 0;
	}
	if (stat(file, &at) || at.st_dev != st.st_dev || at.st_ino != st.st_ino)
		return 0;
	if (!writes && system_file(file))
		return 0;
	snprintf(line, sizeof(line), "%d's %s (%s) is this node's own\n", pid,
		 what, file);
	report_line(pid, node, line);
	return EOPNOTSUPP;
}

/* record_mapped() for @pid's program and each file it maps. */
static int record_maps(FILE *f, pid_t pid, int node, int *lines)
{
	char path[64], line[PATH_MAX + 128], what[64], perms[8];
	unsigned long start, end;
	int ret, off;
	ssize_t len;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	len = readlink(path, line, sizeof(line) - 1);
	line[len > 0 ? len : 0] = '\0';
	ret = len > 0 ? record_mapped(f, pid, "exe", line, 0, node, lines) : 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	while (!ret && maps && fgets(line, sizeof(line), maps)) {
		off = 0;
		if (sscanf(line, "%lx-%lx %7s %*x %*x:%*x %*u %n", &start, &end,
			   perms, &off) != 3 || !off || line[off] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(what, sizeof(what), "map_files/%lx-%lx", start, end);
		ret = record_mapped(f, pid, what, line + off,
				    perms[1] == 'w' && perms[3] == 's', node,
				    lines);
	}
	if (maps)
		fclose(maps);
	return ret;
}

/*
 * Writes to @list each task of @tasks, and the inode of each file and
 * directory it has open and of its working directory: those must be on
 * the shared file system (a working directory of "/" excepted, the same
 * on every node), where the node that restores them must find the same
 * ones.  A device open is refused, unless it is one the same on every
 * node (/dev/null...).  The files it maps and runs: record_maps().  0,
 * or EOPNOTSUPP with a line in the kernel log.
 */
static int record(const pid_t *tasks, int n, const char *list, int node)
{
	FILE *f = fopen(list, "w");
	unsigned long long ino;
	char what[32], line[128];
	int i, shared, ret = 0, lines = 0;

	if (!f)
		return EIO;
	for (i = 0; i < n && !ret; i++) {
		struct dirent *d;
		DIR *dir;

		fprintf(f, "%d task\n", tasks[i]);
		lines++;
		snprintf(what, sizeof(what), "/proc/%d/fd", tasks[i]);
		dir = opendir(what);
		strcpy(what, "cwd");
		d = NULL;
		do {
			if (file_of(tasks[i], what, &ino, &shared) == 1) {
				char link[8] = "";

				if (!strcmp(what, "cwd")) {
					snprintf(line, sizeof(line), "/proc/%d/cwd",
						 tasks[i]);
					if (readlink(line, link, sizeof(link)) == 1 &&
					    link[0] == '/')
						shared = 2;
				}
				if (!shared) {
					char file[PATH_MAX] = "?";
					ssize_t len;

					snprintf(line, sizeof(line), "/proc/%d/%s",
						 tasks[i], what);
					len = readlink(line, file, sizeof(file) - 1);
					file[len > 0 ? len : 1] = '\0';
					snprintf(line, sizeof(line),
						 "%d's %s (%.64s) is this node's own\n",
						 tasks[i], what, file);
					report_line(tasks[0], node, line);
					ret = EOPNOTSUPP;
				} else if (shared == 1) {
					fprintf(f, "%d %s %llu\n", tasks[i], what,
						ino);
					lines++;
				}
			}
			d = dir ? readdir(dir) : NULL;
			while (d && d->d_name[0] == '.')
				d = readdir(dir);
			if (d)
				snprintf(what, sizeof(what), "fd/%d", atoi(d->d_name));
		} while (d && !ret);
		if (dir)
			closedir(dir);
		if (!ret)
			ret = record_maps(f, tasks[i], node, &lines);
	}
	/* The list is whole: --verify refuses one cut short. */
	fprintf(f, "end %d\n", lines);
	if (fclose(f) && !ret)
		ret = EIO;
	return ret;
}

/*
 * The PID that starts @line, digits and a space, with *@rest after the
 * space: the PID, or -1 for anything else ("+5 ", " 5 ", "5task").
 */
static long pid_at(const char *line, char **rest)
{
	long pid;

	if (*line < '1' || *line > '9')
		return -1;
	errno = 0;
	pid = strtol(line, rest, 10);
	if (errno || pid > INT_MAX || **rest != ' ')
		return -1;
	++*rest;
	return pid;
}

enum mode { VERIFY, RESUME, ABORT };

/* The state letter of task @pid of this node ("R", "S", "T"...), or 0. */
static char state(pid_t pid)
{
	char path[64], line[512], *end;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	end = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	return end && end[1] == ' ' ? end[2] : 0;
}

/* Whether task @pid of this node has SIGKILL pending, on its way out. */
static int dying(pid_t pid)
{
	char path[64], line[256];
	unsigned long long set;
	int yes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if ((sscanf(line, "SigPnd: %llx", &set) == 1 ||
		     sscanf(line, "ShdPnd: %llx", &set) == 1) &&
		    (set & 1ULL << (SIGKILL - 1)))
			yes = 1;
	if (f)
		fclose(f);
	return yes;
}

/*
 * Whether one of the @n processes of @tasks that criu should have left
 * stopped (@stopped: all but the zombies it found) was signalled since:
 * ESRCH if one is gone or about to die, EIO if one runs (its owner
 * continued it), else 0.
 */
static int ended(const pid_t *tasks, const char *stopped, int n)
{
	int i, e = 0;

	for (i = 0; i < n; i++) {
		char s = stopped[i] ? state(tasks[i]) : 'T';

		if (!s || s == 'Z' || s == 'X' || dying(tasks[i]))
			return ESRCH;
		if (s != 'T')
			e = EIO;
	}
	return e;
}

/*
 * migrate --abort: if any of the @n tasks restored here runs, RAN, and
 * nothing is touched; else those still stopped, as criu leaves them, are
 * killed (0).  Only stopped ones: a number that went back to its origin
 * may be a process of its own there now.
 */
static int abort_here(const pid_t *tasks, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char s = state(tasks[i]);

		if (s && s != 'T' && s != 'Z' && s != 'X')
			return RAN;
	}
	for (i = 0; i < n; i++)
		if (state(tasks[i]) == 'T')
			signal_local(tasks[i], SIGKILL);
	return 0;
}

/*
 * migrate --verify LIST, on the node that restored the tasks of LIST,
 * left stopped: each file, directory and working directory is the one
 * recorded (0), or they are killed (1).  migrate --resume LIST: they run
 * (0; one gone meanwhile, killed by its owner, is no failure), every one
 * was gone (ALL_GONE), or none could be continued (1).  migrate --abort
 * LIST: abort_here().
 */
static int verify(const char *list, enum mode mode)
{
	static pid_t tasks[MAX_TASKS];
	unsigned long long want, ino;
	FILE *f = fopen(list, "r");
	int i, n = 0, bad = !f, shared, len, lines = 0, end = -1, ran = 0;
	int vanished = 0;
	char line[128], what[64], *rest;
	long pid;

	/*
	 * A line that is not "PID task" or "PID WHAT INODE", a PID that is
	 * not a process's, more tasks than fit, or no "end LINES" line
	 * last: the list is not the one the helper wrote, and what it
	 * names cannot be trusted.
	 */
	while (f && fgets(line, sizeof(line), f)) {
		len = 0;
		if (end < 0 && sscanf(line, "end %d%n", &end, &len) == 1 &&
		    !strcmp(line + len, "\n") && end == lines)
			continue;
		if (end >= 0 || (pid = pid_at(line, &rest)) < 0) {
			fprintf(stderr, "migrate: %s: a bad line\n", list);
			bad = 1;
		} else if (!strcmp(rest, "task\n")) {
			if (n == MAX_TASKS)
				bad = 1;
			else
				tasks[n++] = pid;
		} else if (sscanf(rest, "%63s %llu%n", what, &want, &len) != 2 ||
			   strcmp(rest + len, "\n")) {
			fprintf(stderr, "migrate: %s: a bad line\n", list);
			bad = 1;
		} else if (mode == VERIFY &&
			   (file_of(pid, what, &ino, &shared) != 1 || !shared ||
			    ino != want)) {
			fprintf(stderr, "migrate: %ld's %s is not the same\n",
				pid, what);
			bad = 1;
		}
		lines++;
		end = -1;
	}
	if (!f || ferror(f) || end < 0) {
		fprintf(stderr, "migrate: %s: not a whole list\n", list);
		bad = 1;
	}
	if (f)
		fclose(f);
	if (mode == ABORT)
		return abort_here(tasks, n);
	/*
	 * Resumed whatever the list holds, which --verify read a moment
	 * ago: their old selves are gone, and once they run they are not
	 * lost.  Only this node's own tasks: kill() would find a PID that
	 * is not here on another node.
	 */
	for (i = 0; i < n; i++) {
		if (!bad && mode == VERIFY)
			continue;
		if (!signal_local(tasks[i], mode == RESUME ? SIGCONT : SIGKILL))
			ran++;
		else if (errno != ESRCH)
			ran = -MAX_TASKS;
		else
			vanished++;
	}
	if (mode == VERIFY)
		return bad;
	if (n && vanished == n)
		return ALL_GONE;
	return ran <= 0;
}

/*
 * With the tree stopped, so that it can neither change nor be another
 * process under the same PID: whether each of its tasks is @owner's
 * ("UID:GID", or "-" for anyone's) as ptrace would have it: every uid and
 * gid @owner's, no capability, and dumpable (its /proc directory is its
 * owner's then, root's if not).
 */
static int owned(const pid_t *tids, int m, const char *owner)
{
	unsigned int uid, gid, v[4];
	unsigned long long caps;
	char path[64], line[256];
	struct stat st;
	int i, ok;

	if (!strcmp(owner, "-"))
		return 1;
	if (sscanf(owner, "%u:%u", &uid, &gid) != 2)
		return 0;
	for (i = 0; i < m; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d", tids[i]);
		if (stat(path, &st) || st.st_uid != uid)
			return 0;
		snprintf(path, sizeof(path), "/proc/%d/status", tids[i]);
		f = fopen(path, "r");
		if (!f)
			return 0;
		ok = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Uid: %u %u %u %u", &v[0], &v[1], &v[2],
				   &v[3]) == 4)
				ok |= (v[0] == uid && v[1] == uid && v[2] == uid &&
				       v[3] == uid) << 0;
			else if (sscanf(line, "Gid: %u %u %u %u", &v[0], &v[1],
					&v[2], &v[3]) == 4)
				ok |= (v[0] == gid && v[1] == gid && v[2] == gid &&
				       v[3] == gid) << 1;
			else if (sscanf(line, "CapPrm: %llx", &caps) == 1)
				ok |= !caps << 2;
		}
		fclose(f);
		if (ok != 7)
			return 0;
	}
	return 1;
}

static void remove_dir(const char *dir)
{
	char *const argv[] = { "rm", "-rf", (char *)dir, NULL };

	run(argv, "/dev/null");
}

static int helper(pid_t pid, int node, const char *owner)
{
	static pid_t tasks[MAX_TASKS], tids[MAX_TASKS], before[MAX_TASKS];
	static char stopped[MAX_TASKS];
	char dir[PATH_MAX], log[PATH_MAX + 16], list[PATH_MAX + 16];
	char p[16], nd[16];
	/* A tree whose root leads no session is a shell's job to criu. */
	char *job = getsid(pid) == pid ? NULL : "--shell-job";
	char *const dump[] = {
		"criu", "dump", "-t", p, "-D", dir, "--leave-stopped",
		"-o", "dump.log", job, NULL,
	};
	char *const restore[] = {
		"onnode", nd, "criu", "restore", "-D", dir,
		"--restore-detached", "--leave-stopped", "-o", "restore.log",
		job, NULL,
	};
	char *const check[] = {
		"onnode", nd, "migrate", "--verify", list, NULL,
	};
	char *const resume[] = {
		"onnode", nd, "migrate", "--resume", list, NULL,
	};
	char *const abort_argv[] = {
		"onnode", nd, "migrate", "--abort", list, NULL,
	};
	struct stat st;
	int n, m, e, r, z, try = 0, told = 0;

	/* A usermode helper starts with no files: 0, 1 and 2 are ours. */
	while ((e = open("/dev/null", O_RDWR)) >= 0 && e < 3)
		;
	if (e > 2)
		close(e);
	snprintf(p, sizeof(p), "%d", pid);
	snprintf(nd, sizeof(nd), "%d", node);
	umask(077);
	/* Root's own directory: not one a user made, nor a link to one. */
	if ((mkdir(IMAGES, 0700) && errno != EEXIST) || lstat(IMAGES, &st) ||
	    !S_ISDIR(st.st_mode) || st.st_uid || chmod(IMAGES, 0700))
		return EIO;
	snprintf(dir, sizeof(dir), IMAGES "/%d", pid);
	remove_dir(dir);
	if (mkdir(dir, 0700))
		return EIO;
	snprintf(log, sizeof(log), "%s/helper.log", dir);
	/*
	 * The tree's zombies, which criu dumps as they are: any other task
	 * not stopped after the dump was killed (or ended) meanwhile.
	 */
	r = tree(pid, before, 0, 0);
	for (z = e = 0; e < r; e++)
		if (state(before[e]) == 'Z')
			before[z++] = before[e];
	/* On failure criu leaves the tasks running, as they were. */
	if (run(dump, log)) {
		snprintf(log, sizeof(log), "%s/dump.log", dir);
		report(pid, node, log);
		remove_dir(dir);
		return EOPNOTSUPP;
	}
	/* Stopped now: the tree cannot change under us. */
	n = tree(pid, tasks, 0, 0);
	m = n < 0 ? -1 : threads(tasks, n, tids);
	snprintf(list, sizeof(list), "%s/files", dir);
	if (m < 0) {
		snprintf(log, sizeof(log), "more than %d tasks\n", MAX_TASKS);
		report_line(pid, node, log);
		/* The list is not whole: each of the tree, however many. */
		tree(pid, NULL, 0, SIGCONT);
		remove_dir(dir);
		return EOPNOTSUPP;
	}
	for (e = 0; e < n; e++) {
		stopped[e] = 1;
		for (r = 0; r < z; r++)
			if (before[r] == tasks[e])
				stopped[e] = 0;
	}
	e = owned(tids, m, owner) ? record(tasks, n, list, node) : EPERM;
	if (e) {
		signal_tree(tasks, n, SIGCONT);
		remove_dir(dir);
		return e;
	}
	e = EHOSTDOWN;
	/* Numbers going back to their origin: it lets them go. */
	if (node_up(node) && !tell(tids, m, node, 1, node)) {
		snprintf(log, sizeof(log), "%s/helper.log", dir);
		/*
		 * Restored stopped, then let run only if each file is the
		 * one it had here: a path changed meanwhile (a directory
		 * swapped for a link) would have criu, as root, open
		 * another.
		 */
		if (!run(restore, log) && !run(check, log)) {
			/*
			 * Where the others live; then the ones there run, and
			 * only then do the ones here go, stopped till then: a
			 * signal sent meanwhile goes there, and if node dies
			 * before they run there, they go on here, nothing
			 * lost.  An origin not told would let its number go:
			 * no move then.
			 */
			told = 1;
			e = tell(tids, m, node, 0, node);
			if (e) {
				report_line(pid, node, "an origin was not told\n");
			} else if ((e = ended(tasks, stopped, n))) {
				/*
				 * Killed here before its origin was told, as
				 * signals go there now: it stays dead.  Or
				 * continued: not two of it.
				 */
				report_line(pid, node, e == ESRCH ?
					    "killed during its move\n" :
					    "continued during its move\n");
			}
			/*
			 * Every task gone once there: its owner killed it, and
			 * the originals must not come back.
			 */
			for (try = 0; !e && try < RESUME_TRIES; try++) {
				r = run(resume, log);
				if (!r || r == ALL_GONE)
					goto moved;
				if (gone(node))
					break;
			}
			if (e != ESRCH && e != EIO)
				e = gone(node) ? EHOSTDOWN : EIO;
			if (try)
				report_line(pid, node, "not resumed there\n");
		} else {
			snprintf(log, sizeof(log), "%s/restore.log", dir);
			report(pid, node, log);
			e = gone(node) ? EHOSTDOWN : EIO;
		}
		/*
		 * A live node: a restore that worked, its answer lost, is
		 * killed, not left beside the originals; a resume whose
		 * answer was lost but that ran there is a move done.
		 */
		if (e != EHOSTDOWN && run(abort_argv, log) == RAN && told) {
			run(resume, log);
			goto moved;
		}
	}
	/* Still here: each origin told so, node's own again holding them. */
	if (tell(tids, m, node, 1, self_node()) ||
	    (told && tell(tids, m, node, 0, self_node())))
		report_line(pid, node, "its origin was not told\n");
	signal_tree(tasks, n, SIGCONT);
	remove_dir(dir);
	return e;
moved:
	end_originals(tasks, n);
	remove_dir(dir);
	return 0;
}

/* ----- migrate PID NODE ----- */

int main(int argc, char **argv)
{
	const char *me = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	char path[64], buf[16];
	int pid, node, fd, len;

	if (argc == 3 && !strcmp(argv[1], "--verify"))
		return verify(argv[2], VERIFY);
	if (argc == 3 && !strcmp(argv[1], "--resume"))
		return verify(argv[2], RESUME);
	if (argc == 3 && !strcmp(argv[1], "--abort"))
		return verify(argv[2], ABORT);
	if (argc == 4 && !strcmp(me, "ssi-migrate") &&
	    !parse_int(argv[1], &pid) && !parse_int(argv[2], &node))
		return helper(pid, node, argv[3]);
	if (argc != 3 || parse_int(argv[1], &pid) || parse_int(argv[2], &node) ||
	    !strcmp(me, "ssi-migrate")) {
		fprintf(stderr, "usage: %s PID NODE\n", me);
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%d/goto", pid);
	len = snprintf(buf, sizeof(buf), "%d\n", node);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, buf, len) != len) {
		fprintf(stderr, "migrate: %d to node %d: %s\n", pid, node,
			strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}
