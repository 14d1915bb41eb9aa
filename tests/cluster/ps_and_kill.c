// SPDX-License-Identifier: GPL-2.0
/*
 * Clusterwide processes and signals (kernel/ssi/proc.c, signal.c), from
 * node 1 of 3: /proc/cluster/ps lists a process started on another node
 * within 1 s, on every node; kill() reaches it with the sender's PID and
 * uid, as root and as uid 1000 (EPERM for root's process), and gives
 * ESRCH for a PID that no live node has; the cluster tool; fault
 * injection over the caller's side of both.
 *
 * "ps_and_kill --sleeper NAME FILE", run on another node by its agent,
 * is the process the tests look for: it names itself NAME, writes its
 * PID to FILE, waits for SIGUSR1 or SIGTERM and writes what it got to
 * FILE.sig.  "ps_and_kill --ps-watch NODE NAME FILE" times another
 * node's ps for the tests (ps_watch()).
 */
#include <arpa/inet.h>
#include <linux/tipc.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cluster_test.h"
#include "fault.h"
#include "unpriv.h"
#include "kselftest_harness.h"

#define NODES		3
#define SELF_PATH	"/tests/cluster/ps_and_kill"
#define SHARED		"/cluster/ps_and_kill"

static int write_atomic(const char *path, const char *text)
{
	char tmp[256];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	close(fd);
	return rename(tmp, path);
}

static volatile pid_t thread_tid;

/* A second thread, its signals blocked as its creator's: it names itself. */
static void *named_thread(void *arg)
{
	thread_tid = gettid();
	for (;;)
		pause();
	return NULL;
}

/*
 * Names itself @name, writes its PID (with @threaded, the TID of a second
 * thread) to @file and waits for SIGUSR1 or SIGTERM, which it describes
 * in @file.sig.
 */
static int sleeper(const char *name, const char *file, int threaded)
{
	char text[128], sig[256];
	pthread_t thread;
	siginfo_t si;
	sigset_t set;
	pid_t id = getpid();

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (threaded) {
		if (pthread_create(&thread, NULL, named_thread, NULL))
			return 1;
		while (!thread_tid)
			usleep(1000);
		id = thread_tid;
	}
	prctl(PR_SET_NAME, name);
	snprintf(text, sizeof(text), "%d\n", id);
	if (write_atomic(file, text))
		return 1;
	if (sigwaitinfo(&set, &si) < 0)
		return 1;
	snprintf(text, sizeof(text), "signo %d code %d pid %d uid %d\n",
		 si.si_signo, si.si_code, si.si_pid, si.si_uid);
	snprintf(sig, sizeof(sig), "%s.sig", file);
	return write_atomic(sig, text) ? 1 : 0;
}

struct probe {
	int node, id, pid;
	char file[128];
};

#define PROBE_USER	1	/* as uid 1000 */
#define PROBE_THREAD	2	/* p->pid is a second thread's TID */

/* Starts a sleeper on @node, as @flags say: 0 once it runs. */
static int probe_start(struct probe *p, int node, const char *name, int flags)
{
	char cmd[512], text[32];
	long long end;

	p->node = node;
	snprintf(p->file, sizeof(p->file), SHARED "/%s.sig", name);
	unlink(p->file);
	snprintf(p->file, sizeof(p->file), SHARED "/%s", name);
	unlink(p->file);
	snprintf(cmd, sizeof(cmd), "%s" SELF_PATH " --%ssleeper %s %s",
		 flags & PROBE_USER ? "asuser " : "",
		 flags & PROBE_THREAD ? "thread-" : "", name, p->file);
	p->id = cluster_start(node, cmd);
	if (p->id < 0)
		return -1;
	end = now_ms() + RUN_MS;
	while (read_text(p->file, text, sizeof(text)) <= 0) {
		if (now_ms() > end)
			return -1;
		sleep_ms(20);
	}
	p->pid = atoi(text);
	return p->pid > 0 ? 0 : -1;
}

/* What the sleeper got: 0 and its line in @buf once it has exited. */
static int probe_signal(struct probe *p, char *buf, size_t size)
{
	char sig[160];

	if (cluster_wait(p->node, p->id, RUN_MS, NULL, 0))
		return -1;
	/* Its agent's files are gone: nothing for probe_end() to wait for. */
	p->id = -1;
	snprintf(sig, sizeof(sig), "%s.sig", p->file);
	return read_text(sig, buf, size) > 0 ? 0 : -1;
}

