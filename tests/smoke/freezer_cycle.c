// SPDX-License-Identifier: GPL-2.0
/*
 * One suspend cycle that stops after freezing tasks (pm_test=freezer), the
 * cycle the freezer tests build on: it must complete and thaw everything.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

FIXTURE(pm_test) {
};

FIXTURE_SETUP(pm_test)
{
	/* pm_test holds each test level for pm_test_delay seconds. */
	ASSERT_EQ(0, write_str("/sys/module/suspend/parameters/pm_test_delay",
			       "1"));
}

FIXTURE_TEARDOWN(pm_test)
{
	write_str("/sys/power/pm_test", "none");
}

TEST_F(pm_test, mem_is_offered)
{
	char states[128];

	ASSERT_EQ(0, read_str("/sys/power/state", states, sizeof(states)));
	TH_LOG("/sys/power/state: %s", states);
	EXPECT_NE(NULL, strstr(states, "mem"));
}

TEST_F(pm_test, freezer_cycle_completes_and_thaws)
{
	struct timespec t0, t1;
	int status;
	pid_t child;

	/* A busy user task that the freezer has to stop and thaw. */
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		for (;;)
			;
	}
	ASSERT_EQ(0, write_str("/sys/power/pm_test", "freezer"));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(0, write_str("/sys/power/state", "mem"));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* The test level is held for pm_test_delay: proof it was reached. */
	EXPECT_LE(1, t1.tv_sec - t0.tv_sec);
	/* Thawed: the child still runs and can be killed and reaped. */
	EXPECT_EQ(0, kill(child, SIGKILL));
	EXPECT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
}

TEST_F(pm_test, unknown_state_is_einval)
{
	EXPECT_EQ(-EINVAL, write_str("/sys/power/state", "nonsense"));
	EXPECT_EQ(-EINVAL, write_str("/sys/power/pm_test", "nonsense"));
}

TEST_HARNESS_MAIN
