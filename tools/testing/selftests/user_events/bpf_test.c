// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_test: eBPF programs attached to a user event's tracepoint the way
 * bpftrace attaches them (perf_event_open + PERF_EVENT_IOC_SET_BPF). A
 * program with the standard tracepoint context counts writes and reads the
 * fields; one on a BPF_ITER event reads the payload through the
 * struct user_bpf_context it gets instead. The programs are assembled here
 * and loaded with the bpf() system call, so no compiler or library is needed.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"
#include "ue_bpf.h"
#include "ue_bpf_seen.h"

/* A BPF_MAP_TYPE_PERF_EVENT_ARRAY of one perf event; an fd or -1 */
static int perf_output_map(void)
{
	union bpf_attr attr = {
		.map_type = BPF_MAP_TYPE_PERF_EVENT_ARRAY,
		.key_size = 4,
		.value_size = 4,
		.max_entries = 1,
	};

	return uet_bpf(BPF_MAP_CREATE, &attr);
}

/* 32-bit move: the upper half of @d cleared, not sign-extended */
#define MOV32_IMM(d, i)	INSN(BPF_ALU | BPF_MOV | BPF_K, d, 0, 0, i)

/*
 * A BPF_ITER program calling the helpers that take the context and read
 * its first 8 bytes as a struct pt_regs pointer: bpf_get_stack() into the
 * stack (its return value into seen.a), then bpf_perf_event_output() of the
 * u64 0x5eed to the perf event of this CPU in @out (its return value into
 * seen.b); counts the run.
 */
static int load_iter_helpers(int map, int out)
{
	struct bpf_insn prog[] = {
		/* r6 = ctx, r7 = &map[0] */
		/* r6 = ctx, r0 = &map[0] */
		MOV_REG(6, 1), ST_IMM(BPF_W, 10, -4, 0), LD_MAP(1, map), LD_IMM_HI(),
		MOV_REG(2, 10), ADD_IMM(2, -4), CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 20),		/* to out */
		MOV_REG(7, 0),
		/* bpf_get_stack(ctx, fp-256, 256, 0): the kernel stack */
		MOV_REG(1, 6), MOV_REG(2, 10), ADD_IMM(2, -256), MOV_IMM(3, 256),
		MOV_IMM(4, 0), CALL(BPF_FUNC_get_stack),
		STX(BPF_DW, 7, 0, 8),
		/* bpf_perf_event_output(ctx, out, BPF_F_CURRENT_CPU, fp-264, 8) */
		ST_IMM(BPF_DW, 10, -264, 0x5eed),
		MOV_REG(1, 6), LD_MAP(2, out), LD_IMM_HI(), MOV32_IMM(3, -1),
		MOV_REG(4, 10), ADD_IMM(4, -264), MOV_IMM(5, 8),
		CALL(BPF_FUNC_perf_event_output),
		STX(BPF_DW, 7, 0, 16),
		MOV_IMM(1, 1),
		LOCK_ADD(7, 1, 0),
		/* out */
		MOV_IMM(0, 0),
		EXIT(),
	};

	return uet_bpf_load(prog, ARRAY_SIZE(prog));
}

/*
 * A BPF_ITER program that loads its context directly: data_type and
 * data_len into seen.b and seen.len, and the u64 at offset @far (past the
 * struct user_bpf_context, within the event's fields: zero) into seen.a.
 */
static int load_iter_direct(int map, short far)
{
	struct bpf_insn prog[] = {
		/* r6 = ctx, r0 = &map[0] */
		MOV_REG(6, 1), ST_IMM(BPF_W, 10, -4, 0), LD_MAP(1, map), LD_IMM_HI(),
		MOV_REG(2, 10), ADD_IMM(2, -4), CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 8),		/* to out */
		LDX(BPF_W, 1, 6, USER_BPF_CONTEXT_OFFSET),
		STX(BPF_DW, 0, 1, 16),
		LDX(BPF_W, 1, 6, USER_BPF_CONTEXT_OFFSET + 4),
		STX(BPF_DW, 0, 1, 24),
		LDX(BPF_DW, 1, 6, far),
		STX(BPF_DW, 0, 1, 8),
		MOV_IMM(1, 1),
		LOCK_ADD(0, 1, 0),
		/* out */
		MOV_IMM(0, 0),
		EXIT(),
	};

	return uet_bpf_load(prog, ARRAY_SIZE(prog));
}

FIXTURE(bpf) {
	int fd;				/* user_events_data */
	const unsigned char *page;	/* the status page */
	int map;
	int prog;
	int perf;
	const char *name;
};

