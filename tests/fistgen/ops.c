// SPDX-License-Identifier: GPL-2.0
/*
 * Each operation a user needs, through each generated file system, on
 * tmpfs and on ext4, with the lower side checked: what was written
 * through the mount is in the lower directory, encoded (rot13fs: data
 * and names rot13'd), and what the lower holds reads back decoded.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fist_test.h"
#include "unpriv.h"

FIST_FIXTURE(stack)

static const char text[] = "Hello, World! The quick brown fox jumps over the lazy dog.\n";

/* Prints @len bytes of @p, escaped, to stderr. */
static void show(const char *what, const char *p, size_t len)
{
	fprintf(stderr, "#   %s (%zu bytes): \"", what, len);
	for (size_t i = 0; i < len && i < 80; i++)
		fprintf(stderr, isprint((unsigned char)p[i]) ? "%c" : "\\x%02x",
			(unsigned char)p[i]);
	fprintf(stderr, "%s\"\n", len > 80 ? "..." : "");
}

/* @path's content is @len bytes of @want; if not, both are shown. */
static int same_content(const char *path, const char *want, size_t len)
{
	size_t got_len = 0;
	char *got = fist_read_file(path, &got_len);
	int ok = got && got_len == len && !memcmp(got, want, len);

	if (!ok) {
		fprintf(stderr, "# %s: %s\n", path, got ? "differs" : strerror(errno));
		show("expected", want, len);
		if (got)
			show("got", got, got_len);
	}
	free(got);
	return ok;
}

TEST_F(stack, data_written_reads_back_and_is_encoded_below)
{
	char enc[sizeof(text)];

	ASSERT_EQ(0, fist_write_file(UPPER("hello.txt"), text, strlen(text)));
	EXPECT_TRUE(same_content(UPPER("hello.txt"), text, strlen(text)));
	memcpy(enc, text, sizeof(text));
	fist_encode_data(variant->fs, enc, strlen(text));
	EXPECT_TRUE(same_content(LOWER("hello.txt"), enc, strlen(text)))
		TH_LOG("%s does not hold the encoded text", LOWER("hello.txt"));
}

TEST_F(stack, lower_data_reads_back_decoded)
{
	static char big[5 * 4096 + 123], enc[sizeof(big)];

	/* Pages enough for readahead to move several at once. */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = text[i % strlen(text)];
	memcpy(enc, big, sizeof(big));
	fist_encode_data(variant->fs, enc, sizeof(big));
	ASSERT_EQ(0, fist_write_file(LOWER("below.txt"), enc, sizeof(big)));
	EXPECT_TRUE(same_content(UPPER("below.txt"), big, sizeof(big)));
}

/* The names readdir() gives in @dir, sorted, joined with ' '. */
static void list_dir(const char *dir, char *out, size_t size)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
			strncat(out, names[i]->d_name, size - strlen(out) - 2);
			strcat(out, " ");
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @n names, sorted as alphasort() does in the C locale, joined with ' '. */
static void joined(char **names, int n, char *out, size_t size)
{
	qsort(names, n, sizeof(char *), by_name);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strncat(out, names[i], size - strlen(out) - 2);
		strcat(out, " ");
	}
}

/* The upper name of a lower @name no encoding made: decoded anyway. */
static const char *upper_name_of(const struct fist_fs *fs, const char *name)
{
	static char b[256];

	snprintf(b, sizeof(b), "%s", name);
	for (char *p = b; fs->names && *p; p++) {
		if (fs->filter == FIST_ROT13)
			*p = fist_rot13(*p);
		else if (*p >= 'a' && *p <= 'z')
			*p = 'a' + (*p - 'a' + 25) % 26;
		else if (*p >= 'A' && *p <= 'Z')
			*p = 'A' + (*p - 'A' + 25) % 26;
	}
	return b;
}

