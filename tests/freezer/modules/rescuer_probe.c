// SPDX-License-Identifier: GPL-2.0
/*
 * rescuer_probe: what a freezable workqueue's rescuer does to the code
 * around a freeze.
 *
 * Inside a freeze, a non-freezable thread and a device's .suspend callback
 * must be able to destroy a WQ_FREEZABLE | WQ_MEM_RECLAIM workqueue made
 * before the freeze, and to allocate and destroy one: destroy_workqueue()
 * stops the rescuer with kthread_stop(), which cannot wake a frozen task.
 * And work that the rescuer runs may sleep freezable without stopping the
 * freeze.
 *
 * The freeze window's edges are the suspend code's power:suspend_resume
 * trace events, as in freezer_probe: "freeze_processes" end (every
 * freezable task frozen) and "thaw_processes" start.
 *
 * /sys/kernel/debug/rescuer_probe/ctl		commands:
 *	arm		the four cases below run at the next window
 *	rescue		force a work item onto the rescuer of rspwq (the
 *			caller holds back worker creation), and return once
 *			it runs there; it then sleeps freezable for 2 s
 * /sys/kernel/debug/rescuer_probe/report	one line a fact:
 *	window FREEZE_START_NS OPEN_NS CLOSE_NS
 *	case NAME ARMED STARTED_NS DONE_NS ERR
 *	rescue ON_RESCUER STARTED_NS DONE_NS
 *
 * Each case runs in a non-freezable thread of its own, started by the trace
 * probe at the window's opening ("thread_*") or by the platform driver's
 * .suspend callback under pm_test=devices ("suspend_*").  .suspend waits
 * for its two cases for up to 5 s each, so that a case that blocks until
 * the thaw shows as a late DONE_NS instead of hanging the suspend forever.
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <trace/events/power.h>

#define RSP_WQ_FLAGS	(WQ_FREEZABLE | WQ_MEM_RECLAIM)
/* "kworker/R-" + the name must fit in a task's comm for the rescue check. */
#define RSP_RESCUE_WQ	"rspwq"
#define RSP_RESCUER	"kworker/R-" RSP_RESCUE_WQ
#define RSP_BLOCKERS	64
#define RSP_SLEEP_MS	2000

struct rsp_case {
	const char *name;
	bool destroy_old;	/* else allocate and destroy a new one */
	bool armed;
	struct workqueue_struct *old_wq;
	struct task_struct *task;
	struct completion go;
	struct completion done;
	u64 started_ns;
	u64 done_ns;
	int err;
};

enum { C_THREAD_OLD, C_THREAD_NEW, C_SUSPEND_OLD, C_SUSPEND_NEW, NR_CASES };

static struct rsp_case cases[NR_CASES] = {
	[C_THREAD_OLD]  = { .name = "thread_destroy_old", .destroy_old = true },
	[C_THREAD_NEW]  = { .name = "thread_alloc_destroy" },
	[C_SUSPEND_OLD] = { .name = "suspend_destroy_old", .destroy_old = true },
	[C_SUSPEND_NEW] = { .name = "suspend_alloc_destroy" },
};

/* rsp_lock: arming and reaping the cases, the rescue command, the report. */
static DEFINE_MUTEX(rsp_lock);
static u64 freeze_start_ns, window_open_ns, window_close_ns;
static bool in_window;
static struct dentry *dir;
static struct platform_device *rsp_pdev;

/* The rescue case. */
static struct workqueue_struct *rescue_wq, *block_wq;
static struct work_struct rescue_work;
static struct work_struct blockers[RSP_BLOCKERS];
static DECLARE_COMPLETION(blockers_release);
static DECLARE_COMPLETION(rescue_started);
static DECLARE_WAIT_QUEUE_HEAD(rescue_wait);
static bool rescue_on_rescuer;
static u64 rescue_started_ns, rescue_done_ns;

