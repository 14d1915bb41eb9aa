// SPDX-License-Identifier: GPL-2.0
/*
 * tools/bsgcmd as a person runs it (/bin/bsgcmd in the guest), on a
 * scsi_debug disk: what inquiry, readcap, tur, write and read print, the
 * decoded sense of a CHECK CONDITION (exit 3), and clear errors for a node
 * that is not bsg, a missing device, a bad command line and a missing
 * permission.
 */
#include <sys/prctl.h>
#include <sys/wait.h>
#include <signal.h>

#include "kselftest_harness.h"
#include "unpriv.h"
#include "bsg_test.h"

#define TOOL "/bin/bsgcmd"

/* Run TOOL with argv, stdout and stderr together in out; its exit status. */
static int run_tool(char *const argv[], char *out, size_t len)
{
	int pipefd[2], status;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(TOOL, argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (got < len - 1 && (r = read(pipefd[0], out + got, len - 1 - got)) > 0)
		got += r;
	out[got] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#define TOOL_ARGV(...) ((char *const[]){ TOOL, __VA_ARGS__, NULL })

FIXTURE(tool) {
	struct sdebug_disk d;
	char out[8192];
};

FIXTURE_SETUP(tool)
{
	ASSERT_EQ(0, sdebug_disk_add(&self->d));
}

FIXTURE_TEARDOWN(tool)
{
	EXPECT_EQ(0, sdebug_disk_remove(&self->d));
	unlink("blocks");
}

TEST_F(tool, inquiry_readcap_and_tur_print_the_device)
{
	char mb[16], want[64];

	ASSERT_EQ(0, run_tool(TOOL_ARGV(self->d.bsg, "inquiry"), self->out,
			      sizeof(self->out))) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "vendor: Linux\n"));
	EXPECT_NE(NULL, strstr(self->out, "product: scsi_debug\n"));
	EXPECT_NE(NULL, strstr(self->out, "device type: 0x0 disk\n"));
	ASSERT_EQ(0, run_tool(TOOL_ARGV(self->d.bsg, "readcap"), self->out,
			      sizeof(self->out))) TH_LOG("%s", self->out);
	ASSERT_LT(0, sysfs_read(SDEBUG "dev_size_mb", mb, sizeof(mb)));
	snprintf(want, sizeof(want), "blocks: %d\nblock size: 512\nbytes: %d\n",
		 atoi(mb) * 2048, atoi(mb) << 20);
	EXPECT_STREQ(want, self->out);
	ASSERT_EQ(0, run_tool(TOOL_ARGV(self->d.bsg, "tur"), self->out,
			      sizeof(self->out)));
	EXPECT_STREQ("ready\n", self->out);
}

TEST_F(tool, write_then_read_gives_the_file_back_as_hex)
{
	unsigned char data[1024];
	char line[128];
	int fd, i;

	for (i = 0; i < 1024; i++)
		data[i] = i * 7 + 3;
	fd = open("blocks", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1024, write(fd, data, sizeof(data)));
	close(fd);
	ASSERT_EQ(0, run_tool(TOOL_ARGV(self->d.bsg, "write", "300", "2", "blocks"),
			      self->out, sizeof(self->out))) TH_LOG("%s", self->out);
	EXPECT_STREQ("wrote 1024 bytes at LBA 300\n", self->out);
	ASSERT_EQ(0, run_tool(TOOL_ARGV(self->d.bsg, "read", "300", "2"),
			      self->out, sizeof(self->out))) TH_LOG("%s", self->out);
	/* 64 lines of 16 bytes: check the first and the last */
	snprintf(line, sizeof(line), "00000000: %02x %02x %02x", data[0], data[1], data[2]);
	EXPECT_EQ(0, strncmp(self->out, line, strlen(line)));
	snprintf(line, sizeof(line), "000003f0: %02x", data[0x3f0]);
	EXPECT_NE(NULL, strstr(self->out, line));
	EXPECT_EQ(64 * (10 + 16 * 3), (int)strlen(self->out));
}

