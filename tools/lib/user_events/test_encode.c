// SPDX-License-Identifier: GPL-2.0
/*
 * test_encode: the value encoder of the user_events command
 * (tools/tracing/user_events/encode.c) without a kernel: descriptions,
 * the sizes of arrays and structs, descriptions rebuilt from format files
 * and dynamic_events, and the payloads of FIELD=VALUE arguments.
 */
#include <errno.h>
#include <stdint.h>

#include "encode.h"
#include "test_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct uec_desc d;
static char err[512];

/* The format file of the test kernel for this description */
static const char probe_desc[] =
	"probe_all u8 a; s64 b; char[8] c; unsigned char[4] d; __data_loc char[] e; "
	"__rel_loc char[] f; struct foo g 6; __rel_loc u16[] h; __data_loc unsigned char[] i";
static const char probe_format[] =
	"name: probe_all\n"
	"ID: 418\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u8 a;\toffset:8;\tsize:1;\tsigned:0;\n"
	"\tfield:s64 b;\toffset:9;\tsize:8;\tsigned:1;\n"
	"\tfield:char c[8];\toffset:17;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned char d[4];\toffset:25;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] e;\toffset:29;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char f[];\toffset:33;\tsize:4;\tsigned:0;\n"
	"\tfield:struct foo g;\toffset:37;\tsize:6;\tsigned:0;\n"
	"\tfield:__rel_loc u16 h[];\toffset:43;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned char[] i;\toffset:47;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"a=%hhu b=%lld\", REC->a, REC->b\n";

static void test_parse(void)
{
	int ret;

	ret = uec_parse_desc("demo u32 count; __rel_loc char[] msg", &d, err, sizeof(err));
	CHECK(!ret && d.nr_fields == 2 && d.fixed == 8 && !strcmp(d.name, "demo"),
	      "parse: two fields, 8 fixed bytes (%s)", ret ? err : "ok");
	CHECK(!ret && d.fields[1].kind == UEC_LOC && d.fields[1].rel &&
	      d.fields[1].is_char && d.fields[1].offset == 4 &&
	      !strcmp(d.fields[1].type, "__rel_loc char[]"), "parse: __rel_loc char[]");

	ret = uec_parse_desc(probe_desc, &d, err, sizeof(err));
	CHECK(!ret && d.nr_fields == 9 && d.fixed == 43, "parse: every kind, fixed %u",
	      d.fixed);
	CHECK(!ret && d.fields[2].kind == UEC_CHARS && d.fields[2].size == 8 &&
	      d.fields[3].kind == UEC_BYTES && d.fields[6].kind == UEC_BYTES &&
	      d.fields[6].size == 6 && !strcmp(d.fields[6].type, "struct foo") &&
	      d.fields[7].elem == 2 && !d.fields[8].rel,
	      "parse: char[N], unsigned char[N], struct, u16[] and __data_loc");

	ret = uec_parse_desc("ev:BPF_ITER u8 x;", &d, err, sizeof(err));
	CHECK(!ret && !strcmp(d.name, "ev") && d.nr_fields == 1 &&
	      !strcmp(d.text, "ev:BPF_ITER u8 x;"), "parse: flags and a trailing ';'");
	ret = uec_parse_desc("  bare", &d, err, sizeof(err));
	CHECK(!ret && !strcmp(d.name, "bare") && !d.nr_fields, "parse: no fields");
	CHECK(uec_parse_desc("x unsigned int[0x10] y", &d, err, sizeof(err)) == -EINVAL,
	      "parse: only char arrays take [N]");
	CHECK(uec_parse_desc("x char[0x10] y", &d, err, sizeof(err)) == 0 &&
	      d.fields[0].size == 16, "parse: hex array size");
	CHECK(uec_parse_desc("x long y", &d, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "long"), "parse: long refused (%s)", err);
	CHECK(uec_parse_desc("x struct foo y", &d, err, sizeof(err)) == -EINVAL,
	      "parse: struct needs a size");
	CHECK(uec_parse_desc("x u32 y 4", &d, err, sizeof(err)) == -EINVAL,
	      "parse: size on a non-struct refused");
	CHECK(uec_parse_desc("1x u32 y", &d, err, sizeof(err)) == -EINVAL,
	      "parse: name starting with a digit refused");
	CHECK(uec_parse_desc("x u32 y; u8 y", &d, err, sizeof(err)) == -EINVAL,
	      "parse: duplicate field refused");
	CHECK(uec_parse_desc("x u32 y;; u8 z", &d, err, sizeof(err)) == -EINVAL,
	      "parse: empty field refused");
	CHECK(uec_parse_desc("x char[2000] y", &d, err, sizeof(err)) == -EINVAL,
	      "parse: arrays up to 1024");
	CHECK(uec_parse_desc("x __rel_loc char y", &d, err, sizeof(err)) == -EINVAL,
	      "parse: loc fields need []");
}

