// SPDX-License-Identifier: GPL-2.0
/*
 * Array parameters past what param_types.c and param_errors.c check: a
 * built-in array set on the kernel command line, which patch 0001 parses
 * in place because the slab allocator is not up yet (the group's cmdline
 * has ch.dt_id=1,2,3; config/sysparams.config builds the SCSI changer
 * driver in for it), and charp arrays, whose replaced strings must be
 * freed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "sysparams.h"

/* ch.c: int dt_id[16], -1 where unset, no count: all 16 are shown. */
#define DT_ID_SET "1,2,3,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1\n"

TEST(a_builtin_array_from_the_command_line_reads_back)
{
	char buf[128];

	ASSERT_LT(0, sysfs_read("/sys/module/ch/parameters/dt_id", buf,
				sizeof(buf)));
	EXPECT_STREQ(DT_ID_SET, buf);
	ASSERT_LT(0, sysfs_read("/sys/parameters/ch/dt_id", buf, sizeof(buf)));
	EXPECT_STREQ(DT_ID_SET, buf);
}

/* A /proc/meminfo figure in kB, or -1. */
static long meminfo_kb(const char *name)
{
	char line[128];
	size_t len = strlen(name);
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && sscanf(line + len, "%ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* charp takes up to 1024 bytes: each copy is a kmalloc-1k object */
#define NAME_LEN	1000
#define WRITE_KB	3	/* three of them per write */

/*
 * Free what KASAN's quarantine holds back: writing to a cache's shrink
 * attribute empties its share of the quarantine (the debug kernel; the
 * std kernel's SLUB_TINY has no /sys/kernel/slab and no quarantine).
 */
static int shrink_slabs(void)
{
	char path[300];
	struct dirent *d;
	DIR *dir = opendir("/sys/kernel/slab");
	int err = 0;

	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 d->d_name);
		/* an alias links to its cache: shrunk twice, no harm */
		err = sysfs_write(path, "1");
	}
	closedir(dir);
	return err;
}

/*
 * The strings of a charp array live in kmalloced_params, so kmemleak
 * cannot see one that a write forgot to free.  The slab can: 2,730
 * writes of three 1000-byte strings would leave 8 MB behind, as would as
 * many writes refused after three strings were copied (four strings for
 * three elements).
 */
/* A fixture only to give the loop more than the harness's default 30 s. */
FIXTURE(writes) {
};

FIXTURE_SETUP(writes)
{
}

FIXTURE_TEARDOWN(writes)
{
}

TEST_F_TIMEOUT(writes, charp_array_writes_free_the_strings_they_replace, 120)
{
	char path[128], *val, too_many[3 * (NAME_LEN + 1) + 2];
	long before, after, writes = 8192 / WRITE_KB, i;
	int ret;

	val = malloc(3 * (NAME_LEN + 1));
	ASSERT_NE(NULL, val);
	for (i = 0; i < 3; i++) {
		memset(val + i * (NAME_LEN + 1), 'a' + i, NAME_LEN);
		val[i * (NAME_LEN + 1) + NAME_LEN] = i < 2 ? ',' : '\0';
	}
	snprintf(too_many, sizeof(too_many), "%s,d", val);
	module_path(path, sizeof(path), TEST_MOD, "p_names");
	ASSERT_EQ(0, load_module(TEST_KO, NULL));
	ret = sysfs_write(path, val) ?: shrink_slabs();
	before = meminfo_kb("SUnreclaim:");
	for (i = 0; i < writes && !ret; i++) {
		ret = sysfs_write(path, val);
		/* four strings for three elements: refused, after three copies */
		if (!ret && sysfs_write(path, too_many) != -EINVAL)
			ret = -EPROTO;
	}
	if (!ret)
		ret = shrink_slabs();
	after = meminfo_kb("SUnreclaim:");
	/* unloaded before anything can end the test */
	EXPECT_EQ(0, unload_module(TEST_MOD));
	free(val);
	ASSERT_EQ(0, ret) TH_LOG("write %ld: %s", i, strerror(-ret));
	ASSERT_LT(0, before);
	TH_LOG("%ld writes: SUnreclaim %ld kB -> %ld kB, a leak would add %ld kB",
	       writes, before, after, writes * WRITE_KB);
	EXPECT_LT(after - before, writes * WRITE_KB / 2);
}

TEST_HARNESS_MAIN
