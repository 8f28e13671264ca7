// SPDX-License-Identifier: GPL-2.0
/*
 * batch_test: many records in one write to a batch fd (DIAG_IOCSBATCH),
 * every write of which is records and nothing else. Each record must
 * reach every consumer as a write of it alone would (ftrace and its
 * instances, filters, perf, eBPF with either context), in order, for both
 * ABIs and a group's file, through write() and writev(), at any alignment;
 * each record is checked as that write would be, listened to or not; a
 * bad record ends the batch with the ones before it recorded and their
 * bytes returned, or its errno when it is the first, so that a write-all
 * loop that writes the rest again gets that errno and records nothing it
 * did not name; a missing page is faulted in and the record tried again; a
 * batch past USER_EVENTS_BATCH_MAX is EMSGSIZE. The batch fd is a file of
 * its own: write-only, close-on-exec, no ioctl, and it keeps the data fd's
 * events while it is open.
 *
 * Built twice: batch32_test is the same program as a 32-bit process
 * (-m32), whose batches must be the same bytes and give the same records
 * (all but run_yields_cpu, a test of the scheduler's turn).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"
#include "ue_bpf.h"
#include "ue_bpf_seen.h"

/*
 * The old ABI's batch marker, a write's first word on user_events_data:
 * now a write index like any other, and a negative one (EINVAL)
 */
#define OLD_BATCH_MARKER 0xba7c4e5fU

/* A batch being built: [size][index][payload] records, back to back */
struct bat {
	unsigned char *buf;
	size_t len, cap;
	size_t rec_start[64];	/* where each record (its size) starts */
	int nr;
};

static void bat_init(struct bat *b, size_t cap)
{
	b->buf = malloc(cap);
	b->cap = cap;
	b->len = 0;
	b->nr = 0;
}

/* A record of write index @idx and @plen payload bytes; where its payload is */
static unsigned char *bat_add(struct bat *b, __u32 idx, const void *payload,
			      __u32 plen)
{
	__u32 size = sizeof(idx) + plen;
	unsigned char *p = b->buf + b->len;

	if (b->len + 4 + size > b->cap)
		abort();
	if (b->nr < (int)ARRAY_SIZE(b->rec_start))
		b->rec_start[b->nr] = b->len;
	b->nr++;
	memcpy(p, &size, 4);
	memcpy(p + 4, &idx, 4);
	if (payload)
		memcpy(p + 8, payload, plen);
	b->len += 4 + size;
	return p + 8;
}

static void bat_add_u32(struct bat *b, __u32 idx, __u32 v)
{
	bat_add(b, idx, &v, sizeof(v));
}

static void bat_add_2u32(struct bat *b, __u32 idx, __u32 v, __u32 w)
{
	__u32 p[2] = { v, w };

	bat_add(b, idx, p, sizeof(p));
}

/* @b in one write() to the batch fd @bfd */
static ssize_t bat_write(int bfd, const struct bat *b)
{
	return write(bfd, b->buf, b->len);
}

/*
 * Whether trace holds each of @needles once, in this order, and their time
 * stamps do not go back; @n of them
 */
static int trace_in_order(const char *const *needles, int n)
{
	char *trace = uet_read_file(TRACEFS "trace"), *p = trace, *hit, *ts;
	double last = 0, t;
	int i, ok = !!trace;

	for (i = 0; ok && i < n; i++) {
		hit = strstr(p, needles[i]);
		if (!hit || strstr(hit + 1, needles[i])) {
			ok = 0;
			break;
		}
		/* "... [cpu] flags  12.345678: name: ..." */
		for (ts = hit; ts > trace && ts[-1] != ':'; ts--)
			;
		if (ts > trace)
			ts--;
		while (ts > trace && ts[-1] != ' ')
			ts--;
		t = atof(ts);
		if (t < last)
			ok = 0;
		last = t;
		p = hit + strlen(needles[i]);
	}
	free(trace);
	return ok;
}

/* the fixture's events, then those some tests register */
#define NR_EVENTS 7
static const char *const names[NR_EVENTS] = {
	"bt_a", "bt_b", "bt_loc", "bt_bits", "bt_x", "bt_nf", "bt_held",
};

FIXTURE(batch) {
	int fd;				/* user_events_data */
	int bfd;			/* its batch fd */
	const unsigned char *page;	/* the status page */
	struct user_status_reg a, b, loc;	/* status-page ABI */
	__u32 bits_idx;			/* bt_bits: the enable-bit ABI */
	__u32 word;			/* its enable word, bit 0 */
};

FIXTURE_SETUP(batch)
{
	if (uet_skip(_metadata, 0))
		return;
	self->page = uet_map_status();
	ASSERT_TRUE(!!self->page);
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, uet_register(self->fd, "bt_a u32 a", &self->a));
	ASSERT_EQ(0, uet_register(self->fd, "bt_b u32 b; u32 c", &self->b));
	ASSERT_EQ(0, uet_register(self->fd, "bt_loc u32 n; __data_loc char[] s",
				  &self->loc));
	self->word = 0;
	ASSERT_EQ(0, uet_register_bits(self->fd, "bt_bits u32 v", &self->word, 4,
				       0, 0, &self->bits_idx));
	/* in batch32_test, through the compat ioctl */
	self->bfd = ioctl(self->fd, DIAG_IOCSBATCH, 0);
	ASSERT_LE(0, self->bfd);
}

FIXTURE_TEARDOWN(batch)
{
	int i;

	if (!self->page)
		return;
	for (i = 0; i < NR_EVENTS; i++) {
		char path[256];

		uet_enable("", names[i], 0);
		snprintf(path, sizeof(path), TRACEFS "events/user_events/%s/filter",
			 names[i]);
		uet_write_file(path, "0", O_TRUNC);
	}
	uet_unregister_bits(self->fd, &self->word, 0);
	/* the batch fd holds the data fd's events: closed first */
	if (self->bfd >= 0)
		close(self->bfd);
	close(self->fd);
	uet_clear_trace();
	self->fd = open(UE_DATA, O_RDWR);
	for (i = 0; i < NR_EVENTS; i++)
		uet_delete(self->fd, names[i]);
	close(self->fd);
	munmap((void *)self->page, getpagesize());
}

/*
 * Records of two events through write(): each a line of its own, in order,
 * each with its own time stamp, taken when the batch is written (between
 * a trace_marker line written after the batch was filled and one after
 * the write), not when the record was added
 */
TEST_F(batch, records_in_order)
{
	static const char *const want[] = {
		"tracing_mark_write: bt-filled\n", "bt_a: a=1\n", "bt_b: b=2 c=3\n", "bt_a: a=4\n",
		"bt_b: b=5 c=6\n", "tracing_mark_write: bt-written\n",
	};
	struct bat b;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, uet_enable("", "bt_b", 1));
	bat_init(&b, 4096);
	bat_add_u32(&b, self->a.write_index, 1);
	bat_add_2u32(&b, self->b.write_index, 2, 3);
	bat_add_u32(&b, self->a.write_index, 4);
	bat_add_2u32(&b, self->b.write_index, 5, 6);
	ASSERT_EQ(0, uet_write_file(TRACEFS "trace_marker", "bt-filled", O_WRONLY));
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	ASSERT_EQ(0, uet_write_file(TRACEFS "trace_marker", "bt-written", O_WRONLY));
	EXPECT_EQ(2, uet_trace_count("bt_a: "));
	EXPECT_EQ(2, uet_trace_count("bt_b: "));
	EXPECT_TRUE(trace_in_order(want, 6));
	/* a write of no bytes: an empty batch, 0, nothing recorded */
	EXPECT_EQ(0, write(self->bfd, b.buf, 0));
	EXPECT_EQ(4, uet_trace_count("bt_"));
	free(b.buf);
}

/*
 * The latency flags of each "bt_a: a=" record of the trace, in order, and
 * its value: how many, at most @max
 */