/* Sizes of arrays and structs: decimal or 0x hex, no leading zeros, 1..1024 */
static void test_sizes(void)
{
	static const struct {
		const char *desc;
		unsigned int size;	/* 0: refused */
	} cases[] = {
		{ "x char[7] y", 7 },
		{ "x char[0x14] y", 20 },
		{ "x char[0X1f] y", 31 },
		{ "x unsigned char[1024] y", 1024 },
		{ "x char[0x400] y", 1024 },
		{ "x struct foo y 0x10", 16 },
		{ "x char[0x0014] y", 0 },
		{ "x char[020] y", 0 },
		{ "x char[00] y", 0 },
		{ "x char[0] y", 0 },
		{ "x char[0x0] y", 0 },
		{ "x char[0x] y", 0 },
		{ "x char[1025] y", 0 },
		{ "x char[0x401] y", 0 },
		{ "x char[12a] y", 0 },
		{ "x char[0x1g] y", 0 },
		{ "x char[+5] y", 0 },
		{ "x char[-5] y", 0 },
		{ "x char[] y", 0 },
		{ "x struct foo y 010", 0 },
		{ "x struct foo y 0x06", 0 },
	};
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ret = uec_parse_desc(cases[i].desc, &d, err, sizeof(err));
		if (cases[i].size)
			CHECK(!ret && d.fields[0].size == cases[i].size,
			      "size: '%s' is %u", cases[i].desc, cases[i].size);
		else
			CHECK(ret == -EINVAL, "size: '%s' refused", cases[i].desc);
	}
}

static void test_format(void)
{
	char bad[sizeof(probe_format)], *p;
	int ret;

	ret = uec_desc_from_format(probe_format, &d, err, sizeof(err));
	CHECK(!ret && !strcmp(d.text, probe_desc),
	      "format: description rebuilt: '%s'", ret ? err : d.text);
	memcpy(bad, probe_format, sizeof(bad));
	p = strstr(bad, "offset:47");
	p[8] = '8';
	CHECK(uec_desc_from_format(bad, &d, err, sizeof(err)) == -EINVAL,
	      "format: inconsistent offsets refused");
	CHECK(uec_desc_from_format("ID: 3\n", &d, err, sizeof(err)) == -EINVAL,
	      "format: no name refused");
}

static void test_dynamic_events(void)
{
	static const char text[] =
		"u:other u8 x\n"
		"u:demo2 u16 y\n"
		"u:demo:BPF_ITER u32 count; __rel_loc char[] msg\n"
		"p:kprobes/x do_sys_open\n";
	int ret;

	ret = uec_desc_from_dynamic_events(text, "demo", &d, err, sizeof(err));
	CHECK(!ret && !strcmp(d.text, "demo:BPF_ITER u32 count; __rel_loc char[] msg") &&
	      d.nr_fields == 2, "dynamic_events: exact name with flags");
	CHECK(uec_desc_from_dynamic_events(text, "dem", &d, err, sizeof(err)) == -ENOENT,
	      "dynamic_events: no prefix match");
	ret = uec_desc_from_dynamic_events("u:solo\n", "solo", &d, err, sizeof(err));
	CHECK(!ret && !d.nr_fields, "dynamic_events: an event without fields");
}

static int encode(const char *desc, const char * const *assign, int n,
		  unsigned char *rec)
{
	if (uec_parse_desc(desc, &d, err, sizeof(err)))
		return -1000;
	return uec_encode(&d, assign, n, rec, 4096, err, sizeof(err));
}

