#!/bin/sh
# Recreate build/linux as base + the patches in patches/series, applied with git am on branch main.
#
# tree.sh          recreate; refuses to drop commits or edits that are not in
#                  patches/ (FORCE=1 drops them)
# tree.sh --ensure for make test/run: create the tree if it is missing,
#                  re-apply if patches/ changed and build/linux holds nothing
#                  of its own, otherwise test build/linux as it is
set -eu
. "$(dirname "$0")/lib.sh"

ensure=0
[ "${1:-}" = --ensure ] && ensure=1
series=$RIG_TOP/patches/series
stampf=$RIG_TREE/.git/rig-series

[ -f "$series" ] || die "patches/series is missing"
patches=$(series_patches)
for p in $patches; do
	[ -f "$RIG_TOP/patches/$p" ] || die "patches/series lists $p, which is not in patches/"
done
want=$(series_sum)

if ! git -C "$RIG_TREE" rev-parse -q --verify base >/dev/null 2>&1; then
	sh "$RIG_TOP/rig/base-tree.sh"
fi
cd "$RIG_TREE"

head=$(git rev-parse HEAD)
stamp_series=$(sed -n 1p "$stampf" 2>/dev/null || true)
stamp_head=$(sed -n 2p "$stampf" 2>/dev/null || true)
[ -n "$stamp_head" ] || stamp_head=$(git rev-parse base)
dirty=$(git status --porcelain --untracked-files=no)
own=0
[ "$head" != "$stamp_head" ] && own=1
[ -n "$dirty" ] && own=1

if [ $ensure = 1 ]; then
	if [ "$stamp_series" = "$want" ] && [ $own = 0 ]; then
		echo "build/linux is base + patches/ ($(git rev-list --count base..HEAD) patches)"
		exit 0
	fi
	if [ $own = 1 ]; then
		warn "build/linux has commits or edits of its own (not in patches/): testing it as it is; 'make export' saves them, 'make tree' resets it"
		exit 0
	fi
elif [ $own = 1 ] && [ "${FORCE:-0}" != 1 ]; then
	git log --oneline "$stamp_head..HEAD" >&2 || true
	[ -n "$dirty" ] && printf '%s\n' "$dirty" >&2
	die "build/linux has work that is not in patches/ (above): run 'make export' first, or FORCE=1 make tree to drop it"
fi

git am --abort >/dev/null 2>&1 || true
git checkout -q -f -B main base
for p in $patches; do
	git am -q --keep-cr "$RIG_TOP/patches/$p" ||
		die "patches/$p does not apply on base + the patches before it (git -C build/linux am --show-current-patch)"
done
printf '%s\n%s\n' "$want" "$(git rev-parse HEAD)" >"$stampf"
echo "build/linux = base + $(git rev-list --count base..HEAD) patches from patches/series"
