#!/bin/sh
# Generate the stackable file systems a test group names (group.conf "fist=NAME...": the group's NAME.fist or tools/fistgen/examples/NAME.fist), check them with checkpatch --strict and build them with W=1 against one kernel variant.
set -eu
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: fist-modules.sh std|debug|ref GROUPDIR...}
shift
out=$RIG_BUILD/out-$variant
[ -f "$out/Module.symvers" ] || die "kernel $variant is not built: run rig/build-kernel.sh $variant"
gen=$RIG_BUILD/fistgen
mkdir -p "$gen"
make -s -C "$RIG_TOP/tools/fistgen" OUT="$gen" CC="ccache gcc"

for dir in "$@"; do
	names=$(sed -n 's/^fist=//p' "$dir/group.conf" 2>/dev/null || true)
	[ -n "$names" ] || continue
	g=$(basename "$dir")
	ko=$RIG_BUILD/mod-$variant/$g-fist
	mkdir -p "$ko"
	for n in $names; do
		# The group's own description (tests/GROUP/NAME.fist), or an example.
		src=$dir/$n.fist
		[ -f "$src" ] || src=$RIG_TOP/tools/fistgen/examples/$n.fist
		[ -f "$src" ] || die "group $g names $n: neither $dir/$n.fist nor $src exists"
		# Generated afresh, copied over by content: unchanged files keep
		# their mtimes and Kbuild does not rebuild them.
		rm -rf "$gen/$n.new"
		"$gen/fistgen" -o "$gen/$n.new" "$src" || die "fistgen failed on $src"
		m=$RIG_BUILD/mod-$variant/fist/$n
		mkdir -p "$m"
		rsync -r --checksum --delete --exclude='*.o' --exclude='*.ko' \
			--exclude='.*' --exclude='*.mod*' --exclude='Module.symvers' \
			--exclude='modules.order' "$gen/$n.new/" "$m/"
		rm -rf "$gen/$n.new"
		# Code a file system maintainer reads: checkpatch --strict clean,
		# and (below) no warning with W=1.
		files=$(cd "$m" && ls ./*.c ./*.h | grep -v '\.mod\.c$')
		# shellcheck disable=SC2086
		report=$(cd "$m" && perl "$RIG_TREE/scripts/checkpatch.pl" --root="$RIG_TREE" \
			--strict --terse --no-summary -f $files 2>&1) || :
		[ -z "$report" ] || die "checkpatch --strict on $n's generated code: $report"
		make -C "$RIG_TREE" O="$out" LOCALVERSION= CC="ccache gcc" M="$m" \
			KBUILD_MODPOST_WARN= W=1 KCFLAGS=-Werror modules
		cp "$m/$n.ko" "$ko/"
	done
done
