// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_test: eBPF programs attached to a user event's tracepoint the way
 * bpftrace attaches them (perf_event_open + PERF_EVENT_IOC_SET_BPF). A
 * program with the standard tracepoint context counts writes and reads the
 * fields; one on a BPF_ITER event reads the payload through the
 * struct user_bpf_context it gets instead. The programs are assembled here
 * and loaded with the bpf() system call, so no compiler or library is needed.
 */
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"
#include "ue_bpf.h"

/* The map's one value: what the programs saw */
struct seen {
	__u64 count;		/* runs */
	__u64 a;		/* first u32 of the payload */
	__u64 b;		/* second u32 (standard), data_type (BPF_ITER) */
	__u64 len;		/* data_len (BPF_ITER) */
};

/*
 * Standard context (the record: 8-byte common header, then u32 a, u32 b):
 * count the run, keep a and b, return 1 so perf samples go on.
 */
static int load_standard(int map)
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
 * BPF_ITER context: copy the struct user_bpf_context, count the run, keep
 * data_type and data_len, then read the payload's first u32 where it is:
 * udata (one user buffer) or iov[0].iov_base + iov_offset (the iovecs).
 * Returns 0: no perf sample, so nothing is copied for this program.
 */
static int load_iter(int map)
{
	struct bpf_insn prog[] = {
		/* r6 = ctx, r0 = &map[0] */
		MOV_REG(6, 1), ST_IMM(BPF_W, 10, -4, 0), LD_MAP(1, map), LD_IMM_HI(),
		MOV_REG(2, 10), ADD_IMM(2, -4), CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 34),		/* to out */
		MOV_REG(7, 0),
		/* ctx at fp-24: data_type, data_len, pointer */
		MOV_REG(1, 10), ADD_IMM(1, -24), MOV_IMM(2, 16), MOV_REG(3, 6),
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
static int attach(const char *event, int prog)
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
	self->map = uet_bpf_map(sizeof(struct seen), 1);
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

/* A program on a normal event reads the fields of every write */
TEST_F(bpf, standard_context)
{
	struct user_reg reg;
	struct seen seen;
	__u32 vals[2];
	struct iovec iov[2] = {
		{ &reg.write_index, sizeof(reg.write_index) },
		{ vals, sizeof(vals) },
	};
	int i;

	self->name = "bpf_t";
	ASSERT_EQ(0, uet_register(self->fd, "bpf_t u32 a; u32 b", &reg));
	ASSERT_EQ(0, self->page[reg.status_index]);
	self->prog = load_standard(self->map);
	ASSERT_LE(0, self->prog);
	self->perf = attach("bpf_t", self->prog);
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
	struct user_reg reg;
	struct seen seen;
	__u32 first[2], b = 7, ab[2] = { 0xfeed, 1 };
	struct iovec iov[2] = {
		{ first, sizeof(first) },	/* write index, then a */
		{ &b, sizeof(b) },
	};
	struct iovec iov2[2] = {
		{ &reg.write_index, sizeof(reg.write_index) },
		{ ab, sizeof(ab) },		/* the payload on its own */
	};

	self->name = "bpf_i";
	/* unknown flags beside BPF_ITER are ignored */
	ASSERT_EQ(0, uet_register(self->fd, "bpf_i:SOMEDAY,BPF_ITER u32 a; u32 b",
				  &reg));
	self->prog = load_iter(self->map);
	ASSERT_LE(0, self->prog);
	self->perf = attach("bpf_i", self->prog);
	ASSERT_LE(0, self->perf);
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

/* BPF_ITER, write(): one user buffer, handed over as udata */
TEST_F(bpf, iter_one_buffer)
{
	struct user_reg reg;
	struct seen seen;
	__u32 buf[3];

	self->name = "bpf_w";
	ASSERT_EQ(0, uet_register(self->fd, "bpf_w:BPF_ITER u32 a; u32 b", &reg));
	self->prog = load_iter(self->map);
	ASSERT_LE(0, self->prog);
	self->perf = attach("bpf_w", self->prog);
	ASSERT_LE(0, self->perf);

	buf[0] = reg.write_index;
	buf[1] = 0xc0ffee;
	buf[2] = 2;
	ASSERT_EQ(12, write(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, uet_bpf_map_read(self->map, 0, &seen));
	EXPECT_EQ(1, seen.count);
	EXPECT_EQ(USER_BPF_DATA_USER, seen.b);
	EXPECT_EQ(8, seen.len);
	EXPECT_EQ(0xc0ffee, seen.a);

	close(self->perf);
	self->perf = -1;
	EXPECT_EQ(0, self->page[reg.status_index]);
}

/* A BPF_ITER program and ftrace at once: both see every write */
TEST_F(bpf, iter_with_ftrace)
{
	struct user_reg reg;
	struct seen seen;
	__u32 buf[3];
	char *trace;

	self->name = "bpf_f";
	ASSERT_EQ(0, uet_register(self->fd, "bpf_f:BPF_ITER u32 a; u32 b", &reg));
	self->prog = load_iter(self->map);
	ASSERT_LE(0, self->prog);
	self->perf = attach("bpf_f", self->prog);
	ASSERT_LE(0, self->perf);
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
				  attach("bpf_o", prog);
		return fds[c] < 0 ? -1 : 0;
	}
}

/*
 * ftrace enable (0), a hist trigger (1), a perf event (2) and a BPF program
 * (3) attach and detach in different orders: after each step the status
 * byte is the OR of what is attached.
 */
TEST_F_TIMEOUT(bpf, status_any_order, 300)
{
	static const int detach[4][4] = {
		{ 0, 1, 2, 3 }, { 3, 2, 1, 0 }, { 1, 3, 0, 2 }, { 2, 0, 3, 1 },
	};
	struct user_reg reg;
	int on[4], fds[4], r, i, c, want;

	self->name = "bpf_o";
	ASSERT_EQ(0, uet_register(self->fd, "bpf_o u32 a; u32 b", &reg));
	self->prog = load_standard(self->map);
	ASSERT_LE(0, self->prog);
	memset(on, 0, sizeof(on));
	for (r = 0; r < 4; r++) {
		for (i = 0; i < 8; i++) {
			/* attach in rotation r, then detach as detach[r] says */
			c = i < 4 ? (r + i) % 4 : detach[r][i - 4];
			on[c] = i < 4;
			ASSERT_EQ(0, consumer(c, on[c], self->prog, fds));
			want = (on[0] || on[1] ? EVENT_STATUS_FTRACE : 0) |
			       (on[2] || on[3] ? EVENT_STATUS_PERF : 0);
			ASSERT_EQ(want, self->page[reg.status_index])
				TH_LOG("round %d, step %d (consumer %d)", r, i, c);
		}
	}
}

TEST_HARNESS_MAIN
