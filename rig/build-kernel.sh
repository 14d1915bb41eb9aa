#!/bin/sh
# Configure and build one kernel variant (std, debug, or make bench's ref) of build/linux in its own output directory build/out-VARIANT.
set -eu
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: build-kernel.sh std|debug|ref}
case $variant in std | debug | ref) ;; *) die "unknown variant $variant (std, debug or ref)" ;; esac
out=${RIG_OUT:-$RIG_BUILD/out-$variant}
[ -e "$RIG_TREE/.git" ] || die "no kernel tree in $RIG_TREE: run 'make tree'"
command -v ccache >/dev/null || die "ccache is missing: run 'make deps'"
mkdir -p "$out" "$CCACHE_DIR"

frags=$(rig_fragments "$variant")
kmake() {
	make -C "$RIG_TREE" O="$out" LOCALVERSION= -j"$RIG_JOBS" CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=rig KBUILD_BUILD_HOST=lwn2004 "$@"
}

# Reconfigure only when a fragment or the tree's Kconfig files changed: a
# fresh tinyconfig costs seconds, and an unchanged .config keeps the build
# incremental anyway.
stamp=$( (
	# shellcheck disable=SC2086
	cat $frags
	git -C "$RIG_TREE" rev-parse HEAD
	git -C "$RIG_TREE" diff HEAD -- '*Kconfig*' '*Makefile'
) | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.rig-config-stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -f "$out/.rig-config-stamp"
	kmake tinyconfig
	# shellcheck disable=SC2086
	"$RIG_TREE/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags
	kmake olddefconfig
	# bisect-check builds commits that come before the options of later
	# patches exist, and sets RIG_CHECK_CONFIG=0 for all but the last.
	if [ "${RIG_CHECK_CONFIG:-1}" = 1 ]; then
		# shellcheck disable=SC2086
		sh "$RIG_TOP/rig/check-config.sh" "$out/.config" $frags
	fi
	echo "$stamp" >"$out/.rig-config-stamp"
fi

# objtool's warnings (a call inside a user-access window, a missing
# ORC entry...) are errors here: the kernel's own CI treats them so, and
# 6.12 has no OBJTOOL_WERROR.  They are printed only when vmlinux.o is
# linked, so a build that found one removes it: the next build links it
# again and fails again until the warning is gone.
objlog=$out/.rig-build.log
kmake all >"$objlog" 2>&1 || {
	cat "$objlog"
	exit 1
}
cat "$objlog"
if grep -q 'warning: objtool:' "$objlog"; then
	rm -f "$out/vmlinux.o"
	grep 'warning: objtool:' "$objlog" >&2
	die "objtool warned (above): fix the code it names"
fi
kmake headers
echo "built $(cat "$out/include/config/kernel.release"): $out/arch/x86/boot/bzImage"
