/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small io_uring of our own for the bsg tests, on the raw system calls
 * (the guest's static programs link no liburing): a ring of 128-byte SQEs
 * and 32-byte CQEs, as bsg's IORING_OP_URING_CMD asks, one SCSI command
 * an SQE, and the CQEs read back with the SCSI outcome of big_cqe[0].
 */
#ifndef TESTS_BSG_URING_H
#define TESTS_BSG_URING_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bsg.h>
#include <linux/io_uring.h>

#define SQE128_CQE32 (IORING_SETUP_SQE128 | IORING_SETUP_CQE32)

struct uring {
	int fd;
	unsigned int flags;		/* IORING_SETUP_* */
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	unsigned int sq_pending;	/* SQEs filled, not yet submitted */
	unsigned char *sqes;
	unsigned char *cqes;
	void *sq_ring, *cq_ring;
	size_t sq_len, cq_len, sqes_len;
};

/* A CQE as the tests look at it. */
struct ucqe {
	uint64_t user_data;
	int32_t res;
	uint64_t res2;			/* big_cqe[0] */
	uint64_t extra;			/* big_cqe[1] */
};

static inline int sys_io_uring_setup(unsigned int entries,
				     struct io_uring_params *p)
{
	return syscall(__NR_io_uring_setup, entries, p);
}

static inline int sys_io_uring_enter(int fd, unsigned int submit,
				     unsigned int wait, unsigned int flags)
{
	return syscall(__NR_io_uring_enter, fd, submit, wait, flags, NULL, 0);
}

static inline void uring_exit(struct uring *r)
{
	if (r->sqes)
		munmap(r->sqes, r->sqes_len);
	if (r->cq_ring && r->cq_ring != r->sq_ring)
		munmap(r->cq_ring, r->cq_len);
	if (r->sq_ring)
		munmap(r->sq_ring, r->sq_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* A ring of @entries SQEs made with @flags: 0 or -errno. */
static inline int uring_init(struct uring *r, unsigned int entries,
			     unsigned int flags)
{
	size_t sqe_size = flags & IORING_SETUP_SQE128 ? 128 : 64;
	size_t cqe_size = flags & IORING_SETUP_CQE32 ? 32 : 16;
	struct io_uring_params p;
	unsigned char *sq, *cq;

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	r->flags = flags;
	r->fd = sys_io_uring_setup(entries, &p);
	if (r->fd < 0)
		return -errno;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_len = p.cq_off.cqes + p.cq_entries * cqe_size;
	if (p.features & IORING_FEAT_SINGLE_MMAP && r->cq_len > r->sq_len)
		r->sq_len = r->cq_len;
	r->sq_ring = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			  r->fd, IORING_OFF_SQ_RING);
	if (r->sq_ring == MAP_FAILED)
		goto fail;
	r->cq_ring = r->sq_ring;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		r->cq_ring = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, r->fd, IORING_OFF_CQ_RING);
		if (r->cq_ring == MAP_FAILED)
			goto fail;
	}
	r->sqes_len = p.sq_entries * sqe_size;
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		goto fail;
	sq = r->sq_ring;
	cq = r->cq_ring;
	r->sq_head = (unsigned int *)(sq + p.sq_off.head);
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = cq + p.cq_off.cqes;
	return 0;
fail:
	{
		int err = -errno;

		if (r->sq_ring == MAP_FAILED)
			r->sq_ring = NULL;
		if (r->cq_ring == MAP_FAILED)
			r->cq_ring = NULL;
		if (r->sqes == MAP_FAILED)
			r->sqes = NULL;
		uring_exit(r);
		return err;
	}
}

/* The next SQE, zeroed, or NULL when the ring is full. */
static inline struct io_uring_sqe *uring_sqe(struct uring *r)
{
	unsigned int head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
	unsigned int tail = *r->sq_tail + r->sq_pending;
	unsigned int idx = tail & *r->sq_mask;
	size_t size = r->flags & IORING_SETUP_SQE128 ? 128 : 64;
	struct io_uring_sqe *sqe;

	if (tail - head > *r->sq_mask)
		return NULL;
	sqe = (struct io_uring_sqe *)(r->sqes + idx * size);
	memset(sqe, 0, size);
	r->sq_array[idx] = idx;
	r->sq_pending++;
	return sqe;
}

