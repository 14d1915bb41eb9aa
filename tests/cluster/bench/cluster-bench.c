// SPDX-License-Identifier: GPL-2.0
/*
 * cluster-bench: ICS between two nodes beside the same exchange done by a
 * user-space program over UDP between the same guests (the anchor: the
 * kernel's path must be at least as fast), and the time from a node's
 * death to each survivor's nodedown.  Run on node 1 of 3 by make bench.
 *
 * Each figure is one line "bench cluster NAME VALUE UNIT" on stdout.
 *   rtt_{ics,udp}_{p50,p99}_us   round trip of 64 bytes, 1,000 calls:
 *                                ics_call() timed in the kernel by
 *                                ics_test, UDP's sendto() to recv()
 *                                timed by the user program
 *   rtt_ics_user_{p50,p99}_us    an ICS call timed from user space, as
 *                                a write() to ics_test's call file
 *   rtt_tipc_user_{p50,p99}_us   UDP's exchange over a TIPC socket:
 *                                ICS's transport without ICS
 *   rtt_ics_work_user_{p50,p99}_us  as rtt_ics_user, to a handler that
 *                                is not quick (a work item's wakeup
 *                                more on node 2; /proc/cluster/ps's)
 *                                (the five take turns, call by call)
 *   oneway_{ics,udp}_msgs_s      64-byte one-way messages from node 1
 *                                taken in by node 2, per second
 *   oneway_udp_lost              of those UDP datagrams, lost
 *   nodedown_{node1,node2}_ms    from node 3's QEMU killed to the
 *                                survivor's /proc/cluster/nodes saying so
 *
 * "cluster-bench --udp-echo PORT", "--tipc-echo" and "--udp-sink PORT
 * COUNT" are the user-space peers, run on node 2 by its agent.
 */
#include <arpa/inet.h>
#include <linux/tipc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "../cluster_test.h"

#define CALLS		1000
#define MSG		64
#define ONEWAY		20000
#define PORT		7070

static void fail(const char *what)
{
	fprintf(stderr, "cluster-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void report_rtt(const char *kind, long long *ns, int n)
{
	qsort(ns, n, sizeof(*ns), cmp_ll);
	printf("bench cluster rtt_%s_p50_us %.1f us\n", kind, ns[n / 2] / 1e3);
	printf("bench cluster rtt_%s_p99_us %.1f us\n", kind,
	       ns[n * 99 / 100] / 1e3);
}

static int udp_socket(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int big = 4 << 20;

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return fd;
}

/* Sends each datagram on @fd back to its sender until one is "q". */
static int echo(int fd)
{
	char buf[MSG];

	if (fd < 0)
		return 1;
	for (;;) {
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &len);

		if (n == 1 && buf[0] == 'q')
			return 0;
		if (n > 0)
			sendto(fd, buf, n, 0, (struct sockaddr *)&from, len);
	}
}

/* A TIPC service of type TIPC_ECHO, instance this node, echoing. */
#define TIPC_ECHO	18888

static int tipc_echo(void)
{
	struct sockaddr_tipc me = {
		.family = AF_TIPC, .addrtype = TIPC_SERVICE_RANGE,
		.scope = TIPC_CLUSTER_SCOPE,
		.addr.nameseq = { .type = TIPC_ECHO, .lower = 2, .upper = 2 },
	};
	int fd = socket(AF_TIPC, SOCK_RDM, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		close(fd);
		return 1;
	}
	return echo(fd);
}

/* Counts datagrams until @count came or 2 s pass without one; replies. */
static int udp_sink(int port, int count)
{
	int fd = udp_socket(port), got = 0;
	struct sockaddr_in from;
	socklen_t len = sizeof(from);
	char buf[MSG];

	if (fd < 0)
		return 1;
	while (got < count) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, got ? 2000 : 60000) <= 0)
			break;
		len = sizeof(from);
		if (recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     &len) > 0)
			got++;
	}
	from.sin_port = htons(port + 1);
	snprintf(buf, sizeof(buf), "%d", got);
	sendto(fd, buf, strlen(buf) + 1, 0, (struct sockaddr *)&from,
	       sizeof(from));
	return 0;
}

static struct sockaddr_in node2(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };

	inet_pton(AF_INET, "10.0.0.2", &a.sin_addr);
	return a;
}

/*
 * One ICS round trip from user space, in ns: a command written to
 * ics_test's call file, kept open as the UDP side keeps its socket.
 */
static long long ics_echo(int fd, const char *how, int seed)
{
	char cmd[64];
	int len = snprintf(cmd, sizeof(cmd), "%s 2 %d %d", how, MSG, seed);
	long long t0 = now_ns();

	if (write(fd, cmd, len) != len)
		fail(how);
	return now_ns() - t0;
}

/* The times of ics_test's last time command, in ns. */
static int read_times(long long *ns, int n)
{
	FILE *f = fopen(ICS_TIMES, "r");
	int i = 0;

	if (!f)
		return -1;
	while (i < n && fscanf(f, "%lld", &ns[i]) == 1)
		i++;
	fclose(f);
	return i == n ? 0 : -1;
}