static int trace_flags_of(char flags[][8], int *vals, int max)
{
	char *trace = uet_read_file(TRACEFS "trace"), *line, *save, *f;
	int n = 0;

	if (!trace)
		return -1;
	for (line = strtok_r(trace, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !strstr(line, " bt_a: a="))
			continue;
		f = strstr(line, "] ");
		if (!f || sscanf(f + 2, "%7s", flags[n]) != 1 ||
		    sscanf(strstr(line, " bt_a: a=") + 9, "%d", &vals[n]) != 1)
			break;
		n++;
	}
	free(trace);
	return n;
}

/*
 * 100 records of 1 KiB in one write(), in one run of records (see the
 * rst) or more: each recorded once, in order, with the latency flags
 * (irqs, preempt depth) a lone write's record has.
 */
TEST_F(batch, runs_of_records)
{
	static char flags[101][8];
	static int vals[101];
	__u32 lone[2] = { 0, 1000 };
	unsigned char *pl;
	struct bat b;
	int i, n;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	bat_init(&b, 110 * 1024);
	for (i = 0; i < 100; i++) {
		pl = bat_add(&b, self->a.write_index, NULL, 1024);
		memset(pl, 0, 1024);
		memcpy(pl, &i, 4);
	}
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	/* a lone write's record last, to the data fd */
	lone[0] = self->a.write_index;
	ASSERT_EQ(sizeof(lone), write(self->fd, lone, sizeof(lone)));
	n = trace_flags_of(flags, vals, 101);
	ASSERT_EQ(101, n);
	for (i = 0; i < 100; i++) {
		EXPECT_EQ(i, vals[i]);
		/* need-resched may differ: irqs-off, hardirq/softirq, depths */
		EXPECT_EQ(flags[100][0], flags[i][0])
			TH_LOG("record %d: %s, a write's %s", i, flags[i], flags[100]);
		EXPECT_STREQ(flags[100] + 2, flags[i] + 2)
			TH_LOG("record %d: %s, a write's %s", i, flags[i], flags[100]);
	}
	EXPECT_EQ(1000, vals[100]);
	free(b.buf);
}

/*
 * Not in batch32_test: the test kernel has no COMPAT_32BIT_TIME, which a
 * 32-bit glibc's thread calls need, and the test is of the scheduler's
 * turn, not of a batch's bytes
 */
#if __SIZEOF_LONG__ == 8
/*
 * Until *@arg: sleep a millisecond, then a trace_marker line (which fails
 * with EBADF while the trace is being cleared: tried again)
 */
static void *fifo_marker(void *arg)
{
	const int *stop = arg;
	struct timespec ms = { 0, 1000000 };
	int fd = open(TRACEFS "trace_marker", O_WRONLY);

	while (fd >= 0 && !__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		nanosleep(&ms, NULL);
		if (write(fd, "fifo-mid", 8) != 8 && errno != EBADF)
			break;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * A long batch lets a task that wants the CPU in between its records (a
 * run ends where the scheduler wants the CPU, see the rst): a SCHED_FIFO
 * thread on the writer's CPU, woken by its timer, writes trace_marker
 * lines, and one lands between the batch's first and last records, which
 * are each recorded once. The batch is written again until one does: how
 * many ticks a batch spans is the machine's speed, so only the wait is
 * bounded (60 s times the factor), which a kernel that never lets the
 * thread in runs out.
 */
TEST_F(batch, run_yields_cpu)
{
	struct sched_param fifo = { .sched_priority = 1 };
	char *trace, *first, *last, *mid, want[32];
	int nr = 20000, i, tries = 0, inside = 0;
	struct ue_wait wait;
	pthread_attr_t attr;
	int stop = 0;
	pthread_t marker;
	cpu_set_t cpu0;
	struct bat b;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu0), &cpu0));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setaffinity_np(&attr, sizeof(cpu0), &cpu0));
	ASSERT_EQ(0, pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED));
	ASSERT_EQ(0, pthread_attr_setschedpolicy(&attr, SCHED_FIFO));
	ASSERT_EQ(0, pthread_attr_setschedparam(&attr, &fifo));
	bat_init(&b, nr * 12);
	for (i = 0; i < nr; i++)
		bat_add_u32(&b, self->a.write_index, i);
	snprintf(want, sizeof(want), "bt_a: a=%d\n", nr - 1);
	ASSERT_EQ(0, pthread_create(&marker, &attr, fifo_marker, &stop));
	ue_wait_start(&wait, 60000);
	do {
		tries++;
		ASSERT_EQ(0, uet_clear_trace());
		EXPECT_EQ(b.len, bat_write(self->bfd, &b));
		trace = uet_read_file(TRACEFS "trace");
		ASSERT_TRUE(!!trace);
		first = strstr(trace, "bt_a: a=0\n");
		last = strstr(trace, want);
		EXPECT_TRUE(first && last && first < last);
		mid = first ? strstr(first, "fifo-mid") : NULL;
		inside = mid && last && mid < last;
		free(trace);
		EXPECT_EQ(nr, uet_trace_count("bt_a: "));
	} while (!inside && !ue_wait_over(&wait));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(marker, NULL);
	if (!inside)
		ue_wait_expired(&wait, "a trace_marker line amid one of %d batches",
				tries);
	EXPECT_TRUE(inside);
	free(b.buf);
}
#endif

/*
 * The same batch through writev() cut at every few bytes, and with each
 * record in iovecs of its own: the same records
 */
TEST_F(batch, writev_any_cut)
{
	static const char *const want[] = {
		"bt_a: a=7\n", "bt_b: b=8 c=9\n", "bt_a: a=10\n",
	};
	struct iovec iov[64];
	struct bat b;
	size_t off;
	int n, cut;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, uet_enable("", "bt_b", 1));
	bat_init(&b, 4096);
	bat_add_u32(&b, self->a.write_index, 7);
	bat_add_2u32(&b, self->b.write_index, 8, 9);
	bat_add_u32(&b, self->a.write_index, 10);
	for (cut = 1; cut <= 7; cut += 2) {
		ASSERT_EQ(0, uet_clear_trace());
		for (n = 0, off = 0; off < b.len; n++, off += cut) {
			iov[n].iov_base = b.buf + off;
			iov[n].iov_len = off + cut > b.len ? b.len - off : cut;
		}
		EXPECT_EQ(b.len, writev(self->bfd, iov, n)) TH_LOG("cut %d", cut);
		EXPECT_TRUE(trace_in_order(want, 3)) TH_LOG("cut %d", cut);
		EXPECT_EQ(3, uet_trace_count("bt_")) TH_LOG("cut %d", cut);
	}
	/* one segment: the same as write() */
	ASSERT_EQ(0, uet_clear_trace());
	iov[0].iov_base = b.buf;
	iov[0].iov_len = b.len;
	EXPECT_EQ(b.len, writev(self->bfd, iov, 1));
	EXPECT_TRUE(trace_in_order(want, 3));
	free(b.buf);
}

/*
 * Both ABIs in one batch; a record of an event nobody listens to is
 * skipped, for either ABI, while a write of it alone keeps its meaning
 * (EBADF for the enable-bit ABI, nothing for the status page)
 */
