// SPDX-License-Identifier: GPL-2.0
/*
 * An fsx-style run: 10,000 random operations (fewer on the debug kernel)
 * on one file through the stacked mount (writes, truncates, shared mmap
 * writes, reads at random offsets, reopenings, dropped caches), each
 * read checked against an in-memory model of the file, and at the end
 * the lower file checked against the model's encoding.  The seed is
 * printed, and each run's is different.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fist_test.h"
#include "variant.h"

#define MAXLEN	(256 * 1024)
#define OPS	10000

FIST_FIXTURE(fsx)

static char model[MAXLEN], buf[MAXLEN];

/* The first byte where @a and @b differ, or -1. */
static long first_difference(const char *a, const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return -1;
}

TEST_F_TIMEOUT(fsx, random_operations_match_a_model, 600)
{
	unsigned int seed = time(NULL) ^ getpid();
	size_t size = 0, got_len;
	int fd, counts[6] = { 0 };
	/*
	 * The debug kernel runs fewer: 3,000 through a module (each of the
	 * six kinds of operation still comes about 500 times), and 400
	 * through FUSE, where each operation is a round trip to the daemon
	 * (about 65 of each kind; the FUSE daemon's code is the same on
	 * either kernel, and the std kernel runs 10,000).
	 */
	int ops = variant->fs->fuse ? rig_rounds(OPS, 400) :
		  rig_rounds(OPS, 3000);
	char *lower;

	fprintf(stderr, "# seed %u\n", seed);
	srandom(seed);
	fd = open(UPPER("fsx"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	for (int op = 0; op < ops; op++) {
		size_t off = random() % MAXLEN, len = 1 + random() % 16384;
		int kind = random() % 6;

		if (off + len > MAXLEN)
			len = MAXLEN - off;
		counts[kind]++;
		switch (kind) {
		case 0:		/* write */
			for (size_t i = 0; i < len; i++)
				buf[i] = 'A' + (op + i) % 58;
			ASSERT_EQ((ssize_t)len, pwrite(fd, buf, len, off))
				TH_LOG("op %d: pwrite(%zu, %zu)", op, off, len);
			/* A hole between the end and the write reads zeroes. */
			if (off > size)
				memset(model + size, 0, off - size);
			memcpy(model + off, buf, len);
			if (off + len > size)
				size = off + len;
			break;
		case 1:		/* truncate, to anywhere */
			ASSERT_EQ(0, ftruncate(fd, off)) TH_LOG("op %d", op);
			if (off > size)
				memset(model + size, 0, off - size);
			size = off;
			break;
		case 2: {	/* a write through a shared mapping */
			size_t end = off + len;
			char *map;

			if (end > size) {
				ASSERT_EQ(0, ftruncate(fd, end));
				memset(model + size, 0, end - size);
				size = end;
			}
			map = mmap(NULL, end, PROT_READ | PROT_WRITE, MAP_SHARED,
				   fd, 0);
			ASSERT_NE(MAP_FAILED, map) TH_LOG("op %d: %s", op, strerror(errno));
			for (size_t i = off; i < end; i++)
				map[i] = model[i] = 'a' + (op + i) % 26;
			if (random() % 2)
				ASSERT_EQ(0, msync(map, end, MS_SYNC));
			ASSERT_EQ(0, munmap(map, end));
			break;
		}
		case 3:		/* close and open again: flush, then the cache */
			ASSERT_EQ(0, close(fd)) TH_LOG("op %d", op);
			fd = open(UPPER("fsx"), O_RDWR);
			ASSERT_LE(0, fd);
			/*
			 * And half the time, drop the clean pages: a data
			 * filter's next reads decode them again, through
			 * readahead, several pages a lower read.
			 */
			if (random() % 2) {
				ASSERT_EQ(0, fsync(fd));
				ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
			}
			break;
		default: {	/* reads, at random offsets, past the end too */
			ssize_t want = off >= size ? 0 :
				       (ssize_t)(off + len > size ? size - off : len);
			long diff;

			ASSERT_EQ(want, pread(fd, buf, len, off))
				TH_LOG("op %d: pread(%zu, %zu), size %zu", op, off,
				       len, size);
			diff = first_difference(buf, model + off, want);
			ASSERT_EQ(-1, diff) TH_LOG("op %d: byte %ld", op, (long)off + diff);
			break;
		}
		}
	}
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, close(fd));
	fprintf(stderr, "# %d writes, %d truncates, %d mmap writes, %d reopens, %d reads\n",
		counts[0], counts[1], counts[2], counts[3], counts[4] + counts[5]);

	lower = fist_read_file(LOWER("fsx"), &got_len);
	ASSERT_NE(NULL, lower);
	ASSERT_EQ(size, got_len);
	fist_encode_data(variant->fs, model, size);
	EXPECT_EQ(-1, first_difference(lower, model, size));
	free(lower);
}

TEST_HARNESS_MAIN
