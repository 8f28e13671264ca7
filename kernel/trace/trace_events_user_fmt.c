// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the description of an event. Parsing "name fields" (as
 * DIAG_IOCSREG and dynamic_events give it) into fields, the print format
 * that ftrace's format file shows, and the printing of a record in trace
 * and trace_pipe. Calls nothing of the other files.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include "trace_events_user.h"

/* Parsing ---------------------------------------------------------------- */

/*
 * error_log keeps a pointer to the table: it must outlive every entry.
 * Designated entries keep each text next to its name (checkpatch --strict
 * refuses the ERRORS X-macro of trace_events_synth.c).
 */
static const char * const user_errs[] = {
	[USER_ERR_BAD_NAME] = "Invalid event name",
	[USER_ERR_BAD_FLAGS] = "Invalid flag list",
	[USER_ERR_BAD_FIELD_NAME] = "Invalid field name",
	[USER_ERR_DUP_FIELD] = "Duplicate field name",
	[USER_ERR_EMPTY_FIELD] = "Empty field",
	[USER_ERR_BAD_TYPE] = "Unknown or unsupported field type",
	[USER_ERR_LONG_TYPE] = "long differs between ABIs; use s32/s64/u32/u64",
	[USER_ERR_BAD_SIZE] = "Invalid array or struct size",
	[USER_ERR_SIZE_NOT_STRUCT] = "Only struct fields take a size",
	[USER_ERR_STRUCT_NO_SIZE] = "struct fields need a size",
	[USER_ERR_DESC_TOO_LONG] =
		"Description longer than " __stringify(USER_EVENT_DESC_LEN) " bytes",
	[USER_ERR_CANON_TOO_LONG] =
		"Canonical form longer than " __stringify(USER_EVENT_DESC_LEN) " bytes",
	[USER_ERR_RESERVED_NAME] = "Name of a file of events/user_events/",
	[USER_ERR_COMMON_FIELD] =
		"Field names starting with common_ are reserved",
	[USER_ERR_OTHER_FIELDS] = "Event exists with other fields",
	[USER_ERR_BAD_SYSTEM] =
		"System not " USER_EVENTS_SYSTEM " nor " USER_EVENTS_SYSTEM "_<group>",
	[USER_ERR_NO_TYPE_ID] = "No trace event type id left",
};

/**
 * user_event_parse_err() - Log what is wrong with a description in error_log
 * @p: the description being parsed
 * @err: what is wrong with it
 * @at: where in @p->desc, for the caret; NULL: at the description's start
 *
 * Nothing is logged when @p is quiet (matching only).
 *
 * Context: may sleep (error_log's mutex).
 */
void user_event_parse_err(struct user_parse *p, enum user_err err,
			  const char *at)
{
	if (p->quiet)
		return;
	tracing_log_err(NULL, "user_events", p->cmd, (const char **)user_errs, err,
			p->skip + (at ? at - p->desc : 0));
}

/* [A-Za-z0-9_]: the kernel's isalnum() also takes Latin-1 letters */
static bool user_is_word_char(char c)
{
	return isascii(c) && (isalnum(c) || c == '_');
}

/* The white space that separates words: not \v, \f, \r or Latin-1's */
static bool user_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static char *user_skip_spaces(char *s)
{
	while (user_is_space(*s))
		s++;
	return s;
}

