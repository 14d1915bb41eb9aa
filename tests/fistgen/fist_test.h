/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fistgen group's common ground: the generated file systems (modules
 * in /modules/fistgen), a lower directory on tmpfs or on ext4 (a loop
 * device), a mount of one stacked on it, and what the lower side must
 * hold for what was written through the mount.
 */
#ifndef FIST_TEST_H
#define FIST_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ext4.h"
#include "kmod.h"
#include "variant.h"

#define FIST_DIR "/tmp/fist"

/* The file systems the group generates (group.conf fist=). */
enum fist_filter { FIST_NONE, FIST_ROT13, FIST_CAESAR };

struct fist_fs {
	const char *name;
	bool data;	/* filter: data */
	bool names;	/* filter: name */
	enum fist_filter filter;
	bool fuse;	/* the FUSE target: the daemon fist/NAME-fuse */
};

static const struct fist_fs fist_wrapfs = { "wrapfs", false, false, FIST_NONE };
static const struct fist_fs fist_rot13fs = { "rot13fs", true, true, FIST_ROT13 };
static const struct fist_fs fist_countfs = { "countfs", false, false, FIST_NONE };
/* Filters that are not their own inverse and depend on the offset. */
static const struct fist_fs fist_caesarfs = { "caesarfs", true, true, FIST_CAESAR };
/* The same descriptions, generated with fistgen -T fuse. */
static const struct fist_fs fist_wrapfs_fuse = { "wrapfs", false, false, FIST_NONE, true };
static const struct fist_fs fist_rot13fs_fuse = { "rot13fs", true, true, FIST_ROT13, true };
static const struct fist_fs fist_countfs_fuse = { "countfs", false, false, FIST_NONE, true };
static const struct fist_fs fist_caesarfs_fuse = { "caesarfs", true, true, FIST_CAESAR, true };

/* tests/fistgen/everycall.fist: a call rule on each operation that takes one. */
static const struct fist_fs fist_everycall = { "everycall", false, false, FIST_NONE };
static const struct fist_fs fist_everycall_fuse = { "everycall", false, false, FIST_NONE, true };

/* Where the group's FUSE daemons are (rig/tests.mk). */
#define FIST_FUSE_DIR "/tests/fistgen/fist"

static inline char fist_rot13(char c)
{
	if ((c >= 'a' && c <= 'm') || (c >= 'A' && c <= 'M'))
		return c + 13;
	if ((c >= 'n' && c <= 'z') || (c >= 'N' && c <= 'Z'))
		return c - 13;
	return c;
}

/* caesarfs.fist's data filter, for the byte at @pos. */
static inline char fist_caesar_byte(char c, long long pos)
{
	unsigned char u = c;
	int k = 1 + (int)(pos % 254);

	return u ? (char)((u - 1 + k) % 255 + 1) : 0;
}

/* What the lower file holds for @len bytes written through @fs at 0. */
static inline void fist_encode_data(const struct fist_fs *fs, char *buf,
				    size_t len)
{
	for (size_t i = 0; fs->data && i < len; i++)
		buf[i] = fs->filter == FIST_ROT13 ? fist_rot13(buf[i]) :
			 fist_caesar_byte(buf[i], i);
}

/* caesarfs.fist's name filter: letters one place on. */
static inline char fist_caesar_letter(char c)
{
	if (c >= 'a' && c <= 'z')
		return 'a' + (c - 'a' + 1) % 26;
	if (c >= 'A' && c <= 'Z')
		return 'A' + (c - 'A' + 1) % 26;
	return c;
}

/* The lower name of @name (one component) under @fs, in a static buffer. */
static inline const char *fist_lower_name(const struct fist_fs *fs,
					  const char *name)
{
	static char buf[4][256];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, 256, "%s", name);
	for (char *p = b; fs->names && *p; p++)
		*p = fs->filter == FIST_ROT13 ? fist_rot13(*p) : fist_caesar_letter(*p);
	return b;
}

