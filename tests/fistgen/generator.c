// SPDX-License-Identifier: GPL-2.0
/*
 * fistgen itself: every example generates the files a module build needs,
 * and with -T fuse those a FUSE daemon's build needs, the same ones each
 * time; rules using the kernel's objects are refused for the FUSE target; every malformed description in bad/ is refused
 * with the error its first line expects ("// expect: LINE:COL: message"),
 * exit status 1, and nothing written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fist_test.h"

#define FIST_DATA "/tests/fistgen/fist"
#define OUT FIST_DIR "/gen"

/*
 * Runs fistgen -T @target (or with no -T if NULL) on @fist into @out: its
 * exit status, stderr in @err.
 */
static int fistgen_for(const char *target, const char *fist, const char *out,
		       char *err, size_t size)
{
	int pipefd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		if (target)
			execl("/bin/fistgen", "fistgen", "-T", target, "-t",
			      FIST_DATA "/templates", "-o", out, fist, (char *)NULL);
		else
			execl("/bin/fistgen", "fistgen", "-t", FIST_DATA "/templates",
			      "-o", out, fist, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], err + got, size - 1 - got)) > 0)
		got += n;
	err[got] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int fistgen(const char *fist, const char *out, char *err, size_t size)
{
	return fistgen_for(NULL, fist, out, err, size);
}

static bool exists(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Does any generated file still hold a template marker or name? */
static bool has_leftovers(const char *dir)
{
	struct dirent *d;
	bool found = false;
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp))) {
		char path[512], *text;
		size_t len;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		text = fist_read_file(path, &len);
		if (text && (strstr(text, "@fs@") || strstr(text, "@FS@") ||
			     strstr(text, "/*@") || strstr(text, "$ret") ||
			     strstr(text, "%pervfs")))
			found = true;
		free(text);
	}
	if (dp)
		closedir(dp);
	return found;
}

static bool same_files(const char *a, const char *b, const char *name)
{
	char pa[512], pb[512], *ta, *tb;
	size_t la = 0, lb = 0;
	bool same;

	snprintf(pa, sizeof(pa), "%s/%s", a, name);
	snprintf(pb, sizeof(pb), "%s/%s", b, name);
	ta = fist_read_file(pa, &la);
	tb = fist_read_file(pb, &lb);
	same = ta && tb && la == lb && !memcmp(ta, tb, la);
	free(ta);
	free(tb);
	return same;
}

struct example {
	const char *name;
	const char *files[8];	/* must be generated */
	const char *absent[6];	/* must not */
	const char *objs;	/* the Kbuild's object list */
};

static const struct example examples[] = {
	{ "wrapfs", { "Kbuild", "wrapfs.h", "super.c", "inode.c", "file.c" },
	  { "data.c", "fist.c", "wrapfs_ioctl.h" },
	  "wrapfs-y := super.o inode.o file.o\n" },
	{ "rot13fs", { "Kbuild", "rot13fs.h", "super.c", "inode.c", "file.c",
		       "data.c", "fist.c" },
	  { "rot13fs_ioctl.h" },
	  "rot13fs-y := super.o inode.o file.o data.o fist.o\n" },
	{ "countfs", { "Kbuild", "countfs.h", "countfs_ioctl.h", "super.c",
		       "inode.c", "file.c" },
	  { "data.c", "fist.c" },
	  "countfs-y := super.o inode.o file.o\n" },
	{ "caesarfs", { "Kbuild", "caesarfs.h", "super.c", "inode.c", "file.c",
			"data.c", "fist.c" },
	  { "caesarfs_ioctl.h" },
	  "caesarfs-y := super.o inode.o file.o data.o fist.o\n" },
};

