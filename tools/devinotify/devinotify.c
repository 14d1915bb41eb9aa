// SPDX-License-Identifier: GPL-2.0
/*
 * devinotify: watch paths through /dev/inotify (the inotify 0.8 device) and
 * print one line per event, like inotifywait -m.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/inotify_dev.h>

static const struct {
	const char *name;
	int bit;
} events[] = {
	{ "access", IN_ACCESS },	{ "modify", IN_MODIFY },
	{ "create", IN_CREATE },	{ "delete", IN_DELETE },
	{ "rename", IN_RENAME },	{ "attrib", IN_ATTRIB },
	{ "move", IN_MOVE },		{ "unmount", IN_UNMOUNT },
	{ "close", IN_CLOSE },		{ "open", IN_OPEN },
	{ "ignored", IN_IGNORED },	{ "q_overflow", IN_Q_OVERFLOW },
};

#define NEVENTS (sizeof(events) / sizeof(events[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"usage: devinotify [-e EVENTS] [-c COUNT] [-t SECONDS] [-q] PATH...\n"
		"Watch each PATH through /dev/inotify and print one line per event:\n"
		"  PATH[/NAME] EVENT[,EVENT...] wd=N\n"
		"\n"
		"  -e EVENTS   comma-separated events to watch (default all): access,\n"
		"              modify, create, delete, rename, attrib, move, close, open;\n"
		"              unmount, ignored and q_overflow come with any of them,\n"
		"              and alone watch for nothing but the watch's end\n"
		"  -c COUNT    exit after COUNT events\n"
		"  -t SECONDS  exit with status 2 after SECONDS without an event\n"
		"              (at most 2147483, some 24 days)\n"
		"  -q          do not report the watches on stderr\n"
		"  -h, --help  this text\n"
		"\n"
		"Exit status: 0 when COUNT events came or every watch ended, 1 on an\n"
		"error, 2 on a timeout.\n");
}

/*
 * The events a watch can ask for; IN_UNMOUNT, IN_IGNORED and IN_Q_OVERFLOW
 * come whatever it asks, and the device refuses a mask of those alone.
 */
#define WATCHABLE (IN_ACCESS | IN_MODIFY | IN_CREATE | IN_DELETE | \
		   IN_RENAME | IN_ATTRIB | IN_MOVE | IN_CLOSE | IN_OPEN)

/* The mask named by a comma-separated list, or 0 for an unknown name. */
static unsigned long parse_events(char *list)
{
	unsigned long mask = 0;
	char *tok, *save;
	size_t i;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			mask |= IN_ALL_EVENTS;
			continue;
		}
		for (i = 0; i < NEVENTS; i++)
			if (!strcmp(tok, events[i].name))
				break;
		if (i == NEVENTS) {
			fprintf(stderr, "devinotify: unknown event '%s'\n", tok);
			return 0;
		}
		mask |= events[i].bit;
	}
	return mask;
}

/* A decimal number from 0 to max in *n: 1, or 0 after saying why. */
static int number(const char *arg, long max, long *n)
{
	char *end;

	errno = 0;
	*n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *n < 0 || *n > max) {
		fprintf(stderr, "devinotify: '%s': not a number from 0 to %ld\n",
			arg, max);
		return 0;
	}
	return 1;
}

static void print_event(const struct inotify_event *e, char **paths, int npaths)
{
	const char *path = "-";
	const char *sep = "";
	size_t i;
	int n;

	for (n = 0; n < npaths; n++)
		if (paths[n] && n == e->wd)
			path = paths[n];
	printf("%s%s%s ", path, e->filename[0] ? "/" : "", e->filename);
	for (i = 0; i < NEVENTS; i++) {
		if (e->mask & events[i].bit) {
			printf("%s%s", sep, events[i].name);
			sep = ",";
		}
	}
	printf(" wd=%d\n", e->wd);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct inotify_event ev[16];
	unsigned long mask = IN_ALL_EVENTS, want;
	long count = -1, timeout_ms = -1;
	int opt, fd, i, n, live = 0, quiet = 0, maxwd = 0;
	char **paths;

	while ((opt = getopt_long(argc, argv, "e:c:t:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			mask = parse_events(optarg);
			if (!mask)
				return 1;
			break;
		case 'c':
			if (!number(optarg, LONG_MAX, &count))
				return 1;
			break;
		case 't':
			if (!number(optarg, INT_MAX / 1000, &timeout_ms))
				return 1;
			timeout_ms *= 1000;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return 1;
	}

	/*
	 * Only events that always come (-e unmount): the device wants one it
	 * can watch for, so ask for renames (IN_MOVE alone) and print none.
	 */
	want = mask | IN_UNMOUNT | IN_IGNORED | IN_Q_OVERFLOW;
	if (!(mask & WATCHABLE))
		mask = IN_MOVE;

	fd = open("/dev/inotify", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("devinotify: /dev/inotify");
		return 1;
	}
	/* wd -> path; wds are small and dense for one instance */
	paths = calloc(argc, sizeof(*paths));
	if (!paths)
		return 1;
	for (i = optind; i < argc; i++) {
		struct inotify_watch_request req = { argv[i], mask };
		int wd = ioctl(fd, INOTIFY_WATCH, &req);

		if (wd < 0) {
			fprintf(stderr, "devinotify: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (wd >= argc) {
			fprintf(stderr, "devinotify: %s: unexpected wd %d\n", argv[i], wd);
			return 1;
		}
		if (!paths[wd])
			live++;
		paths[wd] = argv[i];
		if (wd >= maxwd)
			maxwd = wd + 1;
		if (!quiet)
			fprintf(stderr, "watching %s (wd %d)\n", argv[i], wd);
	}

	while (live > 0 && count != 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		fflush(stdout);
		n = poll(&p, 1, timeout_ms);
		if (n < 0) {
			perror("devinotify: poll");
			return 1;
		}
		if (n == 0)
			return 2;
		r = read(fd, ev, sizeof(ev));
		if (r < 0) {
			perror("devinotify: read");
			return 1;
		}
		for (i = 0; i < r / (ssize_t)sizeof(ev[0]) && count != 0; i++) {
			if (ev[i].mask & want) {
				print_event(&ev[i], paths, maxwd);
				if (count > 0)
					count--;
			}
			if ((ev[i].mask & IN_IGNORED) && ev[i].wd >= 0 &&
			    ev[i].wd < maxwd && paths[ev[i].wd]) {
				paths[ev[i].wd] = NULL;
				live--;
			}
		}
	}
	fflush(stdout);
	return 0;
}
