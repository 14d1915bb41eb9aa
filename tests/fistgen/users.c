// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what through a stacked mount: an ordinary user (uid 1000,
 * no capabilities) is checked on the upper inode as the lower file system
 * would check it, and what it creates belongs to it below; and an
 * idmapped mount of the stacked file system maps owners both ways.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fist_test.h"
#include "unpriv.h"

FIST_FIXTURE(users)

struct paths {
	const char *mine, *secret, *closed;
};

/* What uid 1000 may and may not do: an exit status, 0 if as expected. */
static int as_user(void *arg)
{
	const struct paths *p = arg;
	int fd;

	fd = open(p->mine, O_WRONLY | O_CREAT, 0600);
	if (fd < 0 || write(fd, "mine", 4) != 4)
		return 1;
	close(fd);
	if (open(p->secret, O_RDONLY) >= 0 || errno != EACCES)
		return 2;
	if (chown(p->mine, 0, 0) == 0 || errno != EPERM)
		return 3;
	if (open(p->closed, O_WRONLY | O_CREAT, 0644) >= 0 || errno != EACCES)
		return 4;
	if (chmod(p->secret, 0777) == 0 || errno != EPERM)
		return 5;
	return 0;
}

TEST_F(users, an_ordinary_user_is_checked_and_owns_what_it_creates)
{
	struct paths p;
	struct stat st;
	char mine[512], secret[512], closed[512];

	ASSERT_EQ(0, fist_write_file(UPPER("secret"), "s", 1));
	ASSERT_EQ(0, chmod(UPPER("secret"), 0600));
	ASSERT_EQ(0, mkdir(UPPER("closed"), 0755));
	ASSERT_EQ(0, chmod(self->mnt, 0777));
	snprintf(mine, sizeof(mine), "%s", UPPER("mine"));
	snprintf(secret, sizeof(secret), "%s", UPPER("secret"));
	snprintf(closed, sizeof(closed), "%s", UPPER("closed/new"));
	p.mine = mine;
	p.secret = secret;
	p.closed = closed;
	EXPECT_EQ(0, run_unprivileged(as_user, &p));
	ASSERT_EQ(0, stat(LOWER("mine"), &st));
	EXPECT_EQ(RIG_USER_UID, st.st_uid);
	EXPECT_EQ(RIG_USER_GID, st.st_gid);
	EXPECT_EQ(0600, st.st_mode & 0777);
	EXPECT_EQ(-1, access(LOWER("closed/new"), F_OK));
}

