#!/bin/sh
# Write the commits after base in build/linux back into patches/: numbered format-patch files, a cover letter and the series file.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$RIG_TREE" 2>/dev/null || die "no kernel tree in $RIG_TREE: run 'make tree'"
git rev-parse -q --verify base >/dev/null || die "build/linux has no base tag"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit them (git -C build/linux commit) before 'make export'"
n=$(git rev-list --count base..HEAD)
pdir=$RIG_TOP/patches
cover=$pdir/0000-cover-letter.patch

# The cover letter's subject and blurb are kept from the last export (edit
# them in patches/0000-cover-letter.patch); the rest is regenerated.
subject="Patches of interest from LWN, August 2004, on Linux 6.12"
blurb="The 2004 patches reviewed by LWN's \"Recent patches of interest\", rebuilt
on Debian's Linux 6.12 as a series that applies with git am on the pristine
source (see the project's README for how it is built and tested)."
if [ -f "$cover" ]; then
	s=$(sed -n 's/^Subject: \[PATCH 0\/[0-9]*\] //p' "$cover")
	b=$(awk 'body && /^[^ ].* \([0-9]+\):$/ { exit } body { print } /^$/ && !body { body = 1 }' "$cover" |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
	[ -n "$s" ] && subject=$s
	[ -n "$b" ] && blurb=$b
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$n" -gt 0 ]; then
	git -c branch.main.description="$(printf '%s\n\n%s\n' "$subject" "$blurb")" \
		format-patch -q --cover-letter --cover-from-description=subject \
		--zero-commit --no-signature --base=base -o "$tmp" base..HEAD
fi
rm -f "$pdir"/[0-9][0-9][0-9][0-9]-*.patch
[ "$n" -gt 0 ] && cp "$tmp"/*.patch "$pdir"/
{
	echo "# The patch series in git am order, written by 'make export'."
	for f in "$tmp"/*.patch; do
		[ -e "$f" ] || continue
		case $(basename "$f") in 0000-cover-letter.patch) continue ;; esac
		basename "$f"
	done
} >"$pdir/series"
# build/linux now matches patches/ again.
printf '%s\n%s\n' "$(series_sum)" "$(git rev-parse HEAD)" >"$RIG_TREE/.git/rig-series"
echo "exported $n patches to patches/"
