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
#include "desc_cases.h"
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
	/* the grammar's cases are in desc_cases.h; the message names the word */
	CHECK(uec_parse_desc("x long y", &d, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "long"), "parse: long refused (%s)", err);
}

/* "name[:flags] type name; ..." as dynamic_events shows it */
static void canonical(const struct uec_desc *pd, char *buf, size_t len)
{
	size_t n = strcspn(pd->text, " \t\n;");
	int i;

	n = snprintf(buf, len, "%.*s", (int)n, pd->text);
	for (i = 0; i < pd->nr_fields && n < len; i++) {
		const struct uec_field *f = &pd->fields[i];
		const char *sep = i ? "; " : " ";
		const char *br = strchr(f->type, '[');

		if (f->kind != UEC_LOC && br)
			n += snprintf(buf + n, len - n, "%s%.*s[%u] %s", sep,
				      (int)(br - f->type), f->type, f->size, f->name);
		else if (!strncmp(f->type, "struct ", 7))
			n += snprintf(buf + n, len - n, "%s%s %s %u", sep,
				      f->type, f->name, f->size);
		else
			n += snprintf(buf + n, len - n, "%s%s %s", sep,
				      f->type, f->name);
	}
}

/*
 * The descriptions dyn_test gives the kernel, each accepted or refused
 * here as there; an accepted one must rebuild the form dynamic_events
 * shows it in, so the sizes the encoder lays out are the kernel's.
 */
static void test_desc_table(void)
{
	char shown[UEC_MAX_DESC];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ue_desc_cases); i++) {
		const struct ue_desc_case *c = &ue_desc_cases[i];

		ret = uec_parse_desc(c->desc, &d, err, sizeof(err));
		if (!c->canonical) {
			CHECK(ret == -EINVAL, "desc %s: refused (%d)", c->id, ret);
			continue;
		}
		if (ret) {
			CHECK(0, "desc %s: accepted (%s)", c->id, err);
			continue;
		}
		canonical(&d, shown, sizeof(shown));
		CHECK(!strcmp(shown, c->canonical), "desc %s: shown as '%s' (want '%s')",
		      c->id, shown, c->canonical);
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
		"u:user_events_g/demo u64 z\n"
		"u:user_events_multi/demo.1 u8 w\n"
		"u:demo2 u16 y\n"
		"u:demo:BPF_ITER u32 count; __rel_loc char[] msg\n"
		"p:kprobes/x do_sys_open\n";
	int ret;

	ret = uec_desc_from_dynamic_events(text, "demo", &d, err, sizeof(err));
	CHECK(!ret && !strcmp(d.text, "demo:BPF_ITER u32 count; __rel_loc char[] msg") &&
	      d.nr_fields == 2, "dynamic_events: exact name with flags, the default group's");
	CHECK(uec_desc_from_dynamic_events(text, "dem", &d, err, sizeof(err)) == -ENOENT,
	      "dynamic_events: no prefix match");
	ret = uec_desc_from_dynamic_events("u:solo\n", "solo", &d, err, sizeof(err));
	CHECK(!ret && !d.nr_fields, "dynamic_events: an event without fields");
	/* the default group's system named, as dynamic_events takes it */
	ret = uec_desc_from_dynamic_events("u:user_events/named u32 a\n", "named", &d, err,
					   sizeof(err));
	CHECK(!ret && d.nr_fields == 1 && !strcmp(d.text, "named u32 a"),
	      "dynamic_events: u:user_events/name read too");
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
	test_desc_table();
	test_format();
	test_dynamic_events();
	test_encode();
	return t_done("test_encode");
}
