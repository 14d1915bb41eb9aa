// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/parameters lists exactly the modules that have a parameters
 * directory in /sys/module, each as a link to it, with the same files,
 * modes and contents; /sys/module itself is unchanged.  Parameters given
 * on the kernel command line and at load time show through both.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "sysparams.h"

/* Calls fn(name, arg) for each entry of dir but . and ..; -errno or 0. */
static int for_each_entry(const char *dir, int (*fn)(const char *, void *),
			  void *arg)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			ret = fn(de->d_name, arg);
	}
	closedir(d);
	return ret;
}

struct walk {
	struct __test_metadata *_metadata;
	const char *mod;	/* the module whose files are compared */
	int entries;		/* how many entries were checked */
};

/* The same file through both paths: one inode's mode, the same read. */
static int same_file(const char *param, void *arg)
{
	struct walk *w = arg;
	struct __test_metadata *_metadata = w->_metadata;
	char tree[PATH_MAX], module[PATH_MAX];
	char a[4096], b[4096];
	struct stat st_t, st_m;
	int ra, rb;

	tree_path(tree, sizeof(tree), w->mod, param);
	module_path(module, sizeof(module), w->mod, param);
	EXPECT_EQ(0, lstat(tree, &st_t)) TH_LOG("%s: %s", tree, strerror(errno));
	EXPECT_EQ(0, lstat(module, &st_m));
	EXPECT_TRUE(S_ISREG(st_m.st_mode)) TH_LOG("%s is not a file", module);
	EXPECT_EQ(st_m.st_mode, st_t.st_mode) TH_LOG("%s", tree);
	ra = sysfs_read(tree, a, sizeof(a));
	rb = sysfs_read(module, b, sizeof(b));
	EXPECT_EQ(rb, ra) TH_LOG("%s", tree);
	if (ra > 0 && rb > 0)
		EXPECT_STREQ(b, a) TH_LOG("%s", tree);
	w->entries++;
	return 0;
}

/* /sys/module/<mod> with parameters has the link, and the files match. */
static int module_entry(const char *mod, void *arg)
{
	struct walk *w = arg;
	struct __test_metadata *_metadata = w->_metadata;
	char dir[PATH_MAX], link[PATH_MAX], target[PATH_MAX], want[PATH_MAX];
	struct walk files = { ._metadata = _metadata, .mod = mod };
	struct stat st;
	ssize_t n;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", mod);
	snprintf(link, sizeof(link), "/sys/parameters/%s", mod);
	if (lstat(dir, &st)) {
		/* No visible parameter: no entry, and no dangling link. */
		EXPECT_EQ(ENOENT, errno);
		EXPECT_EQ(-1, lstat(link, &st)) TH_LOG("%s without %s", link, dir);
		return 0;
	}
	EXPECT_TRUE(S_ISDIR(st.st_mode)) TH_LOG("%s is not a directory", dir);
	n = readlink(link, target, sizeof(target) - 1);
	EXPECT_LT(0, n) TH_LOG("%s: %s", link, strerror(errno));
	if (n <= 0)
		return 0;
	target[n] = '\0';
	snprintf(want, sizeof(want), "../module/%s/parameters", mod);
	EXPECT_STREQ(want, target);
	EXPECT_EQ(0, for_each_entry(dir, same_file, &files));
	EXPECT_LT(0, files.entries) TH_LOG("%s is empty", dir);
	w->entries++;
	return 0;
}

/* Every /sys/parameters entry is a link to an existing parameters dir. */
static int tree_entry(const char *mod, void *arg)
{
	struct walk *w = arg;
	struct __test_metadata *_metadata = w->_metadata;
	char link[PATH_MAX], dir[PATH_MAX];
	struct stat st;

	snprintf(link, sizeof(link), "/sys/parameters/%s", mod);
	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", mod);
	EXPECT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode)) TH_LOG("%s is not a link", link);
	EXPECT_EQ(0, stat(dir, &st)) TH_LOG("%s has no %s", link, dir);
	w->entries++;
	return 0;
}

