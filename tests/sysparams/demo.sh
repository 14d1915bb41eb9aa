# Demo of /sys/parameters: the tree, one built-in's values, one value written through each path.
echo "ls -l /sys/parameters | head:"
ls -l /sys/parameters | head
echo
echo "printk's parameters, through /sys/parameters/printk:"
for f in /sys/parameters/printk/*; do echo "  ${f##*/} = $(cat "$f")"; done
echo
echo "insmod sysparams_test.ko p_int=11"
insmod /modules/sysparams/sysparams_test.ko p_int=11
echo "  /sys/parameters/sysparams_test -> $(readlink /sys/parameters/sysparams_test)"
echo "  echo 42 > /sys/parameters/sysparams_test/p_int"
echo 42 >/sys/parameters/sysparams_test/p_int
echo "  cat /sys/module/sysparams_test/parameters/p_int: $(cat /sys/module/sysparams_test/parameters/p_int)"
echo "  echo 9,8 > /sys/module/sysparams_test/parameters/p_array"
echo 9,8 >/sys/module/sysparams_test/parameters/p_array
echo "  cat /sys/parameters/sysparams_test/p_array: $(cat /sys/parameters/sysparams_test/p_array)"
echo "  echo 7,x > /sys/parameters/sysparams_test/p_array (rejected):"
(echo 7,x >/sys/parameters/sysparams_test/p_array) 2>&1 | sed 's/^/    /'
echo "  cat /sys/parameters/sysparams_test/p_array: $(cat /sys/parameters/sysparams_test/p_array)"
rmmod sysparams_test
echo "rmmod sysparams_test: /sys/parameters/sysparams_test $(test -e /sys/parameters/sysparams_test && echo 'is still there' || echo 'is gone')"
