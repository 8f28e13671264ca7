// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_test: user events as ftrace sees them: registration, the status
 * byte, records in trace with their exact values, every write error, pages
 * that fault, deletion rules, the format file, and hist triggers turning
 * two user events into a synthetic latency event; payload limits; the
 * generic layer of trace events acting on user events.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"

FIXTURE(ft) {
	int fd;				/* user_events_data */
	const unsigned char *page;	/* the status page */
};

FIXTURE_SETUP(ft)
{
	if (uet_skip(_metadata, 0))
		return;
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->page = uet_map_status();
	ASSERT_NE(NULL, self->page);
	ASSERT_EQ(0, uet_clear_trace());
}

FIXTURE_TEARDOWN(ft)
{
	static const char * const names[] = { "ft_reuse", "ft_reuse2", "ft_status", "ft_vals",
				"ft_err", "ft_fault", "ft_del", "ft_scope", "ft_types",
				"ft_filter", "req_start", "req_end", "ft_big", "ft_gen",
				"ft_gen_on", "ft_ints", "ft_strf", "ft_long" };
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(names); i++)
		uet_enable("", names[i], 0);
	close(self->fd);
	self->fd = open(UE_DATA, O_RDWR);
	for (i = 0; i < (int)ARRAY_SIZE(names); i++)
		uet_delete(self->fd, names[i]);
	close(self->fd);
	munmap((void *)self->page, getpagesize());
}

/*
 * Same description (white space, newlines included, and a trailing ';' do
 * not matter): same status byte; write indexes are per fd and dense
 */
TEST_F(ft, register_reuse)
{
	struct user_status_reg a, b, c, d;
	int fd2;

	ASSERT_EQ(0, uet_register(self->fd, "ft_reuse u32 x", &a));
	ASSERT_EQ(0, uet_register(self->fd, "ft_reuse  u32 x;", &b));
	EXPECT_EQ(a.status_index, b.status_index);
	EXPECT_EQ(0, a.write_index);
	EXPECT_EQ(0, b.write_index);
	ASSERT_EQ(0, uet_register(self->fd, "ft_reuse\nu32\n\tx\n", &b));
	EXPECT_EQ(a.status_index, b.status_index);
	EXPECT_EQ(0, b.write_index);
	EXPECT_NE(0, a.status_index);
	ASSERT_EQ(0, uet_register(self->fd, "ft_reuse2", &c));
	EXPECT_EQ(1, c.write_index);
	EXPECT_NE(a.status_index, c.status_index);
	fd2 = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, uet_register(fd2, "ft_reuse2", &d));
	EXPECT_EQ(0, d.write_index);
	EXPECT_EQ(c.status_index, d.status_index);
	EXPECT_EQ(-EADDRINUSE, uet_register(fd2, "ft_reuse u64 x", &d));
	EXPECT_EQ(-EINVAL, uet_register(fd2, "ft reuse", &d));
	close(fd2);
}

/* ioctl errors: the struct size, pointers, description length, the command */
TEST_F(ft, ioctl_errors)
{
	char desc[600];
	struct user_status_reg reg;
	/* 24 is the status page, 28 and more the enable bit (bits_test) */
	unsigned int sizes[] = { 0, 20, 23, 25, 27 };
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(sizes); i++) {
		memset(&reg, 0, sizeof(reg));
		reg.size = sizes[i];
		reg.name_args = (unsigned long)"ft_reuse";
		EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSREG, &reg));
		EXPECT_EQ(EINVAL, errno) TH_LOG("size %u", sizes[i]);
	}
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSREG, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	reg.size = sizeof(reg);
	reg.name_args = 8;
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSREG, &reg));
	EXPECT_EQ(EFAULT, errno);
	/* 511 bytes and the NUL fit; 512 do not */
	memset(desc, 0, sizeof(desc));
	memcpy(desc, "ft_reuse u8 a;", 14);
	memset(desc + 14, ' ', 511 - 14);
	EXPECT_EQ(0, uet_register(self->fd, desc, &reg));
	desc[511] = ' ';
	EXPECT_EQ(-E2BIG, uet_register(self->fd, desc, &reg));
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSDEL, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOW(DIAG_IOC_MAGIC, 9, char *), "ft_reuse"));
	EXPECT_EQ(ENOTTY, errno);
}

/* The byte is the OR of what is attached, across tracefs instances */
TEST_F(ft, status_follows_enable)
{
	struct user_status_reg reg;

	ASSERT_EQ(0, uet_register(self->fd, "ft_status u32 x", &reg));
	EXPECT_EQ(0, self->page[reg.status_index]);
	ASSERT_EQ(0, uet_enable("", "ft_status", 1));
	EXPECT_EQ(EVENT_STATUS_FTRACE, self->page[reg.status_index]);
	ASSERT_EQ(0, uet_enable("", "ft_status", 0));
	EXPECT_EQ(0, self->page[reg.status_index]);

	rmdir(TRACEFS "instances/ue_ft");
	ASSERT_EQ(0, mkdir(TRACEFS "instances/ue_ft", 0755));
	ASSERT_EQ(0, uet_enable("instances/ue_ft/", "ft_status", 1));
	EXPECT_EQ(EVENT_STATUS_FTRACE, self->page[reg.status_index]);
	ASSERT_EQ(0, uet_enable("", "ft_status", 1));
	ASSERT_EQ(0, uet_enable("instances/ue_ft/", "ft_status", 0));
	/* still attached in the top instance */
	EXPECT_EQ(EVENT_STATUS_FTRACE, self->page[reg.status_index]);
	ASSERT_EQ(0, uet_enable("", "ft_status", 0));
	EXPECT_EQ(0, self->page[reg.status_index]);
	EXPECT_EQ(0, rmdir(TRACEFS "instances/ue_ft"));
}