/* Both trees, whole, with sysparams_test and sysparams_none loaded. */
TEST(both_trees_list_the_same_modules_and_files)
{
	struct walk by_module = { ._metadata = _metadata };
	struct walk by_tree = { ._metadata = _metadata };

	ASSERT_EQ(0, load_module(TEST_KO, NULL));
	ASSERT_EQ(0, load_module(NONE_KO, NULL));
	ASSERT_EQ(0, access("/sys/module/" NONE_MOD, F_OK));
	ASSERT_EQ(0, for_each_entry("/sys/module", module_entry, &by_module));
	ASSERT_EQ(0, for_each_entry("/sys/parameters", tree_entry, &by_tree));
	EXPECT_EQ(by_module.entries, by_tree.entries);
	/* printk, kernel, the test module and more: not a vacuous compare */
	EXPECT_LE(3, by_tree.entries);
	TH_LOG("%d modules with parameters", by_tree.entries);
	EXPECT_EQ(0, unload_module(NONE_MOD));
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

TEST(module_without_visible_parameters_has_no_entry)
{
	struct stat st;

	ASSERT_EQ(0, load_module(NONE_KO, NULL));
	EXPECT_EQ(0, stat("/sys/module/" NONE_MOD, &st));
	EXPECT_EQ(-1, lstat("/sys/module/" NONE_MOD "/parameters", &st));
	EXPECT_EQ(-1, lstat("/sys/parameters/" NONE_MOD, &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, unload_module(NONE_MOD));
}

static int found_p_int;

static int find_p_int(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	if (type == FTW_F && !strcmp(path + ftw->base, "p_int"))
		found_p_int++;
	return 0;
}

/* What find /sys/module -name p_int does: no symbolic link followed. */
TEST(walking_sys_module_without_following_links_finds_parameters)
{
	ASSERT_EQ(0, load_module(TEST_KO, NULL));
	found_p_int = 0;
	EXPECT_EQ(0, nftw("/sys/module/" TEST_MOD, find_p_int, 8, FTW_PHYS));
	EXPECT_EQ(1, found_p_int);
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

/* The value of name= on the kernel command line, or NULL. */
static char *cmdline_value(const char *name, char *buf, size_t len)
{
	static char cmdline[4096];
	size_t n = strlen(name);
	char *arg;

	if (sysfs_read("/proc/cmdline", cmdline, sizeof(cmdline)) <= 0)
		return NULL;
	for (arg = strtok(cmdline, " \n"); arg; arg = strtok(NULL, " \n")) {
		if (!strncmp(arg, name, n) && arg[n] == '=') {
			snprintf(buf, len, "%s", arg + n + 1);
			return buf;
		}
	}
	return NULL;
}

static void expect_both(struct __test_metadata *_metadata, const char *mod,
			const char *param, const char *want)
{
	char path[PATH_MAX], buf[256];

	tree_path(path, sizeof(path), mod, param);
	ASSERT_LT(0, sysfs_read(path, buf, sizeof(buf)))
		TH_LOG("%s: %s", path, strerror(errno));
	EXPECT_STREQ(want, buf) TH_LOG("%s", path);
	module_path(path, sizeof(path), mod, param);
	ASSERT_LT(0, sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ(want, buf) TH_LOG("%s", path);
}

/* group.conf puts printk.always_kmsg_dump=1 on the command line. */
TEST(builtin_parameter_from_the_command_line_shows_in_both)
{
	char val[64];

	ASSERT_NE(NULL, cmdline_value("printk.always_kmsg_dump", val,
				      sizeof(val)));
	ASSERT_STREQ("1", val);
	expect_both(_metadata, "printk", "always_kmsg_dump", "Y\n");
}

/* The rig boots with panic=-1: a core_param(), in "kernel". */
TEST(core_parameter_from_the_command_line_shows_in_both)
{
	char val[64], want[80];

	ASSERT_NE(NULL, cmdline_value("panic", val, sizeof(val)));
	snprintf(want, sizeof(want), "%s\n", val);
	expect_both(_metadata, "kernel", "panic", want);
}

TEST(insmod_parameters_show_in_both)
{
	ASSERT_EQ(0, load_module(TEST_KO, "p_int=11 p_array=3,4 p_charp=given"));
	expect_both(_metadata, TEST_MOD, "p_int", "11\n");
	expect_both(_metadata, TEST_MOD, "p_array", "3,4\n");
	expect_both(_metadata, TEST_MOD, "p_charp", "given\n");
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

/*
 * group.conf also puts sysparams_test.p_uint=77 on the command line.  The
 * kernel leaves a loadable module's options there for modprobe, which
 * passes them to finit_module(); do what it does and see the value.
 */
TEST(module_option_from_the_command_line_shows_in_both)
{
	char val[64], opt[80];

	ASSERT_NE(NULL, cmdline_value(TEST_MOD ".p_uint", val, sizeof(val)));
	snprintf(opt, sizeof(opt), "p_uint=%s", val);
	ASSERT_EQ(0, load_module(TEST_KO, opt));
	expect_both(_metadata, TEST_MOD, "p_uint", "77\n");
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

TEST_HARNESS_MAIN
