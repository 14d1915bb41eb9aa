// SPDX-License-Identifier: GPL-2.0
/* Daemons for the tests: children of init, in a session of their own. */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "orphan.h"

pid_t start_orphan(struct orphan *o)
{
	int p[2], status, fd, null;
	pid_t pid = -1, mid;

	if (pipe(p))
		return -1;
	mid = fork();
	if (mid) {
		/* The daemon's PID, once it is ready; EOF if it is gone. */
		close(p[1]);
		if (mid > 0 && read(p[0], &pid, sizeof(pid)) != sizeof(pid))
			pid = -1;
		close(p[0]);
		if (mid > 0)
			waitpid(mid, &status, 0);
		return pid;
	}
	if (fork())
		_exit(0);
	null = open("/dev/null", O_RDWR);
	for (fd = 0; fd < 1024; fd++)
		if (fd != p[1] && fd != null)
			close(fd);
	if (null < 0 || dup2(null, 0) || dup2(null, 1) != 1 ||
	    dup2(null, 2) != 2 || chdir("/") || setsid() < 0)
		_exit(1);
	if (null > 2)
		close(null);
	o->fd = p[1];
	return 0;
}

int orphan_ready(struct orphan *o)
{
	pid_t pid = getpid();
	int ret = write(o->fd, &pid, sizeof(pid)) == sizeof(pid) ? 0 : -1;

	close(o->fd);
	o->fd = -1;
	return ret;
}
