/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two eBPF programs the tests attach to a user event of two u32 fields (a,
 * b) and read back from a one-value array map (struct uet_seen): one with
 * the standard context, one with the BPF_ITER context. bpf_test and
 * batch_test (a batch's records, each its own run) both use them.
 */
#ifndef UE_BPF_SEEN_H
#define UE_BPF_SEEN_H

#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

#include "ue_helpers.h"
#include "ue_bpf.h"

/* The map's one value: what the programs below saw */
struct uet_seen {
	__u64 count;		/* runs */
	__u64 a;		/* first u32 of the payload */
	__u64 b;		/* second u32 (standard), data_type (BPF_ITER) */
	__u64 len;		/* data_len (BPF_ITER) */
};

/*
 * Standard context (the record: 8-byte common header, then u32 a, u32 b):
 * count the run, keep a and b, return 1 so perf samples go on.
 */
static inline int uet_bpf_load_seen_standard(int map)
{
	struct bpf_insn prog[] = {
		/* r6 = ctx, r0 = &map[0] */
		MOV_REG(6, 1), ST_IMM(BPF_W, 10, -4, 0), LD_MAP(1, map), LD_IMM_HI(),
		MOV_REG(2, 10), ADD_IMM(2, -4), CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 6),
		MOV_IMM(1, 1),
		LOCK_ADD(0, 1, 0),
		LDX(BPF_W, 1, 6, 8),
		STX(BPF_DW, 0, 1, 8),
		LDX(BPF_W, 1, 6, 12),
		STX(BPF_DW, 0, 1, 16),
		MOV_IMM(0, 1),
		EXIT(),
	};

	return uet_bpf_load(prog, ARRAY_SIZE(prog));
}

/*
 * BPF_ITER context: as for any tracepoint program, the first 8 bytes are the
 * kernel's (the helpers read a struct pt_regs pointer there); the struct
 * user_bpf_context is at USER_BPF_CONTEXT_OFFSET, where a record's first
 * field would be. Copy it, count the run, keep
 * data_type and data_len, then read the payload's first u32 where it is:
 * udata (one user buffer) or iov[0].iov_base + iov_offset (the iovecs).
 * Returns 0: no perf sample, so nothing is copied for this program.
 */
static inline int uet_bpf_load_seen_iter(int map)
{
	struct bpf_insn prog[] = {
		/* r6 = ctx, r0 = &map[0] */
		MOV_REG(6, 1), ST_IMM(BPF_W, 10, -4, 0), LD_MAP(1, map), LD_IMM_HI(),
		MOV_REG(2, 10), ADD_IMM(2, -4), CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 35),		/* to out */
		MOV_REG(7, 0),
		/* the user_bpf_context at fp-24: data_type, data_len, pointer */
		MOV_REG(1, 10), ADD_IMM(1, -24), MOV_IMM(2, 16), MOV_REG(3, 6),
		ADD_IMM(3, USER_BPF_CONTEXT_OFFSET),
		CALL(BPF_FUNC_probe_read_kernel),
		MOV_IMM(1, 1),
		LOCK_ADD(7, 1, 0),
		LDX(BPF_W, 1, 10, -24),
		STX(BPF_DW, 7, 1, 16),
		LDX(BPF_W, 1, 10, -20),
		STX(BPF_DW, 7, 1, 24),
		LDX(BPF_DW, 3, 10, -16),
		LDX(BPF_W, 1, 10, -24),
		JEQ_IMM(1, USER_BPF_DATA_USER, 13),	/* to read_user */
		JNE_IMM(1, USER_BPF_DATA_ITER, 18),	/* to out */
		/* struct user_bpf_iter at fp-40: iov_offset, nr_segs, iov */
		MOV_REG(1, 10), ADD_IMM(1, -40), MOV_IMM(2, 16),
		CALL(BPF_FUNC_probe_read_kernel),
		LDX(BPF_DW, 3, 10, -32),
		/* iov[0] at fp-56: iov_base, iov_len */
		MOV_REG(1, 10), ADD_IMM(1, -56), MOV_IMM(2, 16),
		CALL(BPF_FUNC_probe_read_kernel),
		LDX(BPF_DW, 3, 10, -56),
		LDX(BPF_W, 1, 10, -40),
		ADD_REG(3, 1),
		/* read_user: the first u32 of the payload at fp-64 */
		MOV_REG(1, 10), ADD_IMM(1, -64), MOV_IMM(2, 4),
		CALL(BPF_FUNC_probe_read_user),
		LDX(BPF_W, 1, 10, -64),
		STX(BPF_DW, 7, 1, 8),
		/* out */
		MOV_IMM(0, 0),
		EXIT(),
	};

	return uet_bpf_load(prog, ARRAY_SIZE(prog));
}

/* A perf event of this task on the tracepoint, running @prog */
static inline int uet_bpf_attach(const char *event, int prog)
{
	int fd = uet_perf_open(uet_tracepoint_id(event), 0, -1, 1);

	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A program of the two above, its map and the perf event that runs it */
struct uet_bpf_run {
	int map, prog, perf;
};

/*
 * Attach the BPF_ITER program (@iter) or the standard one to @event in
 * @r: 0, or -1 with nothing left open
 */
static inline int uet_bpf_run_start(struct uet_bpf_run *r, const char *event, int iter)
{
	r->prog = -1;
	r->perf = -1;
	r->map = uet_bpf_map(sizeof(struct uet_seen), 1);
	if (r->map < 0)
		return -1;
	r->prog = iter ? uet_bpf_load_seen_iter(r->map) : uet_bpf_load_seen_standard(r->map);
	if (r->prog >= 0)
		r->perf = uet_bpf_attach(event, r->prog);
	if (r->perf >= 0)
		return 0;
	if (r->prog >= 0)
		close(r->prog);
	close(r->map);
	return -1;
}

/* Detach and close what uet_bpf_run_start() opened */
static inline void uet_bpf_run_stop(struct uet_bpf_run *r)
{
	close(r->perf);
	close(r->prog);
	close(r->map);
}

#endif /* UE_BPF_SEEN_H */