TEST_F(stack, names_are_encoded_below_and_decoded_above)
{
	char above[256], below[256], want[256], *names[3], lost[256];
	int n = 2;

	ASSERT_EQ(0, fist_write_file(UPPER("Alpha"), "a", 1));
	ASSERT_EQ(0, mkdir(UPPER("beta-dir"), 0755));
	ASSERT_EQ(0, fist_write_file(UPPER("beta-dir/Gamma.txt"), "g", 1));
	list_dir(self->mnt, above, sizeof(above));
	/* ext4's lost+found is there too, its name decoded above. */
	names[0] = "Alpha";
	names[1] = "beta-dir";
	if (variant->ext4) {
		snprintf(lost, sizeof(lost), "%s", upper_name_of(variant->fs, "lost+found"));
		names[n++] = lost;
	}
	joined(names, n, want, sizeof(want));
	EXPECT_STREQ(want, above);

	list_dir(self->lower, below, sizeof(below));
	names[0] = strdup(fist_lower_name(variant->fs, "Alpha"));
	names[1] = strdup(fist_lower_name(variant->fs, "beta-dir"));
	if (variant->ext4)
		names[2] = "lost+found";
	joined(names, n, want, sizeof(want));
	EXPECT_STREQ(want, below);
	EXPECT_EQ(0, access(LOWER("beta-dir/Gamma.txt"), F_OK));
}

TEST_F(stack, pread_pwrite_across_pages_and_append)
{
	static char buf[3 * 4096], back[3 * 4096], enc[3 * 4096];
	int fd;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = 'a' + i % 26;
	fd = open(UPPER("rw"), O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5000, pwrite(fd, buf, 5000, 3000));
	ASSERT_EQ(8000, pread(fd, back, sizeof(back), 0));
	for (int i = 0; i < 3000; i++) {
		ASSERT_EQ(0, back[i]) TH_LOG("byte %d of the hole", i);
	}
	EXPECT_EQ(0, memcmp(back + 3000, buf, 5000));
	ASSERT_EQ(0, close(fd));

	fd = open(UPPER("rw"), O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(100, write(fd, buf, 100));
	ASSERT_EQ(0, close(fd));
	fd = open(UPPER("rw"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(8100, pread(fd, back, sizeof(back), 0));
	EXPECT_EQ(0, memcmp(back + 8000, buf, 100));
	ASSERT_EQ(0, close(fd));

	memcpy(enc, back, 8100);
	fist_encode_data(variant->fs, enc, 8100);
	EXPECT_TRUE(same_content(LOWER("rw"), enc, 8100));
}

TEST_F(stack, shared_mmap_writes_reach_the_lower_file_encoded)
{
	char enc[8192], *map;
	int fd;

	fd = open(UPPER("map"), O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 8192));
	map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	memcpy(map + 4090, text, strlen(text));
	ASSERT_EQ(0, msync(map, 8192, MS_SYNC));
	ASSERT_EQ(0, munmap(map, 8192));
	ASSERT_EQ(0, close(fd));

	memset(enc, 0, sizeof(enc));
	memcpy(enc + 4090, text, strlen(text));
	fist_encode_data(variant->fs, enc, sizeof(enc));
	EXPECT_TRUE(same_content(LOWER("map"), enc, sizeof(enc)));
}

TEST_F(stack, private_mmap_writes_stay_private)
{
	char *map;
	int fd;

	ASSERT_EQ(0, fist_write_file(UPPER("priv"), text, strlen(text)));
	fd = open(UPPER("priv"), O_RDONLY);
	ASSERT_LE(0, fd);
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(0, memcmp(map, text, strlen(text)));
	memcpy(map, "XXXX", 4);
	ASSERT_EQ(0, munmap(map, 4096));
	ASSERT_EQ(0, close(fd));
	EXPECT_TRUE(same_content(UPPER("priv"), text, strlen(text)));
}

TEST_F(stack, truncate_shrinks_and_extends_both_sides)
{
	char want[100] = { 0 };
	struct stat st;

	ASSERT_EQ(0, fist_write_file(UPPER("t"), text, strlen(text)));
	ASSERT_EQ(0, truncate(UPPER("t"), 5));
	ASSERT_EQ(0, stat(LOWER("t"), &st));
	EXPECT_EQ(5, st.st_size);
	ASSERT_EQ(0, truncate(UPPER("t"), 100));
	ASSERT_EQ(0, stat(UPPER("t"), &st));
	EXPECT_EQ(100, st.st_size);
	memcpy(want, text, 5);
	EXPECT_TRUE(same_content(UPPER("t"), want, 100));
	fist_encode_data(variant->fs, want, 100);
	EXPECT_TRUE(same_content(LOWER("t"), want, 100));
}

TEST_F(stack, fallocate_allocates_in_the_lower_file)
{
	struct stat st;
	int fd;

	fd = open(UPPER("fa"), O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fallocate(fd, 0, 0, 65536));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(65536, st.st_size);
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_KEEP_SIZE, 65536, 65536));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(65536, st.st_size);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, stat(LOWER("fa"), &st));
	EXPECT_EQ(65536, st.st_size);
	EXPECT_LE(128 * 2, st.st_blocks);
}

