// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: trace events created and written by user processes.
 *
 * A process maps the one status page of user_events_status, registers its
 * events with DIAG_IOCSREG on user_events_data and, when the event's status
 * byte is not zero, writes [write index][payload] to the same file. Each user
 * event is an ordinary trace event of the "user_events" system; the payload
 * becomes the record after the common header, untouched.
 * See Documentation/trace/user_events.rst.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include <linux/cleanup.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/refcount.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stringhash.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <linux/user_events.h>
#include <linux/xarray.h>

#include "trace.h"
#include "trace_dynevent.h"

#define USER_EVENT_MAX_NAME	255
/* A description, NUL included */
#define USER_EVENT_MAX_DESC	512
#define USER_EVENT_MAX_ARRAY	1024
/*
 * The largest payload one ftrace sub-buffer holds in every mode: its data
 * bytes less an absolute time stamp (hist triggers may ask for one) and the
 * common header.
 */
#define USER_EVENT_MAX_PAYLOAD	(PAGE_SIZE - 40)
/* Times a write faults its pages in again before giving up */
#define USER_EVENT_FAULT_TRIES	3
/* A write starts with the event's index, an int; the payload follows */
#define USER_EVENT_INDEX_SIZE	sizeof(int)

enum user_field_kind {
	UF_INT,		/* integer, printed in decimal */
	UF_CHARS,	/* char[N]: text */
	UF_BYTES,	/* unsigned char[N], struct: hex */
	UF_LOC_STR,	/* __data_loc/__rel_loc char[]: NUL-terminated text */
	UF_LOC_ARR,	/* __data_loc/__rel_loc of other elements: hex */
};

struct user_field {
	char			*name;
	char			*type;		/* as ftrace shows it */
	u16			offset;		/* in the record */
	u16			size;
	u8			kind;		/* enum user_field_kind */
	bool			is_signed;
	bool			rel;		/* __rel_loc rather than __data_loc */
	u8			elem_size;	/* of a loc array's elements */
};

struct user_event {
	struct dyn_event	devent;
	struct trace_event_class class;
	struct trace_event_call	call;
	struct tracepoint	tp;
	struct hlist_node	node;		/* in user_event_table */
	/* One for the event itself, one per fd that registered it */
	refcount_t		refs;
	char			*name;
	char			*flags;		/* as registered, or NULL */
	char			*args;		/* canonical field list */
	struct user_field	*fields;
	int			nr_fields;
	int			nr_locs;
	u32			min_size;	/* payload bytes of the fields */
	u32			index;		/* status byte */
	bool			bpf_iter;	/* flag BPF_ITER */
	/* Attached consumers, by kind; event_mutex */
	int			ftrace_users;
	int			perf_users;
};

/*
 * The fd's events; index i is write index i. New events are appended in
 * place (published by the release of count); a full array is replaced by
 * one twice its size, the old one freed by RCU, so registering is O(1).
 */
struct user_event_refs {
	struct rcu_head		rcu;
	int			count;		/* in use, read with acquire */
	int			size;
	struct user_event	*events[] __counted_by(size);
};

struct user_event_fd {
	struct user_event_refs __rcu *refs;
};

/* What the probes of one write report back to the writer */
struct user_event_write {
	int			recorded;	/* records committed */
	bool			faulted;	/* a copy hit a missing page */
	int			err;		/* a final error */
	/* BPF_ITER programs run once per write, not once per try */
	bool			bpf_ran;
	bool			bpf_keep;	/* what they said of perf's sample */
};

typedef void (*user_event_probe_t)(void *data, struct user_event *ue,
				   struct iov_iter *from, size_t len,
				   struct user_event_write *w);

/*
 * event_mutex protects the event table, the status indexes, the consumer
 * counts and the growth of the per-fd arrays: every user_events state change
 * also adds, removes or (un)registers a trace event, which needs it anyway.
 */
static DEFINE_HASHTABLE(user_event_table, 8);
static DEFINE_XARRAY_ALLOC(user_event_by_index);

/* One zeroed page, one status byte per event, mapped into every user */
static struct page *status_page;
static u8 *status_bytes;

static struct dyn_event_operations user_event_ops;

static struct user_event *to_user_event(struct dyn_event *ev)
{
	return container_of(ev, struct user_event, devent);
}

/* Parsing ---------------------------------------------------------------- */

/* A description being parsed, for errors with a caret */
struct user_parse {
	const char	*cmd;	/* the command as the user gave it */
	int		skip;	/* bytes of cmd before the description */
	const char	*desc;	/* start of the working copy */
	bool		quiet;	/* matching only: log nothing */
};

/* error_log keeps a pointer to the table: it must outlive every entry */
static const char * const user_errs[] = {
	"Invalid event name",
	"Invalid flag list",
	"Invalid field name",
	"Duplicate field name",
	"Empty field",
	"Unknown or unsupported field type",
	"long differs between ABIs; use s32/s64/u32/u64",
	"Invalid array or struct size",
	"Only struct fields take a size",
	"struct fields need a size",
	"Description longer than 511 bytes",
	"Canonical form longer than 511 bytes",
	"Name of a file of events/user_events/",
	"Field names starting with common_ are reserved",
	"Event exists with other fields",
};

static void user_parse_err(struct user_parse *p, const char *why,
			   const char *at)
{
	u8 i;

	if (p->quiet)
		return;
	/* an error path: finding the entry by its text keeps callers plain */
	for (i = 0; i < ARRAY_SIZE(user_errs) - 1; i++)
		if (!strcmp(user_errs[i], why))
			break;
	tracing_log_err(NULL, "user_events", p->cmd, (const char **)user_errs, i,
			p->skip + (at ? at - p->desc : 0));
}

/* [A-Za-z0-9_]: the kernel's isalnum() also takes Latin-1 letters */
static bool user_word_char(char c)
{
	return isascii(c) && (isalnum(c) || c == '_');
}

/* The white space that separates words: not \v, \f, \r or Latin-1's */
static bool user_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static char *user_skip_spaces(char *s)
{
	while (user_space(*s))
		s++;
	return s;
}

