// SPDX-License-Identifier: GPL-2.0
/*
 * The value encoder of the user_events command. See encode.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* arrays and structs: as the kernel allows */
#define UEC_MAX_ARRAY 1024

static const struct {
	const char *name;
	unsigned int size;
	bool is_signed;
} uec_types[] = {
	{ "u8", 1, false }, { "s8", 1, true }, { "u16", 2, false },
	{ "s16", 2, true }, { "u32", 4, false }, { "s32", 4, true },
	{ "u64", 8, false }, { "s64", 8, true }, { "char", 1, true },
	{ "short", 2, true }, { "int", 4, true }, { "unsigned char", 1, false },
	{ "unsigned short", 2, false }, { "unsigned int", 4, false },
};

static int uec_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static bool uec_name_valid(const char *s)
{
	size_t len = strlen(s), i;

	if (!len || len >= UEC_MAX_NAME || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < len; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	return true;
}

/* "FLAG[,FLAG...]": word characters, one ',' between flags */
static bool uec_flags_valid(const char *s)
{
	const char *c;

	for (c = s; *c; c++)
		if (*c == ',' ? c == s || !c[1] || c[1] == ',' :
		    !(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && *c != '_')
			return false;
	return c != s;
}

/* Split @text in place into at most @max blank-separated words */
static int uec_words(char *text, char **w, int max)
{
	int n = 0;
	char *tok;

	while ((tok = strsep(&text, " \t\n"))) {
		if (!*tok)
			continue;
		if (n == max)
			return -1;
		w[n++] = tok;
	}
	return n;
}

static int uec_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * An array or struct size as the kernel takes it: decimal, or 0x/0X and
 * hex digits, without leading zeros (020 is not octal 16 but refused), 1
 * to UEC_MAX_ARRAY
 */
static int uec_parse_size(const char *s, unsigned int *size)
{
	unsigned int base = 10, v = 0;
	int digit;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '0' || !*s)
		return -1;
	for (; *s; s++) {
		digit = uec_hexval(*s);
		if (digit < 0 || (unsigned int)digit >= base)
			return -1;
		v = v * base + digit;
		if (v > UEC_MAX_ARRAY)
			return -1;
	}
	*size = v;
	return 0;
}

/* One "TYPE NAME" or "struct T NAME SIZE", @text modified */
static int uec_parse_field(char *text, struct uec_field *f, char *err,
			   size_t errlen)
{
	char *w[5], *bracket, type[64];
	int n = uec_words(text, w, ARRAY_SIZE(w)), i = 0;
	const char *loc = NULL;
	size_t t;

	memset(f, 0, sizeof(*f));
	if (n < 2)
		return uec_err(err, errlen, -EINVAL, "field needs a type and a name");
	if (!strcmp(w[0], "struct")) {
		if (n != 4 || uec_parse_size(w[3], &f->size) || !uec_name_valid(w[1]))
			return uec_err(err, errlen, -EINVAL,
				       "struct fields are 'struct TYPE NAME SIZE', SIZE 1 to %d",
				       UEC_MAX_ARRAY);
		f->kind = UEC_BYTES;
		snprintf(f->type, sizeof(f->type), "struct %s", w[1]);
		i = 2;
		goto name;
	}
	if (!strcmp(w[0], "__data_loc") || !strcmp(w[0], "__rel_loc"))
		loc = w[i++];
	if (n - i == 3 && !strcmp(w[i], "unsigned")) {
		snprintf(type, sizeof(type), "unsigned %s", w[i + 1]);
		i += 2;
	} else if (n - i == 2) {
		snprintf(type, sizeof(type), "%s", w[i]);
		i++;
	} else {
		return uec_err(err, errlen, -EINVAL,
			       "only struct fields take a size");
	}
	bracket = strchr(type, '[');
	if (bracket)
		*bracket++ = '\0';
	for (t = 0; t < ARRAY_SIZE(uec_types); t++)
		if (!strcmp(uec_types[t].name, type))
			break;
	if (t == ARRAY_SIZE(uec_types))
		return uec_err(err, errlen, -EINVAL, "unknown field type '%s'", type);
	f->elem = uec_types[t].size;
	f->is_signed = uec_types[t].is_signed;
	f->is_char = !strcmp(type, "char");
	if (loc) {
		if (!bracket || strcmp(bracket, "]"))
			return uec_err(err, errlen, -EINVAL,
				       "%s fields are arrays: TYPE[]", loc);
		f->kind = UEC_LOC;
		f->rel = !strcmp(loc, "__rel_loc");
		f->size = 4;
		snprintf(f->type, sizeof(f->type), "%s %s[]", loc, type);
	} else if (bracket) {
		t = strlen(bracket);
		if (!t || bracket[t - 1] != ']' || f->elem != 1)
			return uec_err(err, errlen, -EINVAL,
				       "arrays are char[N] or unsigned char[N]");
		bracket[t - 1] = '\0';
		if (uec_parse_size(bracket, &f->size))
			return uec_err(err, errlen, -EINVAL,
				       "array size must be 1 to %d, decimal or 0x hex without leading zeros",
				       UEC_MAX_ARRAY);
		f->kind = f->is_char ? UEC_CHARS : UEC_BYTES;
		snprintf(f->type, sizeof(f->type), "%s[%u]", type, f->size);
	} else {
		f->kind = UEC_INT;
		f->size = f->elem;
		snprintf(f->type, sizeof(f->type), "%s", type);
	}
name:
	if (!uec_name_valid(w[i]))
		return uec_err(err, errlen, -EINVAL, "bad field name '%s'", w[i]);
	/* the record's header fields are common_* */
	if (!strncmp(w[i], "common_", 7))
		return uec_err(err, errlen, -EINVAL,
			       "field names starting with common_ are reserved");
	memcpy(f->name, w[i], strlen(w[i]) + 1);
	return 0;
}

int uec_parse_desc(const char *desc, struct uec_desc *d, char *err, size_t errlen)
{
	char copy[UEC_MAX_DESC], *list, *field, *colon;
	size_t len = strlen(desc), skip = strspn(desc, " \t\n");
	int i, ret;

	memset(d, 0, sizeof(*d));
	if (len >= UEC_MAX_DESC)
		return uec_err(err, errlen, -E2BIG,
			       "description longer than %d bytes", UEC_MAX_DESC - 1);
	snprintf(d->text, sizeof(d->text), "%s", desc + skip);
	snprintf(copy, sizeof(copy), "%s", desc + skip);
	list = copy + strcspn(copy, " \t\n");
	if (*list)
		*list++ = '\0';
	colon = strchr(copy, ':');
	if (colon) {
		*colon = '\0';
		if (!uec_flags_valid(colon + 1))
			return uec_err(err, errlen, -EINVAL, "bad flag list '%s'",
				       colon + 1);
	}
	if (!uec_name_valid(copy))
		return uec_err(err, errlen, -EINVAL, "bad event name '%s'", copy);
	/* checked: shorter than UEC_MAX_NAME */
	memcpy(d->name, copy, strlen(copy) + 1);
	if (strspn(list, " \t\n") == strlen(list))
		return 0;
	while ((field = strsep(&list, ";"))) {
		/* one trailing ';' is allowed */
		if (!list && d->nr_fields && strspn(field, " \t\n") == strlen(field))
			break;
		if (d->nr_fields == UEC_MAX_FIELDS)
			return uec_err(err, errlen, -E2BIG, "more than %d fields",
				       UEC_MAX_FIELDS);
		ret = uec_parse_field(field, &d->fields[d->nr_fields], err, errlen);
		if (ret)
			return ret;
		for (i = 0; i < d->nr_fields; i++)
			if (!strcmp(d->fields[i].name, d->fields[d->nr_fields].name))
				return uec_err(err, errlen, -EINVAL,
					       "field '%s' twice", d->fields[i].name);
		d->fields[d->nr_fields].offset = d->fixed;
		d->fixed += d->fields[d->nr_fields].size;
		d->nr_fields++;
	}
	return 0;
}

/* Append @fmt to @buf (@size bytes, @len used); -1 when it does not fit */
static int uec_append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *len)
		return -1;
	*len += n;
	return 0;
}

