// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * test_writer: the iovecs a ue_writer lays out, without a kernel: fixed
 * fields, char[N] padding, __rel_loc and __data_loc offsets, small fields
 * copied into one buffer with the write index, large ones and loc data not
 * copied, the limits, and ue_enabled() of an unregistered event.
 */
#include <errno.h>
#include <stdint.h>

#include "user_events.h"
#include "test_util.h"

/* The bytes @w->iov would write (after ue_write_finish()), in @buf */
static size_t flatten(const struct ue_writer *w, int n, unsigned char *buf)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++) {
		memcpy(buf + len, w->iov[i].iov_base, w->iov[i].iov_len);
		len += w->iov[i].iov_len;
	}
	return len;
}

/* Does some iovec of @w point at @p? (the data was not copied) */
static int references(const struct ue_writer *w, int n, const void *p)
{
	int i;

	for (i = 0; i < n; i++)
		if (w->iov[i].iov_base == p)
			return 1;
	return 0;
}

UE_DEFINE_EVENT(sec_a, "sec_a", "u32 a");
UE_DEFINE_EVENT(sec_b, "sec_b", "");

static void test_rel_loc_example(void)
{
	/* Documentation/trace/user_events.rst: "__rel_loc worked example" */
	static const unsigned char want[] = {
		3, 0, 0, 0,			/* write index */
		1, 0, 0, 0,			/* count = 1 */
		0, 0, 6, 0,			/* msg: size 6, offset 0 */
		'h', 'e', 'l', 'l', 'o', 0,
	};
	struct ue_event ev = UE_EVENT("demo", "u32 count; __rel_loc char[] msg");
	const char *msg = "hello";
	unsigned char buf[64];
	struct ue_writer w;
	int n;

	ev.write_index = 3;
	ue_write_begin(&w, &ev);
	ue_add_u32(&w, 1);
	ue_add_str(&w, msg);
	n = ue_write_finish(&w);
	CHECK(n == 2, "rel_loc example: 2 iovecs (index and fixed part, string), got %d", n);
	CHECK(n > 0 && flatten(&w, n, buf) == sizeof(want) &&
	      !memcmp(buf, want, sizeof(want)), "rel_loc example: the documented bytes");
	CHECK(n > 0 && references(&w, n, msg), "rel_loc example: the string is not copied");
	CHECK(w.iov[0].iov_base == w.scratch && w.iov[0].iov_len == 12,
	      "iov[0] is the writer's buffer: write index, count, loc word");
}

static void test_mixed(void)
{
	struct ue_event ev = UE_EVENT("mixed",
		"u8 a; s16 b; char[6] c; __rel_loc char[] d; __data_loc unsigned char[] e; u64 f; __rel_loc char[] g");
	static const unsigned char bytes[] = { 0xde, 0xad };
	unsigned char buf[128], want[128];
	struct ue_writer w;
	uint32_t loc;
	uint64_t f = 0x0102030405060708ULL;
	int16_t b = -2;
	size_t len, k = 0;
	int n, idx = 0;

	ev.write_index = 0;
	ue_write_begin(&w, &ev);
	ue_add_u8(&w, 0xaa);
	ue_add_s16(&w, -2);
	ue_add_chars(&w, "xy", 6);
	ue_add_str(&w, "dd");
	ue_add_data_loc_array(&w, bytes, sizeof(bytes));
	ue_add_u64(&w, f);
	ue_add_str(&w, NULL);
	n = ue_write_finish(&w);
	CHECK(n > 0, "mixed: laid out (%d iovecs)", n);
	if (n <= 0)
		return;
	len = flatten(&w, n, buf);

	/* the fixed part: 1 + 2 + 6 + 4 + 4 + 8 + 4 = 29 bytes */
	memcpy(want + k, &idx, 4);
	k += 4;
	want[k++] = 0xaa;
	memcpy(want + k, &b, 2);
	k += 2;
	memcpy(want + k, "xy\0\0\0\0", 6);
	k += 6;
	/* d ends at payload 13; its data at 29: rel offset 16 */
	loc = 3 << 16 | 16;
	memcpy(want + k, &loc, 4);
	k += 4;
	/* e's data at payload 32, record 40 */
	loc = 2 << 16 | 40;
	memcpy(want + k, &loc, 4);
	k += 4;
	memcpy(want + k, &f, 8);
	k += 8;
	/* g ends at payload 29; its data at 34: rel offset 5, "" is 1 byte */
	loc = 1 << 16 | 5;
	memcpy(want + k, &loc, 4);
	k += 4;
	memcpy(want + k, "dd", 3);
	k += 3;
	memcpy(want + k, bytes, 2);
	k += 2;
	want[k++] = 0;
	CHECK(len == k, "mixed: %zu bytes, want %zu", len, k);
	CHECK(len == k && !memcmp(buf, want, k), "mixed: every byte in place");
	CHECK(references(&w, n, bytes), "mixed: the byte array is not copied");
	CHECK(w.fixed == 29, "mixed: fixed part of 29 bytes, got %u", w.fixed);
}

static void test_coalesce(void)
{
	struct ue_event ev = UE_EVENT("many", "u32 a; u32 b; u64 c; s8 d");
	struct ue_writer w;
	int n;

	ue_write_begin(&w, &ev);
	ue_add_u32(&w, 1);
	ue_add_u32(&w, 2);
	ue_add_u64(&w, 3);
	ue_add_s8(&w, -4);
	n = ue_write_finish(&w);
	CHECK(n == 1 && w.iov[0].iov_len == 4 + 17,
	      "the index and the scalars share one iovec (%d iovecs)", n);
}

