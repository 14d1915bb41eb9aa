// SPDX-License-Identifier: GPL-2.0
/*
 * onnode N PROGRAM [ARG...]: run PROGRAM on node N of the SSI cluster, as
 * the caller, with its standard input, output and error relayed here, and
 * exit with its status.  Installed as /sbin/ssi-relay as well: the other
 * end, which node N's kernel starts as root for an SSI_IOC_REXEC ioctl on
 * /proc/cluster/rexec (Documentation/admin-guide/ssi.rst), takes the
 * caller's resource limits and umask, drops to its user and groups,
 * connects back, and runs the program.
 *
 * The two ends speak in frames over a TIPC stream connection.  The relay
 * sends the token first (the caller accepts no other connection); the
 * caller sends CWD, ARGs, ENVs and GO; the relay answers PID, or ERROR
 * or ERROR_CWD with an errno; then the caller sends IN data, IN_EOF and
 * SIG, and the relay OUT and ERR data, CREDIT for the input it has given
 * the program (the caller has at most WINDOW bytes unacknowledged) and,
 * last, EXIT.  Both ends are
 * this program, on nodes of one cluster.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/ssi.h>
#include <linux/tipc.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REXEC_FILE	"/proc/cluster/rexec"
#define ACCEPT_MS	10000	/* the relay connects, or the request failed */
#define CHUNK		4096
#define WINDOW		65536	/* input sent, not yet given the program */
#define CANDIDATES	8	/* connections waiting to present a token */
#define STR_MAX		(128 * 1024)	/* an argument, as execve() takes */
#define STRS_MAX	65536		/* arguments and environment strings */

enum {
	F_IN = 1, F_IN_EOF, F_OUT, F_ERR, F_PID, F_EXIT, F_ERROR,
	F_CWD, F_ARG, F_ENV, F_GO, F_ERROR_CWD, F_SIG, F_CREDIT,
};

struct frame {
	uint8_t type;
	uint8_t pad[3];
	uint32_t len;
};

extern char **environ;

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int send_frame(int s, int type, const void *data, uint32_t len)
{
	struct frame f = { .type = type, .len = len };

	if (write_all(s, &f, sizeof(f)))
		return -1;
	return len ? write_all(s, data, len) : 0;
}

static int send_u32(int s, int type, uint32_t v)
{
	return send_frame(s, type, &v, sizeof(v));
}

/*
 * Reads a frame of at most @max bytes into @buf, NUL-terminated (room
 * for @max + 1): its type, or -1 if the connection ended or it was
 * larger.
 */
static int read_frame(int s, char *buf, uint32_t max, uint32_t *len)
{
	struct frame f;

	*len = 0;
	if (read_all(s, &f, sizeof(f)) || f.len > max ||
	    (f.len && read_all(s, buf, f.len)))
		return -1;
	buf[f.len] = '\0';
	*len = f.len;
	return f.type;
}

static int parse_u32(const char *s, uint32_t *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || n > UINT32_MAX)
		return -1;
	*v = n;
	return 0;
}

/* ----- the relay, on the node the program runs on ----- */

static int drop_to(uint32_t uid, uint32_t gid, char *groups)
{
	gid_t list[64];
	size_t n = 0;
	char *g, *save;

	if (strcmp(groups, "-"))
		for (g = strtok_r(groups, ",", &save); g;
		     g = strtok_r(NULL, ",", &save)) {
			uint32_t v;

			if (n == 64 || parse_u32(g, &v))
				return -1;
			list[n++] = v;
		}
	if (setgroups(n, list) || setgid(gid) || setuid(uid))
		return -1;
	/* Root dropping to a user cannot get back. */
	if (uid && (setuid(0) == 0 || getuid() != uid || geteuid() != uid))
		return -1;
	return 0;
}

