#!/bin/sh
# Boot one built kernel variant in QEMU (TCG) with its initramfs; console and test output go to log files under build/logs.
#
# boot.sh VARIANT MODE GROUPS [TIMEOUT]   (VARIANT std, debug or ref)
#   MODE test: run GROUPS' tests, power off; fails only if QEMU does (the
#              host's check-run.py judges the logs).
#   MODE bench: run GROUPS' bench/ programs (make bench), power off.
#   MODE run:  run GROUPS' demos on the console; with a terminal on stdin,
#              then a guest shell (Ctrl-A X quits QEMU).
set -eu
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: boot.sh std|debug|ref test|bench|run GROUPS [TIMEOUT]}
mode=${2:?usage: boot.sh std|debug|ref test|bench|run GROUPS [TIMEOUT]}
groups=${3:-}
timeout=${4:-600}
out=$RIG_BUILD/out-$variant
kernel=$out/arch/x86/boot/bzImage
initrd=$RIG_BUILD/initramfs-$variant.cpio
console=$RIG_LOGS/console-$variant.log
tap=$RIG_LOGS/tap-$variant.log
# make bench keeps make test's logs.
if [ "$mode" = bench ]; then
	console=$RIG_LOGS/console-bench-$variant.log
	tap=$RIG_LOGS/bench-$variant.log
fi
[ -f "$kernel" ] || die "no kernel at $kernel: build it first (make test)"
[ -f "$initrd" ] || die "no initramfs at $initrd"
mkdir -p "$RIG_LOGS"
rm -f "$console" "$tap"

# KASAN's shadow and kmemleak's pool want more room than the small kernel.
mem=256
[ "$variant" = debug ] && mem=384
# A group may need more (group.conf mem=): the boot gets the most any asks.
for g in $groups; do
	f=$RIG_BUILD/guest/tests/$g/mem
	[ -s "$f" ] && [ "$(cat "$f")" -gt $mem ] && mem=$(cat "$f")
done

shell=0
[ "$mode" = run ] && [ -t 0 ] && [ -t 1 ] && shell=1
loglevel=7
# make run shows a person warnings and errors, not the whole boot log.
[ "$mode" = run ] && loglevel=5
append="console=ttyS0 loglevel=$loglevel panic=-1 rig.mode=$mode rig.variant=$variant rig.shell=$shell"
[ -n "$groups" ] && append="$append rig.groups=$(echo "$groups" | tr ' ' ,)"
# The groups' own kernel parameters (group.conf cmdline=), then the caller's.
for g in $groups; do
	f=$RIG_BUILD/guest/tests/$g/cmdline
	[ -s "$f" ] && append="$append $(tr '\n' ' ' <"$f")"
done
# The guest's TSC is the host's: give its rate rather than let the guest
# calibrate against the emulated PIT, which fails on a busy host and leaves
# the guest on a 4 ms jiffies clock (rig/tsc-khz.c).
tsc=$RIG_BUILD/host/tsc-khz
if [ ! -x "$tsc" ] || [ "$RIG_TOP/rig/tsc-khz.c" -nt "$tsc" ]; then
	mkdir -p "${tsc%/*}"
	gcc -O2 -Wall -Werror -o "$tsc" "$RIG_TOP/rig/tsc-khz.c" || die "cannot build $tsc"
fi
append="$append tsc_early_khz=$("$tsc")"
# TCG's TSC follows the host's clock, so it is right; but on a busy host
# the guest loses timer ticks, and the clocksource watchdog, comparing the
# TSC with those ticks (refined-jiffies: the test kernels have no HPET or
# ACPI PM timer), marks the TSC unstable and moves timekeeping to
# jiffies: every ktime_get_ns() then has 4 ms steps, and two events on
# two CPUs get the same time (the freezer tests compare such times).
append="$append tsc=reliable"
[ -n "${RIG_APPEND:-}" ] && append="$append $RIG_APPEND"

# A group may ask for a SCSI disk on a virtio-scsi controller (group.conf
# scsi-disk=MB): an empty sparse image, new at every boot, under build/.
disk=
for g in $groups; do
	f=$RIG_BUILD/guest/tests/$g/scsi-disk
	[ -s "$f" ] || continue
	img=$RIG_BUILD/scsi-disk-$variant.img
	rm -f "$img"
	truncate -s "$(cat "$f")M" "$img"
	disk="-device virtio-scsi-pci,id=scsi0 -drive file=$img,if=none,id=sd0,format=raw,cache=unsafe"
	disk="$disk -device scsi-hd,bus=scsi0.0,drive=sd0,serial=rig-scsi-disk"
	break
done

if [ "$mode" = run ]; then
	# The person sees the console live; it is logged as well.
	con="-chardev stdio,id=con,mux=on,signal=off,logfile=$console -mon chardev=con,mode=readline"
else
	con="-chardev file,id=con,path=$console"
fi
# The first -serial is the guest's ttyS0 (console), the second ttyS1 (TAP).
# shellcheck disable=SC2086
set -- qemu-system-x86_64 -nodefaults -no-reboot -display none \
	-accel tcg,thread=multi -cpu max -smp 2 -m "$mem" \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	$con -chardev file,id=tap,path="$tap" \
	-serial chardev:con -serial chardev:tap $disk

if [ $shell = 1 ]; then
	exec "$@"
fi
rc=0
timeout -k 5 "$timeout" "$@" </dev/null || rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "rig: QEMU killed after ${timeout}s timeout" >>"$console"
	echo "qemu: timeout after ${timeout}s"
	exit 0
fi
[ $rc = 0 ] || die "qemu-system-x86_64 exited with $rc (see $console)"
