/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_model.h: the grammar fuzz_test checks the kernel against.
 *
 * A parser of event descriptions written from user_events.rst,
 * which predicts for each description the verdict (accepted, EINVAL,
 * E2BIG), the canonical form dynamic_events shows and the layout of the
 * record. fuzz_desc.c and fuzz_bits.c generate descriptions and compare
 * what the kernel did with it; it holds no randomness and makes no system
 * call. The models of the enable-bit ABI are in fuzz_bits.c and fuzz_race.c.
 */
#ifndef FUZZ_MODEL_H
#define FUZZ_MODEL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../kselftest.h"

/* The grammar ------------------------------------------------------------- */

#define DESC_LIMIT	511		/* description bytes, the NUL not counted */
/* What dynamic_events shows before a default-group event's description */
#define DYN_PREFIX	"u:"
#define DYN_SKIP	(sizeof(DYN_PREFIX) - 1)
#define TEXT_MAX	2048		/* generated text: longer than the limit */
#define MAX_FIELDS	128		/* more than 511 bytes can describe */
#define MAX_WORDS	8

/* What the ABI says a description gets */
enum verdict { V_OK, V_EINVAL, V_E2BIG, V_ANY };

static const char * const verdict_names[] = { "accepted", "EINVAL", "E2BIG", "either" };

enum field_kind { K_INT, K_CHARS, K_BYTES, K_STRUCT, K_LOC_STR, K_LOC_ARR };

struct field {
	char name[256];
	char base[32];		/* scalar or element type: "u32", "unsigned char" */
	char stype[256];	/* struct type name */
	int kind;
	int size;		/* bytes in the record */
	int is_signed;
	int rel;		/* __rel_loc */
	int elem;		/* element size of a loc array */
	int offset;		/* in the record, common header included */
};

struct event_desc {
	char name[256];
	char flags[TEXT_MAX];
	int has_flags;
	int nr;
	struct field f[MAX_FIELDS];
	int min_size;		/* payload bytes the fixed fields need */
	char canon[2 * TEXT_MAX];	/* "u:name[:flags][ fields]" */
};

struct base_type {
	const char *name;
	int size;
	int is_signed;
};

static const struct base_type base_types[] = {
	{ "u8", 1, 0 }, { "s8", 1, 1 }, { "u16", 2, 0 }, { "s16", 2, 1 },
	{ "u32", 4, 0 }, { "s32", 4, 1 }, { "u64", 8, 0 }, { "s64", 8, 1 },
	{ "char", 1, 1 }, { "short", 2, 1 }, { "int", 4, 1 },
	{ "unsigned char", 1, 0 }, { "unsigned short", 2, 0 },
	{ "unsigned int", 4, 0 },
};

/* The reference parser, from user_events.rst's descriptions and fields ----- */

static int is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_word_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '_';
}

/* [A-Za-z_][A-Za-z0-9_]*, any length */
static int is_ident(const char *s, int len)
{
	int i;

	if (len < 1 || is_digit(s[0]))
		return 0;
	for (i = 0; i < len; i++)
		if (!is_word_char((unsigned char)s[i]))
			return 0;
	return 1;
}

/* The value of a hex digit of either case, or -1 */
static int hex_digit(int c)
{
	static const char digits[] = "0123456789abcdef0123456789ABCDEF";
	const char *at = c ? strchr(digits, c) : NULL;

	return at ? (int)(at - digits) % 16 : -1;
}

/*
 * N of char[N] or a struct size: 1 to 1024, decimal or 0x hex, without
 * leading zeros in either (ABI rule 9: "char[0x14]", not "char[0x0014]"
 * nor "char[020]"). A '+' sign is refused.
 */
static enum verdict parse_number(const char *s, int len, int *val)
{
	unsigned long long v = 0;
	int i;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (s[2] == '0')
			return V_EINVAL;
		for (i = 2; i < len; i++) {
			int d = hex_digit((unsigned char)s[i]);

			if (d < 0)
				return V_EINVAL;
			if (v < (1ULL << 40))
				v = v * 16 + d;
		}
		if (v < 1 || v > 1024)
			return V_EINVAL;
		*val = (int)v;
		return V_OK;
	}
	if (len < 1)
		return V_EINVAL;
	for (i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return V_EINVAL;
		if (v < (1ULL << 40))
			v = v * 10 + s[i] - '0';
	}
	if ((s[0] == '0' && len > 1) || v < 1 || v > 1024)
		return V_EINVAL;
	*val = (int)v;
	return V_OK;
}

struct words {
	const char *w[MAX_WORDS];
	int len[MAX_WORDS];
	int n;
};

