#!/bin/sh
# Build the whole series with Debian's own kernel configuration (bzImage and every module), boot it in QEMU with the smoke group, and print the figures (slow; not in CI).
#
# This is the kernel a Debian user of the series would run: the plain
# amd64 flavour of linux-config (rig/kernel.env pins its version to the
# source's), with the options the series adds turned on.  Two departures,
# both about the build, not the code it makes: no debug information
# (Debian builds it for its -dbg package; it triples the build) and a
# throwaway module signing key (Debian's is not in the source).
#
# The tree is a worktree of build/linux at HEAD (build/debian-linux), its
# output build/out-debian beside it: a rebase in build/linux cannot change
# the sources under a build that takes an hour.  ccache keeps what a run
# compiled, so an interrupted run goes on where it stopped.
set -eu
. "$(dirname "$0")/lib.sh"

wt=$RIG_BUILD/debian-linux
out=$RIG_BUILD/out-debian
t0=$(now)

git -C "$RIG_TREE" rev-parse -q --verify 'base^{commit}' >/dev/null || die "no kernel tree: run 'make tree'"
debcfg=$(rig_debian_config)
head=$(git -C "$RIG_TREE" rev-parse HEAD)
base=$(git -C "$RIG_TREE" rev-parse 'base^{commit}')

# An existing worktree moves to HEAD with a checkout, which rewrites only
# the files that changed: make then rebuilds what depends on them, not
# every object (a new worktree would give every file a new time).
if [ "$(git -C "$wt" rev-parse HEAD 2>/dev/null)" != "$head" ]; then
	if git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		stage "debian: worktree to HEAD" git -C "$wt" checkout -q -f --detach "$head"
	else
		rm -rf "$wt"
		git -C "$RIG_TREE" worktree prune
		stage "debian: worktree at HEAD" git -C "$RIG_TREE" worktree add -f -q --detach "$wt" "$head"
	fi
fi

kmake() {
	nice -n 10 make -C "$wt" O="$out" LOCALVERSION=-lwn2004-debian -j"$RIG_JOBS" \
		CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=rig KBUILD_BUILD_HOST=lwn2004 "$@"
}

# Debian's configuration, the series' own options on (every config
# symbol a patch adds to a Kconfig file), no debug information, and
# MODULE_SIG_KEY back at the kernel's default, which makes kbuild generate
# a key for this build.
configure() {
	mkdir -p "$out"
	xz -dc "$debcfg" >"$out/.config"
	new=$(git -C "$RIG_TREE" diff "$base" "$head" -- '*Kconfig*' |
		sed -n 's/^+[[:space:]]*config[[:space:]]\{1,\}\([A-Za-z0-9_]\{1,\}\).*/\1/p')
	# shellcheck disable=SC2046
	"$wt/scripts/config" --file "$out/.config" \
		--set-str MODULE_SIG_KEY certs/signing_key.pem \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable DEBUG_INFO --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5 \
		--disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE \
		$(for o in $new; do printf -- '--enable %s ' "$o"; done)
	kmake olddefconfig
	for o in $new; do
		grep -q "^CONFIG_$o=y" "$out/.config" ||
			die "CONFIG_$o is not y under Debian's configuration: a dependency Debian leaves off?"
	done
	echo "the series' options, on: $(echo "$new" | tr '\n' ' ')"
}
stage "debian: configuration" configure

t1=$(now)
stage "debian: bzImage and modules" kmake bzImage modules
build_s=$(elapsed "$t1")
stage "debian: uapi headers" kmake headers_install

# The smoke group, as make test boots it, on this kernel.
dirs=$(rig_group_dirs smoke)
guest=$RIG_BUILD/guest
mkdir -p "$guest"
# shellcheck disable=SC2086
stage "guest programs" make -f "$RIG_TOP/rig/tests.mk" -j"$RIG_JOBS" \
	TOP="$RIG_TOP" OUT="$guest" HDR="$out/usr/include" GROUPS="$dirs"
# shellcheck disable=SC2086
stage "modules (debian)" env RIG_TREE="$wt" sh "$RIG_TOP/rig/modules.sh" debian $dirs
# shellcheck disable=SC2086
stage "initramfs (debian)" sh "$RIG_TOP/rig/initramfs.sh" debian $dirs
t2=$(now)
stage "boot and test (debian)" sh "$RIG_TOP/rig/boot.sh" debian test smoke 1200
boot_s=$(elapsed "$t2")
python3 "$RIG_TOP/rig/check-run.py" --variant debian \
	--tap "$RIG_LOGS/tap-debian.log" --console "$RIG_LOGS/console-debian.log" \
	--groups-dir "$guest/tests" --groups smoke ||
	die "the smoke group failed on the Debian-configured kernel (logs: $RIG_LOGS/console-debian.log, $RIG_LOGS/tap-debian.log)"

nmods=$(find "$out" -name '*.ko' | wc -l)
echo
echo "debian kernel: $(git -C "$wt" log -1 --format='%h %s'), Debian's config.$(basename "$debcfg" .xz | sed 's/^config\.//')"
echo "  bzImage $(du -k "$out/arch/x86/boot/bzImage" | cut -f1) KiB, $nmods modules"
echo "  build (bzImage and modules, $RIG_JOBS jobs): ${build_s}s"
echo "  boot to the smoke group's result: ${boot_s}s, guest uptime at /init: $(sed -n 's/.*rig: boot .*uptime=\([0-9.]*\).*/\1/p' "$RIG_LOGS/tap-debian.log" | head -n 1)s"
echo "  total: $(elapsed "$t0")s"