/*
 * One "field:DECL;\toffset:N;\tsize:N;\tsigned:N;" line of a format file
 * as a description field: "char c[8]" is "char[8] c", "__rel_loc char
 * f[]" is "__rel_loc char[] f", "struct foo g" with size 6 is "struct foo
 * g 6".
 */
static int uec_format_field(char *line, char *out, size_t size,
			    unsigned int *offset, unsigned int *fsize)
{
	char *decl = strstr(line, "field:"), *end, *w[6], *name, *bracket;
	char *off = strstr(line, "offset:"), *sz = strstr(line, "size:");
	size_t len = 0;
	int n, i;

	if (!decl || !off || !sz)
		return -1;
	decl += strlen("field:");
	end = strchr(decl, ';');
	if (!end)
		return -1;
	*end = '\0';
	*offset = strtoul(off + strlen("offset:"), NULL, 10);
	*fsize = strtoul(sz + strlen("size:"), NULL, 10);
	n = uec_words(decl, w, ARRAY_SIZE(w));
	if (n < 2)
		return -1;
	name = w[n - 1];
	bracket = strchr(name, '[');
	if (bracket)
		*bracket = '\0';
	for (i = 0; i < n - 1; i++)
		if (uec_append(out, size, &len, "%s%s", i ? " " : "", w[i]))
			return -1;
	if (bracket) {
		*bracket = '[';
		if (uec_append(out, size, &len, "%s", bracket))
			return -1;
		*bracket = '\0';
	}
	if (uec_append(out, size, &len, " %s", name))
		return -1;
	if (!strcmp(w[0], "struct") &&
	    uec_append(out, size, &len, " %u", *fsize))
		return -1;
	return 0;
}

