#!/bin/sh
# make run: install, build and boot the patched kernel with a short demo of each test group; a guest shell follows on a terminal.
#
# Environment: VARIANT=std (default) or debug; T="group ..." limits the demos.
set -eu
. "$(dirname "$0")/lib.sh"

groups=$(rig_selected_groups)
# shellcheck disable=SC2086
dirs=$(rig_group_dirs $groups)
v=${VARIANT:-std}
case $v in std | debug) ;; *) die "VARIANT=$v: make run boots one kernel, std or debug" ;; esac

rig_setup
# shellcheck disable=SC2086
sh "$RIG_TOP/rig/prepare.sh" "$v" $dirs
echo "booting $(cat "$RIG_BUILD/out-$v/include/config/kernel.release") in QEMU (console log: $RIG_LOGS/console-$v.log)"
t0=$(now)
sh "$RIG_TOP/rig/boot.sh" "$v" run "$groups" "${TIMEOUT:-300}"
printf '%-34s %7ss\n' "guest run ($v)" "$(elapsed "$t0")"