/* "-" or a number. */
static int parse_rlim(const char *s, rlim_t *v)
{
	unsigned long long n;
	char *end;

	if (!strcmp(s, "-")) {
		*v = RLIM_INFINITY;
		return 0;
	}
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *end || n >= RLIM_INFINITY)
		return -1;
	*v = n;
	return 0;
}

/*
 * The caller's limits, "CUR:MAX,..." in the kernel's order, which is
 * this libc's, and its umask in octal: 0, or an errno.
 */
static int take_limits(char *limits, const char *mask)
{
	char *l, *save, *colon;
	unsigned long m;
	int i = 0;
	char *end;

	for (l = strtok_r(limits, ",", &save); l;
	     l = strtok_r(NULL, ",", &save), i++) {
		struct rlimit r;

		colon = strchr(l, ':');
		if (!colon)
			return EINVAL;
		*colon = '\0';
		if (parse_rlim(l, &r.rlim_cur) ||
		    parse_rlim(colon + 1, &r.rlim_max))
			return EINVAL;
		if (i < RLIM_NLIMITS && setrlimit(i, &r))
			return errno;
	}
	errno = 0;
	m = strtoul(mask, &end, 8);
	if (errno || end == mask || *end || m > 0777)
		return EINVAL;
	umask(m);
	return 0;
}

static int relay_connect(const char *port, const char *token_hex)
{
	struct sockaddr_tipc addr = {
		.family = AF_TIPC,
		.addrtype = TIPC_SOCKET_ADDR,
	};
	uint8_t token[SSI_REXEC_TOKEN_LEN];
	int s, i;

	if (!token_hex ||
	    sscanf(port, "%u:%u", &addr.addr.id.node, &addr.addr.id.ref) != 2 ||
	    strlen(token_hex) != 2 * sizeof(token))
		return -1;
	for (i = 0; i < (int)sizeof(token); i++)
		if (sscanf(token_hex + 2 * i, "%2hhx", &token[i]) != 1)
			return -1;
	s = socket(AF_TIPC, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) ||
	    write_all(s, token, sizeof(token))) {
		close(s);
		return -1;
	}
	return s;
}

struct job {
	char *cwd;
	char **argv, **envp;
	uint32_t argc, envc;
};

/* Takes CWD, ARGs, ENVs and GO from the caller: 0, or an errno. */
static int relay_job(int s, struct job *j)
{
	char *buf = malloc(STR_MAX + 1);
	uint32_t len;
	int type;

	memset(j, 0, sizeof(*j));
	j->argv = calloc(STRS_MAX + 1, sizeof(char *));
	j->envp = calloc(STRS_MAX + 1, sizeof(char *));
	if (!buf || !j->argv || !j->envp)
		return ENOMEM;
	while ((type = read_frame(s, buf, STR_MAX, &len)) != F_GO) {
		char *str;

		if (type < 0)
			return EPROTO;
		str = strdup(buf);
		if (!str)
			return ENOMEM;
		if (type == F_CWD && !j->cwd)
			j->cwd = str;
		else if (type == F_ARG && j->argc < STRS_MAX)
			j->argv[j->argc++] = str;
		else if (type == F_ENV && j->envc < STRS_MAX)
			j->envp[j->envc++] = str;
		else
			return type == F_ARG || type == F_ENV ? E2BIG : EPROTO;
	}
	free(buf);
	return j->cwd && j->argc ? 0 : EPROTO;
}

/*
 * Forks the program, the leader of a session of its own, with its
 * streams on pipes: its PID, or -errno of its exec.
 */
