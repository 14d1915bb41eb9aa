// SPDX-License-Identifier: GPL-2.0
/*
 * freezer_probe: kernel threads, kthread workers and workqueues made both
 * ways (freezable and not), each counting how often it ran, and how often
 * inside the freeze window.  The window's edges are the kernel's own: the
 * suspend code's power:suspend_resume trace events "freeze_processes" end
 * (every freezable task frozen) and "thaw_processes" start.
 *
 * /sys/kernel/debug/freezer_probe/report	what happened, one fact a line
 * /sys/kernel/debug/freezer_probe/ctl		commands:
 *	reset		zero the counters
 *	invalid FLAGS	kthread_create_flags() with FLAGS, which are not
 *			freezer flags; the result goes to the report
 *	churn on|off	threads that keep creating and stopping freezable
 *			and non-freezable threads, workers and workqueues;
 *			the workqueue one counts its rounds done inside a
 *			window
 *	fault_thread	kthread_create_flags(KTF_FREEZABLE) of a thread that is
 *			then stopped unwoken; the write returns its error
 *	fault_wq	alloc_workqueue(WQ_FREEZABLE | WQ_MEM_RECLAIM), then
 *			destroy_workqueue(); the write returns -ENOMEM if
 *			the allocation failed
 *	stophold	a freezable thread created now and woken in the next
 *			window, where a non-freezable thread stops it with
 *			kthread_stop() once it is frozen
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <trace/events/power.h>

/* What fzp_stopped_fn() returns: kthread_stop() must hand it back. */
#define FZP_STOP_RESULT 42

/* Something that runs over and over and counts its runs. */
struct fzp_actor {
	const char *name;
	bool freezable;
	atomic_t runs;
	atomic_t runs_in_window;
	int frozen_at_thaw;	/* -1: not a task of its own */
};

enum {
	A_THREAD_FRZ,		/* kthread_run_flags(KTF_FREEZABLE) */
	A_THREAD_NOFRZ,		/* kthread_run_flags(0) */
	A_THREAD_LATE,		/* kthread_run() + set_freezable(), as before */
	A_WORKER_FRZ,		/* kthread_create_worker(KTW_FREEZABLE) */
	A_WORKER_NOFRZ,		/* kthread_create_worker(0) */
	A_WQ_FRZ,		/* work on a WQ_FREEZABLE workqueue */
	A_WQ_NOFRZ,		/* work on a workqueue without it */
	A_RESCUER_FRZ,		/* the rescuers of those two: never run here */
	A_RESCUER_NOFRZ,
	NR_ACTORS
};

static struct fzp_actor actors[NR_ACTORS] = {
	[A_THREAD_FRZ]   = { "fzp_thread_frz", true },
	[A_THREAD_NOFRZ] = { "fzp_thread_nofrz", false },
	[A_THREAD_LATE]  = { "fzp_thread_late", true },
	[A_WORKER_FRZ]   = { "fzp_worker_frz", true },
	[A_WORKER_NOFRZ] = { "fzp_worker_nofrz", false },
	/* Short names: "kworker/R-" + name must fit in a task's comm. */
	[A_WQ_FRZ]       = { "fzwqf", true },
	[A_WQ_NOFRZ]     = { "fzwqn", false },
	[A_RESCUER_FRZ]  = { "kworker/R-fzwqf", true },
	[A_RESCUER_NOFRZ] = { "kworker/R-fzwqn", false },
};

/* A freezable thread created inside the window. */
struct fzp_spawn {
	const char *name;
	struct task_struct *task;	/* a reference, or NULL */
	u64 created_ns;
	u64 first_run_ns;
	bool created_in_window;
	bool ran_in_window;
	bool frozen_at_thaw;
	bool woken;
	int err;
	struct completion exited;	/* the thread left this module's code */
};

enum {
	S_FROM_THREAD,		/* created by a non-freezable thread */
	S_FROM_TIMER,		/* created by work a timer queued */
	S_HELD,			/* created by "hold", woken in the window */
	S_LATE,			/* created non-freezable by a thread in the
				 * window; its function does work, then
				 * calls set_freezable() */
	NR_SPAWNS
};

