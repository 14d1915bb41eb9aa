// SPDX-License-Identifier: GPL-2.0
/*
 * memlock: lock memory the ways an ordinary user can, within RLIMIT_MEMLOCK,
 * and say for each request what the kernel answered.  See --help.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char usage[] =
"usage: memlock [-l LIMIT] ACTION SIZE [ACTION SIZE]...\n"
"\n"
"Lock memory, one request per ACTION SIZE pair, in order, and print one line\n"
"for each: \"ok\" or the errno the kernel returned.  Everything stays locked\n"
"until memlock exits, so a later request is refused for what an earlier one\n"
"took.  SysV segments are marked for removal as soon as they are attached:\n"
"they go when memlock exits, however it exits.\n"
"\n"
"ACTION:\n"
"  mlock     mmap anonymous memory and mlock() it\n"
"  shm-lock  a SysV shared memory segment, locked with shmctl(SHM_LOCK)\n"
"  shm-huge  a SysV segment of huge pages, shmget(SHM_HUGETLB)\n"
"SIZE: bytes, with an optional k, M or G suffix (powers of 1024).\n"
"\n"
"  -l, --limit LIMIT  set RLIMIT_MEMLOCK (soft and hard) to LIMIT first\n"
"  -h, --help         show this text\n"
"\n"
"Exit status: 0 if every request was granted, 1 if one was refused,\n"
"2 on a usage error.\n";

static int parse_size(const char *s, unsigned long long *out)
{
	unsigned long long v, mult = 1;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	}
	if (*end || v > ~0ULL / mult)
		return -1;
	*out = v * mult;
	return 0;
}

static void print_size(unsigned long long v)
{
	if (v == RLIM_INFINITY)
		printf("unlimited");
	else if (v && !(v & ((1ULL << 20) - 1)))
		printf("%lluM", v >> 20);
	else if (v && !(v & ((1ULL << 10) - 1)))
		printf("%lluk", v >> 10);
	else
		printf("%llu", v);
}

static int has_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return !!(data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &
		  CAP_TO_MASK(CAP_IPC_LOCK));
}

static int do_mlock(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	if (mlock(p, size)) {
		int err = errno;

		munmap(p, size);
		errno = err;
		return -1;
	}
	return 0;
}

/* A segment, attached and marked for removal; SHM_LOCKed if asked. */
static int do_shm(size_t size, int flags, int lock)
{
	int id = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600 | flags);
	void *p;
	int err;

	if (id < 0)
		return -1;
	p = shmat(id, NULL, 0);
	if (p == (void *)-1)
		goto fail;
	if (shmctl(id, IPC_RMID, NULL))
		goto fail;
	if (lock && shmctl(id, SHM_LOCK, NULL))
		goto fail;
	return 0;
fail:
	err = errno;
	shmctl(id, IPC_RMID, NULL);
	if (p != (void *)-1)
		shmdt(p);
	errno = err;
	return -1;
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long limit, size;
	struct rlimit rl;
	int c, i, refused = 0;

	while ((c = getopt_long(argc, argv, "+l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (parse_size(optarg, &limit)) {
				fprintf(stderr, "memlock: bad LIMIT '%s'\n", optarg);
				return 2;
			}
			rl.rlim_cur = rl.rlim_max = limit;
			if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
				fprintf(stderr, "memlock: setrlimit(RLIMIT_MEMLOCK, %s): %s\n",
					optarg, strerror(errno));
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind == argc || (argc - optind) % 2) {
		fputs(usage, stderr);
		return 2;
	}
	for (i = optind; i < argc; i += 2) {
		if (strcmp(argv[i], "mlock") && strcmp(argv[i], "shm-lock") &&
		    strcmp(argv[i], "shm-huge")) {
			fprintf(stderr, "memlock: unknown ACTION '%s'\n", argv[i]);
			return 2;
		}
		if (parse_size(argv[i + 1], &size) || !size || size > SIZE_MAX) {
			fprintf(stderr, "memlock: bad SIZE '%s'\n", argv[i + 1]);
			return 2;
		}
	}

	getrlimit(RLIMIT_MEMLOCK, &rl);
	printf("uid %d, RLIMIT_MEMLOCK ", (int)getuid());
	print_size(rl.rlim_cur);
	printf(", CAP_IPC_LOCK %s\n", has_cap_ipc_lock() ? "yes" : "no");
	fflush(stdout);

	for (i = optind; i < argc; i += 2) {
		int ret;

		parse_size(argv[i + 1], &size);
		if (!strcmp(argv[i], "mlock"))
			ret = do_mlock(size);
		else if (!strcmp(argv[i], "shm-lock"))
			ret = do_shm(size, 0, 1);
		else
			ret = do_shm(size, SHM_HUGETLB, 0);
		printf("  %-8s %-6s ", argv[i], argv[i + 1]);
		if (ret) {
			printf("refused: %s (%s)\n", strerrorname_np(errno),
			       strerror(errno));
			refused = 1;
		} else {
			printf("ok\n");
		}
		fflush(stdout);
	}
	return refused;
}
