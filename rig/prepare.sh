#!/bin/sh
# Build all one boot of a variant needs, a timed stage a line: kernel, guest programs, modules, generated file systems, initramfs.
#
# prepare.sh VARIANT GROUPDIR...   (the tree must exist: tree.sh first)
set -eu
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: prepare.sh std|debug|ref GROUPDIR...}
shift
guest=$RIG_BUILD/guest
out=$RIG_BUILD/out-$variant

stage "kernel ($variant)" sh "$RIG_TOP/rig/build-kernel.sh" "$variant"

# The guest programs do not depend on the variant: they are rebuilt only
# when the uapi headers' content (not their mtime) changes.
mkdir -p "$guest"
sum=$(cd "$out/usr/include" && find . -name '*.h' | LC_ALL=C sort | xargs cat | sha256sum)
[ "$(cat "$guest/headers.stamp" 2>/dev/null)" = "$sum" ] || echo "$sum" >"$guest/headers.stamp"
stage "guest programs" make -f "$RIG_TOP/rig/tests.mk" -j"$RIG_JOBS" \
	TOP="$RIG_TOP" OUT="$guest" HDR="$out/usr/include" GROUPS="$*"

stage "modules ($variant)" sh "$RIG_TOP/rig/modules.sh" "$variant" "$@"
stage "fistgen modules ($variant)" sh "$RIG_TOP/rig/fist-modules.sh" "$variant" "$@"
stage "initramfs ($variant)" sh "$RIG_TOP/rig/initramfs.sh" "$variant" "$@"