struct vals {
	int idx;
	unsigned int a;
	int b;
	char c[8];
	unsigned int s_loc;	/* __rel_loc: from the end of this field */
	unsigned int d_loc;	/* __data_loc: from the record start */
	char s[6];		/* "hello" */
	char d[6];		/* "world" */
};	/* naturally aligned: no padding */

static void fill_vals(struct vals *v, int idx)
{
	/* record offsets: header 8, a 8, b 12, c 16, s_loc 24, d_loc 28, s 32 */
	memset(v, 0, sizeof(*v));
	v->idx = idx;
	v->a = 7;
	v->b = -3;
	memcpy(v->c, "abc", 4);
	v->s_loc = (6 << 16) | 4;	/* s starts 4 bytes after s_loc's end */
	v->d_loc = (6 << 16) | 38;
	memcpy(v->s, "hello", 6);
	memcpy(v->d, "world", 6);
}

#define VALS_DESC "ft_vals u32 a; s32 b; char[8] c; __rel_loc char[] s; __data_loc char[] d"

/* @v as a @size-byte integer at @off of @rec, in the machine's byte order */
static void put_int(unsigned char *rec, int off, long long v, int size)
{
	__u8 v8 = v;
	__u16 v16 = v;
	__u32 v32 = v;

	memcpy(rec + off, size == 1 ? (void *)&v8 : size == 2 ? (void *)&v16 :
	       size == 4 ? (void *)&v32 : (void *)&v, size);
}

/* The C integer types, as trace prints them: decimal, signed or not */
#define INTS_DESC "ft_ints char a; short b; int c; unsigned char d; unsigned short e; " \
	"unsigned int f"

/*
 * A record's fields in trace: every kind of field, each decoded; write()
 * and writev() of the same bytes give the same record
 */
TEST_F(ft, write_reaches_trace)
{
	struct user_status_reg reg;
	unsigned char n[18];
	struct iovec io[3];
	struct vals v;

	ASSERT_EQ(0, uet_register(self->fd, VALS_DESC, &reg));
	ASSERT_EQ(0, uet_enable("", "ft_vals", 1));
	fill_vals(&v, reg.write_index);
	ASSERT_EQ(sizeof(v), write(self->fd, &v, sizeof(v)));
	EXPECT_EQ(1, uet_trace_count("ft_vals: a=7 b=-3 c=abc s=hello d=world\n"))
		TH_LOG("trace: %s", uet_read_file(TRACEFS "trace"));
	/* the same bytes through writev(), cut anywhere: the same record */
	io[0] = (struct iovec){ &v, 3 };
	io[1] = (struct iovec){ (char *)&v + 3, 15 };
	io[2] = (struct iovec){ (char *)&v + 18, sizeof(v) - 18 };
	ASSERT_EQ(sizeof(v), writev(self->fd, io, 3));
	EXPECT_EQ(2, uet_trace_count("ft_vals: a=7 b=-3 c=abc s=hello d=world\n"));

	ASSERT_EQ(0, uet_register(self->fd, INTS_DESC, &reg));
	ASSERT_EQ(0, uet_enable("", "ft_ints", 1));
	/* the index, then a (offset 4), b 5, c 7, d 11, e 12, f 14: packed */
	put_int(n, 0, reg.write_index, 4);
	put_int(n, 4, -1, 1);
	put_int(n, 5, -2, 2);
	put_int(n, 7, -3, 4);
	put_int(n, 11, 250, 1);
	put_int(n, 12, 65000, 2);
	put_int(n, 14, 4000000000u, 4);
	ASSERT_EQ(sizeof(n), write(self->fd, n, sizeof(n)));
	EXPECT_EQ(1, uet_trace_count("ft_ints: a=-1 b=-2 c=-3 d=250 e=65000 f=4000000000\n"))
		TH_LOG("trace: %s", uet_read_file(TRACEFS "trace"));
}

/*
 * Writes of index @idx and @len payload bytes that lie on a page that is
 * not mapped: a writev() whose second iovec is there, and a write() of one
 * buffer whose index ends the page before it. 0 when both take all their
 * bytes, the first errno (as -errno) when they fail alike, else -EPROTO.
 */
static int unreadable_payloads(int fd, __u32 idx, size_t len)
{
	long page = getpagesize();
	struct iovec io[2];
	ssize_t a, b;
	int ea, eb;
	char *p;

	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || munmap(p + page, page))
		return -EPROTO;
	io[0] = (struct iovec){ &idx, sizeof(idx) };
	io[1] = (struct iovec){ p + page, len };
	a = writev(fd, io, 2);
	ea = errno;
	memcpy(p + page - sizeof(idx), &idx, sizeof(idx));
	b = write(fd, p + page - sizeof(idx), sizeof(idx) + len);
	eb = errno;
	munmap(p, page);
	if (a == (ssize_t)(sizeof(idx) + len) && b == a)
		return 0;
	return a == -1 && b == -1 && ea == eb ? -ea : -EPROTO;
}

