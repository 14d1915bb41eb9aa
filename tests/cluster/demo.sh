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

