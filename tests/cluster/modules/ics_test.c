// SPDX-License-Identifier: GPL-2.0
/*
 * ics_test: ICS services for the cluster tests, driven from user space.
 *
 * Services (numbers from ICS_SVC_TEST):
 *   +0 echo:  replies with the request's bytes.
 *   +1 relay: calls another node's echo with a pattern and checks the
 *             reply: a handler that calls a third node.
 *   +2 seq:   one-way messages numbered per sender; counts in order,
 *             repeated (a number again or lower) and missing ones.
 *   +3 sleep: replies after the number of ms it was sent.
 *   +4 echo again, as a handler that is not quick: its reply is
 *             allocated, so fail_ics_receive reaches it.
 *   +5 callq: a quick handler that calls this node's echo, and
 *             answers with what the call gave.
 *   +6 callm: a one-way message whose handler calls this node's echo;
 *             what the call gave ends the msgcall command.
 *
 * /sys/kernel/debug/ics_test/call takes one command a write(), run in the
 * writer's context: write() returns the length written, or the call's
 * error.  A reply that is not what was sent fails with EBADMSG.
 *   echo NODE LEN SEED [TIMEOUT_MS]
 *   wecho NODE LEN SEED [TIMEOUT_MS]: the same, through service +4
 *   relay VIA NODE LEN SEED
 *   send NODE COUNT
 *   sendup NODE COUNT: COUNT seq messages to NODE from the membership
 *                      notifier, the next time it says NODE is up
 *   downstall NODE MS: the next time the notifier says NODE is down, it
 *                      waits for a release command, MS ms at most, and
 *                      holds up the node's later membership changes as
 *                      long
 *   release: ends downstall's wait
 *   sleep NODE MS [TIMEOUT_MS]
 *   quickcall NODE: calls NODE's callq, and returns what it answered
 *   msgcall: sends callm to this node, and returns what its call gave
 *            (ETIME if it did not end within 10 s)
 *   time NODE LEN COUNT: COUNT echo calls, each timed from ics_call()'s
 *                        entry to its return
 * /sys/kernel/debug/ics_test/stats lists, a line per sender node that
 * sent seq messages: "node N in-order I repeated R missing M".
 * /sys/kernel/debug/ics_test/times lists the last time command's calls,
 * in ns, one a line.
 * /sys/kernel/debug/ics_test/msg_delay_ms: how long the seq service's
 * handler sleeps before it counts a message (0 at load).
 * /sys/kernel/debug/ics_test/events lists what the membership notifier
 * chain told this module since it was loaded or the file was written to,
 * a line per event: "up N" or "down N"; then, while a sendup waits or
 * after one failed, "sendup -ERRNO".
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/ssi.h>
#include <linux/uaccess.h>

enum {
	SVC_ECHO = ICS_SVC_TEST,
	SVC_RELAY,
	SVC_SEQ,
	SVC_SLEEP,
	SVC_ECHO_WORK,
	SVC_CALLQ,
	SVC_CALLM,
};

#define DEFAULT_TIMEOUT_MS	10000

struct relay_req {
	__be32 node;
	__be32 len;
	__be32 seed;
};

struct seq_msg {
	__be64 seq;
};

struct seq_stats {
	u64 next;
	u64 in_order;
	u64 repeated;
	u64 missing;
};

static struct dentry *dir;
static DEFINE_SPINLOCK(stats_lock);

#define MAX_TIMES	10000
static u64 times[MAX_TIMES];
static unsigned int times_n;
static DEFINE_MUTEX(times_lock);
static DEFINE_MUTEX(events_lock);	/* events, sendup */
static struct seq_stats stats[SSI_MAX_NODES + 1];
static u32 msg_delay_ms;
/* sendup: the node and count armed, and what the send gave. */
static int sendup_node, sendup_ret;
static unsigned int sendup_count;
/* downstall: the node and ms armed, and the release. */
static int stall_node;
static unsigned int stall_ms;
static DECLARE_COMPLETION(stall_release);
/*
 * msgcall: the number of the last callm message sent, and the number and
 * result of the last one handled; the handler completes msgcall_done for
 * the last one sent only (not for one whose msgcall gave up).
 */
static DEFINE_MUTEX(msgcall_lock);
static DECLARE_COMPLETION(msgcall_done);
static DEFINE_SPINLOCK(msgcall_spin);
static u32 msgcall_sent, msgcall_seen;
static int msgcall_ret;
static atomic64_t sent_seq[SSI_MAX_NODES + 1];

