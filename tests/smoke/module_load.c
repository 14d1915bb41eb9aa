// SPDX-License-Identifier: GPL-2.0
/* A module built against build/linux loads, shows its parameter, and unloads; an ordinary user may not load it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmod.h"
#include "kselftest_harness.h"
#include "unpriv.h"

#define SMOKE_KO RIG_MODULE_PATH("smoke", "rig_smoke")

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

TEST(loads_with_a_parameter_and_unloads)
{
	char val[32];

	ASSERT_EQ(0, load_module(SMOKE_KO, "answer=7"))
		TH_LOG("finit_module %s: %s", SMOKE_KO, strerror(errno));
	EXPECT_EQ(0, access("/sys/module/rig_smoke", F_OK));
	ASSERT_EQ(0, read_file("/sys/module/rig_smoke/parameters/answer",
			       val, sizeof(val)));
	EXPECT_STREQ("7\n", val);
	EXPECT_EQ(0, read_file("/sys/module/rig_smoke/initstate", val,
			       sizeof(val)));
	EXPECT_STREQ("live\n", val);
	ASSERT_EQ(0, unload_module("rig_smoke"))
		TH_LOG("delete_module: %s", strerror(errno));
	EXPECT_EQ(-1, access("/sys/module/rig_smoke", F_OK));
}

TEST(loading_twice_is_eexist)
{
	ASSERT_EQ(0, load_module(SMOKE_KO, NULL));
	EXPECT_EQ(-1, load_module(SMOKE_KO, NULL));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(0, unload_module("rig_smoke"));
}

TEST(unloading_a_module_not_loaded_is_enoent)
{
	EXPECT_EQ(-1, unload_module("rig_smoke"));
	EXPECT_EQ(ENOENT, errno);
}

static int try_load(void *arg)
{
	if (load_module(SMOKE_KO, NULL) == 0) {
		unload_module("rig_smoke");
		return 1;
	}
	return errno == EPERM ? 0 : 2;
}

TEST(ordinary_user_cannot_load_it)
{
	EXPECT_EQ(0, run_unprivileged(try_load, NULL));
	EXPECT_EQ(-1, access("/sys/module/rig_smoke", F_OK));
}

TEST_HARNESS_MAIN