TEST_F(stack, fsync_puts_the_data_in_the_lower_file)
{
	char enc[sizeof(text)];
	int fd;

	fd = open(UPPER("sync"), O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(text), write(fd, text, strlen(text)));
	ASSERT_EQ(0, fsync(fd));
	memcpy(enc, text, sizeof(text));
	fist_encode_data(variant->fs, enc, strlen(text));
	/* Still open: the data are there after fsync, not only at close. */
	EXPECT_TRUE(same_content(LOWER("sync"), enc, strlen(text)));
	EXPECT_EQ(0, fdatasync(fd));
	ASSERT_EQ(0, close(fd));
}

TEST_F(stack, seekdir_returns_to_the_same_entry)
{
	char name[32], again[256];
	struct dirent *d;
	long pos = -1;
	DIR *dir;
	int seen = 0;

	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "entry-%02d", i);
		ASSERT_EQ(0, fist_write_file(UPPER(name), "", 0));
	}
	dir = opendir(self->mnt);
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir))) {
		if (++seen == 30) {
			pos = telldir(dir);
			d = readdir(dir);
			ASSERT_NE(NULL, d);
			snprintf(again, sizeof(again), "%s", d->d_name);
			seen++;
		}
	}
	EXPECT_LE(62, seen);
	ASSERT_NE(-1, pos);
	seekdir(dir, pos);
	d = readdir(dir);
	ASSERT_NE(NULL, d);
	EXPECT_STREQ(again, d->d_name);
	rewinddir(dir);
	seen = 0;
	while (readdir(dir))
		seen++;
	EXPECT_LE(62, seen);
	closedir(dir);
}

