/* SPDX-License-Identifier: GPL-2.0 */
/* What the mlock tests share: the locked memory /proc reports. */
#ifndef MLOCK_TEST_H
#define MLOCK_TEST_H

#include <stdio.h>

/* VmLck of this process in kB, or -1. */
static inline long vmlck_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

#endif /* MLOCK_TEST_H */
