// SPDX-License-Identifier: GPL-2.0
/*
 * batch_fuzz_test: a seeded fuzzer of batches, the writes of a batch fd
 * (DIAG_IOCSBATCH).
 *
 * Each iteration enables a random subset of four events (three of the
 * status page, one of the enable-bit ABI; fixed fields, a __data_loc string,
 * a __rel_loc array), builds a batch of random records of them at a random
 * offset of its buffer (0 to 7: records at any alignment), breaks some (a
 * size past the end or below 4, a head cut short, an unknown or negative
 * index, the old ABI's marker as an index, too few payload bytes, a loc
 * pointing out of the record or a string without its NUL, a payload past
 * what ftrace or any write takes, a page of the batch made unreadable) and
 * writes it with write() or with writev() cut at random places. A model of
 * the documented rules predicts the outcome: the bytes taken up to the
 * first record that fails (its errno when it is the first), and which
 * records trace then holds, in order, each once, each with its sequence
 * number and values. Nobody listening, a record is skipped whatever its
 * payload holds but its size, its index and the length of its fixed fields,
 * which are checked.
 *
 * Now and then, after a short write, the fuzzer does what a write-all loop
 * does: it writes the rest again as it is (with write() or writev() cut at
 * random places, chosen anew). The model says that write starts at the
 * record that failed, and fails with its errno; the records in trace are
 * still exactly those before it, each once (the old ABI's rest, written
 * again, was a single write whose index was the failed record's size).
 *
 *   batch_fuzz_test [--seed S] [--iterations N] [--minutes M] [--verbose]
 *
 * Prints KTAP: one result for the run; a failure names the seed and the
 * iteration, which --seed S --start I --iterations 1 replays.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "ue_helpers.h"
#include "ue_hotplug.h"

#define NR_EV 4
#define MAX_RECS 48
#define BUF_PAGES 24

struct fz_event {
	const char *name, *desc;
	__u32 widx;
	int status_index;	/* -1: enable-bit ABI */
	__u32 min;		/* payload bytes of the fixed fields */
	int loc;		/* 0 none, 1 __data_loc char[] at 4, 2 __rel_loc u8[] at 8 */
	int enabled;
};

static struct fz_event evs[NR_EV] = {
	{ "bf_a", "bf_a u32 seq; u32 x", 0, 0, 8, 0 },
	{ "bf_s", "bf_s u32 seq; __data_loc char[] s", 0, 0, 8, 1 },
	{ "bf_r", "bf_r u32 seq; u16 x; u16 y; __rel_loc u8[] r", 0, 0, 12, 2 },
	{ "bf_bits", "bf_bits u32 seq; u64 v", 0, -1, 12, 0 },
};

/* The old ABI's batch marker: now a negative index like any other */
#define OLD_MARKER 0xba7c4e5fU

static __u32 bits_word;
static int data_fd, batch_fd;
static long ftrace_max;
static unsigned long long rng;
static int verbose;
/* short writes the model foresaw, and how many of them were resumed */
static long nr_short, nr_again;

static __u32 rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (__u32)((rng * 2685821657736338717ULL) >> 32);
}

static __u32 below(__u32 n)
{
	return n ? rnd() % n : 0;
}

/* What a record is meant to be */
enum fz_kind {
	K_OK, K_SIZE_PAST, K_SIZE_SMALL, K_HEAD_CUT, K_BAD_INDEX, K_NEG_INDEX,
	K_MARKER, K_SHORT, K_BAD_LOC, K_NO_NUL, K_TOO_BIG_FTRACE, K_TOO_BIG_ANY,
	NR_KINDS
};

struct fz_rec {
	int ev;			/* -1 for none */
	enum fz_kind kind;
	__u32 seq;
	size_t start, end;	/* its bytes in the batch, head included */
	size_t payload;		/* where its payload starts */
	__u32 plen;
};

static unsigned char *buf;
static size_t buf_size;
static struct fz_rec recs[MAX_RECS];
static int nr_recs;

static void put32(size_t off, __u32 v)
{
	memcpy(buf + off, &v, 4);
}