TEST_F(stack, mkdir_and_rmdir)
{
	struct stat st;

	ASSERT_EQ(0, mkdir(UPPER("d"), 0750));
	ASSERT_EQ(0, stat(LOWER("d"), &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(0750, st.st_mode & 0777);
	ASSERT_EQ(0, fist_write_file(UPPER("d/f"), "x", 1));
	EXPECT_EQ(-1, rmdir(UPPER("d")));
	EXPECT_EQ(ENOTEMPTY, errno);
	ASSERT_EQ(0, unlink(UPPER("d/f")));
	ASSERT_EQ(0, rmdir(UPPER("d")));
	EXPECT_EQ(-1, stat(LOWER("d"), &st));
	EXPECT_EQ(-1, mkdir(UPPER("missing/d"), 0755));
	EXPECT_EQ(ENOENT, errno);
}

static int rename2(const char *old, const char *new, unsigned int flags)
{
	return syscall(SYS_renameat2, AT_FDCWD, old, AT_FDCWD, new, flags);
}

TEST_F(stack, rename_in_and_across_directories)
{
	ASSERT_EQ(0, mkdir(UPPER("a"), 0755));
	ASSERT_EQ(0, mkdir(UPPER("b"), 0755));
	ASSERT_EQ(0, fist_write_file(UPPER("a/one"), "1", 1));
	ASSERT_EQ(0, rename(UPPER("a/one"), UPPER("a/two")));
	EXPECT_EQ(0, access(LOWER("a/two"), F_OK));
	EXPECT_EQ(-1, access(LOWER("a/one"), F_OK));
	ASSERT_EQ(0, rename(UPPER("a/two"), UPPER("b/three")));
	EXPECT_EQ(0, access(LOWER("b/three"), F_OK));
	EXPECT_TRUE(same_content(UPPER("b/three"), "1", 1));
	/* A directory moves with what it holds. */
	ASSERT_EQ(0, rename(UPPER("b"), UPPER("a/b")));
	EXPECT_TRUE(same_content(UPPER("a/b/three"), "1", 1));
	EXPECT_EQ(0, access(LOWER("a/b/three"), F_OK));
	/* Into its own subdirectory: refused. */
	EXPECT_EQ(-1, rename(UPPER("a"), UPPER("a/b/c")));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(stack, rename_noreplace_and_exchange)
{
	char want;

	ASSERT_EQ(0, fist_write_file(UPPER("x"), "x", 1));
	ASSERT_EQ(0, fist_write_file(UPPER("y"), "y", 1));
	EXPECT_EQ(-1, rename2(UPPER("x"), UPPER("y"), RENAME_NOREPLACE));
	EXPECT_EQ(EEXIST, errno);
	ASSERT_EQ(0, rename2(UPPER("x"), UPPER("y"), RENAME_EXCHANGE));
	EXPECT_TRUE(same_content(UPPER("x"), "y", 1));
	EXPECT_TRUE(same_content(UPPER("y"), "x", 1));
	want = 'y';
	fist_encode_data(variant->fs, &want, 1);
	EXPECT_TRUE(same_content(LOWER("x"), &want, 1));
	ASSERT_EQ(0, rename(UPPER("x"), UPPER("y")));
	EXPECT_TRUE(same_content(UPPER("y"), "y", 1));
	EXPECT_EQ(-1, access(UPPER("x"), F_OK));
	EXPECT_EQ(-1, access(LOWER("x"), F_OK));
}

TEST_F(stack, hard_links)
{
	struct stat st;
	int ret;

	ASSERT_EQ(0, fist_write_file(UPPER("orig"), text, strlen(text)));
	ret = link(UPPER("orig"), UPPER("alias"));
	if (!strcmp(variant->fs->name, "countfs")) {
		/* countfs.fist's link precall rule. */
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EPERM, errno);
		EXPECT_EQ(-1, access(LOWER("alias"), F_OK));
		return;
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, stat(UPPER("orig"), &st));
	EXPECT_EQ(2, st.st_nlink);
	EXPECT_TRUE(same_content(UPPER("alias"), text, strlen(text)));
	ASSERT_EQ(0, stat(LOWER("alias"), &st));
	EXPECT_EQ(2, st.st_nlink);
	ASSERT_EQ(0, unlink(UPPER("orig")));
	ASSERT_EQ(0, stat(UPPER("alias"), &st));
	EXPECT_EQ(1, st.st_nlink);
}

TEST_F(stack, symlinks_and_readlink)
{
	char buf[256], want[256];
	ssize_t n;

	ASSERT_EQ(0, mkdir(UPPER("dir"), 0755));
	ASSERT_EQ(0, fist_write_file(UPPER("dir/target"), text, strlen(text)));
	ASSERT_EQ(0, symlink("dir/target", UPPER("link")));
	n = readlink(UPPER("link"), buf, sizeof(buf));
	ASSERT_EQ(10, n);
	buf[n] = '\0';
	EXPECT_STREQ("dir/target", buf);
	EXPECT_TRUE(same_content(UPPER("link"), text, strlen(text)));
	/* The lower link resolves in the lower tree: its target is coded too. */
	n = readlink(LOWER("link"), buf, sizeof(buf));
	ASSERT_EQ(10, n);
	buf[n] = '\0';
	snprintf(want, sizeof(want), "%s/%s", fist_lower_name(variant->fs, "dir"),
		 fist_lower_name(variant->fs, "target"));
	EXPECT_STREQ(want, buf);
	ASSERT_EQ(0, symlink("../x/./y", UPPER("rel")));
	n = readlink(UPPER("rel"), buf, sizeof(buf));
	ASSERT_EQ(8, n);
	EXPECT_EQ(0, memcmp("../x/./y", buf, 8));
}

TEST_F(stack, an_unlinked_open_file_stays_usable)
{
	char back[sizeof(text)];
	int fd;

	ASSERT_EQ(0, fist_write_file(UPPER("gone"), text, strlen(text)));
	fd = open(UPPER("gone"), O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, unlink(UPPER("gone")));
	EXPECT_EQ(-1, access(UPPER("gone"), F_OK));
	EXPECT_EQ(-1, access(LOWER("gone"), F_OK));
	ASSERT_EQ(4, pwrite(fd, "ABCD", 4, 0));
	ASSERT_EQ((ssize_t)strlen(text), pread(fd, back, sizeof(back), 0));
	EXPECT_EQ(0, memcmp("ABCD", back, 4));
	EXPECT_EQ(0, memcmp(text + 4, back + 4, strlen(text) - 4));
	ASSERT_EQ(0, close(fd));
	/* The name is free again. */
	ASSERT_EQ(0, fist_write_file(UPPER("gone"), "new", 3));
	EXPECT_TRUE(same_content(UPPER("gone"), "new", 3));
}

TEST_F(stack, chmod_chown_utimes_reach_the_lower_inode)
{
	struct timeval tv[2] = { { 1000000, 0 }, { 2000000, 0 } };
	struct stat st, up;

	ASSERT_EQ(0, fist_write_file(UPPER("attr"), "a", 1));
	ASSERT_EQ(0, chmod(UPPER("attr"), 0604));
	ASSERT_EQ(0, chown(UPPER("attr"), 1000, 1001));
	ASSERT_EQ(0, utimes(UPPER("attr"), tv));
	ASSERT_EQ(0, stat(LOWER("attr"), &st));
	EXPECT_EQ(0604, st.st_mode & 07777);
	EXPECT_EQ(1000, st.st_uid);
	EXPECT_EQ(1001, st.st_gid);
	EXPECT_EQ(1000000, st.st_atime);
	EXPECT_EQ(2000000, st.st_mtime);
	ASSERT_EQ(0, stat(UPPER("attr"), &up));
	EXPECT_EQ(st.st_mode, up.st_mode);
	EXPECT_EQ(st.st_uid, up.st_uid);
	EXPECT_EQ(st.st_mtime, up.st_mtime);
	EXPECT_EQ(st.st_ino, up.st_ino);
}

TEST_F(stack, statfs_reports_the_lower_file_system)
{
	struct statfs up, low;

	ASSERT_EQ(0, statfs(self->mnt, &up));
	ASSERT_EQ(0, statfs(self->lower, &low));
	EXPECT_EQ(low.f_blocks, up.f_blocks);
	EXPECT_EQ(low.f_bsize, up.f_bsize);
	EXPECT_NE(low.f_type, up.f_type);
}

TEST_F(stack, xattrs_pass_through)
{
	char buf[64];
	ssize_t n;

	ASSERT_EQ(0, fist_write_file(UPPER("x"), "x", 1));
	ASSERT_EQ(0, setxattr(UPPER("x"), "user.colour", "blue", 4, 0));
	n = getxattr(LOWER("x"), "user.colour", buf, sizeof(buf));
	ASSERT_EQ(4, n);
	EXPECT_EQ(0, memcmp(buf, "blue", 4));
	ASSERT_EQ(0, setxattr(LOWER("x"), "user.size", "big", 3, 0));
	n = getxattr(UPPER("x"), "user.size", buf, sizeof(buf));
	ASSERT_EQ(3, n);
	n = listxattr(UPPER("x"), buf, sizeof(buf));
	EXPECT_EQ(strlen("user.colour") + strlen("user.size") + 2, (size_t)n);
	ASSERT_EQ(0, removexattr(UPPER("x"), "user.colour"));
	EXPECT_EQ(-1, getxattr(LOWER("x"), "user.colour", buf, sizeof(buf)));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(-1, setxattr(UPPER("x"), "user.size", "x", 1, XATTR_CREATE));
	EXPECT_EQ(EEXIST, errno);
}

TEST_F(stack, posix_locks_between_processes)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 10 };
	int fd, status;
	pid_t pid;

	ASSERT_EQ(0, fist_write_file(UPPER("lock"), text, strlen(text)));
	fd = open(UPPER("lock"), O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fcntl(fd, F_SETLK, &fl));
	ASSERT_EQ(0, flock(fd, LOCK_EX));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd2 = open(UPPER("lock"), O_RDWR);

		if (fd2 < 0)
			_exit(1);
		if (fcntl(fd2, F_SETLK, &fl) == 0 || errno != EAGAIN)
			_exit(2);
		if (flock(fd2, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK)
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fd);
}