FIXTURE_SETUP(bpf)
{
	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF | UE_NEED_HIST))
		return;

	self->page = uet_map_status();
	ASSERT_NE(NULL, self->page);
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->map = uet_bpf_map(sizeof(struct uet_seen), 1);
	ASSERT_LE(0, self->map);
	self->prog = -1;
	self->perf = -1;
	self->name = NULL;
}

FIXTURE_TEARDOWN(bpf)
{
	if (self->perf >= 0)
		close(self->perf);
	if (self->prog >= 0)
		close(self->prog);
	close(self->map);
	close(self->fd);
	if (self->name) {
		self->fd = open(UE_DATA, O_RDWR);
		EXPECT_EQ(0, uet_delete(self->fd, self->name));
		close(self->fd);
	}
	munmap((void *)self->page, getpagesize());
}

/*
 * Register @desc as @name (deleted at teardown) and attach program @prog to
 * it through a perf event of this task; @self is the fixture's data,
 * FIXTURE_DATA(bpf)
 */
static void reg_attach(struct __test_metadata *_metadata, struct _test_data_bpf *self,
		       const char *name, const char *desc, int prog,
		       struct user_status_reg *reg)
{
	self->name = name;
	ASSERT_EQ(0, uet_register(self->fd, desc, reg));
	self->prog = prog;
	ASSERT_LE(0, self->prog);
	self->perf = uet_bpf_attach(name, self->prog);
	ASSERT_LE(0, self->perf);
}

/* A program on a normal event reads the fields of every write */
TEST_F(bpf, standard_context)
{
	struct user_status_reg reg;
	struct uet_seen seen;
	__u32 vals[2];
	struct iovec iov[2] = {
		{ &reg.write_index, sizeof(reg.write_index) },
		{ vals, sizeof(vals) },
	};
	int i;

	self->name = "bpf_t";
	ASSERT_EQ(0, uet_register(self->fd, "bpf_t u32 a; u32 b", &reg));
	ASSERT_EQ(0, self->page[reg.status_index]);
	self->prog = uet_bpf_load_seen_standard(self->map);
	ASSERT_LE(0, self->prog);
	self->perf = uet_bpf_attach("bpf_t", self->prog);
	ASSERT_LE(0, self->perf);
	/* the program's perf event is a perf consumer */
	ASSERT_EQ(EVENT_STATUS_PERF, self->page[reg.status_index]);

	for (i = 0; i < 5; i++) {
		vals[0] = 100 + i;
		vals[1] = 0xabcd0000 | i;
		ASSERT_EQ(12, writev(self->fd, iov, 2));
	}
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(5, seen.count);
	EXPECT_EQ(104, seen.a);
	EXPECT_EQ(0xabcd0004, seen.b);

	close(self->perf);
	self->perf = -1;
	EXPECT_EQ(0, self->page[reg.status_index]);
	/* detached: writes no longer reach it */
	ASSERT_EQ(12, writev(self->fd, iov, 2));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(5, seen.count);
}

/* BPF_ITER, writev(): the program reads the payload through the iovecs */
TEST_F(bpf, iter_iovecs)
{
	struct user_status_reg reg;
	struct uet_seen seen;
	__u32 first[2], b = 7, ab[2] = { 0xfeed, 1 };
	struct iovec iov[2] = {
		{ first, sizeof(first) },	/* write index, then a */
		{ &b, sizeof(b) },
	};
	struct iovec iov2[2] = {
		{ &reg.write_index, sizeof(reg.write_index) },
		{ ab, sizeof(ab) },		/* the payload on its own */
	};

	/* unknown flags beside BPF_ITER are ignored */
	reg_attach(_metadata, self, "bpf_i", "bpf_i:SOMEDAY,BPF_ITER u32 a; u32 b",
		   uet_bpf_load_seen_iter(self->map), &reg);
	ASSERT_EQ(EVENT_STATUS_PERF, self->page[reg.status_index]);

	first[0] = reg.write_index;
	first[1] = 0x5eed;
	ASSERT_EQ(12, writev(self->fd, iov, 2));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(1, seen.count);
	EXPECT_EQ(USER_BPF_DATA_ITER, seen.b);
	EXPECT_EQ(8, seen.len);
	/* iov[0] holds the write index too: iov_offset skips it */
	EXPECT_EQ(0x5eed, seen.a);

	ASSERT_EQ(12, writev(self->fd, iov2, 2));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(2, seen.count);
	EXPECT_EQ(0xfeed, seen.a);
}

