# Demo of the rig's cluster, from node 1: the nodes, the network, the shared directory, a command on node 2 by its agent.
echo "node:    $(sed 's/.*rig.node=\([0-9]*\) rig.nodes=\([0-9]*\).*/\1 of \2/' /proc/cmdline), $(ip -4 -o addr show eth0 | awk '{print $4}')"
for ip in 10.0.0.2 10.0.0.3; do
	ping -c1 -W2 $ip >/dev/null 2>&1 && echo "ping $ip: answers" || echo "ping $ip: no answer"
done
echo "/cluster: $(grep ' /cluster ' /proc/mounts)"
# What cluster_run() does (tests/lib/cluster.h): NAME.sh appears by a rename.
echo 'echo "node 2 here: $(uname -r), $(cat /cluster/demo-note)"' >/cluster/agent/2/.demo.tmp
echo "written on node 1" >/cluster/demo-note
mv /cluster/agent/2/.demo.tmp /cluster/agent/2/demo.sh
i=0
while [ ! -e /cluster/agent/2/run/demo.rc ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
echo "agent:   $(cat /cluster/agent/2/run/demo.out 2>/dev/null || echo 'node 2 did not answer')"

# SSI (patches 0023-0030): the nodes, every node's processes, a signal
# to a process on node 2, and node 3's death and return.
echo
echo "cluster nodes"
cluster nodes
echo 'exec sleep 600' >/cluster/agent/2/.ssi-demo.tmp
mv /cluster/agent/2/.ssi-demo.tmp /cluster/agent/2/ssi-demo.sh
i=0
while ! grep -q '^2 [0-9]* 0 S sleep$' /proc/cluster/ps && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
echo
echo "cluster ps, its init, shells and sleeps (of 100-odd processes, kernel threads most)"
cluster ps | grep -E '^NODE|  (init|sh|sleep)$'
pid=$(awk '$1 == 2 && $5 == "sleep" { print $2; exit }' /proc/cluster/ps)
echo
echo "cluster kill $pid    (node 2's sleep, from node 1)"
cluster kill "$pid" && echo "sent"
sleep 0.5
cluster ps -n 2 | grep -w "$pid" || echo "$pid is gone from node 2"
echo
echo "rig-ctl kill 3    (node 3's QEMU killed: a power failure)"
rig-ctl kill 3
cluster watch 4
echo
echo "rig-ctl start 3    (it boots again and joins by itself)"
rig-ctl start 3
i=0
while ! grep -q '^3 .* up ' /proc/cluster/nodes && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
cluster nodes