static void fill(u8 *buf, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (seed + i * 31) ^ (i >> 8);
}

static int echo_request(int node, const void *req, size_t len, void *reply,
			size_t *reply_len)
{
	memcpy(reply, req, len);
	*reply_len = len;
	return 0;
}

/*
 * Calls @node's echo with @len bytes of @seed's pattern and checks it;
 * the call's own time goes to *@ns if it is given.
 */
static int call_echo(int node, unsigned int svc, size_t len, u32 seed,
		     unsigned long timeout, u64 *ns)
{
	size_t got = len;
	u8 *req, *rep;
	int ret = -ENOMEM;

	req = kvmalloc(len ?: 1, GFP_KERNEL);
	rep = kvmalloc(len ?: 1, GFP_KERNEL);
	if (!req || !rep)
		goto out;
	fill(req, len, seed);
	if (ns)
		*ns = ktime_get_ns();
	ret = ics_call(node, svc, req, len, rep, &got, timeout);
	if (ns)
		*ns = ktime_get_ns() - *ns;
	if (!ret && (got != len || memcmp(req, rep, len)))
		ret = -EBADMSG;
out:
	kvfree(req);
	kvfree(rep);
	return ret;
}

static int relay_request(int node, const void *req, size_t len, void *reply,
			 size_t *reply_len)
{
	const struct relay_req *r = req;

	if (len != sizeof(*r) || be32_to_cpu(r->len) > ICS_MAX_PAYLOAD)
		return -EINVAL;
	return call_echo(be32_to_cpu(r->node), SVC_ECHO, be32_to_cpu(r->len),
			 be32_to_cpu(r->seed),
			 msecs_to_jiffies(DEFAULT_TIMEOUT_MS), NULL);
}

static void seq_message(int node, const void *msg, size_t len)
{
	const struct seq_msg *m = msg;
	struct seq_stats *s = &stats[node];
	u64 seq;

	if (len != sizeof(*m))
		return;
	/* A handler slower than its senders, for the tests of the backlog. */
	if (READ_ONCE(msg_delay_ms))
		msleep(min(READ_ONCE(msg_delay_ms), 1000U));
	seq = be64_to_cpu(m->seq);
	spin_lock(&stats_lock);
	if (seq < s->next) {
		s->repeated++;
	} else {
		s->missing += seq - s->next;
		s->in_order++;
		s->next = seq + 1;
	}
	spin_unlock(&stats_lock);
}

static int sleep_request(int node, const void *req, size_t len, void *reply,
			 size_t *reply_len)
{
	__be32 ms;

	if (len != sizeof(ms))
		return -EINVAL;
	memcpy(&ms, req, sizeof(ms));
	msleep(min(be32_to_cpu(ms), 60000U));
	return 0;
}

/* Handlers that may not call: ics_call() must refuse. */
static int callq_request(int node, const void *req, size_t len, void *reply,
			 size_t *reply_len)
{
	return ics_call(ssi_self(), SVC_ECHO, NULL, 0, NULL, NULL, HZ);
}

static void callm_message(int node, const void *msg, size_t len)
{
	int ret = ics_call(ssi_self(), SVC_ECHO, NULL, 0, NULL, NULL, HZ);
	u32 seq;

	if (len != sizeof(seq))
		return;
	memcpy(&seq, msg, sizeof(seq));
	spin_lock(&msgcall_spin);
	msgcall_seen = seq;
	msgcall_ret = ret;
	if (seq == msgcall_sent)
		complete(&msgcall_done);
	spin_unlock(&msgcall_spin);
}

static int do_msgcall(void)
{
	u32 seq;
	int ret;

	mutex_lock(&msgcall_lock);
	spin_lock(&msgcall_spin);
	seq = ++msgcall_sent;
	reinit_completion(&msgcall_done);
	spin_unlock(&msgcall_spin);
	ret = ics_send(ssi_self(), SVC_CALLM, &seq, sizeof(seq));
	if (!ret && !wait_for_completion_timeout(&msgcall_done, 10 * HZ))
		ret = -ETIME;
	spin_lock(&msgcall_spin);
	if (!ret)
		ret = msgcall_seen == seq ? msgcall_ret : -EPROTO;
	spin_unlock(&msgcall_spin);
	mutex_unlock(&msgcall_lock);
	return ret;
}

