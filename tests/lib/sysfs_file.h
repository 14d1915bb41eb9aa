/* SPDX-License-Identifier: GPL-2.0 */
/* Read and write one sysfs attribute the way a shell's cat and echo do. */
#ifndef RIG_SYSFS_FILE_H
#define RIG_SYSFS_FILE_H

#include <stddef.h>

/*
 * Read the attribute at path with one read() of up to len - 1 bytes and
 * NUL-terminate it.  Returns the byte count, or -errno of the open or read.
 */
int sysfs_read(const char *path, char *buf, size_t len);

/*
 * Write val (without its NUL) with one write().  Returns 0 when all of it
 * was taken, -errno of the open or write, or -EIO on a short write.
 */
int sysfs_write(const char *path, const char *val);

#endif /* RIG_SYSFS_FILE_H */