static int split_words(const char *s, int len, struct words *wd)
{
	int i = 0;

	wd->n = 0;
	while (i < len) {
		int start;

		while (i < len && is_ws((unsigned char)s[i]))
			i++;
		if (i == len)
			break;
		if (wd->n == MAX_WORDS)
			return -1;
		start = i;
		while (i < len && !is_ws((unsigned char)s[i]))
			i++;
		wd->w[wd->n] = s + start;
		wd->len[wd->n++] = i - start;
	}
	return 0;
}

static int word_is(const struct words *wd, int i, const char *s)
{
	return i < wd->n && wd->len[i] == (int)strlen(s) &&
	       !memcmp(wd->w[i], s, wd->len[i]);
}

static const struct base_type *find_base(const char *name, int len)
{
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(base_types); i++)
		if ((int)strlen(base_types[i].name) == len &&
		    !memcmp(base_types[i].name, name, len))
			return &base_types[i];
	return NULL;
}

static void copy_word(char *dst, size_t size, const char *s, int len)
{
	snprintf(dst, size, "%.*s", len, s);
}

/* A field or struct type name: 255 characters at most, like event names */
static enum verdict check_name(const char *s, int len, char *dst)
{
	if (!is_ident(s, len) || len > 255)
		return V_EINVAL;
	copy_word(dst, 256, s, len);
	return V_OK;
}

/* A field name: the record's header fields are common_*, refused */
static enum verdict check_field_name(const char *s, int len, char *dst)
{
	if (len >= 7 && !memcmp(s, "common_", 7))
		return V_EINVAL;
	return check_name(s, len, dst);
}

/* Event names that are also files of events/user_events/: refused */
static int system_file_name(const char *s, int len)
{
	return (len == 6 && !memcmp(s, "enable", 6)) ||
	       (len == 6 && !memcmp(s, "filter", 6));
}

static enum verdict worst(enum verdict a, enum verdict b)
{
	if (a == V_EINVAL || b == V_EINVAL)
		return V_EINVAL;
	return a == V_ANY || b == V_ANY ? V_ANY : V_OK;
}

/* "struct T name SIZE" */
static enum verdict parse_struct(const struct words *wd, struct field *f)
{
	enum verdict v;

	if (wd->n != 4)
		return V_EINVAL;
	v = worst(check_name(wd->w[1], wd->len[1], f->stype),
		  check_field_name(wd->w[2], wd->len[2], f->name));
	v = worst(v, parse_number(wd->w[3], wd->len[3], &f->size));
	f->kind = K_STRUCT;
	return v;
}

/* [__data_loc|__rel_loc] TYPE[[N]|[]] NAME, TYPE maybe "unsigned X" */
static enum verdict parse_plain(const struct words *wd, struct field *f)
{
	static char type[TEXT_MAX];
	const struct base_type *bt;
	enum verdict v = V_OK;
	int i = 0, loc = 0, tlen;
	char *br;

	if (word_is(wd, 0, "__data_loc") || word_is(wd, 0, "__rel_loc")) {
		loc = 1;
		f->rel = word_is(wd, 0, "__rel_loc");
		i = 1;
	}
	if (word_is(wd, i, "unsigned") && i + 1 < wd->n) {
		snprintf(type, sizeof(type), "unsigned %.*s", wd->len[i + 1], wd->w[i + 1]);
		i += 2;
	} else if (i < wd->n) {
		copy_word(type, sizeof(type), wd->w[i], wd->len[i]);
		i++;
	}
	if (i != wd->n - 1)
		return V_EINVAL;
	br = strchr(type, '[');
	tlen = br ? br - type : (int)strlen(type);
	bt = find_base(type, tlen);
	if (!bt)
		return V_EINVAL;
	snprintf(f->base, sizeof(f->base), "%s", bt->name);
	if (loc) {
		if (!br || strcmp(br, "[]"))
			return V_EINVAL;
		f->kind = strcmp(bt->name, "char") ? K_LOC_ARR : K_LOC_STR;
		f->size = 4;
		f->elem = bt->size;
	} else if (br) {
		int blen = strlen(br);

		if (strcmp(bt->name, "char") && strcmp(bt->name, "unsigned char"))
			return V_EINVAL;
		if (blen < 3 || br[blen - 1] != ']')
			return V_EINVAL;
		v = parse_number(br + 1, blen - 2, &f->size);
		f->kind = strcmp(bt->name, "char") ? K_BYTES : K_CHARS;
	} else {
		f->kind = K_INT;
		f->size = bt->size;
		f->is_signed = bt->is_signed;
	}
	return worst(v, check_field_name(wd->w[i], wd->len[i], f->name));
}

