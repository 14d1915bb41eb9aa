// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/loop.h>

#include "ext4.h"

/* The image beside the running program: /tests/GROUP/ext4.img. */
static int image_path(char *path, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", path, size - sizeof("ext4.img"));
	char *slash;

	if (n < 0)
		return -errno;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return -ENOENT;
	strcpy(slash + 1, "ext4.img");
	return 0;
}

/* Copy src to a new unlinked file in /tmp, leaving holes for zero blocks. */
static int copy_image(const char *src)
{
	static char buf[65536], zero[sizeof(buf)];
	int in = open(src, O_RDONLY | O_CLOEXEC), out, ret = 0;
	ssize_t r;
	off_t end = 0;

	if (in < 0)
		return -errno;
	out = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (out < 0) {
		ret = -errno;
		goto close_in;
	}
	while ((r = read(in, buf, sizeof(buf))) > 0) {
		if (memcmp(buf, zero, r)) {
			ssize_t w = pwrite(out, buf, r, end);

			if (w != r) {
				ret = w < 0 ? -errno : -EIO;
				break;
			}
		}
		end += r;
	}
	if (r < 0)
		ret = -errno;
	if (!ret && ftruncate(out, end))
		ret = -errno;
	if (ret) {
		close(out);
		out = ret;
	}
close_in:
	close(in);
	return ret ? ret : out;
}

int rig_ext4_mount(const char *dir)
{
	struct loop_config cfg = { .info.lo_flags = LO_FLAGS_AUTOCLEAR };
	char img[PATH_MAX], dev[32];
	int ctl, loop = -1, n, ret = 0, tries;

	ret = image_path(img, sizeof(img));
	if (ret)
		return ret;
	cfg.fd = copy_image(img);
	if ((int)cfg.fd < 0)
		return cfg.fd;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		ret = -errno;
		goto close_img;
	}
	/* another task may take the free device first: EBUSY, try again */
	for (tries = 0; tries < 10; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) {
			ret = -errno;
			break;
		}
		snprintf(dev, sizeof(dev), "/dev/loop%d", n);
		loop = open(dev, O_RDWR | O_CLOEXEC);
		if (loop < 0) {
			ret = -errno;
			break;
		}
		ret = ioctl(loop, LOOP_CONFIGURE, &cfg) ? -errno : 0;
		if (ret != -EBUSY)
			break;
		close(loop);
		loop = -1;
	}
	close(ctl);
	if (loop < 0)
		goto close_img;
	if (!ret && mount(dev, dir, "ext4", 0, NULL))
		ret = -errno;
	if (!ret && chmod(dir, 0777))
		ret = -errno;
	/* The mount keeps the device; autoclear detaches it at umount. */
	close(loop);
close_img:
	close(cfg.fd);
	return ret;
}
