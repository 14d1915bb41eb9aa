// SPDX-License-Identifier: GPL-2.0
/* A cluster group's tests on node 1; see cluster.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "sysfs_file.h"

#define AGENT_DIR	"/cluster/agent"
#define POLL_MS		20

/* The number after key (e.g. "rig.node=") on the kernel command line. */
static int cmdline_number(const char *key, int dflt)
{
	char cmdline[4096], *p;

	if (sysfs_read("/proc/cmdline", cmdline, sizeof(cmdline)) <= 0)
		return dflt;
	for (p = strstr(cmdline, key); p; p = strstr(p + 1, key))
		if (p == cmdline || p[-1] == ' ')
			return atoi(p + strlen(key));
	return dflt;
}

int cluster_self(void)
{
	return cmdline_number("rig.node=", 1);
}

int cluster_size(void)
{
	return cmdline_number("rig.nodes=", 1);
}

int cluster_ctl(const char *fmt, ...)
{
	char req[256], line[512], *argv[16], *save;
	int pipefd[2], status, argc = 0;
	va_list ap;
	FILE *f;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	argv[argc++] = "rig-ctl";
	for (char *w = strtok_r(req, " ", &save); w && argc < 15;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run rig-ctl: %s\n", strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "# %s", line);
	if (f)
		fclose(f);
	else
		close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* A command waiting for its agent: AGENT_DIR/NODE/NAME.sh. */
static void command_path(char *buf, size_t len, int node, int id,
			 const char *suffix)
{
	snprintf(buf, len, AGENT_DIR "/%d/c%d%s", node, id, suffix);
}

/* One the agent has taken: AGENT_DIR/NODE/run/NAME.{sh,out,rc}. */
static void run_path(char *buf, size_t len, int node, int id,
		     const char *suffix)
{
	snprintf(buf, len, AGENT_DIR "/%d/run/c%d%s", node, id, suffix);
}

int cluster_start(int node, const char *cmd)
{
	/* What an earlier command of the same id may have left. */
	static const char *const stale[] = { ".sh", ".out", ".rc" };
	static int seq;
	char tmp[128], path[128];
	size_t i, len = strlen(cmd);
	int fd, id, ok;

	if (node < 2 || node > cluster_size()) {
		errno = EINVAL;
		return -1;
	}
	/* Unique on this node while pids are: the pid and a count. */
	seq = seq % 999 + 1;
	id = (getpid() % 1000000) * 1000 + seq;
	for (i = 0; i < sizeof(stale) / sizeof(stale[0]); i++) {
		run_path(path, sizeof(path), node, id, stale[i]);
		unlink(path);
	}
	snprintf(tmp, sizeof(tmp), AGENT_DIR "/%d/.c%d.tmp", node, id);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	errno = 0;
	ok = write(fd, cmd, len) == (ssize_t)len && write(fd, "\n", 1) == 1;
	if (close(fd) || !ok) {
		unlink(tmp);
		if (!errno)
			errno = EIO;
		return -1;
	}
	/* The agent picks up *.sh only: the command appears whole. */
	command_path(path, sizeof(path), node, id, ".sh");
	if (rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return id;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

int cluster_wait(int node, int id, int timeout_ms, char *out, size_t outlen)
{
	long deadline = now_ms() + timeout_ms;
	char path[128];
	int rc = -1;
	FILE *f;

	if (out && outlen)
		out[0] = '\0';
	run_path(path, sizeof(path), node, id, ".rc");
	for (;;) {
		f = fopen(path, "re");
		if (f) {
			if (fscanf(f, "%d", &rc) != 1)
				rc = -1;
			fclose(f);
			break;
		}
		if (now_ms() >= deadline)
			return -1;
		usleep(POLL_MS * 1000);
	}
	if (out && outlen) {
		size_t n = 0;

		run_path(path, sizeof(path), node, id, ".out");
		f = fopen(path, "re");
		if (f) {
			n = fread(out, 1, outlen - 1, f);
			fclose(f);
		}
		out[n] = '\0';
	}
	return rc;
}

int cluster_run(int node, const char *cmd, int timeout_ms, char *out,
		size_t outlen)
{
	int id = cluster_start(node, cmd);

	if (id < 0)
		return -1;
	return cluster_wait(node, id, timeout_ms, out, outlen);
}