TEST(every_example_generates_a_module_source_tree)
{
	char err[4096], fist[512], out[256], again[256], *kbuild;
	size_t len;

	mkdir(FIST_DIR, 0755);
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		const struct example *ex = &examples[i];

		snprintf(fist, sizeof(fist), FIST_DATA "/examples/%s.fist", ex->name);
		snprintf(out, sizeof(out), OUT "-%s", ex->name);
		snprintf(again, sizeof(again), OUT "-%s-again", ex->name);
		ASSERT_EQ(0, fistgen(fist, out, err, sizeof(err))) TH_LOG("%s", err);
		EXPECT_STREQ("", err);
		for (int f = 0; ex->files[f]; f++) {
			EXPECT_TRUE(exists(out, ex->files[f]))
				TH_LOG("%s: no %s", ex->name, ex->files[f]);
		}
		for (int f = 0; ex->absent[f]; f++) {
			EXPECT_FALSE(exists(out, ex->absent[f]))
				TH_LOG("%s: %s generated", ex->name, ex->absent[f]);
		}
		EXPECT_FALSE(exists(out, "../gen.tmp"));
		EXPECT_FALSE(has_leftovers(out)) TH_LOG("%s", ex->name);
		snprintf(fist, sizeof(fist), "%s/Kbuild", out);
		kbuild = fist_read_file(fist, &len);
		ASSERT_NE(NULL, kbuild);
		EXPECT_NE(NULL, strstr(kbuild, ex->objs)) TH_LOG("%s", kbuild);
		free(kbuild);

		/* The same description gives the same files. */
		snprintf(fist, sizeof(fist), FIST_DATA "/examples/%s.fist", ex->name);
		ASSERT_EQ(0, fistgen(fist, again, err, sizeof(err)));
		for (int f = 0; ex->files[f]; f++) {
			EXPECT_TRUE(same_files(out, again, ex->files[f]))
				TH_LOG("%s: %s differs between two runs", ex->name,
				       ex->files[f]);
		}
	}
}

/* The same examples, for the FUSE target: a daemon's source and Makefile. */
static const struct example fuse_examples[] = {
	{ "wrapfs", { "Makefile", "wrapfs.h", "wrapfs_fuse.c" },
	  { "Kbuild", "super.c", "fist.c", "wrapfs_ioctl.h" },
	  "wrapfs-fuse: wrapfs_fuse.c wrapfs.h\n" },
	{ "rot13fs", { "Makefile", "rot13fs.h", "rot13fs_fuse.c", "fist.c" },
	  { "Kbuild", "data.c", "rot13fs_ioctl.h" },
	  "rot13fs-fuse: rot13fs_fuse.c fist.c rot13fs.h\n" },
	{ "countfs", { "Makefile", "countfs.h", "countfs_fuse.c", "countfs_ioctl.h" },
	  { "Kbuild", "inode.c", "fist.c" },
	  "countfs-fuse: countfs_fuse.c countfs.h countfs_ioctl.h\n" },
	{ "caesarfs", { "Makefile", "caesarfs.h", "caesarfs_fuse.c", "fist.c" },
	  { "Kbuild", "file.c" },
	  "caesarfs-fuse: caesarfs_fuse.c fist.c caesarfs.h\n" },
};

TEST(every_example_generates_a_fuse_daemon_source_tree)
{
	char err[4096], fist[512], out[256], again[256], *text;
	size_t len;

	mkdir(FIST_DIR, 0755);
	for (size_t i = 0; i < sizeof(fuse_examples) / sizeof(fuse_examples[0]); i++) {
		const struct example *ex = &fuse_examples[i];

		snprintf(fist, sizeof(fist), FIST_DATA "/examples/%s.fist", ex->name);
		snprintf(out, sizeof(out), OUT "-fuse-%s", ex->name);
		snprintf(again, sizeof(again), OUT "-fuse-%s-again", ex->name);
		ASSERT_EQ(0, fistgen_for("fuse", fist, out, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_STREQ("", err);
		for (int f = 0; ex->files[f]; f++) {
			EXPECT_TRUE(exists(out, ex->files[f]))
				TH_LOG("%s: no %s", ex->name, ex->files[f]);
		}
		for (int f = 0; ex->absent[f]; f++) {
			EXPECT_FALSE(exists(out, ex->absent[f]))
				TH_LOG("%s: %s generated", ex->name, ex->absent[f]);
		}
		EXPECT_FALSE(has_leftovers(out)) TH_LOG("%s", ex->name);
		snprintf(fist, sizeof(fist), "%s/Makefile", out);
		text = fist_read_file(fist, &len);
		ASSERT_NE(NULL, text);
		EXPECT_NE(NULL, strstr(text, ex->objs)) TH_LOG("%s", text);
		free(text);

		snprintf(fist, sizeof(fist), FIST_DATA "/examples/%s.fist", ex->name);
		ASSERT_EQ(0, fistgen_for("fuse", fist, again, err, sizeof(err)));
		for (int f = 0; ex->files[f]; f++) {
			EXPECT_TRUE(same_files(out, again, ex->files[f]))
				TH_LOG("%s: %s differs between two runs", ex->name,
				       ex->files[f]);
		}
	}
}

/*
 * A rule's $N and %sb are kernel objects, and a getattr call rule must
 * make the attributes: fine for the module, an error where they are for
 * the FUSE target, which generates nothing.
 */
TEST(the_fuse_target_refuses_the_kernels_objects)
{
	static const char fist[] = "%%\n%op:unlink:precall {\n"
		"\tif (!$0)\n\t\t$ret = -EINVAL;\n}\n"
		"%op:read:postcall {\n\tif (%sb)\n\t\t$ret = 0;\n}\n"
		"%op:getattr:call {\n\t$ret = -EPERM;\n}\n";
	char err[4096];

	mkdir(FIST_DIR, 0755);
	ASSERT_EQ(0, fist_write_file(FIST_DIR "/kernelish.fist", fist, strlen(fist)));
	EXPECT_EQ(0, fistgen(FIST_DIR "/kernelish.fist", OUT "-kernelish", err,
			     sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(1, fistgen_for("fuse", FIST_DIR "/kernelish.fist",
				 OUT "-kernelish-fuse", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, FIST_DIR "/kernelish.fist:3:7: $0 of unlink is a kernel object"))
		TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, FIST_DIR "/kernelish.fist:7:6: %sb is the kernel's super_block"))
		TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, FIST_DIR "/kernelish.fist:10:13: getattr cannot have a call rule in the fuse target"))
		TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "3 errors; nothing generated"));
	EXPECT_NE(0, access(OUT "-kernelish-fuse", F_OK));
}

