// SPDX-License-Identifier: GPL-2.0
/*
 * A value the parameter's set op rejects fails with that op's error and
 * leaves the old value, arrays included; permission 0 hides a parameter;
 * the file modes are the parameters' and are enforced on both paths.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sysfs_file.h"
#include "sysparams.h"
#include "unpriv.h"

/* A charp longer than param_set_charp()'s 1024 bytes. */
#define LONG_CHARP_LEN 1025

FIXTURE(rejected) {
	char tree[128];
	char module[128];
	char *bad;
};

/* bad == NULL stands for a charp of LONG_CHARP_LEN bytes. */
FIXTURE_VARIANT(rejected) {
	const char *param, *bad;
	int err;
};

#define REJECT(name, p, b, e)						\
	FIXTURE_VARIANT_ADD(rejected, name) {				\
		.param = #p, .bad = b, .err = e,			\
	}

REJECT(int_not_a_number, p_int, "abc", EINVAL);
REJECT(int_out_of_range, p_int, "2147483648", ERANGE);
REJECT(uint_negative, p_uint, "-1", EINVAL);
REJECT(long_out_of_range, p_long, "9223372036854775808", ERANGE);
REJECT(ulong_not_a_number, p_ulong, "-", EINVAL);
REJECT(short_out_of_range, p_short, "40000", ERANGE);
REJECT(ushort_out_of_range, p_ushort, "70000", ERANGE);
REJECT(byte_out_of_range, p_byte, "256", ERANGE);
REJECT(bool_not_a_bool, p_bool, "maybe", EINVAL);
REJECT(invbool_not_a_bool, p_invbool, "2", EINVAL);
REJECT(bint_not_a_bool, p_bint, "2", EINVAL);
REJECT(hexint_out_of_range, p_hexint, "0x100000000", ERANGE);
REJECT(custom_op_rejects_odd, p_even, "3", EINVAL);
REJECT(custom_op_rejects_text, p_even, "two", EINVAL);
REJECT(string_too_long, p_string, "12345678", ENOSPC);
REJECT(string_too_long_with_newline, p_string, "1234567\n", ENOSPC);
REJECT(charp_too_long, p_charp, NULL, ENOSPC);
REJECT(array_bad_element_after_good, p_array, "7,x", EINVAL);
REJECT(array_bad_last_element, p_array, "7,8,9,x", EINVAL);
REJECT(array_too_many, p_array, "5,6,7,8,9", EINVAL);
REJECT(charp_array_too_many, p_names, "c,d,e,f", EINVAL);
/* element 0 is set: bool_enable_only must see it to refuse the N */
REJECT(enable_only_array_cleared, p_once, "N,Y", EROFS);

FIXTURE_SETUP(rejected)
{
	ASSERT_EQ(0, load_module(TEST_KO, NULL))
		TH_LOG("finit_module %s: %s", TEST_KO, strerror(errno));
	tree_path(self->tree, sizeof(self->tree), TEST_MOD, variant->param);
	module_path(self->module, sizeof(self->module), TEST_MOD,
		    variant->param);
	self->bad = variant->bad ? strdup(variant->bad) : malloc(LONG_CHARP_LEN + 1);
	ASSERT_NE(NULL, self->bad);
	if (!variant->bad) {
		memset(self->bad, 'z', LONG_CHARP_LEN);
		self->bad[LONG_CHARP_LEN] = '\0';
	}
}

FIXTURE_TEARDOWN(rejected)
{
	free(self->bad);
	EXPECT_EQ(0, unload_module(TEST_MOD))
		TH_LOG("delete_module: %s", strerror(errno));
}

/* Through each path in turn: the error, then the old value on both paths. */
TEST_F(rejected, fails_with_the_ops_error_and_keeps_the_value)
{
	const char *paths[] = { self->tree, self->module };
	char before[256], after[256];
	unsigned int i;

	ASSERT_LT(0, sysfs_read(self->module, before, sizeof(before)));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(-variant->err, sysfs_write(paths[i], self->bad))
			TH_LOG("writing %.40s to %s", self->bad, paths[i]);
		ASSERT_LT(0, sysfs_read(self->tree, after, sizeof(after)));
		EXPECT_STREQ(before, after);
		ASSERT_LT(0, sysfs_read(self->module, after, sizeof(after)));
		EXPECT_STREQ(before, after);
	}
}