/* An echo on node 2 and the socket that talks to it. */
struct peer {
	const char *kind;
	int fd, id;
	unsigned int seq;	/* of the last round trip */
	union {
		struct sockaddr_in in;
		struct sockaddr_tipc tipc;
	} to;
	socklen_t len;
};

/* Starts "cluster-bench @mode" on node 2 and waits until it answers. */
static void peer_start(struct peer *p, const char *mode)
{
	struct timeval limit = { .tv_sec = 10 };
	char cmd[128], buf[MSG] = "x";
	int i;

	/* Above any number peer_start()'s "x" probes read as (120). */
	p->seq = 1 << 20;
	snprintf(cmd, sizeof(cmd), "/bench/cluster/cluster-bench %s", mode);
	p->id = cluster_start(2, cmd);
	/* No extra system call per round trip for the timeout. */
	if (p->id < 0 || p->fd < 0 ||
	    setsockopt(p->fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)))
		fail(p->kind);
	for (i = 0; i < 300; i++) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

		sendto(p->fd, buf, MSG, 0, (struct sockaddr *)&p->to, p->len);
		if (poll(&pfd, 1, 100) == 1 && recv(p->fd, buf, MSG, 0) == MSG)
			return;
	}
	errno = ETIMEDOUT;
	fail(p->kind);
}

/*
 * One round trip to the echo, in ns: a numbered datagram and its echo,
 * skipping any late echo of an earlier one (peer_start()'s retries).
 */
static long long peer_rtt(struct peer *p)
{
	long long t0 = now_ns();
	char buf[MSG] = "x";
	unsigned int seq = ++p->seq;

	memcpy(buf, &seq, sizeof(seq));
	if (sendto(p->fd, buf, MSG, 0, (struct sockaddr *)&p->to,
		   p->len) != MSG)
		fail(p->kind);
	do {
		/* A datagram lost for good: EAGAIN after SO_RCVTIMEO. */
		if (recv(p->fd, buf, MSG, 0) != MSG)
			fail(p->kind);
	} while (memcmp(buf, &seq, sizeof(seq)));
	return now_ns() - t0;
}

static void peer_stop(struct peer *p)
{
	sendto(p->fd, "q", 1, 0, (struct sockaddr *)&p->to, p->len);
	cluster_wait(2, p->id, RUN_MS, NULL, 0);
	close(p->fd);
}

/*
 * ICS's round trip beside the same exchange between two user programs,
 * over UDP (the anchor) and over TIPC (which tells ICS's own cost from
 * its transport's); ICS also through a handler that is not quick, run in
 * a work item of its own.  The five kinds take turns, call by call, in an
 * order shuffled every round, so that each sees the same host: the other
 * guests' load comes and goes (the agents on nodes 2 and 3 look for work
 * every 50 ms for 2 s after a command, every 250 ms after that).
 */
#define KINDS	5

static void bench_rtt(void)
{
	static long long ns[KINDS][CALLS];
	struct peer udp = {
		.kind = "udp", .fd = socket(AF_INET, SOCK_DGRAM, 0),
		.to.in = node2(PORT), .len = sizeof(struct sockaddr_in),
	};
	struct peer tipc = {
		.kind = "tipc", .fd = socket(AF_TIPC, SOCK_RDM, 0),
		.to.tipc = {
			.family = AF_TIPC, .addrtype = TIPC_SERVICE_ADDR,
			.addr.name.name = { .type = TIPC_ECHO, .instance = 2 },
		},
		.len = sizeof(struct sockaddr_tipc),
	};
	unsigned int seed = 2004;
	char mode[32];
	int i, k, fd, one = 1;

	/* Until the echo binds, a message to it is dropped, not returned. */
	if (tipc.fd >= 0 && setsockopt(tipc.fd, SOL_TIPC, TIPC_DEST_DROPPABLE,
				       &one, sizeof(one)))
		fail("TIPC_DEST_DROPPABLE");
	snprintf(mode, sizeof(mode), "--udp-echo %d", PORT);
	peer_start(&udp, mode);
	peer_start(&tipc, "--tipc-echo");
	fd = open(ICS_CALL, O_WRONLY);
	if (fd < 0)
		fail("opening " ICS_CALL);
	for (i = -50; i < CALLS; i++) {
		long long t[KINDS];
		int order[KINDS] = { 0 };

		/*
		 * In an order shuffled every round (the same seed each run),
		 * so that no kind always follows the same one, which warms
		 * the path it shares or leaves its own to go cold.
		 */
		for (k = 0; k < KINDS; k++) {
			int j = rand_r(&seed) % (k + 1);

			order[k] = order[j];
			order[j] = k;
		}
		for (k = 0; k < KINDS; k++) {
			switch (order[k]) {
			case 0:
				t[0] = ics_echo(fd, "echo", i + 50);
				break;
			case 4:
				t[4] = ics_echo(fd, "wecho", i + 50);
				break;
			case 1:
				/* The kernel path alone, timed by ics_test. */
				if (ics("time 2 %d 1", MSG) || read_times(&t[1], 1))
					fail("timing an ICS call in the kernel");
				break;
			case 2:
				t[2] = peer_rtt(&udp);
				break;
			default:
				t[3] = peer_rtt(&tipc);
			}
		}
		if (i >= 0)
			for (k = 0; k < KINDS; k++)
				ns[k][i] = t[k];
	}
	close(fd);
	peer_stop(&udp);
	peer_stop(&tipc);
	report_rtt("ics_user", ns[0], CALLS);
	report_rtt("ics", ns[1], CALLS);
	report_rtt("udp", ns[2], CALLS);
	report_rtt("tipc_user", ns[3], CALLS);
	report_rtt("ics_work_user", ns[4], CALLS);
}