static struct fzp_spawn spawns[NR_SPAWNS] = {
	[S_FROM_THREAD] = { .name = "fzp_spawn_thread" },
	[S_FROM_TIMER]  = { .name = "fzp_spawn_timer" },
	[S_HELD]        = { .name = "fzp_held" },
	[S_LATE]        = { .name = "fzp_spawn_late" },
};

/* Threads of the kernel that this series creates freezable. */
static const char *const named[] = {
	"oom_reaper", "khugepaged", "ksmd", "pktcdvd0", "kthreadd",
};

static int named_frozen_at_thaw[ARRAY_SIZE(named)];

/*
 * "stophold": a freezable thread frozen before its function, stopped by
 * kthread_stop() from a non-freezable thread inside the window.
 */
static struct {
	struct task_struct *task;	/* the stopped thread, a reference */
	struct task_struct *stopper;
	struct completion go;		/* the window opened */
	bool armed;
	bool frozen_before_stop;
	int err;
	int stop_ret;
	u64 stop_done_ns;
	u64 first_run_ns;
	bool ran_in_window;
} stopped = { .err = 1 };

/*
 * fzp_lock: creating and reaping spawns, the counters' reset, invalid_*.
 * spawn_lock: spawns[].task and .woken, which the trace probe reads; the
 * probe runs with preemption off and takes only this spinlock.
 * churn_lock: churn_task and churn_wq_task.
 */
static DEFINE_MUTEX(fzp_lock);
static DEFINE_SPINLOCK(spawn_lock);
static DEFINE_MUTEX(churn_lock);
static bool in_window;
static unsigned int windows;
static u64 window_open_ns, window_close_ns;
static bool spawn_requested;

static struct task_struct *threads[3];
static struct kthread_worker *workers[2];
static struct kthread_delayed_work worker_work[2];
static struct workqueue_struct *wqs[2];
static struct delayed_work wq_work[2];
static struct timer_list spawn_timer;
static struct work_struct spawn_work;
static struct dentry *dir;

static unsigned int invalid_flags;
static int invalid_err = 1;		/* 1: not tried */
static bool invalid_ran;

static struct task_struct *churn_task, *churn_wq_task;
static atomic_t churn_rounds;
static atomic_t churn_errors;
static atomic_t churn_rounds_in_window;

static void fzp_ran(struct fzp_actor *a)
{
	atomic_inc(&a->runs);
	if (READ_ONCE(in_window))
		atomic_inc(&a->runs_in_window);
}

static int fzp_spawn_fn(void *data)
{
	struct fzp_spawn *s = data;

	s->first_run_ns = ktime_get_ns();
	s->ran_in_window = READ_ONCE(in_window);
	kthread_complete_and_exit(&s->exited, 0);
}

/*
 * Drop the thread of @s: stop it if it was never woken (it then exits
 * without running); else, with @wait, wait for it to finish, and without,
 * give up if it has not.  Without @wait it never waits for a frozen
 * thread, so it may be called with fzp_lock held.
 */
static bool fzp_reap(struct fzp_spawn *s, bool wait)
{
	struct task_struct *t;
	bool woken;

	spin_lock(&spawn_lock);
	t = s->task;
	woken = s->woken;
	if (t && woken && !wait && !completion_done(&s->exited)) {
		spin_unlock(&spawn_lock);
		return false;
	}
	s->task = NULL;
	spin_unlock(&spawn_lock);

	if (!t)
		return true;
	if (!woken)
		kthread_stop(t);
	else if (wait)
		wait_for_completion(&s->exited);
	put_task_struct(t);
	return true;
}

static int fzp_spawn_late_fn(void *data)
{
	struct fzp_spawn *s = data;

	/* Work done before it opts in, as a set_freezable() thread does. */
	s->first_run_ns = ktime_get_ns();
	s->ran_in_window = READ_ONCE(in_window);
	set_freezable();
	kthread_complete_and_exit(&s->exited, 0);
}