static enum verdict parse_field(const char *s, int len, struct field *f)
{
	struct words wd;

	memset(f, 0, sizeof(*f));
	if (split_words(s, len, &wd) || wd.n < 2)
		return V_EINVAL;
	if (word_is(&wd, 0, "struct"))
		return parse_struct(&wd, f);
	return parse_plain(&wd, f);
}

static int is_blank(const char *s, int len)
{
	int i;

	for (i = 0; i < len; i++)
		if (!is_ws((unsigned char)s[i]))
			return 0;
	return 1;
}

/* "a,B_2": one or more comma-separated [A-Za-z0-9_]+ */
static int flags_ok(const char *s, int len)
{
	int i, run = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == ',') {
			if (!run)
				return 0;
			run = 0;
		} else if (is_word_char((unsigned char)s[i])) {
			run++;
		} else {
			return 0;
		}
	}
	return run > 0;
}

static void field_canon(const struct field *f, char *out, size_t size)
{
	switch (f->kind) {
	case K_INT:
		snprintf(out, size, "%s %s", f->base, f->name);
		break;
	case K_CHARS:
	case K_BYTES:
		snprintf(out, size, "%s[%d] %s", f->base, f->size, f->name);
		break;
	case K_STRUCT:
		snprintf(out, size, "struct %s %s %d", f->stype, f->name, f->size);
		break;
	default:
		snprintf(out, size, "%s %s[] %s", f->rel ? "__rel_loc" : "__data_loc",
			 f->base, f->name);
		break;
	}
}

static void build_canon(struct event_desc *d)
{
	char one[700];
	size_t o;
	int i;

	o = snprintf(d->canon, sizeof(d->canon), DYN_PREFIX "%s%s%s", d->name,
		     d->has_flags ? ":" : "", d->has_flags ? d->flags : "");
	for (i = 0; i < d->nr && o < sizeof(d->canon); i++) {
		field_canon(&d->f[i], one, sizeof(one));
		o += snprintf(d->canon + o, sizeof(d->canon) - o, "%s%s",
			      i ? "; " : " ", one);
	}
}

/*
 * What the ABI says of @desc. With V_OK, @d holds the event: name, flags,
 * fields with their record offsets, and its canonical dynamic_events line.
 */
static inline enum verdict oracle(const char *desc, struct event_desc *d)
{
	const char *p = desc, *end, *colon, *rest, *piece;
	enum verdict v = V_OK;
	int len = strlen(desc), i, j, nlen, offset;

	memset(d, 0, offsetof(struct event_desc, f));
	if (len > DESC_LIMIT)
		return V_E2BIG;
	while (is_ws((unsigned char)*p))
		p++;
	for (end = p; *end && !is_ws((unsigned char)*end); end++)
		;
	colon = memchr(p, ':', end - p);
	nlen = colon ? colon - p : end - p;
	if (!is_ident(p, nlen) || nlen > 255)
		return V_EINVAL;
	copy_word(d->name, sizeof(d->name), p, nlen);
	if (system_file_name(p, nlen))
		return V_EINVAL;
	if (colon) {
		if (!flags_ok(colon + 1, end - colon - 1))
			return V_EINVAL;
		copy_word(d->flags, sizeof(d->flags), colon + 1, end - colon - 1);
		d->has_flags = 1;
	}
	rest = end;
	if (!is_blank(rest, strlen(rest))) {
		int count = 1;

		for (piece = rest; *piece; piece++)
			count += *piece == ';';
		piece = rest;
		for (i = 0; i < count; i++) {
			const char *semi = strchr(piece, ';');
			int plen = semi ? semi - piece : (int)strlen(piece);

			/* one trailing ';' is allowed */
			if (i == count - 1 && i > 0 && is_blank(piece, plen))
				break;
			if (d->nr == MAX_FIELDS)
				return V_EINVAL;
			v = worst(v, parse_field(piece, plen, &d->f[d->nr++]));
			if (v == V_EINVAL)
				return V_EINVAL;
			piece = semi ? semi + 1 : piece + plen;
		}
	}
	for (i = 0; i < d->nr; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(d->f[i].name, d->f[j].name))
				return V_EINVAL;
	offset = 8;
	for (i = 0; i < d->nr; i++) {
		d->f[i].offset = offset;
		offset += d->f[i].size;
	}
	d->min_size = offset - 8;
	build_canon(d);
	/* what dynamic_events shows must register again */
	if (strlen(d->canon + DYN_SKIP) > DESC_LIMIT)
		return V_E2BIG;
	return v;
}

#endif /* FUZZ_MODEL_H */
