// SPDX-License-Identifier: GPL-2.0
/* Module loading for guest tests; see kmod.h. */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kmod.h"

int load_module(const char *path, const char *params)
{
	int fd, ret, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	err = errno;
	close(fd);
	errno = err;
	return ret ? -1 : 0;
}

int unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -1 : 0;
}

int unload_module_wait(const char *name, int ms)
{
	for (;;) {
		if (!unload_module(name))
			return 0;
		if ((errno != EWOULDBLOCK && errno != EBUSY) || ms <= 0)
			return -errno;
		usleep(10 * 1000);
		ms -= 10;
	}
}