static bool user_name_valid(const char *name, size_t max)
{
	size_t len = strlen(name), i;

	if (!len || len > max || isdigit(name[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!user_word_char(name[i]))
			return false;
	return true;
}

struct user_base_type {
	const char	*name;
	u8		size;
	bool		is_signed;
};

static const struct user_base_type user_base_types[] = {
	{ "u8", 1, false }, { "s8", 1, true },
	{ "u16", 2, false }, { "s16", 2, true },
	{ "u32", 4, false }, { "s32", 4, true },
	{ "u64", 8, false }, { "s64", 8, true },
	{ "char", 1, true }, { "short", 2, true }, { "int", 4, true },
	{ "unsigned char", 1, false }, { "unsigned short", 2, false },
	{ "unsigned int", 4, false },
};

static const struct user_base_type *user_base_type(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(user_base_types); i++)
		if (!strcmp(user_base_types[i].name, name))
			return &user_base_types[i];
	return NULL;
}

static bool user_is_char(const char *name)
{
	return !strcmp(name, "char") || !strcmp(name, "unsigned char");
}

/* The words of one field, with where each starts in the description */
struct user_words {
	char	*w[6];
	int	n;
};

static int user_split_words(char *field, struct user_words *words)
{
	char *word;

	words->n = 0;
	while ((word = strsep(&field, " \t\n"))) {
		if (!*word)
			continue;
		if (words->n == ARRAY_SIZE(words->w))
			return -EINVAL;
		words->w[words->n++] = word;
	}
	return 0;
}

/* Decimal or 0x hex; no sign, and no leading 0 that C would read as octal */
static int user_parse_size(const char *s, u16 *size)
{
	unsigned int v;

	if (!isdigit(s[0]) || (s[0] == '0' && isdigit(s[1])))
		return -EINVAL;
	if (kstrtouint(s, 0, &v) || !v || v > USER_EVENT_MAX_ARRAY)
		return -EINVAL;
	*size = v;
	return 0;
}

/* "struct T name SIZE" */
static int user_parse_struct(struct user_parse *p, struct user_words *wd,
			     struct user_field *f)
{
	if (wd->n < 4) {
		user_parse_err(p, "struct fields need a size", wd->w[wd->n - 1]);
		return -EINVAL;
	}
	if (wd->n > 4 || user_parse_size(wd->w[3], &f->size)) {
		user_parse_err(p, "Invalid array or struct size", wd->w[3]);
		return -EINVAL;
	}
	if (!user_name_valid(wd->w[1], USER_EVENT_MAX_NAME)) {
		user_parse_err(p, "Unknown or unsupported field type", wd->w[1]);
		return -EINVAL;
	}
	f->kind = UF_BYTES;
	f->type = kasprintf(GFP_KERNEL, "struct %s", wd->w[1]);
	f->name = kstrdup(wd->w[2], GFP_KERNEL);
	return f->type && f->name ? 0 : -ENOMEM;
}

/*
 * The element type "u32", "unsigned char[16]", "char[]" (@type, a copy that
 * starts at @at in the description): its base type, and '[' if any.
 */
static const struct user_base_type *
user_parse_elem(struct user_parse *p, char *type, const char *at,
		char **bracket)
{
	const struct user_base_type *bt;
	char *b = strchr(type, '[');

	if (b)
		*b = '\0';
	bt = user_base_type(type);
	if (!bt && strstr(type, "long"))
		user_parse_err(p, "long differs between ABIs; use s32/s64/u32/u64", at);
	else if (!bt)
		user_parse_err(p, "Unknown or unsupported field type", at);
	if (b)
		*b = '[';
	*bracket = b;
	return bt;
}

/* "[N]" of a fixed array, "[]" of a loc, or none for a scalar */
static int user_parse_array(struct user_parse *p, struct user_field *f,
			    const struct user_base_type *bt, char *b,
			    const char *loc, const char *at)
{
	char *end = b ? strchr(b, ']') : NULL;
	const char *err = "Unknown or unsupported field type";

	if (!b && !loc)
		return 0;
	if (b && end && !end[1]) {
		if (loc && end == b + 1)
			return 0;
		err = "Invalid array or struct size";
		*end = '\0';
		if (!loc && user_is_char(bt->name) && !user_parse_size(b + 1, &f->size))
			return 0;
	}
	user_parse_err(p, err, at);
	return -EINVAL;
}

static int user_field_set_type(struct user_field *f,
			       const struct user_base_type *bt, const char *loc,
			       bool array)
{
	if (loc) {
		f->rel = !strcmp(loc, "__rel_loc");
		f->kind = strcmp(bt->name, "char") ? UF_LOC_ARR : UF_LOC_STR;
		f->elem_size = bt->size;
		f->size = sizeof(u32);
		f->type = kasprintf(GFP_KERNEL, "%s %s[]", loc, bt->name);
	} else if (array) {
		f->kind = strcmp(bt->name, "char") ? UF_BYTES : UF_CHARS;
		f->type = kasprintf(GFP_KERNEL, "%s[%u]", bt->name, f->size);
	} else {
		f->kind = UF_INT;
		f->size = bt->size;
		f->is_signed = bt->is_signed;
		f->type = kstrdup(bt->name, GFP_KERNEL);
	}
	return f->type ? 0 : -ENOMEM;
}

/* [__data_loc|__rel_loc] [unsigned] TYPE[[N]|[]] NAME */
static int user_parse_plain(struct user_parse *p, struct user_words *wd,
			    struct user_field *f)
{
	const struct user_base_type *bt;
	char *loc = NULL, *bracket, *type __free(kfree) = NULL;
	const char *at;
	int i = 0, ret;

	if (!strcmp(wd->w[0], "__data_loc") || !strcmp(wd->w[0], "__rel_loc"))
		loc = wd->w[i++];
	at = wd->w[i];
	/* a type word is as long as the description lets it be */
	if (!strcmp(wd->w[i], "unsigned") && i + 2 < wd->n)
		type = kasprintf(GFP_KERNEL, "unsigned %s", wd->w[++i]);
	else
		type = kstrdup(wd->w[i], GFP_KERNEL);
	if (!type)
		return -ENOMEM;
	if (++i >= wd->n) {
		user_parse_err(p, "Invalid field name", wd->w[wd->n - 1]);
		return -EINVAL;
	}
	if (i + 1 < wd->n) {
		user_parse_err(p, "Only struct fields take a size", wd->w[i + 1]);
		return -EINVAL;
	}
	bt = user_parse_elem(p, type, at, &bracket);
	if (!bt)
		return -EINVAL;
	ret = user_parse_array(p, f, bt, bracket, loc, at);
	if (ret)
		return ret;
	f->name = kstrdup(wd->w[i], GFP_KERNEL);
	if (!f->name)
		return -ENOMEM;
	return user_field_set_type(f, bt, loc, bracket);
}

static int user_parse_field(struct user_parse *p, char *text,
			    struct user_field *f)
{
	struct user_words wd;
	int ret;

	if (user_split_words(text, &wd)) {
		user_parse_err(p, "Only struct fields take a size", text);
		return -EINVAL;
	}
	if (wd.n == 0) {
		user_parse_err(p, "Empty field", text);
		return -EINVAL;
	}
	if (wd.n == 1) {
		user_parse_err(p, "Invalid field name", wd.w[0]);
		return -EINVAL;
	}
	if (!strcmp(wd.w[0], "struct"))
		ret = user_parse_struct(p, &wd, f);
	else
		ret = user_parse_plain(p, &wd, f);
	if (!ret && !user_name_valid(f->name, USER_EVENT_MAX_NAME)) {
		user_parse_err(p, "Invalid field name", wd.w[wd.n - 1]);
		ret = -EINVAL;
	}
	/* common_pid and the like are the record's header; filters see those */
	if (!ret && str_has_prefix(f->name, "common_")) {
		user_parse_err(p, "Field names starting with common_ are reserved",
			       wd.w[wd.n - 1]);
		ret = -EINVAL;
	}
	return ret;
}

static void user_fields_free(struct user_field *fields, int n)
{
	int i;

	for (i = 0; i < n && fields; i++) {
		kfree(fields[i].name);
		kfree(fields[i].type);
	}
	kfree(fields);
}

/* A parsed description: what an event is made of */
struct user_spec {
	char			*name;
	char			*flags;
	char			*args;
	struct user_field	*fields;
	int			nr_fields;
};

static void user_spec_free(struct user_spec *d)
{
	kfree(d->name);
	kfree(d->flags);
	kfree(d->args);
	user_fields_free(d->fields, d->nr_fields);
}

/* The canonical field list: "type name; type name", struct with its size */
static int user_spec_canonical(struct user_spec *d)
{
	struct seq_buf s;
	size_t len = 1;
	int i;

	for (i = 0; i < d->nr_fields; i++)
		len += strlen(d->fields[i].type) + strlen(d->fields[i].name) + 10;
	d->args = kzalloc(len, GFP_KERNEL);
	if (!d->args)
		return -ENOMEM;
	seq_buf_init(&s, d->args, len);
	for (i = 0; i < d->nr_fields; i++) {
		struct user_field *f = &d->fields[i];

		seq_buf_printf(&s, "%s%s %s", i ? "; " : "", f->type, f->name);
		if (!strncmp(f->type, "struct ", 7))
			seq_buf_printf(&s, " %u", f->size);
	}
	return seq_buf_has_overflowed(&s) ? -E2BIG : 0;
}

static int user_parse_fields(struct user_parse *p, char *list,
			     struct user_spec *d)
{
	char *field;
	int i, j, max = 1, ret;

	for (field = list; *field; field++)
		max += *field == ';';
	d->fields = kcalloc(max, sizeof(*d->fields), GFP_KERNEL);
	if (!d->fields)
		return -ENOMEM;
	while ((field = strsep(&list, ";"))) {
		/* one trailing ';' is allowed */
		if (!list && d->nr_fields && !*user_skip_spaces(field))
			break;
		ret = user_parse_field(p, field, &d->fields[d->nr_fields]);
		d->nr_fields++;
		if (ret)
			return ret;
		for (i = 0, j = d->nr_fields - 1; i < j; i++) {
			if (strcmp(d->fields[i].name, d->fields[j].name))
				continue;
			user_parse_err(p, "Duplicate field name", field);
			return -EINVAL;
		}
	}
	return user_spec_canonical(d);
}

/* "name[:FLAG[,FLAG...]]" */
static int user_parse_name(struct user_parse *p, char *name,
			   struct user_spec *d)
{
	char *flags = strchr(name, ':'), *c;

	if (flags) {
		*flags++ = '\0';
		for (c = flags; *c; c++) {
			if (user_word_char(*c) ||
			    (*c == ',' && c != flags && c[1] && c[1] != ','))
				continue;
			user_parse_err(p, "Invalid flag list", flags);
			return -EINVAL;
		}
		if (!*flags) {
			user_parse_err(p, "Invalid flag list", flags);
			return -EINVAL;
		}
		d->flags = kstrdup(flags, GFP_KERNEL);
		if (!d->flags)
			return -ENOMEM;
	}
	if (!user_name_valid(name, USER_EVENT_MAX_NAME)) {
		user_parse_err(p, "Invalid event name", name);
		return -EINVAL;
	}
	/* events/user_events/enable and filter would hide the event's directory */
	if (!strcmp(name, "enable") || !strcmp(name, "filter")) {
		user_parse_err(p, "Name of a file of events/user_events/", name);
		return -EINVAL;
	}
	d->name = kstrdup(name, GFP_KERNEL);
	return d->name ? 0 : -ENOMEM;
}

/* Parse "name[:FLAGS] [field[;field...]]" into @d; @p->desc is a copy */
static int user_parse_desc(struct user_parse *p, char *desc,
			   struct user_spec *d)
{
	char *name = user_skip_spaces(desc), *args;
	size_t len;
	int ret;

	memset(d, 0, sizeof(*d));
	if (strlen(p->cmd) >= USER_EVENT_MAX_DESC + p->skip) {
		user_parse_err(p, "Description longer than 511 bytes", NULL);
		return -E2BIG;
	}
	args = strpbrk(name, " \t\n");
	if (args)
		*args++ = '\0';
	ret = user_parse_name(p, name, d);
	if (!ret && args && *user_skip_spaces(args))
		ret = user_parse_fields(p, args, d);
	else if (!ret)
		ret = user_spec_canonical(d);
	/*
	 * dynamic_events shows "name[:flags] fields" in canonical form, which
	 * joins fields with "; ": it must register again, so it obeys the limit.
	 */
	len = ret ? 0 : strlen(d->name) +
			(d->flags ? strlen(d->flags) + 1 : 0) +
			(d->args[0] ? strlen(d->args) + 1 : 0);
	if (len >= USER_EVENT_MAX_DESC) {
		user_parse_err(p, "Canonical form longer than 511 bytes", NULL);
		ret = -E2BIG;
	}
	if (ret)
		user_spec_free(d);
	return ret;
}

/* Parse a description that user space handed us */
static int user_parse(const char *cmd, int skip, bool quiet,
		      struct user_spec *d)
{
	char *copy __free(kfree) = kstrdup(cmd + skip, GFP_KERNEL);
	struct user_parse p = { .cmd = cmd, .skip = skip, .quiet = quiet };

	if (!copy)
		return -ENOMEM;
	p.desc = copy;
	return user_parse_desc(&p, copy, d);
}

/* Print format and output ------------------------------------------------ */

static void user_field_fmt(struct seq_buf *s, struct user_field *f, bool arg)
{
	const char *loc = f->rel ? "__get_rel" : "__get";

	switch (f->kind) {
	case UF_INT:
		/* libtraceevent sign-extends s8/s16 only with hh/h */
		if (!arg)
			seq_buf_printf(s, "%s=%%%s%c", f->name,
				       f->size == 8 ? "ll" : f->size == 2 ? "h" :
				       f->size == 1 ? "hh" : "",
				       f->is_signed ? 'd' : 'u');
		else
			seq_buf_printf(s, ", REC->%s", f->name);
		break;
	case UF_CHARS:
	case UF_LOC_STR:
		if (!arg)
			seq_buf_printf(s, "%s=%%s", f->name);
		else if (f->kind == UF_CHARS)
			seq_buf_printf(s, ", REC->%s", f->name);
		else
			seq_buf_printf(s, ", %s_str(%s)", loc, f->name);
		break;
	default:
		if (!arg)
			seq_buf_printf(s, "%s=%%s", f->name);
		else if (f->kind == UF_BYTES)
			seq_buf_printf(s, ", __print_hex_str(REC->%s, %u)", f->name,
				       f->size);
		else if (!f->rel)
			seq_buf_printf(s, ", __print_hex_str(__get_dynamic_array(%s), %s",
				       f->name, "__get_dynamic_array_len(");
		else	/* libtraceevent 1.7 crashes on __get_rel_dynamic_array_len() */
			seq_buf_printf(s, ", __print_hex_str(__get_rel_dynamic_array(%s), %s",
				       f->name, "REC->");
		if (arg && f->kind == UF_LOC_ARR)
			seq_buf_printf(s, "%s%s)", f->name, f->rel ? " >> 16" : ")");
		break;
	}
}

/* "f1=%u f2=%s", REC->f1, __get_rel_str(f2) */
static int user_event_set_print_fmt(struct user_event *ue)
{
	struct seq_buf s;
	size_t len = 8;
	char *fmt;
	int i;

	for (i = 0; i < ue->nr_fields; i++)
		len += 3 * strlen(ue->fields[i].name) + 96;
	fmt = kmalloc(len, GFP_KERNEL);
	if (!fmt)
		return -ENOMEM;
	seq_buf_init(&s, fmt, len);
	seq_buf_putc(&s, '"');
	for (i = 0; i < ue->nr_fields; i++) {
		if (i)
			seq_buf_putc(&s, ' ');
		user_field_fmt(&s, &ue->fields[i], false);
	}
	seq_buf_putc(&s, '"');
	for (i = 0; i < ue->nr_fields; i++)
		user_field_fmt(&s, &ue->fields[i], true);
	seq_buf_putc(&s, '\0');
	if (seq_buf_has_overflowed(&s)) {
		kfree(fmt);
		return -E2BIG;
	}
	ue->call.print_fmt = fmt;
	return 0;
}

/*
 * The bytes a __data_loc/__rel_loc field of @rec (@size bytes long) points
 * at, or false when they are not all inside the record.
 */
static bool user_loc_range(struct user_field *f, const void *rec, u32 size,
			   u32 *start, u32 *len)
{
	u32 loc = get_unaligned((const u32 *)(rec + f->offset));

	*len = loc >> 16;
	*start = (loc & 0xffff) + (f->rel ? f->offset + sizeof(u32) : 0);
	return *start >= sizeof(struct trace_entry) && *start <= size &&
	       *len <= size - *start;
}

static bool user_loc_valid(struct user_field *f, const u8 *rec, u32 size)
{
	u32 start, len;

	if (!user_loc_range(f, rec, size, &start, &len))
		return false;
	if (f->kind == UF_LOC_STR)
		return len && !rec[start + len - 1];
	return !(len % f->elem_size);
}

static void user_print_hex(struct trace_seq *s, const u8 *p, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		trace_seq_printf(s, "%02x", p[i]);
}

static void user_print_int(struct trace_seq *s, struct user_field *f,
			   const void *p)
{
	u64 v;

	switch (f->size) {
	case 1:
		v = f->is_signed ? (s64)*(s8 *)p : *(u8 *)p;
		break;
	case 2:
		v = f->is_signed ? (s64)get_unaligned((s16 *)p) : get_unaligned((u16 *)p);
		break;
	case 4:
		v = f->is_signed ? (s64)get_unaligned((s32 *)p) : get_unaligned((u32 *)p);
		break;
	default:
		v = get_unaligned((u64 *)p);
		break;
	}
	trace_seq_printf(s, f->is_signed ? "%lld" : "%llu", v);
}

static void user_print_field(struct trace_seq *s, struct user_field *f,
			     const u8 *rec, u32 size)
{
	u32 start, len;

	trace_seq_printf(s, " %s=", f->name);
	if (f->offset + f->size > size) {
		trace_seq_puts(s, "<truncated>");
		return;
	}
	switch (f->kind) {
	case UF_INT:
		user_print_int(s, f, rec + f->offset);
		break;
	case UF_CHARS:
		trace_seq_printf(s, "%.*s",
				 (int)strnlen((const char *)rec + f->offset, f->size),
				 rec + f->offset);
		break;
	case UF_BYTES:
		user_print_hex(s, rec + f->offset, f->size);
		break;
	default:
		if (!user_loc_range(f, rec, size, &start, &len)) {
			trace_seq_puts(s, "<bad>");
		} else if (f->kind == UF_LOC_STR) {
			trace_seq_printf(s, "%.*s",
					 (int)strnlen((const char *)rec + start, len),
					 rec + start);
		} else {
			user_print_hex(s, rec + start, len);
		}
		break;
	}
}

static enum print_line_t user_event_print(struct trace_iterator *iter,
					  int flags, struct trace_event *event)
{
	struct trace_event_call *call =
		container_of(event, struct trace_event_call, event);
	struct user_event *ue = call->data;
	struct trace_seq *s = &iter->seq;
	int i;

	trace_seq_printf(s, "%s:", ue->name);
	for (i = 0; i < ue->nr_fields; i++)
		user_print_field(s, &ue->fields[i], (const u8 *)iter->ent,
				 iter->ent_size);
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions user_event_funcs = {
	.trace = user_event_print,
};

/*
 * The fields as ftrace defines them: packed (align 1) right after the
 * common header, which is where the payload puts them; arrays with their
 * length so that `format` shows "char msg[16]".
 */
static struct trace_event_fields *user_event_fields_array(struct user_event *ue)
{
	struct trace_event_fields *array;
	int i;

	array = kcalloc(ue->nr_fields + 1, sizeof(*array), GFP_KERNEL);
	if (!array)
		return NULL;
	for (i = 0; i < ue->nr_fields; i++) {
		struct user_field *f = &ue->fields[i];
		struct trace_event_fields tf = {
			.type = f->type,
			.name = f->name,
			.size = f->size,
			.align = 1,
			.is_signed = f->is_signed,
			.filter_type = FILTER_OTHER,
			.len = f->kind == UF_CHARS || f->kind == UF_BYTES ? f->size : 0,
		};

		/* the members are const: fill the slot whole */
		memcpy(&array[i], &tf, sizeof(tf));
	}
	return array;
}

/* Writing ---------------------------------------------------------------- */

/* Are the __data_loc/__rel_loc fields of a @size-byte record sound? */
static bool user_event_locs_valid(struct user_event *ue, const u8 *rec,
				  u32 size)
{
	int i;

	for (i = 0; ue->nr_locs && i < ue->nr_fields; i++)
		if (ue->fields[i].kind >= UF_LOC_STR &&
		    !user_loc_valid(&ue->fields[i], rec, size))
			return false;
	return true;
}

/* user_event_copy() of what is not user memory (io_uring fixed buffers: bvecs) */
static noinline bool user_event_copy_iter(void *dst,
					  const struct iov_iter *from,
					  size_t len)
{
	struct iov_iter rest = *from;

	iov_iter_advance(&rest, USER_EVENT_INDEX_SIZE);
	return copy_from_iter(dst, len, &rest) == len;
}

/*
 * Where the payload of a writev() starts, past the index: in segment *@iov
 * at offset *@off (the next segment when the index ends one). Returns the
 * segments left from there.
 */
static unsigned long user_event_payload_iov(const struct iov_iter *from,
					    const struct iovec **iov,
					    size_t *off)
{
	size_t skip = from->iov_offset + USER_EVENT_INDEX_SIZE;
	const struct iovec *v = iter_iov(from);
	unsigned long nr = from->nr_segs;

	for (; nr && skip >= v->iov_len; v++, nr--)
		skip -= v->iov_len;
	*iov = v;
	*off = skip;
	return nr;
}

/*
 * Copy the @len payload bytes of a write, which follow its index in @from,
 * to @dst. @from is left as it is: every consumer copies from it. Writes
 * come as one user buffer (write()) or user iovecs (writev()): those are
 * copied segment by segment here, at a fraction of the cost of
 * copy_from_iter() on a copy of the iterator. Page faults are disabled (the
 * caller's doing): returns false on a missing page.
 */
static bool user_event_copy(void *dst, const struct iov_iter *from, size_t len)
{
	const struct iovec *iov;
	unsigned long nr;
	void __user *src;
	size_t off, n;

	if (iter_is_ubuf(from)) {
		src = from->ubuf + from->iov_offset + USER_EVENT_INDEX_SIZE;
		return access_ok(src, len) &&
		       !__copy_from_user_inatomic(dst, src, len);
	}
	if (unlikely(!iter_is_iovec(from)))
		return user_event_copy_iter(dst, from, len);
	nr = user_event_payload_iov(from, &iov, &off);
	for (; len && nr; iov++, nr--, off = 0) {
		n = min(iov->iov_len - off, len);
		src = iov->iov_base + off;
		if (!access_ok(src, n) || __copy_from_user_inatomic(dst, src, n))
			return false;
		dst += n;
		len -= n;
	}
	return !len;
}

/* The ftrace consumer: one record per attached trace_event_file */
static void user_event_ftrace(void *data, struct user_event *ue,
			      struct iov_iter *from, size_t len,
			      struct user_event_write *w)
{
	struct trace_event_file *file = data;
	/* filled by the reserve: no need to clear it on every write first */
	struct trace_event_buffer fbuffer __uninitialized;
	void *entry;

	if (trace_trigger_soft_disabled(file))
		return;
	entry = trace_event_buffer_reserve(&fbuffer, file,
					   sizeof(struct trace_entry) + len);
	if (!entry)
		return;
	if (unlikely(!user_event_copy(entry + sizeof(struct trace_entry),
				      from, len))) {
		w->faulted = true;
		goto discard;
	}
	if (!user_event_locs_valid(ue, entry, sizeof(struct trace_entry) + len)) {
		w->err = -EFAULT;
		goto discard;
	}
	trace_event_buffer_commit(&fbuffer);
	w->recorded++;
	return;
discard:
	__trace_event_discard_commit(fbuffer.buffer, fbuffer.event);
}

#ifdef CONFIG_PERF_EVENTS
/*
 * BPF_ITER: the eBPF programs get the writer's data where it is, described
 * by a struct user_bpf_context, instead of a copy. Returns whether the
 * perf events should still get their sample (as a program's return value
 * decides for any tracepoint). Without CONFIG_BPF_EVENTS there are none.
 */
static bool user_event_bpf_iter(struct trace_event_call *call,
				struct iov_iter *from, size_t len)
{
	struct user_bpf_context ctx = { .data_len = len };
	struct user_bpf_iter iter;
	size_t off;

	if (iter_is_ubuf(from)) {
		ctx.data_type = USER_BPF_DATA_USER;
		ctx.udata = (const void __force *)from->ubuf + from->iov_offset +
			    USER_EVENT_INDEX_SIZE;
	} else if (iter_is_iovec(from)) {
		iter.nr_segs = user_event_payload_iov(from, &iter.iov, &off);
		iter.iov_offset = off;
		ctx.data_type = USER_BPF_DATA_ITER;
		ctx.iter = &iter;
	} else {
		return true;
	}
	return trace_call_bpf(call, &ctx);
}

/*
 * The perf consumer: one raw sample for the perf events open on this CPU,
 * after the eBPF programs attached to the tracepoint have run on it (with
 * the standard tracepoint context: the record). BPF_ITER events run their
 * programs on the iovecs first and copy only for the perf samples.
 */
static void user_event_perf(void *data, struct user_event *ue,
			    struct iov_iter *from, size_t len,
			    struct user_event_write *w)
{
	struct trace_event_call *call = data;
	struct hlist_head *head = this_cpu_ptr(call->perf_events);
	bool bpf = bpf_prog_array_valid(call);
	struct trace_entry *entry;
	struct pt_regs *regs;
	int size, rctx;

	if (ue->bpf_iter && bpf) {
		if (!w->bpf_ran) {
			w->bpf_ran = true;
			w->bpf_keep = user_event_bpf_iter(call, from, len);
		}
		if (!w->bpf_keep)
			return;
		bpf = false;
	}
	if (!bpf && hlist_empty(head))
		return;
	/* perf puts a u32 size in front; the whole stays u64-aligned */
	size = ALIGN(sizeof(*entry) + len + sizeof(u32), sizeof(u64)) - sizeof(u32);
	entry = perf_trace_buf_alloc(size, &regs, &rctx);
	if (!entry)
		return;
	perf_fetch_caller_regs(regs);
	if (unlikely(!user_event_copy(entry + 1, from, len))) {
		w->faulted = true;
		goto drop;
	}
	if (!user_event_locs_valid(ue, (u8 *)entry, sizeof(*entry) + len)) {
		w->err = -EFAULT;
		goto drop;
	}
	if (bpf)
		perf_trace_run_bpf_submit(entry, size, rctx, call, 1, regs,
					  head, NULL);
	else
		perf_trace_buf_submit(entry, size, rctx, call->event.type, 1,
				      regs, head, NULL);
	w->recorded++;
	return;
drop:
	perf_swevent_put_recursion_context(rctx);
}
#endif

/* Call every attached consumer, as a tracepoint would, pages not faulted */
static void user_event_call_probes(struct user_event *ue, struct iov_iter *i,
				   size_t len, struct user_event_write *w)
{
	struct tracepoint_func *f;

	preempt_disable_notrace();
	f = rcu_dereference_sched(ue->tp.funcs);
	if (f) {
		pagefault_disable();
		do {
			((user_event_probe_t)f->func)(f->data, ue, i, len, w);
		} while ((++f)->func && !w->err);
		pagefault_enable();
	}
	preempt_enable_notrace();
}

/*
 * The copy runs with page faults disabled; a missing page makes the probe
 * drop its record, and the whole write is retried once the pages are in.
 * Once a consumer has committed, a retry would duplicate its record: a
 * fault after that (the page was reclaimed in between) fails the write.
 */
static int user_event_emit(struct user_event *ue, struct iov_iter *i,
			   size_t len)
{
	struct user_event_write w = {};
	int tries;

	for (tries = 0; tries < USER_EVENT_FAULT_TRIES; tries++) {
		w.faulted = false;
		user_event_call_probes(ue, i, len, &w);
		if (w.err)
			return w.err;
		if (!w.faulted)
			return 0;
		if (w.recorded || fault_in_iov_iter_readable(i, iov_iter_count(i)))
			return -EFAULT;
	}
	return -EFAULT;
}

static struct user_event *user_event_of_fd(struct file *file, int idx)
{
	struct user_event_fd *ufd = file->private_data;
	struct user_event_refs *refs;
	struct user_event *ue = NULL;

	/* The fd holds a reference on each of its events until release */
	rcu_read_lock_sched();
	refs = rcu_dereference_sched(ufd->refs);
	/* pairs with the release in user_event_fd_add(): counted slots are set */
	if (refs && idx < smp_load_acquire(&refs->count))
		ue = refs->events[idx];
	rcu_read_unlock_sched();
	return ue;
}

/* user_event_read_index() of an index split over segments, or not user memory */
static noinline int user_event_read_index_iter(const struct iov_iter *i,
					       int *idx)
{
	struct iov_iter head = *i;

	return copy_from_iter(idx, sizeof(*idx), &head) == sizeof(*idx) ? 0 : -EFAULT;
}

/*
 * The write index: the first 4 bytes, nearly always in the first segment.
 * @i stays where it is: the consumers copy the payload from past the index.
 */
static int user_event_read_index(const struct iov_iter *i, int *idx)
{
	if (likely(iter_is_ubuf(i) || iter_is_iovec(i)) &&
	    likely(iter_iov_len(i) >= sizeof(*idx)))
		return get_user(*idx, (int __user *)iter_iov_addr(i)) ? -EFAULT : 0;
	return user_event_read_index_iter(i, idx);
}

static ssize_t user_events_write_iter(struct kiocb *kiocb, struct iov_iter *i)
{
	size_t total = iov_iter_count(i), len;
	struct user_event *ue;
	int idx, ret;

	if (total < USER_EVENT_INDEX_SIZE)
		return -EINVAL;
	if (unlikely(user_event_read_index(i, &idx)))
		return -EFAULT;
	if (idx < 0)
		return -EINVAL;
	ue = user_event_of_fd(kiocb->ki_filp, idx);
	if (!ue)
		return -ENOENT;
	len = total - USER_EVENT_INDEX_SIZE;
	if (len < ue->min_size)
		return -EINVAL;
	if (len > USER_EVENT_MAX_PAYLOAD)
		return -E2BIG;
	/* Nobody listening: accepted, nothing recorded */
	if (likely(!rcu_access_pointer(ue->tp.funcs)))
		return total;
	ret = user_event_emit(ue, i, len);
	return ret ? ret : total;
}

/* Consumers and the status byte ------------------------------------------ */

static u8 user_event_status(struct user_event *ue)
{
	return (ue->ftrace_users ? EVENT_STATUS_FTRACE : 0) |
	       (ue->perf_users ? EVENT_STATUS_PERF : 0);
}

static void user_event_update_status(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);
	WRITE_ONCE(status_bytes[ue->index], user_event_status(ue));
}

/* Hook one consumer's probe on or off; @users counts that kind */
static int user_event_attach(struct user_event *ue, void *probe, void *data,
			     int *users, bool on)
{
	int ret = 0;

	if (on)
		ret = tracepoint_probe_register(&ue->tp, probe, data);
	else
		tracepoint_probe_unregister(&ue->tp, probe, data);
	if (!ret)
		*users += on ? 1 : -1;
	return ret;
}

static int user_event_reg(struct trace_event_call *call, enum trace_reg type,
			  void *data)
{
	struct user_event *ue = call->data;
	int ret = 0;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		ret = user_event_attach(ue, user_event_ftrace, data, &ue->ftrace_users,
					type == TRACE_REG_REGISTER);
		break;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		/* once per event: perf counts its own opens */
		ret = user_event_attach(ue, user_event_perf, call, &ue->perf_users,
					type == TRACE_REG_PERF_REGISTER);
		break;
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	}
	user_event_update_status(ue);
	return ret;
}