static void probe_end(struct probe *p)
{
	if (p->id < 0)
		return;
	kill(p->pid, SIGTERM);
	cluster_wait(p->node, p->id, RUN_MS, NULL, 0);
}

/* Whether @text has the ps line "NODE PID UID S NAME". */
static int ps_has(const char *text, int node, int pid, int uid,
		  const char *name)
{
	char line[128];

	snprintf(line, sizeof(line), "\n%d %d %d S %s\n", node, pid, uid,
		 name);
	return strstr(text, line) != NULL;
}

static char ps_text[1 << 20];

FIXTURE(probes) {
	struct probe root2, user3;
};

FIXTURE_SETUP(probes)
{
	mkdir(SHARED, 0777);
	ASSERT_EQ(0, chmod(SHARED, 01777));
	ASSERT_EQ(0, probe_start(&self->root2, 2, "ssi-root-2", 0));
	ASSERT_EQ(0, probe_start(&self->user3, 3, "ssi-user-3", PROBE_USER));
}

FIXTURE_TEARDOWN(probes)
{
	probe_end(&self->root2);
	probe_end(&self->user3);
	/*
	 * No kill() or ps, the fault loops' too, left a call behind on node
	 * 1, which made them all: the other nodes only answer here.
	 */
	EXPECT_EQ(0, calls_left(1, 3000));
}

TEST_F(probes, pids_are_from_their_nodes_ranges)
{
	EXPECT_EQ(2, self->root2.pid >> PID_SHIFT);
	EXPECT_EQ(3, self->user3.pid >> PID_SHIFT);
	EXPECT_EQ(1, getpid() >> PID_SHIFT);
}

/*
 * "--ps-watch NODE NAME FILE": from the moment it sees FILE name a PID
 * (it looks every 2 ms, over 9p; the process exists by then), the ms
 * until this node's ps lists NODE's process NAME with it (-1 if it did
 * not within 5 s), written to FILE.N on this node N (FILE.N.up says it
 * has started).
 */
static int ps_watch(int node, const char *name, const char *file)
{
	long long t0, end, seen = -1;
	char text[32], out[160];
	int pid;

	/* The test starts the process once every watcher is there. */
	snprintf(out, sizeof(out), "%s.%d.up", file, cluster_self());
	if (write_atomic(out, "\n"))
		return 1;
	end = now_ms() + 2 * RUN_MS;
	while (read_text(file, text, sizeof(text)) <= 0) {
		if (now_ms() > end)
			return 1;
		sleep_ms(2);
	}
	pid = atoi(text);
	t0 = now_ms();
	do {
		if (read_text(PS_FILE, ps_text, sizeof(ps_text)) > 0 &&
		    ps_has(ps_text, node, pid, 0, name)) {
			seen = now_ms() - t0;
			break;
		}
		sleep_ms(10);
	} while (now_ms() - t0 < 5000);
	snprintf(out, sizeof(out), "%s.%d", file, cluster_self());
	snprintf(text, sizeof(text), "%lld\n", seen);
	return write_atomic(out, text) ? 1 : 0;
}

/*
 * For each node in turn, a process started there and every other node
 * watching for it: each lists it within 1 s of its PID's being written,
 * as each node's own clock measures.
 */
FIXTURE(watchers) {
};

FIXTURE_SETUP(watchers)
{
}

FIXTURE_TEARDOWN(watchers)
{
	EXPECT_EQ(0, calls_left(1, 3000));
}

