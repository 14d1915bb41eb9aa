# Demo of bsg: a scsi_debug disk through tools/bsgcmd, next to Debian's sg3-utils.
sd=/sys/bus/pseudo/drivers/scsi_debug
old=$(cat $sd/ptype)
echo 0 >$sd/ptype
echo 1 >$sd/add_host
host=$(ls /sys/class/scsi_host | sed 's/host//' | sort -n | tail -1)
node=/dev/bsg/$host:0:0:0
i=0
while [ ! -e "$node" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
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
echo "bsgcmd $node read 16384 1    (one block past the end)"
bsgcmd "$node" read 16384 1
echo "(exit status $?)"
echo -1 >$sd/add_host
echo "$old" >$sd/ptype