static void test_bytes_and_chars(void)
{
	struct ue_event ev = UE_EVENT("b", "struct pair p 6; char[4] c; char[3] d; char[4] e");
	static const unsigned char pair[6] = { 1, 2, 3, 4, 5, 6 };
	unsigned char buf[64];
	struct ue_writer w;
	int n;

	ue_write_begin(&w, &ev);
	ue_add_bytes(&w, pair, sizeof(pair));
	ue_add_chars(&w, "toolong", 4);
	ue_add_chars(&w, NULL, 3);
	ue_add_chars(&w, "ab", 4);
	n = ue_write_finish(&w);
	CHECK(n > 0 && flatten(&w, n, buf) == 4 + 6 + 4 + 3 + 4 &&
	      !memcmp(buf + 4, pair, 6) && !memcmp(buf + 10, "tool", 4) &&
	      !memcmp(buf + 14, "\0\0\0ab\0\0", 7),
	      "struct bytes in place, char[N] cut at N, NULL and short strings padded");
	CHECK(n == 1 && !references(&w, n, pair), "small fields copied: one buffer (%d)", n);
}

/* Beyond UE_COPY_MAX bytes, char[N] and struct fields are referenced */
static void test_copy_limit(void)
{
	struct ue_event ev = UE_EVENT("big", "char[200] a; struct s b 100; char[8] c; u8 d");
	static unsigned char big[100];
	unsigned char buf[400], want[400];
	struct ue_writer w;
	size_t k = 0;
	int n;

	memset(big, 0xab, sizeof(big));
	ev.write_index = 9;
	ue_write_begin(&w, &ev);
	ue_add_chars(&w, "first", 200);
	ue_add_bytes(&w, big, sizeof(big));
	ue_add_chars(&w, "last", 8);
	ue_add_u8(&w, 5);
	n = ue_write_finish(&w);
	memcpy(want, &ev.write_index, 4);
	k += 4;
	memset(want + k, 0, 200);
	memcpy(want + k, "first", 5);
	k += 200;
	memcpy(want + k, big, 100);
	k += 100;
	memset(want + k, 0, 8);
	memcpy(want + k, "last", 4);
	k += 8;
	want[k++] = 5;
	CHECK(n == 3 && references(&w, n, big),
	      "the field past UE_COPY_MAX is referenced, the ones before and after copied (%d)",
	      n);
	CHECK(n > 0 && flatten(&w, n, buf) == k && !memcmp(buf, want, k),
	      "copied and referenced fields: every byte in place");
}

static void test_limits(void)
{
	struct ue_event ev = UE_EVENT("lim", "");
	struct ue_writer w;
	int i;

	ue_write_begin(&w, &ev);
	for (i = 0; i <= UE_MAX_LOC; i++)
		ue_add_str(&w, "x");
	CHECK(ue_write_finish(&w) == -E2BIG && errno == E2BIG,
	      "more than UE_MAX_LOC loc fields: -E2BIG");

	ue_write_begin(&w, &ev);
	for (i = 0; i < UE_SCRATCH / 8 + 1; i++)
		ue_add_u64(&w, i);
	CHECK(ue_write_finish(&w) == -E2BIG, "scalars beyond UE_SCRATCH: -E2BIG");

	ue_write_begin(&w, &ev);
	ue_add_scalar(&w, &i, 3);
	CHECK(ue_write_finish(&w) == -EINVAL, "a 3-byte scalar: -EINVAL");

	ue_write_begin(&w, &ev);
	ue_add_array(&w, &i, 70000);
	CHECK(ue_write_finish(&w) == -E2BIG, "an array over 64 KiB: -E2BIG");

	ue_write_begin(&w, &ev);
	ue_add_u32(&w, 1);
	ue_add_scalar(&w, &i, 5);
	ue_add_u32(&w, 2);
	CHECK(ue_write_finish(&w) == -EINVAL, "the first error is kept");
}

static void test_unregistered(void)
{
	struct ue_event ev = UE_EVENT("unreg", "u32 a");
	struct ue_event rt;

	CHECK(!ue_enabled(&ev), "an unregistered event is disabled");
	CHECK(ev.status == &ue_disabled_byte && ev.write_index == -1 &&
	      !ev.registered, "UE_EVENT() initial state");
	CHECK(!strcmp(ev.desc, "unreg u32 a"), "UE_EVENT() description '%s'", ev.desc);
	ue_event_init(&rt, "rt u8 x");
	CHECK(!ue_enabled(&rt) && rt.status == &ue_disabled_byte &&
	      !strcmp(rt.desc, "rt u8 x"), "ue_event_init() matches UE_EVENT()");
}

static void test_section(void)
{
	size_t n = __stop_ue_events - __start_ue_events, i, found = 0;

	for (i = 0; i < n; i++)
		found += &__start_ue_events[i] == &sec_a ||
			 &__start_ue_events[i] == &sec_b;
	CHECK(found == 2, "UE_DEFINE_EVENT() events are in the section (%zu of %zu)",
	      found, n);
}

int main(void)
{
	printf("TAP version 13\n");
	test_rel_loc_example();
	test_mixed();
	test_coalesce();
	test_bytes_and_chars();
	test_copy_limit();
	test_limits();
	test_unregistered();
	test_section();
	return t_done("test_writer");
}