static void fzp_spawn(struct fzp_spawn *s, bool wake)
{
	struct task_struct *t;

	mutex_lock(&fzp_lock);
	if (!fzp_reap(s, false)) {
		/* The last one has not run yet: still frozen. */
		s->err = -EBUSY;
		goto out;
	}
	init_completion(&s->exited);
	s->first_run_ns = 0;
	s->ran_in_window = false;
	s->frozen_at_thaw = false;
	s->created_ns = ktime_get_ns();
	s->created_in_window = READ_ONCE(in_window);
	if (s == &spawns[S_LATE])
		t = kthread_create(fzp_spawn_late_fn, s, "%s", s->name);
	else
		t = kthread_create_flags(fzp_spawn_fn, s, KTF_FREEZABLE, "%s",
					 s->name);
	if (IS_ERR(t)) {
		s->err = PTR_ERR(t);
	} else {
		s->err = 0;
		get_task_struct(t);
		spin_lock(&spawn_lock);
		s->task = t;
		s->woken = wake;
		spin_unlock(&spawn_lock);
		if (wake)
			wake_up_process(t);
	}
out:
	mutex_unlock(&fzp_lock);
}

static void fzp_spawn_work_fn(struct work_struct *work)
{
	fzp_spawn(&spawns[S_FROM_TIMER], true);
}

static void fzp_spawn_timer_fn(struct timer_list *t)
{
	queue_work(wqs[1], &spawn_work);
}

static int fzp_thread_fn(void *data)
{
	struct fzp_actor *a = data;

	if (a == &actors[A_THREAD_LATE])
		set_freezable();
	while (!kthread_should_stop()) {
		fzp_ran(a);
		if (a == &actors[A_THREAD_NOFRZ] && READ_ONCE(spawn_requested)) {
			WRITE_ONCE(spawn_requested, false);
			fzp_spawn(&spawns[S_FROM_THREAD], true);
			fzp_spawn(&spawns[S_LATE], true);
		}
		schedule_timeout_interruptible(1);
		try_to_freeze();
	}
	return 0;
}

static void fzp_worker_fn(struct kthread_work *work)
{
	struct kthread_delayed_work *dw =
		container_of(work, struct kthread_delayed_work, work);
	int i = dw - worker_work;

	fzp_ran(&actors[A_WORKER_FRZ + i]);
	kthread_queue_delayed_work(workers[i], dw, 1);
}

static void fzp_wq_fn(struct work_struct *work)
{
	struct delayed_work *dw = to_delayed_work(work);
	int i = dw - wq_work;

	fzp_ran(&actors[A_WQ_FRZ + i]);
	queue_delayed_work(wqs[i], dw, 1);
}

static void fzp_window_open(void)
{
	window_open_ns = ktime_get_ns();
	WRITE_ONCE(in_window, true);
	windows++;
	/* Ask for one freezable thread from each non-freezable source. */
	WRITE_ONCE(spawn_requested, true);
	mod_timer(&spawn_timer, jiffies + 1);
	/* And start the one "hold" created before the freeze. */
	spin_lock(&spawn_lock);
	if (spawns[S_HELD].task && !spawns[S_HELD].woken) {
		spawns[S_HELD].woken = true;
		wake_up_process(spawns[S_HELD].task);
	}
	spin_unlock(&spawn_lock);
	if (xchg(&stopped.armed, false)) {
		wake_up_process(stopped.task);
		complete(&stopped.go);
	}
}

/* The state of the task named @comm, or of @t if not NULL. */
static int fzp_frozen(struct task_struct *t, const char *comm)
{
	struct task_struct *p;
	int frozen = -1;

	if (t)
		return !!(READ_ONCE(t->__state) & TASK_FROZEN);
	rcu_read_lock();
	for_each_process(p) {
		if ((p->flags & PF_KTHREAD) && !strcmp(p->comm, comm)) {
			frozen = !!(READ_ONCE(p->__state) & TASK_FROZEN);
			break;
		}
	}
	rcu_read_unlock();
	return frozen;
}

