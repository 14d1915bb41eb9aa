#!/bin/sh
# make test: install, build and boot each kernel variant (std, then debug) with the test groups, and print one closing line for all runs.
#
# Environment: VARIANT=std|debug runs one variant; T="group ..." runs those
# groups (default: every directory under tests/); TIMEOUT=seconds per boot.
# The ordinary groups share one boot; a cluster group (group.conf nodes=N)
# boots alone on N guests, after them.
set -eu
. "$(dirname "$0")/lib.sh"

groups=$(rig_selected_groups)
# shellcheck disable=SC2086
dirs=$(rig_group_dirs $groups)
variants=$(rig_variants)

rig_setup

fail=0
counts=
for v in $variants; do
	# shellcheck disable=SC2086
	sh "$RIG_TOP/rig/prepare.sh" "$v" $dirs
	# A boot's limit, with room for a slow host: the debug boot that took
	# 913 s on one host was killed at the old 1,200 s on another, at
	# inotify's stress, its programs 1.8 times as slow.
	timeout=${TIMEOUT:-$([ "$v" = debug ] && echo 2700 || echo 1200)}
	# shellcheck disable=SC2086
	ordinary=$(rig_groups_of_kind ordinary $groups)
	# shellcheck disable=SC2086
	clusters=$(rig_groups_of_kind cluster $groups)
	if [ -n "$ordinary" ]; then
		stage "boot and test ($v)" sh "$RIG_TOP/rig/boot.sh" "$v" test "$ordinary" "$timeout"
		python3 "$RIG_TOP/rig/check-run.py" --variant "$v" \
			--tap "$RIG_LOGS/tap-$v.log" --console "$RIG_LOGS/console-$v.log" \
			--groups-dir "$RIG_BUILD/guest/tests" --groups "$ordinary" \
			--counts "$RIG_LOGS/counts-$v" || {
			fail=1
			echo "logs: $RIG_LOGS/console-$v.log (kernel console), $RIG_LOGS/tap-$v.log (tests)"
		}
		counts="$counts $RIG_LOGS/counts-$v"
	fi
	for g in $clusters; do
		n=$(rig_nodes "$g")
		stage "boot and test ($v, $g x$n)" sh "$RIG_TOP/rig/boot.sh" "$v" test "$g" "$timeout"
		python3 "$RIG_TOP/rig/check-run.py" --variant "$v" --nodes "$n" \
			--tap "$RIG_LOGS/tap-$v-node1.log" --console "$RIG_LOGS/console-$v-node1.log" \
			--groups-dir "$RIG_BUILD/guest/tests" --groups "$g" \
			--counts "$RIG_LOGS/counts-$v-$g" || {
			fail=1
			echo "logs: $RIG_LOGS/console-$v-node*.log (each node's kernel console)," \
				"$RIG_LOGS/tap-$v-node1.log (tests), $RIG_LOGS/cluster-$v.log (the runner)"
		}
		counts="$counts $RIG_LOGS/counts-$v-$g"
	done
done
# shellcheck disable=SC2086
python3 "$RIG_TOP/rig/check-run.py" --total $counts || fail=1
exit $fail
