// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's sg3-utils beside tools/bsgcmd, on the same bsg node of a
 * scsi_debug disk and of QEMU's virtio-scsi disk: sg_inq and sg_readcap -l (which speak sg_io_v4 to a
 * bsg node) report the same vendor, product, revision, block count and
 * block size as bsgcmd's inquiry and readcap.
 */
#include <sys/prctl.h>
#include <sys/wait.h>
#include <signal.h>

#include "kselftest_harness.h"
#include "bsg_test.h"

/* Run argv[0] with argv, stdout and stderr together in out; its exit status. */
static int run(char *const argv[], char *out, size_t len)
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
		execv(argv[0], argv);
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

#define ARGV(...) ((char *const[]){ __VA_ARGS__, NULL })

/* What follows label in out, to the end of its line, trailing spaces cut. */
static int field(const char *out, const char *label, char *val, size_t len)
{
	const char *p = strstr(out, label);
	size_t n;

	if (!p)
		return -1;
	p += strlen(label);
	while (*p == ' ')
		p++;
	n = strcspn(p, "\n");
	while (n && p[n - 1] == ' ')
		n--;
	snprintf(val, len, "%.*s", (int)n, p);
	return 0;
}

FIXTURE(diff) {
	struct sdebug_disk d;
	char ours[4096], theirs[8192];
};

/* A scsi_debug disk, and the virtio-scsi disk QEMU emulates. */
FIXTURE_VARIANT(diff) {
	bool virtio;
};

FIXTURE_VARIANT_ADD(diff, scsi_debug) {
	.virtio = false,
};

FIXTURE_VARIANT_ADD(diff, virtio_scsi) {
	.virtio = true,
};

FIXTURE_SETUP(diff)
{
	if (variant->virtio) {
		ASSERT_EQ(0, virtio_disk_find(&self->d));
	} else {
		ASSERT_EQ(0, sdebug_disk_add(&self->d));
	}
}

FIXTURE_TEARDOWN(diff)
{
	if (!variant->virtio)
		EXPECT_EQ(0, sdebug_disk_remove(&self->d));
}

TEST_F(diff, sg_inq_and_bsgcmd_inquiry_agree)
{
	static const char *const pairs[][2] = {
		{ "vendor:", "Vendor identification:" },
		{ "product:", "Product identification:" },
		{ "revision:", "Product revision level:" },
	};
	char a[64], b[64];
	int i, nonempty = 0;

	ASSERT_EQ(0, run(ARGV("/bin/bsgcmd", self->d.bsg, "inquiry"),
			 self->ours, sizeof(self->ours)));
	ASSERT_EQ(0, run(ARGV("/usr/bin/sg_inq", self->d.bsg), self->theirs,
			 sizeof(self->theirs))) TH_LOG("%s", self->theirs);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, field(self->ours, pairs[i][0], a, sizeof(a)));
		ASSERT_EQ(0, field(self->theirs, pairs[i][1], b, sizeof(b)))
			TH_LOG("%s", self->theirs);
		EXPECT_STREQ(a, b);
		nonempty += a[0] != '\0';
	}
	/* both parsed something: both disks fill all three fields */
	EXPECT_EQ(3, nonempty);
}

TEST_F(diff, sg_readcap_and_bsgcmd_readcap_agree)
{
	unsigned long long blocks, their_blocks;
	unsigned int bsize, their_bsize;
	char v[64];

	ASSERT_EQ(0, run(ARGV("/bin/bsgcmd", self->d.bsg, "readcap"),
			 self->ours, sizeof(self->ours)));
	ASSERT_EQ(0, run(ARGV("/usr/bin/sg_readcap", "-l", self->d.bsg),
			 self->theirs, sizeof(self->theirs))) TH_LOG("%s", self->theirs);
	ASSERT_EQ(0, field(self->ours, "blocks:", v, sizeof(v)));
	blocks = strtoull(v, NULL, 10);
	ASSERT_EQ(0, field(self->ours, "block size:", v, sizeof(v)));
	bsize = strtoul(v, NULL, 10);
	ASSERT_EQ(0, field(self->theirs, "Number of logical blocks=", v, sizeof(v)))
		TH_LOG("%s", self->theirs);
	their_blocks = strtoull(v, NULL, 10);
	ASSERT_EQ(0, field(self->theirs, "Logical block length=", v, sizeof(v)));
	their_bsize = strtoul(v, NULL, 10);
	EXPECT_EQ(their_blocks, blocks);
	EXPECT_EQ(their_bsize, bsize);
	EXPECT_LT(0, blocks);
}

TEST_HARNESS_MAIN
