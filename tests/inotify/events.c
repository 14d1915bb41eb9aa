// SPDX-License-Identifier: GPL-2.0
/*
 * Each kind of event, on a watched file and on a watched directory: the
 * record's wd, mask and name, in the order the kernel queues them; on
 * tmpfs and on ext4 (journalled, on a loop device), whose paths differ.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/xattr.h>

#include "kselftest_harness.h"
#include "ext4.h"
#include "devino.h"

FIXTURE(events) {
	int fd;
};

/* Every test on the tmpfs the tests run in, and on a fresh ext4 image. */
FIXTURE_VARIANT(events) {
	bool ext4;
};

FIXTURE_VARIANT_ADD(events, tmpfs) {
	.ext4 = false,
};

FIXTURE_VARIANT_ADD(events, ext4) {
	.ext4 = true,
};

FIXTURE_SETUP(events)
{
	int f;

	if (variant->ext4) {
		ASSERT_EQ(0, mkdir("x", 0755));
		ASSERT_EQ(0, rig_ext4_mount("x"));
		ASSERT_EQ(0, chdir("x"));
	}
	ASSERT_EQ(0, mkdir("d", 0755));
	ASSERT_EQ(0, mkdir("e", 0755));
	f = open("d/f", O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, f);
	ASSERT_EQ(5, write(f, "hello", 5));
	ASSERT_EQ(0, close(f));
	self->fd = devino_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(events)
{
	close(self->fd);
	system("rm -rf d e");
	if (variant->ext4) {
		chdir("..");
		umount2("x", MNT_DETACH);
		rmdir("x");
	}
}

static void touch_read(const char *path)
{
	char c;
	int f = open(path, O_RDONLY);

	if (f >= 0) {
		if (read(f, &c, 1) != 1)
			perror("read");
		close(f);
	}
}

TEST_F(events, open_access_close_on_file)
{
	int wd = devino_watch(self->fd, "d/f", IN_ALL_EVENTS);

	ASSERT_LE(0, wd);
	touch_read("d/f");
	EXPECT_RECORDS(self->fd, { wd, IN_OPEN, "" }, { wd, IN_ACCESS, "" },
		       { wd, IN_CLOSE, "" });
}

TEST_F(events, open_access_close_name_the_child_on_the_directory)
{
	int wd = devino_watch(self->fd, "d", IN_OPEN | IN_ACCESS | IN_CLOSE);

	ASSERT_LE(0, wd);
	touch_read("d/f");
	EXPECT_RECORDS(self->fd, { wd, IN_OPEN, "f" }, { wd, IN_ACCESS, "f" },
		       { wd, IN_CLOSE, "f" });
}

TEST_F(events, identical_consecutive_modifies_are_merged)
{
	int wd = devino_watch(self->fd, "d/f", IN_ALL_EVENTS);
	int f;

	ASSERT_LE(0, wd);
	f = open("d/f", O_WRONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(1, write(f, "a", 1));
	ASSERT_EQ(1, write(f, "b", 1));
	ASSERT_EQ(1, write(f, "c", 1));
	ASSERT_EQ(0, close(f));
	EXPECT_RECORDS(self->fd, { wd, IN_OPEN, "" }, { wd, IN_MODIFY, "" },
		       { wd, IN_CLOSE, "" });
}

TEST_F(events, attrib_reaches_the_file_and_its_directory)
{
	int dwd = devino_watch(self->fd, "d", IN_ATTRIB);
	int fwd = devino_watch(self->fd, "d/f", IN_ATTRIB);

	ASSERT_LE(0, dwd);
	ASSERT_LE(0, fwd);
	ASSERT_NE(dwd, fwd);
	ASSERT_EQ(0, chmod("d/f", 0600));
	EXPECT_RECORDS(self->fd, { dwd, IN_ATTRIB, "f" }, { fwd, IN_ATTRIB, "" });
}

TEST_F(events, a_mask_selects_the_events)
{
	int wd = devino_watch(self->fd, "d/f", IN_CLOSE);

	ASSERT_LE(0, wd);
	touch_read("d/f");
	ASSERT_EQ(0, chmod("d/f", 0600));
	EXPECT_RECORDS(self->fd, { wd, IN_CLOSE, "" });
}

TEST_F(events, every_kind_of_create_is_in_create)
{
	int wd = devino_watch(self->fd, "d", IN_CREATE | IN_DELETE);

	ASSERT_LE(0, wd);
	ASSERT_EQ(0, mknod("d/reg", S_IFREG | 0644, 0));
	ASSERT_EQ(0, mkfifo("d/fifo", 0644));
	ASSERT_EQ(0, mkdir("d/sub", 0755));
	ASSERT_EQ(0, symlink("f", "d/sym"));
	ASSERT_EQ(0, link("d/f", "d/hard"));
	EXPECT_RECORDS(self->fd, { wd, IN_CREATE, "reg" },
		       { wd, IN_CREATE, "fifo" }, { wd, IN_CREATE, "sub" },
		       { wd, IN_CREATE, "sym" }, { wd, IN_CREATE, "hard" });
}

TEST_F(events, unlink_and_rmdir_are_in_delete)
{
	int wd;

	ASSERT_EQ(0, mkdir("d/sub", 0755));
	wd = devino_watch(self->fd, "d", IN_CREATE | IN_DELETE);
	ASSERT_LE(0, wd);
	ASSERT_EQ(0, unlink("d/f"));
	ASSERT_EQ(0, rmdir("d/sub"));
	EXPECT_RECORDS(self->fd, { wd, IN_DELETE, "f" }, { wd, IN_DELETE, "sub" });
}

TEST_F(events, rename_in_a_directory_is_delete_and_create_with_move)
{
	int dwd = devino_watch(self->fd, "d", IN_ALL_EVENTS);
	int fwd = devino_watch(self->fd, "d/f", IN_ALL_EVENTS);

	ASSERT_LE(0, dwd);
	ASSERT_LE(0, fwd);
	ASSERT_EQ(0, rename("d/f", "d/g"));
	EXPECT_RECORDS(self->fd, { dwd, IN_DELETE | IN_MOVE, "f" },
		       { dwd, IN_CREATE | IN_MOVE, "g" }, { fwd, IN_RENAME, "" });
}

TEST_F(events, rename_across_directories_deletes_in_one_creates_in_other)
{
	int dwd = devino_watch(self->fd, "d", IN_ALL_EVENTS);
	int ewd = devino_watch(self->fd, "e", IN_ALL_EVENTS);

	ASSERT_LE(0, dwd);
	ASSERT_LE(0, ewd);
	ASSERT_EQ(0, rename("d/f", "e/f"));
	EXPECT_RECORDS(self->fd, { dwd, IN_DELETE | IN_MOVE, "f" },
		       { ewd, IN_CREATE | IN_MOVE, "f" });
}

TEST_F(events, rename_with_the_2004_mask_is_plain_delete_and_create)
{
	int wd = devino_watch(self->fd, "d", IN_CREATE | IN_DELETE);

	ASSERT_LE(0, wd);
	ASSERT_EQ(0, rename("d/f", "d/g"));
	EXPECT_RECORDS(self->fd, { wd, IN_DELETE, "f" }, { wd, IN_CREATE, "g" });
}

TEST_F(events, in_move_alone_reports_renames_only)
{
	int wd = devino_watch(self->fd, "d", IN_MOVE);

	ASSERT_LE(0, wd);
	ASSERT_EQ(0, mknod("d/reg", S_IFREG | 0644, 0));
	ASSERT_EQ(0, rename("d/f", "d/g"));
	ASSERT_EQ(0, unlink("d/reg"));
	EXPECT_RECORDS(self->fd, { wd, IN_MOVE, "f" }, { wd, IN_MOVE, "g" });
}

TEST_F(events, reading_a_directory_is_open_access_close_on_it)
{
	int wd = devino_watch(self->fd, "d", IN_OPEN | IN_ACCESS | IN_CLOSE);
	DIR *dir;

	ASSERT_LE(0, wd);
	dir = opendir("d");
	ASSERT_NE(NULL, dir);
	while (readdir(dir))
		;
	closedir(dir);
	EXPECT_RECORDS(self->fd, { wd, IN_OPEN, "" }, { wd, IN_ACCESS, "" },
		       { wd, IN_CLOSE, "" });
}

TEST_F(events, deleting_a_watched_file_ends_its_watch)
{
	int wd = devino_watch(self->fd, "d/f", IN_ALL_EVENTS);

	ASSERT_LE(0, wd);
	ASSERT_EQ(0, unlink("d/f"));
	EXPECT_RECORDS(self->fd, { wd, IN_ATTRIB, "" }, { wd, IN_IGNORED, "" });
	ASSERT_EQ(-EINVAL, devino_ignore(self->fd, wd));
}

/*
 * Setting or removing an extended attribute is IN_ATTRIB, on the file and,
 * with its name, on its directory.
 */
TEST_F(events, an_xattr_change_is_in_attrib)
{
	int dwd = devino_watch(self->fd, "d", IN_ATTRIB);
	int fwd = devino_watch(self->fd, "d/f", IN_ALL_EVENTS);

	ASSERT_LE(0, dwd);
	ASSERT_LE(0, fwd);
	ASSERT_EQ(0, setxattr("d/f", "user.x", "1", 1, 0));
	EXPECT_RECORDS(self->fd, { dwd, IN_ATTRIB, "f" }, { fwd, IN_ATTRIB, "" });
	ASSERT_EQ(0, removexattr("d/f", "user.x"));
	EXPECT_RECORDS(self->fd, { dwd, IN_ATTRIB, "f" }, { fwd, IN_ATTRIB, "" });
}

/*
 * The longest name tmpfs and ext4 take fills the record's filename up to
 * its last byte, the NUL.  (One byte longer is ENAMETOOLONG on both, so
 * the device's cut at 255 bytes, for file systems that allow longer
 * names, cannot be reached here.)
 */
TEST_F(events, a_255_byte_name_fills_the_record)
{
	int wd = devino_watch(self->fd, "d", IN_CREATE);
	struct inotify_event ev[2];
	char name[2 + 256 + 1];

	ASSERT_LE(0, wd);
	memcpy(name, "d/", 2);
	memset(name + 2, 'x', 256);
	name[2 + 256] = '\0';
	ASSERT_EQ(-1, mknod(name, S_IFREG | 0644, 0));
	ASSERT_EQ(ENAMETOOLONG, errno);
	name[2 + 255] = '\0';
	ASSERT_EQ(0, mknod(name, S_IFREG | 0644, 0));
	ASSERT_EQ(1, devino_drain(self->fd, ev, ARRAY_LEN(ev)));
	ASSERT_EQ(wd, ev[0].wd);
	ASSERT_EQ(IN_CREATE, ev[0].mask);
	ASSERT_EQ(0, memcmp(ev[0].filename, name + 2, 255));
	ASSERT_EQ(0, ev[0].filename[255]);
}

/*
 * Open an instance, make it queue a record, ask FIONREAD and read the
 * record back (a read that returns data is what makes IN_ACCESS), close
 * it.  0, or -1 if any of it failed.
 */
static int use_an_instance(void)
{
	struct inotify_event ev;
	int fd = devino_open(O_NONBLOCK);
	int q = 0, ok;

	if (fd < 0)
		return -1;
	ok = devino_watch(fd, "d", IN_ATTRIB) >= 0 && !chmod("d", 0700) &&
	     !ioctl(fd, FIONREAD, &q) && q == REC_SIZE &&
	     read(fd, &ev, sizeof(ev)) == REC_SIZE && ev.mask == IN_ATTRIB;
	return close(fd) || !ok ? -1 : 0;
}

TEST_F(events, using_the_device_makes_no_events_in_dev)
{
	struct inotify_event ev[64];
	int wd = devino_watch(self->fd, "/dev", IN_ALL_EVENTS);
	int n, i;

	ASSERT_LE(0, wd);
	ASSERT_EQ(0, use_an_instance());
	n = devino_drain(self->fd, ev, ARRAY_LEN(ev));
	ASSERT_LE(0, n);
	for (i = 0; i < n; i++) {
		if (!strcmp(ev[i].filename, "inotify"))
			devino_print("unexpected", &ev[i]);
		EXPECT_STRNE("inotify", ev[i].filename);
	}
	/* and a watcher of /dev/inotify itself sees nothing either */
	ASSERT_EQ(0, devino_ignore(self->fd, wd));
	EXPECT_RECORDS(self->fd, { wd, IN_IGNORED, "" });
	wd = devino_watch(self->fd, DEVINO_PATH, IN_ALL_EVENTS);
	ASSERT_LE(0, wd);
	ASSERT_EQ(0, use_an_instance());
	EXPECT_NO_RECORDS(self->fd);
}

TEST_HARNESS_MAIN
