#!/bin/sh
# Assemble the guest's initramfs for one variant: busybox, /init, the guest tools, the test programs and that variant's modules.
set -eu
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: initramfs.sh std|debug|ref GROUPDIR...}
shift
out=$RIG_BUILD/out-$variant
guest=$RIG_BUILD/guest
root=$RIG_BUILD/root-$variant
busybox=/bin/busybox
[ -x $busybox ] && $busybox --list-full >/dev/null 2>&1 ||
	die "$busybox is missing or not busybox-static: run 'make deps'"

rm -rf "$root"
mkdir -p "$root"
cd "$root"
mkdir -p bin sbin usr/bin usr/sbin dev proc sys tmp run root etc/rig tests modules
cp $busybox bin/busybox
for applet in $($busybox --list-full); do
	[ -e "$applet" ] || ln -s /bin/busybox "$applet"
done
install -m 0755 "$RIG_TOP/rig/guest/init" init
install -m 0644 "$RIG_TOP/rig/guest/passwd" "$RIG_TOP/rig/guest/group" etc/
# As on Debian: fusermount3 -u reads it.
ln -s ../proc/self/mounts etc/mtab
# asuser and the features' tools (tools/*).
for f in "$guest"/bin/*; do
	install -s -m 0755 "$f" "bin/${f##*/}"
done
# onnode is also the relay the kernel starts for it (kernel/ssi/rexec.c),
# and migrate the helper that moves a process (kernel/ssi/migrate.c).
[ ! -e bin/onnode ] || ln -sf ../bin/onnode sbin/ssi-relay
[ ! -e bin/migrate ] || ln -sf ../bin/migrate sbin/ssi-migrate
# Debian's programs the guest runs (rig/guest-packages.txt), with the
# shared libraries and the loader ldd finds for each, at the same paths.
# A program replaces a busybox applet of the same path; a library already
# shipped is kept.  Modes are set, whatever the umask: a program keeps
# Debian's (fusermount3 is set-user-ID root), a library is 0755.
ship() {
	[ -e ".$1" ] && [ ! -L ".$1" ] && return 0
	mkdir -p -m 0755 ".${1%/*}"
	rm -f ".$1"
	install -m "$2" "$1" ".$1"
}
for prog in $(sed -n 's/^[a-z0-9][a-z0-9.+-]* //p' "$RIG_TOP/rig/guest-packages.txt"); do
	[ -x "$prog" ] || die "$prog is missing: run 'make deps' (rig/guest-packages.txt)"
	libs=$(ldd "$prog") || die "ldd $prog failed"
	case $libs in *"not found"*) die "ldd $prog: a library is missing: $libs" ;; esac
	ship "$prog" "$(stat -c %a "$prog")"
	for lib in $(printf '%s\n' "$libs" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
		ship "$lib" 0755
	done
done
cp "$out/include/config/kernel.release" etc/rig/kernel.release
for dir in "$@"; do
	g=$(basename "$dir")
	[ -f "$guest/tests/$g/list" ] || die "group $g has no programs built in $guest/tests/$g"
	cp -r "$guest/tests/$g" tests/
	# Debug info stays in build/guest (for gdb); the guest unpacks less.
	for f in "tests/$g"/*; do
		[ -f "$f" ] && [ -x "$f" ] && strip "$f"
	done
	# make bench's programs, only in the images it boots.
	if [ "${RIG_BENCH:-0}" = 1 ]; then
		for c in "$dir"/bench/*.c; do
			[ -f "$c" ] || continue
			mkdir -p "bench/$g"
			b=$(basename "$c" .c)
			install -s -m 0755 "$guest/bench/$g/$b" "bench/$g/$b"
		done
	fi
	if [ -d "$dir/modules" ]; then
		mkdir -p "modules/$g"
		cp "$RIG_BUILD/mod-$variant/$g"/*.ko "modules/$g/"
	fi
	# The file systems fistgen generated for the group (fist-modules.sh).
	if grep -qs '^fist=' "$dir/group.conf"; then
		mkdir -p "modules/$g"
		cp "$RIG_BUILD/mod-$variant/$g-fist"/*.ko "modules/$g/"
	fi
done
# The kernel's own modules (the fragments' =m options, scsi_debug), in
# /modules/kernel/NAME.ko: the tests load them with the parameters they
# need (tests/lib/kmod.h).  Not the Debian-configured kernel's thousands:
# it boots the smoke group only, which loads none.
mkdir -p modules/kernel
if [ "$variant" != debian ]; then
	find "$out" -name '*.ko' -exec install -m 0644 {} modules/kernel/ \;
	for ko in modules/kernel/*.ko; do
		[ -e "$ko" ] && strip --strip-debug "$ko"
	done
fi
# The console device must exist before devtmpfs is mounted, for /init's output.
mknod -m 0600 dev/console c 5 1 2>/dev/null || true
find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet >"$RIG_BUILD/initramfs-$variant.cpio"
echo "$RIG_BUILD/initramfs-$variant.cpio: $(du -k "$RIG_BUILD/initramfs-$variant.cpio" | cut -f1) KiB"