/* Events: creation and deletion ------------------------------------------ */

static struct user_event *user_event_find(const char *name)
{
	struct user_event *ue;
	u32 key = full_name_hash(NULL, name, strlen(name));

	lockdep_assert_held(&event_mutex);
	hash_for_each_possible(user_event_table, ue, node, key)
		if (!strcmp(ue->name, name))
			return ue;
	return NULL;
}

static void user_event_release_memory(struct user_event *ue)
{
	kfree(ue->call.print_fmt);
	kfree(ue->class.fields_array);
	kfree(ue->name);
	kfree(ue->flags);
	kfree(ue->args);
	user_fields_free(ue->fields, ue->nr_fields);
	kfree(ue);
}

/* Is @flag in the comma-separated @flags (unknown flags are ignored)? */
static bool user_flags_have(const char *flags, const char *flag)
{
	size_t len = strlen(flag);

	while (flags && *flags) {
		if (!strncmp(flags, flag, len) &&
		    (flags[len] == ',' || !flags[len]))
			return true;
		flags = strchr(flags, ',');
		if (flags)
			flags++;
	}
	return false;
}

/* Take what @d owns and lay the fields out after the common header */
static struct user_event *user_event_alloc(struct user_spec *d)
{
	struct user_event *ue = kzalloc(sizeof(*ue), GFP_KERNEL);
	u32 offset = sizeof(struct trace_entry);
	int i;