/* uid 1000 creates in a set-group-ID directory, and a set-user-ID file. */
static int create_special(void *arg)
{
	const struct paths *p = arg;
	int fd;

	umask(022);
	fd = open(p->mine, O_WRONLY | O_CREAT, 04755);
	if (fd < 0)
		return 1;
	close(fd);
	fd = open(p->secret, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return 2;
	close(fd);
	if (mkdir(p->closed, 0755))
		return 3;
	return 0;
}

/*
 * What a user creates gets the group of a set-group-ID directory, and
 * keeps the set-user-ID bit it was created with, below as above.
 */
TEST_F(users, creations_keep_the_directorys_group_and_set_user_id)
{
	char mine[512], file[512], dir[512];
	struct paths p = { mine, file, dir };
	struct stat st;

	ASSERT_EQ(0, chmod(self->mnt, 0777));
	ASSERT_EQ(0, mkdir(UPPER("shared"), 0777));
	ASSERT_EQ(0, chown(UPPER("shared"), 0, 2000));
	ASSERT_EQ(0, chmod(UPPER("shared"), 02777));
	snprintf(mine, sizeof(mine), "%s", UPPER("suid"));
	snprintf(file, sizeof(file), "%s", UPPER("shared/file"));
	snprintf(dir, sizeof(dir), "%s", UPPER("shared/dir"));
	ASSERT_EQ(0, run_unprivileged(create_special, &p));
	ASSERT_EQ(0, stat(LOWER("suid"), &st));
	EXPECT_EQ(RIG_USER_UID, st.st_uid);
	EXPECT_EQ(04755, st.st_mode & 07777);
	ASSERT_EQ(0, stat(LOWER("shared/file"), &st));
	EXPECT_EQ(RIG_USER_UID, st.st_uid);
	EXPECT_EQ(2000, st.st_gid);
	ASSERT_EQ(0, stat(LOWER("shared/dir"), &st));
	EXPECT_EQ(2000, st.st_gid);
	EXPECT_TRUE(st.st_mode & S_ISGID);
}

/* uid 1000: paths[0] refused by its ACL (EACCES), paths[1] readable. */
static int read_as_acls_say(void *arg)
{
	const char *const *paths = arg;
	int fd;

	fd = open(paths[0], O_RDONLY);
	if (fd >= 0)
		return 1;
	if (errno != EACCES)
		return 2;
	fd = open(paths[1], O_RDONLY);
	if (fd < 0)
		return 3;
	close(fd);
	return 0;
}

/*
 * A lower file whose ACL denies uid 1000 what its mode bits allow others
 * is denied above too; its twin without the ACL is not.
 */
TEST_F(users, a_lower_acl_is_enforced_above)
{
	/* system.posix_acl_access: u::rw- u:1000:--- g::r-- m::r-- o::r-- */
	struct {
		__u32 version;
		struct {
			__u16 tag, perm;
			__u32 id;
		} e[5];
	} acl = { 2, {
		{ 0x01, 6, -1 }, { 0x02, 0, RIG_USER_UID }, { 0x04, 4, -1 },
		{ 0x10, 4, -1 }, { 0x20, 4, -1 },
	} };
	char denied[512], plain[512];
	const char *paths[2] = { denied, plain };

	ASSERT_EQ(0, fist_write_file(LOWER("acl"), "a", 1));
	ASSERT_EQ(0, fist_write_file(LOWER("plain"), "p", 1));
	ASSERT_EQ(0, chmod(LOWER("acl"), 0644));
	ASSERT_EQ(0, chmod(LOWER("plain"), 0644));
	ASSERT_EQ(0, setxattr(LOWER("acl"), "system.posix_acl_access", &acl,
			      sizeof(acl), 0)) TH_LOG("%s", strerror(errno));
	snprintf(denied, sizeof(denied), "%s", UPPER("acl"));
	snprintf(plain, sizeof(plain), "%s", UPPER("plain"));
	EXPECT_EQ(0, run_unprivileged(read_as_acls_say, paths));
}

/* uid 1000 with umask 077 creates @arg with mode 0666. */
static int create_with_umask_077(void *arg)
{
	int fd;

	umask(077);
	fd = open(arg, O_WRONLY | O_CREAT, 0666);
	if (fd < 0)
		return 1;
	close(fd);
	return 0;
}

/*
 * In a lower directory with a default ACL, the ACL, not the caller's
 * umask, gives a new file's mode, as on the lower file system itself;
 * elsewhere the umask does.
 */
TEST_F(users, a_default_acl_replaces_the_umask)
{
	/* system.posix_acl_default: u::rwx g::rwx o::--- */
	struct {
		__u32 version;
		struct {
			__u16 tag, perm;
			__u32 id;
		} e[3];
	} acl = { 2, { { 0x01, 7, -1 }, { 0x04, 7, -1 }, { 0x20, 0, -1 } } };
	char path[512];
	struct stat st;

	ASSERT_EQ(0, mkdir(UPPER("dacl"), 0777));
	ASSERT_EQ(0, chown(UPPER("dacl"), RIG_USER_UID, RIG_USER_GID));
	ASSERT_EQ(0, setxattr(LOWER("dacl"), "system.posix_acl_default", &acl,
			      sizeof(acl), 0)) TH_LOG("%s", strerror(errno));
	snprintf(path, sizeof(path), "%s", UPPER("dacl/new"));
	ASSERT_EQ(0, run_unprivileged(create_with_umask_077, path));
	ASSERT_EQ(0, stat(LOWER("dacl/new"), &st));
	EXPECT_EQ(0660, st.st_mode & 0777);
	/* Without one, the umask. */
	ASSERT_EQ(0, mkdir(UPPER("nodacl"), 0777));
	ASSERT_EQ(0, chown(UPPER("nodacl"), RIG_USER_UID, RIG_USER_GID));
	snprintf(path, sizeof(path), "%s", UPPER("nodacl/new"));
	ASSERT_EQ(0, run_unprivileged(create_with_umask_077, path));
	ASSERT_EQ(0, stat(LOWER("nodacl/new"), &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
}

/*
 * A user namespace mapping 1000 inside to 2000 outside, as an fd: an
 * idmapped mount with it shows what is 1000's on disk as 2000's.
 */
static int userns_fd(pid_t *pid)
{
	int sync[2], fd;
	char path[64], c;

	if (pipe(sync))
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		close(sync[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		(void)!read(sync[0], &c, 1);	/* until killed */
		_exit(0);
	}
	close(sync[0]);
	usleep(100000);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", *pid);
	if (fist_write_file(path, "1000 2000 1", 11))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", *pid);
	if (fist_write_file(path, "1000 2000 1", 11))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", *pid);
	fd = open(path, O_RDONLY);
	close(sync[1]);
	return fd;
}

/*
 * Creates @path with fs ids 2000, the mapped owner through the idmap:
 * 0 or the errno.
 */
static int create_as_2000(const char *path)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		setfsgid(2000);
		setfsuid(2000);
		_exit(-fist_write_file(path, "2", 1));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(users, an_idmapped_mount_maps_owners_both_ways)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	char idmnt[128], path[256];
	struct stat st;
	int tree, status;
	pid_t pid;

	snprintf(idmnt, sizeof(idmnt), "%s-idmapped", self->mnt);
	mkdir(idmnt, 0755);
	ASSERT_EQ(0, chmod(self->mnt, 0777));
	ASSERT_EQ(0, fist_write_file(UPPER("owned"), "o", 1));
	ASSERT_EQ(0, chown(UPPER("owned"), 1000, 1000));
	ASSERT_EQ(0, mkdir(UPPER("dir"), 0755));
	ASSERT_EQ(0, chown(UPPER("dir"), 1000, 1000));

	attr.userns_fd = userns_fd(&pid);
	ASSERT_LE(0, (int)attr.userns_fd);
	tree = open_tree(AT_FDCWD, self->mnt, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	ASSERT_LE(0, tree);
	if (variant->fs->fuse) {
		/*
		 * FUSE allows idmapped mounts only when the daemon answers
		 * FUSE_ALLOW_IDMAP, which libfuse 3.14 cannot send.
		 */
		EXPECT_EQ(-1, mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)));
		EXPECT_EQ(EINVAL, errno);
		close(tree);
		close(attr.userns_fd);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		rmdir(idmnt);
		return;
	}
	ASSERT_EQ(0, mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)))
		TH_LOG("mount_setattr: %s", strerror(errno));
	ASSERT_EQ(0, move_mount(tree, "", AT_FDCWD, idmnt, MOVE_MOUNT_F_EMPTY_PATH));
	close(tree);
	close(attr.userns_fd);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);

	snprintf(path, sizeof(path), "%s/owned", idmnt);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(2000, st.st_uid);
	EXPECT_EQ(2000, st.st_gid);
	/*
	 * Created through the idmapped mount by 2000: 1000's below.  (The
	 * VFS refuses writes to a directory whose owner is not mapped, like
	 * the root, owned by root: this one is 1000's.)
	 */
	snprintf(path, sizeof(path), "%s/dir/made", idmnt);
	EXPECT_EQ(0, create_as_2000(path)) TH_LOG("%s", strerror(create_as_2000(path)));
	ASSERT_EQ(0, stat(LOWER("dir/made"), &st));
	EXPECT_EQ(1000, st.st_uid);
	EXPECT_EQ(1000, st.st_gid);
	/* chown through it, to 2000: 1000 below. */
	ASSERT_EQ(0, fist_write_file(UPPER("given"), "g", 1));
	snprintf(path, sizeof(path), "%s/given", idmnt);
	ASSERT_EQ(0, chown(path, 2000, 2000));
	ASSERT_EQ(0, stat(LOWER("given"), &st));
	EXPECT_EQ(1000, st.st_uid);
	/* Root is not mapped there: it cannot create. */
	snprintf(path, sizeof(path), "%s/dir/root", idmnt);
	EXPECT_EQ(-EOVERFLOW, fist_write_file(path, "r", 1));
	umount2(idmnt, MNT_DETACH);
	rmdir(idmnt);
}

TEST_HARNESS_MAIN