int uec_desc_from_format(const char *format, struct uec_desc *d, char *err,
			 size_t errlen)
{
	char desc[UEC_MAX_DESC], field[UEC_MAX_DESC], *copy, *rest, *line;
	unsigned int offset, size, offsets[UEC_MAX_FIELDS], sizes[UEC_MAX_FIELDS];
	int nr = 0, ret, i;
	size_t len = 0;

	copy = strdup(format);
	if (!copy)
		return uec_err(err, errlen, -ENOMEM, "out of memory");
	rest = copy;
	desc[0] = '\0';
	ret = -EINVAL;
	while ((line = strsep(&rest, "\n"))) {
		if (!strncmp(line, "name: ", 6)) {
			if (uec_append(desc, sizeof(desc), &len, "%s", line + 6))
				goto too_long;
			continue;
		}
		if (!strstr(line, "field:"))
			continue;
		if (uec_format_field(line, field, sizeof(field), &offset, &size)) {
			uec_err(err, errlen, ret, "cannot read format line '%s'", line);
			goto out;
		}
		/* the common header is not part of the payload */
		if (strstr(field, " common_") || offset < UEC_HEADER)
			continue;
		if (!len || nr == UEC_MAX_FIELDS) {
			uec_err(err, errlen, ret, "format without a name or too many fields");
			goto out;
		}
		offsets[nr] = offset;
		sizes[nr++] = size;
		if (uec_append(desc, sizeof(desc), &len, "%s%s", nr > 1 ? "; " : " ",
			       field))
			goto too_long;
	}
	if (!len) {
		uec_err(err, errlen, ret, "no 'name:' in the format");
		goto out;
	}
	ret = uec_parse_desc(desc, d, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < nr; i++) {
		if (d->fields[i].offset + UEC_HEADER != offsets[i] ||
		    d->fields[i].size != sizes[i]) {
			ret = uec_err(err, errlen, -EINVAL,
				      "field %s: format says offset %u size %u, the description %u and %u",
				      d->fields[i].name, offsets[i], sizes[i],
				      d->fields[i].offset + UEC_HEADER,
				      d->fields[i].size);
			goto out;
		}
	}
	goto out;
too_long:
	ret = uec_err(err, errlen, -E2BIG, "description longer than %d bytes",
		      UEC_MAX_DESC - 1);
out:
	free(copy);
	return ret;
}

