/* SPDX-License-Identifier: GPL-2.0 */
/* Run as the guest's ordinary user: uid/gid 1000, no capabilities. */
#ifndef RIG_UNPRIV_H
#define RIG_UNPRIV_H

#include <sys/types.h>

#define RIG_USER_UID	1000
#define RIG_USER_GID	1000

/*
 * Become uid/gid 1000 with no supplementary groups and every capability set
 * (effective, permitted, inheritable, ambient) empty.  Returns 0, or -1 with
 * errno set; on failure the caller's credentials may be partly changed, so
 * call it in a child process.
 */
int become_unprivileged(void);

/*
 * As uid 1000 (become_unprivileged()), become root of a new user namespace
 * that maps uid and gid 0 to 1000, setgroups() denied.  Returns 0 or -1.
 */
int become_root_of_a_user_ns(void);

/*
 * Fork, become unprivileged in the child, run fn(arg) there and return its
 * exit status (0..255), or -1 if the child could not be created or did not
 * exit normally.
 */
int run_unprivileged(int (*fn)(void *arg), void *arg);

#endif /* RIG_UNPRIV_H */