	if (!ue)
		return NULL;
	ue->name = d->name;
	ue->flags = d->flags;
	ue->bpf_iter = user_flags_have(d->flags, "BPF_ITER");
	ue->args = d->args;
	ue->fields = d->fields;
	ue->nr_fields = d->nr_fields;
	memset(d, 0, sizeof(*d));
	for (i = 0; i < ue->nr_fields; i++) {
		ue->fields[i].offset = offset;
		offset += ue->fields[i].size;
		ue->nr_locs += ue->fields[i].kind >= UF_LOC_STR;
	}
	ue->min_size = offset - sizeof(struct trace_entry);
	refcount_set(&ue->refs, 1);
	ue->tp.name = ue->name;
	return ue;
}

static int user_event_register_call(struct user_event *ue)
{
	struct trace_event_call *call = &ue->call;
	int ret;

	INIT_LIST_HEAD(&ue->class.fields);
	ue->class.system = USER_EVENTS_SYSTEM;
	ue->class.reg = user_event_reg;
	ue->class.fields_array = user_event_fields_array(ue);
	if (!ue->class.fields_array)
		return -ENOMEM;
	call->class = &ue->class;
	call->event.funcs = &user_event_funcs;
	call->flags = TRACE_EVENT_FL_TRACEPOINT;
	call->tp = &ue->tp;
	call->data = ue;

	ret = user_event_set_print_fmt(ue);
	if (ret)
		return ret;
	if (!register_trace_event(&call->event))
		return -ENODEV;
	ret = trace_add_event_call(call);
	if (ret) {
		unregister_trace_event(&call->event);
		return ret;
	}
	dyn_event_init(&ue->devent, &user_event_ops);
	return dyn_event_add(&ue->devent, call);
}