TEST_F_TIMEOUT(watchers, ps_on_every_node_shows_a_new_process_of_another_within_1s,
	       300)
{
	int origin, node, id[NODES + 1];
	char name[32], file[128], path[160], cmd[384], text[32];
	struct probe p;
	pid_t watcher;

	mkdir(SHARED, 0777);
	for (origin = 1; origin <= NODES; origin++) {
		snprintf(name, sizeof(name), "ssi-new-%d", origin);
		snprintf(file, sizeof(file), SHARED "/%s", name);
		unlink(file);
		watcher = -1;
		for (node = 1; node <= NODES; node++) {
			snprintf(path, sizeof(path), "%s.%d", file, node);
			unlink(path);
			snprintf(path, sizeof(path), "%s.%d.up", file, node);
			unlink(path);
			if (node == origin)
				continue;
			snprintf(cmd, sizeof(cmd), SELF_PATH " --ps-watch %d %s %s",
				 origin, name, file);
			if (node > 1) {
				id[node] = cluster_start(node, cmd);
				ASSERT_LE(0, id[node]);
				continue;
			}
			watcher = fork();
			ASSERT_LE(0, watcher);
			if (!watcher)
				_exit(ps_watch(origin, name, file));
		}
		for (node = 1; node <= NODES; node++) {
			long long end = now_ms() + RUN_MS;

			snprintf(path, sizeof(path), "%s.%d.up", file, node);
			while (node != origin &&
			       read_text(path, text, sizeof(text)) <= 0) {
				ASSERT_GT(end, now_ms())
					TH_LOG("node %d's watcher did not start", node);
				sleep_ms(10);
			}
		}
		if (origin > 1) {
			ASSERT_EQ(0, probe_start(&p, origin, name, 0));
		} else {
			/* This node's own: a sleeper forked here. */
			p.id = -1;
			p.pid = fork();
			ASSERT_LE(0, p.pid);
			if (!p.pid) {
				execl(SELF_PATH, SELF_PATH, "--sleeper", name, file,
				      (char *)NULL);
				_exit(1);
			}
		}
		for (node = 1; node <= NODES; node++) {
			long long ms;

			if (node == origin)
				continue;
			if (node > 1) {
				EXPECT_EQ(0, cluster_wait(node, id[node], RUN_MS,
							  NULL, 0));
			} else {
				EXPECT_EQ(watcher, waitpid(watcher, NULL, 0));
			}
			snprintf(path, sizeof(path), "%s.%d", file, node);
			ms = read_text(path, text, sizeof(text)) > 0 ?
			     atoll(text) : -2;
			TH_LOG("node %d listed node %d's new process %lld ms after its PID was written",
			       node, origin, ms);
			EXPECT_LE(0, ms);
			EXPECT_GT(1000, ms);
		}
		if (origin > 1) {
			probe_end(&p);
		} else {
			kill(p.pid, SIGTERM);
			EXPECT_EQ(p.pid, waitpid(p.pid, NULL, 0));
		}
		/* Gone from the list once it has gone. */
		ASSERT_LT(0, read_text(PS_FILE, ps_text, sizeof(ps_text)));
		EXPECT_FALSE(ps_has(ps_text, origin, p.pid, 0, name));
	}
}

TEST_F(probes, ps_lists_every_node_with_owner_and_state)
{
	char *line;
	int lines = 0, per_node[4] = { 0 };

	ASSERT_LT(0, read_text(PS_FILE, ps_text, sizeof(ps_text)));
	EXPECT_TRUE(ps_has(ps_text, 2, self->root2.pid, 0, "ssi-root-2"));
	EXPECT_TRUE(ps_has(ps_text, 3, self->user3.pid, 1000, "ssi-user-3"));
	/* Every line well formed; init on each node; ours on node 1. */
	for (line = ps_text; *line; line = strchr(line, '\n') + 1) {
		int node, pid, uid, n = 0;
		char state;

		ASSERT_EQ(4, sscanf(line, "%d %d %d %c %n", &node, &pid, &uid,
				    &state, &n)) TH_LOG("line: %.60s", line);
		ASSERT_LE(1, node);
		ASSERT_GE(3, node);
		if (pid > 2)
			EXPECT_EQ(node, pid >> PID_SHIFT);
		per_node[node]++;
		lines++;
		ASSERT_NE(NULL, strchr(line, '\n'));
	}
	EXPECT_LT(10, per_node[1]);
	EXPECT_LT(10, per_node[2]);
	EXPECT_LT(10, per_node[3]);
	EXPECT_TRUE(strstr(ps_text, "1 1 0 S init\n") == ps_text);
	EXPECT_NE(NULL, strstr(ps_text, "\n2 1 0 S init\n"));
	EXPECT_NE(NULL, strstr(ps_text, "\n3 2 0 S kthreadd\n"));
	TH_LOG("%d processes: %d, %d and %d", lines, per_node[1],
	       per_node[2], per_node[3]);
}