static struct ics_service services[] = {
	{ .id = SVC_ECHO, .request = echo_request,
	  .reply_max = ICS_MAX_PAYLOAD, .quick = true },
	{ .id = SVC_RELAY, .request = relay_request },
	{ .id = SVC_SEQ, .message = seq_message },
	{ .id = SVC_SLEEP, .request = sleep_request },
	{ .id = SVC_ECHO_WORK, .request = echo_request,
	  .reply_max = ICS_MAX_PAYLOAD },
	{ .id = SVC_CALLQ, .request = callq_request, .quick = true },
	{ .id = SVC_CALLM, .message = callm_message },
};

static int do_send(int node, unsigned int count)
{
	unsigned int i;
	int ret;

	if (node < 1 || node > SSI_MAX_NODES)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		struct seq_msg m;
		u64 seq = atomic64_inc_return(&sent_seq[node]) - 1;

		m.seq = cpu_to_be64(seq);
		ret = ics_send(node, SVC_SEQ, &m, sizeof(m));
		if (ret) {
			/* Not sent: the next message takes its number. */
			atomic64_dec(&sent_seq[node]);
			return ret;
		}
	}
	return 0;
}

/* Times @count echo calls; the calls before a failed one are kept. */
static int do_time(int node, unsigned int len, unsigned int count)
{
	unsigned long timeout = msecs_to_jiffies(DEFAULT_TIMEOUT_MS);
	int ret = 0;

	if (count > MAX_TIMES)
		return -EINVAL;
	mutex_lock(&times_lock);
	for (times_n = 0; times_n < count; times_n++) {
		ret = call_echo(node, SVC_ECHO, len, times_n, timeout,
				&times[times_n]);
		if (ret)
			break;
	}
	mutex_unlock(&times_lock);
	return ret;
}

static int run_command(const char *cmd)
{
	unsigned int len, seed, count, ms, timeout = DEFAULT_TIMEOUT_MS;
	int node, via, n;

	n = sscanf(cmd, "echo %d %u %u %u", &node, &len, &seed, &timeout);
	if (n >= 3)
		return call_echo(node, SVC_ECHO, len, seed,
				 msecs_to_jiffies(timeout), NULL);
	n = sscanf(cmd, "wecho %d %u %u %u", &node, &len, &seed, &timeout);
	if (n >= 3)
		return call_echo(node, SVC_ECHO_WORK, len, seed,
				 msecs_to_jiffies(timeout), NULL);
	if (sscanf(cmd, "relay %d %d %u %u", &via, &node, &len, &seed) == 4) {
		struct relay_req r = {
			.node = cpu_to_be32(node),
			.len = cpu_to_be32(len),
			.seed = cpu_to_be32(seed),
		};

		return ics_call(via, SVC_RELAY, &r, sizeof(r), NULL, NULL,
				msecs_to_jiffies(2 * DEFAULT_TIMEOUT_MS));
	}
	if (sscanf(cmd, "send %d %u", &node, &count) == 2)
		return do_send(node, count);
	if (sscanf(cmd, "downstall %d %u", &node, &ms) == 2) {
		if (node < 1 || node > SSI_MAX_NODES || ms > 60000)
			return -EINVAL;
		mutex_lock(&events_lock);
		reinit_completion(&stall_release);
		stall_node = node;
		stall_ms = ms;
		mutex_unlock(&events_lock);
		return 0;
	}
	if (!strcmp(cmd, "release") || !strcmp(cmd, "release\n")) {
		complete_all(&stall_release);
		return 0;
	}
	if (sscanf(cmd, "sendup %d %u", &node, &count) == 2) {
		if (node < 1 || node > SSI_MAX_NODES)
			return -EINVAL;
		mutex_lock(&events_lock);
		sendup_node = node;
		sendup_count = count;
		sendup_ret = -EINPROGRESS;
		mutex_unlock(&events_lock);
		return 0;
	}
	if (sscanf(cmd, "quickcall %d", &node) == 1)
		return ics_call(node, SVC_CALLQ, NULL, 0, NULL, NULL,
				msecs_to_jiffies(DEFAULT_TIMEOUT_MS));
	if (!strcmp(cmd, "msgcall") || !strcmp(cmd, "msgcall\n"))
		return do_msgcall();
	if (sscanf(cmd, "time %d %u %u", &node, &len, &count) == 3)
		return do_time(node, len, count);
	n = sscanf(cmd, "sleep %d %u %u", &node, &ms, &timeout);
	if (n >= 2) {
		__be32 arg = cpu_to_be32(ms);

		return ics_call(node, SVC_SLEEP, &arg, sizeof(arg), NULL, NULL,
				msecs_to_jiffies(timeout));
	}
	return -EINVAL;
}

