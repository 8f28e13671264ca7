// SPDX-License-Identifier: GPL-2.0
/*
 * perf_test: user events through perf_event_open() on their tracepoint id:
 * the status bit while a perf event is open, the exact raw sample, counting,
 * perf and ftrace attached at once, and large writes while perf events come
 * and go.
 */
#include <pthread.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"

FIXTURE(perf) {
	int fd;				/* user_events_data */
	const unsigned char *page;	/* the status page */
	struct user_status_reg reg;
};

FIXTURE_SETUP(perf)
{
	if (uet_skip(_metadata, UE_NEED_PERF))
		return;

	self->page = uet_map_status();
	ASSERT_NE(NULL, self->page);
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, uet_register(self->fd, "perf_t u32 a; __rel_loc char[] s", &self->reg));
}

FIXTURE_TEARDOWN(perf)
{
	uet_enable("", "perf_t", 0);
	close(self->fd);
	self->fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(self->fd, "perf_t"));
	close(self->fd);
	munmap((void *)self->page, getpagesize());
}

struct perf_rec {
	int idx;
	unsigned int a;
	unsigned int s_loc;
	char s[4];
};

static void fill(struct perf_rec *r, int idx, unsigned int a)
{
	r->idx = idx;
	r->a = a;
	r->s_loc = 4 << 16;	/* right after the loc field */
	memcpy(r->s, "abc", 4);
}

/* The bit is set while any perf event is open, with ftrace or without */
TEST_F(perf, status_bit)
{
	int id = uet_tracepoint_id("perf_t"), p1, p2;
	unsigned char *b = (unsigned char *)&self->page[self->reg.status_index];

	ASSERT_LT(0, id);
	EXPECT_EQ(0, *b);
	p1 = uet_perf_open(id, 0, -1, 1);
	ASSERT_LE(0, p1) TH_LOG("perf_event_open: %s", strerror(errno));
	EXPECT_EQ(EVENT_STATUS_PERF, *b);
	p2 = uet_perf_open(id, 0, -1, 0);
	ASSERT_LE(0, p2);
	ASSERT_EQ(0, uet_enable("", "perf_t", 1));
	EXPECT_EQ(EVENT_STATUS_PERF | EVENT_STATUS_FTRACE, *b);
	close(p1);
	EXPECT_EQ(EVENT_STATUS_PERF | EVENT_STATUS_FTRACE, *b);
	close(p2);
	EXPECT_EQ(EVENT_STATUS_FTRACE, *b);
	ASSERT_EQ(0, uet_enable("", "perf_t", 0));
	EXPECT_EQ(0, *b);
}

/* The raw sample is the record: common header, then the payload as written */
TEST_F(perf, raw_sample)
{
	int id = uet_tracepoint_id("perf_t"), p;
	struct uet_ring ring = { .meta = NULL };
	struct perf_event_header *hdr;
	struct perf_rec r;
	unsigned char *raw;
	unsigned int size;

	p = uet_perf_open(id, 0, -1, 1);
	ASSERT_LE(0, p);
	ASSERT_EQ(0, uet_ring_map(&ring, p, 1));
	fill(&r, self->reg.write_index, 0x11223344);
	ASSERT_EQ(sizeof(r), write(self->fd, &r, sizeof(r)));
	/* a bad loc is refused here too */
	r.s_loc = 9 << 16;
	EXPECT_EQ(-1, write(self->fd, &r, sizeof(r)));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_LT(0, ring.meta->data_head);
	hdr = (void *)ring.data;
	ASSERT_EQ(PERF_RECORD_SAMPLE, hdr->type);
	size = *(unsigned int *)(hdr + 1);
	raw = (unsigned char *)(hdr + 1) + sizeof(unsigned int);
	/* 8-byte header + 12-byte payload; size + 4 is 8-aligned already */
	EXPECT_EQ(20, size);
	EXPECT_EQ(id, *(unsigned short *)raw);
	EXPECT_EQ(getpid(), *(int *)(raw + 4));
	EXPECT_EQ(0x11223344, *(unsigned int *)(raw + 8));
	EXPECT_EQ(4u << 16, *(unsigned int *)(raw + 12));
	EXPECT_STREQ("abc", (char *)raw + 16);
	/* the one bad write left nothing */
	EXPECT_EQ(hdr->size, ring.meta->data_head);
	uet_ring_unmap(&ring);
	close(p);
}

