// SPDX-License-Identifier: GPL-2.0
/*
 * The rig's cluster, seen from node 1 of 3: the shared directory, commands
 * on the other nodes (tests/lib/cluster.h), the network between them, and
 * the host's controls (kill a node, boot it again).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "kselftest_harness.h"

/* A command on a running node; one on a node booting again (debug, TCG). */
#define RUN_MS		30000
#define BOOT_MS		60000

/* A shell command on node 1, its output dropped: its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " >/dev/null 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

static int read_file(const char *path, char *buf, size_t len)
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

TEST(this_is_node_1_of_3)
{
	EXPECT_EQ(1, cluster_self());
	EXPECT_EQ(3, cluster_size());
}

/*
 * statfs() on 9p gives the host file system's type: ask the mount table.
 * No cache (none shows no cache=), permissions checked here with ACLs.
 */
TEST(shared_directory_is_9p_on_cluster)
{
	char mounts[8192] = "", *line;

	ASSERT_EQ(0, read_file("/proc/mounts", mounts, sizeof(mounts)));
	line = strstr(mounts, "cluster /cluster 9p ");
	ASSERT_NE(NULL, line) TH_LOG("/proc/mounts:\n%s", mounts);
	line[strcspn(line, "\n")] = '\0';
	EXPECT_EQ(NULL, strstr(line, ",cache=")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, ",access=client")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, ",posixacl")) TH_LOG("%s", line);
}

TEST(file_from_node_1_is_read_on_nodes_2_and_3)
{
	char path[64], text[64], out[128];
	int n;

	snprintf(path, sizeof(path), "/cluster/from-1.%d", getpid());
	snprintf(text, sizeof(text), "written on node 1 by pid %d\n", getpid());
	ASSERT_EQ(0, write_file(path, text, 0644));
	for (n = 2; n <= 3; n++) {
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "cat %s", path);
		EXPECT_EQ(0, cluster_run(n, cmd, RUN_MS, out, sizeof(out)))
			TH_LOG("node %d: %s", n, out);
		EXPECT_STREQ(text, out) TH_LOG("node %d read it back", n);
	}
	unlink(path);
}

TEST(file_from_node_2_is_read_on_node_1)
{
	char path[64], cmd[128], buf[64] = "", out[128];

	snprintf(path, sizeof(path), "/cluster/from-2.%d", getpid());
	snprintf(cmd, sizeof(cmd), "echo written on node 2 >%s", path);
	ASSERT_EQ(0, cluster_run(2, cmd, RUN_MS, out, sizeof(out)))
		TH_LOG("node 2: %s", out);
	ASSERT_EQ(0, read_file(path, buf, sizeof(buf)));
	EXPECT_STREQ("written on node 2\n", buf);
	unlink(path);
}

/*
 * Each command waits for the other's mark: run one after the other, the
 * first would wait in vain (and give up after 20 s, with status 1).
 */
TEST(commands_on_nodes_2_and_3_run_concurrently)
{
	char dir[64], cmd[256], out[128];
	int id[4], n;

	snprintf(dir, sizeof(dir), "/cluster/both.%d", getpid());
	ASSERT_EQ(0, mkdir(dir, 0755));
	for (n = 2; n <= 3; n++) {
		snprintf(cmd, sizeof(cmd),
			 "touch %s/%d; i=0; while [ ! -e %s/%d ]; do "
			 "i=$((i + 1)); [ $i -lt 400 ] || exit 1; sleep 0.05; done",
			 dir, n, dir, 5 - n);
		id[n] = cluster_start(n, cmd);
		ASSERT_LE(0, id[n]) TH_LOG("cluster_start(%d): %s", n, strerror(errno));
	}
	for (n = 2; n <= 3; n++)
		EXPECT_EQ(0, cluster_wait(n, id[n], RUN_MS, out, sizeof(out)))
			TH_LOG("node %d: %s", n, out);
	sh("rm -rf %s", dir);
}

TEST(nodes_reach_each_other_on_the_network)
{
	char out[512];

	EXPECT_EQ(0, sh("ping -c1 -W2 10.0.0.2"));
	EXPECT_EQ(0, sh("ping -c1 -W2 10.0.0.3"));
	EXPECT_EQ(0, cluster_run(2, "ping -c1 -W2 10.0.0.3", RUN_MS, out, sizeof(out)))
		TH_LOG("node 2: %s", out);
}