static ssize_t call_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char cmd[96];
	int ret;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	ret = run_command(cmd);
	return ret ?: count;
}

static const struct file_operations call_fops = {
	.owner = THIS_MODULE,
	.write = call_write,
};

static ssize_t stats_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	char *buf;
	size_t len = 0, size = PAGE_SIZE;
	ssize_t ret;
	int node;

	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	spin_lock(&stats_lock);
	for (node = 1; node <= SSI_MAX_NODES; node++) {
		struct seq_stats *s = &stats[node];

		if (!s->next && !s->repeated)
			continue;
		len += scnprintf(buf + len, size - len,
				 "node %d in-order %llu repeated %llu missing %llu\n",
				 node, s->in_order, s->repeated, s->missing);
	}
	spin_unlock(&stats_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	kfree(buf);
	return ret;
}

static const struct file_operations stats_fops = {
	.owner = THIS_MODULE,
	.read = stats_read,
};

static int times_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&times_lock);
	for (i = 0; i < times_n; i++)
		seq_printf(m, "%llu\n", times[i]);
	mutex_unlock(&times_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(times);

/* What the membership notifier chain said: 4 KiB of it at most. */
static char events[4096];
static size_t events_len;

/*
 * Called in a task's context, as the chain promises: if it were not, the
 * mutex would say so (a kernel report on the debug kernel).
 */
static int ics_test_event(struct notifier_block *nb, unsigned long event,
			  void *data)
{
	unsigned int stall = 0;

	mutex_lock(&events_lock);
	events_len += scnprintf(events + events_len,
				sizeof(events) - events_len, "%s %ld\n",
				event == SSI_NODE_UP ? "up" :
				event == SSI_NODE_DOWN ? "down" : "what",
				(long)data);
	/* As soon as this node knows: the other may not know yet. */
	if (event == SSI_NODE_UP && sendup_node == (long)data) {
		sendup_ret = do_send(sendup_node, sendup_count);
		sendup_node = 0;
	}
	if (event == SSI_NODE_DOWN && stall_node == (long)data) {
		stall = stall_ms;
		stall_node = 0;
	}
	mutex_unlock(&events_lock);
	if (stall)
		wait_for_completion_timeout(&stall_release,
					    msecs_to_jiffies(stall));
	return NOTIFY_OK;
}

static struct notifier_block ics_test_nb = {
	.notifier_call = ics_test_event,
};

/* Copied to the reader after the lock is let go: seq_read() does. */
static int events_show(struct seq_file *m, void *v)
{
	mutex_lock(&events_lock);
	seq_write(m, events, events_len);
	if (sendup_ret != 0)
		seq_printf(m, "sendup %d\n", sendup_ret);
	mutex_unlock(&events_lock);
	return 0;
}

static int events_open(struct inode *inode, struct file *file)
{
	return single_open(file, events_show, NULL);
}

/* Any write empties the list. */
static ssize_t events_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	mutex_lock(&events_lock);
	events_len = 0;
	mutex_unlock(&events_lock);
	return count;
}

static const struct file_operations events_fops = {
	.owner = THIS_MODULE,
	.open = events_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = events_write,
};

static void unregister_services(int n)
{
	while (n--)
		ics_unregister(&services[n]);
}

static int __init ics_test_init(void)
{
	int i, ret;

	if (!ssi_self())
		return -ENODEV;
	for (i = 0; i < ARRAY_SIZE(services); i++) {
		ret = ics_register(&services[i]);
		if (ret) {
			unregister_services(i);
			return ret;
		}
	}
	ret = ssi_register_notifier(&ics_test_nb);
	if (ret) {
		unregister_services(ARRAY_SIZE(services));
		return ret;
	}
	dir = debugfs_create_dir("ics_test", NULL);
	debugfs_create_file("call", 0200, dir, NULL, &call_fops);
	debugfs_create_file("stats", 0444, dir, NULL, &stats_fops);
	debugfs_create_file("times", 0444, dir, NULL, &times_fops);
	debugfs_create_file("events", 0600, dir, NULL, &events_fops);
	debugfs_create_u32("msg_delay_ms", 0600, dir, &msg_delay_ms);
	return 0;
}

static void __exit ics_test_exit(void)
{
	debugfs_remove_recursive(dir);
	ssi_unregister_notifier(&ics_test_nb);
	unregister_services(ARRAY_SIZE(services));
}

module_init(ics_test_init);
module_exit(ics_test_exit);
MODULE_DESCRIPTION("ICS services and calls for the cluster tests");
MODULE_LICENSE("GPL");
