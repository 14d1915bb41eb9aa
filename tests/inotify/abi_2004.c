// SPDX-License-Identifier: GPL-2.0
/*
 * Where the device's ABI differs from the 2004 device's and the README's
 * table says so: the node's mode, IN_CLOSE at the last close of an open
 * file, IN_OPEN from exec, IN_ATTRIB from a new hard link, and the order
 * of a file's and its watched directory's records.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "devino.h"

FIXTURE(abi) {
	int fd;
};

FIXTURE_SETUP(abi)
{
	system("rm -rf d");
	ASSERT_EQ(0, mkdir("d", 0755));
	ASSERT_EQ(0, mknod("d/f", S_IFREG | 0644, 0));
	self->fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(abi)
{
	close(self->fd);
	system("rm -rf d");
}

TEST_F(abi, the_node_is_mode_0666)
{
	struct stat st;

	ASSERT_EQ(0, stat(DEVINO_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666, st.st_mode & 07777);
}

/* 2004 sent IN_CLOSE at each close(2); fsnotify at the file's release. */
TEST_F(abi, in_close_comes_at_the_last_close_of_the_open_file)
{
	int wd = devino_watch(self->fd, "d/f", IN_CLOSE);
	int a, b;

	ASSERT_LE(0, wd);
	a = open("d/f", O_RDONLY);
	ASSERT_LE(0, a);
	b = dup(a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, close(a));
	EXPECT_NO_RECORDS(self->fd);
	ASSERT_EQ(0, close(b));
	EXPECT_RECORDS(self->fd, { wd, IN_CLOSE, "" });
}

TEST_F(abi, exec_is_in_open)
{
	int wd, status;
	pid_t pid;

	/* busybox, copied, runs "true" when called so */
	ASSERT_EQ(0, system("cp /bin/busybox d/true && chmod 755 d/true"));
	wd = devino_watch(self->fd, "d/true", IN_OPEN);
	ASSERT_LE(0, wd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		execl("d/true", "true", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_RECORDS(self->fd, { wd, IN_OPEN, "" });
}

TEST_F(abi, a_new_hard_link_is_in_attrib)
{
	int wd = devino_watch(self->fd, "d/f", IN_ATTRIB);

	ASSERT_LE(0, wd);
	ASSERT_EQ(0, link("d/f", "d/g"));
	EXPECT_RECORDS(self->fd, { wd, IN_ATTRIB, "" });
}

/* 2004 queued the file's record first; fsnotify reports the parent first. */
TEST_F(abi, the_directorys_open_record_comes_before_the_files)
{
	int dwd = devino_watch(self->fd, "d", IN_OPEN);
	int fwd = devino_watch(self->fd, "d/f", IN_OPEN);

	ASSERT_LE(0, dwd);
	ASSERT_LE(0, fwd);
	close(open("d/f", O_RDONLY));
	EXPECT_RECORDS(self->fd, { dwd, IN_OPEN, "f" }, { fwd, IN_OPEN, "" });
}

TEST_HARNESS_MAIN