/* Every error a write can get, and nothing recorded for any of them */
TEST_F(ft, write_errors)
{
	struct user_status_reg reg;
	struct vals v;
	int max, idx;
	char *big;

	ASSERT_EQ(0, uet_register(self->fd, VALS_DESC, &reg));
	fill_vals(&v, reg.write_index);
	/* nothing attached: accepted, not recorded */
	EXPECT_EQ(sizeof(v), write(self->fd, &v, sizeof(v)));
	EXPECT_EQ(0, uet_trace_count("ft_vals:"));
	/* nor read: a payload that cannot be read is taken all the same */
	EXPECT_EQ(0, unreadable_payloads(self->fd, reg.write_index, sizeof(v) - 4));
	ASSERT_EQ(0, uet_enable("", "ft_vals", 1));
	EXPECT_EQ(-EFAULT, unreadable_payloads(self->fd, reg.write_index, sizeof(v) - 4));
	EXPECT_EQ(0, uet_trace_count("ft_vals:"));

	v.idx = -1;
	EXPECT_EQ(-1, write(self->fd, &v, sizeof(v)));
	EXPECT_EQ(EINVAL, errno);
	v.idx = 5;
	EXPECT_EQ(-1, write(self->fd, &v, sizeof(v)));
	EXPECT_EQ(ENOENT, errno);
	v.idx = reg.write_index;
	EXPECT_EQ(-1, write(self->fd, &v, 4 + 19));	/* fixed fields are 24 */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->fd, &v, 2));
	EXPECT_EQ(EINVAL, errno);

	/* __rel_loc past the end, __data_loc into the header, no NUL */
	v.s_loc = (6 << 16) | 40;
	EXPECT_EQ(-1, write(self->fd, &v, sizeof(v)));
	EXPECT_EQ(EFAULT, errno);
	fill_vals(&v, reg.write_index);
	v.d_loc = (4 << 16) | 2;
	EXPECT_EQ(-1, write(self->fd, &v, sizeof(v)));
	EXPECT_EQ(EFAULT, errno);
	fill_vals(&v, reg.write_index);
	v.d[5] = 'x';
	EXPECT_EQ(-1, write(self->fd, &v, sizeof(v)));
	EXPECT_EQ(EFAULT, errno);
	/* the last byte of the record, a one-byte empty string: fine */
	fill_vals(&v, reg.write_index);
	v.d[5] = '\0';
	v.d_loc = (1 << 16) | 43;
	EXPECT_EQ(sizeof(v), write(self->fd, &v, sizeof(v)));
	EXPECT_EQ(1, uet_trace_count("ft_vals:"));

	/* exactly the maximum payload ftrace records, then one byte more */
	max = uet_ftrace_max_payload("");
	ASSERT_LT(0, max);
	big = calloc(1, 4 + max + 1);
	ASSERT_NE(NULL, big);
	fill_vals(&v, reg.write_index);
	memcpy(big, &v, sizeof(v));
	EXPECT_EQ(4 + max, write(self->fd, big, 4 + max));
	EXPECT_EQ(2, uet_trace_count("ft_vals:"));
	EXPECT_EQ(-1, write(self->fd, big, 4 + max + 1));
	EXPECT_EQ(E2BIG, errno);
	free(big);
	EXPECT_EQ(2, uet_trace_count("ft_vals:"));
	idx = reg.write_index;
	EXPECT_EQ(-1, write(self->fd, &idx, 0));
	EXPECT_EQ(EINVAL, errno);
}

/* A payload whose page must be faulted in is recorded; an unmapped one is EFAULT */
TEST_F(ft, faulting_pages)
{
	int page = getpagesize(), mfd, idx;
	struct user_status_reg reg;
	unsigned int *p;
	struct iovec io[2];
	void *gone;

	ASSERT_EQ(0, uet_register(self->fd, "ft_fault u32 x", &reg));
	ASSERT_EQ(0, uet_enable("", "ft_fault", 1));
	mfd = memfd_create("ue", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, page));
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, p);
	*p = 4242;
	/* the mapping is dropped; the value stays in the page cache */
	ASSERT_EQ(0, madvise(p, page, MADV_DONTNEED));
	idx = reg.write_index;
	io[0].iov_base = &idx;
	io[0].iov_len = sizeof(idx);
	io[1].iov_base = p;
	io[1].iov_len = sizeof(*p);
	EXPECT_EQ(8, writev(self->fd, io, 2));
	EXPECT_EQ(1, uet_trace_count("ft_fault: x=4242\n"));

	gone = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, gone);
	ASSERT_EQ(0, munmap(gone, page));
	io[1].iov_base = gone;
	EXPECT_EQ(-1, writev(self->fd, io, 2));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, uet_trace_count("ft_fault:"));
	munmap(p, page);
	close(mfd);
}

/*
 * Delete: EBUSY while an fd holds the event or ftrace is attached. An event
 * enabled but never recorded goes at once, type id and all: not retired.
 */
TEST_F(ft, delete_rules)
{
	struct user_status_reg reg;
	char retired[256];
	int fd2, id;

	ASSERT_EQ(0, uet_register(self->fd, "ft_del u32 x", &reg));
	id = uet_event_id("user_events", "ft_del");
	ASSERT_LT(0, id);
	fd2 = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EBUSY, uet_delete(fd2, "ft_del"));
	close(self->fd);
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_EQ(0, uet_enable("", "ft_del", 1));
	EXPECT_EQ(-EBUSY, uet_delete(fd2, "ft_del"));
	ASSERT_EQ(0, uet_enable("", "ft_del", 0));
	EXPECT_EQ(0, uet_delete(fd2, "ft_del"));
	EXPECT_EQ(-ENOENT, uet_delete(fd2, "ft_del"));
	EXPECT_NE(0, access(TRACEFS "events/user_events/ft_del", F_OK));
	uet_retired_dir("", "user_events", "ft_del", id, retired, sizeof(retired));
	EXPECT_NE(0, access(retired, F_OK)) TH_LOG("%s exists", retired);
	close(fd2);
}

/*
 * What a delete clears: nothing, unlike the removal of other dynamic
 * events (the whole buffer of each instance the event was ever enabled
 * in). The event's record and the kernel's stay, in the instance it was
 * enabled in and in the others; the event is retired, its name free.
 */