/* Loads @fs's module unless it is loaded: 0 or -errno. */
static inline int fist_load(const struct fist_fs *fs)
{
	char path[128];

	snprintf(path, sizeof(path), "/modules/fistgen/%s.ko", fs->name);
	if (load_module(path, "") && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Mounts @fs's FUSE daemon, run by the caller, over @lower at @mnt, with
 * @opts (mount flags of the description, or ""): 0 once it is mounted
 * (the daemon goes to the background then), or -EIO.
 */
static inline int fist_fuse_mount(const struct fist_fs *fs, const char *lower,
				  const char *mnt, const char *opts)
{
	char daemon[128];
	int status;
	pid_t pid;

	snprintf(daemon, sizeof(daemon), FIST_FUSE_DIR "/%s-fuse", fs->name);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct rlimit rl;

		/*
		 * The daemon holds a descriptor per node: started with a soft
		 * limit of 64, it must raise it to get through the tests.
		 */
		if (!getrlimit(RLIMIT_NOFILE, &rl)) {
			rl.rlim_cur = 64;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (*opts)
			execl(daemon, daemon, "-o", opts, lower, mnt, (char *)NULL);
		else
			execl(daemon, daemon, lower, mnt, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/*
 * A lower directory at @lower, an empty tmpfs or ext4 file system, and
 * @fs stacked on it at @mnt, with mount options @opts.  0 or -errno.
 */
static inline int fist_setup(const struct fist_fs *fs, bool ext4,
			     const char *lower, const char *mnt,
			     const char *opts)
{
	int err;

	mkdir(FIST_DIR, 0755);
	if (mkdir(lower, 0755) && errno != EEXIST)
		return -errno;
	if (mkdir(mnt, 0755) && errno != EEXIST)
		return -errno;
	if (ext4)
		err = rig_ext4_mount(lower);
	else
		err = mount("tmpfs", lower, "tmpfs", 0, "mode=0777") ? -errno : 0;
	if (err)
		return err;
	if (fs->fuse)
		return fist_fuse_mount(fs, lower, mnt, opts);
	err = fist_load(fs);
	if (err)
		return err;
	if (mount(lower, mnt, fs->name, 0, opts))
		return -errno;
	return 0;
}

static inline void fist_teardown(const char *lower, const char *mnt)
{
	char idmapped[80];

	/* users.c's idmapped mount of @mnt, if an assertion left it. */
	snprintf(idmapped, sizeof(idmapped), "%s-idmapped", mnt);
	umount2(idmapped, MNT_DETACH);
	rmdir(idmapped);
	umount2(mnt, MNT_DETACH);
	umount2(lower, MNT_DETACH);
	rmdir(mnt);
	rmdir(lower);
}

/* The whole of @path, in a malloc'd buffer, its length in @len; NULL. */
static inline char *fist_read_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	buf = malloc(st.st_size + 1);
	n = buf ? pread(fd, buf, st.st_size, 0) : -1;
	close(fd);
	if (n != st.st_size) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Writes @len bytes of @data to a new @path: 0 or -errno. */
static inline int fist_write_file(const char *path, const void *data,
				  size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (n != (ssize_t)len) {
		int err = n < 0 ? -errno : -EIO;

		close(fd);
		return err;
	}
	return close(fd) ? -errno : 0;
}

/*
 * The kselftest fixture most tests use: one of the generated file systems
 * on tmpfs or ext4, at FIST_DIR/mnt-PID over FIST_DIR/lower-PID.  On the
 * debug kernel, a -m32 program tries rot13fs alone (its module on tmpfs
 * and ext4, its FUSE target): the compat system calls are the same for
 * each file system, which the 64-bit run tries under KASAN and lockdep.
 * There, too, the FUSE targets are rot13fs's alone: the kernel runs the
 * same fuse code under each, and what differs, their daemons, is user
 * space, which the standard kernel's run tries whole.
 */
#define FIST_FIXTURE(fixture)						\
FIXTURE(fixture) {							\
	char lower[64];							\
	char mnt[64];							\
};									\
FIXTURE_VARIANT(fixture) {						\
	const struct fist_fs *fs;					\
	bool ext4;							\
};									\
FIXTURE_VARIANT_ADD(fixture, wrapfs_on_tmpfs) { &fist_wrapfs, false };	\
FIXTURE_VARIANT_ADD(fixture, wrapfs_on_ext4) { &fist_wrapfs, true };	\
FIXTURE_VARIANT_ADD(fixture, rot13fs_on_tmpfs) { &fist_rot13fs, false }; \
FIXTURE_VARIANT_ADD(fixture, rot13fs_on_ext4) { &fist_rot13fs, true };	\
FIXTURE_VARIANT_ADD(fixture, countfs_on_tmpfs) { &fist_countfs, false }; \
FIXTURE_VARIANT_ADD(fixture, caesarfs_on_tmpfs) { &fist_caesarfs, false }; \
FIXTURE_VARIANT_ADD(fixture, wrapfs_fuse_on_tmpfs) { &fist_wrapfs_fuse, false }; \
FIXTURE_VARIANT_ADD(fixture, rot13fs_fuse_on_ext4) { &fist_rot13fs_fuse, true }; \
FIXTURE_VARIANT_ADD(fixture, countfs_fuse_on_tmpfs) { &fist_countfs_fuse, false }; \
FIXTURE_VARIANT_ADD(fixture, caesarfs_fuse_on_tmpfs) { &fist_caesarfs_fuse, false }; \
FIXTURE_SETUP(fixture)							\
{									\
	int err;							\
									\
	if (sizeof(long) != 8 && rig_debug_kernel() &&			\
	    strcmp(variant->fs->name, "rot13fs"))			\
		SKIP(return, "-m32 on the debug kernel: rot13fs alone"); \
	if (variant->fs->fuse && rig_debug_kernel() &&			\
	    strcmp(variant->fs->name, "rot13fs"))			\
		SKIP(return, "FUSE on the debug kernel: rot13fs alone"); \
	snprintf(self->lower, sizeof(self->lower), FIST_DIR "/lower-%d", getpid()); \
	snprintf(self->mnt, sizeof(self->mnt), FIST_DIR "/mnt-%d", getpid()); \
	err = fist_setup(variant->fs, variant->ext4, self->lower, self->mnt, ""); \
	ASSERT_EQ(0, err) TH_LOG("%s%s on %s: %s", variant->fs->name,	\
				 variant->fs->fuse ? " (fuse)" : "",	\
				 variant->ext4 ? "ext4" : "tmpfs", strerror(-err)); \
}									\
FIXTURE_TEARDOWN(fixture)						\
{									\
	fist_teardown(self->lower, self->mnt);				\
}

/* FIST_DIR/mnt-PID/NAME and FIST_DIR/lower-PID/LOWERNAME, in buffers. */
#define UPPER(name) ({ static char _u[4][512]; static int _n;		\
	char *_b = _u[_n++ % 4];					\
	snprintf(_b, 512, "%s/%s", self->mnt, name); _b; })
#define LOWER(name) ({ static char _l[4][512]; static int _n;		\
	char *_b = _l[_n++ % 4];					\
	snprintf(_b, 512, "%s/%s", self->lower,				\
		 fist_lower_name(variant->fs, name)); _b; })

#endif /* FIST_TEST_H */