static bool user_name_valid(const char *name, size_t max)
{
	size_t len = strlen(name), i;

	if (!len || len > max || isdigit(name[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!user_is_word_char(name[i]))
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

/*
 * Decimal or 0x hex, without sign or leading zeros: C would read "010" as
 * octal, and "0x0000000000001" is no size anyone writes (Linux refuses it)
 */
static int user_parse_size(const char *s, u16 *size)
{
	const char *digits = s;
	unsigned int v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		digits += 2;
	if (!isdigit(s[0]) || (digits[0] == '0' && digits[1]))
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
		user_event_parse_err(p, USER_ERR_STRUCT_NO_SIZE, wd->w[wd->n - 1]);
		return -EINVAL;
	}
	if (wd->n > 4 || user_parse_size(wd->w[3], &f->size)) {
		user_event_parse_err(p, USER_ERR_BAD_SIZE, wd->w[3]);
		return -EINVAL;
	}
	if (!user_name_valid(wd->w[1], USER_EVENT_MAX_NAME)) {
		user_event_parse_err(p, USER_ERR_BAD_TYPE, wd->w[1]);
		return -EINVAL;
	}
	f->kind = UF_BYTES;
	f->type = kasprintf(GFP_KERNEL_ACCOUNT, "struct %s", wd->w[1]);
	f->name = kstrdup(wd->w[2], GFP_KERNEL_ACCOUNT);
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
		user_event_parse_err(p, USER_ERR_LONG_TYPE, at);
	else if (!bt)
		user_event_parse_err(p, USER_ERR_BAD_TYPE, at);
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
	enum user_err err = USER_ERR_BAD_TYPE;

	if (!b && !loc)
		return 0;
	if (b && end && !end[1]) {
		if (loc && end == b + 1)
			return 0;
		err = USER_ERR_BAD_SIZE;
		*end = '\0';
		if (!loc && user_is_char(bt->name) && !user_parse_size(b + 1, &f->size))
			return 0;
	}
	user_event_parse_err(p, err, at);
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
		f->type = kasprintf(GFP_KERNEL_ACCOUNT, "%s %s[]", loc, bt->name);
	} else if (array) {
		f->kind = strcmp(bt->name, "char") ? UF_BYTES : UF_CHARS;
		f->type = kasprintf(GFP_KERNEL_ACCOUNT, "%s[%u]", bt->name, f->size);
	} else {
		f->kind = UF_INT;
		f->size = bt->size;
		f->is_signed = bt->is_signed;
		f->type = kstrdup(bt->name, GFP_KERNEL_ACCOUNT);
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
		type = kasprintf(GFP_KERNEL_ACCOUNT, "unsigned %s", wd->w[++i]);
	else
		type = kstrdup(wd->w[i], GFP_KERNEL_ACCOUNT);
	if (!type)
		return -ENOMEM;

	if (++i >= wd->n) {
		user_event_parse_err(p, USER_ERR_BAD_FIELD_NAME, wd->w[wd->n - 1]);
		return -EINVAL;
	}
	if (i + 1 < wd->n) {
		user_event_parse_err(p, USER_ERR_SIZE_NOT_STRUCT, wd->w[i + 1]);
		return -EINVAL;
	}

	bt = user_parse_elem(p, type, at, &bracket);
	if (!bt)
		return -EINVAL;
	ret = user_parse_array(p, f, bt, bracket, loc, at);
	if (ret)
		return ret;

	f->name = kstrdup(wd->w[i], GFP_KERNEL_ACCOUNT);
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
		user_event_parse_err(p, USER_ERR_SIZE_NOT_STRUCT, text);
		return -EINVAL;
	}
	if (wd.n == 0) {
		user_event_parse_err(p, USER_ERR_EMPTY_FIELD, text);
		return -EINVAL;
	}
	if (wd.n == 1) {
		user_event_parse_err(p, USER_ERR_BAD_FIELD_NAME, wd.w[0]);
		return -EINVAL;
	}

	if (!strcmp(wd.w[0], "struct"))
		ret = user_parse_struct(p, &wd, f);
	else
		ret = user_parse_plain(p, &wd, f);
	if (!ret && !user_name_valid(f->name, USER_EVENT_MAX_NAME)) {
		user_event_parse_err(p, USER_ERR_BAD_FIELD_NAME, wd.w[wd.n - 1]);
		ret = -EINVAL;
	}
	/* common_pid and the like are the record's header; filters see those */
	if (!ret && str_has_prefix(f->name, "common_")) {
		user_event_parse_err(p, USER_ERR_COMMON_FIELD,
				     wd.w[wd.n - 1]);
		ret = -EINVAL;
	}

	return ret;
}

/**
 * user_event_fields_free() - Free an array of fields, with their names and types
 * @fields: the array, or NULL
 * @n: how many of its fields have a name and a type to free
 *
 * Context: any.
 */
void user_event_fields_free(struct user_field *fields, int n)
{
	int i;

	for (i = 0; i < n && fields; i++) {
		kfree(fields[i].name);
		kfree(fields[i].type);
	}
	kfree(fields);
}

/**
 * user_event_spec_free() - Free what a parsed description owns
 * @d: the description; @d itself is the caller's
 *
 * Context: any.
 */
void user_event_spec_free(struct user_spec *d)
{
	kfree(d->name);
	kfree(d->flags);
	kfree(d->args);
	user_event_fields_free(d->fields, d->nr_fields);
}

/* The canonical field list: "type name; type name", struct with its size */
static int user_spec_canonical(struct user_spec *d)
{
	struct seq_buf s;
	size_t len = 1;
	int i;

	for (i = 0; i < d->nr_fields; i++)
		len += strlen(d->fields[i].type) + strlen(d->fields[i].name) + 10;
	d->args = kzalloc(len, GFP_KERNEL_ACCOUNT);
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
	d->fields = kcalloc(max, sizeof(*d->fields), GFP_KERNEL_ACCOUNT);
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
			user_event_parse_err(p, USER_ERR_DUP_FIELD, field);
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
			if (user_is_word_char(*c) ||
			    (*c == ',' && c != flags && c[1] && c[1] != ','))
				continue;
			user_event_parse_err(p, USER_ERR_BAD_FLAGS, flags);
			return -EINVAL;
		}
		if (!*flags) {
			user_event_parse_err(p, USER_ERR_BAD_FLAGS, flags);
			return -EINVAL;
		}
		d->flags = kstrdup(flags, GFP_KERNEL_ACCOUNT);
		if (!d->flags)
			return -ENOMEM;
	}

	if (!user_name_valid(name, USER_EVENT_MAX_NAME)) {
		user_event_parse_err(p, USER_ERR_BAD_NAME, name);
		return -EINVAL;
	}
	/* events/user_events/enable and filter would hide the event's directory */
	if (!strcmp(name, "enable") || !strcmp(name, "filter")) {
		user_event_parse_err(p, USER_ERR_RESERVED_NAME, name);
		return -EINVAL;
	}

	d->name = kstrdup(name, GFP_KERNEL_ACCOUNT);
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
		user_event_parse_err(p, USER_ERR_DESC_TOO_LONG, NULL);
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
		user_event_parse_err(p, USER_ERR_CANON_TOO_LONG, NULL);
		ret = -E2BIG;
	}

	if (ret)
		user_event_spec_free(d);
	return ret;
}

