/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The freezer tests' common part: loading freezer_probe, running a suspend
 * cycle that stops after freezing (pm_test=freezer), and reading what the
 * module and /sys/kernel/debug/freezer report.
 */
#ifndef FREEZER_TEST_H
#define FREEZER_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmod.h"
#include "kmsg.h"
#include "sysfs_file.h"

#define PROBE_DIR "/sys/kernel/debug/freezer_probe"
#define PROBE_CTL PROBE_DIR "/ctl"
#define PROBE_REPORT PROBE_DIR "/report"
#define FREEZER_LIST "/sys/kernel/debug/freezer"
#define PM_TEST_DELAY "/sys/module/suspend/parameters/pm_test_delay"

#define MAX_ACTORS 16
#define MAX_SPAWNS 8
#define MAX_NAMED 8
#define NAME_LEN 64

struct actor {
	char name[NAME_LEN];
	int freezable;
	int runs;
	int runs_in_window;
	int frozen_at_thaw;	/* -1: not a task of its own */
};

struct spawn {
	char name[NAME_LEN];
	int err;
	int created_in_window;
	unsigned long long created_ns;
	unsigned long long first_run_ns;
	int ran_in_window;
	int frozen_at_thaw;
};

/* A thread of the kernel's, found by name when the thaw began. */
struct named {
	char name[NAME_LEN];
	int frozen_at_thaw;	/* -1: no such thread */
};

/* The "stophold" thread, stopped while frozen before its function. */
struct stopped {
	int err;
	int frozen_before_stop;
	int stop_ret;
	unsigned long long stop_done_ns;
	unsigned long long first_run_ns;
	int ran_in_window;
};

struct probe_report {
	unsigned int windows;
	unsigned long long open_ns, close_ns;
	struct actor actors[MAX_ACTORS];
	int nr_actors;
	struct spawn spawns[MAX_SPAWNS];
	int nr_spawns;
	unsigned int invalid_flags;
	int invalid_err;
	int invalid_ran;
	int churn_rounds;
	int churn_errors;
	int churn_rounds_in_window;
	struct named named[MAX_NAMED];
	int nr_named;
	struct stopped stopped;
};

static inline int probe_load(void)
{
	/* A test that failed an assertion may not have unloaded it. */
	unload_module("freezer_probe");
	if (load_module(RIG_MODULE_PATH("freezer", "freezer_probe"), ""))
		return -errno;
	return 0;
}

static inline int probe_unload(void)
{
	return unload_module("freezer_probe") ? -errno : 0;
}

static inline int probe_ctl(const char *cmd)
{
	return sysfs_write(PROBE_CTL, cmd);
}

/* Parse the module's report; 0, or -errno / -EPROTO on a line we can't read. */
static inline int probe_read(struct probe_report *r)
{
	char line[256];
	FILE *f = fopen(PROBE_REPORT, "r");
	int err = 0;

	if (!f)
		return -errno;
	memset(r, 0, sizeof(*r));
	while (fgets(line, sizeof(line), f)) {
		struct actor *a = &r->actors[r->nr_actors];
		struct spawn *s = &r->spawns[r->nr_spawns];
		struct named *nm = &r->named[r->nr_named];
		struct stopped *st = &r->stopped;

		if (sscanf(line, "windows %u", &r->windows) == 1)
			continue;
		if (sscanf(line, "window %llu %llu", &r->open_ns, &r->close_ns) == 2)
			continue;
		if (r->nr_actors < MAX_ACTORS &&
		    sscanf(line, "actor %63s %d %d %d %d", a->name, &a->freezable,
			   &a->runs, &a->runs_in_window, &a->frozen_at_thaw) == 5) {
			r->nr_actors++;
			continue;
		}
		if (r->nr_spawns < MAX_SPAWNS &&
		    sscanf(line, "spawn %63s %d %d %llu %llu %d %d", s->name,
			   &s->err, &s->created_in_window, &s->created_ns,
			   &s->first_run_ns, &s->ran_in_window,
			   &s->frozen_at_thaw) == 7) {
			r->nr_spawns++;
			continue;
		}
		if (sscanf(line, "invalid %x %d %d", &r->invalid_flags,
			   &r->invalid_err, &r->invalid_ran) == 3)
			continue;
		if (sscanf(line, "churn %d %d %d", &r->churn_rounds,
			   &r->churn_errors, &r->churn_rounds_in_window) == 3)
			continue;
		if (r->nr_named < MAX_NAMED &&
		    sscanf(line, "named %63s %d", nm->name,
			   &nm->frozen_at_thaw) == 2) {
			r->nr_named++;
			continue;
		}
		if (sscanf(line, "stopped %d %d %d %llu %llu %d", &st->err,
			   &st->frozen_before_stop, &st->stop_ret,
			   &st->stop_done_ns, &st->first_run_ns,
			   &st->ran_in_window) == 6)
			continue;
		fprintf(stderr, "# unexpected report line: %s", line);
		err = -EPROTO;
	}
	fclose(f);
	return err;
}

