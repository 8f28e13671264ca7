// SPDX-License-Identifier: GPL-2.0
/*
 * perf_test: user events through perf_event_open() on their tracepoint id:
 * the status bit while a perf event is open, the exact raw sample, counting,
 * and perf and ftrace attached at once.
 */
#include <linux/perf_event.h>
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
	int id = uet_tracepoint_id("perf_t"), p, page = getpagesize();
	struct perf_event_mmap_page *meta;
	struct perf_event_header *hdr;
	struct perf_rec r;
	unsigned char *raw;
	unsigned int size;

	p = uet_perf_open(id, 0, -1, 1);
	ASSERT_LE(0, p);
	meta = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, p, 0);
	ASSERT_NE(MAP_FAILED, meta);
	fill(&r, self->reg.write_index, 0x11223344);
	ASSERT_EQ(sizeof(r), write(self->fd, &r, sizeof(r)));
	/* a bad loc is refused here too */
	r.s_loc = 9 << 16;
	EXPECT_EQ(-1, write(self->fd, &r, sizeof(r)));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_LT(0, meta->data_head);
	hdr = (void *)((char *)meta + page);
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
	EXPECT_EQ(hdr->size, meta->data_head);
	munmap(meta, 2 * page);
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

UE_HARNESS_MAIN
