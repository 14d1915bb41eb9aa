// SPDX-License-Identifier: GPL-2.0
/* Drop to the guest's ordinary user; see unpriv.h. */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sysfs_file.h"
#include "unpriv.h"

static int caps_all_clear(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i;

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		if (data[i].effective || data[i].permitted ||
		    data[i].inheritable) {
			errno = EPERM;
			return -1;
		}
	}
	return 0;
}

int become_unprivileged(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
	gid_t gid = RIG_USER_GID;

	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0))
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -1;
	if (setgroups(1, &gid))
		return -1;
	if (setresgid(gid, gid, gid))
		return -1;
	if (setresuid(RIG_USER_UID, RIG_USER_UID, RIG_USER_UID))
		return -1;
	/* setresuid() cleared effective and permitted; inheritable stays. */
	if (syscall(SYS_capset, &hdr, none))
		return -1;
	return caps_all_clear();
}

int become_root_of_a_user_ns(void)
{
	char map[32];

	/* The uid change made it undumpable: /proc/self/ is root's. */
	if (prctl(PR_SET_DUMPABLE, 1) || unshare(CLONE_NEWUSER))
		return -1;
	snprintf(map, sizeof(map), "0 %d 1", RIG_USER_UID);
	if (sysfs_write("/proc/self/setgroups", "deny") ||
	    sysfs_write("/proc/self/uid_map", map))
		return -1;
	snprintf(map, sizeof(map), "0 %d 1", RIG_USER_GID);
	return sysfs_write("/proc/self/gid_map", map) ? -1 : 0;
}

int run_unprivileged(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (become_unprivileged())
			_exit(126);
		_exit(fn(arg) & 0xff);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}