/* What a reader may see of the two sleepers: root's on node 2, uid 1000's on node 3. */
struct ps_view {
	const char *path;
	pid_t root_pid, user_pid;
	int sees_root;
};

/* Reads @v->path's ps: 0 if it shows what @v says, else where it differs. */
static int read_ps_view(void *arg)
{
	const struct ps_view *v = arg;

	if (read_text(v->path, ps_text, sizeof(ps_text)) <= 0)
		return 1;
	if (!ps_has(ps_text, 3, v->user_pid, 1000, "ssi-user-3"))
		return 2;
	if (ps_has(ps_text, 2, v->root_pid, 0, "ssi-root-2") != v->sees_root)
		return 3;
	/* init, root's, on every node */
	if ((strstr(ps_text, "1 1 0 S init\n") == ps_text) != v->sees_root)
		return 4;
	return 0;
}

#define HIDDEN_PROC	"/tmp/ssi-proc-hidepid"
#define GROUP_PROC	"/tmp/ssi-proc-hidepid-gid"

/*
 * A procfs mounted hidepid=invisible shows uid 1000 its own processes
 * of every node only, and all of them to root and to the gid= group
 * (which hidepid=ptraceable ignores); /proc, mounted without hidepid,
 * shows all to everyone.
 */
TEST_F(probes, ps_follows_hidepid_of_the_procfs_it_is_read_through)
{
	struct ps_view v = { PS_FILE, self->root2.pid, self->user3.pid, 1 };

	mkdir(HIDDEN_PROC, 0755);
	mkdir(GROUP_PROC, 0755);
	ASSERT_EQ(0, mount("proc", HIDDEN_PROC, "proc", 0, "hidepid=invisible"));
	ASSERT_EQ(0, mount("proc", GROUP_PROC, "proc", 0,
			   "hidepid=invisible,gid=1000"));
	EXPECT_EQ(0, run_unprivileged(read_ps_view, &v));
	EXPECT_EQ(0, read_ps_view(&v));
	v.path = HIDDEN_PROC "/cluster/ps";
	EXPECT_EQ(0, read_ps_view(&v)) TH_LOG("root through hidepid");
	v.sees_root = 0;
	EXPECT_EQ(0, run_unprivileged(read_ps_view, &v))
		TH_LOG("uid 1000 through hidepid: see the exit code");
	v.path = GROUP_PROC "/cluster/ps";
	v.sees_root = 1;
	EXPECT_EQ(0, run_unprivileged(read_ps_view, &v))
		TH_LOG("uid 1000 in the gid= group");
	EXPECT_EQ(0, umount(GROUP_PROC));
	/* Root, in no gid= group here: CAP_SYS_PTRACE lets it see all. */
	ASSERT_EQ(0, mount("proc", GROUP_PROC, "proc", 0,
			   "hidepid=invisible,gid=4242"));
	EXPECT_EQ(0, read_ps_view(&v)) TH_LOG("root outside gid=");
	EXPECT_EQ(0, umount(GROUP_PROC));
	/* hidepid=ptraceable ignores gid=, as /proc/<pid> does. */
	ASSERT_EQ(0, mount("proc", GROUP_PROC, "proc", 0,
			   "hidepid=ptraceable,gid=1000"));
	v.sees_root = 0;
	EXPECT_EQ(0, run_unprivileged(read_ps_view, &v))
		TH_LOG("uid 1000 through hidepid=ptraceable,gid=1000");
	EXPECT_EQ(0, umount(GROUP_PROC));
	EXPECT_EQ(0, umount(HIDDEN_PROC));
}

/* One open: read a byte at a time, then again from 0, the same text. */
TEST(ps_reads_the_same_in_small_pieces_and_after_a_seek)
{
	static char again[1 << 20];
	size_t len = 0;
	ssize_t n;
	int fd = open(PS_FILE, O_RDONLY);

	ASSERT_LE(0, fd);
	while (len < sizeof(ps_text) - 1 && read(fd, ps_text + len, 1) == 1)
		len++;
	ps_text[len] = '\0';
	ASSERT_LT(100, len);
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	n = read(fd, again, sizeof(again) - 1);
	ASSERT_EQ((ssize_t)len, n);
	again[n] = '\0';
	EXPECT_STREQ(ps_text, again);
	EXPECT_EQ(0, read(fd, again, 1));
	EXPECT_EQ(10, pread(fd, again, 10, 0));
	close(fd);
}

