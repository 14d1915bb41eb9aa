/* SPDX-License-Identifier: GPL-2.0 */
/* Load and unload the test groups' modules with the raw system calls. */
#ifndef RIG_KMOD_H
#define RIG_KMOD_H

/* The guest keeps group G's modules in /modules/G/NAME.ko. */
#define RIG_MODULE_PATH(group, name) "/modules/" group "/" name ".ko"

/* and the kernel's own modules (config fragments' =m) in /modules/kernel. */
#define RIG_KERNEL_MODULE(name) "/modules/kernel/" name ".ko"

/* finit_module(path, params): 0, or -1 with errno set. */
int load_module(const char *path, const char *params);

/* delete_module(name, O_NONBLOCK): 0, or -1 with errno set. */
int unload_module(const char *name);

/*
 * unload_module(), tried again for up to @ms milliseconds while the module
 * is still in use (a device it drives is being released): 0 or -errno.
 */
int unload_module_wait(const char *name, int ms);

#endif /* RIG_KMOD_H */