TEST_F(stack, o_direct_as_the_lower_allows)
{
	void *buf;
	int fd;

	ASSERT_EQ(0, posix_memalign(&buf, 4096, 4096));
	memset(buf, 'q', 4096);
	fd = open(UPPER("direct"), O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (variant->fs->data && !variant->fs->fuse) {
		/* The upper page cache holds the decoded data: no O_DIRECT. */
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EINVAL, errno);
		free(buf);
		return;
	}
	/* FUSE sends it past its cache to the daemon, which codes it. */
	ASSERT_LE(0, fd);
	EXPECT_EQ(4096, pwrite(fd, buf, 4096, 0));
	memset(buf, 0, 4096);
	EXPECT_EQ(4096, pread(fd, buf, 4096, 0));
	close(fd);
	EXPECT_EQ(0, memcmp(buf, "qqqq", 4));
	fist_encode_data(variant->fs, buf, 4096);
	EXPECT_TRUE(same_content(LOWER("direct"), buf, 4096));
	free(buf);
}

/*
 * More files (300) than the soft descriptor limit the FUSE daemon is
 * started with (64, fist_fuse_mount()), each looked up and kept in the
 * caches: the daemon holds a descriptor for each, and raises its limit.
 */
TEST_F_TIMEOUT(stack, hundreds_of_files_stay_reachable, 120)
{
	char name[32];
	struct stat st;
	int bad = 0;

	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "many-%04d", i);
		if (fist_write_file(UPPER(name), "", 0))
			bad++;
	}
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "many-%04d", i);
		if (stat(UPPER(name), &st))
			bad++;
	}
	EXPECT_EQ(0, bad) TH_LOG("last error: %s", strerror(errno));
}

