#!/bin/sh
# make test: install, build and boot each kernel variant (std, then debug) with the test groups, and print one closing line for all runs.
#
# Environment: VARIANT=std|debug runs one variant; T="group ..." runs those
# groups (default: every directory under tests/); TIMEOUT=seconds per boot.
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
	timeout=${TIMEOUT:-$([ "$v" = debug ] && echo 1200 || echo 600)}
	stage "boot and test ($v)" sh "$RIG_TOP/rig/boot.sh" "$v" test "$groups" "$timeout"
	python3 "$RIG_TOP/rig/check-run.py" --variant "$v" \
		--tap "$RIG_LOGS/tap-$v.log" --console "$RIG_LOGS/console-$v.log" \
		--groups-dir "$RIG_BUILD/guest/tests" --groups "$groups" \
		--counts "$RIG_LOGS/counts-$v" || {
		fail=1
		echo "logs: $RIG_LOGS/console-$v.log (kernel console), $RIG_LOGS/tap-$v.log (tests)"
	}
	counts="$counts $RIG_LOGS/counts-$v"
done
# shellcheck disable=SC2086
python3 "$RIG_TOP/rig/check-run.py" --total $counts || fail=1
exit $fail
