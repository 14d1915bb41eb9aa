/* SPDX-License-Identifier: GPL-2.0 */
/*
 * @fs@: the FUSE target of fistgen, generated from @fs@.fist.
 *
 * What the description's C may use on both targets: the kernel's fixed
 * size types, loff_t, errno values, atomic64_t and atomic_t with the
 * usual operations, pr_debug/pr_info/pr_err, and the filter functions'
 * prototypes.  One daemon serves one mount: the per-mount state is its.
 */
#ifndef _@FS@_H
#define _@FS@_H

#define FUSE_USE_VERSION 35

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <linux/types.h>
/*@if ioctl@*/
#include "@fs@_ioctl.h"
/*@endif@*/

#define @FS@_NAME "@fs@"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef struct { long long counter; } atomic64_t;
typedef struct { int counter; } atomic_t;

#define atomic64_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic64_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic64_add(i, v)	((void)__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic64_sub(i, v)	((void)__atomic_sub_fetch(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic64_inc(v)		atomic64_add(1, v)
#define atomic64_dec(v)		atomic64_sub(1, v)
#define atomic_read(v)		atomic64_read(v)
#define atomic_set(v, i)	atomic64_set(v, i)
#define atomic_add(i, v)	atomic64_add(i, v)
#define atomic_sub(i, v)	atomic64_sub(i, v)
#define atomic_inc(v)		atomic64_inc(v)
#define atomic_dec(v)		atomic64_dec(v)

#define pr_err(...)		fprintf(stderr, @FS@_NAME ": " __VA_ARGS__)
#define pr_info(...)		fprintf(stderr, @FS@_NAME ": " __VA_ARGS__)
/*@if debug@*/
#define pr_debug(...)		fprintf(stderr, @FS@_NAME ": " __VA_ARGS__)
/*@else@*/
#define pr_debug(...)		do { } while (0)
/*@endif@*/
/*@if verbatim@*/

/* The description's declarations. */
/*@verbatim@*/
/*@endif@*/
/*@if pervfs@*/

/* The description's per-mount state ("pervfs:" and "mntflag:"). */
struct @fs@_pervfs {
	/*@pervfs@*/
};
/*@endif@*/
/*@if data@*/

/* The data filter, in the description's additional C. */
void encode_data(u8 *data, size_t len, loff_t pos);
void decode_data(u8 *data, size_t len, loff_t pos);
/*@endif@*/
/*@if name@*/

/* The name filter: the coded name's length, or -errno. */
int encode_filename(const char *name, int len, char *buf, int size);
int decode_filename(const char *name, int len, char *buf, int size);
/*@endif@*/

#endif /* _@FS@_H */