TEST_F(batch, both_abis_and_disabled)
{
	static const char *const want[] = {
		"bt_bits: v=11\n", "bt_a: a=12\n", "bt_bits: v=14\n",
	};
	__u32 lone[2];
	struct bat b;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, uet_enable("", "bt_bits", 1));
	ASSERT_EQ(1, self->word);
	bat_init(&b, 4096);
	bat_add_u32(&b, self->bits_idx, 11);
	bat_add_u32(&b, self->a.write_index, 12);
	bat_add_2u32(&b, self->b.write_index, 13, 13);	/* bt_b: not enabled */
	bat_add_u32(&b, self->bits_idx, 14);
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	EXPECT_TRUE(trace_in_order(want, 3));
	EXPECT_EQ(0, uet_trace_count("bt_b: "));

	/* nobody on the enable-bit event: skipped in a batch */
	ASSERT_EQ(0, uet_enable("", "bt_bits", 0));
	ASSERT_EQ(0, self->word);
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=12\n"));
	EXPECT_EQ(0, uet_trace_count("bt_bits"));
	/* alone, to the data fd: EBADF, as before batches */
	lone[0] = self->bits_idx;
	lone[1] = 15;
	EXPECT_EQ(-1, write(self->fd, lone, sizeof(lone)));
	EXPECT_EQ(EBADF, errno);
	lone[0] = self->b.write_index;
	EXPECT_EQ(-1, write(self->fd, lone, sizeof(lone)));
	EXPECT_EQ(EINVAL, errno);	/* bt_b needs 8 payload bytes */
	/* the status bytes and the bit did not move */
	EXPECT_EQ(EVENT_STATUS_FTRACE, self->page[self->a.status_index]);
	EXPECT_EQ(0, self->page[self->b.status_index]);
	EXPECT_EQ(0, self->word);
	free(b.buf);
}

/*
 * Bad records: a size past the bytes given, a size below the index's, a
 * head cut short, an unknown or negative index, the old ABI's marker as an
 * index (a negative one), too few payload bytes. First in the batch: its
 * errno, nothing recorded. After a good record: the good one's bytes, it
 * alone recorded.
 */
TEST_F(batch, bad_records)
{
	struct bad {
		const char *what;
		int err;
	} bad[] = {
		{ "size past the end (last)", EINVAL },
		{ "size below 4", EINVAL },
		{ "head cut short (last)", EINVAL },
		{ "unknown index", ENOENT },
		{ "negative index", EINVAL },
		{ "old marker as index", EINVAL },
		{ "payload too short", EINVAL },
	};
	size_t good, i;
	__u32 v = 99;
	struct bat b;
	int first;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, uet_enable("", "bt_b", 1));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		for (first = 1; first >= 0; first--) {
			ASSERT_EQ(0, uet_clear_trace());
			bat_init(&b, 4096);
			if (!first)
				bat_add_u32(&b, self->a.write_index, 20);
			good = b.len;
			switch (i) {
			case 0:
				bat_add_u32(&b, self->a.write_index, 21);
				b.len--;
				break;
			case 1: {
				__u32 size = 3;

				memcpy(b.buf + b.len, &size, 4);
				memcpy(b.buf + b.len + 4, &v, 4);
				b.len += 8;
				break;
			}
			case 2:
				memcpy(b.buf + b.len, &v, 4);
				b.len += 6;
				break;
			case 3:
				bat_add_u32(&b, 1000, 21);
				break;
			case 4:
				bat_add_u32(&b, -2, 21);
				break;
			case 5:
				bat_add_u32(&b, OLD_BATCH_MARKER, 21);
				break;
			case 6:
				bat_add_u32(&b, self->b.write_index, 21);
				break;
			}
			/* a good record after the bad one is never reached */
			if (i != 0 && i != 2)
				bat_add_u32(&b, self->a.write_index, 22);
			if (first) {
				EXPECT_EQ(-1, bat_write(self->bfd, &b)) TH_LOG("%s", bad[i].what);
				EXPECT_EQ(bad[i].err, errno) TH_LOG("%s", bad[i].what);
				EXPECT_EQ(0, uet_trace_count("bt_")) TH_LOG("%s", bad[i].what);
			} else {
				EXPECT_EQ(good, bat_write(self->bfd, &b)) TH_LOG("%s", bad[i].what);
				EXPECT_EQ(1, uet_trace_count("bt_a: a=20\n"))
					TH_LOG("%s", bad[i].what);
				EXPECT_EQ(1, uet_trace_count("bt_")) TH_LOG("%s", bad[i].what);
			}
			free(b.buf);
		}
	}
	/* fewer than 8 bytes after a good record: a head cut short too */
	bat_init(&b, 4096);
	bat_add_u32(&b, self->a.write_index, 23);
	good = b.len;
	memset(b.buf + b.len, 0, 7);
	for (i = 1; i <= 7; i++) {
		b.len = good + i;
		EXPECT_EQ(good, bat_write(self->bfd, &b)) TH_LOG("%zu bytes over", i);
	}
	free(b.buf);
}

/* A bad __data_loc ends the batch as it fails a write alone: EFAULT */
TEST_F(batch, bad_data_loc)
{
	struct { __u32 n, loc; char s[4]; } good = { 1, 16 | 4 << 16, "abc" },
		bad = { 2, 16 | 5 << 16, "abc" };	/* past the record */
	struct bat b;

	ASSERT_EQ(0, uet_enable("", "bt_loc", 1));
	bat_init(&b, 4096);
	bat_add(&b, self->loc.write_index, &good, sizeof(good));
	bat_add(&b, self->loc.write_index, &bad, sizeof(bad));
	bat_add(&b, self->loc.write_index, &good, sizeof(good));
	EXPECT_EQ(8 + sizeof(good), bat_write(self->bfd, &b));
	EXPECT_EQ(1, uet_trace_count("bt_loc: n=1 s=abc\n"));
	EXPECT_EQ(0, uet_trace_count("n=2"));
	/* first: the errno, nothing recorded */
	free(b.buf);
	ASSERT_EQ(0, uet_clear_trace());
	bat_init(&b, 4096);
	bat_add(&b, self->loc.write_index, &bad, sizeof(bad));
	bat_add(&b, self->loc.write_index, &good, sizeof(good));
	EXPECT_EQ(-1, bat_write(self->bfd, &b));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, uet_trace_count("bt_loc"));
	free(b.buf);
}

/*
 * A record larger than an attached consumer records (the ftrace sub-buffer)
 * is E2BIG as a write alone: the records before it are recorded
 */
TEST_F(batch, record_over_consumer_limit)
{
	long max = uet_ftrace_max_payload("");
	unsigned char *pl;
	struct bat b;

	ASSERT_LT(0, max);
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	bat_init(&b, 3 * max + 64);
	bat_add_u32(&b, self->a.write_index, 30);
	pl = bat_add(&b, self->a.write_index, NULL, max);
	memset(pl, 0, max);
	pl = bat_add(&b, self->a.write_index, NULL, max + 1);
	memset(pl, 0, max + 1);
	bat_add_u32(&b, self->a.write_index, 31);
	/* the largest fits, the one past it stops the batch */
	EXPECT_EQ(b.rec_start[2], bat_write(self->bfd, &b));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=30\n"));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=0\n"));
	EXPECT_EQ(0, uet_trace_count("bt_a: a=31\n"));
	/* first in the batch: E2BIG */
	EXPECT_EQ(-1, write(self->bfd, b.buf + b.rec_start[2],
			    b.len - b.rec_start[2]));
	EXPECT_EQ(E2BIG, errno);
	/* nobody listening: the size is not a consumer's business */
	ASSERT_EQ(0, uet_enable("", "bt_a", 0));
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	free(b.buf);
}

/*
 * USER_EVENTS_BATCH_MAX bytes are taken, one more is EMSGSIZE before any
 * record is read
 */
TEST_F(batch, size_limit)
{
	size_t rest, plen;
	struct bat b;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	bat_init(&b, USER_EVENTS_BATCH_MAX + 16);
	bat_add_u32(&b, self->a.write_index, 40);
	/* filled to the limit with records of a disabled event */
	while ((rest = USER_EVENTS_BATCH_MAX - b.len) > 0) {
		plen = rest - 8 > 60000 ? 60000 : rest - 8;
		memset(bat_add(&b, self->b.write_index, NULL, plen), 0, plen);
	}
	ASSERT_EQ(USER_EVENTS_BATCH_MAX, b.len);
	EXPECT_EQ(USER_EVENTS_BATCH_MAX, bat_write(self->bfd, &b));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=40\n"));
	b.buf[b.len] = 0;
	b.len++;
	EXPECT_EQ(-1, bat_write(self->bfd, &b));
	EXPECT_EQ(EMSGSIZE, errno);
	/* nothing of it recorded */
	EXPECT_EQ(1, uet_trace_count("bt_a: a=40\n"));
	free(b.buf);
}