TEST_F(ft, delete_clears_nothing)
{
	const char *inst = "instances/ue_scope/";
	struct iovec io[2];
	struct user_status_reg reg;
	__u32 x = 7;

	if (mkdir(TRACEFS "instances/ue_scope", 0755) && errno != EEXIST)
		SKIP(return, "no tracing instances: %s", strerror(errno));
	ASSERT_EQ(0, uet_write_file(TRACEFS "instances/ue_scope/trace", "", O_TRUNC));
	ASSERT_EQ(0, uet_register(self->fd, "ft_scope u32 x", &reg));
	io[0] = (struct iovec){ &reg.write_index, sizeof(reg.write_index) };
	io[1] = (struct iovec){ &x, sizeof(x) };
	ASSERT_EQ(0, uet_enable("", "ft_scope", 1));
	ASSERT_EQ(8, writev(self->fd, io, 2));
	ASSERT_EQ(0, uet_enable("", "ft_scope", 0));
	/* the event's record, and a record of another kind in each buffer */
	ASSERT_EQ(0, uet_write_file(TRACEFS "trace_marker", "scope-top", 0));
	ASSERT_EQ(0, uet_write_file(TRACEFS "instances/ue_scope/trace_marker",
				    "scope-inst", 0));
	ASSERT_EQ(1, uet_instance_trace_count("", "ft_scope: x=7"));
	ASSERT_EQ(1, uet_instance_trace_count("", "scope-top"));
	ASSERT_EQ(1, uet_instance_trace_count(inst, "scope-inst"));

	close(self->fd);
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_EQ(0, uet_delete(self->fd, "ft_scope"));
	EXPECT_EQ(1, uet_instance_trace_count("", "ft_scope: x=7"));
	EXPECT_EQ(1, uet_instance_trace_count("", "scope-top"));
	EXPECT_EQ(1, uet_instance_trace_count(inst, "scope-inst"));
	EXPECT_FALSE(uet_event_exists("user_events", "ft_scope"));
	EXPECT_EQ(0, uet_register(self->fd, "ft_scope u64 y", &reg));
	rmdir(TRACEFS "instances/ue_scope");
}

/* write() of @len payload bytes (index first) from @buf; 0 or -errno */
static int write_len(int fd, char *buf, __u32 idx, long len)
{
	memcpy(buf, &idx, sizeof(idx));
	return write(fd, buf, 4 + len) == 4 + len ? 0 : -errno;
}

/*
 * The largest payload follows the attached consumers: each ftrace buffer's
 * sub-buffer size (buffer_subbuf_size_kb) and perf's PERF_MAX_TRACE_SIZE.
 * A payload over the smallest of their limits is E2BIG and recorded by
 * none of them; with nobody attached any payload up to 64 KiB (less the
 * header) is accepted. write() and writev() are held to the same limits.
 */
TEST_F(ft, payload_limits)
{
	const char *inst = "instances/ue_big/";
	long top, big, in_inst;
	struct user_status_reg reg;
	struct iovec io[2];
	int perf, id;
	char *buf;

	if (uet_skip(_metadata, UE_NEED_PERF))
		return;
	buf = calloc(1, 4 + UE_MAX_PAYLOAD + 1);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, uet_register(self->fd, "ft_big u32 n", &reg));
	id = uet_tracepoint_id("ft_big");
	ASSERT_LT(0, id);

	/* nobody attached */
	EXPECT_EQ(0, write_len(self->fd, buf, reg.write_index, UE_MAX_PAYLOAD));
	EXPECT_EQ(-E2BIG, write_len(self->fd, buf, reg.write_index, UE_MAX_PAYLOAD + 1));

	/* ftrace with the default one-page sub-buffers */
	top = uet_ftrace_max_payload("");
	ASSERT_EQ(getpagesize() - 40, top);
	ASSERT_EQ(0, uet_enable("", "ft_big", 1));
	EXPECT_EQ(0, write_len(self->fd, buf, reg.write_index, top));
	EXPECT_EQ(-E2BIG, write_len(self->fd, buf, reg.write_index, top + 1));
	io[0] = (struct iovec){ buf, 4 };
	io[1] = (struct iovec){ buf + 4, top + 1 };
	EXPECT_EQ(-1, writev(self->fd, io, 2));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(1, uet_trace_count("ft_big: n=0"));

	/* 16 KiB sub-buffers (the change empties the buffer): bigger records */
	ASSERT_EQ(0, uet_write_file(TRACEFS "buffer_subbuf_size_kb", "16", O_TRUNC));
	big = uet_ftrace_max_payload("");
	EXPECT_EQ(16384 - 40, big);
	EXPECT_EQ(0, write_len(self->fd, buf, reg.write_index, big));
	EXPECT_EQ(-E2BIG, write_len(self->fd, buf, reg.write_index, big + 1));
	EXPECT_EQ(1, uet_trace_count("ft_big: n=0"));

	/* perf attached too: its limit is the smaller one now */
	perf = uet_perf_open(id, 0, -1, 1);
	ASSERT_LE(0, perf);
	EXPECT_EQ(0, write_len(self->fd, buf, reg.write_index, UE_PERF_MAX_PAYLOAD));
	EXPECT_EQ(-E2BIG, write_len(self->fd, buf, reg.write_index,
				    UE_PERF_MAX_PAYLOAD + 1));
	close(perf);
	EXPECT_EQ(2, uet_trace_count("ft_big: n=0"));
	EXPECT_EQ(0, write_len(self->fd, buf, reg.write_index, UE_PERF_MAX_PAYLOAD + 1));
	EXPECT_EQ(3, uet_trace_count("ft_big: n=0"));

	/* also enabled in an instance with one-page sub-buffers: its limit */
	if (mkdir(TRACEFS "instances/ue_big", 0755) && errno != EEXIST)
		SKIP(goto out, "no tracing instances: %s", strerror(errno));
	in_inst = uet_ftrace_max_payload(inst);
	EXPECT_EQ(top, in_inst);
	ASSERT_EQ(0, uet_enable(inst, "ft_big", 1));
	EXPECT_EQ(-E2BIG, write_len(self->fd, buf, reg.write_index, in_inst + 1));
	EXPECT_EQ(0, write_len(self->fd, buf, reg.write_index, in_inst));
	EXPECT_EQ(4, uet_trace_count("ft_big: n=0"));
	EXPECT_EQ(1, uet_instance_trace_count(inst, "ft_big: n=0"));
	EXPECT_EQ(0, uet_enable(inst, "ft_big", 0));
	rmdir(TRACEFS "instances/ue_big");
