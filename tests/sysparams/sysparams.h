/* SPDX-License-Identifier: GPL-2.0 */
/* What the /sys/parameters tests share: paths and loading the test module. */
#ifndef SYSPARAMS_H
#define SYSPARAMS_H

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "kmod.h"

#define TEST_MOD	"sysparams_test"
#define TEST_KO		RIG_MODULE_PATH("sysparams", TEST_MOD)
#define NONE_MOD	"sysparams_none"
#define NONE_KO		RIG_MODULE_PATH("sysparams", NONE_MOD)

/*
 * TEST_MOD's fail_init=1 fails its init with ENODEV if
 * /sys/parameters/TEST_MOD existed by then, ESRCH if not.
 */

/* Nothing at path, not even a dangling link. */
static inline int gone(const char *path)
{
	struct stat st;

	return lstat(path, &st) == -1 && errno == ENOENT;
}

/* /sys/parameters/<mod>/<param> and /sys/module/<mod>/parameters/<param> */
static inline void tree_path(char *buf, size_t len, const char *mod,
			     const char *param)
{
	snprintf(buf, len, "/sys/parameters/%s/%s", mod, param);
}

static inline void module_path(char *buf, size_t len, const char *mod,
			       const char *param)
{
	snprintf(buf, len, "/sys/module/%s/parameters/%s", mod, param);
}

#endif /* SYSPARAMS_H */