/* Record @i of bt_a at @off of @buf, of value @v; the offset past it */
static size_t put_u32_rec(unsigned char *buf, size_t off, __u32 idx, __u32 v)
{
	__u32 size = 8;

	memcpy(buf + off, &size, 4);
	memcpy(buf + off + 4, &idx, 4);
	memcpy(buf + off + 8, &v, 4);
	return off + 12;
}

/* @n records of @idx at @off, of values @v, @v + 1, ...; the offset past */
static size_t put_u32_recs(unsigned char *buf, size_t off, __u32 idx, __u32 v,
			   int n)
{
	while (n--)
		off = put_u32_rec(buf, off, idx, v++);
	return off;
}

/* A record of @idx at @off whose payload ends at @end (zeroes are left) */
static size_t put_rec_to(unsigned char *buf, size_t off, __u32 idx, size_t end)
{
	__u32 size = end - off - 4;

	memcpy(buf + off, &size, 4);
	memcpy(buf + off + 4, &idx, 4);
	return end;
}

/* How many of bt_a's values @v, @v + 1, ... (@n of them) trace has once */
static int u32_recs_once(__u32 v, int n)
{
	char want[32];
	int once = 0;

	while (n--) {
		snprintf(want, sizeof(want), "bt_a: a=%u\n", v++);
		once += uet_trace_count(want) == 1;
	}
	return once;
}

/*
 * @pages pages of a memfd, mapped shared: a page dropped with
 * MADV_DONTNEED is not present and keeps its bytes. The memfd in *@mfd;
 * NULL on an error.
 */
static unsigned char *shared_pages(int *mfd, int pages)
{
	long page = getpagesize();
	void *buf;

	*mfd = memfd_create("bt", 0);
	if (*mfd < 0 || ftruncate(*mfd, pages * page))
		return NULL;
	buf = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_SHARED,
		   *mfd, 0);
	return buf == MAP_FAILED ? NULL : buf;
}

/*
 * A page of payload not present is faulted in and the record tried again:
 * every record once. A page that cannot be read ends the batch there, the
 * records before it recorded, the bytes up to it returned.
 */
TEST_F(batch, fault_mid_batch)
{
	long page = getpagesize();
	unsigned char *buf;
	size_t off, head6;
	int mfd;

	buf = shared_pages(&mfd, 3);
	ASSERT_TRUE(!!buf);
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	off = put_u32_recs(buf, 0, self->a.write_index, 100, 5);
	/* a record of bt_b (nobody listens) up to 8 bytes before page 1 */
	off = put_rec_to(buf, off, self->b.write_index, page - 8);
	/* its head the last 8 bytes of page 0, its payload on page 1 */
	head6 = off;
	off = put_u32_rec(buf, off, self->a.write_index, 150);
	off = put_u32_recs(buf, off, self->a.write_index, 200, 5);

	ASSERT_EQ(0, madvise(buf + page, page, MADV_DONTNEED));
	ASSERT_EQ(off, write(self->bfd, buf, off));
	EXPECT_EQ(5, u32_recs_once(100, 5));
	EXPECT_EQ(5, u32_recs_once(200, 5));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=150\n"));
	EXPECT_EQ(11, uet_trace_count("bt_a: "));

	/* page 1 unreadable: the batch ends at the record whose payload it holds */
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, mprotect(buf + page, page, PROT_NONE));
	EXPECT_EQ(head6, write(self->bfd, buf, off));
	EXPECT_EQ(5, uet_trace_count("bt_a: "));
	EXPECT_EQ(0, uet_trace_count("bt_a: a=150\n"));
	/* from that record on: EFAULT */
	EXPECT_EQ(-1, write(self->bfd, buf + head6, off - head6));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(5, uet_trace_count("bt_a: "));
	munmap(buf, 3 * page);
	close(mfd);
}

/*
 * A record whose head starts a page that is not present: the kernel reads
 * the heads with page faults off (its runs of records, see the rst), so
 * the head's page is faulted in and the batch goes on from that record,
 * every record once. A head on a page that cannot be read ends the batch
 * there: the bytes before it returned, its records recorded.
 */
TEST_F(batch, fault_at_head)
{
	long page = getpagesize();
	unsigned char *buf;
	size_t off;
	int mfd;

	buf = shared_pages(&mfd, 2);
	ASSERT_TRUE(!!buf);
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	off = put_u32_recs(buf, 0, self->a.write_index, 300, 5);
	/* a record of bt_b (nobody listens) up to the end of page 0 */
	off = put_rec_to(buf, off, self->b.write_index, page);
	off = put_u32_recs(buf, off, self->a.write_index, 400, 5);

	ASSERT_EQ(0, madvise(buf + page, page, MADV_DONTNEED));
	ASSERT_EQ(off, write(self->bfd, buf, off));
	EXPECT_EQ(5, u32_recs_once(300, 5));
	EXPECT_EQ(5, u32_recs_once(400, 5));
	EXPECT_EQ(10, uet_trace_count("bt_a: "));

	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, mprotect(buf + page, page, PROT_NONE));
	EXPECT_EQ(page, write(self->bfd, buf, off));
	EXPECT_EQ(5, uet_trace_count("bt_a: "));
	EXPECT_EQ(0, uet_trace_count("bt_a: a=400\n"));
	munmap(buf, 2 * page);
	close(mfd);
}

/* A record of @idx at @off up to @end, its first u32 @v; the offset past */
static size_t put_u32_rec_to(unsigned char *buf, size_t off, __u32 idx, __u32 v,
			     size_t end)
{
	memcpy(buf + off + 8, &v, 4);
	return put_rec_to(buf, off, idx, end);
}

/*
 * The faults of fault_mid_batch and fault_at_head inside a run of records of
 * one event, which the kernel records on a path of its own once the first
 * went to its ftrace buffer (see the rst): a payload on a page not
 * present, then a head, each faulted in and the record tried again, every
 * record once; the payload's page unreadable ends the batch at its record.
 */
TEST_F(batch, fault_in_run_of_one_event)
{
	long page = getpagesize();
	__u32 a = self->a.write_index;
	size_t off, head;
	unsigned char *buf;
	int mfd;

	buf = shared_pages(&mfd, 3);
	ASSERT_TRUE(!!buf);
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	off = put_u32_recs(buf, 0, a, 500, 5);
	off = put_u32_rec_to(buf, off, a, 599, page - 8);
	/* its head the last 8 bytes of page 0, its payload on page 1 */
	head = off;
	off = put_u32_rec(buf, off, a, 550);
	off = put_u32_recs(buf, off, a, 600, 5);
	off = put_u32_rec_to(buf, off, a, 699, 2 * page);
	/* heads at the start of page 2 */
	off = put_u32_recs(buf, off, a, 700, 5);

	ASSERT_EQ(0, madvise(buf + page, 2 * page, MADV_DONTNEED));
	ASSERT_EQ(off, write(self->bfd, buf, off));
	EXPECT_EQ(5, u32_recs_once(500, 5));
	EXPECT_EQ(1, u32_recs_once(599, 1));
	EXPECT_EQ(1, u32_recs_once(550, 1));
	EXPECT_EQ(5, u32_recs_once(600, 5));
	EXPECT_EQ(1, u32_recs_once(699, 1));
	EXPECT_EQ(5, u32_recs_once(700, 5));
	EXPECT_EQ(18, uet_trace_count("bt_a: "));

	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, madvise(buf + page, page, MADV_DONTNEED));
	ASSERT_EQ(0, mprotect(buf + page, page, PROT_NONE));
	EXPECT_EQ(head, write(self->bfd, buf, off));
	EXPECT_EQ(5, u32_recs_once(500, 5));
	EXPECT_EQ(1, u32_recs_once(599, 1));
	EXPECT_EQ(6, uet_trace_count("bt_a: "));
	munmap(buf, 3 * page);
	close(mfd);
}

