/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run one operation with each of its fault points failing in turn: the
 * kernel's per-task fail-nth (/proc/thread-self/fail-nth) makes the n-th
 * fault point this thread reaches (a slab or page allocation) fail, for
 * n = 1, 2, 3... until the operation completes without reaching the n-th.
 * This is how syzkaller and the kernel's own selftests walk error paths.
 */
#ifndef RIG_FAULT_H
#define RIG_FAULT_H

#include <stdbool.h>

/* The operation: 0 on success, -errno on failure. */
typedef int (*fault_op_t)(void *arg);

/*
 * After a failed try: 0 if the state the operation would change is as it
 * was (the caller's own check), or a negative number, which stops the loop.
 * After a try that succeeded although its fault was injected (the kernel
 * fell back, or retried), the operation's effect must be undone: the same
 * callback is then called with err 0 and must undo it, returning 0.
 */
typedef int (*fault_check_t)(void *arg, int err);

struct fault_run {
	int tries;		/* operations run, the last one clean */
	int failed;		/* tries that failed with an allowed errno */
	int recovered;		/* tries that succeeded despite the fault */
	int bad_errno;		/* first errno that is not an allocation one */
	int bad_try;		/* the try that gave it, or failed the check */
	int check_err;		/* what the check returned there */
};

/*
 * Whether this kernel can inject faults per task: the debug kernel, with
 * failslab and fail_page_alloc.  The loop runs there only.  fail-nth
 * counts the fault points of the calling thread only: what another task
 * allocates for the operation (kthreadd forking a kthread, a worker) is
 * not failed by it.
 */
bool fault_injection_available(void);

/*
 * Make GFP_KERNEL allocations eligible for fail-nth (probability stays 0,
 * so nothing else fails), and quiet.  0 or -errno.  The settings stay for
 * the rest of the boot: with probability 0 they fail nothing but what a
 * task's own fail-nth asks for.
 */
int fault_injection_setup(void);

/*
 * The loop: op under fail-nth for n = 1..max_tries.  It may run in a
 * process that changed its uid (run_unprivileged()): it then makes the
 * process dumpable again, so that its fail-nth is its own to write.  Returns 0 when op
 * succeeded with no fault left to inject and every failed try gave an
 * allocation errno (ENOMEM, EAGAIN, ENOSPC, EINTR, ENOBUFS) and passed
 * check (EINTR, EAGAIN, ENOSPC and ENOBUFS are what some callers turn a
 * failed allocation into); otherwise -EPROTO (see run->bad_*), -E2BIG if
 * op still reached its max_tries-th fault point, or -errno if fail-nth
 * could not be used.
 */
int fault_loop(fault_op_t op, fault_check_t check, void *arg, int max_tries,
	       struct fault_run *run);

/*
 * Print what the loop did on stderr as a TAP comment ("# WHAT: n tries,
 * ..."), and the try that went wrong if one did.  0 if the loop passed
 * (ret 0) and reached at least one fault point that was then failed
 * (failed or recovered tries): a loop whose operation never reaches an
 * injected fault proves nothing.  -1 otherwise.  Usable from a test or
 * from a child process the test forked.
 */
int fault_loop_report(const char *what, int ret, const struct fault_run *run);

#endif /* RIG_FAULT_H */
