// SPDX-License-Identifier: GPL-2.0
/*
 * cluster: the cluster's nodes and processes, and kill() across it, for a
 * person at a terminal.  Reads /proc/cluster/nodes and /proc/cluster/ps
 * (Documentation/admin-guide/ssi.rst).  See --help.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define NODES_FILE "/proc/cluster/nodes"
#define PS_FILE "/proc/cluster/ps"

static const char usage[] =
"usage: cluster nodes\n"
"       cluster watch [SECONDS]\n"
"       cluster ps [-n NODE]\n"
"       cluster kill [-SIGNAL] PID...\n"
"\n"
"  nodes  every configured node: up or down, and since when; the epoch the\n"
"         live nodes agree on\n"
"  watch  print the nodes again at every change of membership, for SECONDS\n"
"         (default: until interrupted)\n"
"  ps     every process of every live node (of NODE with -n)\n"
"  kill   send SIGNAL (a number or a name, default TERM) to each PID,\n"
"         whichever node it lives on\n"
"\n"
"Exit status: 0, 1 if a node file could not be read or a kill failed,\n"
"2 on a usage error.\n";

static void die_usage(void)
{
	fputs(usage, stderr);
	exit(2);
}

/* "12s", "4m05s", "2h03m": how long ago @since was. */
static void format_ago(char *buf, size_t size, double since)
{
	long s = (long)(time(NULL) - since);

	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(buf, size, "%lds", s);
	else if (s < 3600)
		snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, size, "%ldh%02ldm", s / 3600, s / 60 % 60);
}

static int show_nodes(FILE *f)
{
	unsigned long long epoch = 0;
	int self = 0, leader = 0, up = 0, total = 0;
	char line[256], state[16], addr[32], since[32];
	int node;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "epoch %llu", &epoch) == 1 ||
		    sscanf(line, "self %d", &self) == 1 ||
		    sscanf(line, "leader %d", &leader) == 1)
			continue;
		if (!strncmp(line, "node ", 5)) {
			printf("NODE  ADDRESS  STATE  SINCE\n");
			continue;
		}
		if (sscanf(line, "%d %31s %15s %31s", &node, addr, state,
			   since) != 4)
			continue;
		total++;
		up += !strcmp(state, "up");
		if (strcmp(since, "-")) {
			char when[32], ago[32];
			time_t t = (time_t)atof(since);
			struct tm tm;

			strftime(when, sizeof(when), "%H:%M:%S",
				 localtime_r(&t, &tm));
			format_ago(ago, sizeof(ago), atof(since));
			printf("%4d  %-7s  %-5s  %s (%s ago)%s\n", node, addr,
			       state, when, ago, node == self ? "  <- this node" : "");
		} else {
			printf("%4d  %-7s  %-5s  never seen%s\n", node, addr,
			       state, node == self ? "  <- this node" : "");
		}
	}
	printf("%d of %d nodes up; epoch %llu, leader node %d\n", up, total,
	       epoch, leader);
	return 0;
}

static int cmd_nodes(void)
{
	FILE *f = fopen(NODES_FILE, "r");

	if (!f) {
		fprintf(stderr, "cluster: %s: %s (is this kernel in a cluster?)\n",
			NODES_FILE, strerror(errno));
		return 1;
	}
	show_nodes(f);
	fclose(f);
	return 0;
}

static int cmd_watch(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : -1;
	time_t end = time(NULL) + seconds;
	FILE *f = fopen(NODES_FILE, "r");

	if (argc > 2 || (argc > 1 && seconds <= 0))
		die_usage();
	if (!f) {
		fprintf(stderr, "cluster: %s: %s\n", NODES_FILE, strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		struct pollfd p = { .fd = fileno(f), .events = POLLPRI };
		int left = seconds < 0 ? -1 : (int)(end - time(NULL)) * 1000;

		rewind(f);
		show_nodes(f);
		if (seconds >= 0 && left <= 0)
			break;
		if (poll(&p, 1, left) < 0) {
			fprintf(stderr, "cluster: poll: %s\n", strerror(errno));
			fclose(f);
			return 1;
		}
		if (!(p.revents & POLLPRI))
			break;
		printf("--- membership changed\n");
	}
	fclose(f);
	return 0;
}

/* The user name of @uid from /etc/passwd, or the number. */
static const char *user_name(unsigned int uid, char *buf, size_t size)
{
	FILE *f = fopen("/etc/passwd", "r");
	char line[512];

	snprintf(buf, size, "%u", uid);
	while (f && fgets(line, sizeof(line), f)) {
		char *name = strtok(line, ":"), *x = strtok(NULL, ":");
		char *id = strtok(NULL, ":");

		if (name && x && id && (unsigned int)atoi(id) == uid) {
			snprintf(buf, size, "%s", name);
			break;
		}
	}
	if (f)
		fclose(f);
	return buf;
}

static int cmd_ps(int argc, char **argv)
{
	char line[256], comm[64], user[64];
	unsigned int pid, uid;
	int node, only = 0, n;
	char state;
	FILE *f;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		only = atoi(argv[2]);
	else if (argc != 1)
		die_usage();
	f = fopen(PS_FILE, "r");
	if (!f) {
		fprintf(stderr, "cluster: %s: %s\n", PS_FILE, strerror(errno));
		return 1;
	}
	printf("NODE      PID  USER      S  COMMAND\n");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%d %u %u %c %n", &node, &pid, &uid, &state,
			   &n) != 4)
			continue;
		if (only && node != only)
			continue;
		snprintf(comm, sizeof(comm), "%s", line + n);
		printf("%4d  %7u  %-8s  %c  %s\n", node, pid,
		       user_name(uid, user, sizeof(user)), state, comm);
	}
	if (ferror(f)) {
		fprintf(stderr, "cluster: %s: %s\n", PS_FILE, strerror(errno));
		fclose(f);
		return 1;
	}
	fclose(f);
	return 0;
}

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
	{ "TERM", SIGTERM }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
};

static int parse_signal(const char *s)
{
	char *end;
	long n;
	size_t i;

	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (!strcasecmp(s, signals[i].name))
			return signals[i].sig;
	n = strtol(s, &end, 10);
	if (*s && !*end && n >= 0 && n < 65)
		return n;
	return -1;
}

static int cmd_kill(int argc, char **argv)
{
	int i = 1, sig = SIGTERM, ret = 0;

	if (argc > 1 && argv[1][0] == '-') {
		sig = parse_signal(argv[1] + 1);
		if (sig < 0) {
			fprintf(stderr, "cluster: %s: not a signal\n", argv[1]);
			return 2;
		}
		i++;
	}
	if (i == argc)
		die_usage();
	for (; i < argc; i++) {
		char *end;
		long pid;

		errno = 0;
		pid = strtol(argv[i], &end, 10);
		/* kill() takes an int: 4294967295 would be -1, every process. */
		if (!*argv[i] || *end || errno || pid <= 0 || pid > INT_MAX) {
			fprintf(stderr, "cluster: %s: not a PID\n", argv[i]);
			ret = 1;
			continue;
		}
		if (kill(pid, sig)) {
			fprintf(stderr, "cluster: kill %ld: %s\n", pid,
				strerror(errno));
			ret = 1;
		}
	}
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "nodes") && argc == 2)
		return cmd_nodes();
	if (!strcmp(argv[1], "watch"))
		return cmd_watch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ps"))
		return cmd_ps(argc - 1, argv + 1);
	if (!strcmp(argv[1], "kill"))
		return cmd_kill(argc - 1, argv + 1);
	die_usage();
	return 2;
}