static int rsp_case_fn(void *data)
{
	struct rsp_case *c = data;
	struct workqueue_struct *wq;

	wait_for_completion(&c->go);
	c->started_ns = ktime_get_ns();
	if (c->destroy_old) {
		destroy_workqueue(c->old_wq);
		c->old_wq = NULL;
	} else {
		wq = alloc_workqueue("rspnew", RSP_WQ_FLAGS, 0);
		if (wq) {
			/* Let its new rescuer start before it is stopped. */
			msleep(100);
			destroy_workqueue(wq);
		} else {
			c->err = -ENOMEM;
		}
	}
	c->done_ns = ktime_get_ns();
	complete_all(&c->done);
	/* Stay until reaped, so that kthread_stop() has a thread to stop. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/* Wait for a case to finish and drop its thread and workqueue. */
static void rsp_reap(struct rsp_case *c)
{
	if (c->task) {
		/* Never started: let it finish its case, then stop it. */
		complete(&c->go);
		wait_for_completion(&c->done);
		kthread_stop(c->task);
		put_task_struct(c->task);
		c->task = NULL;
	}
	if (c->old_wq) {
		destroy_workqueue(c->old_wq);
		c->old_wq = NULL;
	}
	c->armed = false;
}

static int rsp_arm(struct rsp_case *c)
{
	struct task_struct *t;

	rsp_reap(c);
	c->started_ns = 0;
	c->done_ns = 0;
	c->err = 0;
	init_completion(&c->go);
	init_completion(&c->done);
	if (c->destroy_old) {
		c->old_wq = alloc_workqueue("rspold", RSP_WQ_FLAGS, 0);
		if (!c->old_wq)
			return -ENOMEM;
	}
	t = kthread_run(rsp_case_fn, c, "rsp_%s", c->name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	c->task = t;
	c->armed = true;
	return 0;
}

/*
 * Called with system_transition_mutex held and preemption disabled:
 * complete() is all it may do.
 */
static void rsp_suspend_resume(void *unused, const char *action, int val,
			       bool start)
{
	if (!strcmp(action, "freeze_processes") && start) {
		freeze_start_ns = ktime_get_ns();
	} else if (!strcmp(action, "freeze_processes") && !start) {
		window_open_ns = ktime_get_ns();
		WRITE_ONCE(in_window, true);
		if (cases[C_THREAD_OLD].armed)
			complete(&cases[C_THREAD_OLD].go);
		if (cases[C_THREAD_NEW].armed)
			complete(&cases[C_THREAD_NEW].go);
	} else if (!strcmp(action, "thaw_processes") && start &&
		   READ_ONCE(in_window)) {
		WRITE_ONCE(in_window, false);
		window_close_ns = ktime_get_ns();
	}
}

/*
 * A device's suspend callback that needs the workqueue cases done: it runs
 * inside the freeze, and the thaw comes only after it returns.
 */
static int rsp_pm_suspend(struct device *dev)
{
	int i;

	for (i = C_SUSPEND_OLD; i <= C_SUSPEND_NEW; i++)
		if (cases[i].armed)
			complete(&cases[i].go);
	for (i = C_SUSPEND_OLD; i <= C_SUSPEND_NEW; i++)
		if (cases[i].armed &&
		    !wait_for_completion_timeout(&cases[i].done, 5 * HZ))
			dev_info(dev, "%s: not done after 5 s\n", cases[i].name);
	return 0;
}

static int rsp_pm_resume(struct device *dev)
{
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(rsp_pm_ops, rsp_pm_suspend, rsp_pm_resume);

static struct platform_driver rsp_driver = {
	.driver = {
		.name = "rescuer_probe",
		.pm = pm_sleep_ptr(&rsp_pm_ops),
	},
};

static void rsp_blocker_fn(struct work_struct *work)
{
	wait_for_completion(&blockers_release);
}

static void rsp_rescue_fn(struct work_struct *work)
{
	WRITE_ONCE(rescue_on_rescuer, !strcmp(current->comm, RSP_RESCUER));
	rescue_started_ns = ktime_get_ns();
	complete(&rescue_started);
	/*
	 * A freezable sleep in work the rescuer runs: the freeze must wait for
	 * it to end, not freeze the rescuer in the middle of the work item.
	 */
	wait_event_freezable_timeout(rescue_wait, false,
				     msecs_to_jiffies(RSP_SLEEP_MS));
	rescue_done_ns = ktime_get_ns();
}

/*
 * Queue blockers on CPU 0's normal pool until no idle worker is left, then
 * the rescue work.  The caller has made worker creation fail, so the pool
 * asks the rescuers for help (the mayday path) and rspwq's rescuer runs it.
 */
static int rsp_rescue(void)
{
	int i, err = 0;

	flush_work(&rescue_work);
	for (i = 0; i < RSP_BLOCKERS; i++)
		flush_work(&blockers[i]);
	reinit_completion(&blockers_release);
	reinit_completion(&rescue_started);
	rescue_on_rescuer = false;
	rescue_started_ns = 0;
	rescue_done_ns = 0;

	for (i = 0; i < RSP_BLOCKERS; i++)
		queue_work_on(0, block_wq, &blockers[i]);
	queue_work_on(0, rescue_wq, &rescue_work);
	if (!wait_for_completion_timeout(&rescue_started, 10 * HZ))
		err = -ETIMEDOUT;
	complete_all(&blockers_release);
	return err;
}

static int rsp_report_show(struct seq_file *m, void *unused)
{
	int i;

	mutex_lock(&rsp_lock);
	seq_printf(m, "window %llu %llu %llu\n", freeze_start_ns,
		   window_open_ns, window_close_ns);
	for (i = 0; i < NR_CASES; i++)
		seq_printf(m, "case %s %d %llu %llu %d\n", cases[i].name,
			   cases[i].armed, cases[i].started_ns, cases[i].done_ns,
			   cases[i].err);
	seq_printf(m, "rescue %d %llu %llu\n", READ_ONCE(rescue_on_rescuer),
		   rescue_started_ns, rescue_done_ns);
	mutex_unlock(&rsp_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rsp_report);

static ssize_t rsp_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[16], *cmd;
	int i, err = 0;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	cmd = strim(buf);

	mutex_lock(&rsp_lock);
	if (!strcmp(cmd, "arm") || !strcmp(cmd, "rescue")) {
		freeze_start_ns = 0;
		window_open_ns = 0;
		window_close_ns = 0;
	}
	if (!strcmp(cmd, "arm")) {
		for (i = 0; i < NR_CASES && !err; i++)
			err = rsp_arm(&cases[i]);
	} else if (!strcmp(cmd, "rescue")) {
		err = rsp_rescue();
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&rsp_lock);
	return err ?: count;
}

static const struct file_operations rsp_ctl_fops = {
	.owner = THIS_MODULE,
	.write = rsp_ctl_write,
};

static void rsp_cleanup(void)
{
	int i;

	for (i = 0; i < NR_CASES; i++)
		rsp_reap(&cases[i]);
	if (rescue_wq)
		destroy_workqueue(rescue_wq);
	if (block_wq)
		destroy_workqueue(block_wq);
}

static int __init rsp_init(void)
{
	int i, err;

	INIT_WORK(&rescue_work, rsp_rescue_fn);
	for (i = 0; i < RSP_BLOCKERS; i++)
		INIT_WORK(&blockers[i], rsp_blocker_fn);
	rescue_wq = alloc_workqueue(RSP_RESCUE_WQ, RSP_WQ_FLAGS, 0);
	block_wq = alloc_workqueue("rspblock", 0, 0);
	if (!rescue_wq || !block_wq) {
		err = -ENOMEM;
		goto fail;
	}

	err = platform_driver_register(&rsp_driver);
	if (err)
		goto fail;
	rsp_pdev = platform_device_register_simple("rescuer_probe", -1, NULL, 0);
	if (IS_ERR(rsp_pdev)) {
		err = PTR_ERR(rsp_pdev);
		goto fail_driver;
	}

	err = register_trace_suspend_resume(rsp_suspend_resume, NULL);
	if (err)
		goto fail_pdev;

	dir = debugfs_create_dir("rescuer_probe", NULL);
	debugfs_create_file("report", 0400, dir, NULL, &rsp_report_fops);
	debugfs_create_file("ctl", 0200, dir, NULL, &rsp_ctl_fops);
	return 0;

fail_pdev:
	platform_device_unregister(rsp_pdev);
fail_driver:
	platform_driver_unregister(&rsp_driver);
fail:
	rsp_cleanup();
	return err;
}

static void __exit rsp_exit(void)
{
	debugfs_remove(dir);
	unregister_trace_suspend_resume(rsp_suspend_resume, NULL);
	tracepoint_synchronize_unregister();
	platform_device_unregister(rsp_pdev);
	platform_driver_unregister(&rsp_driver);
	flush_work(&rescue_work);
	rsp_cleanup();
}

module_init(rsp_init);
module_exit(rsp_exit);
MODULE_DESCRIPTION("Freezer tests: a freezable workqueue's rescuer in a freeze");
MODULE_LICENSE("GPL");