/*
 * A batch of a single record, which the kernel writes on a path of its own
 * (the cost of a single write): the same outcomes as that record in a
 * longer batch. Recorded for either ABI; skipped when nobody listens, the
 * enable-bit ABI included; each bad record's errno; a bad __data_loc, a
 * record past the consumer's limit, a payload page not present, then one
 * that cannot be read; past USER_EVENTS_BATCH_MAX; and a size that leaves
 * bytes over, which makes it a batch of two.
 */
TEST_F(batch, one_record)
{
	struct { __u32 n, loc; char s[4]; } bad_loc = { 2, 16 | 5 << 16, "abc" };
	struct one {
		const char *what;
		__u32 idx;
		__u32 plen;		/* payload bytes: a u32 of 70 + case */
		long ret;		/* the bytes taken, or -errno */
		int recorded;
	} one[] = {
		{ "status page", self->a.write_index, 4, 12, 1 },
		{ "enable bit", self->bits_idx, 4, 12, 1 },
		{ "nobody on the enable bit", self->bits_idx, 4, 12, 0 },
		{ "nobody on the status page", self->b.write_index, 8, 16, 0 },
		{ "unknown index", 1000, 4, -ENOENT, 0 },
		{ "negative index", -2, 4, -EINVAL, 0 },
		{ "old marker as index", OLD_BATCH_MARKER, 4, -EINVAL, 0 },
		{ "payload too short", self->b.write_index, 4, -EINVAL, 0 },
	};
	long page = getpagesize(), max = uet_ftrace_max_payload("");
	unsigned char *buf, *pl;
	struct bat b;
	size_t i;
	int mfd;
	__u32 v;

	ASSERT_LT(0, max);
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, uet_enable("", "bt_bits", 1));
	for (i = 0; i < ARRAY_SIZE(one); i++) {
		char want[32];

		if (i == 2)
			ASSERT_EQ(0, uet_enable("", "bt_bits", 0));
		ASSERT_EQ(0, uet_clear_trace());
		bat_init(&b, 64);
		v = 70 + i;
		memset(bat_add(&b, one[i].idx, NULL, one[i].plen), 0, one[i].plen);
		memcpy(b.buf + 8, &v, 4);
		errno = 0;
		EXPECT_EQ(one[i].ret < 0 ? -1 : one[i].ret, bat_write(self->bfd, &b))
			TH_LOG("%s", one[i].what);
		if (one[i].ret < 0)
			EXPECT_EQ(-one[i].ret, errno) TH_LOG("%s", one[i].what);
		snprintf(want, sizeof(want), "=%u\n", v);
		EXPECT_EQ(one[i].recorded, uet_trace_count(want))
			TH_LOG("%s", one[i].what);
		EXPECT_EQ(one[i].recorded, uet_trace_count("bt_"))
			TH_LOG("%s", one[i].what);
		free(b.buf);
	}

	ASSERT_EQ(0, uet_enable("", "bt_loc", 1));
	ASSERT_EQ(0, uet_clear_trace());
	bat_init(&b, max + 64);
	bat_add(&b, self->loc.write_index, &bad_loc, sizeof(bad_loc));
	EXPECT_EQ(-1, bat_write(self->bfd, &b));
	EXPECT_EQ(EFAULT, errno);
	b.len = 0;
	b.nr = 0;
	memset(bat_add(&b, self->a.write_index, NULL, max + 1), 0, max + 1);
	EXPECT_EQ(-1, bat_write(self->bfd, &b));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, uet_trace_count("bt_"));
	/* a size 3 short of the bytes given: the rest is a head cut short */
	b.len = 0;
	bat_add_u32(&b, self->a.write_index, 80);
	memset(b.buf + b.len, 0, 3);
	b.len += 3;
	EXPECT_EQ(12, bat_write(self->bfd, &b));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=80\n"));
	free(b.buf);

	/* its payload on a page not present, then on one not readable */
	buf = shared_pages(&mfd, 2);
	ASSERT_TRUE(!!buf);
	put_u32_rec(buf, page - 8, self->a.write_index, 81);
	ASSERT_EQ(0, madvise(buf + page, page, MADV_DONTNEED));
	EXPECT_EQ(12, write(self->bfd, buf + page - 8, 12));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=81\n"));
	ASSERT_EQ(0, mprotect(buf + page, page, PROT_NONE));
	EXPECT_EQ(-1, write(self->bfd, buf + page - 8, 12));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(2, uet_trace_count("bt_a: "));	/* a=80, a=81 */
	munmap(buf, 2 * page);
	close(mfd);

	/* one record past USER_EVENTS_BATCH_MAX: EMSGSIZE, nothing read */
	bat_init(&b, USER_EVENTS_BATCH_MAX + 16);
	pl = bat_add(&b, self->b.write_index, NULL, USER_EVENTS_BATCH_MAX - 7);
	memset(pl, 0, USER_EVENTS_BATCH_MAX - 7);
	ASSERT_EQ(USER_EVENTS_BATCH_MAX + 1, b.len);
	EXPECT_EQ(-1, bat_write(self->bfd, &b));
	EXPECT_EQ(EMSGSIZE, errno);
	free(b.buf);
}

/* Every record in each instance, the event's filter applied to each */
TEST_F(batch, instance_and_filter)
{
	struct bat b;
	char *trace;
	int i, n;

	rmdir(TRACEFS "instances/ue_batch");
	ASSERT_EQ(0, mkdir(TRACEFS "instances/ue_batch", 0755));
	ASSERT_EQ(0, uet_enable("instances/ue_batch/", "bt_a", 1));
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/bt_a/filter",
				    "a >= 53", O_TRUNC));
	bat_init(&b, 4096);
	for (i = 0; i < 6; i++)
		bat_add_u32(&b, self->a.write_index, 50 + i);
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	/* the top instance's file has the filter */
	EXPECT_EQ(3, uet_trace_count("bt_a: "));
	EXPECT_EQ(0, uet_trace_count("bt_a: a=52\n"));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=53\n"));
	trace = uet_read_file(TRACEFS "instances/ue_batch/trace");
	ASSERT_TRUE(!!trace);
	for (n = 0, i = 0; i < 6; i++) {
		char want[32];

		snprintf(want, sizeof(want), "bt_a: a=%d\n", 50 + i);
		n += !!strstr(trace, want);
	}
	EXPECT_EQ(6, n);
	free(trace);
	ASSERT_EQ(0, uet_enable("instances/ue_batch/", "bt_a", 0));
	EXPECT_EQ(0, rmdir(TRACEFS "instances/ue_batch"));
	free(b.buf);
}

/* A perf event counts each record, and its raw samples are the records */
TEST_F(batch, perf_samples)
{
	int id = uet_tracepoint_id("bt_a"), p, page = getpagesize(), i;
	struct perf_event_mmap_page *meta;
	struct perf_event_header *hdr;
	unsigned char *data;
	struct bat b;
	__u64 count[2];
	int pc;

	if (uet_skip(_metadata, UE_NEED_PERF))
		return;
	ASSERT_LT(0, id);
	p = uet_perf_open(id, 0, -1, 1);
	ASSERT_LE(0, p);
	pc = uet_perf_open(id, 0, -1, 0);
	ASSERT_LE(0, pc);
	meta = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, p, 0);
	ASSERT_TRUE(meta != MAP_FAILED);
	ASSERT_EQ(EVENT_STATUS_PERF, self->page[self->a.status_index]);
	bat_init(&b, 4096);
	for (i = 0; i < 10; i++)
		bat_add_u32(&b, self->a.write_index, 60 + i);
	bat_add_2u32(&b, self->b.write_index, 1, 1);	/* nobody: skipped */
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	ASSERT_EQ(sizeof(count), read(pc, count, sizeof(count)));
	EXPECT_EQ(10, count[0]);
	EXPECT_EQ(0, count[1]);
	/* the samples, in order: [header][u32 size][common header][a] */
	data = (unsigned char *)meta + page;
	for (i = 0; i < 10; i++) {
		hdr = (struct perf_event_header *)data;
		ASSERT_EQ(PERF_RECORD_SAMPLE, hdr->type);
		EXPECT_EQ(12, *(__u32 *)(hdr + 1));
		EXPECT_EQ(60 + i, *(__u32 *)((unsigned char *)(hdr + 1) + 4 + 8));
		data += hdr->size;
	}
	EXPECT_EQ(data - ((unsigned char *)meta + page), meta->data_head);
	munmap(meta, 2 * page);
	close(p);
	close(pc);
	free(b.buf);
}