/* BPF_ITER, write() or a writev() of one segment: one user buffer, as udata */
TEST_F(bpf, iter_one_buffer)
{
	struct user_status_reg reg;
	struct uet_seen seen;
	__u32 buf[3];
	struct iovec one = { buf, sizeof(buf) };

	reg_attach(_metadata, self, "bpf_w", "bpf_w:BPF_ITER u32 a; u32 b",
		   uet_bpf_load_seen_iter(self->map), &reg);

	buf[0] = reg.write_index;
	buf[1] = 0xc0ffee;
	buf[2] = 2;
	ASSERT_EQ(12, write(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(1, seen.count);
	EXPECT_EQ(USER_BPF_DATA_USER, seen.b);
	EXPECT_EQ(8, seen.len);
	EXPECT_EQ(0xc0ffee, seen.a);

	buf[1] = 0xbeef;
	ASSERT_EQ(12, writev(self->fd, &one, 1));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(2, seen.count);
	EXPECT_EQ(USER_BPF_DATA_USER, seen.b);
	EXPECT_EQ(8, seen.len);
	EXPECT_EQ(0xbeef, seen.a);

	close(self->perf);
	self->perf = -1;
	EXPECT_EQ(0, self->page[reg.status_index]);
}

/*
 * BPF_ITER with the helpers that read the context's first 8 bytes as a
 * struct pt_regs pointer (bpf_get_stack(), bpf_perf_event_output()): they
 * get real registers and deliver. A context that started with data_type
 * and data_len handed them a pointer the writer chose.
 */
TEST_F(bpf, iter_helpers)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(pe),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};
	struct uet_ring ring = { .meta = NULL };
	struct perf_event_header *hdr;
	struct user_status_reg reg;
	int out_map, out, key = 0;
	struct uet_seen seen;
	cpu_set_t cpu0;
	__u32 buf[3];
	__u64 v;

	/* the output event is CPU 0's: write from there */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu0), &cpu0));
	out = syscall(__NR_perf_event_open, &pe, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, out);
	ASSERT_EQ(0, uet_ring_map(&ring, out, 1));
	out_map = perf_output_map();
	ASSERT_LE(0, out_map);
	ASSERT_EQ(0, uet_bpf_map_write(out_map, key, &out));

	reg_attach(_metadata, self, "bpf_h", "bpf_h:BPF_ITER u32 a; u32 b",
		   load_iter_helpers(self->map, out_map), &reg);

	buf[0] = reg.write_index;
	buf[1] = 1;
	buf[2] = 2;
	ASSERT_EQ(12, write(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(1, seen.count);
	/* bytes of kernel stack: some, in whole entries */
	EXPECT_LT(0, (long long)seen.a);
	EXPECT_EQ(0, seen.a % 8);
	/* bpf_perf_event_output() returned 0 and the sample is there */
	EXPECT_EQ(0, seen.b);
	ASSERT_LT(0, ring.meta->data_head);
	hdr = (void *)ring.data;
	ASSERT_EQ(PERF_RECORD_SAMPLE, hdr->type);
	/* the raw sample: a u32 size, then the program's bytes */
	memcpy(&v, (char *)(hdr + 1) + sizeof(__u32), sizeof(v));
	EXPECT_EQ(0x5eed, v);

	close(out_map);
	uet_ring_unmap(&ring);
	close(out);
}

/*
 * BPF_ITER: a program loads its context directly where the attach allows,
 * up to the end of the event's fields: the struct user_bpf_context, then
 * zeroes. One that loads past the fields is refused at attach.
 */
TEST_F(bpf, iter_context_bounds)
{
	struct user_status_reg reg, reg2;
	struct uet_seen seen;
	__u32 buf[3];
	char big[4 + 4 + 200];
	int prog;

	/* the fields end at 8 + 4 + 200: the program may load up to there */
	reg_attach(_metadata, self, "bpf_z", "bpf_z:BPF_ITER u32 a; char[200] s",
		   load_iter_direct(self->map, 200), &reg);
	memset(big, 'x', sizeof(big));
	memcpy(big, &reg.write_index, sizeof(reg.write_index));
	ASSERT_EQ((ssize_t)sizeof(big), write(self->fd, big, sizeof(big)));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(1, seen.count);
	EXPECT_EQ(USER_BPF_DATA_USER, seen.b);
	EXPECT_EQ(204, seen.len);
	/* not the payload, nor anything else of the kernel's: zeroes */
	EXPECT_EQ(0, seen.a);
	close(self->perf);
	self->perf = -1;

	/* "u32 a; u32 b" ends at 16: a load at 16 is past what the event has */
	ASSERT_EQ(0, uet_register(self->fd, "bpf_z2:BPF_ITER u32 a; u32 b", &reg2));
	prog = load_iter_direct(self->map, 16);
	ASSERT_LE(0, prog);
	EXPECT_GT(0, uet_bpf_attach("bpf_z2", prog));
	EXPECT_EQ(EACCES, errno);
	/* and the event has no consumer */
	EXPECT_EQ(0, self->page[reg2.status_index]);
	close(prog);
	buf[0] = reg2.write_index;
	buf[1] = 1;
	buf[2] = 2;
	EXPECT_EQ(12, write(self->fd, buf, sizeof(buf)));
	close(self->fd);
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, uet_delete(self->fd, "bpf_z2"));
}

