# Demo of /dev/inotify: devinotify watching a directory and a file, then an unmount.
ls -l /dev/inotify
mkdir -p /tmp/demo
echo hello >/tmp/demo/f
echo
echo "devinotify -t 1 /tmp/demo /tmp/demo/f &"
echo "cat f; echo more >> f; chmod 600 f; mkdir sub; mv f g; rm -r sub g"
devinotify -t 1 /tmp/demo /tmp/demo/f &
sleep 0.5
cd /tmp/demo
cat f >/dev/null
echo more >>f
chmod 600 f
mkdir sub
mv f g
rm -r sub g
cd /tmp
wait
echo
echo "mount -t tmpfs tmpfs /tmp/m; devinotify -e create /tmp/m &; touch /tmp/m/x; umount /tmp/m"
mkdir -p /tmp/m
mount -t tmpfs tmpfs /tmp/m
devinotify -e create /tmp/m &
sleep 0.5
touch /tmp/m/x
umount /tmp/m
wait
echo "(devinotify exited: its only watch ended)"
echo
echo "limits shared with the inotify system calls:"
grep . /proc/sys/fs/inotify/*
