# Demo of mlock as an ordinary user: uid 1000, no capabilities, RLIMIT_MEMLOCK 4 MiB.
echo 8 >/proc/sys/vm/nr_hugepages
echo "huge pages: $(grep -E 'HugePages_Total|Hugepagesize' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
echo "vm.hugetlb_shm_memlock = $(cat /proc/sys/vm/hugetlb_shm_memlock)," \
	"vm.hugetlb_shm_group = $(cat /proc/sys/vm/hugetlb_shm_group)"
echo
echo "asuser memlock -l 4M mlock 3M mlock 2M   (the process holds 3M + 2M > 4M)"
asuser memlock -l 4M mlock 3M mlock 2M
echo
echo "asuser memlock -l 4M shm-huge 2M shm-huge 2M shm-huge 2M   (the user holds 3 x 2M > 4M; the pool has 8 x 2M)"
asuser memlock -l 4M shm-huge 2M shm-huge 2M shm-huge 2M
echo
echo "asuser memlock -l 4M shm-lock 2M shm-huge 2M shm-huge 2M   (SHM_LOCK shares it)"
asuser memlock -l 4M shm-lock 2M shm-huge 2M shm-huge 2M
echo
echo "echo 0 > /proc/sys/vm/hugetlb_shm_memlock; asuser memlock -l 4M shm-huge 2M   (mainline's refusal)"
echo 0 >/proc/sys/vm/hugetlb_shm_memlock
asuser memlock -l 4M shm-huge 2M
echo 1 >/proc/sys/vm/hugetlb_shm_memlock
