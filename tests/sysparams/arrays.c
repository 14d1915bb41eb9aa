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

/* SUnreclaim in kB after shrinking every cache: 0, or -errno. */
static int slab_kb(long *kb)
{
	int err = shrink_slabs();

	if (err)
		return err;
	*kb = meminfo_kb("SUnreclaim:");
	return *kb > 0 ? 0 : -ENODATA;
}

/*
 * Write @val @n times, each write expected to give @want (0 or -errno),
 * and say in @grew how much SUnreclaim grew meanwhile (kB).  0 or -errno.
 */
static int growth_over_writes(const char *path, const char *val, long n,
			      int want, long *grew)
{
	long before = 0, after = 0, i;
	int ret;

	ret = sysfs_write(path, val);
	if (ret != want)
		return ret ?: -EPROTO;
	ret = slab_kb(&before);
	for (i = 0; i < n && !ret; i++) {
		ret = sysfs_write(path, val);
		if (ret == want)
			ret = 0;
		else if (!ret)
			ret = -EPROTO;
	}
	if (!ret)
		ret = slab_kb(&after);
	*grew = after - before;
	return ret;
}

/* A fixture to unload the module whatever happens, and for a longer timeout. */
FIXTURE(writes) {
};

FIXTURE_SETUP(writes)
{
	ASSERT_EQ(0, load_module(TEST_KO, NULL));
}

FIXTURE_TEARDOWN_PARENT(writes)
{
	unload_module(TEST_MOD);
}

#define ACCEPTED	2730	/* 8 MB left behind if none were freed */
#define REFUSED		1000	/* 3 MB: each refusal prints a line */

/*
 * The strings of a charp array live in kmalloced_params, so kmemleak
 * cannot see one that a write forgot to free.  The slab can: each accepted
 * write of three 1000-byte strings replaces three, and each write refused
 * after three strings were copied (four strings for three elements) must
 * free the three copies.  A leak of even one string a write is 1 kB a
 * write; the slab may grow by half of that.
 */
TEST_F_TIMEOUT(writes, charp_array_writes_free_the_strings_they_replace, 120)
{
	char path[128], val[3 * (NAME_LEN + 1)], too_many[sizeof(val) + 2];
	long grew;
	int i, ret;

	for (i = 0; i < 3; i++) {
		memset(val + i * (NAME_LEN + 1), 'a' + i, NAME_LEN);
		val[i * (NAME_LEN + 1) + NAME_LEN] = i < 2 ? ',' : '\0';
	}
	snprintf(too_many, sizeof(too_many), "%s,d", val);
	module_path(path, sizeof(path), TEST_MOD, "p_names");

	ret = growth_over_writes(path, val, ACCEPTED, 0, &grew);
	ASSERT_EQ(0, ret) TH_LOG("accepted writes: %s", strerror(-ret));
	TH_LOG("%d accepted writes: SUnreclaim grew %ld kB", ACCEPTED, grew);
	EXPECT_LT(grew, ACCEPTED / 2);

	ret = growth_over_writes(path, too_many, REFUSED, -EINVAL, &grew);
	ASSERT_EQ(0, ret) TH_LOG("refused writes: %s", strerror(-ret));
	TH_LOG("%d refused writes: SUnreclaim grew %ld kB", REFUSED, grew);
	EXPECT_LT(grew, REFUSED / 2);
}

TEST_HARNESS_MAIN