/**
 * user_event_parse() - Parse a description that user space handed us
 * @cmd: the command as the user gave it
 * @skip: bytes of @cmd before the description
 * @quiet: log nothing (matching only)
 * @d: filled on success, for user_event_spec_free(); nothing to free on an error
 *
 * What is wrong with the description goes to error_log, unless @quiet.
 *
 * Context: may sleep (allocates, logs to error_log).
 * Return: 0, or -EINVAL, -E2BIG or -ENOMEM.
 */
int user_event_parse(const char *cmd, int skip, bool quiet,
		     struct user_spec *d)
{
	char *copy __free(kfree) = kstrdup(cmd + skip, GFP_KERNEL_ACCOUNT);
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

/**
 * user_event_set_print_fmt() - Make the print format of an event's call
 * @ue: the event, its fields set
 *
 * "f1=%u f2=%s", REC->f1, __get_rel_str(f2), in @ue->call.print_fmt.
 *
 * Context: may sleep (allocates).
 * Return: 0, -ENOMEM, or -E2BIG if it does not fit.
 */
int user_event_set_print_fmt(struct user_event *ue)
{
	struct seq_buf s;
	size_t len = 8;
	char *fmt;
	int i;

	for (i = 0; i < ue->nr_fields; i++)
		len += 3 * strlen(ue->fields[i].name) + 96;
	fmt = kmalloc(len, GFP_KERNEL_ACCOUNT);
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

struct trace_event_functions user_event_funcs = {
	.trace = user_event_print,
};

/**
 * user_event_fields_alloc() - The fields of an event as ftrace defines them
 * @ue: the event, its fields laid out
 *
 * Packed (align 1) right after the common header, which is where the
 * payload puts them; arrays with their length so that `format` shows
 * "char msg[16]". The fields' names and types are @ue's, not copied.
 *
 * Context: may sleep (allocates).
 * Return: the array, ended by a zeroed entry; or NULL without memory.
 */
struct trace_event_fields *user_event_fields_alloc(struct user_event *ue)
{
	struct trace_event_fields *array;
	int i;

	array = kcalloc(ue->nr_fields + 1, sizeof(*array), GFP_KERNEL_ACCOUNT);
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