TEST_F(stack, changes_in_the_lower_directory_are_seen)
{
	char enc[sizeof(text)];
	struct stat st;

	EXPECT_EQ(-1, stat(UPPER("later"), &st));
	EXPECT_EQ(ENOENT, errno);
	memcpy(enc, text, sizeof(text));
	fist_encode_data(variant->fs, enc, strlen(text));
	ASSERT_EQ(0, fist_write_file(LOWER("later"), enc, strlen(text)));
	EXPECT_EQ(0, stat(UPPER("later"), &st));
	EXPECT_TRUE(same_content(UPPER("later"), text, strlen(text)));
	ASSERT_EQ(0, unlink(LOWER("later")));
	EXPECT_EQ(-1, stat(UPPER("later"), &st));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, mkdir(LOWER("sub"), 0755));
	ASSERT_EQ(0, fist_write_file(LOWER("moved"), "", 0));
	ASSERT_EQ(0, stat(UPPER("moved"), &st));
	ASSERT_EQ(0, rename(LOWER("moved"), LOWER("sub/moved")));
	EXPECT_EQ(-1, stat(UPPER("moved"), &st));
	EXPECT_EQ(0, stat(UPPER("sub/moved"), &st));
	/* Renamed in the same directory below: the old name is gone above. */
	ASSERT_EQ(0, rename(LOWER("sub/moved"), LOWER("sub/again")));
	EXPECT_EQ(-1, stat(UPPER("sub/moved"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, stat(UPPER("sub/again"), &st));
}

TEST_F(stack, umount_refused_while_busy)
{
	int fd;

	fd = open(UPPER("busy"), O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, umount(self->mnt));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	EXPECT_EQ(0, umount(self->mnt));
}

/*
 * A read lease on the lower file is refused while anyone has it open for
 * writing: the upper file open for writing, and only then.
 */
TEST_F(stack, the_lower_file_is_closed_with_the_last_upper_one)
{
	char want[sizeof(text)];
	int fd, lfd;

	ASSERT_EQ(0, fist_write_file(UPPER("lease"), text, strlen(text)));
	fd = open(UPPER("lease"), O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, pwrite(fd, "abcd", 4, 0));
	lfd = open(LOWER("lease"), O_RDONLY);
	ASSERT_LE(0, lfd);
	EXPECT_EQ(-1, fcntl(lfd, F_SETLEASE, F_RDLCK));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, close(fd));
	/*
	 * Closed: written back, and the lower file closed too.  FUSE sends
	 * the release after close() returns: the daemon closes it then.
	 */
	for (int i = 0; variant->fs->fuse && i < 500; i++) {
		if (!fcntl(lfd, F_SETLEASE, F_RDLCK))
			break;
		usleep(10000);
	}
	EXPECT_EQ(0, fcntl(lfd, F_SETLEASE, F_RDLCK)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, fcntl(lfd, F_SETLEASE, F_UNLCK));
	close(lfd);
	memcpy(want, text, sizeof(text));
	memcpy(want, "abcd", 4);
	EXPECT_TRUE(same_content(UPPER("lease"), want, strlen(text)));
	fist_encode_data(variant->fs, want, strlen(text));
	EXPECT_TRUE(same_content(LOWER("lease"), want, strlen(text)));
}

