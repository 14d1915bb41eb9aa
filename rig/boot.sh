#!/bin/sh
# Boot one built kernel variant in QEMU (TCG) with its initramfs; console and test output go to log files under build/logs.
#
# boot.sh VARIANT MODE GROUPS [TIMEOUT]   (VARIANT std, debug or ref)
#   MODE test: run GROUPS' tests, power off; fails only if QEMU does (the
#              host's check-run.py judges the logs).
#   MODE bench: run GROUPS' bench/ programs (make bench), power off.
#   MODE run:  run GROUPS' demos on the console; with a terminal on stdin,
#              then a guest shell (Ctrl-A X quits QEMU); RIG_SHELL=0: none.
# A cluster group (group.conf nodes=N) boots alone, on N guests that
# rig/cluster.py runs: logs build/logs/console-VARIANT-nodeN.log and
# tap-VARIANT-nodeN.log (a node booted again: ...-nodeN.2.log...).
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

# A cluster group boots alone, its nodes' logs named after the console's
# and the TAP log's (rig/cluster.py removes the earlier run's).
nodes=1
for g in $groups; do
	n=$(rig_nodes "$g")
	[ "$n" = 1 ] && continue
	[ "$(echo "$groups" | wc -w)" = 1 ] ||
		die "group $g boots alone on a cluster of $n guests: boot it without the other groups ($groups)"
	nodes=$n
done
[ "$nodes" = 1 ] && rm -f "$console" "$tap"

# KASAN's shadow and kmemleak's pool want more room than the small kernel.
mem=256
[ "$variant" = debug ] && mem=384
# A group may need more (group.conf mem=): the boot gets the most any asks.
for g in $groups; do
	f=$RIG_BUILD/guest/tests/$g/mem
	[ -s "$f" ] && [ "$(cat "$f")" -gt $mem ] && mem=$(cat "$f")
done

shell=0
[ "$mode" = run ] && [ -t 0 ] && [ -t 1 ] && [ "${RIG_SHELL:-1}" = 1 ] && shell=1
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
	[ "$nodes" = 1 ] || die "group $g: scsi-disk= is not supported on a cluster group (nodes=$nodes)"
	img=$RIG_BUILD/scsi-disk-$variant.img
	rm -f "$img"
	truncate -s "$(cat "$f")M" "$img"
	disk="-device virtio-scsi-pci,id=scsi0 -drive file=$img,if=none,id=sd0,format=raw,cache=unsafe"
	disk="$disk -device scsi-hd,bus=scsi0.0,drive=sd0,serial=rig-scsi-disk"
	break
done

# A cluster's nodes boot with 4-level page tables.  With -cpu max's LA57,
# identify_cpu() clears the boot CPU's feature bits (LA57 with them) for a
# moment, and KASAN, whose shadow bounds follow pgtable_l5_enabled(),
# reports any interrupt that lands then as a "wild-memory-access" in
# handle_edge_irq(): a false report that three guests on two host cores
# made frequent (node 2 of a debug run, 2026-12-05).
[ "$nodes" = 1 ] || append="$append no5lvl"
# And without the IO-APIC timer check: a node that boots while the other
# two keep the host's cores busy may see too few timer ticks in its
# window, and the kernel panics with "IO-APIC + timer doesn't work!"
# (node 3's 17th boot of a std run, 2026-12-05).  The check is for
# broken hardware; QEMU's IO-APIC timer works.
[ "$nodes" = 1 ] || append="$append no_timer_check"
# A cluster's node gets one vCPU.  These kernels have no ACPI and find
# their CPUs in SeaBIOS's MP table, which lists CPU 0 only: -smp 2 boots
# one CPU anyway ("smp: Brought up 1 node, 1 CPU"), and a second vCPU per
# node measured no faster on this two-core host (README, Timings).
smp=2
[ "$nodes" = 1 ] || smp=1
set -- qemu-system-x86_64 -nodefaults -no-reboot -display none \
	-accel tcg,thread=multi -cpu max -smp $smp -m "$mem" \
	-kernel "$kernel" -initrd "$initrd" -append "$append"

if [ "$nodes" != 1 ]; then
	# cluster.py adds each node's ports, NIC and shared directory, and
	# kills what is left at the timeout (none with a shell); make run
	# shows node 1's console.
	live=
	[ "$mode" = run ] && live=--live
	[ $shell = 1 ] && timeout=0
	log=$RIG_LOGS/cluster-$variant.log
	[ "$mode" = bench ] && log=$RIG_LOGS/cluster-bench-$variant.log
	set -- python3 "$RIG_TOP/rig/cluster.py" --nodes "$nodes" --dir "$RIG_BUILD/cluster-$variant" \
		--console "${console%.log}" --tap "${tap%.log}" --log "$log" \
		--timeout "$timeout" $live -- "$@"
	[ $shell = 1 ] && exec "$@"
	exec "$@" </dev/null
fi

if [ "$mode" = run ]; then
	# The person sees the console live; it is logged as well.
	con="-chardev stdio,id=con,mux=on,signal=off,logfile=$console -mon chardev=con,mode=readline"
else
	con="-chardev file,id=con,path=$console"
fi
# The first -serial is the guest's ttyS0 (console), the second ttyS1 (TAP).
# shellcheck disable=SC2086
set -- "$@" $con -chardev file,id=tap,path="$tap" \
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
