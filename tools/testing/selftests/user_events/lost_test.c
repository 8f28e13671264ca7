// SPDX-License-Identifier: GPL-2.0
/*
 * lost_test: nothing is lost, nothing is made up. With buffers large enough,
 * N writes give exactly N records with the payloads written, in order, for
 * ftrace (read back from trace), perf (raw samples in the mmap ring) and
 * eBPF (a program checking and counting every record in a map), one writer
 * and two writers pinned to two CPUs with all three consumers at once. With
 * buffers too small, every write is accounted for: ftrace's per-CPU entries
 * plus overrun are N and the records kept are the last ones; perf's samples
 * plus its lost count (PERF_RECORD_LOST and PERF_FORMAT_LOST) are N.
 * Also: BPF_ITER programs, records of the largest payload (with the
 * absolute time stamps a hist trigger asks for), and payloads on pages that
 * must be faulted in, where the kernel retries the write: each consumer must
 * still see each write exactly once.
 *
 * Each record carries its sequence number, the writer, a value computed
 * from both and a string, so a record copied wrong, twice or from another
 * write shows.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"
#include "ue_bpf.h"

#define EVENT		"lost_t"
#define DESC		EVENT " u32 seq; u32 who; u32 val; __rel_loc char[] s"
#define ITER_EVENT	"lost_i"
#define ITER_DESC	ITER_EVENT ":BPF_ITER u32 seq; u32 who; u32 val; __rel_loc char[] s"
#define BIG_KB		"4096"	/* per CPU: room for all records of a test */
#define SMALL_KB	"4"	/* per CPU: two pages, overwritten many times */
#define N_EXACT		30000
#define N_SMALL		5000
#define N_FAULT		2000
#define N_MAX		500	/* records of the largest payload */

/* What a record of (seq, who) holds besides them */
static unsigned int val_of(unsigned int seq, unsigned int who)
{
	return seq * 40503u + who;
}

/* What a test saw of one record */
struct rec {
	unsigned int seq, who, cpu;
	int pid;
};

/*
 * Write record @seq of writer @who through write index @widx of @fd, its
 * string padded with NULs to make the payload @size bytes (0: no padding)
 */
static int emit_size(int fd, int widx, unsigned int seq, unsigned int who, int size)
{
	struct {
		__u32 idx, seq, who, val, loc;
		char s[4096];
	} r;
	int n = snprintf(r.s, sizeof(r.s), "s%u", seq) + 1, len;

	if (size > 16 + n && size <= 16 + (int)sizeof(r.s)) {
		memset(r.s + n, 0, size - 16 - n);
		n = size - 16;
	}
	len = 20 + n;
	r.idx = widx;
	r.seq = seq;
	r.who = who;
	r.val = val_of(seq, who);
	r.loc = n << 16;	/* right after the loc field */
	return write(fd, &r, len) == len ? 0 : -errno;
}

static int emit(int fd, int widx, unsigned int seq, unsigned int who)
{
	return emit_size(fd, widx, seq, who, 0);
}

/*
 * Like emit(), from two pages of a shared memfd mapping at @pages: the
 * write index at the end of the first, the payload on the second, whose
 * mapping is dropped first. The kernel reads the index, then its copy of the
 * payload hits a missing page (the data stays in the page cache) and must
 * fault it in and retry, without duplicating or losing a record.
 */
static int emit_dropped(void *pages, int fd, int widx, unsigned int seq, unsigned int who)
{
	int page = getpagesize(), n, len;
	char *payload = (char *)pages + page;
	struct {
		__u32 seq, who, val, loc;
		char s[16];
	} r;

	n = snprintf(r.s, sizeof(r.s), "s%u", seq) + 1;
	len = 4 + 16 + n;
	r.seq = seq;
	r.who = who;
	r.val = val_of(seq, who);
	r.loc = n << 16;
	memcpy(payload - 4, &widx, 4);
	memcpy(payload, &r, len - 4);
	if (madvise(payload, page, MADV_DONTNEED))
		return -errno;
	return write(fd, payload - 4, len) == len ? 0 : -errno;
}

