// SPDX-License-Identifier: GPL-2.0
/*
 * tools/devinotify as a person runs it (/bin/devinotify in the guest):
 * -e naming only the events that always come waits for the watch's end
 * and prints nothing else; -t takes what poll() can wait and refuses more;
 * -t and -c refuse what is not a number.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"

#define TOOL "/bin/devinotify"

/*
 * Run TOOL with argv, its stdout in out; its exit status, or -1.  With
 * @meanwhile, the tool must not be given -q: once it said on stderr that
 * it watches, meanwhile() runs.  The tool dies with the test.
 */
static int run_tool(char *const argv[], char *out, size_t len,
		    int (*meanwhile)(void))
{
	int pipefd[2], errfd[2], status;
	char line[256];
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(pipefd) || pipe(errfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(pipefd[1], 1);
		dup2(errfd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		close(errfd[0]);
		close(errfd[1]);
		execv(TOOL, argv);
		_exit(127);
	}
	close(pipefd[1]);
	close(errfd[1]);
	if (meanwhile) {
		/* "watching PATH (wd N)" */
		r = read(errfd[0], line, sizeof(line) - 1);
		if (r <= 0 || meanwhile())
			kill(pid, SIGKILL);
	}
	while (got < len - 1 && (r = read(pipefd[0], out + got, len - 1 - got)) > 0)
		got += r;
	out[got] = '\0';
	close(pipefd[0]);
	/* what else it said (a closed pipe would kill it with SIGPIPE) */
	while (read(errfd[0], line, sizeof(line)) > 0)
		;
	close(errfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Change m, then unmount it. */
static int change_then_unmount(void)
{
	if (mknod("m/a", S_IFREG | 0644, 0) || rename("m/a", "m/b") ||
	    unlink("m/b"))
		return -1;
	return umount("m");
}

TEST(only_the_events_that_always_come_wait_for_the_end)
{
	char *const argv[] = { TOOL, "-t", "30", "-e", "unmount", "m", NULL };
	char out[512];
	int status;

	ASSERT_EQ(0, mkdir("m", 0755));
	ASSERT_EQ(0, mount("tmpfs", "m", "tmpfs", 0, NULL));
	status = run_tool(argv, out, sizeof(out), change_then_unmount);
	umount("m");
	rmdir("m");
	ASSERT_EQ(0, status) TH_LOG("output: %s", out);
	EXPECT_STREQ("m unmount wd=0\nm ignored wd=0\n", out);
}

/* An event in the working directory. */
static int create_a_file(void)
{
	return mknod("new", S_IFREG | 0644, 0);
}

TEST(a_timeout_poll_cannot_wait_is_refused)
{
	char *const big[] = { TOOL, "-q", "-t", "2147484", ".", NULL };
	char *const most[] = { TOOL, "-t", "2147483", "-c", "1", ".", NULL };
	char *const one[] = { TOOL, "-q", "-t", "1", ".", NULL };
	char out[512];

	EXPECT_EQ(1, run_tool(big, out, sizeof(out), NULL));
	EXPECT_STREQ("", out);
	/* the longest is taken, and an event ends the wait */
	EXPECT_EQ(0, run_tool(most, out, sizeof(out), create_a_file));
	EXPECT_STREQ("./new create wd=0\n", out);
	unlink("new");
	/* a second without an event: status 2 */
	EXPECT_EQ(2, run_tool(one, out, sizeof(out), NULL));
}

TEST(counts_and_timeouts_are_numbers)
{
	char *const t[] = { TOOL, "-t", "soon", ".", NULL };
	char *const c[] = { TOOL, "-c", "-1", ".", NULL };
	char out[64];

	EXPECT_EQ(1, run_tool(t, out, sizeof(out), NULL));
	EXPECT_EQ(1, run_tool(c, out, sizeof(out), NULL));
}

TEST_HARNESS_MAIN
