# Demo of remote execution and migration (patches 0031-0034), from node 1: a program on node 2, then a counter moved from node 1 to node 2 while it counts.
echo "onnode 2 sh -c 'echo \$\$; ...'    (a shell on node 2, its output here)"
onnode 2 sh -c 'echo "PID $$ on node $(sed -n "s/^self //p" /proc/cluster/nodes), as $(id -un)"'
echo "exit status of onnode 3 false: $(onnode 3 false; echo $?)"
echo
rm -f /cluster/demo-counter
rm -f /cluster/demo-pid
# A child of init, as a process must be to move: its subshell exits.  Its
# working directory is on /cluster, which every node mounts.
(cd /cluster && setsid sh -c 'echo $$ >/cluster/demo-pid; i=0; while :; do echo $i >>/cluster/demo-counter; i=$((i + 1)); sleep 0.2; done' </dev/null >/dev/null 2>&1 &)
sleep 1
pid=$(cat /cluster/demo-pid)
echo "a counter, PID $pid, appending to /cluster/demo-counter; cluster ps:"
cluster ps | grep -E "^NODE| $pid "
echo "counted so far: $(tail -1 /cluster/demo-counter)"
echo
echo "migrate $pid 2"
migrate "$pid" 2 && echo "moved"
cluster ps | grep -E "^NODE| $pid "
sleep 1
echo "counted since, on node 2: $(tail -4 /cluster/demo-counter | tr '\n' ' ')"
echo "cluster kill $pid    (from node 1: its origin sends it on to node 2)"
cluster kill "$pid" && echo "sent"
