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