/* Two pages of a shared memfd mapping for emit_dropped(), or NULL */
static void *dropped_pages(void)
{
	int mfd = memfd_create("lost_test", 0);
	void *p;

	if (mfd < 0 || ftruncate(mfd, 2 * getpagesize()))
		return NULL;
	p = mmap(NULL, 2 * getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	close(mfd);
	return p == MAP_FAILED ? NULL : p;
}

/* Pin the calling thread to @cpu */
static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* ftrace ------------------------------------------------------------------ */

/* Field @what ("entries", "overrun", ...) of per_cpu/cpu@cpu/stats, or -1 */
static long cpu_stat(int cpu, const char *what)
{
	char path[128], key[64], *text, *p;
	long v = -1;

	snprintf(path, sizeof(path), TRACEFS "per_cpu/cpu%d/stats", cpu);
	snprintf(key, sizeof(key), "\n%s: ", what);
	text = uet_read_file(path);
	if (!text)
		return -1;
	/* the first line has no newline before it */
	p = strstr(text, key);
	if (!strncmp(text, key + 1, strlen(key + 1)))
		v = atol(text + strlen(key + 1));
	else if (p)
		v = atol(p + strlen(key));
	free(text);
	return v;
}

/*
 * The records of EVENT in trace, in the order shown, into @out (at most
 * @max); returns how many, -1 when a line does not parse or holds a payload
 * that was never written (@why says which)
 */
static int trace_records(struct rec *out, int max, char *why, size_t whylen)
{
	char *trace = uet_read_file(TRACEFS "trace"), *line, *save, *p;
	int n = 0;

	if (!trace) {
		snprintf(why, whylen, "cannot read trace");
		return -1;
	}
	for (line = strtok_r(trace, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned int seq, who, val, cpu;
		char s[32], want[32];

		p = strstr(line, EVENT ": ");
		if (!p || line[0] == '#')
			continue;
		if (sscanf(p, EVENT ": seq=%u who=%u val=%u s=%31s", &seq, &who, &val, s) != 4 ||
		    !strchr(line, '[') || sscanf(strchr(line, '['), "[%u]", &cpu) != 1) {
			snprintf(why, whylen, "line '%s'", line);
			n = -1;
			break;
		}
		snprintf(want, sizeof(want), "s%u", seq);
		if (val != val_of(seq, who) || strcmp(s, want)) {
			snprintf(why, whylen, "record never written: '%s'", line);
			n = -1;
			break;
		}
		if (n == max) {
			snprintf(why, whylen, "more than %d records", max);
			n = -1;
			break;
		}
		out[n++] = (struct rec){ .seq = seq, .who = who, .cpu = cpu };
	}
	free(trace);
	return n;
}

/*
 * The records of writer @who among @n are exactly seq @first .. @last - 1 in
 * order, on CPU @cpu (-1: any) and from @pid (0: any); 0 or -1 with @why
 */
static int check_run(const struct rec *r, int n, unsigned int who, unsigned int first,
		     unsigned int last, int cpu, int pid, char *why, size_t whylen)
{
	unsigned int next = first;
	int i;

	for (i = 0; i < n; i++) {
		if (r[i].who != who)
			continue;
		if (r[i].seq != next || next >= last) {
			snprintf(why, whylen, "writer %u: record %u where %u was due (%u..%u)",
				 who, r[i].seq, next, first, last - 1);
			return -1;
		}
		if (cpu >= 0 && r[i].cpu != (unsigned int)cpu) {
			snprintf(why, whylen, "writer %u: record %u on CPU %u, not %d", who,
				 r[i].seq, r[i].cpu, cpu);
			return -1;
		}
		if (pid && r[i].pid != pid) {
			snprintf(why, whylen, "writer %u: record %u from pid %d, not %d", who,
				 r[i].seq, r[i].pid, pid);
			return -1;
		}
		next++;
	}
	if (next != last) {
		snprintf(why, whylen, "writer %u: %u records of %u..%u, then none", who,
			 next - first, first, last - 1);
		return -1;
	}
	return 0;
}

/* perf -------------------------------------------------------------------- */

/*
 * Consume the ring: samples into @out (at most @max, -1 beyond), lost
 * counts of PERF_RECORD_LOST added to @lost; -1 for a sample that is not a
 * record as written (@why says which)
 */
static int ring_read(struct uet_ring *r, struct rec *out, int max, long *lost, int id,
		     char *why, size_t whylen)
{
	__u64 head = uet_ring_head(r), tail = r->meta->data_tail;
	static unsigned char buf[8192];
	int n = 0;

	while (tail < head) {
		struct perf_event_header *h = uet_ring_copy(r, &tail, buf, sizeof(buf));

		if (h->size < sizeof(*h) || h->size > sizeof(buf)) {
			snprintf(why, whylen, "perf record of %u bytes", h->size);
			return -1;
		}
		if (h->type == PERF_RECORD_LOST) {
			/* header, id, lost */
			*lost += *(__u64 *)(buf + sizeof(*h) + 8);
			continue;
		}
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		{
			unsigned int raw_size = *(__u32 *)(h + 1);
			unsigned char *raw = buf + sizeof(*h) + 4;
			__u32 seq, who, val, loc;
			char want[32];

			memcpy(&seq, raw + 8, 4);
			memcpy(&who, raw + 12, 4);
			memcpy(&val, raw + 16, 4);
			memcpy(&loc, raw + 20, 4);
			snprintf(want, sizeof(want), "s%u", seq);
			if (raw_size < 24 + strlen(want) + 1 || raw_size < 24 + (loc >> 16) ||
			    *(unsigned short *)raw != id || val != val_of(seq, who) ||
			    (loc & 0xffff) || strcmp((char *)raw + 24, want)) {
				snprintf(why, whylen, "sample never written: seq %u who %u val %u",
					 seq, who, val);
				return -1;
			}
			if (n == max) {
				snprintf(why, whylen, "more than %d samples", max);
				return -1;
			}
			out[n++] = (struct rec){ .seq = seq, .who = who,
						 .pid = *(int *)(raw + 4) };
		}
	}
	uet_ring_done(r, tail);
	return n;
}

/* eBPF ------------------------------------------------------------------- */

/* The map's value for each writer: what the program saw */
struct tally {
	__u64 count;		/* records */
	__u64 sum;		/* of their seq */
	__u64 next;		/* seq due next */
	__u64 misordered;	/* records whose seq was not the one due */
	__u64 bad;		/* records whose val does not fit seq and who */
};

/*
 * For each record (seq at 8, who at 12, val at 16 of the context): count
 * it and add its seq in map[who], and count a seq not due or a wrong val.
 * Returns 1: perf samples go on.
 */
static int tally_prog(int map)
{
	struct bpf_insn insns[] = {
		MOV_REG(6, 1),
		LDX(BPF_W, 7, 6, 12),
		JGT_IMM(7, 1, 24),		/* to out */
		STX(BPF_W, 10, 7, -4),
		LD_MAP(1, map), LD_IMM_HI(),
		MOV_REG(2, 10),
		ADD_IMM(2, -4),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 17),		/* to out */
		LDX(BPF_W, 8, 6, 8),
		LDX(BPF_W, 9, 6, 16),
		MOV_IMM(1, 1),
		LOCK_ADD(0, 1, 0),
		LOCK_ADD(0, 8, 8),
		MOV_REG(2, 8),
		MUL32_IMM(2, 40503),
		ADD32_REG(2, 7),
		JEQ_REG(2, 9, 2),
		MOV_IMM(1, 1),
		LOCK_ADD(0, 1, 32),
		LDX(BPF_DW, 3, 0, 16),
		JEQ_REG(3, 8, 2),
		MOV_IMM(1, 1),
		LOCK_ADD(0, 1, 24),
		ADD_IMM(8, 1),
		STX(BPF_DW, 0, 8, 16),
		/* out */
		MOV_IMM(0, 1),
		EXIT(),
	};

	return uet_bpf_load(insns, ARRAY_SIZE(insns));
}

/*
 * For a BPF_ITER event written with write(): the payload stays in the
 * writer's buffer (USER_BPF_DATA_USER); read its seq from there and tally
 * it in map[0]; a context of another kind or an unreadable payload is bad.
 * Returns 0: no perf sample, nothing copied.
 */
static int tally_iter_prog(int map)
{
	struct bpf_insn insns[] = {
		/* r6 = ctx, r0 = &map[0] */
		MOV_REG(6, 1), ST_IMM(BPF_W, 10, -4, 0), LD_MAP(1, map), LD_IMM_HI(),
		MOV_REG(2, 10), ADD_IMM(2, -4), CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 28),		/* to out */
		MOV_REG(9, 0),
		/* the user_bpf_context at fp-24: data_type, data_len, udata */
		MOV_REG(1, 10),
		ADD_IMM(1, -24),
		MOV_IMM(2, 16),
		MOV_REG(3, 6),
		ADD_IMM(3, USER_BPF_CONTEXT_OFFSET),
		CALL(BPF_FUNC_probe_read_kernel),
		LDX(BPF_W, 1, 10, -24),
		JNE_IMM(1, USER_BPF_DATA_USER, 17),	/* to bad */
		/* seq, the payload's first u32, at fp-32 */
		MOV_REG(1, 10),
		ADD_IMM(1, -32),
		MOV_IMM(2, 4),
		LDX(BPF_DW, 3, 10, -16),
		CALL(BPF_FUNC_probe_read_user),
		JNE_IMM(0, 0, 11),		/* to bad */
		LDX(BPF_W, 8, 10, -32),
		MOV_IMM(1, 1),
		LOCK_ADD(9, 1, 0),
		LOCK_ADD(9, 8, 8),
		LDX(BPF_DW, 3, 9, 16),
		JEQ_REG(3, 8, 2),
		MOV_IMM(1, 1),
		LOCK_ADD(9, 1, 24),
		ADD_IMM(8, 1),
		STX(BPF_DW, 9, 8, 16),
		JA(2),				/* to out */
		/* bad */
		MOV_IMM(1, 1),
		LOCK_ADD(9, 1, 32),
		/* out */
		MOV_IMM(0, 0),
		EXIT(),
	};

	return uet_bpf_load(insns, ARRAY_SIZE(insns));
}