/* A program with the standard context runs once per record */
TEST_F(batch, bpf_standard)
{
	struct uet_bpf_run run;
	struct uet_seen seen;
	struct bat b;
	int i;

	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;
	ASSERT_EQ(0, uet_bpf_run_start(&run, "bt_b", 0));
	bat_init(&b, 4096);
	for (i = 0; i < 7; i++)
		bat_add_2u32(&b, self->b.write_index, 70 + i, 0xb0 + i);
	bat_add_u32(&b, self->a.write_index, 1);	/* nobody: skipped */
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	ASSERT_EQ(0, uet_bpf_map_read(run.map, 0, &seen));
	EXPECT_EQ(7, seen.count);
	EXPECT_EQ(76, seen.a);
	EXPECT_EQ(0xb6, seen.b);
	uet_bpf_run_stop(&run);
	free(b.buf);
}

/*
 * BPF_ITER: once per record, each given its own payload: at udata for a
 * write(), in the iovecs for a writev() of several segments
 */
TEST_F(batch, bpf_iter)
{
	static const __u32 last[3] = { 85, 0, 0 };
	struct user_status_reg reg;
	struct uet_bpf_run run;
	struct iovec iov[3];
	struct uet_seen seen;
	struct bat b;
	int fd, bfd, i;

	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "bt_iter:BPF_ITER u32 a; u32 b", &reg));
	bfd = ioctl(fd, DIAG_IOCSBATCH, 0);
	ASSERT_LE(0, bfd);
	ASSERT_EQ(0, uet_bpf_run_start(&run, "bt_iter", 1));

	bat_init(&b, 4096);
	for (i = 0; i < 5; i++)
		bat_add_2u32(&b, reg.write_index, 80 + i, 0);
	/* the last with 4 bytes more */
	bat_add(&b, reg.write_index, last, sizeof(last));
	EXPECT_EQ(b.len, write(bfd, b.buf, b.len));
	ASSERT_EQ(0, uet_bpf_map_read(run.map, 0, &seen));
	EXPECT_EQ(6, seen.count);
	EXPECT_EQ(85, seen.a);
	EXPECT_EQ(USER_BPF_DATA_USER, seen.b);
	EXPECT_EQ(12, seen.len);

	/* writev(): the last record's payload in a segment of its own */
	iov[0].iov_base = b.buf;
	iov[0].iov_len = b.rec_start[5] + 8;
	iov[1].iov_base = b.buf + iov[0].iov_len;
	iov[1].iov_len = 12;
	EXPECT_EQ(b.len, writev(bfd, iov, 2));
	ASSERT_EQ(0, uet_bpf_map_read(run.map, 0, &seen));
	EXPECT_EQ(12, seen.count);
	EXPECT_EQ(85, seen.a);
	EXPECT_EQ(USER_BPF_DATA_ITER, seen.b);
	EXPECT_EQ(12, seen.len);
	uet_bpf_run_stop(&run);
	close(bfd);
	close(fd);
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(fd, "bt_iter"));
	close(fd);
	free(b.buf);
}

/*
 * A batch fd of a group's file takes batches of the group's events, into
 * its own system
 */
TEST_F(batch, group_file)
{
	struct user_status_reg reg;
	struct bat b;
	int gfd, gbfd;

	uet_write_file(TRACEFS "user_events_groups", "!gtbatch", O_APPEND);
	ASSERT_EQ(0, uet_write_file(TRACEFS "user_events_groups", "gtbatch",
				    O_APPEND));
	gfd = open(TRACEFS "user_groups/gtbatch/user_events_data", O_RDWR);
	ASSERT_LE(0, gfd);
	ASSERT_EQ(0, uet_register(gfd, "bt_g u32 g", &reg));
	gbfd = ioctl(gfd, DIAG_IOCSBATCH, 0);
	ASSERT_LE(0, gbfd);
	ASSERT_EQ(0, uet_enable_in("user_events_gtbatch", "bt_g", 1));
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	bat_init(&b, 4096);
	bat_add_u32(&b, reg.write_index, 90);
	bat_add_u32(&b, reg.write_index, 91);
	EXPECT_EQ(b.len, write(gbfd, b.buf, b.len));
	EXPECT_EQ(1, uet_trace_count("bt_g: g=90\n"));
	EXPECT_EQ(1, uet_trace_count("bt_g: g=91\n"));
	/* an index this fd never gave: ENOENT ends the batch there */
	free(b.buf);
	bat_init(&b, 4096);
	bat_add_u32(&b, reg.write_index, 92);
	bat_add_u32(&b, self->bits_idx + 1, 93);
	EXPECT_EQ(12, write(gbfd, b.buf, b.len));
	EXPECT_EQ(1, uet_trace_count("bt_g: g=92\n"));
	EXPECT_EQ(0, uet_trace_count("=93\n"));
	ASSERT_EQ(0, uet_enable_in("user_events_gtbatch", "bt_g", 0));
	close(gbfd);
	close(gfd);
	uet_clear_trace();
	gfd = open(TRACEFS "user_groups/gtbatch/user_events_data", O_RDWR);
	EXPECT_EQ(0, uet_delete(gfd, "bt_g"));
	close(gfd);
	EXPECT_EQ(0, uet_write_file(TRACEFS "user_events_groups", "!gtbatch",
				    O_APPEND));
	free(b.buf);
}

/*
 * A write-all loop: write() what is left until all is taken or a write
 * fails, at most @max calls (a kernel that took nothing forever would
 * loop). Each call's return in @ret and errno in @err; how many calls;
 * the bytes taken in *@done.
 */
static int write_all(int fd, const unsigned char *buf, size_t len,
		     ssize_t *ret, int *err, int max, size_t *done)
{
	size_t off = 0;
	int calls = 0;
	ssize_t n;

	while (off < len && calls < max) {
		n = write(fd, buf + off, len - off);
		ret[calls] = n;
		err[calls++] = n < 0 ? errno : 0;
		if (n < 0)
			break;
		off += n;
	}
	*done = off;
	return calls;
}

/*
 * A bad record amid a batch, written by a generic write-all loop, then
 * through stdio: the first write takes the records before it (a short
 * write), the loop writes the rest again as it is, which starts at the bad
 * record, and that write fails with its errno. The records before it are
 * recorded once, the ones after it never, and nothing else is: with the
 * old ABI's marker, the rest written again was a single write to the data
 * fd, whose index was the bad record's size. That size is here the write
 * index of bt_x, listened to, which must get no record.
 */