/* Lay out record @r at @off; returns the offset past it */
static size_t build_rec(struct fz_rec *r, size_t off, int last)
{
	struct fz_event *e = r->ev >= 0 ? &evs[r->ev] : NULL;
	__u32 idx = e ? e->widx : 0, plen, size, i;
	size_t p;

	switch (r->kind) {
	case K_HEAD_CUT:
		/* only at the end: 1 to 7 bytes */
		plen = 1 + below(7);
		for (i = 0; i < plen; i++)
			buf[off + i] = rnd();
		r->start = off;
		r->end = off + plen;
		return r->end;
	case K_SIZE_SMALL:
		put32(off, below(4));
		put32(off + 4, idx);
		r->start = off;
		r->end = off + 8;
		return r->end;
	case K_BAD_INDEX:
		idx = 1000 + below(1000);
		break;
	case K_NEG_INDEX:
		idx = 0x80000000u | rnd();
		break;
	case K_MARKER:
		idx = OLD_MARKER;
		break;
	default:
		break;
	}
	plen = e ? e->min : 8;
	if (r->kind == K_SHORT)
		plen = below(e->min);
	else if (r->kind == K_TOO_BIG_FTRACE)
		plen = ftrace_max + 1 + below(64);
	else if (r->kind == K_TOO_BIG_ANY)
		plen = UE_MAX_PAYLOAD + 1 + below(64);
	else if (e && e->loc && r->kind != K_SIZE_PAST)
		plen += 1 + below(40);
	else if (r->kind == K_OK)
		plen += below(3) * 4;
	r->plen = plen;
	r->start = off;
	r->payload = off + 8;
	p = r->payload;
	if (p + plen > buf_size)
		abort();
	for (i = 0; i < plen; i++)
		buf[p + i] = 'a' + below(26);
	if (plen >= 4)
		memcpy(buf + p, &r->seq, 4);
	if (e && plen >= e->min && r->kind != K_SHORT) {
		__u32 dyn = plen - e->min, loc;

		if (e->loc == 1) {
			/* __data_loc: from the record's start (8-byte header) */
			buf[p + plen - 1] = 0;
			loc = (dyn << 16) | (8 + e->min);
			if (r->kind == K_BAD_LOC)
				loc = ((dyn + 1 + below(8)) << 16) | (8 + e->min);
			else if (r->kind == K_NO_NUL)
				buf[p + plen - 1] = 'z';
			memcpy(buf + p + 4, &loc, 4);
		} else if (e->loc == 2) {
			/* __rel_loc: from the end of the loc word */
			loc = dyn << 16;
			if (r->kind == K_BAD_LOC)
				loc = (1 + below(8)) << 16 | dyn;
			memcpy(buf + p + 8, &loc, 4);
		}
	}
	size = 4 + plen;
	if (r->kind == K_SIZE_PAST && last)
		size += 1 + below(100);
	put32(off, size);
	put32(off + 4, idx);
	r->end = off + 8 + plen;
	return r->end;
}

/* The -errno record @r gets, 0 when it is taken (recorded or skipped) */
static int expect_err(const struct fz_rec *r, size_t total)
{
	const struct fz_event *e = r->ev >= 0 ? &evs[r->ev] : NULL;

	switch (r->kind) {
	case K_HEAD_CUT:
	case K_SIZE_SMALL:
	case K_NEG_INDEX:
	case K_MARKER:
	case K_SHORT:
		return -EINVAL;
	case K_SIZE_PAST:
		/* past the end only when last */
		return r->end == total ? -EINVAL : 0;
	case K_BAD_INDEX:
		return -ENOENT;
	case K_TOO_BIG_ANY:
		return -E2BIG;
	case K_TOO_BIG_FTRACE:
		return e->enabled ? -E2BIG : 0;
	case K_BAD_LOC:
	case K_NO_NUL:
		return e->enabled ? -EFAULT : 0;
	default:
		return 0;
	}
}

/* The sequence numbers of the bf_ records in trace, in order; how many */
static int trace_seqs(__u32 *seq, int max)
{
	char *trace = uet_read_file(TRACEFS "trace"), *p, *s;
	int n = 0;

	for (p = trace; p && (p = strstr(p, " bf_")); p++) {
		s = strstr(p, ": seq=");
		if (!s || s - p > 12)
			continue;
		if (n < max)
			seq[n] = strtoul(s + 6, NULL, 10);
		n++;
	}
	free(trace);
	return n;
}

