// SPDX-License-Identifier: GPL-2.0
/*
 * Work in progress (issue 23): Debian's criu runs in the guest, and
 * `criu check` finds every kernel feature it needs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

TEST(criu_check_passes)
{
	char line[512];
	FILE *f = popen("criu check 2>&1; echo \"exit $?\"", "r");
	int status = -1;

	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		TH_LOG("%s", line);
		sscanf(line, "exit %d", &status);
	}
	pclose(f);
	EXPECT_EQ(0, status);
}

TEST_HARNESS_MAIN
