#!/bin/sh
# make run: install, build and boot the patched kernel with a short demo of each test group; a guest shell follows on a terminal.
#
# Environment: VARIANT=std (default) or debug; T="group ..." limits the demos.
# The ordinary groups share one boot; a cluster group (group.conf nodes=N)
# boots alone on N guests after them, node 1 on this terminal.  The shell
# follows the last boot.
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
# shellcheck disable=SC2086
ordinary=$(rig_groups_of_kind ordinary $groups)
# shellcheck disable=SC2086
clusters=$(rig_groups_of_kind cluster $groups)
release=$(cat "$RIG_BUILD/out-$v/include/config/kernel.release")
if [ -n "$ordinary" ]; then
	echo "booting $release in QEMU (console log: $RIG_LOGS/console-$v.log)"
	shell=1
	[ -n "$clusters" ] && shell=0
	t0=$(now)
	RIG_SHELL=$shell sh "$RIG_TOP/rig/boot.sh" "$v" run "$ordinary" "${TIMEOUT:-300}"
	printf '%-34s %7ss\n' "guest run ($v)" "$(elapsed "$t0")"
fi
for g in $clusters; do
	n=$(rig_nodes "$g")
	echo "booting $release on $n guests for $g (node 1 here; consoles: $RIG_LOGS/console-$v-nodeN.log)"
	shell=0
	[ "$g" = "$(echo "$clusters" | awk '{ print $NF }')" ] && shell=1
	t0=$(now)
	RIG_SHELL=$shell sh "$RIG_TOP/rig/boot.sh" "$v" run "$g" "${TIMEOUT:-300}"
	printf '%-34s %7ss\n' "guest run ($v, $g x$n)" "$(elapsed "$t0")"
done