/*
 * BPF_ITER: the payload is not checked for the program, which reads it
 * where it is: a __rel_loc pointing past the record is the program's to
 * bound. A consumer that copies the record (ftrace here) has it checked.
 */
TEST_F(bpf, iter_payload_unchecked)
{
	struct user_status_reg reg;
	struct uet_seen seen;
	__u32 buf[3];

	reg_attach(_metadata, self, "bpf_u", "bpf_u:BPF_ITER u32 a; __rel_loc char[] s",
		   uet_bpf_load_seen_iter(self->map), &reg);
	buf[0] = reg.write_index;
	buf[1] = 0x600d;
	buf[2] = 100 << 16 | 40;	/* 100 bytes, 40 past the record's end */
	ASSERT_EQ(12, write(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(1, seen.count);
	EXPECT_EQ(0x600d, seen.a);
	EXPECT_EQ(8, seen.len);

	ASSERT_EQ(0, uet_enable("", "bpf_u", 1));
	EXPECT_EQ(-1, write(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, uet_enable("", "bpf_u", 0));
}

/*
 * A program that counts its runs and returns @ret, whatever its context:
 * 0 drops the write's perf samples, anything else keeps them
 */
static int load_count_ret(int map, int ret)
{
	struct bpf_insn prog[] = {
		ST_IMM(BPF_W, 10, -4, 0), LD_MAP(1, map), LD_IMM_HI(),
		MOV_REG(2, 10), ADD_IMM(2, -4), CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 2),
		MOV_IMM(1, 1),
		LOCK_ADD(0, 1, 0),
		MOV_IMM(0, ret),
		EXIT(),
	};

	return uet_bpf_load(prog, ARRAY_SIZE(prog));
}

/*
 * A program returning 0 drops the perf samples of the write, as for any
 * tracepoint; returning non-zero, a perf event sampling the event gets the
 * record, for the standard context and for BPF_ITER (a copy made then)
 */
TEST_F(bpf, return_value_and_samples)
{
	static const char * const desc[2] = { "bpf_r u32 a; u32 b", "bpf_r:BPF_ITER u32 a; u32 b" };
	struct uet_ring ring = { .meta = NULL };
	struct perf_event_header *hdr;
	struct user_status_reg reg;
	struct uet_seen seen;
	int k, sampler, fd2;
	__u32 buf[3];

	self->name = "bpf_r";
	for (k = 0; k < 4; k++) {
		int iter = k / 2, ret = k % 2;

		if (k == 2) {
			/* the BPF_ITER event of the name */
			fd2 = open(UE_DATA, O_RDWR);
			close(self->fd);
			ASSERT_EQ(0, uet_delete(fd2, "bpf_r"));
			self->fd = fd2;
		}
		ASSERT_EQ(0, uet_register(self->fd, desc[iter], &reg));
		sampler = uet_perf_open(uet_tracepoint_id("bpf_r"), 0, -1, 1);
		ASSERT_LE(0, sampler);
		ASSERT_EQ(0, uet_ring_map(&ring, sampler, 1));
		self->prog = load_count_ret(self->map, ret);
		ASSERT_LE(0, self->prog);
		self->perf = uet_bpf_attach("bpf_r", self->prog);
		ASSERT_LE(0, self->perf);

		buf[0] = reg.write_index;
		buf[1] = 0x1234 + k;
		buf[2] = k;
		ASSERT_EQ(12, write(self->fd, buf, sizeof(buf)));
		ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
		EXPECT_EQ(k + 1, seen.count) TH_LOG("iter %d, return %d: program runs", iter, ret);
		if (!ret) {
			EXPECT_EQ(0, uet_ring_head(&ring)) TH_LOG("iter %d: a sample", iter);
		} else {
			ASSERT_LT(0, uet_ring_head(&ring)) TH_LOG("iter %d: no sample", iter);
			hdr = (void *)ring.data;
			EXPECT_EQ(PERF_RECORD_SAMPLE, hdr->type);
			/* u32 size, 8-byte common header, then the payload */
			EXPECT_EQ(0x1234 + k, *(__u32 *)((char *)(hdr + 1) + 4 + 8));
		}
		uet_ring_unmap(&ring);
		close(sampler);
		close(self->perf);
		self->perf = -1;
		close(self->prog);
		self->prog = -1;
	}
}

/* A BPF_ITER program and ftrace at once: both see every write */
TEST_F(bpf, iter_with_ftrace)
{
	struct user_status_reg reg;
	struct uet_seen seen;
	__u32 buf[3];
	char *trace;

	reg_attach(_metadata, self, "bpf_f", "bpf_f:BPF_ITER u32 a; u32 b",
		   uet_bpf_load_seen_iter(self->map), &reg);
	ASSERT_EQ(0, uet_write_file(TRACEFS "trace", "", O_TRUNC));
	ASSERT_EQ(0, uet_enable("", "bpf_f", 1));
	ASSERT_EQ(EVENT_STATUS_PERF | EVENT_STATUS_FTRACE,
		  self->page[reg.status_index]);

	buf[0] = reg.write_index;
	buf[1] = 41;
	buf[2] = 42;
	ASSERT_EQ(12, write(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(1, seen.count);
	EXPECT_EQ(41, seen.a);
	trace = uet_read_file(TRACEFS "trace");
	ASSERT_NE(NULL, trace);
	EXPECT_NE(NULL, strstr(trace, "bpf_f: a=41 b=42"));
	free(trace);

	close(self->perf);
	self->perf = -1;
	EXPECT_EQ(EVENT_STATUS_FTRACE, self->page[reg.status_index]);
	ASSERT_EQ(0, uet_enable("", "bpf_f", 0));
	EXPECT_EQ(0, self->page[reg.status_index]);
}

/* Attach (@on) or detach consumer @c of event bpf_o; 0 or -1 */
static int consumer(int c, int on, int prog, int *fds)
{
	switch (c) {
	case 0:
		return uet_enable("", "bpf_o", on);
	case 1:
		return uet_write_file(TRACEFS "events/user_events/bpf_o/trigger",
				     on ? "hist:keys=a" : "!hist:keys=a", O_APPEND);
	default:
		if (!on)
			return close(fds[c]);
		fds[c] = c == 2 ? uet_perf_open(uet_tracepoint_id("bpf_o"), 0, -1, 0) :
				   uet_bpf_attach("bpf_o", prog);
		return fds[c] < 0 ? -1 : 0;
	}
}

/*
 * ftrace enable (0), a hist trigger (1), a perf event (2) and a BPF program
 * (3) attach and detach in different orders: after each step the status
 * byte is the OR of what is attached. A delete is refused (EBUSY) while
 * any is attached, and goes through once none is.
 */
TEST_F_TIMEOUT(bpf, status_any_order, 300)
{
	static const int detach[4][4] = {
		{ 0, 1, 2, 3 }, { 3, 2, 1, 0 }, { 1, 3, 0, 2 }, { 2, 0, 3, 1 },
	};
	struct user_status_reg reg;
	int on[4], fds[4], r, i, c, want, fd2;

	self->name = "bpf_o";
	self->prog = uet_bpf_load_seen_standard(self->map);
	ASSERT_LE(0, self->prog);
	memset(on, 0, sizeof(on));
	for (r = 0; r < 4; r++) {
		/* held by no fd: only a consumer keeps a delete off */
		fd2 = open(UE_DATA, O_RDWR);
		ASSERT_LE(0, fd2);
		ASSERT_EQ(0, uet_register(fd2, "bpf_o u32 a; u32 b", &reg));
		close(fd2);
		for (i = 0; i < 8; i++) {
			/* attach in rotation r, then detach as detach[r] says */
			c = i < 4 ? (r + i) % 4 : detach[r][i - 4];
			on[c] = i < 4;
			ASSERT_EQ(0, consumer(c, on[c], self->prog, fds));
			want = (on[0] || on[1] ? EVENT_STATUS_FTRACE : 0) |
			       (on[2] || on[3] ? EVENT_STATUS_PERF : 0);
			ASSERT_EQ(want, self->page[reg.status_index])
				TH_LOG("round %d, step %d (consumer %d)", r, i, c);
			if (i < 7) {
				EXPECT_EQ(-EBUSY, uet_delete_named("bpf_o"))
					TH_LOG("round %d, step %d (consumer %d)", r, i, c);
			}
		}
		EXPECT_EQ(0, uet_delete_named("bpf_o")) TH_LOG("round %d", r);
	}
	/* the teardown's delete finds it */
	ASSERT_EQ(0, uet_register(self->fd, "bpf_o u32 a; u32 b", &reg));
}

UE_HARNESS_MAIN
