#!/bin/sh
# make timings: measure the rig's build and boot times on this machine and print the figures the README quotes.
#
# timings.sh          no-op make test, one touched kernel file, fresh output
#                     directories with a warm ccache, QEMU start to result
# timings.sh --cold   also fresh output directories with ccache off (slow:
#                     the two kernels from scratch)
set -eu
. "$(dirname "$0")/lib.sh"

cold=0
[ "${1:-}" = --cold ] && cold=1
tdir=$RIG_BUILD/timings
mkdir -p "$tdir"
results=$tdir/results
: >"$results"

measure() {
	_what=$1
	shift
	_t0=$(now)
	"$@" >"$tdir/last.log" 2>&1 || {
		tail -n 30 "$tdir/last.log"
		die "timing run failed: $_what (log: $tdir/last.log)"
	}
	printf '%-58s %7ss\n' "$_what" "$(elapsed "$_t0")" | tee -a "$results"
}

# Everything built once first, so the runs below start from a known state.
make -C "$RIG_TOP" test >"$tdir/prepare.log" 2>&1 || die "make test fails: see $tdir/prepare.log"

measure "make test, nothing changed (both kernels)" make -C "$RIG_TOP" test
grep -E '^boot and test \((std|debug)\)' "$tdir/last.log" |
	sed 's/^boot and test (\(.*\)) *\(.*\)$/QEMU start to result line (\1 kernel, every group)  \2/' |
	awk '{ t = $NF; $NF = ""; printf "%-58s %8s\n", $0, t }' | tee -a "$results"

touch "$RIG_TREE/kernel/params.c"
measure "make test after touching kernel/params.c (ccache off)" \
	env CCACHE_DISABLE=1 make -C "$RIG_TOP" test

for v in std debug; do
	rm -rf "$tdir/out-$v"
	measure "kernel $v from a fresh O= directory, warm ccache" \
		env RIG_OUT="$tdir/out-$v" sh "$RIG_TOP/rig/build-kernel.sh" "$v"
	if [ $cold = 1 ]; then
		rm -rf "$tdir/out-$v"
		measure "kernel $v from a fresh O= directory, ccache off" \
			env CCACHE_DISABLE=1 RIG_OUT="$tdir/out-$v" sh "$RIG_TOP/rig/build-kernel.sh" "$v"
	fi
	rm -rf "$tdir/out-$v"
done
echo "figures in $results ($(nproc) cores, $(date -u +%Y-%m-%d))"