out:
	EXPECT_EQ(0, uet_enable("", "ft_big", 0));
	EXPECT_EQ(0, uet_write_file(TRACEFS "buffer_subbuf_size_kb", "4", O_TRUNC));
	free(buf);
}

/*
 * The line of the one record of "ft_gen: n=@n" in @trace, from the task
 * column on, into @out; how many there are
 */
static int gen_line_in(const char *trace, int n, char *out, size_t size)
{
	const char *p, *line;
	char want[32];
	int found = 0;

	snprintf(want, sizeof(want), "ft_gen: n=%d\n", n);
	*out = '\0';
	for (p = trace; p && (p = strstr(p, want)); p++, found++) {
		for (line = p; line > trace && line[-1] != '\n'; line--)
			;
		/* the time stamp differs: keep task-pid, CPU and flags, and the record */
		snprintf(out, size, "%.*s %.*s", strstr(line, "] ") ?
			 (int)(strstr(line, "] ") - line) + 7 : 0, line,
			 (int)strcspn(p, "\n"), p);
	}
	return found;
}

/* Blank the need-resched flag (the second) of a gen_line_in() line */
static void gen_mask_resched(char *line)
{
	char *flags = strstr(line, "] ");

	if (flags && strlen(flags) > 3)
		flags[3] = '?';
}

/* gen_line_in() of the trace as it is now */
static int gen_line(int n, char *out, size_t size)
{
	char *trace = uet_read_file(TRACEFS "trace");
	int found = gen_line_in(trace, n, out, size);

	free(trace);
	return found;
}

static int gen_write(int fd, __u32 idx, __u32 n)
{
	struct { __u32 idx, n; } rec = { idx, n };

	return write(fd, &rec, sizeof(rec)) == sizeof(rec) ? 0 : -errno;
}

/*
 * A record goes into the ring buffer directly only while nothing of the
 * generic layer (trace_event_buffer_reserve/commit) would act on it, and
 * the two ways give the same trace line; each feature of that layer still
 * acts: a filter, soft disable, pid filtering, kernel and user stack traces.
 */
TEST_F(ft, generic_layer)
{
	struct user_status_reg reg, on;
	char direct[512] = "", generic[512] = "";
	int found_direct, found_generic;
	char pid[32], *trace;
	cpu_set_t one;

	/* one CPU: the lines compared show it */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, uet_register(self->fd, "ft_gen u32 n", &reg));
	ASSERT_EQ(0, uet_register(self->fd, "ft_gen_on u32 n", &on));
	ASSERT_EQ(0, uet_enable("", "ft_gen", 1));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 1));

	/* a filter that passes everything: the generic layer, the same line */
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_gen/filter",
				    "n < 100", O_TRUNC));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 2));
	/*
	 * One read for both: the comm shown is the one saved when reading
	 * (saved at a later context switch, "<...>" until then)
	 */
	trace = uet_read_file(TRACEFS "trace");
	ASSERT_NE(NULL, trace);
	found_direct = gen_line_in(trace, 1, direct, sizeof(direct));
	found_generic = gen_line_in(trace, 2, generic, sizeof(generic));
	free(trace);
	ASSERT_EQ(1, found_direct);
	ASSERT_EQ(1, found_generic);
	direct[strlen(direct) - 1] = '2';
	/* need-resched ('N') is the scheduler's at that moment, not the path's */
	gen_mask_resched(direct);
	gen_mask_resched(generic);
	EXPECT_STREQ(direct, generic);
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 200));
	EXPECT_EQ(0, gen_line(200, generic, sizeof(generic)));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_gen/filter",
				    "0", O_TRUNC));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 200));
	EXPECT_EQ(1, gen_line(200, generic, sizeof(generic)));

	/* pid filtering: another pid only, then nobody */
	ASSERT_EQ(0, uet_write_file(TRACEFS "set_event_pid", "1", O_TRUNC));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 3));
	EXPECT_EQ(0, gen_line(3, generic, sizeof(generic)));
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(0, uet_write_file(TRACEFS "set_event_pid", pid, O_TRUNC));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 3));
	EXPECT_EQ(1, gen_line(3, generic, sizeof(generic)));
	ASSERT_EQ(0, uet_write_file(TRACEFS "set_event_pid", "", O_TRUNC));

	/* soft disable: ft_gen enabled by a trigger of ft_gen_on only */
	ASSERT_EQ(0, uet_enable("", "ft_gen", 0));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_gen_on/trigger",
				    "enable_event:user_events:ft_gen", O_TRUNC));
	ASSERT_EQ(0, uet_enable("", "ft_gen_on", 1));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 4));
	EXPECT_EQ(0, gen_line(4, generic, sizeof(generic)));
	ASSERT_EQ(0, gen_write(self->fd, on.write_index, 0));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 4));
	EXPECT_EQ(1, gen_line(4, generic, sizeof(generic)));
	ASSERT_EQ(0, uet_enable("", "ft_gen_on", 0));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_gen_on/trigger",
				    "!enable_event:user_events:ft_gen", O_TRUNC));

	/* stack traces asked of the instance: one after the record */
	ASSERT_EQ(0, uet_enable("", "ft_gen", 1));
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, uet_write_file(TRACEFS "options/stacktrace", "1", O_TRUNC));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 5));
	ASSERT_EQ(0, uet_write_file(TRACEFS "options/stacktrace", "0", O_TRUNC));
	EXPECT_EQ(1, gen_line(5, generic, sizeof(generic)));
	EXPECT_EQ(1, uet_trace_count("<stack trace>"));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 6));
	EXPECT_EQ(1, uet_trace_count("<stack trace>"));

	/* and the writer's user stack */
	ASSERT_EQ(0, uet_write_file(TRACEFS "options/userstacktrace", "1", O_TRUNC));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 7));
	ASSERT_EQ(0, uet_write_file(TRACEFS "options/userstacktrace", "0", O_TRUNC));
	EXPECT_EQ(1, gen_line(7, generic, sizeof(generic)));
	EXPECT_EQ(1, uet_trace_count("<user stack trace>"));
	ASSERT_EQ(0, gen_write(self->fd, reg.write_index, 8));
	EXPECT_EQ(1, gen_line(8, generic, sizeof(generic)));
	EXPECT_EQ(1, uet_trace_count("<user stack trace>"));
	EXPECT_EQ(0, uet_enable("", "ft_gen", 0));
}