/* Create the event @d describes, or find it if it exists with its fields */
static struct user_event *user_event_get(const char *cmd, int skip,
					 bool *created)
{
	struct user_spec d;
	struct user_event *ue;
	int ret;
	u32 index;

	lockdep_assert_held(&event_mutex);
	ret = user_parse(cmd, skip, false, &d);
	if (ret)
		return ERR_PTR(ret);
	ue = user_event_find(d.name);
	if (ue) {
		ret = strcmp(ue->args, d.args) ? -EADDRINUSE : 0;
		if (ret)
			user_parse_err(&(struct user_parse){ .cmd = cmd },
				       "Event exists with other fields", NULL);
		user_spec_free(&d);
		return ret ? ERR_PTR(ret) : ue;
	}
	*created = true;
	ue = user_event_alloc(&d);
	user_spec_free(&d);
	if (!ue)
		return ERR_PTR(-ENOMEM);
	ret = xa_alloc(&user_event_by_index, &index, ue,
		       XA_LIMIT(1, PAGE_SIZE - 1), GFP_KERNEL);
	if (ret) {
		user_event_release_memory(ue);
		return ERR_PTR(ret == -EBUSY ? -EMFILE : ret);
	}
	ue->index = index;
	ret = user_event_register_call(ue);
	if (ret) {
		xa_erase(&user_event_by_index, index);
		user_event_release_memory(ue);
		return ERR_PTR(ret);
	}
	hash_add(user_event_table, &ue->node,
		 full_name_hash(NULL, ue->name, strlen(ue->name)));
	return ue;
}