TEST_F(probes, kill_reaches_a_process_of_another_node_as_from_its_sender)
{
	char got[128], want[128];

	EXPECT_EQ(0, kill(self->root2.pid, 0));
	ASSERT_EQ(0, kill(self->root2.pid, SIGUSR1));
	ASSERT_EQ(0, probe_signal(&self->root2, got, sizeof(got)));
	snprintf(want, sizeof(want), "signo %d code %d pid %d uid 0\n",
		 SIGUSR1, SI_USER, getpid());
	EXPECT_STREQ(want, got);
	/* It has exited: no live node has its PID now. */
	EXPECT_EQ(-1, kill(self->root2.pid, 0));
	EXPECT_EQ(ESRCH, errno);
}

/*
 * kill() of another node's TID that is not its process's PID reaches the
 * process, as locally; ps lists the process, not the thread.
 */
TEST_F(probes, kill_of_a_thread_of_another_node_reaches_its_process)
{
	struct probe t;
	char got[128], want[128], tid[32];

	ASSERT_EQ(0, probe_start(&t, 2, "ssi-thread-2", PROBE_THREAD));
	EXPECT_EQ(2, t.pid >> PID_SHIFT);
	ASSERT_LT(0, read_text(PS_FILE, ps_text, sizeof(ps_text)));
	/* The process is listed, under its own PID; its thread is not. */
	snprintf(tid, sizeof(tid), "\n2 %d ", t.pid);
	EXPECT_EQ(NULL, strstr(ps_text, tid));
	EXPECT_NE(NULL, strstr(ps_text, " 0 S ssi-thread-2\n"));
	EXPECT_EQ(0, kill(t.pid, 0));
	ASSERT_EQ(0, kill(t.pid, SIGUSR1));
	ASSERT_EQ(0, probe_signal(&t, got, sizeof(got)));
	snprintf(want, sizeof(want), "signo %d code %d pid %d uid 0\n",
		 SIGUSR1, SI_USER, getpid());
	EXPECT_STREQ(want, got);
	EXPECT_EQ(-1, kill(t.pid, 0));
	EXPECT_EQ(ESRCH, errno);
	probe_end(&t);
}

struct user_kill {
	pid_t root_pid, user_pid;
};

static int kill_as_user(void *arg)
{
	struct user_kill *k = arg;

	if (kill(k->root_pid, SIGUSR1) != -1 || errno != EPERM)
		return 1;
	if (kill(k->root_pid, 0) != -1 || errno != EPERM)
		return 2;
	if (kill(k->user_pid, 0))
		return 3;
	if (kill(k->user_pid, SIGUSR1))
		return 4;
	return 0;
}

/*
 * @fn, run as uid 1000, signals its own process on node 3 and not root's
 * on node 2; node 3's process saw it come from the child, as uid 1000.
 */
static void user_kills(struct __test_metadata *_metadata,
		       FIXTURE_DATA(probes) *self, int (*fn)(void *arg))
{
	struct user_kill k = { self->root2.pid, self->user3.pid };
	char got[128], want[128];
	int sender;

	/* The child's PID is the sender: fork() gives the next of node 1. */
	ASSERT_EQ(0, run_unprivileged(fn, &k))
		TH_LOG("EPERM for root's process, 0 for its own: see the exit code");
	ASSERT_EQ(0, probe_signal(&self->user3, got, sizeof(got)));
	ASSERT_EQ(1, sscanf(got, "signo %*d code %*d pid %d", &sender));
	EXPECT_EQ(1, sender >> PID_SHIFT);
	snprintf(want, sizeof(want), "signo %d code %d pid %d uid 1000\n",
		 SIGUSR1, SI_USER, sender);
	EXPECT_STREQ(want, got);
	/* Root's process did not get it. */
	EXPECT_EQ(0, kill(self->root2.pid, 0));
}

TEST_F(probes, uid_1000_signals_its_own_process_and_not_roots)
{
	user_kills(_metadata, self, kill_as_user);
}