/*
 * Filters and histograms work on the fields like on any trace event;
 * string filters on char[N] and on both kinds of string loc
 */
TEST_F(ft, filter_and_hist)
{
	static const char * const words[][2] = {
		{ "keep", "yes" }, { "keep", "no" }, { "drop", "yes" }, { "kee", "yes" },
	};
	struct user_status_reg reg;
	struct { int idx; unsigned int count; char tag[8]; } rec;
	unsigned char sf[22];
	char *hist;
	int i;

	if (uet_skip(_metadata, UE_NEED_HIST))
		return;
	ASSERT_EQ(0, uet_register(self->fd, "ft_filter u32 count; char[8] tag", &reg));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_filter/filter",
				    "count > 5 && tag == \"keep\"", O_TRUNC));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_filter/trigger",
				    "hist:keys=count", O_TRUNC));
	ASSERT_EQ(0, uet_enable("", "ft_filter", 1));
	for (i = 0; i < 10; i++) {
		rec.idx = reg.write_index;
		rec.count = i;
		memset(rec.tag, 0, sizeof(rec.tag));
		memcpy(rec.tag, i % 2 ? "keep" : "drop", 4);
		ASSERT_EQ(sizeof(rec), write(self->fd, &rec, sizeof(rec)));
	}
	/* 7 and 9 pass the filter */
	EXPECT_EQ(2, uet_trace_count("ft_filter: count="));
	EXPECT_EQ(1, uet_trace_count("ft_filter: count=7 tag=keep\n"));
	hist = uet_read_file(TRACEFS "events/user_events/ft_filter/hist");
	ASSERT_NE(NULL, hist);
	/* the trigger sees every event; the filter only decides what is traced */
	EXPECT_NE(NULL, strstr(hist, "Hits: 10")) TH_LOG("hist: %s", hist);
	EXPECT_NE(NULL, strstr(hist, "{ count:          9 } hitcount:          1"))
		TH_LOG("hist: %s", hist);
	free(hist);
	ASSERT_EQ(0, uet_enable("", "ft_filter", 0));
	EXPECT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_filter/trigger",
				    "!hist:keys=count", O_TRUNC));
	EXPECT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_filter/filter",
				    "0", O_TRUNC));

	ASSERT_EQ(0, uet_register(self->fd, "ft_strf __rel_loc char[] s; __data_loc char[] d",
				  &reg));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_strf/filter",
				    "s == \"keep\" && d == \"yes\"", O_TRUNC));
	ASSERT_EQ(0, uet_enable("", "ft_strf", 1));
	for (i = 0; i < (int)ARRAY_SIZE(words); i++) {
		/*
		 * the index, then s_loc, d_loc, s (5 bytes), d (5): in the
		 * record, s_loc at 8, d_loc 12, s 16, d 21
		 */
		memset(sf, 0, sizeof(sf));
		put_int(sf, 0, reg.write_index, 4);
		put_int(sf, 4, (strlen(words[i][0]) + 1) << 16 | 4, 4);
		put_int(sf, 8, (strlen(words[i][1]) + 1) << 16 | 21, 4);
		memcpy(sf + 12, words[i][0], strlen(words[i][0]) + 1);
		memcpy(sf + 17, words[i][1], strlen(words[i][1]) + 1);
		ASSERT_EQ(sizeof(sf), write(self->fd, sf, sizeof(sf)));
	}
	EXPECT_EQ(1, uet_trace_count("ft_strf: s="))
		TH_LOG("trace: %s", uet_read_file(TRACEFS "trace"));
	EXPECT_EQ(1, uet_trace_count("ft_strf: s=keep d=yes\n"));
	ASSERT_EQ(0, uet_enable("", "ft_strf", 0));
	EXPECT_EQ(0, uet_write_file(TRACEFS "events/user_events/ft_strf/filter", "0",
				    O_TRUNC));
}