/* Counting mode: one per write, none while the event is not written, none lost */
TEST_F(perf, counting)
{
	int id = uet_tracepoint_id("perf_t"), p, i;
	struct perf_rec r;
	__u64 count[2] = { -1ULL, -1ULL };	/* the count, then lost samples */

	p = uet_perf_open(id, 0, -1, 0);
	ASSERT_LE(0, p);
	fill(&r, self->reg.write_index, 1);
	for (i = 0; i < 25; i++)
		ASSERT_EQ(sizeof(r), write(self->fd, &r, sizeof(r)));
	ASSERT_EQ(sizeof(count), read(p, count, sizeof(count)));
	EXPECT_EQ(25, count[0]);
	EXPECT_EQ(0, count[1]);
	close(p);
}

/*
 * A delete is refused (EBUSY, nothing changed) while a perf event is open
 * on the event, even one no fd holds; an event that only perf recorded is
 * then deleted at once, type id and all: perf keeps its records in its own
 * buffers, and no ftrace buffer has any, so nothing is retired
 */
TEST_F(perf, delete_with_perf)
{
	struct uet_ring ring = { .meta = NULL };
	struct user_status_reg reg;
	struct perf_rec r;
	char retired[256];
	int fd2, p, id;

	fd2 = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, uet_register(fd2, "perf_d u32 a; __rel_loc char[] s", &reg));
	id = uet_tracepoint_id("perf_d");
	ASSERT_LT(0, id);
	p = uet_perf_open(id, 0, -1, 1);
	ASSERT_LE(0, p);
	ASSERT_EQ(0, uet_ring_map(&ring, p, 1));
	fill(&r, reg.write_index, 5);
	ASSERT_EQ(sizeof(r), write(fd2, &r, sizeof(r)));
	close(fd2);
	EXPECT_EQ(-EBUSY, uet_delete_named("perf_d"));
	EXPECT_EQ(id, uet_tracepoint_id("perf_d"));
	EXPECT_LT(0, uet_ring_head(&ring));
	uet_ring_unmap(&ring);
	close(p);
	EXPECT_EQ(0, uet_delete_named("perf_d"));
	EXPECT_FALSE(uet_event_exists("user_events", "perf_d"));
	uet_retired_dir("", "user_events", "perf_d", id, retired, sizeof(retired));
	EXPECT_NE(0, access(retired, F_OK)) TH_LOG("%s exists", retired);
}

/* What large_writes_attach_race's writer does, and saw */
#define BIG_SIZES 6
static const int big_size[BIG_SIZES] = {
	64, 4000, 5000, UE_PERF_MAX_PAYLOAD, UE_PERF_MAX_PAYLOAD + 1, 12000,
};

struct big_writer {
	int fd;
	char *buf;			/* [index][payload of up to 12000] */
	int stop;			/* __atomic */
	long ok[BIG_SIZES], e2big[BIG_SIZES], other;
	int other_errno;
};

static void *big_write(void *arg)
{
	struct big_writer *w = arg;
	int i = 0;

	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		ssize_t n = write(w->fd, w->buf, 4 + big_size[i]);

		if (n == 4 + big_size[i]) {
			w->ok[i]++;
		} else if (n < 0 && errno == E2BIG) {
			w->e2big[i]++;
		} else {
			w->other++;
			w->other_errno = n < 0 ? errno : 0;
		}
		i = (i + 1) % BIG_SIZES;
	}
	return NULL;
}

/* Records committed to an instance's buffer: entries and overrun, every CPU */
static long committed(const char *inst)
{
	char path[256], *text, *p;
	long sum = 0;
	int cpu;

	for (cpu = 0; ; cpu++) {
		snprintf(path, sizeof(path), TRACEFS "%sper_cpu/cpu%d/stats", inst, cpu);
		text = uet_read_file(path);
		if (!text)
			return cpu ? sum : -1;
		p = strstr(text, "entries: ");
		sum += p ? atol(p + 9) : 0;
		p = strstr(text, "\noverrun: ");
		sum += p ? atol(p + 10) : 0;
		free(text);
	}
}