/* Owners, modes and the ordinary user's permission checks, across nodes. */
TEST(shared_directory_keeps_owners_and_checks_permissions)
{
	char dir[64], cmd[256], out[256];
	struct stat st;

	snprintf(dir, sizeof(dir), "/cluster/users.%d", getpid());
	ASSERT_EQ(0, mkdir(dir, 0755));
	ASSERT_EQ(0, chmod(dir, 01777));
	snprintf(cmd, sizeof(cmd), "asuser touch %s/user-file && asuser id -u", dir);
	ASSERT_EQ(0, cluster_run(2, cmd, RUN_MS, out, sizeof(out))) TH_LOG("node 2: %s", out);
	EXPECT_STREQ("1000\n", out);
	snprintf(cmd, sizeof(cmd), "%s/user-file", dir);
	ASSERT_EQ(0, stat(cmd, &st));
	EXPECT_EQ(1000, st.st_uid);
	EXPECT_EQ(1000, st.st_gid);

	/* Root's 0644 file, made on node 1: uid 1000 on node 3 may read it only. */
	snprintf(cmd, sizeof(cmd), "%s/root-file", dir);
	ASSERT_EQ(0, write_file(cmd, "root's\n", 0644));
	snprintf(cmd, sizeof(cmd), "asuser cat %s/root-file", dir);
	EXPECT_EQ(0, cluster_run(3, cmd, RUN_MS, out, sizeof(out))) TH_LOG("node 3: %s", out);
	snprintf(cmd, sizeof(cmd), "asuser sh -c 'echo x >>%s/root-file'", dir);
	EXPECT_NE(0, cluster_run(3, cmd, RUN_MS, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "ermission denied")) TH_LOG("node 3: %s", out);
	/* Nor give it away, nor take root's: chown is root's. */
	snprintf(cmd, sizeof(cmd), "asuser chown 1000 %s/root-file", dir);
	EXPECT_NE(0, cluster_run(3, cmd, RUN_MS, out, sizeof(out)));
	snprintf(cmd, sizeof(cmd), "asuser chmod 0666 %s/root-file", dir);
	EXPECT_NE(0, cluster_run(3, cmd, RUN_MS, out, sizeof(out)));
	snprintf(cmd, sizeof(cmd), "chown 1000:1000 %s/root-file && chmod 0600 %s/root-file",
		 dir, dir);
	EXPECT_EQ(0, cluster_run(3, cmd, RUN_MS, out, sizeof(out))) TH_LOG("node 3: %s", out);
	snprintf(cmd, sizeof(cmd), "%s/root-file", dir);
	ASSERT_EQ(0, stat(cmd, &st));
	EXPECT_EQ(1000, st.st_uid);
	EXPECT_EQ(0100600, st.st_mode);
	/* Sticky directory: uid 1000 may not remove root's file in it. */
	ASSERT_EQ(0, write_file(cmd, "", 0644));
	ASSERT_EQ(0, chown(cmd, 0, 0));
	snprintf(cmd, sizeof(cmd), "asuser rm -f %s/root-file", dir);
	EXPECT_NE(0, cluster_run(2, cmd, RUN_MS, out, sizeof(out)));
	sh("rm -rf %s", dir);
}

TEST(node_1_may_not_be_killed)
{
	EXPECT_EQ(-1, cluster_ctl("kill 1"));
}

TEST(a_running_node_may_not_be_started)
{
	EXPECT_EQ(-1, cluster_ctl("start 2"));
}

TEST(killed_node_is_gone_until_started_again)
{
	char out[128];

	ASSERT_EQ(0, cluster_ctl("kill 3"));
	EXPECT_NE(0, sh("ping -c1 -W2 10.0.0.3"));
	EXPECT_EQ(-1, cluster_ctl("kill 3"));
	/* start N takes ssi.NAME=VALUE words after it, nothing else. */
	EXPECT_EQ(-1, cluster_ctl("start 3 quiet"));
	EXPECT_EQ(-1, cluster_ctl("start 3 ssi.max_jobs"));
	EXPECT_EQ(-1, cluster_ctl("kill 3 ssi.max_jobs=5"));
	/* TIPC's default tolerance: the later tests cannot tell. */
	ASSERT_EQ(0, cluster_ctl("start 3 ssi.tolerance=1500"));
	/* Its agent runs again once it has booted, with them. */
	EXPECT_EQ(0, cluster_run(3, "echo back on node $(cat /proc/cmdline | "
				    "sed 's/.*rig.node=\\([0-9]*\\).*/\\1/')"
				    " $(cat /sys/module/ssi/parameters/tolerance)",
				 BOOT_MS, out, sizeof(out)));
	EXPECT_STREQ("back on node 3 1500\n", out);
	EXPECT_EQ(0, sh("ping -c1 -W2 10.0.0.3"));
}

TEST_HARNESS_MAIN
