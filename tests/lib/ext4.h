/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fresh ext4 file system on a loop device, for tests that watch a
 * journalling file system on a real block device beside tmpfs.  The image
 * is made on the host by mkfs.ext4 (a group asks with "ext4-image=yes" in
 * its group.conf) and sits beside the test programs; each mount works on
 * its own copy of it, so every test starts from an empty file system.
 */
#ifndef RIG_EXT4_H
#define RIG_EXT4_H

/*
 * Copy the group's image, attach the copy to a free loop device (which
 * detaches itself at the last unmount) and mount it at dir, which must
 * exist.  The root directory is made mode 0777 so that other users can
 * work in it too.  0, or -errno.
 */
int rig_ext4_mount(const char *dir);

#endif /* RIG_EXT4_H */