/*
 * map[@who] tallied records 0 .. @n - 1: each once (count and sum), in
 * order (next due), none misordered and none whose payload was wrong
 */
static void expect_tally(struct __test_metadata *_metadata, int map, __u32 who,
			 unsigned int n)
{
	struct tally t;

	ASSERT_EQ(0, uet_bpf_map_read(map, who, &t));
	EXPECT_EQ(n, t.count) TH_LOG("map[%u]", who);
	EXPECT_EQ((__u64)n * (n - 1) / 2, t.sum) TH_LOG("map[%u]", who);
	EXPECT_EQ(n, t.next) TH_LOG("map[%u]", who);
	EXPECT_EQ(0, t.misordered) TH_LOG("map[%u]", who);
	EXPECT_EQ(0, t.bad) TH_LOG("map[%u]", who);
}

/* A tally program counting the records of tracepoint @id, through perf */
struct tallied {
	int map;
	int prog;
	int perf;
};

/*
 * Load the tally program (the BPF_ITER one when @iter) and attach it to a
 * perf event of tracepoint @id for task @pid on @cpu (uet_perf_open(),
 * @raw), enabled; fails the test when a step fails
 */
static void tally_attach(struct __test_metadata *_metadata, struct tallied *t,
			 int id, int iter, int pid, int cpu, int raw)
{
	t->map = uet_bpf_map(sizeof(struct tally), 2);
	ASSERT_LE(0, t->map);
	t->prog = iter ? tally_iter_prog(t->map) : tally_prog(t->map);
	ASSERT_LE(0, t->prog);
	t->perf = uet_perf_open(id, pid, cpu, raw);
	ASSERT_LE(0, t->perf);
	ASSERT_EQ(0, ioctl(t->perf, PERF_EVENT_IOC_SET_BPF, t->prog));
	ASSERT_EQ(0, ioctl(t->perf, PERF_EVENT_IOC_ENABLE, 0));
}

static void tally_detach(struct tallied *t)
{
	close(t->perf);
	close(t->prog);
	close(t->map);
}

/* The test fixture -------------------------------------------------------- */