#define BIG_INST	"instances/perf_big/"
#define BIG_ROUNDS	100

/* Longer than the harness's default 30 s under TCG: each detach waits for RCU */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

/*
 * A writer of payloads on both sides of perf's limit (8180 bytes) races
 * perf events attaching and detaching on every CPU, ftrace attached all
 * along in an instance with 16 KiB sub-buffers. Each write is taken or,
 * for a payload over perf's limit only, refused with E2BIG; no perf
 * record is ever larger than perf takes (the VM run fails on the WARNING
 * perf_trace_buf_alloc() gives then); ftrace has every write that was
 * taken, perf no more than those within its limit. A race: the window of
 * the check (the consumers attached when the write is checked, not when it
 * is recorded) is held open in regress_test perf_attach_during_write.
 */
TEST_F_TIMEOUT(slow, large_writes_attach_race, 600)
{
	struct big_writer w = { 0 };
	struct user_status_reg reg;
	long long perf_total = 0, taken = 0, taken_small = 0;
	int perf[64], n, i, k, id, cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th;

	if (uet_skip(_metadata, UE_NEED_PERF))
		return;
	ASSERT_GE(64, cpus);
	w.fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, w.fd);
	ASSERT_EQ(0, uet_register(w.fd, "perf_big u8 a", &reg));
	id = uet_tracepoint_id("perf_big");
	ASSERT_LT(0, id);
	rmdir(TRACEFS BIG_INST);
	ASSERT_EQ(0, mkdir(TRACEFS BIG_INST, 0755));
	ASSERT_EQ(0, uet_write_file(TRACEFS BIG_INST "buffer_subbuf_size_kb", "16", O_TRUNC));
	ASSERT_LE(12000, uet_ftrace_max_payload(BIG_INST));
	ASSERT_EQ(0, uet_enable(BIG_INST, "perf_big", 1));
	w.buf = calloc(1, 4 + 12000);
	ASSERT_NE(NULL, w.buf);
	memcpy(w.buf, &reg.write_index, 4);
	ASSERT_EQ(0, pthread_create(&th, NULL, big_write, &w));
	for (i = 0; i < BIG_ROUNDS; i++) {
		for (n = 0; n < cpus; n++) {
			perf[n] = uet_perf_open(id, -1, n, 0);
			ASSERT_LE(0, perf[n]) TH_LOG("perf_event_open: %s", strerror(errno));
		}
		usleep(i % 7 * 100);
		for (n = 0; n < cpus; n++) {
			__u64 v[2] = { 0, 0 };

			ASSERT_EQ(sizeof(v), read(perf[n], v, sizeof(v)));
			perf_total += v[0];
			close(perf[n]);
		}
		usleep(i % 5 * 100);
	}
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	EXPECT_EQ(0, w.other) TH_LOG("a write failed with %s", strerror(w.other_errno));
	for (k = 0; k < BIG_SIZES; k++) {
		TH_LOG("payload %5d: %ld taken, %ld E2BIG", big_size[k], w.ok[k], w.e2big[k]);
		if (big_size[k] <= UE_PERF_MAX_PAYLOAD) {
			EXPECT_EQ(0, w.e2big[k]) TH_LOG("payload %d refused", big_size[k]);
			taken_small += w.ok[k];
		}
		taken += w.ok[k];
	}
	EXPECT_EQ(taken, committed(BIG_INST));
	EXPECT_GE(taken_small, perf_total);
	TH_LOG("%d rounds: %lld writes taken, perf counted %lld", BIG_ROUNDS, taken, perf_total);
	EXPECT_EQ(0, uet_enable(BIG_INST, "perf_big", 0));
	EXPECT_EQ(0, rmdir(TRACEFS BIG_INST));
	free(w.buf);
	close(w.fd);
	w.fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(w.fd, "perf_big"));
	close(w.fd);
}

UE_HARNESS_MAIN
