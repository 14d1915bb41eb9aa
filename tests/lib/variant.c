// SPDX-License-Identifier: GPL-2.0
/* Which kernel variant the test runs on. */
#include <string.h>

#include "sysfs_file.h"
#include "variant.h"

bool rig_debug_kernel(void)
{
	char cmdline[1024];

	return sysfs_read("/proc/cmdline", cmdline, sizeof(cmdline)) > 0 &&
	       strstr(cmdline, "rig.variant=debug");
}

int rig_rounds(int std, int debug)
{
	return rig_debug_kernel() ? debug : std;
}