FIXTURE(lost) {
	int fd;			/* user_events_data */
	struct user_status_reg reg;
	int id;			/* the tracepoint id */
	char saved_kb[32];	/* buffer_size_kb to restore */
	struct rec *recs;
	char why[512];
};

/* The size to put back: "N" or, before the buffers grew, "M (expanded: N)" */
static void save_kb(char *out, size_t size)
{
	char *text = uet_read_file(TRACEFS "buffer_size_kb"), *p;

	out[0] = '\0';
	if (!text)
		return;
	p = strstr(text, "(expanded: ");
	snprintf(out, size, "%ld", atol(p ? p + strlen("(expanded: ") : text));
	free(text);
}

FIXTURE_SETUP(lost)
{
	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF | UE_NEED_HIST))
		return;

	self->recs = calloc(2 * N_EXACT + 16, sizeof(*self->recs));
	ASSERT_NE(NULL, self->recs);
	save_kb(self->saved_kb, sizeof(self->saved_kb));
	ASSERT_NE(0, atol(self->saved_kb));
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, uet_register(self->fd, DESC, &self->reg));
	self->id = uet_tracepoint_id(EVENT);
	ASSERT_LT(0, self->id);
	ASSERT_EQ(0, uet_write_file(TRACEFS "buffer_size_kb", BIG_KB, O_TRUNC));
	ASSERT_EQ(0, uet_clear_trace());
}

FIXTURE_TEARDOWN(lost)
{
	uet_enable("", EVENT, 0);
	close(self->fd);
	self->fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(self->fd, EVENT));
	uet_delete(self->fd, ITER_EVENT);
	close(self->fd);
	uet_clear_trace();
	EXPECT_EQ(0, uet_write_file(TRACEFS "buffer_size_kb", self->saved_kb, O_TRUNC));
	free(self->recs);
}

/* Two writers, one per CPU, started together */
struct writer {
	int fd, widx;
	unsigned int who, n;
	pthread_barrier_t *go;
	int pid;		/* its thread id */
	int err;
};

static void *writer_run(void *arg)
{
	struct writer *w = arg;
	unsigned int i;

	w->pid = syscall(SYS_gettid);
	w->err = pin(w->who) ? -errno : 0;
	pthread_barrier_wait(w->go);
	for (i = 0; i < w->n && !w->err; i++)
		w->err = emit(w->fd, w->widx, i, w->who);
	return NULL;
}

/* Writers 0 and 1 on CPUs 0 and 1, @n records each; 0 or -errno */
static int two_writers(int fd, int widx, unsigned int n, struct writer *w)
{
	pthread_barrier_t go;
	pthread_t t[2];
	int i, err = 0;

	pthread_barrier_init(&go, NULL, 2);
	for (i = 0; i < 2; i++) {
		w[i] = (struct writer){ .fd = fd, .widx = widx, .who = i, .n = n, .go = &go };
		if (pthread_create(&t[i], NULL, writer_run, &w[i]))
			return -EAGAIN;
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (w[i].err)
			err = w[i].err;
	}
	pthread_barrier_destroy(&go);
	return err;
}

static int two_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* ftrace: N writes, N records in trace, as written and in order */
TEST_F_TIMEOUT(lost, ftrace_exact, 300)
{
	unsigned int i;
	char *trace;
	int n;

	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, uet_enable("", EVENT, 1));
	for (i = 0; i < N_EXACT; i++)
		ASSERT_EQ(0, emit(self->fd, self->reg.write_index, i, 0));
	ASSERT_EQ(0, uet_enable("", EVENT, 0));

	EXPECT_EQ(N_EXACT, cpu_stat(0, "entries"));
	EXPECT_EQ(0, cpu_stat(0, "overrun"));
	EXPECT_EQ(0, cpu_stat(0, "dropped events"));
	n = trace_records(self->recs, 2 * N_EXACT, self->why, sizeof(self->why));
	ASSERT_EQ(N_EXACT, n) TH_LOG("%s", n < 0 ? self->why : "records missing");
	EXPECT_EQ(0, check_run(self->recs, n, 0, 0, N_EXACT, 0, 0, self->why,
			       sizeof(self->why))) TH_LOG("%s", self->why);
	trace = uet_read_file(TRACEFS "trace");
	ASSERT_NE(NULL, trace);
	EXPECT_NE(NULL, strstr(trace, "entries-in-buffer/entries-written: 30000/30000 "))
		TH_LOG("%.200s", trace);
	free(trace);
}

/* perf: N writes, N raw samples in the ring, as written and in order */
TEST_F_TIMEOUT(lost, perf_exact, 300)
{
	struct uet_ring r = { .meta = NULL };
	__u64 counts[2];
	unsigned int i;
	long lost = 0;
	int p, n;

	/* this task, any CPU: ~60 bytes a sample, 4 MiB of ring */
	p = uet_perf_open(self->id, 0, -1, 1);
	ASSERT_LE(0, p) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, uet_ring_map(&r, p, 1024));
	for (i = 0; i < N_EXACT; i++)
		ASSERT_EQ(0, emit(self->fd, self->reg.write_index, i, 0));
	n = ring_read(&r, self->recs, 2 * N_EXACT, &lost, self->id, self->why,
		      sizeof(self->why));
	ASSERT_EQ(N_EXACT, n) TH_LOG("%s", n < 0 ? self->why : "samples missing");
	EXPECT_EQ(0, lost);
	EXPECT_EQ(0, check_run(self->recs, n, 0, 0, N_EXACT, -1, getpid(), self->why,
			       sizeof(self->why))) TH_LOG("%s", self->why);
	/* the count and PERF_FORMAT_LOST agree */
	ASSERT_EQ(sizeof(counts), read(p, counts, sizeof(counts)));
	EXPECT_EQ(N_EXACT, counts[0]);
	EXPECT_EQ(0, counts[1]);
	uet_ring_unmap(&r);
	close(p);
}

