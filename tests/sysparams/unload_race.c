// SPDX-License-Identifier: GPL-2.0
/*
 * Readers of a parameter through both paths, and one that keeps the file
 * open, race the module's unload: every read returns the value or a clean
 * error (ENOENT before the load or after the unload, ENODEV on a file
 * opened before the unload), and each rmmod completes.  On the debug
 * kernel KASAN, lockdep and kmemleak watch the same run.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "sysparams.h"
#include "variant.h"

/* p_slow's get op sleeps 1 ms, so unloads meet reads in progress. */
#define PARAM	"p_slow"

static atomic_int stop;

struct reader {
	const char *path;
	int reads;	/* reads that returned the value */
	int refused;	/* clean errors: the module was not there */
	int wrong;	/* anything else */
	int last_err;
};

static void *read_loop(void *arg)
{
	struct reader *r = arg;
	char buf[32];
	int n;

	while (!atomic_load(&stop)) {
		n = sysfs_read(r->path, buf, sizeof(buf));
		if (n > 0 && !strcmp(buf, "1\n")) {
			r->reads++;
		} else if (n == -ENOENT || n == -ENODEV) {
			r->refused++;
		} else {
			r->wrong++;
			r->last_err = n;
		}
	}
	return NULL;
}

/* Opens the file once per load and reads it with pread until it goes. */
static void *hold_open(void *arg)
{
	struct reader *r = arg;
	char buf[32];
	ssize_t n;
	int fd;

	while (!atomic_load(&stop)) {
		fd = open(r->path, O_RDONLY);
		if (fd < 0) {
			if (errno == ENOENT)
				r->refused++;
			else
				r->wrong++, r->last_err = -errno;
			continue;
		}
		for (;;) {
			n = pread(fd, buf, sizeof(buf) - 1, 0);
			if (n < 0) {
				if (errno == ENODEV)
					r->refused++;
				else
					r->wrong++, r->last_err = -errno;
				break;
			}
			buf[n] = '\0';
			if (strcmp(buf, "1\n")) {
				r->wrong++;
				break;
			}
			r->reads++;
			if (atomic_load(&stop))
				break;
		}
		close(fd);
	}
	return NULL;
}

/* A fixture only to give the race more than the harness's default 30 s. */
FIXTURE(race) {
};

FIXTURE_SETUP(race)
{
}

FIXTURE_TEARDOWN(race)
{
}

TEST_F_TIMEOUT(race, reads_racing_unload_get_the_value_or_a_clean_error, 300)
{
	struct timespec t0, t1;
	struct reader r[3] = {
		{ .path = "/sys/parameters/" TEST_MOD "/" PARAM },
		{ .path = "/sys/module/" TEST_MOD "/parameters/" PARAM },
		{ .path = "/sys/parameters/" TEST_MOD "/" PARAM },
	};
	pthread_t t[3];
	/* 200 unloads; 60 on the debug kernel, where each is slower. */
	const int rounds = rig_rounds(200, 60);
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	atomic_store(&stop, 0);
	ASSERT_EQ(0, pthread_create(&t[0], NULL, read_loop, &r[0]));
	ASSERT_EQ(0, pthread_create(&t[1], NULL, read_loop, &r[1]));
	ASSERT_EQ(0, pthread_create(&t[2], NULL, hold_open, &r[2]));
	for (i = 0; i < rounds; i++) {
		ASSERT_EQ(0, load_module(TEST_KO, NULL))
			TH_LOG("round %d: %s", i, strerror(errno));
		usleep(2000);
		/* The readers hold no module reference: rmmod must not wait
		 * for them, only for the reads in progress.
		 */
		ASSERT_EQ(0, unload_module(TEST_MOD))
			TH_LOG("round %d: %s", i, strerror(errno));
	}
	atomic_store(&stop, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%d rounds in %.1f s", rounds,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, r[i].wrong)
			TH_LOG("%s: last error %s", r[i].path,
			       strerror(-r[i].last_err));
		/* Both outcomes happened, or the race was not run. */
		EXPECT_LT(0, r[i].reads) TH_LOG("%s never read", r[i].path);
		EXPECT_LT(0, r[i].refused) TH_LOG("%s never refused", r[i].path);
		TH_LOG("%s: %d reads, %d refused", r[i].path, r[i].reads,
		       r[i].refused);
	}
}

TEST_HARNESS_MAIN
