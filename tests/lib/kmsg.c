// SPDX-License-Identifier: GPL-2.0
/* Read the kernel log, and announce a kernel warning a test provokes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"
#include "sysfs_file.h"

#define ANNOUNCE "rig: expect-warning"

int kmsg_count(const char *text)
{
	char rec[2048];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	int count = 0, err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: read on */
			continue;
		if (n < 0 && errno != EAGAIN)
			err = -errno;
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, text) && !strstr(rec, ANNOUNCE))
			count++;
	}
	close(fd);
	return err ? err : count;
}

int expect_kernel_warning(const char *text)
{
	char msg[256];

	snprintf(msg, sizeof(msg), ANNOUNCE " %s\n", text);
	return sysfs_write("/dev/kmsg", msg);
}