/* format: true offsets, sizes and signedness, and a print fmt per type */
TEST_F(ft, format_every_type)
{
	static const char * const lines[] = {
		"field:u8 a;\toffset:8;\tsize:1;\tsigned:0;",
		"field:s8 b;\toffset:9;\tsize:1;\tsigned:1;",
		"field:u16 c;\toffset:10;\tsize:2;\tsigned:0;",
		"field:s16 d;\toffset:12;\tsize:2;\tsigned:1;",
		"field:u32 e;\toffset:14;\tsize:4;\tsigned:0;",
		"field:s32 f;\toffset:18;\tsize:4;\tsigned:1;",
		"field:u64 g;\toffset:22;\tsize:8;\tsigned:0;",
		"field:s64 h;\toffset:30;\tsize:8;\tsigned:1;",
		"field:char i;\toffset:38;\tsize:1;\tsigned:1;",
		"field:short j;\toffset:39;\tsize:2;\tsigned:1;",
		"field:int k;\toffset:41;\tsize:4;\tsigned:1;",
		"field:unsigned int l;\toffset:45;\tsize:4;\tsigned:0;",
		"field:char m[16];\toffset:49;\tsize:16;\tsigned:0;",
		"field:unsigned char n[4];\toffset:65;\tsize:4;\tsigned:0;",
		"field:struct foo o;\toffset:69;\tsize:12;\tsigned:0;",
		"field:__data_loc char[] p;\toffset:81;\tsize:4;\tsigned:0;",
		"field:__rel_loc char q[];\toffset:85;\tsize:4;\tsigned:0;",
		"field:__data_loc u16[] r;\toffset:89;\tsize:4;\tsigned:0;",
		"field:__rel_loc u16 s[];\toffset:93;\tsize:4;\tsigned:0;",
		/* a __rel_loc array's length is REC->s >> 16: see the rst */
		"print fmt: \"a=%hhu b=%hhd c=%hu d=%hd e=%u f=%d g=%llu h=%lld i=%hhd j=%hd k=%d l=%u m=%s n=%s o=%s p=%s q=%s r=%s s=%s\", REC->a, REC->b, REC->c, REC->d, REC->e, REC->f, REC->g, REC->h, REC->i, REC->j, REC->k, REC->l, REC->m, __print_hex_str(REC->n, 4), __print_hex_str(REC->o, 12), __get_str(p), __get_rel_str(q), __print_hex_str(__get_dynamic_array(r), __get_dynamic_array_len(r)), __print_hex_str(__get_rel_dynamic_array(s), REC->s >> 16)",
	};
	struct user_status_reg reg;
	char line[2048];
	int i;

	ASSERT_EQ(0, uet_register(self->fd, "ft_types u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; "
				 "u64 g; s64 h; char i; short j; int k; unsigned int l; "
				 "char[16] m; unsigned char[0x4] n; struct foo o 12; "
				 "__data_loc char[] p; __rel_loc char[] q; "
				 "__data_loc u16[] r; __rel_loc u16[] s", &reg));
	for (i = 0; i < (int)ARRAY_SIZE(lines); i++) {
		char key[64];

		snprintf(key, sizeof(key), "%.*s", (int)(strchr(lines[i], ';') - lines[i]),
			 lines[i]);
		uet_format_line("ft_types", key, line, sizeof(line));
		EXPECT_STREQ(lines[i], line + strspn(line, "\t"));
	}
}

/* ft_long: 8 KiB of bytes, which trace prints as 16 KiB of hex, then a mark */
#define LONG_BYTES 8192
#define LONG_DESC "ft_long unsigned char[1024] a; unsigned char[1024] b; " \
	"unsigned char[1024] c; unsigned char[1024] d; unsigned char[1024] e; " \
	"unsigned char[1024] f; unsigned char[1024] g; unsigned char[1024] h; char[8] z"

/* The line of @text that has @what, or NULL; its length in *@len */
static const char *line_with(const char *text, const char *what, size_t *len)
{
	const char *p = text ? strstr(text, what) : NULL;

	if (!p)
		return NULL;
	while (p > text && p[-1] != '\n')
		p--;
	*len = strcspn(p, "\n");
	return p;
}

/*
 * trace and trace_pipe print at most 8 KiB of a record's line, header
 * included, and cut the rest; the record is whole in the ring buffer, as
 * trace_pipe_raw gives it
 */
TEST_F(ft, long_line_cut)
{
	char *rec, *text, *saved, raw[16384], *p;
	struct user_status_reg reg;
	int n, fd, whole = 0;
	const char *line;
	cpu_set_t one;
	size_t len;

	saved = uet_read_file(TRACEFS "buffer_subbuf_size_kb");
	ASSERT_NE(NULL, saved);
	/* 16 KiB sub-buffers: room for the record */
	ASSERT_EQ(0, uet_write_file(TRACEFS "buffer_subbuf_size_kb", "16", O_TRUNC));
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, uet_register(self->fd, LONG_DESC, &reg));
	ASSERT_EQ(0, uet_enable("", "ft_long", 1));
	rec = calloc(1, 4 + LONG_BYTES + 8);
	ASSERT_NE(NULL, rec);
	memcpy(rec, &reg.write_index, 4);
	memset(rec + 4, 0xab, LONG_BYTES);
	memcpy(rec + 4 + LONG_BYTES, "ENDMARK", 8);
	ASSERT_EQ(4 + LONG_BYTES + 8, write(self->fd, rec, 4 + LONG_BYTES + 8));

	text = uet_read_file(TRACEFS "trace");
	line = line_with(text, "ft_long: a=abab", &len);
	ASSERT_NE(NULL, line) TH_LOG("no ft_long line in trace");
	EXPECT_GE(8192, len);
	EXPECT_LT(8000, len);
	EXPECT_EQ(NULL, strstr(text, "z=ENDMARK"));
	free(text);
	fd = open(TRACEFS "trace_pipe", O_RDONLY | O_NONBLOCK);
	text = uet_read_fd(fd);
	line = line_with(text, "ft_long: a=abab", &len);
	ASSERT_NE(NULL, line) TH_LOG("no ft_long line in trace_pipe");
	EXPECT_GE(8192, len);
	EXPECT_LT(8000, len);
	EXPECT_EQ(NULL, strstr(text, "z=ENDMARK"));
	free(text);

	/* the whole record: its 8 KiB and the mark, in CPU 0's sub-buffers */
	ASSERT_EQ(4 + LONG_BYTES + 8, write(self->fd, rec, 4 + LONG_BYTES + 8));
	fd = open(TRACEFS "per_cpu/cpu0/trace_pipe_raw", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	while ((n = read(fd, raw, sizeof(raw))) > 0) {
		p = memmem(raw, n, "ENDMARK", 8);
		if (p && p - raw >= LONG_BYTES &&
		    !memcmp(p - LONG_BYTES, rec + 4, LONG_BYTES))
			whole++;
	}
	close(fd);
	EXPECT_EQ(1, whole);
	free(rec);
	EXPECT_EQ(0, uet_enable("", "ft_long", 0));
	EXPECT_EQ(0, uet_write_file(TRACEFS "buffer_subbuf_size_kb", saved, O_TRUNC));
	free(saved);
}

