// SPDX-License-Identifier: GPL-2.0
/*
 * rig-ctl REQUEST...: send one request to the host's cluster runner
 * (rig/cluster.py) over this node's control port, ttyS2, and wait for the
 * answer: "rig-ctl kill N" powers node N off at once, "rig-ctl start N"
 * boots it again, "rig-ctl start N ssi.NAME=VALUE..." with those SSI
 * parameters added to its command line for that boot.  Exits 0 when the host says "ok"; otherwise prints the
 * host's message and exits 1 (2 on a usage or port error).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <termios.h>
#include <unistd.h>

#define CTL_PORT	"/dev/ttyS2"
/* The host answers at once; kill waits for a QEMU to die. */
#define CTL_TIMEOUT_MS	60000

static int is_cluster_boot(void)
{
	char cmdline[4096];
	ssize_t n;
	int fd;

	fd = open("/proc/cmdline", O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	cmdline[n] = '\0';
	return strstr(cmdline, "rig.nodes=") != NULL;
}

/* Raw, no echo: the port carries our requests and the host's answers only. */
static int port_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return -1;
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	if (tcsetattr(fd, TCSANOW, &t))
		return -1;
	return tcflush(fd, TCIFLUSH);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

/* One line of answer into buf, without its newline; -1 on timeout or error. */
static int read_line(int fd, char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t used = 0;

	while (used < len - 1) {
		ssize_t n;
		int r = poll(&p, 1, CTL_TIMEOUT_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		n = read(fd, buf + used, 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		if (buf[used] == '\n')
			break;
		if (buf[used] != '\r')
			used++;
	}
	buf[used] = '\0';
	return 0;
}

int main(int argc, char *argv[])
{
	char req[256] = "", answer[512];
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: rig-ctl kill N | start N [ssi.NAME=VALUE...]\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (strlen(req) + strlen(argv[i]) + 3 > sizeof(req)) {
			fprintf(stderr, "rig-ctl: request too long\n");
			return 2;
		}
		if (i > 1)
			strcat(req, " ");
		strcat(req, argv[i]);
	}
	strcat(req, "\n");
	if (!is_cluster_boot()) {
		fprintf(stderr, "rig-ctl: not a cluster boot (no rig.nodes= on the kernel command line)\n");
		return 2;
	}
	fd = open(CTL_PORT, O_RDWR | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "rig-ctl: %s: %s\n", CTL_PORT, strerror(errno));
		return 2;
	}
	/* One request at a time on the port, whoever sends it. */
	if (flock(fd, LOCK_EX) || port_raw(fd)) {
		fprintf(stderr, "rig-ctl: setting up %s: %s\n", CTL_PORT, strerror(errno));
		return 2;
	}
	if (write_all(fd, req, strlen(req)) || tcdrain(fd)) {
		fprintf(stderr, "rig-ctl: writing to %s: %s\n", CTL_PORT, strerror(errno));
		return 2;
	}
	if (read_line(fd, answer, sizeof(answer))) {
		fprintf(stderr, "rig-ctl: no answer from the host on %s in %d s\n",
			CTL_PORT, CTL_TIMEOUT_MS / 1000);
		return 1;
	}
	close(fd);
	if (!strcmp(answer, "ok"))
		return 0;
	fprintf(stderr, "rig-ctl: %s", answer);
	fputc('\n', stderr);
	return 1;
}