/* How many seq messages from node 1 node 2's ics_test has taken in. */
static long long ics_received(void)
{
	char out[1024], *p;
	unsigned long long in = 0, miss = 0;

	if (cluster_run(2, "cat " ICS_STATS, RUN_MS, out, sizeof(out)))
		fail("reading node 2's ics_test stats");
	p = strstr(out, "node 1 ");
	if (p)
		sscanf(p, "node 1 in-order %llu repeated %*u missing %llu",
		       &in, &miss);
	return in + miss;
}

static void bench_oneway(void)
{
	struct sockaddr_in to = node2(PORT + 2);
	long long before = ics_received(), t0, t;
	char cmd[128], buf[MSG] = "m", reply[32];
	int i, fd, back, id, got;

	t0 = now_ns();
	if (ics("send 2 %d", ONEWAY))
		fail("ICS one-way messages to node 2");
	while (ics_received() - before < ONEWAY)
		if (now_ns() - t0 > 120000000000LL)
			fail("node 2 taking the messages in");
	t = now_ns() - t0;
	printf("bench cluster oneway_ics_msgs_s %.0f msgs/s\n", ONEWAY / (t / 1e9));

	snprintf(cmd, sizeof(cmd), "/bench/cluster/cluster-bench --udp-sink %d %d",
		 PORT + 2, ONEWAY);
	id = cluster_start(2, cmd);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	back = udp_socket(PORT + 3);
	if (id < 0 || fd < 0 || back < 0)
		fail("UDP sink on node 2");
	sleep_ms(1000);
	t0 = now_ns();
	for (i = 0; i < ONEWAY; i++)
		if (sendto(fd, buf, MSG, 0, (struct sockaddr *)&to,
			   sizeof(to)) != MSG)
			fail("UDP datagram to node 2");
	if (recv(back, reply, sizeof(reply), 0) <= 0)
		fail("UDP sink's count");
	/* The sink waits 2 s after the last datagram only if some were lost. */
	t = now_ns() - t0;
	got = atoi(reply);
	if (got < ONEWAY)
		t -= 2000000000LL;
	printf("bench cluster oneway_udp_msgs_s %.0f msgs/s\n", got / (t / 1e9));
	printf("bench cluster oneway_udp_lost %d datagrams\n", ONEWAY - got);
	cluster_wait(2, id, RUN_MS, NULL, 0);
	close(fd);
	close(back);
}

static void bench_nodedown(void)
{
	const char *flag = "/cluster/bench-node3-down-on-2";
	struct pollfd p = { .events = POLLIN };
	long long t0, down1 = -1, down2 = -1;
	struct stat st;
	char buf[4096];
	struct view v;
	int id;

	unlink(flag);
	id = cluster_start(2, "while grep -q '^3 .* up ' " NODES_FILE
			   "; do sleep 0.01; done; touch /cluster/bench-node3-down-on-2");
	p.fd = open(NODES_FILE, O_RDONLY);
	if (id < 0 || p.fd < 0 || read(p.fd, buf, sizeof(buf)) <= 0)
		fail("watching node 3");
	sleep_ms(500);
	t0 = now_ms();
	if (cluster_ctl("kill 3"))
		fail("killing node 3");
	while (now_ms() - t0 < 10000 && (down1 < 0 || down2 < 0)) {
		if (down1 < 0 && !node_view(1, &v, RUN_MS) && v.state[3] == 'd')
			down1 = now_ms() - t0;
		if (down2 < 0 && !stat(flag, &st))
			down2 = now_ms() - t0;
		sleep_ms(5);
	}
	printf("bench cluster nodedown_node1_ms %lld ms\n", down1);
	printf("bench cluster nodedown_node2_ms %lld ms\n", down2);
	close(p.fd);
	cluster_wait(2, id, RUN_MS, NULL, 0);
	if (cluster_ctl("start 3") || cluster_run(3, "true", BOOT_MS, NULL, 0) ||
	    ics_test_load(3))
		fail("booting node 3 again");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--udp-echo"))
		return echo(udp_socket(atoi(argv[2])));
	if (argc == 2 && !strcmp(argv[1], "--tipc-echo"))
		return tipc_echo();
	if (argc == 4 && !strcmp(argv[1], "--udp-sink"))
		return udp_sink(atoi(argv[2]), atoi(argv[3]));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ics_test_load(3))
		fail("loading ics_test on every node");
	bench_rtt();
	bench_oneway();
	bench_nodedown();
	if (ics_test_unload(3))
		fail("unloading ics_test");
	return 0;
}