static pid_t relay_start(struct job *j, int io[3])
{
	int in[2], out[2], err[2], st[2], e;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) ||
	    pipe2(err, O_CLOEXEC) || pipe2(st, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		char **p;

		if (setsid() < 0 || dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 ||
		    dup2(err[1], 2) < 0) {
			e = errno;
		} else {
			signal(SIGPIPE, SIG_DFL);
			/* Looked up in the program's PATH, as its shell would. */
			for (p = j->envp; *p; p++)
				if (!strncmp(*p, "PATH=", 5))
					setenv("PATH", *p + 5, 1);
			execvpe(j->argv[0], j->argv, j->envp);
			e = errno;
		}
		write_all(st[1], &e, sizeof(e));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	close(st[1]);
	/* The write end closes at the exec: nothing read means it ran. */
	if (read_all(st[0], &e, sizeof(e)) == 0) {
		waitpid(pid, NULL, 0);
		return -e;
	}
	close(st[0]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	io[0] = in[1];
	io[1] = out[0];
	io[2] = err[0];
	return pid;
}

/*
 * Relays the program's streams until it has ended and both its outputs
 * are closed, then sends EXIT.  The socket is always read: the caller
 * sends at most WINDOW bytes of input that the relay has not yet given
 * the program (CREDIT frames give them back), so input waiting for the
 * program never holds up a SIG frame behind it.
 */
static void relay_pump(int s, pid_t pid, int io[3])
{
	static char in[WINDOW];
	char buf[CHUNK + 1];
	size_t in_len = 0;
	int status = 127 << 8, open_out = 2, in_eof = 0, exited = 0;
	int pfd = pidfd_open(pid, 0);

	/* Without a pidfd, as before them: until both outputs close. */
	while (open_out || (pfd >= 0 && !exited)) {
		struct pollfd p[5] = {
			{ .fd = s, .events = POLLIN },
			{ .fd = io[1], .events = POLLIN },
			{ .fd = io[2], .events = POLLIN },
			{ .fd = in_len ? io[0] : -1, .events = POLLOUT },
			{ .fd = pfd, .events = POLLIN },
		};
		int i;

		if (poll(p, 5, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[3].revents) {
			ssize_t n = write(io[0], in, in_len);

			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				n = 0;
			if (n < 0) {
				/* Not read any more: the rest is given back. */
				close(io[0]);
				io[0] = -1;
				n = in_len;
			}
			memmove(in, in + n, in_len - n);
			in_len -= n;
			if (n && s >= 0 && send_u32(s, F_CREDIT, n))
				goto hangup;
		}
		if (p[0].revents) {
			uint32_t len, sig;
			int type = read_frame(s, buf, CHUNK, &len);

			if (type == F_IN && in_len + len <= WINDOW) {
				if (io[0] >= 0) {
					memcpy(in + in_len, buf, len);
					in_len += len;
				} else if (send_u32(s, F_CREDIT, len)) {
					goto hangup;
				}
			} else if (type == F_SIG && len == sizeof(sig)) {
				memcpy(&sig, buf, sizeof(sig));
				if (sig >= 1 && sig < 65)
					kill(-pid, sig);
			} else if (type == F_IN_EOF) {
				/* Closed once the program has the input before it. */
				if (io[0] >= 0 && !in_len) {
					close(io[0]);
					io[0] = -1;
				}
				in_eof = 1;
			} else {
				/* Gone, or broke the protocol: as a hangup. */
				goto hangup;
			}
		}
		if (in_eof && !in_len && io[0] >= 0) {
			close(io[0]);
			io[0] = -1;
		}
		for (i = 1; i <= 2; i++) {
			ssize_t n;

			if (!p[i].revents)
				continue;
			n = read(io[i], buf, CHUNK);
			if (n > 0) {
				if (s >= 0 &&
				    send_frame(s, i == 1 ? F_OUT : F_ERR, buf, n))
					goto hangup;
			} else if (n == 0 || errno != EINTR) {
				close(io[i]);
				io[i] = -1;
				open_out--;
			}
		}
		if (p[4].revents && waitpid(pid, &status, WNOHANG) == pid) {
			close(pfd);
			pfd = -1;
			exited = 1;
		}
		continue;
hangup:
		/* The caller went: as a terminal's hangup. */
		kill(-pid, SIGHUP);
		if (io[0] >= 0)
			close(io[0]);
		io[0] = -1;
		in_len = 0;
		if (s >= 0)
			close(s);
		s = -1;
	}
	if (pfd >= 0)
		close(pfd);
	if (!exited && waitpid(pid, &status, 0) != pid)
		status = 127 << 8;
	if (s >= 0)
		send_u32(s, F_EXIT, status);
}

/*
 * ssi-relay UID GID GROUPS LIMITS UMASK NODE:REF, with SSI_REXEC_TOKEN in
 * its environment, as the kernel starts it (kernel/ssi/rexec.c).
 */
static int relay_main(int argc, char **argv)
{
	const char *token = getenv("SSI_REXEC_TOKEN");
	uint32_t uid, gid;
	struct job job;
	int s, io[3], e, limits_err;
	pid_t pid;

	/* A usermode helper starts with no files: 0, 1 and 2 are ours. */
	while ((s = open("/dev/null", O_RDWR)) >= 0 && s < 3)
		;
	if (s > 2)
		close(s);
	if (argc != 7 || parse_u32(argv[1], &uid) || parse_u32(argv[2], &gid))
		return 2;
	/* Limits a user could not raise: as root, told to the caller. */
	limits_err = take_limits(argv[4], argv[5]);
	/* The user's, before anything of theirs is touched. */
	if (drop_to(uid, gid, argv[3]))
		return 1;
	/* The caller says what to run within ACCEPT_MS, or the relay ends. */
	alarm(ACCEPT_MS / 1000);
	s = relay_connect(argv[6], token);
	if (s < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	e = relay_job(s, &job);
	alarm(0);
	if (!e)
		e = limits_err;
	if (e) {
		send_u32(s, F_ERROR, e);
		return 1;
	}
	if (chdir(job.cwd)) {
		send_u32(s, F_ERROR_CWD, errno);
		return 1;
	}
	pid = relay_start(&job, io);
	if (pid < 0) {
		send_u32(s, F_ERROR, -pid);
		return 1;
	}
	if (send_u32(s, F_PID, pid)) {
		kill(-pid, SIGHUP);
		close(s);
		s = -1;
	}
	relay_pump(s, pid, io);
	return 0;
}

/* ----- onnode, on the caller's node ----- */

static int sig_pipe[2] = { -1, -1 };

/* A signal for the program: the main loop sends it on. */
static void forward(int sig)
{
	int saved = errno;
	uint8_t b = sig;

	if (write(sig_pipe[1], &b, 1) < 0)
		errno = saved;
	errno = saved;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Waits for node @node's relay presenting @token, ACCEPT_MS in all: the
 * connection, or -1.
 */
static int accept_relay(int l, uint32_t node, const uint8_t *token)
{
	struct pollfd p[1 + CANDIDATES] = { { .fd = l, .events = POLLIN } };
	size_t have[1 + CANDIDATES] = { 0 };
	uint8_t got[1 + CANDIDATES][SSI_REXEC_TOKEN_LEN];
	long long end = now_ms() + ACCEPT_MS;
	int i, n, found = -1;

	for (i = 1; i <= CANDIDATES; i++)
		p[i].fd = -1;
	/*
	 * Every connection from node N is a candidate until it has sent
	 * 16 bytes: a silent one does not hold up the relay's.
	 */
	while (found < 0 && now_ms() < end) {
		/* A signal meanwhile is the program's: it is kept for it. */
		n = poll(p, 1 + CANDIDATES, end - now_ms());
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (p[0].revents) {
			struct sockaddr_tipc peer;
			socklen_t plen = sizeof(peer);
			int c = accept4(l, NULL, NULL,
					SOCK_CLOEXEC | SOCK_NONBLOCK);

			for (i = 1; c >= 0 && i <= CANDIDATES; i++)
				if (p[i].fd < 0)
					break;
			/* The relay is on node N: <1.1.N>. */
			if (c >= 0 && (i > CANDIDATES ||
				       getpeername(c, (struct sockaddr *)&peer,
						   &plen) ||
				       peer.addr.id.node != ((1u << 24) |
							     (1u << 12) | node))) {
				close(c);
			} else if (c >= 0) {
				p[i] = (struct pollfd){ .fd = c, .events = POLLIN };
				have[i] = 0;
			}
		}
		for (i = 1; i <= CANDIDATES; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, got[i] + have[i],
				 SSI_REXEC_TOKEN_LEN - have[i]);
			if (n > 0)
				have[i] += n;
			else if (n < 0 && errno == EAGAIN)
				continue;
			if (n <= 0 || (have[i] == SSI_REXEC_TOKEN_LEN &&
				       memcmp(got[i], token, SSI_REXEC_TOKEN_LEN))) {
				close(p[i].fd);
				p[i].fd = -1;
			} else if (have[i] == SSI_REXEC_TOKEN_LEN) {
				found = i;
				break;
			}
		}
	}
	for (i = 1; i <= CANDIDATES; i++)
		if (p[i].fd >= 0 && i != found)
			close(p[i].fd);
	if (found < 0)
		return -1;
	/* The relay's connection blocks, as the pump expects. */
	fcntl(p[found].fd, F_SETFL, 0);
	return p[found].fd;
}

static int send_str(int c, int type, const char *s)
{
	size_t len = strlen(s);

	if (len > STR_MAX) {
		errno = E2BIG;
		return -1;
	}
	return send_frame(c, type, s, len);
}

/* Sends what to run: 0, or -1 with errno set. */
static int send_job(int c, char **argv)
{
	char cwd[PATH_MAX];
	char **e;

	if (!getcwd(cwd, sizeof(cwd)) || send_str(c, F_CWD, cwd))
		return -1;
	for (; *argv; argv++)
		if (send_str(c, F_ARG, *argv))
			return -1;
	for (e = environ; *e; e++)
		if (send_str(c, F_ENV, *e))
			return -1;
	return send_frame(c, F_GO, NULL, 0);
}

/*
 * Sends what @q holds, as much as the socket takes without waiting:
 * 0, or -1 if the connection failed.
 */
static int flush(int c, char *q, size_t *qlen)
{
	while (*qlen) {
		ssize_t n = send(c, q, *qlen, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		memmove(q, q + n, *qlen - n);
		*qlen -= n;
	}
	return 0;
}

/* Queues a frame behind what @q holds (room for two frames). */
static void queue_frame(char *q, size_t *qlen, int type, const void *data,
			uint32_t len)
{
	struct frame f = { .type = type, .len = len };

	memcpy(q + *qlen, &f, sizeof(f));
	memcpy(q + *qlen + sizeof(f), data, len);
	*qlen += sizeof(f) + len;
}

/*
 * Relays until EXIT: onnode's exit status.  Input is read only when what
 * went before is sent and the relay has room for it (CREDIT), and the
 * socket is always read, so neither end waits for the other and a
 * signal never waits behind input.
 */
static int caller_pump(int c)
{
	char buf[CHUNK + 1], q[3 * (CHUNK + sizeof(struct frame))];
	size_t qlen = 0, credit = WINDOW;
	int in_open = 1;

	for (;;) {
		struct pollfd p[3] = {
			{ .fd = c, .events = POLLIN | (qlen ? POLLOUT : 0) },
			{ .fd = in_open && !qlen && credit ? 0 : -1,
			  .events = POLLIN },
			/* A signal waits while the queue is full. */
			{ .fd = qlen < CHUNK ? sig_pipe[0] : -1, .events = POLLIN },
		};
		uint32_t len, v;
		int type;

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 125;
		}
		if (p[2].revents) {
			uint8_t b;

			if (read(sig_pipe[0], &b, 1) == 1) {
				v = b;
				queue_frame(q, &qlen, F_SIG, &v, sizeof(v));
			}
		}
		if (p[1].revents) {
			ssize_t n = read(0, buf, credit < CHUNK ? credit : CHUNK);

			if (n > 0) {
				queue_frame(q, &qlen, F_IN, buf, n);
				credit -= n;
			} else if (n == 0 || errno != EINTR) {
				queue_frame(q, &qlen, F_IN_EOF, NULL, 0);
				in_open = 0;
			}
		}
		/*
		 * The relay sends EXIT and closes as soon as the program
		 * has ended, maybe before it takes the input still queued
		 * here: what it sent is read all the same.
		 */
		if (flush(c, q, &qlen)) {
			qlen = 0;
			in_open = 0;
		}
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		type = read_frame(c, buf, CHUNK, &len);
		if (type == F_OUT || type == F_ERR) {
			/* Nobody reads it any more: the program is hung up. */
			if (write_all(type == F_OUT ? 1 : 2, buf, len))
				return 128 + SIGPIPE;
		} else if (type == F_CREDIT && len == sizeof(v)) {
			memcpy(&v, buf, sizeof(v));
			credit = credit + v > WINDOW ? WINDOW : credit + v;
		} else if (type == F_EXIT && len == sizeof(v)) {
			memcpy(&v, buf, sizeof(v));
			if (WIFEXITED(v))
				return WEXITSTATUS(v);
			return 128 + (WIFSIGNALED(v) ? WTERMSIG(v) : 0);
		} else if (type < 0) {
			goto lost;
		}
	}
lost:
	fprintf(stderr, "onnode: the connection to the program was lost\n");
	return 125;
}

int main(int argc, char **argv)
{
	const char *me = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	struct sockaddr_tipc addr;
	socklen_t alen = sizeof(addr);
	struct sigaction sa = { .sa_handler = forward };
	struct ssi_rexec req = {};
	uint32_t node, len, v;
	char buf[CHUNK + 1];
	int l, c, fd, type;

	if (!strcmp(me, "ssi-relay"))
		return relay_main(argc, argv);
	if (argc < 3 || parse_u32(argv[1], &node)) {
		fprintf(stderr, "usage: onnode NODE PROGRAM [ARG...]\n");
		return 125;
	}
	l = socket(AF_TIPC, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || listen(l, 4) ||
	    getsockname(l, (struct sockaddr *)&addr, &alen) ||
	    getrandom(req.token, sizeof(req.token), 0) != sizeof(req.token) ||
	    pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK)) {
		perror("onnode: setting up");
		return 125;
	}
	req.node = node;
	req.port_node = addr.addr.id.node;
	req.port_ref = addr.addr.id.ref;
	fd = open(REXEC_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, SSI_IOC_REXEC, &req)) {
		fprintf(stderr, "onnode: node %u: %s\n", node, strerror(errno));
		return 125;
	}
	close(fd);
	/* Signals from here on are the program's. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	c = accept_relay(l, node, req.token);
	close(l);
	if (c < 0) {
		fprintf(stderr, "onnode: node %u: the relay did not connect\n", node);
		return 125;
	}
	if (send_job(c, argv + 2)) {
		fprintf(stderr, "onnode: node %u: %s\n", node, strerror(errno));
		return 125;
	}
	type = read_frame(c, buf, CHUNK, &len);
	if (type < 0 || len != sizeof(v)) {
		fprintf(stderr, "onnode: node %u: the relay said nothing\n", node);
		return 125;
	}
	memcpy(&v, buf, sizeof(v));
	if (type == F_ERROR_CWD) {
		fprintf(stderr, "onnode: node %u: cannot enter the working directory: %s\n",
			node, strerror(v));
		return 125;
	}
	if (type == F_ERROR) {
		fprintf(stderr, "onnode: %s: %s\n", argv[2], strerror(v));
		return v == ENOENT ? 127 : 126;
	}
	if (type != F_PID || v >> 16 != node) {
		fprintf(stderr, "onnode: node %u: a PID not of its range\n", node);
		return 125;
	}
	return caller_pump(c);
}