static void fzp_window_close(void)
{
	int i;

	WRITE_ONCE(in_window, false);
	window_close_ns = ktime_get_ns();
	/* Nothing is thawed yet: what is freezable must still be frozen. */
	for (i = 0; i < ARRAY_SIZE(threads); i++)
		actors[i].frozen_at_thaw = fzp_frozen(threads[i], NULL);
	for (i = 0; i < ARRAY_SIZE(workers); i++)
		actors[A_WORKER_FRZ + i].frozen_at_thaw =
			fzp_frozen(workers[i]->task, NULL);
	for (i = A_RESCUER_FRZ; i <= A_RESCUER_NOFRZ; i++)
		actors[i].frozen_at_thaw = fzp_frozen(NULL, actors[i].name);
	for (i = 0; i < ARRAY_SIZE(named); i++)
		named_frozen_at_thaw[i] = fzp_frozen(NULL, named[i]);
	spin_lock(&spawn_lock);
	for (i = 0; i < NR_SPAWNS; i++) {
		struct task_struct *t = spawns[i].task;

		if (t)
			spawns[i].frozen_at_thaw =
				READ_ONCE(t->__state) & TASK_FROZEN;
	}
	spin_unlock(&spawn_lock);
}

/*
 * Called with system_transition_mutex held, so the two never race, and with
 * preemption disabled, as every trace probe: nothing here may sleep.
 */
static void fzp_suspend_resume(void *unused, const char *action, int val,
			       bool start)
{
	if (!strcmp(action, "freeze_processes") && !start)
		fzp_window_open();
	else if (!strcmp(action, "thaw_processes") && start &&
		 READ_ONCE(in_window))
		fzp_window_close();
}

/* The churn: creation and teardown of every kind, during freezes. */
static int fzp_idle_fn(void *data)
{
	while (!kthread_should_stop()) {
		schedule_timeout_interruptible(HZ);
		try_to_freeze();
	}
	return 0;
}

/* Creation and teardown of freezable and non-freezable threads and workers. */
static int fzp_churn_fn(void *data)
{
	while (!kthread_should_stop()) {
		struct task_struct *t1, *t2;
		struct kthread_worker *w;

		t1 = kthread_run_flags(fzp_idle_fn, NULL, KTF_FREEZABLE,
				       "fzp_churn_frz");
		t2 = kthread_run_flags(fzp_idle_fn, NULL, 0, "fzp_churn_nofrz");
		w = kthread_create_worker(KTW_FREEZABLE, "fzp_churn_worker");
		if (IS_ERR(t1) || IS_ERR(t2) || IS_ERR(w))
			atomic_inc(&churn_errors);
		usleep_range(1000, 3000);
		if (!IS_ERR(t1))
			kthread_stop(t1);
		if (!IS_ERR(t2))
			kthread_stop(t2);
		if (!IS_ERR(w))
			kthread_destroy_worker(w);
		atomic_inc(&churn_rounds);
	}
	return 0;
}

/*
 * Allocation and destruction of freezable workqueues with rescuers, which
 * never waits for a frozen task: it goes on inside a freeze window, and
 * counts the rounds it starts and ends there.  (The thread churn above cannot: a
 * freezable thread frozen in its round holds kthread_stop() until the
 * thaw.)
 */
static int fzp_churn_wq_fn(void *data)
{
	while (!kthread_should_stop()) {
		bool started_in_window = READ_ONCE(in_window);
		struct workqueue_struct *wq;

		wq = alloc_workqueue("fzp_churn_wq",
				     WQ_FREEZABLE | WQ_MEM_RECLAIM, 0);
		if (!wq)
			atomic_inc(&churn_errors);
		usleep_range(1000, 3000);
		if (wq)
			destroy_workqueue(wq);
		atomic_inc(&churn_rounds);
		if (started_in_window && READ_ONCE(in_window))
			atomic_inc(&churn_rounds_in_window);
	}
	return 0;
}