TEST(every_malformed_description_is_refused_where_it_is_wrong)
{
	char err[4096], path[512], want[1024], out[256], *text;
	struct dirent *d;
	int checked = 0;
	size_t len;
	DIR *dir;

	mkdir(FIST_DIR, 0755);
	dir = opendir(FIST_DATA "/bad");
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir))) {
		char *nl;

		if (!strstr(d->d_name, ".fist"))
			continue;
		snprintf(path, sizeof(path), FIST_DATA "/bad/%s", d->d_name);
		text = fist_read_file(path, &len);
		ASSERT_NE(NULL, text);
		ASSERT_EQ(0, strncmp(text, "// expect: ", 11)) TH_LOG("%s", path);
		nl = strchr(text, '\n');
		ASSERT_NE(NULL, nl);
		*nl = '\0';
		snprintf(want, sizeof(want), "%s:%s\n", path, text + 11);
		free(text);

		/* An earlier output is left as it was. */
		snprintf(out, sizeof(out), OUT "-bad");
		mkdir(out, 0755);
		ASSERT_EQ(0, fist_write_file(OUT "-bad/keep", "k", 1));
		EXPECT_EQ(1, fistgen(path, out, err, sizeof(err))) TH_LOG("%s", path);
		EXPECT_EQ(0, strncmp(err, want, strlen(want)))
			TH_LOG("%s: expected\n%sgot\n%s", d->d_name, want, err);
		EXPECT_NE(NULL, strstr(err, "nothing generated"));
		EXPECT_TRUE(exists(out, "keep"));
		EXPECT_FALSE(exists(out, "Kbuild"));
		EXPECT_NE(0, access(OUT "-bad.tmp", F_OK));
		checked++;
	}
	closedir(dir);
	EXPECT_LE(20, checked);
}

/* A rule's string literals and comments are copied as they are. */
TEST(variables_in_literals_are_left_alone)
{
	static const char fist[] = "%%\n%op:unlink:postcall {\n\t/* $ret of %op */\n"
		"\tpr_debug(\"%op %sbytes $7 %s\\n\", %op);\n}\n";

	char err[4096], *text;
	size_t len;

	mkdir(FIST_DIR, 0755);
	ASSERT_EQ(0, fist_write_file(FIST_DIR "/literal.fist", fist, strlen(fist)));
	ASSERT_EQ(0, fistgen(FIST_DIR "/literal.fist", OUT "-literal", err,
			     sizeof(err))) TH_LOG("%s", err);
	text = fist_read_file(OUT "-literal/inode.c", &len);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "/* $ret of %op */"));
	EXPECT_NE(NULL, strstr(text, "pr_debug(\"%op %sbytes $7 %s\\n\", \"unlink\");"));
	free(text);
}

TEST(usage_errors)
{
	char err[4096];

	EXPECT_EQ(2, fistgen(FIST_DATA "/examples/missing.fist", OUT "-x", err,
			     sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "No such file"));
	EXPECT_EQ(2, fistgen(FIST_DATA "/templates/super.c", OUT "-x", err,
			     sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "ends in .fist"));
	EXPECT_EQ(2, fistgen_for("bsd", FIST_DATA "/examples/wrapfs.fist",
				 OUT "-x", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "usage: fistgen [-T kernel|fuse]"));
}

TEST_HARNESS_MAIN
