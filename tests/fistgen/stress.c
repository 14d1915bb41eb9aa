// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency through the stacked mount: writers rewriting files whole,
 * readers checking that each read is whole and holds writers' bytes only, a renamer
 * moving files between two directories (same-directory, cross-directory,
 * RENAME_EXCHANGE), and a lister walking both, all at once.  On the debug
 * kernel the rig fails the run on any KASAN, lockdep or kmemleak report.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fist_test.h"
#include "variant.h"

#define FILES 8
#define FILE_SIZE 10000

FIST_FIXTURE(stress)

static void path_of(char *out, const char *mnt, int dir, int i)
{
	sprintf(out, "%s/d%d/f%d", mnt, dir, i);
}

/* Rewrites the files, each write all one byte. */
static int writer(const char *mnt, int id, int rounds)
{
	static char buf[FILE_SIZE];
	char path[256];

	for (int r = 0; r < rounds; r++) {
		int i = random() % FILES, fd;

		memset(buf, 'a' + (id * 7 + r) % 26, sizeof(buf));
		path_of(path, mnt, random() % 2, i);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;	/* renamed away meanwhile */
		if (pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf))
			return 1;
		close(fd);
	}
	return 0;
}

/* Reads the files: whole, and nothing but what writers wrote. */
static int reader(const char *mnt, int rounds)
{
	static char buf[FILE_SIZE];
	char path[256];

	for (int r = 0; r < rounds; r++) {
		ssize_t n;
		int fd;

		path_of(path, mnt, random() % 2, random() % FILES);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = pread(fd, buf, sizeof(buf), 0);
		close(fd);
		if (n != sizeof(buf))
			return 2;
		/* Writes may interleave with the read, but only their bytes. */
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] < 'a' || buf[i] > 'z')
				return 4;
	}
	return 0;
}

static int renamer(const char *mnt, int rounds)
{
	char a[256], b[256];

	for (int r = 0; r < rounds; r++) {
		int i = random() % FILES, j = random() % FILES;
		int da = random() % 2, db = random() % 2;

		path_of(a, mnt, da, i);
		path_of(b, mnt, db, j);
		if (r % 3 == 0)
			syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
				RENAME_EXCHANGE);
		else
			syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
				RENAME_NOREPLACE);
	}
	return 0;
}

static int lister(const char *mnt, int rounds)
{
	char path[256];

	for (int r = 0; r < rounds; r++) {
		struct dirent *d;
		DIR *dir;

		sprintf(path, "%s/d%d", mnt, r % 2);
		dir = opendir(path);
		if (!dir)
			return 3;
		while ((d = readdir(dir)))
			;
		closedir(dir);
	}
	return 0;
}

TEST_F_TIMEOUT(stress, readers_writers_renames_and_listings_at_once, 600)
{
	/* Through FUSE each operation is a round trip to the daemon. */
	int rounds = variant->fs->fuse ? rig_rounds(200, 40) : rig_rounds(400, 100);
	int status, files = 0;
	char path[256], name[32];
	pid_t pids[6];

	for (int d = 0; d < 2; d++) {
		sprintf(name, "d%d", d);
		ASSERT_EQ(0, mkdir(UPPER(name), 0755));
	}
	for (int i = 0; i < FILES; i++) {
		static char buf[FILE_SIZE];

		memset(buf, 'z', sizeof(buf));
		path_of(path, self->mnt, 0, i);
		ASSERT_EQ(0, fist_write_file(path, buf, sizeof(buf)));
	}
	for (int p = 0; p < 6; p++) {
		pids[p] = fork();
		ASSERT_LE(0, pids[p]);
		if (pids[p] == 0) {
			srandom(getpid());
			switch (p) {
			case 0:
			case 1:
				_exit(writer(self->mnt, p, rounds));
			case 2:
			case 3:
				_exit(reader(self->mnt, rounds));
			case 4:
				_exit(renamer(self->mnt, rounds * 4));
			default:
				_exit(lister(self->mnt, rounds));
			}
		}
	}
	for (int p = 0; p < 6; p++) {
		ASSERT_EQ(pids[p], waitpid(pids[p], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("child %d: status %#x", p, status);
	}
	/* Renames lose no file: FILES of them, above and below. */
	for (int d = 0; d < 2; d++) {
		for (int i = 0; i < FILES; i++) {
			path_of(path, self->mnt, d, i);
			files += access(path, F_OK) == 0;
		}
	}
	EXPECT_EQ(FILES, files);
	files = 0;
	for (int d = 0; d < 2; d++) {
		for (int i = 0; i < FILES; i++) {
			snprintf(name, sizeof(name), "d%d/f%d", d, i);
			files += access(LOWER(name), F_OK) == 0;
		}
	}
	EXPECT_EQ(FILES, files);
}

TEST_HARNESS_MAIN