/* What uid 1000 sees and may do: run in a child by run_unprivileged(). */
static int unprivileged_view(void *arg)
{
	const char *path = arg;
	char list[256];
	ssize_t n;
	int fd;

	n = listxattr(path, list, sizeof(list));
	if (n < 0)
		return 1;
	for (ssize_t i = 0; i < n; i += strlen(list + i) + 1)
		if (!strncmp(list + i, "trusted.", 8))
			return 2;
	if (n != (ssize_t)sizeof("user.seen"))
		return 3;
	/* Its own set-user-ID file, written: the bit goes. */
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, "more", 4) != 4)
		return 4;
	close(fd);
	return 0;
}

TEST_F(stack, an_ordinary_user_sees_no_trusted_xattr_and_loses_set_user_id)
{
	struct stat st;
	char path[512];

	ASSERT_EQ(0, fist_write_file(UPPER("own"), "x", 1));
	ASSERT_EQ(0, setxattr(UPPER("own"), "trusted.hidden", "t", 1, 0));
	ASSERT_EQ(0, setxattr(UPPER("own"), "user.seen", "u", 1, 0));
	ASSERT_EQ(0, chown(UPPER("own"), 1000, 1000));
	ASSERT_EQ(0, chmod(UPPER("own"), 04755));
	/* Root still lists it. */
	EXPECT_LT(0, getxattr(UPPER("own"), "trusted.hidden", path, sizeof(path)));
	snprintf(path, sizeof(path), "%s", UPPER("own"));
	EXPECT_EQ(0, run_unprivileged(unprivileged_view, path));
	ASSERT_EQ(0, stat(LOWER("own"), &st));
	EXPECT_EQ(0, st.st_mode & S_ISUID);
}

TEST_HARNESS_MAIN