TEST_F(tool, a_check_condition_is_exit_3_with_the_sense_decoded)
{
	char mb[16], lba[32];

	ASSERT_LT(0, sysfs_read(SDEBUG "dev_size_mb", mb, sizeof(mb)));
	snprintf(lba, sizeof(lba), "%d", atoi(mb) * 2048);
	EXPECT_EQ(3, run_tool(TOOL_ARGV(self->d.bsg, "read", lba, "1"),
			      self->out, sizeof(self->out)));
	EXPECT_NE(NULL, strstr(self->out, "status: device 0x2 CHECK CONDITION,"));
	EXPECT_NE(NULL, strstr(self->out, "sense key: 0x5 ILLEGAL REQUEST\n"));
	EXPECT_NE(NULL, strstr(self->out,
			       "asc/ascq: 0x21/0x00 logical block address out of range\n"))
		TH_LOG("%s", self->out);
}

/* The same, from a device that answers in descriptor format (dsense=1). */
TEST_F(tool, descriptor_sense_is_decoded_too)
{
	char mb[16], lba[32], old[16];
	int ret;

	ASSERT_LT(0, sysfs_read(SDEBUG "dev_size_mb", mb, sizeof(mb)));
	ASSERT_LT(0, sysfs_read(SDEBUG "dsense", old, sizeof(old)));
	snprintf(lba, sizeof(lba), "%d", atoi(mb) * 2048);
	ASSERT_EQ(0, sysfs_write(SDEBUG "dsense", "1"));
	ret = run_tool(TOOL_ARGV(self->d.bsg, "read", lba, "1"), self->out,
		       sizeof(self->out));
	old[strcspn(old, "\n")] = '\0';
	ASSERT_EQ(0, sysfs_write(SDEBUG "dsense", old));
	EXPECT_EQ(3, ret);
	EXPECT_NE(NULL, strstr(self->out, "sense key: 0x5 ILLEGAL REQUEST\n"));
	EXPECT_NE(NULL, strstr(self->out,
			       "asc/ascq: 0x21/0x00 logical block address out of range\n"))
		TH_LOG("%s", self->out);
}

TEST_F(tool, bad_nodes_and_command_lines_are_clear_errors)
{
	EXPECT_EQ(1, run_tool(TOOL_ARGV("/dev/null", "inquiry"), self->out,
			      sizeof(self->out)));
	EXPECT_STREQ("bsgcmd: /dev/null: not a bsg node (want /dev/bsg/H:C:T:L)\n",
		     self->out);
	EXPECT_EQ(1, run_tool(TOOL_ARGV("/dev/bsg/99:0:0:0", "inquiry"), self->out,
			      sizeof(self->out)));
	EXPECT_STREQ("bsgcmd: /dev/bsg/99:0:0:0: stat: No such file or directory\n",
		     self->out);
	EXPECT_EQ(2, run_tool(TOOL_ARGV(self->d.bsg, "format"), self->out,
			      sizeof(self->out)));
	EXPECT_EQ(0, strncmp(self->out, "bsgcmd: unknown command\n", 24));
	EXPECT_EQ(2, run_tool(TOOL_ARGV(self->d.bsg, "read", "x", "1"), self->out,
			      sizeof(self->out)));
	EXPECT_STREQ("bsgcmd: x: LBA is not a number from 0 to 4294967295\n",
		     self->out);
	EXPECT_EQ(2, run_tool(TOOL_ARGV(self->d.bsg, "read", "0", "0"), self->out,
			      sizeof(self->out)));
	EXPECT_EQ(0, run_tool(TOOL_ARGV("--help"), self->out, sizeof(self->out)));
	EXPECT_EQ(0, strncmp(self->out, "usage: bsgcmd DEVICE COMMAND", 28));
}

static char *node;

/* 0 if the tool, run as the user, said the node is not theirs to open */
static int refused_as_user(void *arg)
{
	char out[512], want[128];

	snprintf(want, sizeof(want), "bsgcmd: %s: open: Permission denied\n", node);
	if (run_tool(TOOL_ARGV(node, "inquiry"), out, sizeof(out)) != 1)
		return 10;
	return strcmp(out, want) ? 11 : 0;
}

TEST_F(tool, a_user_without_permission_is_told_so)
{
	node = self->d.bsg;
	EXPECT_EQ(0, run_unprivileged(refused_as_user, NULL));
}

TEST_HARNESS_MAIN
