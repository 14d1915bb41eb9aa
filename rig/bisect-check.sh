#!/bin/sh
# Build the std kernel after each patch of the series in turn (slow; not in CI), in a worktree of its own.
set -eu
. "$(dirname "$0")/lib.sh"

# The worktree and its output directory sit side by side as linux/ and
# out-std/, like build/linux and build/out-std: ccache's base_dir hashes
# the tree's paths relative to the output directory, so the same layout
# lets the first build hit the objects of the main tree.
wt=$RIG_BUILD/bisect/linux
out=$RIG_BUILD/bisect/out-std
git -C "$RIG_TREE" rev-parse -q --verify base >/dev/null || die "no kernel tree: run 'make tree'"
commits=$(git -C "$RIG_TREE" rev-list --reverse base..HEAD)
[ -n "$commits" ] || {
	echo "no patches after base: nothing to bisect"
	exit 0
}
git -C "$RIG_TREE" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
git -C "$RIG_TREE" worktree prune
git -C "$RIG_TREE" worktree add -q --detach "$wt" base
trap 'git -C "$RIG_TREE" worktree remove --force "$wt"' EXIT
i=0
for c in $commits; do
	i=$((i + 1))
	git -C "$wt" checkout -q "$c"
	printf '[%d] %s ... ' "$i" "$(git -C "$wt" log -1 --format=%s)"
	t0=$(now)
	# A fragment may name options that only a later patch adds: check that
	# every option landed only for the whole series.
	check=0
	[ "$c" = "$(git -C "$RIG_TREE" rev-parse HEAD)" ] && check=1
	if RIG_TREE=$wt RIG_OUT=$out RIG_CHECK_CONFIG=$check sh "$RIG_TOP/rig/build-kernel.sh" std \
		>"$RIG_LOGS/bisect-$i.log" 2>&1; then
		echo "builds ($(elapsed "$t0")s)"
	else
		echo "FAILS to build: $RIG_LOGS/bisect-$i.log"
		tail -n 20 "$RIG_LOGS/bisect-$i.log"
		exit 1
	fi
done
echo "all $i patches build on their own"