/* Delete @ue unless an fd holds it or a consumer is attached */
static int user_event_destroy(struct user_event *ue)
{
	int ret;

	lockdep_assert_held(&event_mutex);
	if (refcount_read(&ue->refs) != 1)
		return -EBUSY;
	ret = trace_remove_event_call(&ue->call);
	if (ret)
		return ret;
	dyn_event_remove(&ue->devent);
	hash_del(&ue->node);
	/* Nothing is attached, so the byte is 0 for the slot's next owner */
	WRITE_ONCE(status_bytes[ue->index], 0);
	xa_erase(&user_event_by_index, ue->index);
	user_event_release_memory(ue);
	return 0;
}

/* dynamic_events --------------------------------------------------------- */

static int user_event_create(const char *raw_command)
{
	struct user_event *ue;
	bool created = false;

	if (!str_has_prefix(raw_command, USER_EVENTS_PREFIX))
		return -ECANCELED;
	guard(mutex)(&event_mutex);
	ue = user_event_get(raw_command, strlen(USER_EVENTS_PREFIX), &created);
	return PTR_ERR_OR_ZERO(ue);
}

static int user_event_show(struct seq_file *m, struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);

	seq_printf(m, "%s%s", USER_EVENTS_PREFIX, ue->name);
	if (ue->flags)
		seq_printf(m, ":%s", ue->flags);
	if (ue->args[0])
		seq_printf(m, " %s", ue->args);
	seq_putc(m, '\n');
	return 0;
}

