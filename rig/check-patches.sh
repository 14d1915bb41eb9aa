#!/bin/sh
# Run the tree's scripts/checkpatch.pl --strict over every patch in patches/series; fail on any error, warning or check.
set -eu
. "$(dirname "$0")/lib.sh"

cp=$RIG_TREE/scripts/checkpatch.pl
[ -x "$cp" ] || die "no $cp: run 'make tree'"
n=0
bad=0
for p in $(series_patches); do
	n=$((n + 1))
	f=$RIG_TOP/patches/$p
	[ -f "$f" ] || die "patches/series lists $p, which is not in patches/"
	# checkpatch reads the tree's spelling list and MAINTAINERS from its
	# cwd, and runs spdxcheck.py with the python3 on PATH: Debian's, which
	# has python3-ply, not a python3 of the user's own.
	res=$(cd "$RIG_TREE" && PATH=/usr/bin:/bin:$PATH perl "$cp" --strict --no-summary --terse --showfile "$f" 2>&1 || true)
	if [ -n "$res" ]; then
		echo "$p:"
		printf '%s\n' "$res" | sed 's/^/  /'
		bad=$((bad + 1))
	else
		echo "$p: clean"
	fi
done
[ $n -gt 0 ] || echo "patches/series is empty: nothing to check"
[ $bad = 0 ] || die "$bad of $n patches have checkpatch --strict errors, warnings or checks"
echo "checkpatch --strict: $n patches clean"