#define REQ_END_TRIGGER "hist:keys=id:lat=common_timestamp.usecs-$ts0:" \
	"onmatch(user_events.req_start).trace(req_lat,id,$lat)"

/* The lat of "req_lat: id=@id lat=N" in trace, or -1 */
static long long req_lat_of(const char *trace, int id)
{
	char needle[64];
	const char *p;

	snprintf(needle, sizeof(needle), "req_lat: id=%d lat=", id);
	p = strstr(trace, needle);
	return p ? atoll(p + strlen(needle)) : -1;
}

/*
 * Two user events and hist triggers: req_start saves its timestamp per id,
 * req_end computes the latency and fires the synthetic event req_lat, whose
 * hist:keys=lat.log2 is the distribution.
 */
TEST_F(ft, synthetic_latency)
{
	struct user_status_reg start, end;
	/* write index, then the u64 id (little endian, high half 0) */
	struct { unsigned int idx, id, id_hi; } rec = { 0 };
	long long lat1, lat2;
	char *trace;

	if (uet_skip(_metadata, UE_NEED_HIST | UE_NEED_SYNTH))
		return;
	ASSERT_EQ(0, uet_register(self->fd, "req_start u64 id", &start));
	ASSERT_EQ(0, uet_register(self->fd, "req_end u64 id", &end));
	ASSERT_EQ(0, uet_write_file(TRACEFS "synthetic_events",
				    "req_lat u64 id; u64 lat", O_APPEND));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/req_start/trigger",
				    "hist:keys=id:ts0=common_timestamp.usecs", O_APPEND));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/req_end/trigger",
				    REQ_END_TRIGGER, O_APPEND));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/synthetic/req_lat/enable", "1",
				    O_TRUNC));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/synthetic/req_lat/trigger",
				    "hist:keys=lat.log2", O_TRUNC));
	/* a trigger is an ftrace consumer: writers see it */
	EXPECT_EQ(EVENT_STATUS_FTRACE, self->page[start.status_index]);
	EXPECT_EQ(EVENT_STATUS_FTRACE, self->page[end.status_index]);

	/* request 1 starts, 2 starts and ends 20 ms later, 1 ends 20 ms after */
	rec.idx = start.write_index;
	rec.id = 1;
	ASSERT_EQ(sizeof(rec), write(self->fd, &rec, sizeof(rec)));
	rec.id = 2;
	ASSERT_EQ(sizeof(rec), write(self->fd, &rec, sizeof(rec)));
	usleep(20000);
	rec.idx = end.write_index;
	ASSERT_EQ(sizeof(rec), write(self->fd, &rec, sizeof(rec)));
	usleep(20000);
	rec.id = 1;
	ASSERT_EQ(sizeof(rec), write(self->fd, &rec, sizeof(rec)));
	/* an end without a start matches nothing */
	rec.id = 3;
	ASSERT_EQ(sizeof(rec), write(self->fd, &rec, sizeof(rec)));

	trace = uet_read_file(TRACEFS "trace");
	ASSERT_NE(NULL, trace);
	lat1 = req_lat_of(trace, 1);
	lat2 = req_lat_of(trace, 2);
	/* 20 ms and 40 ms, give or take the guest clock's 4 ms ticks */
	EXPECT_LE(15000, lat2) TH_LOG("trace: %s", trace);
	EXPECT_LE(lat2 + 15000, lat1) TH_LOG("trace: %s", trace);
	EXPECT_EQ(-1, req_lat_of(trace, 3));
	EXPECT_EQ(2, uet_trace_count("req_lat: id="));
	free(trace);
	/* both latencies in buckets of powers of 2 */
	trace = uet_read_file(TRACEFS "events/synthetic/req_lat/hist");
	ASSERT_NE(NULL, trace);
	EXPECT_NE(NULL, strstr(trace, "Hits: 2")) TH_LOG("hist: %s", trace);
	EXPECT_LE(1, uet_count_in(TRACEFS "events/synthetic/req_lat/hist", "{ lat: ~ 2^"))
		TH_LOG("hist: %s", trace);
	free(trace);
	EXPECT_EQ(0, uet_write_file(TRACEFS "events/synthetic/req_lat/trigger",
				    "!hist:keys=lat.log2", O_TRUNC));

	EXPECT_EQ(0, uet_write_file(TRACEFS "events/synthetic/req_lat/enable", "0",
				    O_TRUNC));
	EXPECT_EQ(0, uet_write_file(TRACEFS "events/user_events/req_end/trigger",
				    "!" REQ_END_TRIGGER, O_APPEND));
	EXPECT_EQ(0, uet_write_file(TRACEFS "events/user_events/req_start/trigger",
				    "!hist:keys=id:ts0=common_timestamp.usecs", O_APPEND));
	EXPECT_EQ(0, uet_write_file(TRACEFS "synthetic_events", "!req_lat", O_APPEND));
	/* nobody listens any more */
	EXPECT_EQ(0, self->page[start.status_index]);
	EXPECT_EQ(0, self->page[end.status_index]);
}

UE_HARNESS_MAIN