static bool user_event_is_busy(struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);

	return refcount_read(&ue->refs) != 1 || user_event_status(ue);
}

static int user_event_free(struct dyn_event *ev)
{
	return user_event_destroy(to_user_event(ev));
}

/* Do the fields of "!u:name fields" (split in @argv) match @ue's? */
static bool user_event_args_match(struct user_event *ue, int argc,
				  const char **argv)
{
	struct user_spec d;
	char *cmd;
	size_t len = strlen(ue->name) + 2;
	bool match;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cmd = kmalloc(len, GFP_KERNEL);
	if (!cmd)
		return false;
	strscpy(cmd, ue->name, len);
	for (i = 0; i < argc; i++) {
		strlcat(cmd, " ", len);
		strlcat(cmd, argv[i], len);
	}
	match = false;
	if (!user_parse(cmd, 0, true, &d)) {
		match = !strcmp(d.args, ue->args);
		user_spec_free(&d);
	}
	kfree(cmd);
	return match;
}

static bool user_event_match(const char *system, const char *event,
			     int argc, const char **argv, struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);

	if (system && strcmp(system, USER_EVENTS_SYSTEM))
		return false;
	if (strcmp(event, ue->name))
		return false;
	return !argc || user_event_args_match(ue, argc, argv);
}

/* user_events_data ------------------------------------------------------- */

/*
 * The fd's write index for @ue, taking a reference when it is new. Only an
 * event that existed before (@created false) can already be in the array.
 */
static int user_event_fd_add(struct user_event_fd *ufd, struct user_event *ue,
			     bool created)
{
	struct user_event_refs *old, *refs;
	int i, count;

	lockdep_assert_held(&event_mutex);
	old = rcu_dereference_protected(ufd->refs, lockdep_is_held(&event_mutex));
	count = old ? old->count : 0;
	for (i = 0; !created && i < count; i++)
		if (old->events[i] == ue)
			return i;
	refs = old;
	if (!old || count == old->size) {
		int size = old ? 2 * old->size : 8;

		refs = kmalloc(struct_size(refs, events, size), GFP_KERNEL);
		if (!refs)
			return -ENOMEM;
		refs->size = size;
		refs->count = count;
		if (old)
			memcpy(refs->events, old->events, count * sizeof(*old->events));
	}
	refs->events[count] = ue;
	refcount_inc(&ue->refs);
	/* writers that see the new count see the new slot */
	smp_store_release(&refs->count, count + 1);
	if (refs != old) {
		rcu_assign_pointer(ufd->refs, refs);
		if (old)
			kfree_rcu(old, rcu);
	}
	return count;
}

