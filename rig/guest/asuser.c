// SPDX-License-Identifier: GPL-2.0
/* asuser CMD [ARG...]: run CMD as the guest's ordinary user (uid/gid 1000) with no capabilities. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unpriv.h"

int main(int argc, char *argv[])
{
	if (argc < 2) {
		fprintf(stderr, "usage: asuser CMD [ARG...]\n");
		return 2;
	}
	if (become_unprivileged()) {
		perror("asuser: dropping to uid 1000");
		return 126;
	}
	setenv("HOME", "/tmp", 1);
	setenv("USER", "user", 1);
	setenv("LOGNAME", "user", 1);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "asuser: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
