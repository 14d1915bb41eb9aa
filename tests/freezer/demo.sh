# Demo of per-kthread freezer flags: the debugfs classification, then one freeze held for a second.
insmod /modules/freezer/freezer_probe.ko
echo "grep from /sys/kernel/debug/freezer (kind pid freezable frozen name):"
grep -E ' (kthreadd|ksoftirqd/0|migration/0|oom_reaper|fzp_.*|kworker/R-fzwq.)$| (events|events_freezable|writeback|fzwqf|fzwqn)$' \
	/sys/kernel/debug/freezer
echo
echo "echo hold > ctl   (a freezable thread, created and not yet woken)"
echo hold >/sys/kernel/debug/freezer_probe/ctl
grep ' fzp_held$' /sys/kernel/debug/freezer
echo
echo "echo 1 > pm_test_delay; echo freezer > /sys/power/pm_test; echo mem > /sys/power/state"
echo 1 >/sys/module/suspend/parameters/pm_test_delay
echo freezer >/sys/power/pm_test
echo mem >/sys/power/state
echo none >/sys/power/pm_test
sleep 1
echo
echo "what freezer_probe saw (actor NAME FREEZABLE RUNS RUNS_IN_WINDOW FROZEN_AT_THAW;"
echo " spawn NAME ERR CREATED_IN_WINDOW CREATED_NS FIRST_RUN_NS RAN_IN_WINDOW FROZEN_AT_THAW):"
cat /sys/kernel/debug/freezer_probe/report
rmmod freezer_probe