/* kill_as_user() as root of a user namespace of its own. */
static int kill_from_a_user_ns(void *arg)
{
	if (become_root_of_a_user_ns())
		return 10;
	return getuid() ? 11 : kill_as_user(arg);
}

/*
 * Root of its own user namespace, uid 1000 is still uid 1000 to another
 * node: its credentials travel as the initial namespace sees them, and
 * its capabilities there count for nothing.
 */
TEST_F(probes, root_of_a_user_namespace_is_its_creators_uid_to_another_node)
{
	user_kills(_metadata, self, kill_from_a_user_ns);
}

TEST_F(probes, root_signals_another_users_process)
{
	char got[128], want[128];

	ASSERT_EQ(0, kill(self->user3.pid, SIGUSR1));
	ASSERT_EQ(0, probe_signal(&self->user3, got, sizeof(got)));
	snprintf(want, sizeof(want), "signo %d code %d pid %d uid 0\n",
		 SIGUSR1, SI_USER, getpid());
	EXPECT_STREQ(want, got);
}

/* ICS's wire format (kernel/ssi/ics.c, signal.c), to forge a request. */
struct forged_kill {
	uint32_t magic;
	uint16_t service;
	uint8_t kind, pad;
	uint32_t id, status, len;
	uint32_t pid, sig, sender, uid, euid;
	uint8_t cap_kill, pad2[3];
} __attribute__((packed));

static int forge_kill(void *arg)
{
	pid_t pid = *(pid_t *)arg;
	struct forged_kill m = {
		.magic = htonl(0x49435331), .service = htons(3), .kind = 2,
		.id = htonl(1), .len = htonl(24), .pid = htonl(pid),
		.sig = htonl(SIGUSR1), .sender = htonl(1), .cap_kill = 1,
	};
	struct sockaddr_tipc to = {
		.family = AF_TIPC, .addrtype = TIPC_SERVICE_ADDR,
		.addr.name.name = { .type = 16, .instance = 2 },
	};
	struct sockaddr_tipc me = {
		.family = AF_TIPC, .addrtype = TIPC_SERVICE_RANGE,
		.scope = TIPC_CLUSTER_SCOPE,
		.addr.nameseq = { .type = 16, .lower = 5, .upper = 5 },
	};
	int fd = socket(AF_TIPC, SOCK_RDM, 0);

	if (fd < 0)
		return 1;
	/* No user program may pose as a node: type 16 is reserved. */
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) != -1 ||
	    errno != EACCES)
		return 2;
	/* A well-formed request from a user's socket is not heard. */
	if (sendto(fd, &m, sizeof(m), 0, (struct sockaddr *)&to,
		   sizeof(to)) != sizeof(m))
		return 3;
	close(fd);
	return 0;
}

TEST_F(probes, a_user_program_cannot_pose_as_a_node_or_forge_a_call)
{
	char sig[160];

	ASSERT_EQ(0, run_unprivileged(forge_kill, &self->root2.pid));
	/* As root, too: the sender's socket is no node's ICS socket. */
	ASSERT_EQ(0, forge_kill(&self->root2.pid));
	sleep_ms(1000);
	snprintf(sig, sizeof(sig), "%s.sig", self->root2.file);
	EXPECT_EQ(-ENOENT, read_text(sig, sig, sizeof(sig)));
	EXPECT_EQ(0, kill(self->root2.pid, 0));
}

TEST_F(probes, bad_pids_and_signals)
{
	/* In node 2's range, but no process has it. */
	EXPECT_EQ(-1, kill((2 << PID_SHIFT) + 65535, 0));
	EXPECT_EQ(ESRCH, errno);
	/* Node 5 is not up; node 64 cannot exist. */
	EXPECT_EQ(-1, kill((5 << PID_SHIFT) + 100, SIGTERM));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, kill(64 << PID_SHIFT, 0));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, kill(0x7fffffff, 0));
	EXPECT_EQ(ESRCH, errno);
	/* Bad signals are refused by the node that has the process. */
	EXPECT_EQ(-1, kill(self->root2.pid, 65));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, kill(self->root2.pid, -1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, kill(self->root2.pid, 0));
}

#define CHILD_PROC	"/tmp/ssi-proc-child"

/*
 * A process in a new PID namespace reaches no other node, and its own
 * procfs lists no process of the cluster.
 */