static int setup(void)
{
	struct user_status_reg reg;
	int i;

	data_fd = open(UE_DATA, O_RDWR);
	if (data_fd < 0)
		return -1;
	for (i = 0; i < NR_EV; i++) {
		if (evs[i].status_index < 0) {
			if (uet_register_bits(data_fd, evs[i].desc, &bits_word, 4, 0, 0,
					      &evs[i].widx))
				return -1;
			continue;
		}
		if (uet_register(data_fd, evs[i].desc, &reg))
			return -1;
		evs[i].widx = reg.write_index;
		evs[i].status_index = reg.status_index;
	}
	/* every batch of the run goes to it */
	batch_fd = ioctl(data_fd, DIAG_IOCSBATCH, 0);
	if (batch_fd < 0)
		return -1;
	ftrace_max = uet_ftrace_max_payload("");
	buf_size = BUF_PAGES * getpagesize();
	buf = mmap(NULL, buf_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return buf == MAP_FAILED || ftrace_max <= 0 ? -1 : 0;
}

static void teardown(void)
{
	int i;

	for (i = 0; i < NR_EV; i++)
		uet_enable("", evs[i].name, 0);
	uet_unregister_bits(data_fd, &bits_word, 0);
	/* it holds data_fd's events */
	close(batch_fd);
	close(data_fd);
	uet_clear_trace();
	data_fd = open(UE_DATA, O_RDWR);
	for (i = 0; i < NR_EV; i++)
		uet_delete(data_fd, evs[i].name);
	close(data_fd);
}

/*
 * The bytes [@from, @to) of buf to the batch fd, with write() or with
 * writev() cut at random places: its return, or -errno; the segments in
 * *@nr_iov (0: write())
 */
static ssize_t write_batch(size_t from, size_t to, int *nr_iov)
{
	static struct iovec iov[64];
	size_t at = from, len;
	ssize_t ret;
	int n;

	if (below(3) == 0) {
		for (n = 0; at < to && n < 63; n++) {
			len = 1 + below(below(2) ? 16 : 3000);
			if (at + len > to || n == 62)
				len = to - at;
			iov[n].iov_base = buf + at;
			iov[n].iov_len = len;
			at += len;
		}
		ret = writev(batch_fd, iov, n);
	} else {
		n = 0;
		ret = write(batch_fd, buf + from, to - from);
	}
	*nr_iov = n;
	return ret < 0 ? -errno : ret;
}

/* One iteration; 0 when the kernel did as the model says */
static int iteration(unsigned long long seed, long it)
{
	static __u32 seqs[MAX_RECS + 8];
	long page = getpagesize();
	size_t off, base, total, want_ret = 0, bad_page = 0;
	int i, nr_iov, nr_iov2 = -1, want_err = 0, nwant, ngot, fail = 0, bad_at = -1;
	__u32 want_seq[MAX_RECS];
	ssize_t ret, ret2 = 0;

	rng = seed ^ (0x9e3779b97f4a7c15ULL * (it + 1));
	if (!rng)
		rng = 1;
	for (i = 0; i < NR_EV; i++) {
		evs[i].enabled = below(4) != 0;
		if (uet_enable("", evs[i].name, evs[i].enabled))
			return ksft_print_msg("enable %s failed\n", evs[i].name), 1;
	}
	if (uet_clear_trace())
		return 1;
	mprotect(buf, buf_size, PROT_READ | PROT_WRITE);
	/* the batch from buf + base: its heads and fields at any alignment */
	base = below(8);
	off = base;
	nr_recs = 1 + below(MAX_RECS);
	for (i = 0; i < nr_recs; i++) {
		struct fz_rec *r = &recs[i];
		int last = i == nr_recs - 1;
		__u32 k = below(100);

		r->seq = it * 100 + i;
		r->ev = below(NR_EV);
		r->kind = K_OK;
		if (k < 3) {
			r->kind = 1 + below(NR_KINDS - 1);
			if ((r->kind == K_HEAD_CUT || r->kind == K_SIZE_PAST) && !last)
				r->kind = K_OK;
			if ((r->kind == K_BAD_LOC || r->kind == K_NO_NUL) &&
			    !evs[r->ev].loc)
				r->kind = K_OK;
			if (r->kind == K_NO_NUL && evs[r->ev].loc != 1)
				r->kind = K_OK;
			if ((r->kind == K_TOO_BIG_ANY || r->kind == K_TOO_BIG_FTRACE) &&
			    off + 8 + UE_MAX_PAYLOAD + 100 > buf_size)
				r->kind = K_OK;
		}
		off = build_rec(r, off, last);
	}
	total = off;
	/* now and then a page of it unreadable */
	if (total > (size_t)page + 8 && below(8) == 0) {
		bad_page = (1 + below((total - 1) / page)) * page;
		if (bad_page >= total)
			bad_page = 0;
	}

	/* the model: the first record that fails */
	nwant = 0;
	for (i = 0; i < nr_recs; i++) {
		const struct fz_rec *r = &recs[i];
		int reads_payload = r->ev >= 0 && evs[r->ev].enabled;
		int err = 0;

		/*
		 * In the kernel's order: a head cut short, the head read (its
		 * size and index), what the record is, its payload copied for
		 * a consumer
		 */
		if (r->kind == K_HEAD_CUT)
			err = -EINVAL;
		else if (bad_page && r->start + 8 > bad_page && r->start < bad_page + page)
			err = -EFAULT;
		if (!err)
			err = expect_err(r, total);
		if (!err && bad_page && reads_payload && r->plen &&
		    r->payload < bad_page + page && r->payload + r->plen > bad_page)
			err = -EFAULT;
		if (err) {
			want_err = err;
			bad_at = i;
			break;
		}
		if (r->ev >= 0 && evs[r->ev].enabled)
			want_seq[nwant++] = r->seq;
	}
	want_ret = (bad_at < 0 ? total : recs[bad_at].start) - base;
	if (bad_page)
		mprotect(buf + bad_page, page, PROT_NONE);

	ret = write_batch(base, total, &nr_iov);
	/*
	 * A short write, and now and then a write-all loop's next write: the
	 * rest as it is, which starts at the record that failed
	 */
	if (bad_at > 0 && ret == (ssize_t)want_ret) {
		nr_short++;
		if (below(2) == 0) {
			nr_again++;
			ret2 = write_batch(recs[bad_at].start, total, &nr_iov2);
		}
	}
	if (bad_page)
		mprotect(buf + bad_page, page, PROT_READ | PROT_WRITE);

	if (bad_at == 0) {
		if (ret != want_err) {
			ksft_print_msg("it %ld: wrote %s, expected %s of record 0, kind %d\n",
				       it, ret < 0 ? strerror(-ret) : "some bytes",
				       strerror(-want_err), recs[0].kind);
			if (ret >= 0)
				ksft_print_msg("it %ld: wrote %zd of %zu\n", it, ret,
					       total - base);
			fail = 1;
		}
	} else if (ret != (ssize_t)want_ret) {
		ksft_print_msg("it %ld: wrote %zd (%s), expected %zu of %zu\n",
			       it, ret, ret < 0 ? strerror(-ret) : "-", want_ret,
			       total - base);
		ksft_print_msg("it %ld: record %d of %d first to fail: kind %d, %s\n",
			       it, bad_at, nr_recs, bad_at >= 0 ? recs[bad_at].kind : -1,
			       bad_at >= 0 ? strerror(-want_err) : "none");
		fail = 1;
	}
	if (nr_iov2 >= 0 && ret2 != want_err) {
		ksft_print_msg("it %ld: rest again (%zu B, %s): %zd (%s), want %s (rec %d, %d)\n",
			       it, total - recs[bad_at].start,
			       nr_iov2 ? "writev" : "write", ret2,
			       ret2 < 0 ? strerror(-ret2) : "-", strerror(-want_err),
			       bad_at, recs[bad_at].kind);
		fail = 1;
	}
	ngot = trace_seqs(seqs, ARRAY_SIZE(seqs));
	if (ngot != nwant) {
		ksft_print_msg("it %ld: %d records in trace, expected %d\n", it, ngot,
			       nwant);
		fail = 1;
	} else {
		for (i = 0; i < nwant; i++)
			if (seqs[i] != want_seq[i]) {
				ksft_print_msg("it %ld: trace's record %d is seq %u, not %u\n",
					       it, i, seqs[i], want_seq[i]);
				fail = 1;
				break;
			}
	}
	if (verbose || fail)
		ksft_print_msg("it %ld: %d recs, %zu B at +%zu, %s, bad page %zu%s: %d recorded\n",
			       it, nr_recs, total - base, base, nr_iov ? "writev" : "write",
			       bad_page, nr_iov2 < 0 ? "" : nr_iov2 ? ", rest again with writev" :
			       ", rest again with write", ngot);
	return fail;
}

int main(int argc, char **argv)
{
	unsigned long long seed = time(NULL);
	long iterations = 300, start = 0, it, failures = 0;
	double minutes = 0;
	struct timespec t0, t;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			iterations = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--start") && i + 1 < argc)
			start = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--minutes") && i + 1 < argc)
			minutes = atof(argv[++i]);
		else if (!strcmp(argv[i], "--verbose"))
			verbose = 1;
		else
			ksft_exit_fail_msg("usage: %s [--seed S] [--start I] [--iterations N]%s\n",
					   argv[0], " [--minutes M] [--verbose]");
	}
	ksft_print_header();
	ksft_set_plan(1);
	if (uet_missing(0))
		ksft_exit_skip("%s\n", uet_missing(0));
	if (setup())
		ksft_exit_fail_msg("setup: %s\n", strerror(errno));
	ksft_print_msg("seed %llu\n", seed);
	ue_hotplug_start(seed);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (it = start; ; it++) {
		if (minutes > 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec >= minutes * 60)
				break;
		} else if (it >= start + iterations) {
			break;
		}
		if (iteration(seed, it)) {
			failures++;
			ksft_print_msg("replay: --seed %llu --start %ld --iterations 1\n",
				       seed, it);
			if (failures >= 5)
				break;
		}
	}
	failures += ue_hotplug_stop();
	teardown();
	ksft_print_msg("seed %llu: %ld iterations, %ld failed\n", seed, it - start, failures);
	ksft_print_msg("%ld short writes, %ld of them resumed as a write-all loop does\n",
		       nr_short, nr_again);
	ksft_test_result(!failures, "batches as the model says\n");
	ksft_finished();
}