int uec_desc_from_dynamic_events(const char *text, const char *name,
				 struct uec_desc *d, char *err, size_t errlen)
{
	size_t nlen = strlen(name), llen;
	const char *line, *next;
	char desc[UEC_MAX_DESC];

	for (line = text; line && *line; line = next) {
		size_t skip = 2;

		next = strchr(line, '\n');
		llen = next ? (size_t)(next - line) : strlen(line);
		if (next)
			next++;
		if (strncmp(line, "u:", 2))
			continue;
		/* "u:name"; "u:user_events/name", its system named, is that event too */
		if (!strncmp(line + 2, "user_events/", 12))
			skip += 12;
		if (llen < skip + nlen || strncmp(line + skip, name, nlen))
			continue;
		if (line[skip + nlen] != ':' && line[skip + nlen] != ' ' &&
		    skip + nlen != llen)
			continue;
		if (llen - skip >= sizeof(desc))
			return uec_err(err, errlen, -E2BIG, "description too long");
		snprintf(desc, sizeof(desc), "%.*s", (int)(llen - skip), line + skip);
		return uec_parse_desc(desc, d, err, errlen);
	}
	return uec_err(err, errlen, -ENOENT, "no event %s in dynamic_events", name);
}

/* Values ------------------------------------------------------------------ */

static const struct uec_field *uec_find(const struct uec_desc *d,
					const char *name, size_t len)
{
	int i;

	for (i = 0; i < d->nr_fields; i++)
		if (strlen(d->fields[i].name) == len &&
		    !strncmp(d->fields[i].name, name, len))
			return &d->fields[i];
	return NULL;
}

/*
 * An integer in C notation (decimal, 0x hex, 0 octal, negative) that fits
 * @size bytes as a signed or an unsigned number
 */