static int fzp_churn(bool on)
{
	int err = 0;

	mutex_lock(&churn_lock);
	if (on && !churn_task) {
		churn_task = kthread_run(fzp_churn_fn, NULL, "fzp_churn");
		if (IS_ERR(churn_task)) {
			err = PTR_ERR(churn_task);
			churn_task = NULL;
			goto out;
		}
		churn_wq_task = kthread_run(fzp_churn_wq_fn, NULL,
					    "fzp_churn_wq");
		if (IS_ERR(churn_wq_task)) {
			err = PTR_ERR(churn_wq_task);
			churn_wq_task = NULL;
			kthread_stop(churn_task);
			churn_task = NULL;
		}
	} else if (!on && churn_task) {
		kthread_stop(churn_task);
		kthread_stop(churn_wq_task);
		churn_task = NULL;
		churn_wq_task = NULL;
	} else {
		err = -EALREADY;
	}
out:
	mutex_unlock(&churn_lock);
	return err;
}

static int fzp_stopped_fn(void *data)
{
	stopped.first_run_ns = ktime_get_ns();
	stopped.ran_in_window = READ_ONCE(in_window);
	while (!kthread_should_stop()) {
		schedule_timeout_interruptible(1);
		try_to_freeze();
	}
	return FZP_STOP_RESULT;
}

