// SPDX-License-Identifier: GPL-2.0
/*
 * Remote execution: onnode (tools/onnode) through SSI_IOC_REXEC on
 * /proc/cluster/rexec (kernel/ssi/rexec.c) and the relay it starts on the
 * node: output, error and exit status back, input there (faster than the
 * program reads it, too), the working directory and environment, a PID
 * of the node's range that cluster ps lists, a signal passed on, the
 * caller's user and groups; callers confined on their node refused; bad
 * requests made with the ioctl directly.
 */
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/ssi.h>
#include <linux/tipc.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "fault.h"
#include "kselftest_harness.h"
#include "unpriv.h"
#include "../cluster/cluster_test.h"

#define REXEC_FILE	"/proc/cluster/rexec"

/* The tests' own directory is node 1's alone: the program's must exist. */
static void __attribute__((constructor)) to_root(void)
{
	if (chdir("/"))
		perror("chdir /");
}

/* Runs @cmd with sh -c, its output in @out: its exit status, or -1. */
static int sh_out(const char *cmd, char *out, size_t len)
{
	FILE *f = popen(cmd, "r");
	size_t n = 0;
	int status;

	if (!f)
		return -1;
	while (n + 1 < len && fgets(out + n, len - n, f))
		n += strlen(out + n);
	out[n] = '\0';
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(output_error_and_exit_status_come_back)
{
	char out[256];

	EXPECT_EQ(7, sh_out("onnode 2 sh -c 'echo out; echo err >&2; exit 7' 2>&1",
			    out, sizeof(out)));
	EXPECT_STREQ("out\nerr\n", out);
	EXPECT_EQ(0, sh_out("onnode 3 true", out, sizeof(out)));
	EXPECT_EQ(1, sh_out("onnode 3 false", out, sizeof(out)));
	/* A signal's death as a shell reports it. */
	EXPECT_EQ(128 + SIGKILL, sh_out("onnode 2 sh -c 'kill -9 $$'", out,
					sizeof(out)));
	/* This node too. */
	EXPECT_EQ(0, sh_out("onnode 1 echo here", out, sizeof(out)));
	EXPECT_STREQ("here\n", out);
}

/*
 * A fixture only for its timeout: the relays below took more than the
 * harness's 30 s on the debug kernel in CI (2026-12-07).
 */
FIXTURE(relay) {
	int unused;
};

FIXTURE_SETUP(relay)
{
}

FIXTURE_TEARDOWN(relay)
{
}

TEST_F_TIMEOUT(relay, input_reaches_the_program, 120)
{
	char out[256];

	EXPECT_EQ(0, sh_out("printf 'one\\ntwo\\n' | onnode 2 sort -r", out,
			    sizeof(out)));
	EXPECT_STREQ("two\none\n", out);
	/* 1 MiB through, both ways. */
	EXPECT_EQ(0, sh_out("head -c 1048576 /dev/urandom > /tmp/onnode.in &&"
			    " onnode 3 cat < /tmp/onnode.in | cmp - /tmp/onnode.in"
			    " && echo same", out, sizeof(out)));
	EXPECT_STREQ("same\n", out);
	/* A program that writes 4 MiB before it reads: no end waits. */
	EXPECT_EQ(0, sh_out("head -c 8388608 /dev/zero | onnode 2 sh -c"
			    " 'head -c 4194304 /dev/zero; cat >/dev/null' | wc -c",
			    out, sizeof(out)));
	EXPECT_EQ(4194304, atoi(out));
}

TEST(the_program_runs_in_the_callers_directory_and_environment)
{
	char out[256];

	EXPECT_EQ(0, sh_out("cd /cluster && ONNODE_TEST=42 onnode 2 sh -c"
			    " 'pwd; echo $ONNODE_TEST'", out, sizeof(out)));
	EXPECT_STREQ("/cluster\n42\n", out);
	/* A directory node 2 does not have. */
	EXPECT_EQ(125, sh_out("mkdir -p /tmp/only-here && cd /tmp/only-here &&"
			      " onnode 2 true 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "working directory"));
}

TEST(its_pid_is_the_nodes_and_ps_lists_it)
{
	char out[256], cmd[128], *nl;
	pid_t pid;

	EXPECT_EQ(0, sh_out("onnode 2 sh -c 'echo $$; sleep 30 >/dev/null 2>&1"
			    " </dev/null & echo $!'", out, sizeof(out)));
	nl = strchr(out, '\n');
	ASSERT_NE(NULL, nl);
	pid = atoi(nl + 1);
	EXPECT_EQ(2, atoi(out) >> PID_SHIFT);
	ASSERT_EQ(2, pid >> PID_SHIFT);
	snprintf(cmd, sizeof(cmd), "grep -c '^2 %d ' " PS_FILE, pid);
	EXPECT_EQ(0, sh_out(cmd, out, sizeof(out)));
	EXPECT_STREQ("1\n", out);
	/* kill() from here ends it there. */
	EXPECT_EQ(0, kill(pid, SIGKILL));
	snprintf(cmd, sizeof(cmd), "for i in $(seq 50); do grep -q '^2 %d ' "
		 PS_FILE " || exit 0; sleep 0.1; done; exit 1", pid);
	EXPECT_EQ(0, sh_out(cmd, out, sizeof(out)));
}

/*
 * SIGTERM to onnode, started by @cmd (which puts its output in
 * /tmp/onnode.sig), once the program has said "ready": onnode's status.
 */
static int term_when_ready(const char *cmd)
{
	char sh[1024], out[256];

	snprintf(sh, sizeof(sh), "rm -f /tmp/onnode.sig; %s & p=$!;"
		 " until grep -q ready /tmp/onnode.sig; do sleep 0.1; done;"
		 " kill -TERM $p; wait $p", cmd);
	return sh_out(sh, out, sizeof(out));
}

TEST(a_signal_to_onnode_reaches_the_program)
{
	char out[256];

	/* The program says it got SIGTERM, and ends as it chooses. */
	EXPECT_EQ(42, term_when_ready("onnode 3 sh -c 'trap \"echo got; exit 42\""
				      " TERM; echo ready; sleep 100 & wait'"
				      " > /tmp/onnode.sig"));
	EXPECT_EQ(0, sh_out("cat /tmp/onnode.sig", out, sizeof(out)));
	EXPECT_STREQ("ready\ngot\n", out);
	/* Behind more input than the program reads: it is not held up. */
	EXPECT_EQ(42, term_when_ready("yes | onnode 2 sh -c 'trap \"echo got;"
				      " exit 42\" TERM; echo ready; sleep 100 &"
				      " wait' > /tmp/onnode.sig"));
	EXPECT_EQ(0, sh_out("cat /tmp/onnode.sig", out, sizeof(out)));
	EXPECT_STREQ("ready\ngot\n", out);
	/* To a program that has closed its output and error. */
	EXPECT_EQ(42, term_when_ready("onnode 2 sh -c 'trap \"exit 42\" TERM;"
				      " echo ready; exec >&- 2>&-; sleep 100 &"
				      " wait' > /tmp/onnode.sig"));
}

static int onnode_as_1000(void *arg)
{
	char out[256];

	(void)arg;
	if (sh_out("onnode 2 sh -c 'id -u; id -ru; id -g; id -rg; id -G'", out,
		   sizeof(out)))
		return 1;
	/* id -G: the group, then the others as the kernel sorts them. */
	if (strcmp(out, "1000\n1000\n1000\n1000\n1000 27 100\n")) {
		fprintf(stderr, "# got: %s", out);
		return 2;
	}
	return 0;
}

/* uid 1000 with groups 1000, 100 and 27, in a child. */
static int as_1000_with_groups(int (*fn)(void *), void *arg)
{
	gid_t groups[] = { 1000, 100, 27 };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgroups(3, groups) || setresgid(1000, 1000, 1000) ||
		    setresuid(1000, 1000, 1000))
			_exit(100);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(it_runs_as_the_caller)
{
	char out[256];

	EXPECT_EQ(0, sh_out("onnode 2 id -u", out, sizeof(out)));
	EXPECT_STREQ("0\n", out);
	EXPECT_EQ(0, as_1000_with_groups(onnode_as_1000, NULL));
}

/*
 * In a child: the open-file limits @cur and @max, RLIMIT_NPROC @nproc as
 * uid 1000 unless it is 0, umask 027, then onnode 2 with @argv (exec'd:
 * with a process limit of 1, the caller can start nothing itself), its
 * output and error in @out.  Its exit status, or -1.
 */
static int onnode_limited(rlim_t cur, rlim_t max, rlim_t nproc,
			  const char *const *argv, char *out, size_t len)
{
	struct rlimit files = { cur, max }, procs = { nproc, nproc };
	int p[2], status;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		umask(027);
		if (setrlimit(RLIMIT_NOFILE, &files) ||
		    (nproc && (setrlimit(RLIMIT_NPROC, &procs) ||
			       setresgid(1000, 1000, 1000) ||
			       setresuid(1000, 1000, 1000))) ||
		    dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(100);
		close(p[0]);
		execvp("onnode", (char *const *)argv);
		_exit(101);
	}
	close(p[1]);
	while (got + 1 < len && (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The program has the caller's resource limits, not the relay's (root's
 * from boot), and its umask; a process limit the caller is at stops it.
 */
TEST(the_callers_limits_and_umask_go_with_it)
{
	static const char *const limits[] = {
		"onnode", "2", "grep", "-e", "^Max open files",
		"-e", "^Max processes", "/proc/self/limits", NULL,
	};
	static const char *const mask[] = {
		"onnode", "2", "grep", "^Umask:", "/proc/self/status", NULL,
	};
	static const char *const run[] = { "onnode", "2", "true", NULL };
	char out[512], want[512];

	ASSERT_EQ(0, onnode_limited(77, 99, 64, limits, out, sizeof(out)))
		TH_LOG("%s", out);
	snprintf(want, sizeof(want), "%-26s%-21s%-21s%-10s\n%-26s%-21s%-21s%-10s\n",
		 "Max processes", "64", "64", "processes",
		 "Max open files", "77", "99", "files");
	EXPECT_STREQ(want, out);
	EXPECT_EQ(0, onnode_limited(77, 99, 0, mask, out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_STREQ("Umask:\t0027\n", out);
	/* The relay would be uid 1000's second process: node 2 refuses it. */
	EXPECT_EQ(125, onnode_limited(77, 99, 1, run, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "Resource temporarily unavailable"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, onnode_limited(77, 99, 64, run, out, sizeof(out)))
		TH_LOG("%s", out);
}

TEST(a_missing_program_fails_as_exec_does)
{
	char out[256];

	EXPECT_EQ(127, sh_out("onnode 2 /no/such/program 2>&1", out,
			      sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "No such file"));
	EXPECT_EQ(126, sh_out("onnode 2 /etc/passwd 2>&1", out, sizeof(out)));
	EXPECT_EQ(125, sh_out("onnode 9 true 2>/dev/null", out, sizeof(out)));
}

/* SSI_IOC_REXEC with @req: 0 or -errno. */
static int rexec(struct ssi_rexec *req)
{
	int fd = open(REXEC_FILE, O_RDONLY), ret = 0;

	if (fd < 0 || ioctl(fd, SSI_IOC_REXEC, req))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	return ret;
}

TEST(bad_requests_fail_with_their_errno)
{
	struct ssi_rexec req = { .node = 2 };
	char buf[16];
	int fd;

	req.flags = 1;
	EXPECT_EQ(-EINVAL, rexec(&req));
	req.flags = 0;
	req.node = 0;
	EXPECT_EQ(-EINVAL, rexec(&req));
	req.node = 64;
	EXPECT_EQ(-EINVAL, rexec(&req));
	req.node = 9;
	EXPECT_EQ(-EHOSTDOWN, rexec(&req));
	fd = open(REXEC_FILE, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, SSI_IOC_REXEC, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, SSI_IOC_REXEC, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, _IO(0xB9, 2)));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(EIO, errno);
	close(fd);
	/* A request whose relay finds nobody: it started, and gives up. */
	req.node = 2;
	EXPECT_EQ(0, rexec(&req));
}

/* Tests that take longer than the harness's default 30 s. */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

/*
 * As uid 1000 with RLIMIT_NPROC 3, in a child: six requests to node 2
 * that start relays to a socket that takes their connections and says
 * nothing, half a second apart.  Exit status: the requests that succeeded, times 10, plus
 * those refused with EAGAIN; 100 and more if it could not get there.
 */
static int six_silent_requests(void)
{
	struct rlimit three = { 3, 3 };
	struct sockaddr_tipc addr;
	socklen_t alen = sizeof(addr);
	int l, i, fd, status, ok = 0, again = 0;
	long long end;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid) {
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return -1;
		return WEXITSTATUS(status);
	}
	if (setrlimit(RLIMIT_NPROC, &three) || setresgid(1000, 1000, 1000) ||
	    setresuid(1000, 1000, 1000))
		_exit(100);
	l = socket(AF_TIPC, SOCK_STREAM, 0);
	if (l < 0 || listen(l, 8) ||
	    getsockname(l, (struct sockaddr *)&addr, &alen))
		_exit(101);
	for (i = 0; i < 6; i++) {
		struct ssi_rexec req = {
			.node = 2,
			.port_node = addr.addr.id.node,
			.port_ref = addr.addr.id.ref,
		};
		int ret;

		/*
		 * A relay becomes the user's once it has dropped to it: the
		 * requests that come faster each pass (documented).
		 */
		sleep_ms(500);
		ret = rexec(&req);
		if (!ret)
			ok++;
		else if (ret == -EAGAIN)
			again++;
		else
			_exit(102);
	}
	/* Take every connection, and hold them, silent, for 16 s. */
	fcntl(l, F_SETFL, O_NONBLOCK);
	end = now_ms() + 16000;
	while (now_ms() < end) {
		fd = accept(l, NULL, NULL);
		if (fd < 0)
			sleep_ms(100);
	}
	_exit(ok * 10 + again);
}

/*
 * A user at its process limit on a node cannot start relays there, and
 * a relay its caller never talks to ends after 10 s.
 */
TEST_F_TIMEOUT(slow, relays_count_as_the_users_processes_and_do_not_stay, 120)
{
	char out[256];
	pid_t pid;
	int ret;

	if (sizeof(long) != 8)
		SKIP(return, "no system call of its own: the 64-bit run does it");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(six_silent_requests());
	/* While the caller holds its connections, the relays end: 10 s. */
	sleep_ms(14000);
	EXPECT_EQ(0, sh_out("grep -c '^2 [0-9]* 1000 . ssi-relay$' " PS_FILE
			    "; true", out, sizeof(out)));
	EXPECT_STREQ("0\n", out);
	ASSERT_EQ(pid, waitpid(pid, &ret, 0));
	ASSERT_TRUE(WIFEXITED(ret));
	ret = WEXITSTATUS(ret);
	TH_LOG("%d relays started, %d refused with EAGAIN", ret / 10, ret % 10);
	EXPECT_GE(3, ret / 10);
	EXPECT_LE(1, ret / 10);
	EXPECT_EQ(6, ret / 10 + ret % 10);
}

/* A request to node 2 whose relay finds nobody to connect to. */
static int rexec_op(void *arg)
{
	struct ssi_rexec req = { .node = 2 };

	(void)arg;
	return rexec(&req);
}

/* A failed request leaves no ICS call behind on this node. */
static int no_call_left(void *arg, int err)
{
	(void)arg;
	(void)err;
	return calls_left(1, 3000) ? -1 : 0;
}

/*
 * Each allocation of the request on this node fails in turn: the ioctl
 * fails with an allocation's errno, or succeeds, and leaves nothing.
 * Then node 2 fails a third of the jobs its ICS would take in, 10 in
 * all: ICS keeps each such request and takes it again, so every onnode
 * runs its program, none hangs.
 */
TEST_F_TIMEOUT(slow, fault_injection_over_a_request, 600)
{
	struct fault_run run;
	int i, ret, left;
	char out[256];

	if (!fault_injection_available())
		SKIP(return, "no fault injection in this kernel (std): the debug kernel runs it");
	ASSERT_EQ(0, fault_injection_setup());
	ret = fault_loop(rexec_op, no_call_left, NULL, 200, &run);
	ASSERT_EQ(0, fault_loop_report("SSI_IOC_REXEC to node 2", ret, &run));

	ASSERT_EQ(0, fail_receive_at(2, 33, 0, 10));
	for (i = 0; i < 20; i++) {
		ret = sh_out("onnode 2 echo ran 2>&1", out, sizeof(out));
		EXPECT_EQ(0, ret) TH_LOG("try %d: %s", i, out);
		EXPECT_STREQ("ran\n", out);
	}
	left = fail_times_left(2);
	ASSERT_EQ(0, fail_receive(2, 0));
	TH_LOG("node 2 failed %d of its jobs", 10 - left);
	EXPECT_GT(10, left);
	EXPECT_LE(0, left);
	EXPECT_EQ(0, no_call_left(NULL, 0));
}

/*
 * In a child: @how confines it, then the ioctl, on the file opened
 * before: its errno, or 200 and more if the child could not get there.
 */
static int confined(int how)
{
	struct ssi_rexec req = { .node = 2 };
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
	struct __user_cap_data_struct one[_LINUX_CAPABILITY_U32S_3] = {};
	gid_t many[65];
	int status, i, fd = open(REXEC_FILE, O_RDONLY);
	pid_t pid;

	if (fd < 0)
		return 204;
	pid = fork();

	if (pid < 0)
		return 200;
	if (pid) {
		close(fd);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return 201;
		return WEXITSTATUS(status);
	}
	switch (how) {
	case 0:	/* another PID namespace: its child */
		if (unshare(CLONE_NEWPID))
			_exit(211);
		pid = fork();
		if (pid < 0)
			_exit(203);
		if (pid) {
			waitpid(pid, &status, 0);
			_exit(WEXITSTATUS(status));
		}
		break;
	case 1:	/* root of a user namespace */
		if (become_unprivileged() || become_root_of_a_user_ns())
			_exit(212);
		break;
	case 2:	/* another mount namespace */
		if (unshare(CLONE_NEWNS))
			_exit(213);
		break;
	case 3:	/* a chroot */
		if (chroot("/tmp"))
			_exit(214);
		break;
	case 4:
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(215);
		break;
	case 5:	/* a seccomp filter that allows everything, as root */
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			_exit(216);
		break;
	case 6:	/* uid 0 without CAP_SYS_ADMIN */
		if (syscall(SYS_capset, &hdr, none))
			_exit(217);
		break;
	case 7:	/* root with CAP_SYS_ADMIN alone */
		one[0].effective = one[0].permitted = 1U << CAP_SYS_ADMIN;
		if (syscall(SYS_capset, &hdr, one))
			_exit(218);
		break;
	case 8:	/* root without CAP_SYS_MODULE in its bounding set */
		if (prctl(PR_CAPBSET_DROP, CAP_SYS_MODULE, 0, 0, 0))
			_exit(219);
		break;
	case 9:	/* more groups than carried */
		for (i = 0; i < 65; i++)
			many[i] = 2000 + i;
		if (setgroups(65, many))
			_exit(220);
		break;
	}
	_exit(ioctl(fd, SSI_IOC_REXEC, &req) ? errno : 0);
}

TEST(a_caller_confined_on_its_node_is_refused)
{
	static const char *const what[] = {
		"child PID namespace", "user namespace", "mount namespace",
		"chroot", "no_new_privs", "seccomp", "uid 0 without CAP_SYS_ADMIN",
		"uid 0 with CAP_SYS_ADMIN alone",
		"uid 0 without CAP_SYS_MODULE in its bounding set",
	};
	unsigned int i;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		int err = confined(i);

		if (err != EPERM)
			TH_LOG("%s: %d", what[i] ?: "?", err);
		EXPECT_EQ(EPERM, err);
	}
	EXPECT_EQ(E2BIG, confined(9));
}

TEST_HARNESS_MAIN