static inline const struct actor *find_actor(const struct probe_report *r,
					     const char *name)
{
	for (int i = 0; i < r->nr_actors; i++)
		if (!strcmp(r->actors[i].name, name))
			return &r->actors[i];
	return NULL;
}

static inline const struct spawn *find_spawn(const struct probe_report *r,
					     const char *name)
{
	for (int i = 0; i < r->nr_spawns; i++)
		if (!strcmp(r->spawns[i].name, name))
			return &r->spawns[i];
	return NULL;
}

static inline const struct named *find_named(const struct probe_report *r,
					     const char *name)
{
	for (int i = 0; i < r->nr_named; i++)
		if (!strcmp(r->named[i].name, name))
			return &r->named[i];
	return NULL;
}

/* Wait up to 5 s for the actor named name to have run once. */
static inline int probe_wait_for_run(const char *name)
{
	struct probe_report r;
	int i, err;

	for (i = 0; i < 500; i++) {
		const struct actor *a;

		err = probe_read(&r);
		if (err)
			return err;
		a = find_actor(&r, name);
		if (!a)
			return -ENOENT;
		if (a->runs)
			return 0;
		usleep(10 * 1000);
	}
	return -ETIMEDOUT;
}

/*
 * One suspend cycle that stops at pm_test level ("freezer": after freezing;
 * "devices": after suspending the devices), holding that state for delay
 * seconds: 0, or the -errno of the write to /sys/power/state (EBUSY when
 * freezing failed).
 */
static inline int suspend_cycle(const char *level, int delay)
{
	char d[16];
	int err;

	snprintf(d, sizeof(d), "%d", delay);
	err = sysfs_write(PM_TEST_DELAY, d);
	if (!err)
		err = sysfs_write("/sys/power/pm_test", level);
	if (!err)
		err = sysfs_write("/sys/power/state", "mem");
	sysfs_write("/sys/power/pm_test", "none");
	return err;
}

static inline int freeze_cycle(int delay)
{
	return suspend_cycle("freezer", delay);
}

/* One line of /sys/kernel/debug/freezer. */
struct freezer_entry {
	char kind[16];
	char pid[16];
	char freezable[16];
	char frozen[16];
	char name[NAME_LEN];
};

/*
 * Find the entry of kind ("kthread" or "workqueue") named name.  Returns 1
 * if found, 0 if not, -errno if the file can't be read, -EPROTO if a line
 * does not have the documented form.
 */
static inline int freezer_lookup(const char *kind, const char *name,
				 struct freezer_entry *out)
{
	char line[256];
	FILE *f = fopen(FREEZER_LIST, "r");
	int found = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct freezer_entry e;
		int n;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%15s %15s %15s %15s %n", e.kind, e.pid,
			   e.freezable, e.frozen, &n) != 4) {
			found = -EPROTO;
			break;
		}
		snprintf(e.name, sizeof(e.name), "%s", line + n);
		if (!found && !strcmp(e.kind, kind) && !strcmp(e.name, name)) {
			*out = e;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* How many tasks have comm as their name (from /proc/PID/comm). */
static inline int count_tasks_named(const char *comm)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int count = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[300], name[64];

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (sysfs_read(path, name, sizeof(name)) <= 0)
			continue;
		name[strcspn(name, "\n")] = '\0';
		if (!strcmp(name, comm))
			count++;
	}
	closedir(d);
	return count;
}

/*
 * count_tasks_named() once the tasks that are exiting are gone: a kthread
 * that kthread_stop() saw exit stays in /proc until kthreadd reaps it.
 * Waits up to 5 s for the count to reach 0; a task that stays is counted.
 */
static inline int count_tasks_named_settled(const char *comm)
{
	int n, i;

	for (i = 0; i < 500; i++) {
		n = count_tasks_named(comm);
		if (n <= 0)
			break;
		usleep(10 * 1000);
	}
	return n;
}

/*
 * freezer_lookup() once an exiting task is gone: a rescuer that
 * destroy_workqueue() stopped is listed until it is reaped, as in
 * count_tasks_named_settled().  Waits up to 5 s for the entry to go;
 * returns 1 if it stays, 0 once it is gone, or a negative errno.
 */
static inline int freezer_lookup_settled(const char *kind, const char *name)
{
	struct freezer_entry e;
	int found, i;

	for (i = 0; i < 500; i++) {
		found = freezer_lookup(kind, name, &e);
		if (found <= 0)
			break;
		usleep(10 * 1000);
	}
	return found;
}

#endif /* FREEZER_TEST_H */
