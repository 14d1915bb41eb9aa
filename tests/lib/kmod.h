/* SPDX-License-Identifier: GPL-2.0 */
/* Load and unload the test groups' modules with the raw system calls. */
#ifndef RIG_KMOD_H
#define RIG_KMOD_H

/* The guest keeps group G's modules in /modules/G/NAME.ko. */
#define RIG_MODULE_PATH(group, name) "/modules/" group "/" name ".ko"

/* finit_module(path, params): 0, or -1 with errno set. */
int load_module(const char *path, const char *params);

/* delete_module(name, O_NONBLOCK): 0, or -1 with errno set. */
int unload_module(const char *name);

#endif /* RIG_KMOD_H */