TEST_F(probes, a_child_pid_namespace_sees_this_node_only)
{
	pid_t child;
	int status;

	mkdir(CHILD_PROC, 0755);
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		char text[64];

		if (getpid() != 1)
			_exit(1);
		if (kill(self->root2.pid, 0) != -1 || errno != ESRCH)
			_exit(2);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("proc", CHILD_PROC, "proc", 0, NULL))
			_exit(3);
		_exit(read_text(CHILD_PROC "/cluster/ps", text,
				sizeof(text)) == 0 ? 0 : 4);
	}
	EXPECT_EQ(1, child >> PID_SHIFT);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, kill(self->root2.pid, 0));
}

static int tool(const char *cmd, char *out, size_t size)
{
	FILE *f = popen(cmd, "r");
	size_t n;
	int status;

	if (!f)
		return -1;
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(probes, the_cluster_tool)
{
	char out[1 << 16], want[128];
	char got[128];

	ASSERT_EQ(0, tool("cluster nodes", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "3 of 3 nodes up; epoch ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "<- this node")) TH_LOG("%s", out);
	ASSERT_EQ(0, tool("cluster ps -n 3", out, sizeof(out)));
	snprintf(want, sizeof(want), "%7d  user      S  ssi-user-3\n",
		 self->user3.pid);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "ssi-root-2"));
	snprintf(want, sizeof(want), "cluster kill -USR1 %d 2>&1",
		 self->root2.pid);
	EXPECT_EQ(0, tool(want, out, sizeof(out))) TH_LOG("%s", out);
	ASSERT_EQ(0, probe_signal(&self->root2, got, sizeof(got)));
	EXPECT_EQ(0, strncmp(got, "signo 10 code 0 ", 16)) TH_LOG("%s", got);
	snprintf(want, sizeof(want), "cluster kill %d 2>&1",
		 (5 << PID_SHIFT) + 1);
	EXPECT_EQ(1, tool(want, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "No such process")) TH_LOG("%s", out);
	EXPECT_EQ(2, tool("cluster kill -NOSUCH 1 2>&1", out, sizeof(out)));
	/* No PID that kill() would take as another: -1 (all), 1, -2^31. */
	EXPECT_EQ(1, tool("cluster kill -0 4294967295 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not a PID")) TH_LOG("%s", out);
	EXPECT_EQ(1, tool("cluster kill -0 4294967297 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not a PID")) TH_LOG("%s", out);
	EXPECT_EQ(1, tool("cluster kill -0 2147483648 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not a PID")) TH_LOG("%s", out);
}

static int kill_probe(void *arg)
{
	return kill(*(pid_t *)arg, 0) ? -errno : 0;
}

static int open_ps(void *arg)
{
	int fd = open(PS_FILE, O_RDONLY);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * fault_loop() checks the errno (an allocation's); here, that no call of
 * the failed kill() or open() stayed in node 1's table (a kill() with
 * signal 0 and an open change nothing else).
 */
static int no_call_left(void *arg, int err)
{
	return calls_left(1, 3000) ? -1 : 0;
}

TEST_F_TIMEOUT(probes, fault_injection_over_remote_kill_and_ps, 600)
{
	struct fault_run run;
	int ret;

	if (!fault_injection_available())
		SKIP(return, "no fault injection in this kernel (std): the debug kernel runs it");
	ASSERT_EQ(0, fault_injection_setup());
	ret = fault_loop(kill_probe, no_call_left, &self->root2.pid, 200, &run);
	ASSERT_EQ(0, fault_loop_report("kill() of node 2's process", ret, &run));
	ret = fault_loop(open_ps, no_call_left, NULL, 400, &run);
	ASSERT_EQ(0, fault_loop_report("open /proc/cluster/ps", ret, &run));
	EXPECT_EQ(0, kill(self->root2.pid, 0));
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--sleeper"))
		return sleeper(argv[2], argv[3], 0);
	if (argc == 4 && !strcmp(argv[1], "--thread-sleeper"))
		return sleeper(argv[2], argv[3], 1);
	if (argc == 5 && !strcmp(argv[1], "--ps-watch"))
		return ps_watch(atoi(argv[2]), argv[3], argv[4]);
	return test_harness_run(argc, argv);
}
