# Demo of fistgen: rot13fs, generated from its FiST description, stacked on a directory; both views side by side.
d=/tests/fistgen/fist
echo "fistgen -o /tmp/rot13fs rot13fs.fist    (the description: $(grep -vc '^$' $d/examples/rot13fs.fist) lines)"
fistgen -t $d/templates -o /tmp/rot13fs $d/examples/rot13fs.fist || exit 1
echo "generated: $(cd /tmp/rot13fs && for f in *; do printf '%s (%s lines) ' "$f" "$(wc -l <"$f")"; done)"
echo "(the rig built /modules/fistgen/rot13fs.ko from the same description; the guest has no compiler)"
insmod /modules/fistgen/rot13fs.ko
mkdir -p /tmp/lower /tmp/rot13
mount -t rot13fs /tmp/lower /tmp/rot13 || exit 1
echo "mount -t rot13fs /tmp/lower /tmp/rot13"
mkdir /tmp/rot13/Letters
echo "Hello, World! The quick brown fox jumps over the lazy dog." >/tmp/rot13/Letters/Hello.txt
sync
echo
printf '%-62s| %s\n' "through the mount: /tmp/rot13" "below it: /tmp/lower"
printf '%-62s| %s\n' "$(cd /tmp/rot13 && echo */*)" "$(cd /tmp/lower && echo */*)"
paste -d '|' /tmp/rot13/Letters/Hello.txt /tmp/lower/Yrggref/Uryyb.gkg |
	sed 's/|/  | /'
umount /tmp/rot13
echo
echo "The same description's FUSE target (fistgen -T fuse), mounted by uid 1000 with fusermount3:"
fistgen -T fuse -t $d/templates -o /tmp/rot13fs-fuse $d/examples/rot13fs.fist || exit 1
echo "generated: $(cd /tmp/rot13fs-fuse && for f in *; do printf '%s (%s lines) ' "$f" "$(wc -l <"$f")"; done)"
echo "(the rig built $d/rot13fs-fuse from it, against libfuse3)"
mkdir -p /tmp/ulower /tmp/urot13
chown 1000:1000 /tmp/ulower /tmp/urot13
asuser sh -c "$d/rot13fs-fuse /tmp/ulower /tmp/urot13 &&
	echo 'Hello from FUSE.' >/tmp/urot13/Hello.txt" || exit 1
grep " /tmp/urot13 " /proc/mounts
# Only its user may look through it (no allow_other): not even root.
asuser sh -c 'printf "%-30s| %s\n" "through it: $(cd /tmp/urot13 && echo *)" \
	"below it: $(cd /tmp/ulower && echo *)"
	paste -d "|" /tmp/urot13/Hello.txt /tmp/ulower/Uryyb.gkg | sed "s/|/  | /"'
asuser fusermount3 -u /tmp/urot13