static int fzp_stopper_fn(void *data)
{
	int i;

	wait_for_completion(&stopped.go);
	/* Up to 2 s for the thread to reach the refrigerator. */
	for (i = 0; i < 400; i++) {
		if (READ_ONCE(stopped.task->__state) & TASK_FROZEN)
			break;
		usleep_range(5000, 6000);
	}
	stopped.frozen_before_stop =
		READ_ONCE(stopped.task->__state) & TASK_FROZEN;
	stopped.stop_ret = kthread_stop(stopped.task);
	stopped.stop_done_ns = ktime_get_ns();
	put_task_struct(stopped.task);
	stopped.task = NULL;
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/* Drop what "stophold" made; the stopped thread may not have run yet. */
static void fzp_stopped_reap(void)
{
	if (!stopped.stopper)
		return;
	if (xchg(&stopped.armed, false)) {
		/* No window came: let it run, and stop it. */
		wake_up_process(stopped.task);
		complete(&stopped.go);
	}
	kthread_stop(stopped.stopper);
	put_task_struct(stopped.stopper);
	stopped.stopper = NULL;
}

static int fzp_stophold(void)
{
	struct task_struct *t, *stopper;

	fzp_stopped_reap();
	stopped.frozen_before_stop = false;
	stopped.stop_ret = 0;
	stopped.stop_done_ns = 0;
	stopped.first_run_ns = 0;
	stopped.ran_in_window = false;
	init_completion(&stopped.go);
	t = kthread_create_flags(fzp_stopped_fn, NULL, KTF_FREEZABLE,
				 "fzp_stopped");
	if (IS_ERR(t))
		return stopped.err = PTR_ERR(t);
	get_task_struct(t);
	stopped.task = t;
	stopper = kthread_run(fzp_stopper_fn, NULL, "fzp_stopper");
	if (IS_ERR(stopper)) {
		stopped.task = NULL;
		kthread_stop(t);
		put_task_struct(t);
		return stopped.err = PTR_ERR(stopper);
	}
	get_task_struct(stopper);
	stopped.stopper = stopper;
	stopped.err = 0;
	/* The trace probe takes it with xchg(), preemption off. */
	WRITE_ONCE(stopped.armed, true);
	return 0;
}

/*
 * For the fault-injection loop: each runs in the writer's context, so the
 * writer's fail-nth fails their allocations, and leaves nothing behind.
 */
static int fzp_fault_thread(void)
{
	struct task_struct *t;

	t = kthread_create_flags(fzp_idle_fn, NULL, KTF_FREEZABLE,
				 "fzp_fault_thread");
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Never woken: it exits without running fzp_idle_fn(). */
	kthread_stop(t);
	return 0;
}

static int fzp_fault_wq(void)
{
	struct workqueue_struct *wq;

	wq = alloc_workqueue("fzp_fault_wq", WQ_FREEZABLE | WQ_MEM_RECLAIM, 0);
	if (!wq)
		return -ENOMEM;
	destroy_workqueue(wq);
	return 0;
}

static int fzp_report_show(struct seq_file *m, void *unused)
{
	int i;

	mutex_lock(&fzp_lock);
	seq_printf(m, "windows %u\n", windows);
	seq_printf(m, "window %llu %llu\n", window_open_ns, window_close_ns);
	for (i = 0; i < NR_ACTORS; i++)
		seq_printf(m, "actor %s %d %d %d %d\n", actors[i].name,
			   actors[i].freezable, atomic_read(&actors[i].runs),
			   atomic_read(&actors[i].runs_in_window),
			   actors[i].frozen_at_thaw);
	for (i = 0; i < NR_SPAWNS; i++)
		seq_printf(m, "spawn %s %d %d %llu %llu %d %d\n",
			   spawns[i].name, spawns[i].err,
			   spawns[i].created_in_window, spawns[i].created_ns,
			   spawns[i].first_run_ns, spawns[i].ran_in_window,
			   spawns[i].frozen_at_thaw);
	seq_printf(m, "invalid %#x %d %d\n", invalid_flags, invalid_err,
		   invalid_ran);
	seq_printf(m, "churn %d %d %d\n", atomic_read(&churn_rounds),
		   atomic_read(&churn_errors),
		   atomic_read(&churn_rounds_in_window));
	for (i = 0; i < ARRAY_SIZE(named); i++)
		seq_printf(m, "named %s %d\n", named[i],
			   named_frozen_at_thaw[i]);
	seq_printf(m, "stopped %d %d %d %llu %llu %d\n", stopped.err,
		   stopped.frozen_before_stop, stopped.stop_ret,
		   stopped.stop_done_ns, stopped.first_run_ns,
		   stopped.ran_in_window);
	mutex_unlock(&fzp_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fzp_report);

static DECLARE_COMPLETION(invalid_started);

static int fzp_invalid_fn(void *data)
{
	invalid_ran = true;
	complete(&invalid_started);
	/* Accepted flags may make it freezable: it must reach freezing points. */
	while (!kthread_should_stop()) {
		schedule_timeout_interruptible(1);
		try_to_freeze();
	}
	return 0;
}

static void fzp_try_invalid(unsigned int flags)
{
	struct task_struct *t;

	invalid_flags = flags;
	invalid_ran = false;
	t = kthread_create_flags(fzp_invalid_fn, NULL, flags, "fzp_invalid");
	if (IS_ERR(t)) {
		invalid_err = PTR_ERR(t);
		return;
	}
	/* Accepted: let the function run once, then leave nothing behind. */
	invalid_err = 0;
	reinit_completion(&invalid_started);
	wake_up_process(t);
	wait_for_completion_timeout(&invalid_started, 10 * HZ);
	kthread_stop(t);
}

static ssize_t fzp_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[32], *cmd;
	unsigned int flags;
	int i, ret = count;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	cmd = strim(buf);

	if (!strcmp(cmd, "churn on") || !strcmp(cmd, "churn off"))
		return fzp_churn(!strcmp(cmd, "churn on")) ?: count;

	mutex_lock(&fzp_lock);
	if (!strcmp(cmd, "reset")) {
		for (i = 0; i < NR_ACTORS; i++) {
			atomic_set(&actors[i].runs, 0);
			atomic_set(&actors[i].runs_in_window, 0);
			actors[i].frozen_at_thaw = -1;
		}
		windows = 0;
		window_open_ns = 0;
		window_close_ns = 0;
		atomic_set(&churn_rounds, 0);
		atomic_set(&churn_errors, 0);
		atomic_set(&churn_rounds_in_window, 0);
		for (i = 0; i < ARRAY_SIZE(named); i++)
			named_frozen_at_thaw[i] = -1;
	} else if (sscanf(cmd, "invalid %x", &flags) == 1) {
		fzp_try_invalid(flags);
	} else if (!strcmp(cmd, "fault_thread")) {
		ret = fzp_fault_thread() ?: count;
	} else if (!strcmp(cmd, "fault_wq")) {
		ret = fzp_fault_wq() ?: count;
	} else if (!strcmp(cmd, "stophold")) {
		ret = fzp_stophold() ?: count;
	} else if (!strcmp(cmd, "hold")) {
		mutex_unlock(&fzp_lock);
		fzp_spawn(&spawns[S_HELD], false);
		return spawns[S_HELD].err ?: count;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&fzp_lock);
	return ret;
}

static const struct file_operations fzp_ctl_fops = {
	.owner = THIS_MODULE,
	.write = fzp_ctl_write,
};

static void fzp_stop_all(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(threads); i++)
		if (!IS_ERR_OR_NULL(threads[i]))
			kthread_stop(threads[i]);
	for (i = 0; i < ARRAY_SIZE(workers); i++) {
		if (IS_ERR_OR_NULL(workers[i]))
			continue;
		kthread_cancel_delayed_work_sync(&worker_work[i]);
		kthread_destroy_worker(workers[i]);
	}
	timer_shutdown_sync(&spawn_timer);
	for (i = 0; i < ARRAY_SIZE(wqs); i++) {
		if (!wqs[i])
			continue;
		cancel_delayed_work_sync(&wq_work[i]);
		if (i == 1)
			cancel_work_sync(&spawn_work);
		destroy_workqueue(wqs[i]);
	}
	for (i = 0; i < NR_SPAWNS; i++)
		fzp_reap(&spawns[i], true);
	fzp_stopped_reap();
}