static void test_encode(void)
{
	unsigned char rec[4096];
	uint32_t loc;
	uint16_t u16;
	int64_t s64;
	int len;
	static const char * const ints[] = { "a=200", "b=-9000000000000000000", "c=0x7f", "d=-1" };
	static const char * const range1[] = { "a=256" };
	static const char * const range2[] = { "c=-129" };
	static const char * const strs[] = { "c=abc", "d=0xdeadbeef", "e=hi", "f=there",
					     "g=01:02:03:04:05:06",
					     "h=1,0x102", "i=ff" };
	static const char * const unknown[] = { "zz=1" };
	static const char * const noeq[] = { "a" };
	static const char * const long_chars[] = { "c=123456789" };
	static const char * const long_hex[] = { "d=0x0102030405" };
	static const char * const bad_hex[] = { "d=0xgg" };

	len = encode("x u8 a; s64 b; s8 c; int d", ints, 4, rec);
	memcpy(&s64, rec + 1, 8);
	CHECK(len == 14 && rec[0] == 200 && s64 == -9000000000000000000LL &&
	      rec[9] == 0x7f && !memcmp(rec + 10, "\xff\xff\xff\xff", 4),
	      "encode: integers, negative and hex (len %d)", len);
	CHECK(encode("x u8 a", range1, 1, rec) == -EINVAL && strstr(err, "a"),
	      "encode: u8=256 refused (%s)", err);
	CHECK(encode("x s8 c", range2, 1, rec) == -EINVAL, "encode: s8=-129 refused");
	CHECK(encode("x u8 a", unknown, 1, rec) == -EINVAL && strstr(err, "zz"),
	      "encode: unknown field refused (%s)", err);
	CHECK(encode("x u8 a", noeq, 1, rec) == -EINVAL, "encode: FIELD without = refused");

	len = encode(probe_desc, strs, 7, rec);
	CHECK(len > 0, "encode: every kind (%s)", len > 0 ? "ok" : err);
	if (len <= 0)
		return;
	CHECK(!memcmp(rec + 9, "abc\0\0\0\0\0", 8), "encode: char[8] padded with NULs");
	CHECK(!memcmp(rec + 17, "\xde\xad\xbe\xef", 4), "encode: unsigned char[4] from hex");
	/* e: __data_loc at payload 21, data at 43 (record 51), "hi\0" */
	memcpy(&loc, rec + 21, 4);
	CHECK(loc == (3 << 16 | 51) && !memcmp(rec + 43, "hi", 3),
	      "encode: __data_loc string, loc 0x%08x", loc);
	/* f: __rel_loc ending at payload 29, data at 46 */
	memcpy(&loc, rec + 25, 4);
	CHECK(loc == (6 << 16 | 17) && !memcmp(rec + 46, "there", 6),
	      "encode: __rel_loc string, loc 0x%08x", loc);
	CHECK(!memcmp(rec + 29, "\x01\x02\x03\x04\x05\x06", 6),
	      "encode: struct from colon-separated hex");
	/* h: __rel_loc u16[] ending at payload 39, data at 52 */
	memcpy(&loc, rec + 35, 4);
	memcpy(&u16, rec + 54, 2);
	CHECK(loc == (4 << 16 | 13) && rec[52] == 1 && u16 == 0x102,
	      "encode: __rel_loc u16[] from a list, loc 0x%08x", loc);
	/* i: __data_loc unsigned char[], data at 56 (record 64) */
	memcpy(&loc, rec + 39, 4);
	CHECK(loc == (1 << 16 | 64) && rec[56] == 0xff && len == 57,
	      "encode: __data_loc bytes, loc 0x%08x, len %d", loc, len);

	len = encode(probe_desc, NULL, 0, rec);
	memcpy(&loc, rec + 25, 4);
	CHECK(len == 45 && loc == (1 << 16 | 15) && rec[43] == 0 && rec[44] == 0,
	      "encode: fields not given are zero, strings empty (len %d)", len);
	CHECK(encode("x char[8] c", long_chars, 1, rec) == -EINVAL,
	      "encode: char[8] value too long refused");
	CHECK(encode("x unsigned char[4] d", long_hex, 1, rec) == -EINVAL,
	      "encode: too many hex bytes refused");
	CHECK(encode("x unsigned char[4] d", bad_hex, 1, rec) == -EINVAL &&
	      strstr(err, "hex"), "encode: bad hex refused (%s)", err);
}

int main(void)
{
	printf("TAP version 13\n");
	test_parse();
	test_sizes();
	test_format();
	test_dynamic_events();
	test_encode();
	return t_done("test_encode");
}