/* eBPF: the program sees N records, each as written and in order */
TEST_F_TIMEOUT(lost, bpf_exact, 300)
{
	struct tallied t;
	unsigned int i;

	tally_attach(_metadata, &t, self->id, 0, 0, -1, 1);
	for (i = 0; i < N_EXACT; i++)
		ASSERT_EQ(0, emit(self->fd, self->reg.write_index, i, 0));
	expect_tally(_metadata, t.map, 0, N_EXACT);
	tally_detach(&t);
}

/* eBPF on a BPF_ITER event: the program reads each payload where it is */
TEST_F_TIMEOUT(lost, bpf_iter_exact, 300)
{
	struct user_status_reg reg;
	struct tallied t;
	unsigned int i;

	ASSERT_EQ(0, uet_register(self->fd, ITER_DESC, &reg));
	tally_attach(_metadata, &t, uet_tracepoint_id(ITER_EVENT), 1, 0, -1, 1);
	for (i = 0; i < N_EXACT; i++)
		ASSERT_EQ(0, emit(self->fd, reg.write_index, i, 0));
	expect_tally(_metadata, t.map, 0, N_EXACT);
	tally_detach(&t);
}

/*
 * Every payload on a page that must be faulted in, ftrace, perf and eBPF
 * attached: the copies that fault are dropped and the write retried, and
 * still each consumer has each record exactly once
 */
TEST_F_TIMEOUT(lost, faulting_payloads, 300)
{
	struct uet_ring r = { .meta = NULL };
	void *page = dropped_pages();
	struct tallied t;
	unsigned int i;
	long lost = 0;
	int p, n;

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, pin(0));
	tally_attach(_metadata, &t, self->id, 0, 0, -1, 0);
	p = uet_perf_open(self->id, 0, -1, 1);
	ASSERT_LE(0, p);
	ASSERT_EQ(0, uet_ring_map(&r, p, 256));
	ASSERT_EQ(0, uet_enable("", EVENT, 1));
	for (i = 0; i < N_FAULT; i++)
		ASSERT_EQ(0, emit_dropped(page, self->fd, self->reg.write_index, i, 0))
			TH_LOG("write %u", i);
	ASSERT_EQ(0, uet_enable("", EVENT, 0));

	EXPECT_EQ(N_FAULT, cpu_stat(0, "entries"));
	n = trace_records(self->recs, 2 * N_EXACT, self->why, sizeof(self->why));
	EXPECT_EQ(N_FAULT, n) TH_LOG("%s", n < 0 ? self->why : "records missing");
	if (n > 0)
		EXPECT_EQ(0, check_run(self->recs, n, 0, 0, N_FAULT, 0, 0, self->why,
				       sizeof(self->why))) TH_LOG("ftrace: %s", self->why);
	n = ring_read(&r, self->recs, 2 * N_EXACT, &lost, self->id, self->why,
		      sizeof(self->why));
	EXPECT_EQ(N_FAULT, n) TH_LOG("%s", n < 0 ? self->why : "samples missing");
	EXPECT_EQ(0, lost);
	if (n > 0)
		EXPECT_EQ(0, check_run(self->recs, n, 0, 0, N_FAULT, -1, getpid(), self->why,
				       sizeof(self->why))) TH_LOG("perf: %s", self->why);
	expect_tally(_metadata, t.map, 0, N_FAULT);
	uet_ring_unmap(&r);
	close(p);
	tally_detach(&t);
	munmap(page, 2 * getpagesize());
}

/*
 * The same for a BPF_ITER event with ftrace attached too: its program runs
 * once per write, not once per attempt. (It runs before any copy, so a
 * retry of the write after ftrace's copy faulted must not run it again: a
 * bpftrace count() would count the write twice.) Whether it could read the
 * payload is not asserted: it may run while the page is still missing.
 */
TEST_F_TIMEOUT(lost, faulting_payloads_bpf_iter, 300)
{
	void *page = dropped_pages();
	struct user_status_reg reg;
	struct tallied b;
	struct tally t;
	unsigned int i;

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, uet_register(self->fd, ITER_DESC, &reg));
	tally_attach(_metadata, &b, uet_tracepoint_id(ITER_EVENT), 1, 0, -1, 1);
	ASSERT_EQ(0, uet_enable("", ITER_EVENT, 1));
	for (i = 0; i < N_FAULT; i++)
		ASSERT_EQ(0, emit_dropped(page, self->fd, reg.write_index, i, 0))
			TH_LOG("write %u", i);
	ASSERT_EQ(0, uet_enable("", ITER_EVENT, 0));

	EXPECT_EQ(N_FAULT, cpu_stat(0, "entries"));
	ASSERT_EQ(0, uet_bpf_map_read(b.map, 0, &t));
	TH_LOG("program: %llu records, %llu out of order, %llu unreadable",
	       (unsigned long long)t.count, (unsigned long long)t.misordered,
	       (unsigned long long)t.bad);
	EXPECT_EQ(N_FAULT, t.count + t.bad) TH_LOG("the program ran more than once a write");
	EXPECT_EQ(0, t.misordered);
	tally_detach(&b);
	munmap(page, 2 * getpagesize());
}

