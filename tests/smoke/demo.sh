# Demo of the rig itself: which kernel runs, what the guest has, a module and a freezer cycle.
echo "kernel:  $(uname -r) ($(uname -v))"
echo "mounts:  $(awk '{print $2 "(" $3 ")"}' /proc/mounts | tr '\n' ' ')"
echo "users:   root, and $(asuser id)"
echo "loading rig_smoke.ko with answer=7 ..."
insmod /modules/smoke/rig_smoke.ko answer=7
echo "  /sys/module/rig_smoke/parameters/answer = $(cat /sys/module/rig_smoke/parameters/answer)"
rmmod rig_smoke && echo "  unloaded"
echo "suspend cycle stopping after the freezer (pm_test=freezer) ..."
echo 1 >/sys/module/suspend/parameters/pm_test_delay
echo freezer >/sys/power/pm_test
if echo mem >/sys/power/state; then echo "  froze and thawed every task"; else echo "  FAILED"; fi
echo none >/sys/power/pm_test
