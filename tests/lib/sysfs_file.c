// SPDX-License-Identifier: GPL-2.0
/* Read and write one sysfs attribute the way a shell's cat and echo do. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sysfs_file.h"

int sysfs_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return n;
}

int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(val);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	return (size_t)n == len ? 0 : -EIO;
}
