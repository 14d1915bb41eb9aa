#!/bin/sh
# make bench: boot the standard kernel and the reference kernel (config/ref.config) in turn with the groups' bench/ programs, and print each figure's medians side by side.
#
# Environment: T="group ..." limits the groups (default: every group with a
# bench/ directory); BOOTS=N boots each kernel N times (default 3, in turn)
# and prints medians.  Not part of make test: figures are printed, not judged.
# A cluster group (group.conf nodes=N) boots alone on N guests, its
# programs on node 1, after the other groups' boot.
set -eu
. "$(dirname "$0")/lib.sh"

if [ -n "${T:-}" ]; then
	groups=$(rig_selected_groups)
else
	groups=$(for g in $(rig_groups); do [ -d "$RIG_TOP/tests/$g/bench" ] && echo "$g"; done | tr '\n' ' ')
fi
[ -n "$groups" ] || die "no test group has a bench/ directory"
# shellcheck disable=SC2086
dirs=$(rig_group_dirs $groups)

rig_setup
boots=${BOOTS:-3}
case $boots in '' | *[!0-9]* | 0) die "BOOTS=$boots: give a number of boots per kernel, 1 or more" ;; esac
for v in std ref; do
	# shellcheck disable=SC2086
	RIG_BENCH=1 sh "$RIG_TOP/rig/prepare.sh" "$v" $dirs
done
# shellcheck disable=SC2086
ordinary=$(rig_groups_of_kind ordinary $groups)
# shellcheck disable=SC2086
clusters=$(rig_groups_of_kind cluster $groups)

# bench_check V LOG CONSOLE [NODES]: every program ran to rc=0, and make
# test's checker, given no test programs, finds the guest (every node)
# finished with no kernel report.
bench_check() {
	if grep -q '^rig: bench .* rc=[^0]' "$2" ||
		! python3 "$RIG_TOP/rig/check-run.py" --variant "$1" --tap "$2" \
			--console "$3" --groups-dir "$RIG_BUILD/guest/tests" \
			${4:+--nodes "$4"} >"$RIG_LOGS/bench-check-$1.log"; then
		cat "$2" "$RIG_LOGS/bench-check-$1.log"
		die "bench on $1 failed: see $2 and $3"
	fi
}

# The kernels boot in turn, so a change in the host's load falls on both.
i=1
while [ "$i" -le "$boots" ]; do
	for v in std ref; do
		log=$RIG_LOGS/bench-$v.log
		: >"$log"
		if [ -n "$ordinary" ]; then
			stage "bench ($v, boot $i)" sh "$RIG_TOP/rig/boot.sh" "$v" bench "$ordinary" "${TIMEOUT:-900}"
			bench_check "$v" "$log" "$RIG_LOGS/console-bench-$v.log"
		fi
		for g in $clusters; do
			n=$(rig_nodes "$g")
			stage "bench ($v, $g x$n, boot $i)" sh "$RIG_TOP/rig/boot.sh" "$v" bench "$g" "${TIMEOUT:-900}"
			bench_check "$v" "$RIG_LOGS/bench-$v-node1.log" "$RIG_LOGS/console-bench-$v-node1.log" "$n"
			cat "$RIG_LOGS/bench-$v-node1.log" >>"$log"
		done
		mv "$log" "$RIG_LOGS/bench-$v-$i.log"
	done
	i=$((i + 1))
done

# One row per figure: its median over the boots of each kernel, and std/ref.
echo
echo "medians of $boots boot(s) per kernel; logs: $RIG_LOGS/bench-{std,ref}-N.log"
i=1
files=
while [ "$i" -le "$boots" ]; do
	files="$files $RIG_LOGS/bench-std-$i.log $RIG_LOGS/bench-ref-$i.log"
	i=$((i + 1))
done
# shellcheck disable=SC2086
awk '
function median(k, v,   n, i, j, t, a) {
	n = split(vals[k, v], a, " ")
	if (!n)
		return "-"
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
FNR == 1 { v = (FILENAME ~ /bench-std-/) ? "std" : "ref" }
/^bench [^ ]+ [^ ]+ [0-9.]+ / {
	k = $2 " " $3
	if (!(k in unit)) { order[n++] = k; unit[k] = $5 }
	vals[k, v] = vals[k, v] " " $4
}
END {
	printf "%-48s %12s %12s %8s\n", "figure (unit)", "std", "ref", "std/ref"
	for (i = 0; i < n; i++) {
		k = order[i]
		s = median(k, "std")
		r = median(k, "ref")
		q = (s != "-" && r != "-" && r + 0 != 0) ? sprintf("%.2f", s / r) : "-"
		printf "%-48s %12s %12s %8s\n", k " (" unit[k] ")", s, r, q
	}
}' $files