/*
 * Two writers on two CPUs, ftrace, perf (one ring per CPU) and eBPF at
 * once: each consumer gets every record of each writer exactly once
 */
TEST_F_TIMEOUT(lost, all_consumers_two_cpus, 300)
{
	struct uet_ring r[2] = { { .meta = NULL }, { .meta = NULL } };
	const unsigned char *page = uet_map_status();
	struct writer w[2];
	struct tallied t;
	int p[2], i, n;
	long lost;

	if (!two_cpus())
		SKIP(return, "needs two CPUs");
	tally_attach(_metadata, &t, self->id, 0, -1, 0, 0);
	for (i = 0; i < 2; i++) {
		p[i] = uet_perf_open(self->id, -1, i, 1);
		ASSERT_LE(0, p[i]) TH_LOG("perf_event_open CPU %d: %s", i, strerror(errno));
		ASSERT_EQ(0, uet_ring_map(&r[i], p[i], 1024));
	}
	ASSERT_EQ(0, uet_enable("", EVENT, 1));
	ASSERT_NE(NULL, page);
	ASSERT_EQ(EVENT_STATUS_FTRACE | EVENT_STATUS_PERF, page[self->reg.status_index]);
	munmap((void *)page, getpagesize());

	ASSERT_EQ(0, two_writers(self->fd, self->reg.write_index, N_EXACT, w));
	ASSERT_EQ(0, uet_enable("", EVENT, 0));

	/* ftrace: each CPU holds its writer's records */
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(N_EXACT, cpu_stat(i, "entries"));
		EXPECT_EQ(0, cpu_stat(i, "overrun"));
	}
	n = trace_records(self->recs, 2 * N_EXACT + 16, self->why, sizeof(self->why));
	ASSERT_EQ(2 * N_EXACT, n) TH_LOG("%s", n < 0 ? self->why : "records missing");
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, check_run(self->recs, n, i, 0, N_EXACT, i, 0, self->why,
				       sizeof(self->why))) TH_LOG("ftrace: %s", self->why);
	/* perf: the ring of each CPU holds its writer's samples */
	for (i = 0; i < 2; i++) {
		lost = 0;
		n = ring_read(&r[i], self->recs, 2 * N_EXACT, &lost, self->id, self->why,
			      sizeof(self->why));
		EXPECT_EQ(N_EXACT, n) TH_LOG("CPU %d: %s", i, n < 0 ? self->why : "missing");
		EXPECT_EQ(0, lost);
		if (n > 0)
			EXPECT_EQ(0, check_run(self->recs, n, i, 0, N_EXACT, -1, w[i].pid,
					       self->why, sizeof(self->why)))
				TH_LOG("perf CPU %d: %s", i, self->why);
		uet_ring_unmap(&r[i]);
		close(p[i]);
	}
	/* eBPF: every record of each writer, in its order */
	for (i = 0; i < 2; i++)
		expect_tally(_metadata, t.map, i, N_EXACT);
	tally_detach(&t);
}

/*
 * Records of the largest payload ftrace takes, with a hist trigger keeping
 * time stamps: all of them recorded (never dropped for want of room in a
 * sub-buffer), and sampled by perf
 */
TEST_F_TIMEOUT(lost, max_size_records, 300)
{
	struct uet_ring r = { .meta = NULL };
	char *hist, want[32];
	long lost = 0, max;
	int p, n, i;

	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/" EVENT "/trigger",
				    "hist:keys=who:ts0=common_timestamp.usecs", O_TRUNC));
	/* the trigger takes time stamps without absolute time stamp mode */
	max = uet_ftrace_max_payload("");
	ASSERT_EQ(getpagesize() - 40, max);
	p = uet_perf_open(self->id, 0, -1, 1);
	ASSERT_LE(0, p);
	ASSERT_EQ(0, uet_ring_map(&r, p, 1024));
	ASSERT_EQ(0, uet_enable("", EVENT, 1));
	for (i = 0; i < N_MAX; i++)
		ASSERT_EQ(0, emit_size(self->fd, self->reg.write_index, i, 0, max));
	/* one byte more is refused, not dropped */
	EXPECT_EQ(-E2BIG, emit_size(self->fd, self->reg.write_index, N_MAX, 0, max + 1));
	ASSERT_EQ(0, uet_enable("", EVENT, 0));

	EXPECT_EQ(N_MAX, cpu_stat(0, "entries"));
	EXPECT_EQ(0, cpu_stat(0, "overrun"));
	EXPECT_EQ(0, cpu_stat(0, "dropped events"));
	n = trace_records(self->recs, 2 * N_EXACT, self->why, sizeof(self->why));
	EXPECT_EQ(N_MAX, n) TH_LOG("%s", n < 0 ? self->why : "records missing");
	if (n > 0)
		EXPECT_EQ(0, check_run(self->recs, n, 0, 0, N_MAX, 0, 0, self->why,
				       sizeof(self->why))) TH_LOG("ftrace: %s", self->why);
	hist = uet_read_file(TRACEFS "events/user_events/" EVENT "/hist");
	ASSERT_NE(NULL, hist);
	snprintf(want, sizeof(want), "Hits: %d\n", N_MAX);
	EXPECT_NE(NULL, strstr(hist, want)) TH_LOG("%s", hist);
	free(hist);
	EXPECT_EQ(0, uet_write_file(TRACEFS "events/user_events/" EVENT "/trigger",
				    "!hist:keys=who:ts0=common_timestamp.usecs", O_TRUNC));

	n = ring_read(&r, self->recs, 2 * N_EXACT, &lost, self->id, self->why,
		      sizeof(self->why));
	EXPECT_EQ(N_MAX, n) TH_LOG("%s", n < 0 ? self->why : "samples missing");
	EXPECT_EQ(0, lost);
	uet_ring_unmap(&r);
	close(p);
}