static int __init fzp_init(void)
{
	static const unsigned int thread_flags[] = {
		KTF_FREEZABLE, 0, 0
	};
	int i, err;

	timer_setup(&spawn_timer, fzp_spawn_timer_fn, 0);
	INIT_WORK(&spawn_work, fzp_spawn_work_fn);

	for (i = 0; i < NR_ACTORS; i++)
		actors[i].frozen_at_thaw = -1;
	for (i = 0; i < ARRAY_SIZE(named); i++)
		named_frozen_at_thaw[i] = -1;
	/* Initialised first: the failure path cancels them. */
	for (i = 0; i < ARRAY_SIZE(wqs); i++)
		INIT_DELAYED_WORK(&wq_work[i], fzp_wq_fn);
	for (i = 0; i < ARRAY_SIZE(workers); i++)
		kthread_init_delayed_work(&worker_work[i], fzp_worker_fn);
	wqs[0] = alloc_workqueue("%s", WQ_FREEZABLE | WQ_MEM_RECLAIM, 0,
				 actors[A_WQ_FRZ].name);
	wqs[1] = alloc_workqueue("%s", WQ_MEM_RECLAIM, 0,
				 actors[A_WQ_NOFRZ].name);
	if (!wqs[0] || !wqs[1]) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < ARRAY_SIZE(wqs); i++)
		queue_delayed_work(wqs[i], &wq_work[i], 1);

	for (i = 0; i < ARRAY_SIZE(workers); i++) {
		workers[i] = kthread_create_worker(i ? 0 : KTW_FREEZABLE, "%s",
						   actors[A_WORKER_FRZ + i].name);
		if (IS_ERR(workers[i])) {
			err = PTR_ERR(workers[i]);
			goto fail;
		}
		kthread_queue_delayed_work(workers[i], &worker_work[i], 1);
	}

	for (i = 0; i < ARRAY_SIZE(threads); i++) {
		threads[i] = kthread_run_flags(fzp_thread_fn, &actors[i],
					       thread_flags[i], "%s",
					       actors[i].name);
		if (IS_ERR(threads[i])) {
			err = PTR_ERR(threads[i]);
			goto fail;
		}
	}

	err = register_trace_suspend_resume(fzp_suspend_resume, NULL);
	if (err)
		goto fail;

	dir = debugfs_create_dir("freezer_probe", NULL);
	debugfs_create_file("report", 0400, dir, NULL, &fzp_report_fops);
	debugfs_create_file("ctl", 0200, dir, NULL, &fzp_ctl_fops);
	return 0;

fail:
	fzp_stop_all();
	return err;
}

static void __exit fzp_exit(void)
{
	debugfs_remove(dir);
	unregister_trace_suspend_resume(fzp_suspend_resume, NULL);
	tracepoint_synchronize_unregister();
	if (churn_task) {
		kthread_stop(churn_task);
		kthread_stop(churn_wq_task);
	}
	fzp_stop_all();
}

module_init(fzp_init);
module_exit(fzp_exit);
MODULE_DESCRIPTION("Freezer tests: threads and work made freezable or not");
MODULE_LICENSE("GPL");
