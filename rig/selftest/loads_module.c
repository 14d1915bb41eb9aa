// SPDX-License-Identifier: GPL-2.0
/*
 * rig self-test: load the one module of this program's group (a module whose
 * init misbehaves on purpose) and unload it.  The program is the same for
 * every such group (each links here); it finds its module from argv[0],
 * /tests/GROUP/loads_module -> /modules/GROUP/<the only .ko>.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kmod.h"
#include "kselftest_harness.h"

static char *argv0;

TEST(loads_the_groups_misbehaving_module)
{
	char dir[PATH_MAX], ko[PATH_MAX * 2], name[NAME_MAX] = "";
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", argv0);
	snprintf(ko, sizeof(ko), "/modules/%s", basename(dirname(dir)));
	d = opendir(ko);
	ASSERT_NE(NULL, d) TH_LOG("%s: %s", ko, strerror(errno));
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".ko"))
			snprintf(name, sizeof(name), "%.*s",
				 (int)(strlen(de->d_name) - 3), de->d_name);
	closedir(d);
	ASSERT_STRNE("", name);
	strcat(ko, "/");
	strcat(ko, name);
	strcat(ko, ".ko");
	TH_LOG("loading %s", ko);
	ASSERT_EQ(0, load_module(ko, NULL))
		TH_LOG("finit_module: %s", strerror(errno));
	unload_module(name);
}

int main(int argc, char **argv)
{
	argv0 = argv[0];
	return test_harness_run(argc, argv);
}