/*
 * A ring buffer of two pages per CPU, two writers of N records: entries
 * plus overrun are N on each CPU, and what is kept is the last records
 */
TEST_F_TIMEOUT(lost, ftrace_small_buffer, 300)
{
	struct writer w[2];
	long entries[2], overrun[2], kept;
	int i, n, cpus = two_cpus() ? 2 : 1;
	char *trace, want[96];

	ASSERT_EQ(0, uet_write_file(TRACEFS "buffer_size_kb", SMALL_KB, O_TRUNC));
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, uet_enable("", EVENT, 1));
	if (cpus == 2) {
		ASSERT_EQ(0, two_writers(self->fd, self->reg.write_index, N_SMALL, w));
	} else {
		ASSERT_EQ(0, pin(0));
		for (i = 0; i < N_SMALL; i++)
			ASSERT_EQ(0, emit(self->fd, self->reg.write_index, i, 0));
	}
	ASSERT_EQ(0, uet_enable("", EVENT, 0));

	n = trace_records(self->recs, 2 * N_EXACT, self->why, sizeof(self->why));
	ASSERT_LE(0, n) TH_LOG("%s", self->why);
	kept = 0;
	for (i = 0; i < cpus; i++) {
		entries[i] = cpu_stat(i, "entries");
		overrun[i] = cpu_stat(i, "overrun");
		EXPECT_EQ(N_SMALL, entries[i] + overrun[i])
			TH_LOG("CPU %d: entries %ld + overrun %ld", i, entries[i], overrun[i]);
		EXPECT_LT(0, overrun[i]);
		EXPECT_LT(0, entries[i]);
		EXPECT_EQ(0, cpu_stat(i, "dropped events"));
		EXPECT_EQ(0, cpu_stat(i, "commit overrun"));
		/* the oldest were overwritten: the last entries remain */
		EXPECT_EQ(0, check_run(self->recs, n, i, N_SMALL - entries[i], N_SMALL, i, 0,
				       self->why, sizeof(self->why))) TH_LOG("%s", self->why);
		kept += entries[i];
		TH_LOG("CPU %d: %ld entries kept, %ld overwritten", i, entries[i], overrun[i]);
	}
	EXPECT_EQ(kept, n);
	trace = uet_read_file(TRACEFS "trace");
	ASSERT_NE(NULL, trace);
	snprintf(want, sizeof(want), "entries-in-buffer/entries-written: %ld/%d ", kept,
		 cpus * N_SMALL);
	EXPECT_NE(NULL, strstr(trace, want)) TH_LOG("%.200s", trace);
	free(trace);
}

/*
 * A perf ring of one page: the samples that fit are the first ones, and
 * PERF_RECORD_LOST (emitted once there is room again) and PERF_FORMAT_LOST
 * count all the others
 */
TEST_F_TIMEOUT(lost, perf_small_ring, 300)
{
	struct uet_ring r = { .meta = NULL };
	__u64 counts[2];
	long lost = 0, lost2 = 0;
	unsigned int i;
	int p, n, n2;

	p = uet_perf_open(self->id, 0, -1, 1);
	ASSERT_LE(0, p);
	ASSERT_EQ(0, uet_ring_map(&r, p, 1));
	for (i = 0; i < N_SMALL; i++)
		ASSERT_EQ(0, emit(self->fd, self->reg.write_index, i, 0));
	n = ring_read(&r, self->recs, 2 * N_EXACT, &lost, self->id, self->why,
		      sizeof(self->why));
	ASSERT_LT(0, n) TH_LOG("%s", n < 0 ? self->why : "no sample");
	EXPECT_GT(N_SMALL, n);
	EXPECT_EQ(0, check_run(self->recs, n, 0, 0, n, -1, getpid(), self->why,
			       sizeof(self->why))) TH_LOG("%s", self->why);
	ASSERT_EQ(sizeof(counts), read(p, counts, sizeof(counts)));
	EXPECT_EQ(N_SMALL, counts[0]);
	EXPECT_EQ(N_SMALL, n + counts[1])
		TH_LOG("%d samples, PERF_FORMAT_LOST %llu", n, (unsigned long long)counts[1]);

	/* room again: the next write brings the lost record, then its sample */
	ASSERT_EQ(0, emit(self->fd, self->reg.write_index, N_SMALL, 0));
	n2 = ring_read(&r, self->recs, 2 * N_EXACT, &lost2, self->id, self->why,
		       sizeof(self->why));
	ASSERT_EQ(1, n2) TH_LOG("%s", n2 < 0 ? self->why : "not one sample");
	EXPECT_EQ(N_SMALL, self->recs[0].seq);
	EXPECT_EQ(N_SMALL, n + lost + lost2)
		TH_LOG("%d samples, %ld + %ld lost", n, lost, lost2);
	TH_LOG("%d samples kept, %ld lost", n, lost + lost2);
	uet_ring_unmap(&r);
	close(p);
}