TEST_F(batch, resume_like_write_all)
{
	struct user_status_reg x;
	struct {
		const char *what;
		__u32 idx;
		int err;
	} bad[] = {
		{ "payload too short", self->b.write_index, EINVAL },
		{ "unknown index", 1000, ENOENT },
	};
	static char fbuf[4096];
	size_t good, done, i;
	unsigned char *pl;
	ssize_t ret[4];
	int err[4], calls, sfd;
	struct bat b;
	FILE *f;

	ASSERT_EQ(0, uet_register(self->fd, "bt_x u32 x", &x));
	/*
	 * bt_x's index, the bad record's size: 4 or more, and short of bt_b's
	 * 8 payload bytes for the record of bt_b's index
	 */
	ASSERT_LE(4, x.write_index);
	ASSERT_GE(11, x.write_index);
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, uet_enable("", "bt_b", 1));
	ASSERT_EQ(0, uet_enable("", "bt_x", 1));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		bat_init(&b, 4096);
		bat_add_u32(&b, self->a.write_index, 1);
		bat_add_2u32(&b, self->b.write_index, 2, 3);
		good = b.len;
		/* its size is bt_x's index */
		pl = bat_add(&b, bad[i].idx, NULL, x.write_index - 4);
		memset(pl, 0x55, x.write_index - 4);
		bat_add_u32(&b, self->a.write_index, 4);
		bat_add_2u32(&b, self->b.write_index, 5, 6);
		ASSERT_LT(b.len, sizeof(fbuf));

		ASSERT_EQ(0, uet_clear_trace());
		calls = write_all(self->bfd, b.buf, b.len, ret, err, 4, &done);
		EXPECT_EQ(2, calls) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(good, ret[0]) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(-1, ret[1]) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(bad[i].err, err[1]) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(good, done) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(1, uet_trace_count("bt_a: a=1\n")) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(1, uet_trace_count("bt_b: b=2 c=3\n")) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(0, uet_trace_count("bt_x")) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(2, uet_trace_count("bt_")) TH_LOG("%s", bad[i].what);

		/*
		 * stdio, its buffer larger than the batch: fflush() writes
		 * it in one write(), and glibc's write loop writes the rest
		 * of the short count again, which fails: EOF, the error set,
		 * errno the bad record's. glibc drops what it could not
		 * write (its buffer is empty after the failed flush), so
		 * fclose() writes nothing more; whatever it returns, the
		 * trace below shows no record but the two.
		 */
		ASSERT_EQ(0, uet_clear_trace());
		sfd = dup(self->bfd);
		ASSERT_LE(0, sfd);
		f = fdopen(sfd, "w");
		ASSERT_TRUE(!!f);
		ASSERT_EQ(0, setvbuf(f, fbuf, _IOFBF, sizeof(fbuf)));
		EXPECT_EQ(b.len, fwrite(b.buf, 1, b.len, f)) TH_LOG("%s", bad[i].what);
		/* buffered: nothing written yet */
		EXPECT_EQ(0, uet_trace_count("bt_")) TH_LOG("%s", bad[i].what);
		errno = 0;
		EXPECT_EQ(EOF, fflush(f)) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(bad[i].err, errno) TH_LOG("%s", bad[i].what);
		EXPECT_TRUE(ferror(f)) TH_LOG("%s", bad[i].what);
		fclose(f);
		EXPECT_EQ(1, uet_trace_count("bt_a: a=1\n")) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(1, uet_trace_count("bt_b: b=2 c=3\n")) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(0, uet_trace_count("bt_x")) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(2, uet_trace_count("bt_")) TH_LOG("%s", bad[i].what);
		free(b.buf);
	}
}

/*
 * A write of 1 to 7 bytes cannot hold a record's head: EINVAL, nothing
 * recorded. 8 bytes are a whole record of an event without fields (size
 * 4: the index alone): taken and recorded; of an event with fields, its
 * payload is too short: EINVAL. The same through writev() of 1-byte
 * segments, which the kernel reads as an iterator, not one buffer.
 */
TEST_F(batch, short_writes)
{
	struct user_status_reg nf;
	struct iovec iov[8];
	__u32 rec[2];
	int n;

	ASSERT_EQ(0, uet_register(self->fd, "bt_nf", &nf));
	ASSERT_EQ(0, uet_enable("", "bt_nf", 1));
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	rec[0] = 4;
	rec[1] = nf.write_index;
	for (n = 0; n < 8; n++) {
		iov[n].iov_base = (unsigned char *)rec + n;
		iov[n].iov_len = 1;
	}
	for (n = 1; n <= 7; n++) {
		EXPECT_EQ(-1, write(self->bfd, rec, n)) TH_LOG("%d bytes", n);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%d bytes", n);
		EXPECT_EQ(-1, writev(self->bfd, iov, n)) TH_LOG("%d segments", n);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%d segments", n);
	}
	EXPECT_EQ(0, uet_trace_count("bt_"));
	EXPECT_EQ(8, write(self->bfd, rec, 8));
	EXPECT_EQ(1, uet_trace_count("bt_nf"));
	EXPECT_EQ(8, writev(self->bfd, iov, 8));
	EXPECT_EQ(2, uet_trace_count("bt_nf"));
	/* bt_a: its u32 missing */
	rec[1] = self->a.write_index;
	EXPECT_EQ(-1, write(self->bfd, rec, 8));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, writev(self->bfd, iov, 8));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(2, uet_trace_count("bt_"));
}

/*
 * A record of an event nobody listens to is checked before it is skipped:
 * a payload shorter than its fixed fields is EINVAL, as a write of it
 * alone, for either ABI: the call's errno when it is the first (alone, or
 * before other records), the end of the batch after a good record (a
 * short write), through write() and writev(). Its __data_loc is the
 * consumers' business, checked only when a record is recorded: one that
 * points out of the record is skipped whole, and EFAULT once listened to.
 */
TEST_F(batch, unlistened_checked)
{
	struct { __u32 n, loc; char s[4]; } bad_loc = { 3, 16 | 40 << 16, "abc" };
	struct {
		const char *what;
		__u32 idx, plen;	/* a payload short of the fixed fields */
	} shortp[] = {
		{ "status page", self->b.write_index, 4 },
		{ "enable bit", self->bits_idx, 2 },
	};
	__u32 zero[2] = { 0, 0 };
	struct iovec iov[2];
	struct bat b;
	size_t good, i;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, self->page[self->b.status_index]);
	ASSERT_EQ(0, self->word);
	for (i = 0; i < ARRAY_SIZE(shortp); i++) {
		ASSERT_EQ(0, uet_clear_trace());
		bat_init(&b, 4096);
		bat_add(&b, shortp[i].idx, zero, shortp[i].plen);
		/* alone */
		EXPECT_EQ(-1, bat_write(self->bfd, &b)) TH_LOG("%s", shortp[i].what);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s", shortp[i].what);
		/* first of two */
		bat_add_u32(&b, self->a.write_index, 31);
		EXPECT_EQ(-1, bat_write(self->bfd, &b)) TH_LOG("%s", shortp[i].what);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s", shortp[i].what);
		EXPECT_EQ(0, uet_trace_count("bt_")) TH_LOG("%s", shortp[i].what);
		/* after a good record: a short write, through both calls */
		b.len = 0;
		b.nr = 0;
		bat_add_u32(&b, self->a.write_index, 30);
		good = b.len;
		bat_add(&b, shortp[i].idx, zero, shortp[i].plen);
		bat_add_u32(&b, self->a.write_index, 31);
		EXPECT_EQ(good, bat_write(self->bfd, &b)) TH_LOG("%s", shortp[i].what);
		iov[0].iov_base = b.buf;
		iov[0].iov_len = good + 5;
		iov[1].iov_base = b.buf + good + 5;
		iov[1].iov_len = b.len - good - 5;
		EXPECT_EQ(good, writev(self->bfd, iov, 2)) TH_LOG("%s", shortp[i].what);
		EXPECT_EQ(2, uet_trace_count("bt_a: a=30\n")) TH_LOG("%s", shortp[i].what);
		EXPECT_EQ(2, uet_trace_count("bt_")) TH_LOG("%s", shortp[i].what);
		free(b.buf);
	}

	/* a __data_loc past the record, nobody on bt_loc: skipped */
	ASSERT_EQ(0, uet_clear_trace());
	bat_init(&b, 4096);
	bat_add_u32(&b, self->a.write_index, 32);
	bat_add(&b, self->loc.write_index, &bad_loc, sizeof(bad_loc));
	bat_add_u32(&b, self->a.write_index, 33);
	EXPECT_EQ(b.len, bat_write(self->bfd, &b));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=32\n"));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=33\n"));
	EXPECT_EQ(2, uet_trace_count("bt_"));
	/* alone, the kernel's path of one record */
	EXPECT_EQ(b.rec_start[2] - b.rec_start[1],
		  write(self->bfd, b.buf + b.rec_start[1],
			b.rec_start[2] - b.rec_start[1]));
	/* listened to: recorded, so checked, EFAULT */
	ASSERT_EQ(0, uet_enable("", "bt_loc", 1));
	EXPECT_EQ(b.rec_start[1], bat_write(self->bfd, &b));
	EXPECT_EQ(-1, write(self->bfd, b.buf + b.rec_start[1],
			    b.rec_start[2] - b.rec_start[1]));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(2, uet_trace_count("bt_a: a=32\n"));
	EXPECT_EQ(0, uet_trace_count("bt_loc"));
	EXPECT_EQ(3, uet_trace_count("bt_"));
	free(b.buf);
}

