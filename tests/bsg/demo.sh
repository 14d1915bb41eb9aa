# Demo of bsg: QEMU's virtio-scsi disk through tools/bsgcmd, next to Debian's sg3-utils.
node=
for d in /sys/class/bsg/*; do
	[ "$(cat "$d/device/model" 2>/dev/null)" = "QEMU HARDDISK   " ] && node=/dev/bsg/${d##*/}
done
[ -n "$node" ] || { echo "no QEMU HARDDISK among the bsg nodes"; exit 1; }
echo "bsgcmd $node inquiry"
bsgcmd "$node" inquiry
echo
echo "sg_inq $node (sg3-utils)"
sg_inq "$node" | grep -E 'identification|revision level'
echo
echo "bsgcmd $node readcap"
bsgcmd "$node" readcap
echo
echo "sg_readcap -l $node"
sg_readcap -l "$node" | grep -E 'Number of logical blocks|Logical block length'
echo
last=$(bsgcmd "$node" readcap | sed -n 's/^blocks: //p')
echo "bsgcmd $node read $last 1    (one block past the end)"
bsgcmd "$node" read "$last" 1
echo "(exit status $?)"