/*
 * The everyday workflow with an event deleted automatically: a program
 * registers through the enable-bit ABI (no PERSIST), the admin enables the
 * event, the program writes five records and exits, the admin disables the
 * event and reads the buffer. The records stay, decoded, and so do the
 * kernel's (trace_marker lines written before the disable and between the
 * exit and the disable): an event that recorded into a buffer is not
 * deleted behind the user's back, which would clear that buffer. It stays
 * listed and registrable (the same fields: the same event), its records
 * decoded in trace_pipe too, until deleted on purpose, which retires it
 * while a buffer holds them. One that recorded nothing still goes, and
 * clears nothing. Top level and instance.
 */
#define KEEP_INST TRACEFS "instances/lost_keep"

static void keep_workflow(struct __test_metadata *_metadata, const char *inst,
			  const char *dir, int write_records)
{
	char path[256], trace[256], marker[256], line[64];
	int ready[2], go[2], status, i, fd;
	const char *name = write_records ? "lost_keep" : "lost_idle";
	char c = 0;
	pid_t pid;

	snprintf(trace, sizeof(trace), "%strace", dir);
	snprintf(marker, sizeof(marker), "%strace_marker", dir);
	ASSERT_EQ(0, uet_write_file(trace, "", O_TRUNC));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		static __u32 word;
		__u32 rec[2], widx = 0;
		int dfd = open(UE_DATA, O_RDWR), k;
		char desc[64];

		snprintf(desc, sizeof(desc), "%s u32 seq", name);
		if (dfd < 0 || uet_register_bits(dfd, desc, &word, 4, 0, 0, &widx))
			_exit(2);
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		if (!(__atomic_load_n(&word, __ATOMIC_RELAXED) & 1))
			_exit(4);
		rec[0] = widx;
		for (k = 0; k < 5 && write_records; k++) {
			rec[1] = 100 + k;
			if (write(dfd, rec, sizeof(rec)) != sizeof(rec))
				_exit(5);
		}
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, uet_enable(inst, name, 1));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(0, uet_write_file(marker, "lost_keep marker before exit", O_APPEND));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, uet_write_file(marker, "lost_keep marker after exit", O_APPEND));
	/* the program is gone: the disable drops the last reference */
	ASSERT_EQ(0, uet_enable(inst, name, 0));
	snprintf(path, sizeof(path), TRACEFS "events/user_events/%s", name);
	if (write_records) {
		/* the reap runs from a worker: give it time (scaled) to (wrongly) act */
		ue_sleep_ms(300);
		EXPECT_EQ(0, access(path, F_OK));
		for (i = 0; i < 5; i++) {
			snprintf(line, sizeof(line), "lost_keep: seq=%d", 100 + i);
			EXPECT_EQ(1, uet_count_in(trace, line)) TH_LOG("%s in %s", line, trace);
		}
	} else {
		EXPECT_TRUE(ue_wait_for(UE_WAIT_MS, access(path, F_OK),
					"%s to go (its writer exited, its consumer detached)",
					path));
	}
	EXPECT_EQ(1, uet_count_in(trace, "lost_keep marker before exit"));
	EXPECT_EQ(1, uet_count_in(trace, "lost_keep marker after exit"));
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	if (write_records) {
		static __u32 word2;
		char *pipe_text, retired[512];
		int id = uet_event_id("user_events", name);

		/* listed, and registrable: the same fields, the same event */
		EXPECT_EQ(1, uet_count_in(UE_DYN, "u:lost_keep u32 seq\n"));
		fd = open(UE_DATA, O_RDWR);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, uet_register_bits(fd, "lost_keep u32 seq", &word2, 4, 0, 0, NULL));
		EXPECT_EQ(0, uet_unregister_bits(fd, &word2, 0));
		close(fd);
		EXPECT_EQ(id, uet_event_id("user_events", name));
		/* decoded in trace_pipe: read at the top, after the delete in the instance */
		snprintf(line, sizeof(line), "%strace_pipe", dir);
		pipe_text = NULL;
		if (!inst[0])
			pipe_text = uet_read_fd(open(line, O_RDONLY | O_NONBLOCK));
		/* deleted on purpose: it goes, as any event whose deletion is asked */
		fd = open(UE_DATA, O_RDWR);
		EXPECT_EQ(0, uet_delete(fd, name));
		close(fd);
		EXPECT_NE(0, access(path, F_OK));
		/* retired: a buffer it recorded into may hold its records */
		uet_retired_dir(inst, "user_events", name, id, retired, sizeof(retired));
		EXPECT_EQ(0, access(retired, F_OK)) TH_LOG("%s", retired);
		if (inst[0])
			pipe_text = uet_read_fd(open(line, O_RDONLY | O_NONBLOCK));
		ASSERT_NE(NULL, pipe_text);
		for (i = 0; i < 5; i++) {
			snprintf(line, sizeof(line), "lost_keep: seq=%d\n", 100 + i);
			EXPECT_NE(NULL, strstr(pipe_text, line)) TH_LOG("no %s", line);
		}
		free(pipe_text);
	}
}

TEST(auto_delete_keeps_records)
{
	if (uet_skip(_metadata, 0))
		return;
	keep_workflow(_metadata, "", TRACEFS, 1);
	keep_workflow(_metadata, "", TRACEFS, 0);
	rmdir(KEEP_INST);
	ASSERT_EQ(0, mkdir(KEEP_INST, 0755));
	keep_workflow(_metadata, "instances/lost_keep/", KEEP_INST "/", 1);
	keep_workflow(_metadata, "instances/lost_keep/", KEEP_INST "/", 0);
	EXPECT_EQ(0, rmdir(KEEP_INST));
}

UE_HARNESS_MAIN