static int uec_parse_int(const char *s, unsigned int size, uint64_t *v)
{
	uint64_t umax = size == 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;
	int64_t smin = size == 8 ? INT64_MIN : -(int64_t)(1ULL << (8 * size - 1));
	long long sv;
	char *end;

	errno = 0;
	if (*s == '-') {
		sv = strtoll(s, &end, 0);
		if (errno || end == s || *end || sv < smin)
			return -1;
		*v = (uint64_t)sv;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	*v = strtoull(s, &end, 0);
	return errno || *end || *v > umax ? -1 : 0;
}

/* Host byte order, as a C program writes it */
static void uec_put_int(unsigned char *p, unsigned int size, uint64_t v)
{
	uint8_t u8 = v;
	uint16_t u16 = v;
	uint32_t u32 = v;

	switch (size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* Hex bytes, "0x" optional, ':' or ' ' between bytes allowed; the length */
static int uec_parse_hex(const char *s, unsigned char *out, size_t max)
{
	size_t len = 0;
	int hi, lo;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	while (*s) {
		if (*s == ':' || *s == ' ') {
			s++;
			continue;
		}
		hi = uec_hexval(s[0]);
		lo = hi < 0 ? -1 : uec_hexval(s[1]);
		if (lo < 0 || len == max)
			return -1;
		out[len++] = hi << 4 | lo;
		s += 2;
	}
	return len;
}

/* "n,n,..." of @elem-byte integers; the length in bytes */
static int uec_parse_int_list(const char *s, unsigned int elem,
			      unsigned char *out, size_t max)
{
	char buf[32];
	size_t len = 0, n;
	uint64_t v;

	while (*s) {
		n = strcspn(s, ",");
		if (!n || n >= sizeof(buf) || len + elem > max)
			return -1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (uec_parse_int(buf, elem, &v))
			return -1;
		uec_put_int(out + len, elem, v);
		len += elem;
		s += n;
		if (*s == ',' && !*++s)
			return -1;
	}
	return len;
}

/* The bytes of a loc field's value at @out; their number or -1 */
static int uec_loc_value(const struct uec_field *f, const char *s,
			 unsigned char *out, size_t max)
{
	size_t len;

	if (f->is_char) {
		len = strlen(s) + 1;
		if (len > max)
			return -1;
		memcpy(out, s, len);
		return len;
	}
	if (f->elem == 1)
		return uec_parse_hex(s, out, max);
	return uec_parse_int_list(s, f->elem, out, max);
}

const char *uec_value_hint(const struct uec_field *f)
{
	static char buf[64];

	switch (f->kind) {
	case UEC_INT:
		snprintf(buf, sizeof(buf), "%s integer of %u bytes",
			 f->is_signed ? "a signed" : "an unsigned", f->size);
		return buf;
	case UEC_CHARS:
		snprintf(buf, sizeof(buf), "text of up to %u bytes", f->size);
		return buf;
	case UEC_BYTES:
		snprintf(buf, sizeof(buf), "up to %u hex bytes (0xdeadbeef, de:ad)",
			 f->size);
		return buf;
	default:
		return f->is_char ? "text" : f->elem == 1 ? "hex bytes" :
			"comma-separated integers";
	}
}

int uec_encode(const struct uec_desc *d, const char * const *assign, int n,
	       unsigned char *rec, size_t max, char *err, size_t errlen)
{
	const char *values[UEC_MAX_FIELDS] = { NULL };
	const struct uec_field *f;
	size_t dyn = d->fixed;
	uint32_t loc;
	uint64_t v;
	const char *eq;
	int i, len;

	if (d->fixed > max)
		return uec_err(err, errlen, -E2BIG, "payload too large");
	for (i = 0; i < n; i++) {
		eq = strchr(assign[i], '=');
		f = eq ? uec_find(d, assign[i], eq - assign[i]) : NULL;
		if (!eq)
			return uec_err(err, errlen, -EINVAL,
				       "'%s' is not FIELD=VALUE", assign[i]);
		if (!f)
			return uec_err(err, errlen, -EINVAL, "%s has no field '%.*s'",
				       d->name, (int)(eq - assign[i]), assign[i]);
		values[f - d->fields] = eq + 1;
	}
	memset(rec, 0, d->fixed);
	for (i = 0; i < d->nr_fields; i++) {
		const char *s = values[i];

		f = &d->fields[i];
		switch (f->kind) {
		case UEC_INT:
			v = 0;
			if (s && uec_parse_int(s, f->size, &v))
				goto bad;
			uec_put_int(rec + f->offset, f->size, v);
			break;
		case UEC_CHARS:
			if (s && strlen(s) > f->size)
				goto bad;
			if (s)
				memcpy(rec + f->offset, s, strlen(s));
			break;
		case UEC_BYTES:
			if (s && uec_parse_hex(s, rec + f->offset, f->size) < 0)
				goto bad;
			break;
		case UEC_LOC:
			len = uec_loc_value(f, s ? s : "", rec + dyn,
					    (max < UEC_MAX_RECORD ? max : UEC_MAX_RECORD) - dyn);
			if (len < 0)
				goto bad;
			/* __rel_loc from the end of the loc word, __data_loc the record */
			loc = f->rel ? dyn - (f->offset + 4) : dyn + UEC_HEADER;
			uec_put_int(rec + f->offset, 4, (uint64_t)len << 16 | loc);
			dyn += len;
			break;
		}
	}
	return dyn;
bad:
	return uec_err(err, errlen, -EINVAL, "bad value for %s %s: '%s' (expected %s)",
		       f->kind == UEC_LOC ? (f->rel ? "__rel_loc" : "__data_loc") : "field",
		       f->name, values[i], uec_value_hint(f));
}
