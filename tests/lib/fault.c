// SPDX-License-Identifier: GPL-2.0
/* The fail-nth loop of fault.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fault.h"
#include "sysfs_file.h"
#include "variant.h"

#define FAILSLAB "/sys/kernel/debug/failslab/"
#define FAIL_PAGE_ALLOC "/sys/kernel/debug/fail_page_alloc/"

bool fault_injection_available(void)
{
	if (!rig_debug_kernel())
		return false;
	return access(FAILSLAB "ignore-gfp-wait", W_OK) == 0 &&
	       access(FAIL_PAGE_ALLOC "ignore-gfp-wait", W_OK) == 0 &&
	       access("/proc/thread-self/fail-nth", W_OK) == 0;
}

int fault_injection_setup(void)
{
	static const char *const attrs[][2] = {
		{ FAILSLAB "probability", "0" },
		{ FAILSLAB "ignore-gfp-wait", "N" },
		{ FAILSLAB "verbose", "0" },
		{ FAIL_PAGE_ALLOC "probability", "0" },
		{ FAIL_PAGE_ALLOC "ignore-gfp-wait", "N" },
		{ FAIL_PAGE_ALLOC "ignore-gfp-highmem", "N" },
		{ FAIL_PAGE_ALLOC "min-order", "0" },
		{ FAIL_PAGE_ALLOC "verbose", "0" },
	};
	int err = 0;

	for (unsigned int i = 0; i < sizeof(attrs) / sizeof(attrs[0]) && !err; i++)
		err = sysfs_write(attrs[i][0], attrs[i][1]);
	return err;
}

static bool allocation_errno(int err)
{
	return err == -ENOMEM || err == -EAGAIN || err == -ENOSPC ||
	       err == -EINTR || err == -ENOBUFS;
}

/* Arm fail-nth for n, or disarm it with 0. */
static int fail_nth_set(int fd, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -errno;
}

/* 1 if the armed fault was injected, 0 if not, -errno. */
static int fail_nth_injected(int fd)
{
	char buf[16];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	return atoi(buf) == 0;
}

int fault_loop(fault_op_t op, fault_check_t check, void *arg, int max_tries,
	       struct fault_run *run)
{
	int fd, n, ret = -E2BIG;

	memset(run, 0, sizeof(*run));
	fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	/*
	 * A uid change made the task undumpable, and with that its /proc
	 * files root's: make it dumpable again, and fail-nth its own.
	 */
	if (fd < 0 && errno == EACCES && !prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (n = 1; n <= max_tries; n++) {
		int err, injected, checked;

		err = fail_nth_set(fd, n);
		if (err) {
			ret = err;
			break;
		}
		err = op(arg);
		injected = fail_nth_injected(fd);
		/* Disarmed before anything else runs in this thread. */
		fail_nth_set(fd, 0);
		run->tries = n;
		if (injected < 0) {
			ret = injected;
			break;
		}
		if (!injected) {
			/* Fewer than n fault points: the clean run. */
			ret = err;
			if (err) {
				run->bad_errno = -err;
				run->bad_try = n;
				ret = -EPROTO;
			}
			break;
		}
		if (!err) {
			run->recovered++;
		} else if (!allocation_errno(err)) {
			run->bad_errno = -err;
			run->bad_try = n;
			ret = -EPROTO;
			break;
		} else {
			run->failed++;
		}
		checked = check(arg, err);
		if (checked) {
			run->check_err = checked;
			run->bad_try = n;
			ret = -EPROTO;
			break;
		}
		/* Still reaching its n-th fault point at the last try. */
		ret = -E2BIG;
	}
	close(fd);
	return ret;
}

int fault_loop_report(const char *what, int ret, const struct fault_run *run)
{
	fprintf(stderr, "# %s: %d tries, %d failed cleanly, %d recovered\n",
		what, run->tries, run->failed, run->recovered);
	if (ret == -E2BIG)
		fprintf(stderr, "# %s: still failing at try %d\n", what,
			run->tries);
	else if (ret == -EPROTO && run->check_err)
		fprintf(stderr, "# %s: try %d: the check after it gave %d (%s)\n",
			what, run->bad_try, run->check_err,
			strerror(-run->check_err));
	else if (ret == -EPROTO)
		fprintf(stderr, "# %s: try %d: errno %d (%s)\n", what,
			run->bad_try, run->bad_errno, strerror(run->bad_errno));
	else if (ret)
		fprintf(stderr, "# %s: fail-nth: %s\n", what, strerror(-ret));
	else if (!run->failed && !run->recovered)
		fprintf(stderr, "# %s: no fault point was reached\n", what);
	return !ret && (run->failed || run->recovered) ? 0 : -1;
}
