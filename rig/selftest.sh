#!/bin/sh
# make rig-selftest: prove the runner cannot pass a broken kernel; each broken case must fail the run, for the right reason.
set -eu
. "$(dirname "$0")/lib.sh"

# case  variant  timeout(s)  what check-run.py must say (an extended regex)
cases='
fail           std    120  ^FAIL std +selftest-fail/fails_an_assertion\.one_plus_one_is_three: failed
panic          std    120  ^FAIL std +kernel: kernel panic during selftest-panic/
oops           std    120  ^FAIL std +kernel: kernel Oops during selftest-oops/
hang           std     25  ^FAIL std +guest: hung: QEMU killed at the timeout
node-oops      std    120  ^FAIL std +kernel: kernel Oops on node 2 during its agent.s commands
use-after-free debug  300  ^FAIL debug +kernel: KASAN report during selftest-use-after-free/
leak           debug  300  ^FAIL debug +kernel: kmemleak: leaked object
'
dir=$RIG_TOP/rig/selftest

rig_setup

caught=0
missed=0
for v in std debug; do
	groups=$(printf '%s\n' "$cases" | awk -v v="$v" '$2 == v { print "selftest-" $1 }')
	dirs=$(for g in $groups; do printf '%s ' "$dir/$g"; done)
	# shellcheck disable=SC2086
	sh "$RIG_TOP/rig/prepare.sh" "$v" $dirs
	for g in $groups; do
		c=${g#selftest-}
		line=$(printf '%s\n' "$cases" | awk -v c="$c" '$1 == c')
		timeout=$(echo "$line" | awk '{ print $3 }')
		want=$(echo "$line" | sed 's/^[^ ]* *[^ ]* *[^ ]* *//')
		logs=$RIG_LOGS/selftest-$c
		(
			export RIG_LOGS="$logs"
			stage "boot: $c ($v)" sh "$RIG_TOP/rig/boot.sh" "$v" test "$g" "$timeout"
		)
		# A cluster group's case (nodes=N): node 1's logs, and the others'.
		n=$(rig_nodes "$g")
		log=$v nodes=
		[ "$n" = 1 ] || log=$v-node1 nodes="--nodes $n"
		rc=0
		# shellcheck disable=SC2086
		python3 "$RIG_TOP/rig/check-run.py" --variant "$v" \
			--tap "$logs/tap-$log.log" --console "$logs/console-$log.log" $nodes \
			--groups-dir "$RIG_BUILD/guest/tests" --groups "$g" >"$logs/verdict" 2>&1 || rc=$?
		if [ $rc = 1 ] && grep -Eq "$want" "$logs/verdict"; then
			echo "caught  $c: $(grep -E "$want" "$logs/verdict" | head -n 1)"
			caught=$((caught + 1))
		else
			echo "MISSED  $c: check-run.py exited $rc without a line matching /$want/:"
			sed 's/^/        /' "$logs/verdict" | head -n 40
			missed=$((missed + 1))
		fi
	done
done
echo "rig self-test: $caught of $((caught + missed)) broken kernels caught"
[ $missed = 0 ]