/*
 * The old ABI's batch marker means nothing on the data fd: a write whose
 * first word is 0xba7c4e5f, a well-formed record after it, is a single
 * write of that (negative) index: EINVAL, nothing recorded, through
 * write() and writev(), and so is the marker alone. The record after it,
 * written to the batch fd, is recorded.
 */
TEST_F(batch, old_marker_on_data_fd)
{
	__u32 w[4] = { OLD_BATCH_MARKER, 8, self->a.write_index, 41 };
	struct iovec iov[2] = {
		{ .iov_base = w, .iov_len = 4 },
		{ .iov_base = w + 1, .iov_len = 12 },
	};

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	EXPECT_EQ(-1, write(self->fd, w, sizeof(w)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, writev(self->fd, iov, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->fd, w, 4));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, uet_trace_count("bt_"));
	EXPECT_EQ(12, write(self->bfd, w + 1, 12));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=41\n"));
	EXPECT_EQ(1, uet_trace_count("bt_"));
}

/*
 * The batch fd is a file of its own. DIAG_IOCSBATCH takes flags 0 alone
 * (EINVAL else), and a data fd open for writing (EBADF else: the batch
 * fd's writes are not checked against the file's mode again). The fd is
 * close-on-exec and write-only (read() is EBADF), cannot seek (ESPIPE)
 * and has no ioctl (ENOTTY: no registration through it, no batch fd of a
 * batch fd). A data fd may have several, each of which works. A batch fd
 * holds its data fd's file: with the data fd closed, its records are
 * still recorded, and the data fd's events are still in use (DIAG_IOCSDEL
 * from another fd is EBUSY) until it is closed.
 */
TEST_F(batch, batch_fd_properties)
{
	struct user_status_reg held, reg;
	__u32 rec[3] = { 8, self->a.write_index, 42 };
	int bfd2, dfd, hbfd;
	char c;

	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSBATCH, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSBATCH, ~0UL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(FD_CLOEXEC, fcntl(self->bfd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_WRONLY, fcntl(self->bfd, F_GETFL) & O_ACCMODE);
	EXPECT_EQ(-1, read(self->bfd, &c, 1));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, lseek(self->bfd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.name_args = (unsigned long)"bt_nf u32 n";
	EXPECT_EQ(-1, ioctl(self->bfd, DIAG_IOCSREG, &reg));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->bfd, DIAG_IOCSBATCH, 0));
	EXPECT_EQ(ENOTTY, errno);
	/* a data fd open for reading only gives none: its writes would pass */
	dfd = open(UE_DATA, O_RDONLY);
	ASSERT_LE(0, dfd);
	EXPECT_EQ(-1, ioctl(dfd, DIAG_IOCSBATCH, 0));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(0, close(dfd));

	/* two batch fds of one data fd */
	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	bfd2 = ioctl(self->fd, DIAG_IOCSBATCH, 0);
	ASSERT_LE(0, bfd2);
	EXPECT_NE(self->bfd, bfd2);
	EXPECT_EQ(12, write(self->bfd, rec, 12));
	rec[2] = 43;
	EXPECT_EQ(12, write(bfd2, rec, 12));
	EXPECT_EQ(0, close(bfd2));
	rec[2] = 44;
	EXPECT_EQ(12, write(self->bfd, rec, 12));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=42\n"));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=43\n"));
	EXPECT_EQ(1, uet_trace_count("bt_a: a=44\n"));

	/* the data fd closed, its batch fd open */
	dfd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, uet_register(dfd, "bt_held u32 h", &held));
	hbfd = ioctl(dfd, DIAG_IOCSBATCH, 0);
	ASSERT_LE(0, hbfd);
	ASSERT_EQ(0, close(dfd));
	ASSERT_EQ(0, uet_enable("", "bt_held", 1));
	rec[1] = held.write_index;
	rec[2] = 45;
	EXPECT_EQ(12, write(hbfd, rec, 12));
	EXPECT_EQ(1, uet_trace_count("bt_held: h=45\n"));
	/* nobody listening: the batch fd alone keeps it in use */
	ASSERT_EQ(0, uet_enable("", "bt_held", 0));
	EXPECT_EQ(-EBUSY, uet_delete_named("bt_held"));
	EXPECT_EQ(0, close(hbfd));
	EXPECT_EQ(0, uet_delete_named("bt_held"));
}

/*
 * Records lie at any address: the ABI asks no alignment of a batch or of
 * its fields. The same three records (fixed fields, a __data_loc string)
 * at each of the buffer offsets 0 to 7, so that their heads and payloads
 * are misaligned every way, give the same records each time: through
 * write(), through writev() of two segments cut inside the second
 * record's head, and the first record alone (the kernel's path of one).
 */
TEST_F(batch, unaligned_records)
{
	static const char *const want[] = {
		"bt_a: a=61\n", "bt_loc: n=62 s=abc\n", "bt_b: b=63 c=64\n",
	};
	struct { __u32 n, loc; char s[4]; } loc = { 62, 16 | 4 << 16, "abc" };
	static __u64 space[64];
	unsigned char *buf = (unsigned char *)space;
	struct iovec iov[2];
	size_t cut;
	struct bat b;
	int o;

	ASSERT_EQ(0, uet_enable("", "bt_a", 1));
	ASSERT_EQ(0, uet_enable("", "bt_b", 1));
	ASSERT_EQ(0, uet_enable("", "bt_loc", 1));
	bat_init(&b, 256);
	bat_add_u32(&b, self->a.write_index, 61);
	bat_add(&b, self->loc.write_index, &loc, sizeof(loc));
	bat_add_2u32(&b, self->b.write_index, 63, 64);
	ASSERT_LE(b.len + 8, sizeof(space));
	cut = b.rec_start[1] + 3;
	for (o = 0; o < 8; o++) {
		memset(space, 0, sizeof(space));
		memcpy(buf + o, b.buf, b.len);
		ASSERT_EQ(0, uet_clear_trace());
		EXPECT_EQ(b.len, write(self->bfd, buf + o, b.len)) TH_LOG("offset %d", o);
		EXPECT_TRUE(trace_in_order(want, 3)) TH_LOG("offset %d", o);
		EXPECT_EQ(3, uet_trace_count("bt_")) TH_LOG("offset %d", o);

		ASSERT_EQ(0, uet_clear_trace());
		iov[0].iov_base = buf + o;
		iov[0].iov_len = cut;
		iov[1].iov_base = buf + o + cut;
		iov[1].iov_len = b.len - cut;
		EXPECT_EQ(b.len, writev(self->bfd, iov, 2)) TH_LOG("offset %d", o);
		EXPECT_TRUE(trace_in_order(want, 3)) TH_LOG("offset %d", o);
		EXPECT_EQ(3, uet_trace_count("bt_")) TH_LOG("offset %d", o);

		ASSERT_EQ(0, uet_clear_trace());
		EXPECT_EQ(b.rec_start[1], write(self->bfd, buf + o, b.rec_start[1]))
			TH_LOG("offset %d", o);
		EXPECT_EQ(1, uet_trace_count("bt_a: a=61\n")) TH_LOG("offset %d", o);
		EXPECT_EQ(1, uet_trace_count("bt_")) TH_LOG("offset %d", o);
	}
	free(b.buf);
}

UE_HARNESS_MAIN
