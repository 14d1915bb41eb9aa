/* SPDX-License-Identifier: GPL-2.0 */
/* Read the kernel log, and announce a kernel warning a test provokes. */
#ifndef RIG_KMSG_H
#define RIG_KMSG_H

/*
 * How many records of the kernel log (/dev/kmsg, from the start) contain
 * text, not counting the "rig: expect-warning" announcements of it.
 * Returns the count or -errno.
 */
int kmsg_count(const char *text);

/*
 * Tell the rig's log checker that the kernel is about to print a warning
 * naming text, once: that one warning is then not a failure, and the run
 * fails if it never comes.  Returns 0 or -errno.
 */
int expect_kernel_warning(const char *text);

#endif /* RIG_KMSG_H */
