// SPDX-License-Identifier: GPL-2.0
/*
 * compat_test: a 32-bit process on the 64-bit kernel (built -m32 -static).
 * Its ioctl numbers differ from a 64-bit one's (they encode a 4-byte
 * pointer), its writev() iovecs are 8 bytes each: registering through both
 * ABIs, the status byte and the enable bit, writes into trace and perf
 * samples must all work as they do for 64-bit processes.
 */
#include <sys/stat.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"
#include "ue_layout.h"	/* the layouts, checked as a 32-bit program's */

FIXTURE(compat) {
	int fd;				/* user_events_data */
	const unsigned char *page;	/* the status page */
	int perf_fd;
	__u32 word;			/* the enable-bit event's word */
};

FIXTURE_SETUP(compat)
{
	/* a 64-bit build would prove nothing here */
	ASSERT_EQ(4, sizeof(void *));
	self->perf_fd = -1;
	self->word = 0;
	self->fd = -1;
	self->page = NULL;
	/* records must reach perf samples too */
	if (uet_skip(_metadata, UE_NEED_PERF))
		return;
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->page = uet_map_status();
	ASSERT_TRUE(!!self->page);
	ASSERT_EQ(0, uet_clear_trace());
}

FIXTURE_TEARDOWN(compat)
{
	if (!self->page)
		return;
	if (self->perf_fd >= 0)
		close(self->perf_fd);
	uet_enable("", "compat_page", 0);
	uet_enable("", "compat_bits", 0);
	uet_unregister_bits(self->fd, &self->word, 3);
	close(self->fd);
	self->fd = open(UE_DATA, O_RDWR);
	uet_delete(self->fd, "compat_page");
	uet_delete(self->fd, "compat_bits");
	close(self->fd);
	munmap((void *)self->page, getpagesize());
}

/* write index, u32 n, then a __rel_loc string */
static ssize_t write_event(int fd, __u32 *idx, __u32 n, const char *s)
{
	__u32 loc = (__u32)(strlen(s) + 1) << 16;
	struct iovec io[] = {
		{ idx, sizeof(*idx) },
		{ &n, sizeof(n) },
		{ &loc, sizeof(loc) },
		{ (void *)s, strlen(s) + 1 },
	};

	return writev(fd, io, 4);
}

/* The status-page ABI: struct user_status_reg has the same 24 bytes here */
TEST_F(compat, status_page)
{
	struct user_status_reg reg;

	ASSERT_EQ(24, sizeof(reg));
	ASSERT_EQ(0, uet_register(self->fd, "compat_page u32 n; __rel_loc char[] s", &reg));
	ASSERT_LT(0, reg.status_index);
	EXPECT_EQ(0, self->page[reg.status_index]);
	EXPECT_EQ(15, write_event(self->fd, &reg.write_index, 1, "32"));
	ASSERT_EQ(0, uet_enable("", "compat_page", 1));
	EXPECT_EQ(EVENT_STATUS_FTRACE, self->page[reg.status_index]);
	EXPECT_EQ(15, write_event(self->fd, &reg.write_index, 7, "32"));
	EXPECT_EQ(1, uet_trace_count("compat_page: n=7 s=32"));
	ASSERT_EQ(0, uet_enable("", "compat_page", 0));
	EXPECT_EQ(0, self->page[reg.status_index]);
	/* DIAG_IOCSDEL with its 32-bit number */
	EXPECT_EQ(-EBUSY, uet_delete(self->fd, "compat_page"));
	close(self->fd);
	self->fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(self->fd, "compat_page"));
}

/* The enable-bit ABI with a 4-byte word, into trace and into perf */
TEST_F(compat, enable_bit)
{
	__u64 count[2] = {};	/* the count, then lost samples */
	__u32 idx;
	int id;

	ASSERT_EQ(28, sizeof(struct user_reg));
	ASSERT_EQ(0, uet_register_bits(self->fd, "compat_bits u32 n; __rel_loc char[] s",
				       &self->word, sizeof(self->word), 3, 0, &idx));
	EXPECT_EQ(0, self->word);
	EXPECT_EQ(-1, write_event(self->fd, &idx, 1, "32"));
	EXPECT_EQ(EBADF, errno);

	ASSERT_EQ(0, uet_enable("", "compat_bits", 1));
	EXPECT_EQ(1U << 3, self->word);
	EXPECT_EQ(17, write_event(self->fd, &idx, 9, "bits"));
	EXPECT_EQ(1, uet_trace_count("compat_bits: n=9 s=bits"));
	ASSERT_EQ(0, uet_enable("", "compat_bits", 0));
	EXPECT_EQ(0, self->word);

	id = uet_tracepoint_id("compat_bits");
	ASSERT_LT(0, id);
	self->perf_fd = uet_perf_open(id, 0, -1, 0);
	ASSERT_LE(0, self->perf_fd);
	EXPECT_EQ(1U << 3, self->word);
	EXPECT_EQ(17, write_event(self->fd, &idx, 1, "perf"));
	EXPECT_EQ(17, write_event(self->fd, &idx, 2, "perf"));
	ASSERT_EQ(sizeof(count), read(self->perf_fd, count, sizeof(count)));
	EXPECT_EQ(2, count[0]);
	close(self->perf_fd);
	self->perf_fd = -1;
	EXPECT_EQ(0, self->word);

	/* DIAG_IOCSUNREG with its 32-bit number: then the bit stays clear */
	EXPECT_EQ(0, uet_unregister_bits(self->fd, &self->word, 3));
	EXPECT_EQ(-ENOENT, uet_unregister_bits(self->fd, &self->word, 3));
}

UE_HARNESS_MAIN
