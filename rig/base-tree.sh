#!/bin/sh
# Create build/linux from Debian's kernel source tarball: a git tree whose first commit, tagged base, is the pristine source.
set -eu
. "$(dirname "$0")/lib.sh"

[ -f "$LINUX_SOURCE_TARBALL" ] ||
	die "$LINUX_SOURCE_TARBALL is missing: run 'make deps' (installs $LINUX_SOURCE_PKG)"
if git -C "$RIG_TREE" rev-parse -q --verify base >/dev/null 2>&1; then
	echo "build/linux already has a base commit"
	exit 0
fi

rm -rf "$RIG_TREE" "$RIG_TREE.tmp"
mkdir -p "$RIG_TREE.tmp"
tar -C "$RIG_TREE.tmp" -xJf "$LINUX_SOURCE_TARBALL"
top=$(ls "$RIG_TREE.tmp")
[ "$(echo "$top" | wc -l)" = 1 ] || die "unexpected tarball layout: $top"
mv "$RIG_TREE.tmp/$top" "$RIG_TREE"
rmdir "$RIG_TREE.tmp"

# Debian's packaging appends "/*" and "!/debian/" to the top-level
# .gitignore: left in place, git ignores every top-level entry and every
# file a patch adds.  Drop those two lines; the rest is upstream's.
gi=$RIG_TREE/.gitignore
if grep -qx '/\*' "$gi"; then
	grep -vx -e '/\*' -e '!/debian/' "$gi" >"$gi.new"
	mv "$gi.new" "$gi"
fi

pkgver=$(dpkg-query -W -f='${Version}' "$LINUX_SOURCE_PKG" 2>/dev/null || echo unknown)
cd "$RIG_TREE"
git init -q -b main
git config user.name "lwn2004 rig"
git config user.email "rig@lwn2004.invalid"
git config core.autocrlf false
git config gc.auto 0
git add -A -f
# A fixed identity and date make the base commit's id the same on every machine.
GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	git commit -q -m "base: $LINUX_SOURCE_PKG $pkgver, as packaged by Debian" \
	-m "Extracted from $LINUX_SOURCE_TARBALL; the Debian packaging rule at the end of .gitignore is dropped."
git tag base
echo "base = $(git rev-parse --short base) ($LINUX_SOURCE_PKG $pkgver, $(git ls-files | wc -l) files)"
