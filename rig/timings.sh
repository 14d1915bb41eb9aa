#!/bin/sh
# make timings: measure the rig's build and boot times on this machine and print the figures the README quotes.
#
# timings.sh          no-op make test with each group's time in the guest,
#                     one touched kernel file, fresh output directories and
#                     a fresh clone at a new path with a warm ccache
# timings.sh --cold   also fresh output directories with ccache off (slow:
#                     the two kernels from scratch)
set -eu
. "$(dirname "$0")/lib.sh"

cold=0
[ "${1:-}" = --cold ] && cold=1
# Every group on both kernels, whatever the caller's make variables say.
unset VARIANT T
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
echo "each group's time in the guest, from the run above:" | tee -a "$results"
python3 "$RIG_TOP/rig/group-times.py" "$RIG_LOGS/tap-std.log" "$RIG_LOGS/tap-debug.log" |
	tee -a "$results"

touch "$RIG_TREE/kernel/params.c"
measure "make test after touching kernel/params.c (ccache off)" \
	env CCACHE_DISABLE=1 make -C "$RIG_TOP" test

# A fresh output directory beside build/linux, as build/out-VARIANT is:
# ccache hashes the tree's paths relative to it (see rig/lib.sh).
for v in std debug; do
	o=$RIG_BUILD/out-timings-$v
	rm -rf "$o"
	measure "kernel $v from a fresh O= directory, warm ccache" \
		env RIG_OUT="$o" sh "$RIG_TOP/rig/build-kernel.sh" "$v"
	if [ $cold = 1 ]; then
		rm -rf "$o"
		measure "kernel $v from a fresh O= directory, ccache off" \
			env CCACHE_DISABLE=1 RIG_OUT="$o" sh "$RIG_TOP/rig/build-kernel.sh" "$v"
	fi
	rm -rf "$o"
done
# CI's case and every new session's: a clone of this repository's HEAD at
# a path the cache has never seen, its own tree, both kernels.
clone=$(mktemp -d "${TMPDIR:-/tmp}/lwn2004-clone.XXXXXX")
trap 'rm -rf "$clone"' EXIT
trap 'exit 130' INT TERM
git clone -q "$RIG_TOP" "$clone/repo"
measure "make tree in a fresh clone at a new path" make -C "$clone/repo" tree
for v in std debug; do
	measure "kernel $v in that clone, warm ccache" sh "$clone/repo/rig/build-kernel.sh" "$v"
done
rm -rf "$clone"
echo "figures in $results ($(nproc) cores, $(date -u +%Y-%m-%d))"