/*
 * Submit the SQEs filled since the last call and wait for @wait CQEs:
 * what io_uring_enter() returns (the SQEs it took), or -errno.
 */
static inline int uring_submit(struct uring *r, unsigned int wait)
{
	unsigned int n = r->sq_pending;
	int ret;

	__atomic_store_n(r->sq_tail, *r->sq_tail + n, __ATOMIC_RELEASE);
	r->sq_pending = 0;
	ret = sys_io_uring_enter(r->fd, n, wait,
				 wait ? IORING_ENTER_GETEVENTS : 0);
	return ret < 0 ? -errno : ret;
}

/* Take one CQE if there is one: 0, or -EAGAIN. */
static inline int uring_peek(struct uring *r, struct ucqe *out)
{
	unsigned int head = *r->cq_head;
	size_t size = r->flags & IORING_SETUP_CQE32 ? 32 : 16;
	struct io_uring_cqe *cqe;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	cqe = (struct io_uring_cqe *)(r->cqes + (head & *r->cq_mask) * size);
	out->user_data = cqe->user_data;
	out->res = cqe->res;
	out->res2 = size == 32 ? cqe->big_cqe[0] : 0;
	out->extra = size == 32 ? cqe->big_cqe[1] : 0;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Wait up to @ms milliseconds for one CQE: 0, -ETIMEDOUT or -errno. */
static inline int uring_wait(struct uring *r, struct ucqe *out, int ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

	while (uring_peek(r, out)) {
		int n = poll(&pfd, 1, ms);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
	}
	return 0;
}

/* Fill @sqe with a SCSI command for the bsg node @fd. */
static inline void bsg_uring_prep(struct io_uring_sqe *sqe, int fd,
				  const void *cdb, unsigned int cdb_len,
				  void *din, unsigned int din_len,
				  const void *dout, unsigned int dout_len,
				  void *sense, unsigned int sense_len,
				  uint64_t user_data)
{
	struct bsg_uring_cmd *cmd = (struct bsg_uring_cmd *)sqe->cmd;

	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->user_data = user_data;
	cmd->request = (uintptr_t)cdb;
	cmd->request_len = cdb_len;
	cmd->protocol = BSG_PROTOCOL_SCSI;
	cmd->subprotocol = BSG_SUB_PROTOCOL_SCSI_CMD;
	cmd->max_response_len = sense_len;
	cmd->response = (uintptr_t)sense;
	cmd->din_xferp = (uintptr_t)din;
	cmd->din_xfer_len = din_len;
	cmd->dout_xferp = (uintptr_t)dout;
	cmd->dout_xfer_len = dout_len;
	cmd->timeout_ms = 30000;
}

/*
 * One command through a fresh SQE, and its CQE: 0, or -errno if the ring
 * took no SQE or gave no CQE within 30 s.
 */
static inline int bsg_uring_one(struct uring *r, int fd, const void *cdb,
				unsigned int cdb_len, void *din,
				unsigned int din_len, const void *dout,
				unsigned int dout_len, void *sense,
				unsigned int sense_len, struct ucqe *cqe)
{
	struct io_uring_sqe *sqe = uring_sqe(r);
	int ret;

	if (!sqe)
		return -EBUSY;
	bsg_uring_prep(sqe, fd, cdb, cdb_len, din, din_len, dout, dout_len,
		       sense, sense_len, 1);
	ret = uring_submit(r, 0);
	if (ret < 0)
		return ret;
	if (ret != 1)
		return -EIO;
	ret = uring_wait(r, cqe, 30000);
	if (!ret && cqe->user_data != 1)
		return -EPROTO;
	return ret;
}

#endif /* TESTS_BSG_URING_H */