/* Copy a description from user space: E2BIG past USER_EVENT_MAX_DESC */
static char *user_desc_from_user(const char __user *udesc)
{
	long len = strnlen_user(udesc, USER_EVENT_MAX_DESC + 1);

	if (!len)
		return ERR_PTR(-EFAULT);
	if (len > USER_EVENT_MAX_DESC)
		return ERR_PTR(-E2BIG);
	return strndup_user(udesc, USER_EVENT_MAX_DESC);
}

static long user_events_ioctl_reg(struct file *file, struct user_reg __user *ureg)
{
	char *desc __free(kfree) = NULL;
	struct user_event_fd *ufd = file->private_data;
	struct user_reg reg;
	struct user_event *ue;
	int widx;
	u32 size;

	if (get_user(size, &ureg->size))
		return -EFAULT;
	if (size != sizeof(reg))
		return -EINVAL;
	if (copy_from_user(&reg, ureg, sizeof(reg)))
		return -EFAULT;
	desc = user_desc_from_user(u64_to_user_ptr(reg.name_args));
	if (IS_ERR(desc))
		return PTR_ERR(no_free_ptr(desc));

	scoped_guard(mutex, &event_mutex) {
		bool created = false;

		ue = user_event_get(desc, 0, &created);
		if (IS_ERR(ue))
			return PTR_ERR(ue);
		widx = user_event_fd_add(ufd, ue, created);
		if (widx < 0) {
			if (created)
				user_event_destroy(ue);
			return widx;
		}
		reg.status_index = ue->index;
	}
	reg.write_index = widx;
	if (put_user(reg.status_index, &ureg->status_index) ||
	    put_user(reg.write_index, &ureg->write_index))
		return -EFAULT;
	return 0;
}

static long user_events_ioctl_del(const char __user *uname)
{
	char *name __free(kfree) = strndup_user(uname, USER_EVENT_MAX_NAME + 1);
	struct user_event *ue;
	int ret;

	if (IS_ERR(name))
		return PTR_ERR(no_free_ptr(name));
	guard(mutex)(&event_mutex);
	ue = user_event_find(name);
	if (!ue)
		return -ENOENT;
	ret = user_event_destroy(ue);
	if (!ret)
		tracing_reset_all_online_cpus();
	return ret;
}

static long user_events_ioctl(struct file *file, unsigned int cmd,
			      unsigned long uarg)
{
	switch (cmd) {
	case DIAG_IOCSREG:
		return user_events_ioctl_reg(file, (struct user_reg __user *)uarg);
	case DIAG_IOCSDEL:
		return user_events_ioctl_del((const char __user *)uarg);
	}
	return -ENOTTY;
}

static int user_events_open(struct inode *inode, struct file *file)
{
	struct user_event_fd *ufd = kzalloc(sizeof(*ufd), GFP_KERNEL);

	if (!ufd)
		return -ENOMEM;
	file->private_data = ufd;
	return nonseekable_open(inode, file);
}

/* Drop the references an fd took; never the last: the event's own stays */
static void user_event_refs_drop(struct user_event_refs *refs)
{
	struct user_event **ue;

	if (!refs)
		return;
	for (ue = refs->events; ue < refs->events + refs->count; ue++)
		refcount_dec(&(*ue)->refs);
	kfree(refs);
}

static int user_events_release(struct inode *inode, struct file *file)
{
	struct user_event_fd *ufd = file->private_data;

	/* The fd is gone: nobody else can see its array any more */
	user_event_refs_drop(rcu_dereference_protected(ufd->refs, true));
	kfree(ufd);
	return 0;
}

/* user_events_status ----------------------------------------------------- */

static int user_status_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;

	if (vma->vm_pgoff || size > PAGE_SIZE)
		return -EINVAL;

	/* Readers only: neither now nor after a later mprotect() */
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE);

	return remap_pfn_range(vma, vma->vm_start, page_to_pfn(status_page),
			       PAGE_SIZE, vma->vm_page_prot);
}

/* Who an EVENT_BIT_* stands for, in the listing */
static const char * const user_consumer_names[BITS_PER_BYTE] = {
	[EVENT_BIT_FTRACE] = "ftrace",
	[EVENT_BIT_PERF] = "perf",
	[EVENT_BIT_OTHER] = "other",
};

/* "3:name[:FLAGS][ # Used by ftrace perf]" */
static void user_status_show_one(struct seq_file *m, struct user_event *ue)
{
	unsigned long status = user_event_status(ue);
	int bit;

	seq_printf(m, "%u:%s%s%s%s", ue->index, ue->name, ue->flags ? ":" : "",
		   ue->flags ?: "", status ? " # Used by" : "");
	for_each_set_bit(bit, &status, BITS_PER_BYTE)
		seq_printf(m, " %s", user_consumer_names[bit]);
	seq_putc(m, '\n');
}

static int user_status_show(struct seq_file *m, void *unused)
{
	struct user_event *ue;
	unsigned long index;
	int active = 0, busy = 0;

	guard(mutex)(&event_mutex);
	xa_for_each(&user_event_by_index, index, ue) {
		user_status_show_one(m, ue);
		active++;
		busy += !!user_event_status(ue);
	}
	seq_printf(m, "\nActive: %d\nBusy: %d\nMax: %lu\n", active, busy,
		   PAGE_SIZE);
	return 0;
}

static int user_status_open(struct inode *inode, struct file *file)
{
	return single_open(file, user_status_show, NULL);
}

static const struct file_operations user_data_fops = {
	.open = user_events_open, .release = user_events_release,
	.write_iter	= user_events_write_iter,
	/* struct user_reg has one layout for 32- and 64-bit callers */
	.unlocked_ioctl	= user_events_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/* The "u:" command of dynamic_events; ops->free runs under event_mutex */
static int __init trace_events_user_init_early(void)
{
	struct dyn_event_operations *ops = &user_event_ops;

	ops->create = user_event_create;
	ops->show = user_event_show;
	ops->is_busy = user_event_is_busy;
	ops->free = user_event_free;
	ops->match = user_event_match;
	return dyn_event_register(ops);
}
core_initcall(trace_events_user_init_early);

static const struct file_operations user_status_fops = {
	.mmap		= user_status_mmap,
	.open		= user_status_open,
	.read		= seq_read,
	.release	= single_release,
};

static int __init trace_events_user_init(void)
{
	int ret;

	status_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!status_page)
		return -ENOMEM;
	status_bytes = page_address(status_page);

	ret = tracing_init_dentry();
	if (ret)
		return ret;

	if (!tracefs_create_file("user_events_status", TRACE_MODE_WRITE,
				 NULL, NULL, &user_status_fops) ||
	    !tracefs_create_file("user_events_data", TRACE_MODE_WRITE,
				 NULL, NULL, &user_data_fops)) {
		pr_warn("could not create tracefs files\n");
		return -ENODEV;
	}

	return 0;
}
fs_initcall(trace_events_user_init);
