#!/bin/sh
# Build the test groups' kernel modules (GROUP/modules/*.c, one module a file) against one built kernel variant.
set -eu
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: modules.sh std|debug|ref GROUPDIR...}
shift
out=$RIG_BUILD/out-$variant
[ -f "$out/Module.symvers" ] || die "kernel $variant is not built: run rig/build-kernel.sh $variant"

for dir in "$@"; do
	[ -d "$dir/modules" ] || continue
	g=$(basename "$dir")
	# Kbuild of 6.12 writes objects next to the sources: build a copy per
	# variant (rsync keeps mtimes, so rebuilds stay incremental).
	m=$RIG_BUILD/mod-$variant/$g
	mkdir -p "$m"
	rsync -a --delete --include='*.[ch]' --exclude='*' "$dir/modules/" "$m/"
	objs=
	for c in "$dir"/modules/*.c; do
		objs="$objs $(basename "$c" .c).o"
	done
	printf "obj-m :=%s\nccflags-y := -Werror\n" "$objs" >"$m/Kbuild.new"
	cmp -s "$m/Kbuild.new" "$m/Kbuild" && rm "$m/Kbuild.new" || mv "$m/Kbuild.new" "$m/Kbuild"
	make -C "$RIG_TREE" O="$out" LOCALVERSION= CC="ccache gcc" M="$m" \
		KBUILD_MODPOST_WARN= W=1 modules
done