/* Each parameter's permission, seen through both paths. */
FIXTURE(modes) {
};

FIXTURE_VARIANT(modes) {
	const char *param;
	mode_t mode;
};

#define MODE(p, m)							\
	FIXTURE_VARIANT_ADD(modes, p) {					\
		.param = #p, .mode = m,					\
	}

MODE(p_int, 0644);
MODE(p_ulong, 0600);
MODE(p_ushort, 0640);
MODE(p_ro, 0444);
MODE(fail_init, 0444);

FIXTURE_SETUP(modes)
{
	ASSERT_EQ(0, load_module(TEST_KO, NULL));
}

FIXTURE_TEARDOWN(modes)
{
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

TEST_F(modes, file_mode_is_the_parameters_permission)
{
	char path[128];
	struct stat st;

	tree_path(path, sizeof(path), TEST_MOD, variant->param);
	ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s: %s", path, strerror(errno));
	EXPECT_EQ(variant->mode, st.st_mode & 07777);
	EXPECT_TRUE(S_ISREG(st.st_mode));
	module_path(path, sizeof(path), TEST_MOD, variant->param);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(variant->mode, st.st_mode & 07777);
}

FIXTURE(access) {
};

FIXTURE_SETUP(access)
{
	ASSERT_EQ(0, load_module(TEST_KO, NULL));
}

FIXTURE_TEARDOWN(access)
{
	EXPECT_EQ(0, unload_module(TEST_MOD));
}

TEST_F(access, permission_zero_is_in_neither_tree)
{
	char path[128];
	struct stat st;

	tree_path(path, sizeof(path), TEST_MOD, "p_hidden");
	EXPECT_EQ(-1, stat(path, &st));
	EXPECT_EQ(ENOENT, errno);
	module_path(path, sizeof(path), TEST_MOD, "p_hidden");
	EXPECT_EQ(-1, stat(path, &st));
	EXPECT_EQ(ENOENT, errno);
	/* ...while a visible one beside it is there. */
	tree_path(path, sizeof(path), TEST_MOD, "p_int");
	EXPECT_EQ(0, stat(path, &st));
}

TEST_F(access, root_cannot_write_a_0444_parameter)
{
	char path[128], buf[32];

	tree_path(path, sizeof(path), TEST_MOD, "p_ro");
	EXPECT_EQ(-EACCES, sysfs_write(path, "6"));
	module_path(path, sizeof(path), TEST_MOD, "p_ro");
	EXPECT_EQ(-EACCES, sysfs_write(path, "6"));
	ASSERT_LT(0, sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("5\n", buf);
}

/*
 * As uid 1000 without capabilities, through both paths: 0644 and 0444 read
 * but do not write, 0600 and 0640 (owner and group root) do not read.
 * Returns a bit per check that went wrong, or 0.
 */
static int user_access(void *arg)
{
	static const char * const prefix[] = {
		"/sys/parameters/" TEST_MOD,
		"/sys/module/" TEST_MOD "/parameters",
	};
	char path[128], buf[32];
	int i, bad = 0;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/p_int", prefix[i]);
		if (sysfs_read(path, buf, sizeof(buf)) <= 0)
			bad |= 1;
		if (sysfs_write(path, "1") != -EACCES)
			bad |= 2;
		snprintf(path, sizeof(path), "%s/p_ro", prefix[i]);
		if (sysfs_read(path, buf, sizeof(buf)) <= 0)
			bad |= 4;
		snprintf(path, sizeof(path), "%s/p_ulong", prefix[i]);
		if (sysfs_read(path, buf, sizeof(buf)) != -EACCES)
			bad |= 8;
		snprintf(path, sizeof(path), "%s/p_ushort", prefix[i]);
		if (sysfs_read(path, buf, sizeof(buf)) != -EACCES)
			bad |= 16;
	}
	return bad;
}

TEST_F(access, ordinary_user_reads_0644_and_0444_writes_nothing)
{
	char buf[32];

	EXPECT_EQ(0, run_unprivileged(user_access, NULL))
		TH_LOG("bits: 1 read 0644, 2 write 0644 not EACCES, 4 read 0444, 8 read 0600, 16 read 0640");
	ASSERT_LT(0, sysfs_read("/sys/parameters/" TEST_MOD "/p_int", buf,
				sizeof(buf)));
	EXPECT_STREQ("-7\n", buf);
}

TEST_HARNESS_MAIN
