// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: trace events created and written by user processes.
 *
 * A process registers its events with DIAG_IOCSREG on user_events_data and,
 * while anyone listens, writes [write index][payload] to the same file. It
 * learns that someone listens through one of two front doors onto the same
 * events: the byte of the event in the one status page of
 * user_events_status (a 24-byte struct user_status_reg), or a bit of a word
 * in its own memory that the kernel keeps up to date (a 28-byte struct
 * user_reg, the ABI of Linux 6.4 and later). Each user event is an
 * ordinary trace event of the "user_events" system (or "user_events_multi");
 * the payload becomes the record after the common header, untouched.
 * See Documentation/trace/user_events.rst.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include <linux/anon_inodes.h>
#include <linux/cleanup.h>
#include <linux/compat.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/init.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/pagemap.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stringhash.h>
#include <linux/sysctl.h>
#include <linux/task_work.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <linux/userfaultfd_k.h>
#include <linux/workqueue.h>
#include <linux/user_events.h>
#include <linux/xarray.h>

#include "trace.h"
#include "trace_dynevent.h"
#include "trace_output.h"

#define USER_EVENT_MAX_NAME	255
/* The longest description, and the buffer for one (NUL included) */
#define USER_EVENT_DESC_LEN	511
#define USER_EVENT_MAX_DESC	(USER_EVENT_DESC_LEN + 1)
#define USER_EVENT_MAX_ARRAY	1024
/*
 * The largest payload of any write: with the common header, a record every
 * byte of which a __data_loc/__rel_loc field (16-bit offsets) can address.
 * What the event's consumers take is checked at each write beyond
 * USER_EVENT_FITS_ALL: an ftrace buffer's sub-buffer size
 * (buffer_subbuf_size_kb) and perf's PERF_MAX_TRACE_SIZE.
 */
#define USER_EVENT_MAX_PAYLOAD	(U16_MAX - sizeof(struct trace_entry))
/* perf (and eBPF): the record and perf's u32 size in PERF_MAX_TRACE_SIZE */
#define USER_EVENT_PERF_MAX	(PERF_MAX_TRACE_SIZE - sizeof(u32) - \
				 sizeof(struct trace_entry))
/*
 * user_event_consumer_max() of ftrace with one-page sub-buffers and absolute
 * time stamps: a page less the sub-buffer's header (16 bytes), the event's
 * header and length (8), the time extend of an absolute time stamp (8), the
 * room kept for a time stamp (8) and the common header.
 */
#define USER_EVENT_FTRACE_LEAST	(PAGE_SIZE - 40 - sizeof(struct trace_entry))
/*
 * The largest payload every consumer takes: the smaller of the two. With
 * 4 KiB pages ftrace's; with 16 or 64 KiB pages perf's, which then takes
 * less than a page.
 */
#define USER_EVENT_FITS_ALL	MIN(USER_EVENT_FTRACE_LEAST, USER_EVENT_PERF_MAX)
static_assert(MAX(USER_EVENT_FITS_ALL, USER_EVENT_PERF_MAX) == USER_EVENT_PERF_MAX);
static_assert(MAX(USER_EVENT_FITS_ALL, USER_EVENT_FTRACE_LEAST) ==
	      USER_EVENT_FTRACE_LEAST);
/*
 * Enable bits one process may register (ENOSPC past it): each is kernel
 * memory, and a status change walks its event's enablers under event_mutex.
 */
#define USER_EVENT_MAX_ENABLERS	8192
/* Times a write faults its pages in again before giving up */
#define USER_EVENT_FAULT_TRIES	3
/*
 * The enable worker never waits on a fault (for I/O, a userfaultfd or a
 * filesystem's daemon): one that would wait is tried again after 1, 2,
 * 4... ms, then every USER_ENABLER_FAULT_WAIT_MAX ms, while its enabler is
 * there
 */
#define USER_ENABLER_FAULT_WAIT_MAX	1024
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
	struct user_event_group	*group;		/* whose name it is */
	char			*name;
	char			*flags;		/* as registered, or NULL */
	char			*args;		/* canonical field list */
	struct user_field	*fields;
	int			nr_fields;
	int			nr_locs;
	u32			min_size;	/* payload bytes of the fields */
	u32			index;		/* status byte, 0 for none */
	bool			bpf_iter;	/* flag BPF_ITER */
	bool			multi;		/* USER_EVENT_REG_MULTI_FORMAT */
	bool			persist;	/* USER_EVENT_REG_PERSIST */
	/* Deleted once nothing refers to it (enable-bit ABI); event_mutex */
	bool			auto_del;
	/*
	 * A record of it may be in an ftrace buffer: then it is not deleted
	 * automatically, and a deletion retires it (section Retired events)
	 */
	bool			in_buffer;
	/* Attached consumers, by kind; event_mutex */
	int			ftrace_users;
	int			perf_users;
	/* struct user_enabler.event_link: the bits that follow the consumers */
	struct list_head	enablers;
	/* That list and the writing of the bits; fork() takes it, not event_mutex */
	struct mutex		enablers_lock;
	/*
	 * The event's type, and what trace prints its records with: a trace
	 * event of its own, registered (register_trace_event()) apart from
	 * call, which has only the type's number. A deleted event whose
	 * records a buffer may hold is retired: call goes, fmt stays with the
	 * type until no buffer holds them (section Retired events).
	 */
	struct trace_event_call	fmt;
	/* Set once retired: fmt's files and what it waits for; event_mutex */
	struct user_retired	*retired;
};

/*
 * The fd's events; index i is write index i. New events are appended in
 * place (published by the release of count); a full array is replaced by
 * one twice its size, the old one freed by RCU, so appending is amortised
 * O(1); finding an event the fd registered before is linear in its events.
 * Each slot is a struct user_event pointer, with USER_SLOT_BIT_ABI set when
 * the index was handed out through the enable-bit ABI.
 */
struct user_event_refs {
	struct rcu_head		rcu;
	int			count;		/* in use, read with acquire */
	int			size;
	unsigned long		slots[] __counted_by(size);
};

#define USER_SLOT_BIT_ABI		1UL

static struct user_event *user_slot_event(unsigned long slot)
{
	return (struct user_event *)(slot & ~USER_SLOT_BIT_ABI);
}

struct user_event_fd {
	struct user_event_refs __rcu *refs;
	struct user_event_group	*group;		/* of the file opened */
};

/* user_event_write.stop of a copy that hit a missing page */
#define USER_EVENT_FAULTED	1

/*
 * What the probes of one write are given besides the iterator, and what
 * they report back to the writer
 */
struct user_event_write {
	/* the payload when it is one piece of user memory, else NULL */
	const void __user	*src;
	int			recorded;	/* records committed */
	/*
	 * Set, the probes left are not called: a final errno, or
	 * USER_EVENT_FAULTED (the write is retried once the pages are in)
	 */
	int			stop;
	/* BPF_ITER programs run once per write, not once per try */
	bool			bpf_ran;
	bool			bpf_keep;	/* what they said of perf's sample */
};

/*
 * event_mutex protects the event table, the status indexes, the consumer
 * counts and the growth of the per-fd arrays: every user_events state
 * change also adds, removes or (un)registers a trace event, which needs it
 * anyway. Enablers change under it too, and under their process's lock and
 * their event's (struct user_event_mm.lock, user_event.enablers_lock, in
 * that order), which are what fork() and the fault worker take.
 */
static DEFINE_HASHTABLE(user_event_table, 8);
static unsigned int user_events_count;
/* Bounds user_events_count: the kernel.user_events_max sysctl */
static unsigned int user_events_max = 32768;
/* The next USER_EVENT_REG_MULTI_FORMAT event's name suffix */
static u64 user_event_multi_id;

/*
 * The events of one set of files (user_events_data, user_events_status):
 * their names, their status page and their limit. user_init_group is the
 * files at the root of tracefs, whose events are user_events:*; a tenant
 * group (section Groups) has files of its own and events of its own system.
 */
struct user_event_group {
	const char		*system;
	const char		*system_multi;
	/* One zeroed page, one status byte per event, mapped by its users */
	struct page		*status_page;
	u8			*status_bytes;
	/* status byte -> event */
	struct xarray		by_index;
	/* Its events, at most user_group_max(); the retired ones among them */
	unsigned int		nr_events;
	unsigned int		nr_retired;
	/* A tenant group's: its name, id and own limit, else NULL and 0 */
	const char		*name;
	u32			id;
	unsigned int		max_events;
	/* Listed, and each open file and mapping of its status page */
	refcount_t		refs;
	struct dentry		*dir;
};

/*
 * The default group; its status_bytes are NULL when the page could not be
 * made at boot, and then no event is ever made either.
 */
static struct user_event_group user_init_group = {
	.system		= USER_EVENTS_SYSTEM,
	.system_multi	= USER_EVENTS_MULTI_SYSTEM,
	.by_index	= XARRAY_INIT(user_init_group.by_index, XA_FLAGS_ALLOC1),
	.refs		= REFCOUNT_INIT(1),
};

/* By id, which a group's files hold (i_private): never a pointer; event_mutex */
static DEFINE_XARRAY_ALLOC1(user_groups);
static u32 user_group_next_id;
/* Their limits together, which the default group cannot use */
static unsigned int user_groups_reserved;

static struct user_event_group *user_group_get(struct user_event_group *g)
{
	refcount_inc(&g->refs);
	return g;
}

static void user_group_free(struct user_event_group *g)
{
	if (g->status_page)
		__free_page(g->status_page);
	xa_destroy(&g->by_index);
	kfree(g->system_multi);
	kfree(g->system);
	kfree(g->name);
	kfree(g);
}

/* The default group's count never drops to 0: it holds one of its own */
static void user_group_put(struct user_event_group *g)
{
	if (refcount_dec_and_test(&g->refs))
		user_group_free(g);
}

/*
 * How many events @g may have: a tenant group its own limit; the default
 * group what kernel.user_events_max leaves of the groups' limits, so that
 * no group can take what another was given
 */
static unsigned int user_group_max(struct user_event_group *g)
{
	unsigned int max = READ_ONCE(user_events_max);

	if (g->name)
		return g->max_events;
	return max > user_groups_reserved ? max - user_groups_reserved : 0;
}

/* The group of a user_events_data or user_events_status, held; or NULL */
static struct user_event_group *user_group_get_of_inode(struct inode *inode)
{
	unsigned long id = (unsigned long)inode->i_private;
	struct user_event_group *g;

	if (!id)
		return user_group_get(&user_init_group);
	guard(mutex)(&event_mutex);
	/* removed meanwhile (ids are not reused soon: cyclic) */
	g = xa_load(&user_groups, id);
	return g ? user_group_get(g) : NULL;
}

static struct user_event_group *user_group_find(const char *name, size_t len)
{
	struct user_event_group *g;
	unsigned long id;

	lockdep_assert_held(&event_mutex);
	xa_for_each(&user_groups, id, g)
		if (strlen(g->name) == len && !strncmp(g->name, name, len))
			return g;
	return NULL;
}

#define USER_GROUP_MAX_NAME	32

/*
 * ASCII letters and digits, up to USER_GROUP_MAX_NAME: "user_events_NAME",
 * "user_events_NAME_multi" and their "_retired" systems are then nobody
 * else's, but for "multi" and "retired" (the default group's). Not
 * isalnum() alone: it takes Latin-1 letters too.
 */
static bool user_group_name_ok(const char *name, size_t len)
{
	size_t i;

	if (!len || len > USER_GROUP_MAX_NAME ||
	    (len == 5 && !strncmp(name, "multi", 5)) ||
	    (len == 7 && !strncmp(name, "retired", 7)))
		return false;
	for (i = 0; i < len; i++)
		if (!isascii(name[i]) || !isalnum(name[i]))
			return false;
	return true;
}

/*
 * Is @sys (@len bytes) the system of a tenant group's events,
 * user_events_GROUP? Then @g is set to that group, NULL if there is none.
 * A multi-format system is not: "GROUP_multi" is no group's name.
 */
static bool user_group_of_system(const char *sys, size_t len,
				 struct user_event_group **g)
{
	size_t pre = strlen(USER_EVENTS_SYSTEM) + 1;

	lockdep_assert_held(&event_mutex);
	if (len <= pre || strncmp(sys, USER_EVENTS_SYSTEM "_", pre) ||
	    !user_group_name_ok(sys + pre, len - pre))
		return false;
	*g = user_group_find(sys + pre, len - pre);
	return true;
}

/*
 * The u: command of dynamic_events: filled in and registered at boot
 * (trace_events_user_init_early()); not const, dyn_event_register() links
 * it into its list
 */
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

/* What a description can get wrong: the error_log text of each */
enum user_err {
	USER_ERR_BAD_NAME,
	USER_ERR_BAD_FLAGS,
	USER_ERR_BAD_FIELD_NAME,
	USER_ERR_DUP_FIELD,
	USER_ERR_EMPTY_FIELD,
	USER_ERR_BAD_TYPE,
	USER_ERR_LONG_TYPE,
	USER_ERR_BAD_SIZE,
	USER_ERR_SIZE_NOT_STRUCT,
	USER_ERR_STRUCT_NO_SIZE,
	USER_ERR_DESC_TOO_LONG,
	USER_ERR_CANON_TOO_LONG,
	USER_ERR_RESERVED_NAME,
	USER_ERR_COMMON_FIELD,
	USER_ERR_OTHER_FIELDS,
	USER_ERR_BAD_SYSTEM,
	USER_ERR_NO_TYPE_ID,
};

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

static void user_parse_err(struct user_parse *p, enum user_err err,
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
		user_parse_err(p, USER_ERR_STRUCT_NO_SIZE, wd->w[wd->n - 1]);
		return -EINVAL;
	}
	if (wd->n > 4 || user_parse_size(wd->w[3], &f->size)) {
		user_parse_err(p, USER_ERR_BAD_SIZE, wd->w[3]);
		return -EINVAL;
	}
	if (!user_name_valid(wd->w[1], USER_EVENT_MAX_NAME)) {
		user_parse_err(p, USER_ERR_BAD_TYPE, wd->w[1]);
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
		user_parse_err(p, USER_ERR_LONG_TYPE, at);
	else if (!bt)
		user_parse_err(p, USER_ERR_BAD_TYPE, at);
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
		user_parse_err(p, USER_ERR_BAD_FIELD_NAME, wd->w[wd->n - 1]);
		return -EINVAL;
	}
	if (i + 1 < wd->n) {
		user_parse_err(p, USER_ERR_SIZE_NOT_STRUCT, wd->w[i + 1]);
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
		user_parse_err(p, USER_ERR_SIZE_NOT_STRUCT, text);
		return -EINVAL;
	}
	if (wd.n == 0) {
		user_parse_err(p, USER_ERR_EMPTY_FIELD, text);
		return -EINVAL;
	}
	if (wd.n == 1) {
		user_parse_err(p, USER_ERR_BAD_FIELD_NAME, wd.w[0]);
		return -EINVAL;
	}

	if (!strcmp(wd.w[0], "struct"))
		ret = user_parse_struct(p, &wd, f);
	else
		ret = user_parse_plain(p, &wd, f);
	if (!ret && !user_name_valid(f->name, USER_EVENT_MAX_NAME)) {
		user_parse_err(p, USER_ERR_BAD_FIELD_NAME, wd.w[wd.n - 1]);
		ret = -EINVAL;
	}
	/* common_pid and the like are the record's header; filters see those */
	if (!ret && str_has_prefix(f->name, "common_")) {
		user_parse_err(p, USER_ERR_COMMON_FIELD,
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
			user_parse_err(p, USER_ERR_DUP_FIELD, field);
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
			user_parse_err(p, USER_ERR_BAD_FLAGS, flags);
			return -EINVAL;
		}
		if (!*flags) {
			user_parse_err(p, USER_ERR_BAD_FLAGS, flags);
			return -EINVAL;
		}
		d->flags = kstrdup(flags, GFP_KERNEL_ACCOUNT);
		if (!d->flags)
			return -ENOMEM;
	}

	if (!user_name_valid(name, USER_EVENT_MAX_NAME)) {
		user_parse_err(p, USER_ERR_BAD_NAME, name);
		return -EINVAL;
	}
	/* events/user_events/enable and filter would hide the event's directory */
	if (!strcmp(name, "enable") || !strcmp(name, "filter")) {
		user_parse_err(p, USER_ERR_RESERVED_NAME, name);
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
		user_parse_err(p, USER_ERR_DESC_TOO_LONG, NULL);
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
		user_parse_err(p, USER_ERR_CANON_TOO_LONG, NULL);
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

/* "f1=%u f2=%s", REC->f1, __get_rel_str(f2) */
static int user_event_set_print_fmt(struct user_event *ue)
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

/* Writing ---------------------------------------------------------------- */

/* Are the __data_loc/__rel_loc fields of a @size-byte record sound? */
static bool user_event_locs_valid(struct user_event *ue, const u8 *rec,
				  u32 size)
{
	int i;

	for (i = 0; i < ue->nr_fields; i++)
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

#ifdef CONFIG_PERF_EVENTS
/*
 * user_event_payload_iov() of the segments that hold the @len payload bytes
 * only: a batch's record is followed by the next one in the same iovecs
 */
static unsigned long user_event_payload_segs(const struct iov_iter *from,
					     size_t len,
					     const struct iovec **iov,
					     size_t *off)
{
	unsigned long nr = user_event_payload_iov(from, iov, off);
	size_t skip = *off;
	unsigned long n;

	for (n = 0; n < nr && len; n++, skip = 0)
		len -= min((*iov)[n].iov_len - skip, len);
	return n;
}
#endif

/*
 * user_event_copy() of a payload that is not one piece of user memory: user
 * iovecs segment by segment, at a fraction of the cost of copy_from_iter()
 * on a copy of the iterator; what is not user memory by the latter
 */
static noinline bool user_event_copy_iov(void *dst, const struct iov_iter *from,
					 size_t len)
{
	const struct iovec *iov;
	unsigned long nr;
	void __user *src;
	size_t off, n;

	if (unlikely(!iter_is_iovec(from)))
		return user_event_copy_iter(dst, from, len);
	nr = user_event_payload_iov(from, &iov, &off);
	for (; len && nr; iov++, nr--, off = 0) {
		n = min(iov->iov_len - off, len);
		src = iov->iov_base + off;
		if (__copy_from_user_inatomic(dst, src, n))
			return false;
		dst += n;
		len -= n;
	}
	return !len;
}

/*
 * Copy the @len payload bytes of a write, which follow its index in @from,
 * to @dst. @from is left as it is: every consumer copies from it. A write()
 * is one user buffer, the common writev() the index and the payload in one
 * segment each: for both the writer found the payload, @src (see
 * user_event_read_index()), copied here; other shapes by
 * user_event_copy_iov(). Page faults are disabled (the caller's doing):
 * returns false on a missing page.
 */
static __always_inline bool user_event_copy(void *dst,
					    const struct iov_iter *from,
					    const void __user *src, size_t len)
{
	if (likely(src))
		return !__copy_from_user_inatomic(dst, src, len);
	return user_event_copy_iov(dst, from, len);
}

/*
 * Copy the payload into the record @entry reserved for it and check its
 * __data_loc/__rel_loc fields: false when the record is to be dropped, @w
 * telling why (a missing page: the write is retried; bad locs: EFAULT).
 * @at_src: the caller knows the payload is at @w->src (a batch's record).
 */
static __always_inline bool user_event_fill(struct user_event *ue,
					    struct trace_entry *entry,
					    const struct iov_iter *from,
					    size_t len,
					    struct user_event_write *w,
					    bool at_src)
{
	if (unlikely(at_src ? __copy_from_user_inatomic(entry + 1, w->src, len) :
			      !user_event_copy(entry + 1, from, w->src, len))) {
		w->stop = USER_EVENT_FAULTED;
		return false;
	}
	if (ue->nr_locs &&
	    !user_event_locs_valid(ue, (u8 *)entry, sizeof(*entry) + len)) {
		w->stop = -EFAULT;
		return false;
	}
	return true;
}

/*
 * The flags of a trace_event_file that make its records go through
 * trace_event_buffer_reserve() and trace_event_buffer_commit(): a filter,
 * triggers (hist included), soft disable, pid filtering.
 */
#define USER_FTRACE_GENERIC	(EVENT_FILE_FL_FILTERED |		\
				 EVENT_FILE_FL_SOFT_DISABLED |		\
				 EVENT_FILE_FL_TRIGGER_MODE |		\
				 EVENT_FILE_FL_TRIGGER_COND |		\
				 EVENT_FILE_FL_PID_FILTER)

/*
 * Can a record for @file go into its ring buffer directly, as trace_marker's
 * do? Only when nothing that the generic layer does would act on it: none of
 * the flags above, no stack traces asked of the instance, no tp_printk, no
 * trace_export taking events.
 */
static __always_inline bool user_ftrace_direct(struct trace_event_file *file)
{
	return !(READ_ONCE(file->flags) & USER_FTRACE_GENERIC) &&
	       !(file->tr->trace_flags &
		 (TRACE_ITER_STACKTRACE | TRACE_ITER_USERSTACKTRACE)) &&
	       !static_branch_unlikely(&trace_event_exports_enabled) &&
	       likely(!tracepoint_printk);
}

/* A record of @ue went into an ftrace buffer: see user_event_unused() */
static __always_inline void user_event_mark_in_buffer(struct user_event *ue)
{
	if (unlikely(!READ_ONCE(ue->in_buffer)))
		WRITE_ONCE(ue->in_buffer, true);
}

/*
 * The record of user_event_ftrace() without the generic layer: reserved
 * and committed on its file's ring buffer @buffer, the common header filled as
 * trace_event_buffer_reserve() fills it: from @trace_ctx, or copied from
 * @hdr, which has the event's type. @run: a record of
 * user_batch_ftrace_run(), its payload at @w->src, its event marked as
 * having records in the buffer already (see user_batch_direct()).
 */
static __always_inline void
user_event_ftrace_record(struct trace_buffer *buffer, struct user_event *ue,
			 struct iov_iter *from, size_t len,
			 struct user_event_write *w,
			 const struct trace_entry *hdr, unsigned int trace_ctx,
			 bool run)
{
	struct ring_buffer_event *event;
	struct trace_entry *entry;

	event = ring_buffer_lock_reserve(buffer, sizeof(*entry) + len);
	if (!event)
		return;
	entry = ring_buffer_event_data(event);
	if (!hdr) {
		tracing_generic_entry_update(entry, ue->call.event.type,
					     trace_ctx);
	} else {
		memcpy(entry, hdr, sizeof(*entry));
	}
	if (!user_event_fill(ue, entry, from, len, w, run)) {
		ring_buffer_discard_commit(buffer, event);
		return;
	}
	/* as __buffer_unlock_commit() does: the task's comm is to be saved */
	__this_cpu_write(trace_taskinfo_save, true);
	ring_buffer_unlock_commit(buffer);
	if (!run)
		user_event_mark_in_buffer(ue);
	w->recorded++;
}

/*
 * user_event_ftrace_record() in the context of now: the flags, the preempt
 * count and the pid. With @hdr, a batch run's (user_batch_run()): its
 * records' common header, filled at its first ftrace record (until then
 * its type is 0, which no event has).
 */
static __always_inline void
user_event_ftrace_direct(struct trace_event_file *file, struct user_event *ue,
			 struct iov_iter *from, size_t len,
			 struct user_event_write *w, struct trace_entry *hdr)
{
	struct trace_buffer *buffer = file->tr->array_buffer.buffer;
	unsigned int trace_ctx = 0;

	/* before the reserve, which raises the preempt count */
	if (!hdr)
		trace_ctx = tracing_gen_ctx_dec();
	else if (unlikely(!hdr->type))
		tracing_generic_entry_update(hdr, ue->call.event.type,
					     tracing_gen_ctx_dec());
	else
		hdr->type = ue->call.event.type;
	user_event_ftrace_record(buffer, ue, from, len, w, hdr, trace_ctx, false);
}

/* user_event_ftrace() through trace_event_buffer_reserve() and commit() */
static noinline void user_event_ftrace_generic(struct trace_event_file *file,
					       struct user_event *ue,
					       struct iov_iter *from,
					       size_t len,
					       struct user_event_write *w)
{
	/* filled by the reserve: no need to clear it on every write first */
	struct trace_event_buffer fbuffer __uninitialized;
	struct trace_entry *entry;

	if (trace_trigger_soft_disabled(file))
		return;
	entry = trace_event_buffer_reserve(&fbuffer, file, sizeof(*entry) + len);
	if (!entry)
		return;
	if (!user_event_fill(ue, entry, from, len, w, false)) {
		__trace_event_discard_commit(fbuffer.buffer, fbuffer.event);
		return;
	}
	trace_event_buffer_commit(&fbuffer);
	/* a soft-disabled file's record only fed its triggers: discarded */
	if (!(READ_ONCE(file->flags) & EVENT_FILE_FL_SOFT_DISABLED))
		user_event_mark_in_buffer(ue);
	w->recorded++;
}

/*
 * The ftrace consumer: one record per attached trace_event_file. Inline in
 * the writers (user_event_call_probe()), its address the probe's.
 */
static __always_inline void user_event_ftrace(void *data,
					      struct user_event *ue,
					      struct iov_iter *from, size_t len,
					      struct user_event_write *w,
					      struct trace_entry *hdr)
{
	struct trace_event_file *file = data;

	if (likely(user_ftrace_direct(file)))
		user_event_ftrace_direct(file, ue, from, len, w, hdr);
	else
		user_event_ftrace_generic(file, ue, from, len, w);
}

#ifdef CONFIG_PERF_EVENTS
/*
 * BPF_ITER: the eBPF programs get the writer's data where it is, described
 * by a struct user_bpf_context, instead of a copy (a ubuf's payload is at
 * @src, which the writer found). Their context is laid out as a record is
 * for any tracepoint program: it starts with the struct pt_regs pointer
 * that the helpers (bpf_perf_event_output(), bpf_get_stack(), ...) read
 * there, the struct user_bpf_context is where a record's first field would
 * be (USER_BPF_CONTEXT_OFFSET), and zeroes follow up to the end of the
 * event's fields, as far as the attach let the program read
 * (trace_event_get_offsets()). Returns whether the perf events should
 * still get their sample (as a program's return value decides for any
 * tracepoint). Without CONFIG_BPF_EVENTS there are none.
 */
static bool user_event_bpf_iter(struct trace_event_call *call,
				struct iov_iter *from, const void __user *src,
				size_t len)
{
	int size = clamp_t(int, ALIGN(trace_event_get_offsets(call), sizeof(u64)),
			   USER_BPF_CONTEXT_OFFSET + sizeof(struct user_bpf_context),
			   PERF_MAX_TRACE_SIZE);
	struct user_bpf_context *ctx;
	struct user_bpf_iter iter;
	struct pt_regs *regs;
	int rctx;
	bool keep;
	size_t off;
	void *buf;

	if (!iter_is_ubuf(from) && !iter_is_iovec(from))
		return true;

	buf = perf_trace_buf_alloc(size, &regs, &rctx);
	if (!buf)
		return true;
	perf_fetch_caller_regs(regs);
	memset(buf, 0, size);
	*(struct pt_regs **)buf = regs;

	ctx = buf + USER_BPF_CONTEXT_OFFSET;
	ctx->data_len = len;
	if (iter_is_ubuf(from)) {
		ctx->data_type = USER_BPF_DATA_USER;
		ctx->udata = (const void __force *)src;
	} else {
		iter.nr_segs = user_event_payload_segs(from, len, &iter.iov,
						       &off);
		iter.iov_offset = off;
		ctx->data_type = USER_BPF_DATA_ITER;
		ctx->iter = &iter;
	}

	keep = trace_call_bpf(call, buf);
	perf_swevent_put_recursion_context(rctx);
	return keep;
}

/*
 * The perf sample of a write: the record in perf's buffer (with perf's u32
 * size in front, the whole u64-aligned), handed to perf_tp_event() or, with
 * @bpf, to the eBPF programs of @call first.
 */
static __always_inline void user_event_perf_record(struct trace_event_call *call,
						   struct user_event *ue,
						   struct iov_iter *from,
						   size_t len,
						   struct user_event_write *w,
						   struct hlist_head *head,
						   bool bpf)
{
	int size = ALIGN(sizeof(struct trace_entry) + len + sizeof(u32),
			 sizeof(u64)) - sizeof(u32);
	/* both set by perf_trace_buf_alloc() when it returns a buffer */
	struct pt_regs *regs __uninitialized;
	int rctx __uninitialized;
	struct trace_entry *entry;

	entry = perf_trace_buf_alloc(size, &regs, &rctx);
	if (!entry)
		return;
	perf_fetch_caller_regs(regs);
	if (!user_event_fill(ue, entry, from, len, w, false)) {
		perf_swevent_put_recursion_context(rctx);
		return;
	}
	if (bpf)
		perf_trace_run_bpf_submit(entry, size, rctx, call, 1, regs,
					  head, NULL);
	else
		perf_trace_buf_submit(entry, size, rctx, call->event.type, 1,
				      regs, head, NULL);
	w->recorded++;
}

/*
 * user_event_perf() with eBPF programs attached: they run on the record
 * (the standard tracepoint context), or, for BPF_ITER events, on the
 * iovecs first, with a copy made only for the perf samples.
 */
static noinline void user_event_perf_bpf(struct trace_event_call *call,
					 struct user_event *ue,
					 struct iov_iter *from, size_t len,
					 struct user_event_write *w)
{
	struct hlist_head *head = this_cpu_ptr(call->perf_events);

	if (!ue->bpf_iter) {
		user_event_perf_record(call, ue, from, len, w, head, true);
		return;
	}
	if (!w->bpf_ran) {
		w->bpf_ran = true;
		w->bpf_keep = user_event_bpf_iter(call, from, w->src, len);
	}
	if (w->bpf_keep && !hlist_empty(head))
		user_event_perf_record(call, ue, from, len, w, head, false);
}

/*
 * The perf consumer: one raw sample for the perf events open on this CPU.
 * Inline in the writers (user_event_call_probe()), its address the probe's.
 */
static __always_inline void user_event_perf(void *data,
					    struct user_event *ue,
					    struct iov_iter *from, size_t len,
					    struct user_event_write *w)
{
	struct trace_event_call *call = data;
	struct hlist_head *head;

	if (unlikely(bpf_prog_array_valid(call))) {
		user_event_perf_bpf(call, ue, from, len, w);
		return;
	}
	head = this_cpu_ptr(call->perf_events);
	if (!hlist_empty(head))
		user_event_perf_record(call, ue, from, len, w, head, false);
}
#endif

/*
 * One consumer's probe. The two kinds that attach (user_event_consumer_reg()),
 * ftrace and perf, are called directly, their bodies inline in the writer:
 * no call through the pointer, no probe prologue, on the path of every
 * record. The probe's address tells which, and only a probe of ours is
 * called: a removal that could not allocate a smaller array leaves
 * tp_stub_func in its place, with the data of the consumer that is gone.
 * @hdr: see user_event_ftrace_direct().
 */
static __always_inline void user_event_call_probe(const struct tracepoint_func *f,
						  struct user_event *ue,
						  struct iov_iter *i,
						  size_t len,
						  struct user_event_write *w,
						  struct trace_entry *hdr)
{
	if (likely(f->func == (void *)user_event_ftrace))
		user_event_ftrace(f->data, ue, i, len, w, hdr);
#ifdef CONFIG_PERF_EVENTS
	else if (f->func == (void *)user_event_perf)
		user_event_perf(f->data, ue, i, len, w);
#endif
}

/*
 * The largest payload the consumer of probe @f records. ftrace: what
 * ring_buffer_max_event_size() says of its buffer (sub-buffer size,
 * buffer_subbuf_size_kb) less the common header and room for the time
 * stamp the ring buffer adds to an event's full length when the clock
 * moved too far since the last event (ring_buffer_max_event_size() leaves
 * room for one in absolute time stamp mode only).
 */
static size_t user_event_consumer_max(const struct tracepoint_func *f)
{
	struct trace_event_file *file = f->data;

	if (f->func == (void *)user_event_ftrace)
		return ring_buffer_max_event_size(file->tr->array_buffer.buffer) -
		       sizeof(u64) - sizeof(struct trace_entry);
#ifdef CONFIG_PERF_EVENTS
	/* perf (and eBPF): the record and perf's u32 size in PERF_MAX_TRACE_SIZE */
	if (f->func == (void *)user_event_perf)
		return USER_EVENT_PERF_MAX;
#endif
	/* a stub that user_event_call_probe() skips */
	return SIZE_MAX;
}

/*
 * Is a @len-byte payload more than any write takes, or more than one of the
 * consumers of probe array @f (NULL: none) records? Then nobody gets it:
 * the write fails before any consumer has a record. @f is the array the
 * probes are then called from (user_event_call_probes()), so that a
 * consumer attached since is checked too: a perf event would otherwise get
 * a record larger than perf_trace_buf_alloc() takes, and it WARNs.
 */
static noinline bool user_event_too_big(const struct tracepoint_func *f,
					size_t len)
{
	if (len > USER_EVENT_MAX_PAYLOAD)
		return true;
	for (; f && f->func; f++)
		if (len > user_event_consumer_max(f))
			return true;
	return false;
}

/*
 * Call every attached consumer, as a tracepoint would, pages not faulted.
 * False when there is none. A payload larger than what every consumer
 * takes (USER_EVENT_FITS_ALL) is checked against the consumers of the
 * array that gets it, whichever attached since the write began: one that
 * is too big for any of them is -E2BIG in @w->stop, and nobody records it.
 */
static __always_inline bool user_event_call_probes(struct user_event *ue,
						   struct iov_iter *i,
						   size_t len,
						   struct user_event_write *w)
{
	struct tracepoint_func *f;

	preempt_disable_notrace();
	f = rcu_dereference_sched(ue->tp.funcs);
	if (unlikely(len > USER_EVENT_FITS_ALL) && user_event_too_big(f, len)) {
		preempt_enable_notrace();
		w->stop = -E2BIG;
		return true;
	}
	if (unlikely(!f)) {
		preempt_enable_notrace();
		return false;
	}
	pagefault_disable();
	do {
		user_event_call_probe(f, ue, i, len, w, NULL);
	} while ((++f)->func && !w->stop);
	pagefault_enable();
	preempt_enable_notrace();
	return true;
}

/*
 * A write whose probes stopped on an error, or on a missing page: the copy
 * runs with page faults disabled; a missing page makes the probe drop its
 * record, and the whole write is retried once the pages are in. Once a
 * consumer has committed, a retry would duplicate its record: a fault after
 * that (the page was reclaimed in between) fails the write.
 */
static noinline int user_event_emit_retry(struct user_event *ue,
					  struct iov_iter *i, size_t len,
					  struct user_event_write *w)
{
	int tries;

	for (tries = 1; tries < USER_EVENT_FAULT_TRIES; tries++) {
		if (w->stop != USER_EVENT_FAULTED)
			return w->stop;
		if (w->recorded || fault_in_iov_iter_readable(i, iov_iter_count(i)))
			return -EFAULT;
		w->stop = 0;
		user_event_call_probes(ue, i, len, w);
	}
	return w->stop != USER_EVENT_FAULTED ? w->stop : -EFAULT;
}

/*
 * Record a write of @len payload bytes, at @src when they are one piece of
 * user memory, with an index of the enable-bit ABI (@bits) or of the status
 * page: 0 or an errno
 */
static __always_inline int user_event_emit(struct user_event *ue,
					   struct iov_iter *i,
					   const void __user *src, size_t len,
					   bool bits)
{
	struct user_event_write w = { .src = src };

	/*
	 * Nobody listening: a status-page index is accepted with nothing
	 * recorded; an enable-bit index is refused, as Linux 6.5+ does. Rare
	 * for a client that tests its byte or bit before writing.
	 */
	if (unlikely(!user_event_call_probes(ue, i, len, &w)))
		return bits ? -EBADF : 0;
	if (unlikely(w.stop))
		return user_event_emit_retry(ue, i, len, &w);
	return 0;
}

/* The slot of write index @idx in @refs (may be NULL), 0 for none */
static __always_inline unsigned long
user_event_slot_in(const struct user_event_refs *refs, int idx)
{
	/*
	 * Pairs with the release in user_event_fd_add(): counted slots are
	 * set. A negative index is out of range too.
	 */
	if (refs && (unsigned int)idx < (unsigned int)smp_load_acquire(&refs->count))
		return refs->slots[idx];
	return 0;
}

/* The slot of write index @idx of @file, 0 for none */
static __always_inline unsigned long user_event_slot_of_fd(struct file *file,
							   int idx)
{
	struct user_event_fd *ufd = file->private_data;
	struct user_event_refs *refs;
	unsigned long slot;

	/* The fd holds a reference on each of its events until release */
	rcu_read_lock_sched();
	refs = rcu_dereference_sched(ufd->refs);
	slot = user_event_slot_in(refs, idx);
	rcu_read_unlock_sched();
	return slot;
}

/*
 * Is a load of @size bytes at the user address @p unaligned where the
 * architecture wants it aligned? Then the caller copies the bytes instead
 * (__copy_from_user_inatomic(): a run of a batch has page faults off).
 * Compiled away where unaligned loads are cheap (x86, arm64, ...).
 */
static __always_inline bool user_load_unaligned(const void __user *p,
						size_t size)
{
	return !IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) &&
	       !IS_ALIGNED((unsigned long)p, size);
}

/*
 * The index at @p, a user address that passed access_ok() when the write
 * or its iterator was made (vfs_write(), import_ubuf(), import_iovec()):
 * the index as an unsigned value, or -EFAULT.
 */
static __always_inline s64 user_event_index_from_user(const int __user *p)
{
	int idx;

	if (user_load_unaligned(p, sizeof(idx)))
		return __copy_from_user_inatomic(&idx, p, sizeof(idx)) ?
		       -EFAULT : (u32)idx;
	if (can_do_masked_user_access())
		p = masked_user_access_begin(p);
	else if (!user_read_access_begin(p, sizeof(*p)))
		return -EFAULT;
	unsafe_get_user(idx, p, efault);
	user_read_access_end();
	return (u32)idx;
efault:
	user_read_access_end();
	return -EFAULT;
}

/* user_event_read_index() of the iterators whose payload is not one piece */
static noinline s64 user_event_read_index_iter(const struct iov_iter *i)
{
	struct iov_iter head;
	int idx;

	if (iter_is_iovec(i) && iter_iov_len(i) >= sizeof(idx))
		return user_event_index_from_user(iter_iov_addr(i));
	/* split over segments, or not user memory */
	head = *i;
	if (copy_from_iter(&idx, sizeof(idx), &head) != sizeof(idx))
		return -EFAULT;
	return (u32)idx;
}

/*
 * The write index: the first 4 bytes of @i, as an unsigned value, or
 * -EFAULT. When the @len payload bytes past it are one piece of user
 * memory (a ubuf, or the common writev() of the index and the payload in
 * one segment each), *@src is where they are, for the consumers' copy;
 * else NULL. @i stays where it is: the consumers copy from past the index.
 */
static __always_inline s64 user_event_read_index(const struct iov_iter *i,
						 size_t len,
						 const void __user **src)
{
	const struct iovec *iov = i->__iov;

	if (likely(iter_is_iovec(i) && i->nr_segs == 2 && !i->iov_offset &&
		   iov->iov_len == USER_EVENT_INDEX_SIZE &&
		   iov[1].iov_len == len)) {
		*src = iov[1].iov_base;
		return user_event_index_from_user(iov->iov_base);
	}
	if (iter_is_ubuf(i)) {
		*src = i->ubuf + i->iov_offset + USER_EVENT_INDEX_SIZE;
		return user_event_index_from_user(i->ubuf + i->iov_offset);
	}
	*src = NULL;
	return user_event_read_index_iter(i);
}

/* user_event_write_check() of the @slot that write index @idx has */
static __always_inline int user_event_slot_check(unsigned long slot, int idx,
						 size_t len,
						 struct user_event **uep)
{
	struct user_event *ue;

	if (unlikely(!slot))
		return idx < 0 ? -EINVAL : -ENOENT;
	ue = user_slot_event(slot);
	if (len < ue->min_size)
		return -EINVAL;
	*uep = ue;
	return slot & USER_SLOT_BIT_ABI;
}

/*
 * A write of index @idx and @len payload bytes, on @file: its event in
 * *@uep when the payload is to be recorded, and whether the index is of
 * the enable-bit ABI (returns 1) or of the status page (0); else an errno.
 */
static __always_inline int user_event_write_check(struct file *file, int idx,
						  size_t len,
						  struct user_event **uep)
{
	return user_event_slot_check(user_event_slot_of_fd(file, idx), idx,
				     len, uep);
}

/* Batches ---------------------------------------------------------------- */

/*
 * A batch is what a write() or writev() of a batch fd (DIAG_IOCSBATCH)
 * carries, all of it: records back to back, each a u32 of its size and
 * the bytes of a single write of that size, the write index (of the fd the
 * batch fd was made from) and the payload. No value multiplexes the data
 * path: the fd says what its writes are, so the rest of a short write,
 * written again as it is, is records too. Each record is checked and
 * recorded as that write alone would be, by the same code, with one
 * difference: a record of an event nobody listens to is skipped, once
 * checked, whatever the ABI of its index (a batch is filled before it is
 * written; the event may have lost its consumers in between). The first
 * record that fails ends the batch: the records before it are recorded
 * and their bytes returned, as a short write; the first record's errno is
 * the call's. Every size is the writer's, checked against the bytes the
 * call was given before anything is read past it.
 */
#define USER_BATCH_HEAD_SIZE	sizeof(struct user_batch_rec)
/* A record's head and write index, read before the rest */
#define USER_BATCH_MIN_REC	(USER_BATCH_HEAD_SIZE + USER_EVENT_INDEX_SIZE)

/* A record's head and write index, as they lie in memory */
union user_batch_head {
	u64	both;
	u32	word[2];	/* the size, then the write index */
};

/*
 * The head of the record at @p, the first 8 of at least as many bytes of a
 * buffer that passed access_ok(), read as one u64 in *@head: 0 or -EFAULT.
 * Records lie at any address: see user_load_unaligned().
 */
static __always_inline int user_batch_read_head(const char __user *p,
						u64 *head)
{
	const u64 __user *h = (const u64 __user *)p;

	if (user_load_unaligned(h, sizeof(*head)))
		return __copy_from_user_inatomic(head, h, sizeof(*head)) ?
		       -EFAULT : 0;
	if (can_do_masked_user_access())
		h = masked_user_access_begin(h);
	else if (!user_read_access_begin(h, sizeof(*h)))
		return -EFAULT;
	unsafe_get_user(*head, h, efault);
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}

/* The size and the write index in a head that user_batch_read_head() read */
static __always_inline void user_batch_split_head(u64 head, u32 *size,
						  u32 *idx)
{
	union user_batch_head h = { .both = head };

	*size = h.word[0];
	*idx = h.word[1];
}

/*
 * Is @size, read at a record with @rem (at least USER_BATCH_MIN_REC) bytes
 * from its start, the size of one? One comparison: a size under the
 * index's wraps to more than any @rem.
 */
static __always_inline bool user_batch_size_valid(u32 size, size_t rem)
{
	return (size_t)size - USER_EVENT_INDEX_SIZE <= rem - USER_BATCH_MIN_REC;
}

/*
 * A batch of @count bytes at @buf, of @data's events, when it is one
 * record: that record's write, as user_data_write() makes it, with the
 * batch's rule for an event nobody listens to (skipped, as for an index of
 * the status page). The bytes taken or an errno; 0 when the batch is not
 * one whole record, or its head cannot be read here (a fault:
 * user_data_write_batch_ubuf() takes it, and fails it as it should).
 */
static __always_inline ssize_t user_batch_write_one(struct file *data,
						    const char __user *buf,
						    size_t count)
{
	size_t len = count - USER_BATCH_MIN_REC;
	/* set whole by iov_iter_ubuf() */
	struct iov_iter i __uninitialized;
	struct user_event *ue;
	u32 size, idx;
	u64 head;
	int ret;

	/* less than a head wraps */
	if (len > USER_EVENTS_BATCH_MAX - USER_BATCH_MIN_REC ||
	    user_batch_read_head(buf, &head))
		return 0;
	user_batch_split_head(head, &size, &idx);
	if (size != count - USER_BATCH_HEAD_SIZE)
		return 0;
	ret = user_event_write_check(data, (int)idx, len, &ue);
	if (unlikely(ret < 0))
		return ret;
	iov_iter_ubuf(&i, ITER_SOURCE, (void __user *)buf + USER_BATCH_HEAD_SIZE,
		      size);
	ret = user_event_emit(ue, &i, buf + USER_BATCH_MIN_REC, len, false);
	return ret < 0 ? ret : count;
}

/*
 * A batch in one user buffer, being recorded: the next record's head at
 * @p, the batch's end at @end. A run that stopped on a missing page
 * leaves what is needed to go on out of its section: the record's event
 * @ue (NULL: the head's page is missing), its payload's length @len and
 * its write as the probes left it, @w.
 */
struct user_batch {
	const char __user	*p;
	const char __user	*end;
	struct user_event	*ue;
	size_t			len;
	struct user_event_write	w;
};

/*
 * Do the records of @ue, a record of @len payload bytes first, whose probe
 * array is @f, go to one ftrace file only, into its ring buffer directly
 * (user_ftrace_direct()), to be recorded by user_batch_ftrace_run()? It
 * does not mark the event as having records in the buffer: the event must
 * have them already (ue->in_buffer is never cleared). A record over
 * USER_EVENT_FITS_ALL goes the other way, which checks its size.
 */
static __always_inline bool user_batch_direct(const struct tracepoint_func *f,
					      const struct user_event *ue,
					      size_t len)
{
	return f->func == (void *)user_event_ftrace && !f[1].func &&
	       len <= USER_EVENT_FITS_ALL && READ_ONCE(ue->in_buffer) &&
	       user_ftrace_direct(f->data);
}

/*
 * The records at @b->p, the first of head @same (its size and write index,
 * checked), of event @ue, whose probe array is @f, that user_batch_direct()
 * let go to its one ftrace file, the run's common header @hdr filled: each
 * recorded by user_event_ftrace_record() as long as it is of the same
 * index, the same array, the file's flags still allow it, and its size
 * needs no more than the checks here. Ends at the batch's end, at
 * need_resched(), at a record of another kind (left to the caller's loop,
 * which reads its head again), or at a record that failed: its errno or
 * USER_EVENT_FAULTED in @b->w.stop, its length in @b->len. The instance's
 * options and the global hooks are as user_batch_direct() read them, once
 * for these records, as a single write reads them once. @i: the run's
 * iterator.
 */
static noinline void user_batch_ftrace_run(struct user_batch *b, u64 same,
					   struct user_event *ue,
					   const struct tracepoint_func *f,
					   struct trace_entry hdr,
					   struct iov_iter *i)
{
	const char __user *p = b->p, *end = b->end;
	struct trace_event_file *file = f->data;
	/* a file's instance is its own for good, its buffer read per record */
	struct trace_array *tr = file->tr;
	struct user_event_write w;
	u32 size, idx, at;
	size_t len;
	u64 head;

	user_batch_split_head(same, &size, &idx);
	len = size - USER_EVENT_INDEX_SIZE;
	hdr.type = ue->call.event.type;
	do {
		if (end - p < USER_BATCH_MIN_REC || user_batch_read_head(p, &head))
			break;
		/* a head as the last one's: checked but for the bytes left */
		if (head != same) {
			user_batch_split_head(head, &size, &at);
			if (!user_batch_size_valid(size, end - p) || at != idx)
				break;
			len = size - USER_EVENT_INDEX_SIZE;
			if (len < ue->min_size || len > USER_EVENT_FITS_ALL)
				break;
			same = head;
		} else if (len > end - p - USER_BATCH_MIN_REC) {
			break;
		}
		if (rcu_access_pointer(ue->tp.funcs) != f ||
		    READ_ONCE(file->flags) & USER_FTRACE_GENERIC)
			break;
		w = (struct user_event_write) {
			.src = p + USER_BATCH_MIN_REC,
		};
		user_event_ftrace_record(tr->array_buffer.buffer, ue, i, len, &w,
					 &hdr, 0, true);
		if (unlikely(w.stop)) {
			b->w = w;
			b->len = len;
			break;
		}
		p += USER_BATCH_MIN_REC + len;
	} while (p != end && !need_resched());
	b->p = p;
}

/*
 * One run of @b's records, from its next one: each checked and its probes
 * called as user_event_emit() checks and calls them, a record nobody
 * listens to skipped. A run is one section without preemption nor page
 * faults, to the batch's end or to where the scheduler wants the CPU
 * (need_resched()); the caller then calls cond_resched() and starts the
 * next.
 * The run's state is in locals, @b written back at its end. The fd's slots
 * are looked up once, under the run's RCU read side (preemption off), and
 * a slot once for the records of its index that follow one another (a
 * published slot does not change). The probes get one iterator for the
 * run, of the user buffer: with each record's payload at @w.src, one piece
 * of user memory, they copy from there and look at the iterator's type
 * only. The ftrace records' common header is filled once, at the run's
 * first ftrace record: what tracing_gen_ctx_dec() says in the run is the
 * same for each (preemption is off and a need_resched() ends the run,
 * interrupts are as the write found them), and so is the pid. The records
 * of an event whose one consumer is an ftrace file that takes them
 * directly go to user_batch_ftrace_run() (user_batch_direct()).
 * Returns 0 with @b past the run's records; else @b is at a record that
 * stops it: its errno, or USER_EVENT_FAULTED for a missing page (see
 * struct user_batch).
 */
static __always_inline int user_batch_run(struct user_event_fd *ufd,
					  struct user_batch *b)
{
	const char __user *p = b->p, *end = b->end;
	struct trace_entry hdr = { .type = 0 };
	const struct tracepoint_func *f;
	const struct user_event_refs *refs;
	struct user_event *ue = NULL, *last = NULL;
	/* set whole by iov_iter_ubuf() */
	struct iov_iter i __uninitialized;
	unsigned int count = 0;
	u32 size, idx, last_idx = 0;
	size_t len = 0;
	u64 head;
	int ret;

	iov_iter_ubuf(&i, ITER_SOURCE, (void __user *)p, end - p);
	preempt_disable_notrace();
	pagefault_disable();
	refs = rcu_dereference_sched(ufd->refs);
	if (refs)
		/* as user_event_slot_in() reads it, once for the whole run */
		count = smp_load_acquire(&refs->count);
	do {
		if (unlikely(end - p < USER_BATCH_MIN_REC)) {
			ret = -EINVAL;
			break;
		}
		if (unlikely(user_batch_read_head(p, &head))) {
			ue = NULL;
			ret = USER_EVENT_FAULTED;
			break;
		}
		user_batch_split_head(head, &size, &idx);
		if (unlikely(!user_batch_size_valid(size, end - p))) {
			ret = -EINVAL;
			break;
		}
		len = size - USER_EVENT_INDEX_SIZE;
		if (last && idx == last_idx) {
			ue = last;
			if (unlikely(len < ue->min_size)) {
				ret = -EINVAL;
				break;
			}
		} else {
			ret = user_event_slot_check(idx < count ?
						    refs->slots[idx] : 0,
						    idx, len, &ue);
			if (unlikely(ret < 0))
				break;
			last = ue;
			last_idx = idx;
		}
		f = rcu_dereference_sched(ue->tp.funcs);
		if (unlikely(len > USER_EVENT_FITS_ALL) &&
		    user_event_too_big(f, len)) {
			ret = -E2BIG;
			break;
		}
		/* nobody listening, whatever the ABI: skipped */
		ret = 0;
		if (!f) {
			p += USER_BATCH_MIN_REC + len;
			continue;
		}
		if (user_batch_direct(f, ue, len)) {
			if (unlikely(!hdr.type))
				tracing_generic_entry_update(&hdr,
							     ue->call.event.type,
							     tracing_gen_ctx_dec());
			b->p = p;
			b->w.stop = 0;
			user_batch_ftrace_run(b, head, ue, f, hdr, &i);
			ret = b->w.stop;
			if (unlikely(ret)) {
				p = b->p;
				len = b->len;
				break;
			}
			/* none taken (the file's flags changed): as below */
			if (b->p != p) {
				p = b->p;
				continue;
			}
		}
		b->w = (struct user_event_write) {
			.src = p + USER_BATCH_MIN_REC,
		};
		do {
			user_event_call_probe(f, ue, &i, len, &b->w, &hdr);
		} while ((++f)->func && !b->w.stop);
		ret = b->w.stop;
		if (unlikely(ret))
			break;
		p += USER_BATCH_MIN_REC + len;
	} while (p != end && !need_resched());
	pagefault_enable();
	preempt_enable_notrace();
	b->p = p;
	b->ue = ue;
	b->len = len;
	return ret;
}

/*
 * A batch of @count bytes at @buf, a buffer that passed access_ok(), of
 * @data's events: the bytes taken, or the first record's errno. A missing
 * page is faulted in out of the runs' sections: a payload's as a lone
 * write's (user_event_emit_retry()), a head's before the run is tried
 * again from it.
 */
static noinline ssize_t user_data_write_batch_ubuf(struct file *data,
						   const char __user *buf,
						   size_t count)
{
	struct user_batch b __uninitialized;
	/* set whole by iov_iter_ubuf() */
	struct iov_iter i __uninitialized;
	const char __user *at;
	int ret = 0, tries = 0;

	if (count > USER_EVENTS_BATCH_MAX)
		return -EMSGSIZE;

	b.p = buf;
	b.end = buf + count;
	while (b.p != b.end) {
		at = b.p;
		ret = user_batch_run(data->private_data, &b);
		if (b.p != at)
			tries = 0;
		if (likely(!ret)) {
			if (b.p != b.end)
				cond_resched();
			continue;
		}
		if (ret != USER_EVENT_FAULTED)
			break;
		if (b.ue) {
			iov_iter_ubuf(&i, ITER_SOURCE,
				      (void __user *)b.p + USER_BATCH_HEAD_SIZE,
				      USER_EVENT_INDEX_SIZE + b.len);
			ret = user_event_emit_retry(b.ue, &i, b.len, &b.w);
			if (ret)
				break;
			b.p += USER_BATCH_MIN_REC + b.len;
			continue;
		}
		if (++tries >= USER_EVENT_FAULT_TRIES ||
		    fault_in_readable(b.p, USER_BATCH_MIN_REC)) {
			ret = -EFAULT;
			break;
		}
	}

	/* b.p is at the failed record's head */
	if (ret && b.p == buf)
		return ret;
	return b.p - buf;
}

/*
 * A batch in an iterator that is not one user buffer (a writev() of several
 * segments, io_uring): as user_data_write_batch_ubuf(), each record in an
 * iterator of its own, that of a single write of it
 */
static noinline ssize_t user_data_write_batch_iter(struct file *data,
						   struct iov_iter *from)
{
	size_t total = iov_iter_count(from);
	const void __user *src;
	struct user_event *ue;
	struct iov_iter rec;
	u32 head[2], size;
	size_t rem;
	s64 idx;
	int ret = 0;

	if (iter_is_ubuf(from))
		return user_data_write_batch_ubuf(data, from->ubuf +
						  from->iov_offset, total);

	if (total > USER_EVENTS_BATCH_MAX)
		return -EMSGSIZE;
	while ((rem = iov_iter_count(from))) {
		if (rem < USER_BATCH_MIN_REC) {
			ret = -EINVAL;
			break;
		}

		/* the head whole first, as user_data_write_batch_ubuf() */
		rec = *from;
		if (copy_from_iter(head, sizeof(head), &rec) != sizeof(head)) {
			ret = -EFAULT;
			break;
		}
		size = head[0];
		if (!user_batch_size_valid(size, rem)) {
			ret = -EINVAL;
			break;
		}

		rec = *from;
		iov_iter_advance(&rec, USER_BATCH_HEAD_SIZE);
		iov_iter_truncate(&rec, size);
		idx = user_event_read_index(&rec, size - USER_EVENT_INDEX_SIZE,
					    &src);
		if (idx < 0) {
			ret = idx;
			break;
		}

		ret = user_event_write_check(data, (int)idx,
					     size - USER_EVENT_INDEX_SIZE, &ue);
		if (ret < 0)
			break;
		ret = user_event_emit(ue, &rec, src,
				      size - USER_EVENT_INDEX_SIZE, false);
		if (ret)
			break;

		iov_iter_advance(from, USER_BATCH_HEAD_SIZE + size);
		cond_resched();
	}

	if (ret && rem == total)
		return ret;
	return total - rem;
}

/* writev(), and every write that is not one user buffer (io_uring) */
static ssize_t user_data_write_iter(struct kiocb *kiocb, struct iov_iter *i)
{
	size_t total = iov_iter_count(i);
	size_t len = total - USER_EVENT_INDEX_SIZE;
	const void __user *src;
	struct user_event *ue;
	s64 idx;
	int ret;

	if (total < USER_EVENT_INDEX_SIZE)
		return -EINVAL;
	idx = user_event_read_index(i, len, &src);
	if (unlikely(idx < 0))
		return idx;
	ret = user_event_write_check(kiocb->ki_filp, (int)idx, len, &ue);
	if (unlikely(ret < 0))
		return ret;
	ret = user_event_emit(ue, i, src, len, ret);
	return ret < 0 ? ret : len + USER_EVENT_INDEX_SIZE;
}

/* write(): one user buffer, without the kiocb and iov_iter set-up of writev() */
static ssize_t user_data_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	size_t len = count - USER_EVENT_INDEX_SIZE;
	/* set whole by iov_iter_ubuf() */
	struct iov_iter i __uninitialized;
	struct user_event *ue;
	s64 idx;
	int ret;

	if (count < USER_EVENT_INDEX_SIZE)
		return -EINVAL;
	/* vfs_write() checked access_ok() of the buffer */
	idx = user_event_index_from_user((const int __user *)buf);
	if (unlikely(idx < 0))
		return idx;
	ret = user_event_write_check(file, (int)idx, len, &ue);
	if (unlikely(ret < 0))
		return ret;
	iov_iter_ubuf(&i, ITER_SOURCE, (void __user *)buf, count);
	ret = user_event_emit(ue, &i, buf + USER_EVENT_INDEX_SIZE, len, ret);
	return ret < 0 ? ret : count;
}

/*
 * A batch fd (DIAG_IOCSBATCH) holds the user_events_data file it was made
 * from, whose events and write indexes its records name
 */
static ssize_t user_batch_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	struct file *data = file->private_data;
	ssize_t one;

	if (!count)
		return 0;
	/* vfs_write() checked access_ok() of the buffer */
	one = user_batch_write_one(data, buf, count);
	return one ?: user_data_write_batch_ubuf(data, buf, count);
}

static ssize_t user_batch_write_iter(struct kiocb *kiocb, struct iov_iter *i)
{
	if (!iov_iter_count(i))
		return 0;
	return user_data_write_batch_iter(kiocb->ki_filp->private_data, i);
}

static int user_batch_release(struct inode *inode, struct file *file)
{
	fput(file->private_data);
	return 0;
}

static const struct file_operations user_batch_fops = {
	.release	= user_batch_release,
	.write		= user_batch_write,
	.write_iter	= user_batch_write_iter,
};

/* Consumers and the status byte ------------------------------------------ */

/*
 * A trace event's consumers attach as ftrace (TRACE_REG_REGISTER) or as
 * perf (TRACE_REG_PERF_REGISTER, eBPF programs included): nothing sets
 * EVENT_BIT_OTHER, which the ABI keeps for a kind that might come.
 */
static u8 user_event_status(struct user_event *ue)
{
	return (ue->ftrace_users ? EVENT_STATUS_FTRACE : 0) |
	       (ue->perf_users ? EVENT_STATUS_PERF : 0);
}

static void user_event_update_enablers(struct user_event *ue);

/* Tell the status byte and the enable bits of @ue that its consumers changed */
static void user_event_update_status(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);
	if (ue->index)
		WRITE_ONCE(ue->group->status_bytes[ue->index],
			   user_event_status(ue));
	user_event_update_enablers(ue);
}

/*
 * Is @ue an enable-bit event that nothing refers to any more, and that can
 * go at once? One that recorded into an ftrace buffer stays, listed and
 * registrable as before, until it is deleted on purpose (DIAG_IOCSDEL,
 * "-:name"), which retires it (section Retired events). It counts against
 * user_events_max as any event does.
 */
static bool user_event_unused(struct user_event *ue)
{
	return ue->auto_del && refcount_read(&ue->refs) == 1 &&
	       !user_event_status(ue) && !READ_ONCE(ue->in_buffer);
}

static void user_event_reap_fn(struct work_struct *work);
static DECLARE_WORK(user_event_reap_work, user_event_reap_fn);
static void user_event_mm_drop_released(bool reap);

/* Retired events: deleted, their records still in a buffer; event_mutex */
static LIST_HEAD(user_retired_events);
static bool user_retired_reclaim(struct user_event_group *room_for, bool all);

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

static int user_event_consumer_reg(struct trace_event_call *call,
				   enum trace_reg type, void *data)
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
	/* the trace event cannot be removed from inside its own detach */
	if (user_event_unused(ue))
		schedule_work(&user_event_reap_work);
	return ret;
}

/* Events: creation and deletion ------------------------------------------ */

/*
 * Events of one name in one group hash alike: "name", and every
 * "name.<id>" of multi-format
 */
static u32 user_name_key(struct user_event_group *g, const char *name)
{
	return full_name_hash(g, name, strcspn(name, "."));
}

static struct user_event *user_event_find(struct user_event_group *g,
					  const char *name)
{
	struct user_event *ue;

	lockdep_assert_held(&event_mutex);
	hash_for_each_possible(user_event_table, ue, node, user_name_key(g, name))
		if (ue->group == g && !strcmp(ue->name, name))
			return ue;
	return NULL;
}

/* The multi-format event of @g named @d->name.<id> with @d's fields */
static struct user_event *user_event_find_multi(struct user_event_group *g,
						struct user_spec *d)
{
	size_t len = strlen(d->name);
	struct user_event *ue;

	lockdep_assert_held(&event_mutex);
	hash_for_each_possible(user_event_table, ue, node,
			       user_name_key(g, d->name))
		if (ue->group == g && ue->multi && !strncmp(ue->name, d->name, len) &&
		    ue->name[len] == '.' && !strcmp(ue->args, d->args))
			return ue;
	return NULL;
}

static void user_event_free(struct user_event *ue)
{
	kfree(ue->call.print_fmt);
	kfree(ue->class.fields_array);
	kfree(ue->name);
	kfree(ue->flags);
	kfree(ue->args);
	user_fields_free(ue->fields, ue->nr_fields);
	mutex_destroy(&ue->enablers_lock);
	ue->group->nr_events--;
	user_group_put(ue->group);
	kfree(ue);
	user_events_count--;
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

/* How user_event_find_or_create() registers an event */
enum {
	UE_REG_SLOT	= BIT(0),	/* with a status-page byte */
	UE_REG_KEEP	= BIT(1),	/* until deleted, not while referred to */
	UE_REG_PERSIST	= BIT(2),	/* USER_EVENT_REG_PERSIST */
	UE_REG_MULTI	= BIT(3),	/* USER_EVENT_REG_MULTI_FORMAT */
	UE_REG_ADOPT_LATER = BIT(4),	/* an event found: the caller adopts it */
};

/* May @g have no more events? */
static bool user_events_full(struct user_event_group *g)
{
	return user_events_count >= READ_ONCE(user_events_max) ||
	       g->nr_events >= user_group_max(g);
}

/* Take what @d owns and lay the fields out after the common header */
static struct user_event *user_event_alloc(struct user_event_group *g,
					   struct user_spec *d,
					   unsigned int how)
{
	struct user_event *ue = kzalloc(sizeof(*ue), GFP_KERNEL_ACCOUNT);
	u32 offset = sizeof(struct trace_entry);
	int i;

	if (!ue)
		return NULL;

	user_events_count++;
	ue->group = user_group_get(g);
	g->nr_events++;
	if (how & UE_REG_MULTI) {
		ue->name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx", d->name,
				     user_event_multi_id++);
		if (!ue->name) {
			user_event_free(ue);
			return NULL;
		}
		kfree(d->name);
	} else {
		ue->name = d->name;
	}

	ue->multi = how & UE_REG_MULTI;
	ue->persist = how & UE_REG_PERSIST;
	ue->auto_del = !(how & (UE_REG_KEEP | UE_REG_PERSIST));
	INIT_LIST_HEAD(&ue->enablers);
	mutex_init(&ue->enablers_lock);

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

/*
 * The type of @ue, registered on fmt: what prints a record of that type
 * (ftrace_find_event()) is fmt's, which the trace event core takes to be a
 * trace_event_call's (print_event_fields(), eprobes): while @ue lives, one
 * of its class, fields and name; call gets the type's number.
 */
static int user_event_register_type(struct user_event *ue)
{
	struct trace_event_call *fmt = &ue->fmt;

	fmt->class = &ue->class;
	fmt->name = ue->name;
	fmt->print_fmt = ue->call.print_fmt;
	fmt->event.funcs = &user_event_funcs;
	fmt->data = ue;
	/*
	 * The type ids (TRACE_EVENT_TYPE_MAX) are one pool for every trace
	 * event, dynamic ones of all kinds: a group's limit does not hold one.
	 * Retired events hold theirs: see user_event_find_or_create().
	 */
	if (!register_trace_event(&fmt->event))
		return -ENOSPC;
	ue->call.event.type = fmt->event.type;
	return 0;
}

static int user_event_add_trace_call(struct user_event *ue)
{
	struct trace_event_call *call = &ue->call;
	int ret;

	INIT_LIST_HEAD(&ue->class.fields);
	ue->class.system = ue->multi ? ue->group->system_multi :
				       ue->group->system;
	ue->class.reg = user_event_consumer_reg;
	ue->class.fields_array = user_event_fields_array(ue);
	if (!ue->class.fields_array)
		return -ENOMEM;

	call->class = &ue->class;
	/* for tp_printk (output_printk()); see user_event_remove_call() */
	call->event.funcs = &user_event_funcs;
	call->flags = TRACE_EVENT_FL_TRACEPOINT;
	call->tp = &ue->tp;
	call->data = ue;

	ret = user_event_set_print_fmt(ue);
	if (ret)
		return ret;
	ret = user_event_register_type(ue);
	if (ret)
		return ret;
	ret = trace_add_event_call(call);
	if (ret) {
		unregister_trace_event(&ue->fmt.event);
		return ret;
	}

	dyn_event_init(&ue->devent, &user_event_ops);
	return dyn_event_add(&ue->devent, call);
}

/* A status-page byte for @ue, set to its state */
static int user_event_add_slot(struct user_event *ue)
{
	u32 index;
	int ret;

	ret = xa_alloc(&ue->group->by_index, &index, ue,
		       XA_LIMIT(1, PAGE_SIZE - 1), GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret == -EBUSY ? -EMFILE : ret;
	ue->index = index;
	WRITE_ONCE(ue->group->status_bytes[index], user_event_status(ue));
	return 0;
}

/*
 * An existing event registered again, @how: through the status page or
 * dynamic_events it gets a status byte and stays until deleted, as if it
 * had been created there; an enable-bit registration changes nothing but
 * with USER_EVENT_REG_PERSIST.
 */
static int user_event_adopt(struct user_event *ue, unsigned int how)
{
	if ((how & UE_REG_SLOT) && !ue->index) {
		int ret = user_event_add_slot(ue);

		if (ret)
			return ret;
	}
	if (how & (UE_REG_KEEP | UE_REG_PERSIST))
		ue->auto_del = false;
	ue->persist |= how & UE_REG_PERSIST;
	return 0;
}

static struct user_event *user_event_create_spec(struct user_event_group *g,
						 struct user_spec *d,
						 unsigned int how)
{
	struct user_event *ue;
	int ret;

	if (user_events_full(g))
		return ERR_PTR(-EMFILE);

	ue = user_event_alloc(g, d, how);
	if (!ue)
		return ERR_PTR(-ENOMEM);

	ret = how & UE_REG_SLOT ? user_event_add_slot(ue) : 0;
	if (ret) {
		user_event_free(ue);
		return ERR_PTR(ret);
	}

	ret = user_event_add_trace_call(ue);
	if (ret) {
		if (ue->index)
			xa_erase(&g->by_index, ue->index);
		user_event_free(ue);
		return ERR_PTR(ret);
	}

	hash_add(user_event_table, &ue->node, user_name_key(g, ue->name));
	return ue;
}

/*
 * Look at the buffers for retired events that may go, letting go of
 * event_mutex meanwhile (see user_retired_reclaim()): @g stays, held
 */
static void user_retired_reclaim_unlocked(struct user_event_group *g,
					  bool all)
{
	lockdep_assert_held(&event_mutex);
	user_group_get(g);
	mutex_unlock(&event_mutex);
	user_retired_reclaim(g, all);
	mutex_lock(&event_mutex);
	user_group_put(g);
}

/*
 * Create the event of @g that @cmd (past @skip bytes) describes, or find it
 * if it exists with its fields; @how is a UE_REG_* mask. Retired events
 * count against the limits and hold their type ids: for want of room, or
 * when the type ids ran out, it looks for those no buffer holds records
 * of any more, which go at once (those of @g only, unless
 * kernel.user_events_max is reached or the type ids ran out), then starts
 * over: at most once for each of the two. It lets go of event_mutex
 * meanwhile: the caller must hold nothing that others must not see half
 * made.
 */
static struct user_event *user_event_find_or_create(struct user_event_group *g,
						    const char *cmd,
						    int skip, unsigned int how,
						    bool *created)
{
	struct user_spec d;
	struct user_event *ue;
	/* 1: looked for @g's retired events, 2: for every group's */
	int looked = 0, ret;
	bool all;

	lockdep_assert_held(&event_mutex);
again:
	ret = user_parse(cmd, skip, false, &d);
	if (ret)
		return ERR_PTR(ret);

	/* an event that exited processes held is gone, as after their exit */
	user_event_mm_drop_released(true);
	if (how & UE_REG_MULTI)
		ue = user_event_find_multi(g, &d);
	else
		ue = user_event_find(g, d.name);

	if (ue) {
		ret = strcmp(ue->args, d.args) ? -EADDRINUSE : 0;
		if (ret)
			user_parse_err(&(struct user_parse){ .cmd = cmd },
				       USER_ERR_OTHER_FIELDS, NULL);
		user_spec_free(&d);
		if (!ret && !(how & UE_REG_ADOPT_LATER))
			ret = user_event_adopt(ue, how);
		return ret ? ERR_PTR(ret) : ue;
	}

	/* only the group's own retired events make room in it */
	all = user_events_count >= READ_ONCE(user_events_max);
	if (!looked && user_events_full(g) &&
	    (all ? !list_empty(&user_retired_events) : g->nr_retired)) {
		user_spec_free(&d);
		user_retired_reclaim_unlocked(g, all);
		looked = all ? 2 : 1;
		goto again;
	}
	ue = user_event_create_spec(g, &d, how);
	user_spec_free(&d);
	/* the type ids: every group's retired events hold theirs */
	if (looked < 2 && PTR_ERR_OR_ZERO(ue) == -ENOSPC &&
	    !list_empty(&user_retired_events)) {
		user_retired_reclaim_unlocked(g, true);
		looked = 2;
		goto again;
	}
	if (PTR_ERR_OR_ZERO(ue) == -ENOSPC)
		user_parse_err(&(struct user_parse){ .cmd = cmd }, USER_ERR_NO_TYPE_ID,
			       NULL);
	*created = !IS_ERR(ue);
	return ue;
}

/*
 * Take call out of tracefs and the trace event core; the type stays with
 * fmt. event_remove() unregisters call->event when it has funcs, which
 * call has only for tp_printk: with no consumer and no writer (no fd holds
 * @ue), nothing prints through it now.
 */
static int user_event_remove_call(struct user_event *ue)
{
	int ret;

	ue->call.event.funcs = NULL;
	ret = trace_remove_event_call(&ue->call);
	if (ret)
		ue->call.event.funcs = &user_event_funcs;
	return ret;
}

/* Its name, dynamic_events line and status byte are free for others */
static void user_event_unlist(struct user_event *ue)
{
	dyn_event_remove(&ue->devent);
	hash_del(&ue->node);
	if (ue->index) {
		/* Nothing is attached, so the byte is 0 for the slot's next owner */
		WRITE_ONCE(ue->group->status_bytes[ue->index], 0);
		xa_erase(&ue->group->by_index, ue->index);
	}
}

/* Is @ue held by an fd or an enabler, or has it a consumer? */
static bool user_event_busy(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);
	/* an exited process's enablers count until dropped; none is reaped */
	user_event_mm_drop_released(false);
	return refcount_read(&ue->refs) != 1 || user_event_status(ue);
}

/*
 * Delete @ue now, type and all, unless it is busy. The caller knows that no
 * buffer holds a record of it, and has cleared the marks that would make
 * trace_remove_event_call() clear buffers (user_event_forget_enabled()).
 */
static int user_event_destroy(struct user_event *ue)
{
	int ret;

	if (user_event_busy(ue))
		return -EBUSY;
	ret = user_event_remove_call(ue);
	if (ret)
		return ret;
	unregister_trace_event(&ue->fmt.event);
	user_event_unlist(ue);
	user_event_free(ue);
	return 0;
}

/*
 * Forget that call of @ue was ever enabled (EVENT_FILE_FL_WAS_ENABLED),
 * by which trace_remove_event_call() marks the trace arrays whose buffers
 * are to be cleared so that no record of a type gone or reused stays
 * behind: @ue's records, where they may be, are seen to here. Nothing sets
 * the flag again: @ue has no consumer. With @tr, only there.
 */
static void user_event_forget_enabled_in(struct user_event *ue,
					 struct trace_array *tr)
{
	struct trace_event_file *file;

	lockdep_assert_held(&trace_types_lock);
	list_for_each_entry(file, &tr->events, list)
		if (file->event_call == &ue->call)
			clear_bit(EVENT_FILE_FL_WAS_ENABLED_BIT, &file->flags);
}

static void user_event_forget_enabled(struct user_event *ue)
{
	struct trace_array *tr;

	lockdep_assert_held(&event_mutex);
	guard(mutex)(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		user_event_forget_enabled_in(ue, tr);
}

/*
 * Delete @ue if it is an enable-bit event nothing refers to any more, and
 * no buffer holds a record of it (user_event_unused()): no buffer is
 * cleared for it, the kernel's records stay.
 */
static void user_event_reap(struct user_event *ue)
{
	if (!user_event_unused(ue))
		return;
	user_event_forget_enabled(ue);
	user_event_destroy(ue);
}

/* Drop a reference an fd or an enabler held on @ue */
static void user_event_put(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);
	refcount_dec(&ue->refs);
	user_event_reap(ue);
}

/* The enable-bit events whose last consumer detached since */
static void user_event_reap_fn(struct work_struct *work)
{
	struct user_event *ue;
	struct hlist_node *tmp;
	int bkt;

	guard(mutex)(&event_mutex);
	hash_for_each_safe(user_event_table, bkt, tmp, ue, node)
		user_event_reap(ue);
}

/* Retired events --------------------------------------------------------- */

/*
 * A deletion asked for (user_event_delete()) of an event whose records an
 * ftrace buffer may hold does not clear those buffers, as the removal of a
 * trace event does (trace_remove_event_call()): the event is retired. Its
 * name and status byte are free at once, and it is listed nowhere; its
 * trace event (call) goes, its type stays registered on fmt, so that trace
 * and trace_pipe print its records with its fields, and fmt is listed in
 * tracefs as a format only (TRACE_EVENT_FL_IGNORE_ENABLE, no reg: no
 * enable, filter, trigger or id file, nothing attaches to it), as
 * events/<system>_retired/<name>_<type>/format, for trace-cmd and the like.
 *
 * It goes, and its type with it, once no buffer holds records of it: for
 * each trace array it was enabled in (those whose buffers the core would
 * have cleared), the array is gone, or none of the unread records of its
 * buffer and of its snapshot buffer, on any possible CPU, online or not,
 * is of its type (no record of it can be written since: no fd holds it).
 * The records are looked at, with the ring buffer's iterator, as reading
 * trace does, not inferred: a CPU's part of a buffer may hold records of
 * two trace clocks (a clock change resets the online CPUs only), a
 * consuming read leaves older records on its reader page than the ones
 * overwrites take, and a snapshot swaps its parts with the buffer's, all
 * CPUs' or one's, which time stamps and counters each get wrong somewhere.
 * A look that a writer or a reader disturbed (a record of the part was
 * overwritten or read meanwhile, the iterator started over, or it read
 * past as many records as the part held twice over) keeps the event until
 * the next: a part overwritten without pause keeps it until it is quieter,
 * cleared or removed. So does a snapshot allocated, which a latency
 * tracer or a snapshot trigger may swap at any time, under no lock a look
 * can hold: until it is freed. A worker looks every USER_RETIRED_CHECK
 * while there are retired events, at the buffers only they may still be
 * in, and less and less often (up to USER_RETIRED_CHECK_MAX) while its
 * looks are disturbed.
 *
 * A look holds trace_types_lock, under which buffers are resized, trace
 * arrays removed and snapshots allocated, so that the buffers stay as
 * they are; not event_mutex: tracers that enable or disable events do
 * not wait for it. One look runs at a time (user_retired_look_mutex). A
 * registration that needs the room looks without event_mutex too, then
 * starts over (user_event_find_or_create()).
 *
 * A reader may still want the format of records it took out of a buffer
 * (trace-cmd extract reads the data, clears the buffer, then reads every
 * format): the event goes user_retired_grace seconds (the
 * kernel.user_events_retired_grace sysctl, read at each check) after its
 * buffers were found free of its records, unless its group needs the room
 * (a registration that would fail for want of it: see
 * user_event_create_spec()).
 *
 * A retired event counts against user_events_max and its group's limit
 * until it goes: what a group's deletions leave in buffers is bounded by
 * its limit, and charged to the deleter's memory cgroup.
 */
#define USER_RETIRED_CHECK	HZ
#define USER_RETIRED_CHECK_MAX	(8 * HZ)

/* One look at the buffers at a time */
static DEFINE_MUTEX(user_retired_look_mutex);
/* The worker's next check; event_mutex */
static unsigned long user_retired_delay = USER_RETIRED_CHECK;
/* Events retired so far: a look decides on those retired before it */
static u64 user_retired_seq;
/* Looks started so far; user_retired_look_mutex */
static u64 user_retired_looks;

/* kernel.user_events_retired_grace, in seconds: at most a day */
static unsigned int user_retired_grace = 60;
static unsigned int user_retired_grace_max = 24 * 60 * 60;

#define USER_RETIRED_SUFFIX	"_retired"

/*
 * One trace array whose buffer may hold records of a retired event: known
 * by its address, never dereferenced after the retirement (it may be
 * removed since: then it is not in ftrace_trace_arrays; one made later at
 * that address, which holds no such record, is checked in its place, which
 * can only delay). NULL once the buffer holds none of them.
 */
struct user_retired_buf {
	struct trace_array	*tr;
};

struct user_retired {
	struct list_head	link;		/* in user_retired_events */
	struct user_event	*ue;
	u64			seq;		/* user_retired_seq when retired */
	/* when every buffer was first found free of its records; 0: not yet */
	unsigned long		clean_at;
	/* fmt's class: <system>_retired, no reg, fields of its own */
	struct trace_event_class class;
	char			*system;
	char			*name;		/* <name>_<type> */
	int			nr_bufs;
	struct user_retired_buf	bufs[] __counted_by(nr_bufs);
};

static void user_retired_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(user_retired_work, user_retired_work_fn);

/* Was call of @ue ever enabled in @tr? Then its buffer may hold records. */
static struct trace_event_file *user_event_was_in(struct user_event *ue,
						  struct trace_array *tr)
{
	struct trace_event_file *file;

	lockdep_assert_held(&trace_types_lock);
	list_for_each_entry(file, &tr->events, list)
		if (file->event_call == &ue->call)
			return test_bit(EVENT_FILE_FL_WAS_ENABLED_BIT,
					&file->flags) ? file : NULL;
	return NULL;
}

/* How many trace arrays may hold records of @ue */
static int user_event_nr_buffers(struct user_event *ue)
{
	struct trace_array *tr;
	int n = 0;

	lockdep_assert_held(&event_mutex);
	if (!READ_ONCE(ue->in_buffer))
		return 0;
	guard(mutex)(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		n += !!user_event_was_in(ue, tr);
	return n;
}

static void user_retired_free(struct user_retired *r)
{
	kfree(r->system);
	kfree(r->name);
	kfree(r);
}

/* What retiring @ue, whose records @nr trace arrays may hold, takes */
static struct user_retired *user_retired_alloc(struct user_event *ue, int nr)
{
	struct user_retired *r;

	r = kzalloc(struct_size(r, bufs, nr), GFP_KERNEL_ACCOUNT);
	if (!r)
		return NULL;

	r->nr_bufs = nr;
	r->ue = ue;
	r->system = kasprintf(GFP_KERNEL_ACCOUNT, "%s" USER_RETIRED_SUFFIX,
			      ue->class.system);
	r->name = kasprintf(GFP_KERNEL_ACCOUNT, "%s_%d", ue->name,
			    ue->fmt.event.type);
	if (!r->system || !r->name) {
		user_retired_free(r);
		return NULL;
	}

	INIT_LIST_HEAD(&r->class.fields);
	r->class.system = r->system;
	r->class.fields_array = ue->class.fields_array;
	return r;
}

/*
 * Make fmt the format of retired @ue, or (@undo) the live event's again:
 * @r's class, with the fields call had (call goes), and @r's name. Under
 * trace_event_sem, which what prints through fmt holds.
 */
static void user_retired_set_format(struct user_event *ue,
				    struct user_retired *r, bool undo)
{
	struct trace_event_call *fmt = &ue->fmt;

	guard(rwsem_write)(&trace_event_sem);
	if (!undo) {
		list_splice_init(&ue->class.fields, &r->class.fields);
		fmt->class = &r->class;
		fmt->name = r->name;
		fmt->flags = TRACE_EVENT_FL_IGNORE_ENABLE;
	} else {
		list_splice_init(&r->class.fields, &ue->class.fields);
		fmt->class = &ue->class;
		fmt->name = ue->name;
		fmt->flags = 0;
	}
}

/*
 * Note in @r each trace array whose buffer may hold records of @ue. The
 * marks of call are cleared: its removal clears no buffer.
 */
static void user_retired_hold(struct user_event *ue, struct user_retired *r)
{
	struct trace_array *tr;
	int i = 0;

	lockdep_assert_held(&event_mutex);
	guard(mutex)(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list) {
		/* trace arrays come and go under event_mutex: nr_bufs is right */
		if (!user_event_was_in(ue, tr) || WARN_ON_ONCE(i == r->nr_bufs))
			continue;
		r->bufs[i++].tr = tr;
		user_event_forget_enabled_in(ue, tr);
	}
}

/* Retire @ue, which is not busy, and whose records @nr trace arrays may hold */
static int user_event_retire(struct user_event *ue, int nr)
{
	struct user_retired *r;
	int ret;

	lockdep_assert_held(&event_mutex);
	r = user_retired_alloc(ue, nr);
	if (!r)
		return -ENOMEM;

	user_retired_set_format(ue, r, false);
	ret = trace_add_event_call(&ue->fmt);
	if (ret) {
		user_retired_set_format(ue, r, true);
		user_retired_free(r);
		return ret;
	}

	ue->retired = r;
	user_retired_hold(ue, r);

	/* cannot fail: nothing is attached, and event_mutex is held */
	ret = user_event_remove_call(ue);
	if (WARN_ON_ONCE(ret))
		return ret;

	user_event_unlist(ue);
	ue->group->nr_retired++;
	r->seq = ++user_retired_seq;
	list_add_tail(&r->link, &user_retired_events);
	/* unless pending: retirements in a row must not keep putting it off */
	user_retired_delay = USER_RETIRED_CHECK;
	schedule_delayed_work(&user_retired_work, USER_RETIRED_CHECK);
	return 0;
}

/*
 * One look at a trace array's buffers: the types of the records seen, and
 * of those the retired events ask about (@wanted), how many are not seen
 * yet: the look stops when none is left, as every one of them is held.
 */
struct user_retired_look {
	unsigned long		*types;
	unsigned long		*wanted;
	unsigned long		left;
};

/*
 * Records of the part of @buf of @cpu let go of (overwritten or read)
 * since it was last reset: the iterator does not see them go
 */
static unsigned long user_retired_gone(struct trace_buffer *buf, int cpu)
{
	return ring_buffer_overrun_cpu(buf, cpu) +
	       ring_buffer_read_events_cpu(buf, cpu);
}

/*
 * Set in @types the type of each unread record of the part of @buf of
 * @cpu (online or not). False when a writer or a reader disturbed the
 * look (see the section's comment): then the part may hold anything. A
 * writer that overwrites the page the iterator is on sends it back to
 * that page's start, and the iterator may then find the buffer's end
 * there, the pages after it never read; so any record let go of during
 * the look disturbs it.
 */
static bool user_retired_scan_cpu(struct trace_buffer *buf, int cpu,
				  struct user_retired_look *look)
{
	unsigned long entries = ring_buffer_entries_cpu(buf, cpu);
	unsigned long gone = user_retired_gone(buf, cpu);
	struct ring_buffer_iter *iter;
	struct ring_buffer_event *event;
	struct trace_entry *ent;
	unsigned long budget;
	bool done = false;

	/* read apart from each other: a count that wrapped is disturbed */
	if (!entries)
		return true;
	if (entries > LONG_MAX / 4)
		return false;
	budget = 2 * entries + 64;
	iter = ring_buffer_read_start(buf, cpu, GFP_KERNEL);
	if (!iter)
		return false;
	while (budget--) {
		event = ring_buffer_iter_peek(iter, NULL);
		if (!event) {
			done = ring_buffer_iter_empty(iter);
			if (done)
				break;
			/*
			 * It gives up after a few steps without a record
			 * (pages, time extends): on from where it stopped
			 */
			continue;
		}
		ent = ring_buffer_event_data(event);
		if (!__test_and_set_bit(ent->type, look->types) &&
		    test_bit(ent->type, look->wanted) && !--look->left)
			break;
		ring_buffer_iter_advance(iter);
		if (!(budget & 1023))
			cond_resched();
	}
	done = done && !ring_buffer_iter_dropped(iter);
	ring_buffer_read_finish(iter);
	/* every type asked for was seen: what else it holds does not matter */
	return !look->left ||
	       (done && user_retired_gone(buf, cpu) == gone);
}

/* user_retired_scan_cpu() of every possible CPU of @buf (may be NULL) */
static bool user_retired_scan(struct trace_buffer *buf,
			      struct user_retired_look *look)
{
	int cpu;

	if (!buf)
		return true;
	for_each_possible_cpu(cpu) {
		if (!look->left)
			break;
		if (!user_retired_scan_cpu(buf, cpu, look))
			return false;
	}
	return true;
}

/*
 * One check: the trace arrays, and for each the types that the retired
 * events ask about (taken under event_mutex), then the types of the
 * records its buffers hold (looked at under trace_types_lock alone)
 */
struct user_retired_view {
	int			nr;
	struct trace_array	**tr;
	/* per array: NULL if no retired event asks about it */
	unsigned long		**wanted;
	/* per array: NULL if not looked at, then its types, or all set */
	unsigned long		**types;
};

static void user_retired_view_free(struct user_retired_view *v)
{
	int i;

	for (i = 0; v->types && i < v->nr; i++)
		bitmap_free(v->types[i]);
	for (i = 0; v->wanted && i < v->nr; i++)
		bitmap_free(v->wanted[i]);
	kfree(v->types);
	kfree(v->wanted);
	kfree(v->tr);
}

/* Index of @tr in @v, or v->nr if it is not there (it was removed) */
static int user_retired_view_find(struct user_retired_view *v,
				  struct trace_array *tr)
{
	int i;

	for (i = 0; i < v->nr; i++)
		if (v->tr[i] == tr)
			break;
	return i;
}

/* The trace arrays, and the types each retired event asks about */
static int user_retired_view(struct user_retired_view *v)
{
	struct trace_array *tr;
	struct user_retired *r;
	int i = 0, j, k;

	lockdep_assert_held(&event_mutex);
	lockdep_assert_held(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		v->nr++;
	v->tr = kcalloc(v->nr, sizeof(*v->tr), GFP_KERNEL);
	v->wanted = kcalloc(v->nr, sizeof(*v->wanted), GFP_KERNEL);
	v->types = kcalloc(v->nr, sizeof(*v->types), GFP_KERNEL);
	if (!v->tr || !v->wanted || !v->types)
		return -ENOMEM;
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		v->tr[i++] = tr;
	list_for_each_entry(r, &user_retired_events, link) {
		for (j = 0; j < r->nr_bufs; j++) {
			k = user_retired_view_find(v, r->bufs[j].tr);
			if (!r->bufs[j].tr || k == v->nr)
				continue;
			if (!v->wanted[k])
				v->wanted[k] = bitmap_zalloc(TRACE_EVENT_TYPE_MAX + 1,
							     GFP_KERNEL);
			if (!v->wanted[k])
				return -ENOMEM;
			__set_bit(r->ue->fmt.event.type, v->wanted[k]);
		}
	}
	return 0;
}

/*
 * Set the types of the records trace array @i of @v holds, unread, in its
 * buffer and its snapshot buffer: every type when it cannot tell (a
 * snapshot allocated, a look disturbed), which it returns false for.
 * Without memory it is left unknown, which holds every retired event.
 */
static bool user_retired_look(struct user_retired_view *v, int i)
{
	struct trace_array *tr = v->tr[i];
	struct user_retired_look look = { .wanted = v->wanted[i] };
	bool known;

	lockdep_assert_held(&trace_types_lock);
	if (!look.wanted)
		return true;
	look.types = bitmap_zalloc(TRACE_EVENT_TYPE_MAX + 1, GFP_KERNEL);
	if (!look.types)
		return false;
	look.left = bitmap_weight(look.wanted, TRACE_EVENT_TYPE_MAX + 1);
	known = user_retired_scan(tr->array_buffer.buffer, &look);
#ifdef CONFIG_TRACER_MAX_TRACE
	known = known && (!look.left || (!tr->allocated_snapshot &&
		user_retired_scan(tr->max_buffer.buffer, &look)));
#endif
	if (!known)
		bitmap_fill(look.types, TRACE_EVENT_TYPE_MAX + 1);
	v->types[i] = look.types;
	return known;
}

/*
 * Does buffer @b of @r still (maybe) hold records of it? Without a view
 * (@v NULL), as far as the looks before knew: yes.
 */
static bool user_retired_holds(struct user_retired *r,
			       struct user_retired_buf *b,
			       struct user_retired_view *v)
{
	int i;

	if (!v)
		return true;
	i = user_retired_view_find(v, b->tr);

	/* the trace array was removed, its buffer with it */
	if (i == v->nr)
		return false;
	return !v->types[i] || test_bit(r->ue->fmt.event.type, v->types[i]);
}

/*
 * May @r's event go? Every buffer is free of its records (it lets go of
 * those that are), since user_retired_grace seconds unless @hurry.
 */
static bool user_retired_done(struct user_retired *r,
			      struct user_retired_view *v, bool hurry)
{
	bool done = true;
	int i;

	for (i = 0; i < r->nr_bufs; i++) {
		if (!r->bufs[i].tr)
			continue;
		if (user_retired_holds(r, &r->bufs[i], v))
			done = false;
		else
			r->bufs[i].tr = NULL;
	}
	if (!done || hurry)
		return done;
	/* 0 is "not yet" */
	if (!r->clean_at)
		r->clean_at = jiffies ?: 1;
	return time_after_eq(jiffies, r->clean_at +
			     (unsigned long)READ_ONCE(user_retired_grace) * HZ);
}

/* No buffer holds records of @r's event: it goes, and its type */
static void user_retired_remove(struct user_retired *r)
{
	struct user_event *ue = r->ue;

	/* fmt cannot be enabled: no buffer is cleared; its type is freed */
	if (WARN_ON_ONCE(trace_remove_event_call(&ue->fmt))) {
		list_move_tail(&r->link, &user_retired_events);
		return;
	}
	list_del(&r->link);
	ue->group->nr_retired--;
	user_retired_free(r);
	user_event_free(ue);
}

/*
 * Remove the retired events (of those retired by @seq) whose buffers are
 * free of their records, as @v (or, NULL, the looks before) found them:
 * past their grace, or at once those of group @room_for or (@all) of
 * every group
 */
static void user_retired_apply(struct user_retired_view *v, u64 seq,
			       struct user_event_group *room_for, bool all)
{
	struct user_retired *r, *tmp;
	LIST_HEAD(done);

	lockdep_assert_held(&event_mutex);
	/* those retired since asked about nothing: not looked for */
	list_for_each_entry_safe(r, tmp, &user_retired_events, link)
		if (r->seq <= seq &&
		    user_retired_done(r, v, all || r->ue->group == room_for))
			list_move_tail(&r->link, &done);
	list_for_each_entry_safe(r, tmp, &done, link)
		user_retired_remove(r);
}

/*
 * Look at the buffers, then remove the retired events that no buffer
 * holds records of any more: past their grace, or at once those of group
 * @room_for, which needs the room, or of every group (@all:
 * kernel.user_events_max is reached, or the trace event type ids ran
 * out). Called without event_mutex (see the section's comment). For a
 * registration (@room_for), a look that started after it came and ended
 * while it waited stands for its own. False when a look was disturbed, or
 * memory lacked.
 */
static bool user_retired_reclaim(struct user_event_group *room_for, bool all)
{
	u64 looks = READ_ONCE(user_retired_looks), seq;
	struct user_retired_view v = { };
	bool known = true;
	int i, ret;

	lockdep_assert_not_held(&event_mutex);
	guard(mutex)(&user_retired_look_mutex);
	if (room_for && user_retired_looks != looks) {
		guard(mutex)(&event_mutex);
		user_retired_apply(NULL, user_retired_seq, room_for, all);
		return true;
	}
	user_retired_looks++;
	mutex_lock(&event_mutex);
	mutex_lock(&trace_types_lock);
	seq = user_retired_seq;
	ret = user_retired_view(&v);
	mutex_unlock(&event_mutex);
	for (i = 0; !ret && i < v.nr; i++)
		known &= user_retired_look(&v, i);
	mutex_unlock(&trace_types_lock);
	if (!ret) {
		guard(mutex)(&event_mutex);
		user_retired_apply(&v, seq, room_for, all);
	}
	user_retired_view_free(&v);
	return !ret && known;
}

static void user_retired_work_fn(struct work_struct *work)
{
	bool known = user_retired_reclaim(NULL, false);

	guard(mutex)(&event_mutex);
	/* looks that writers or readers disturb: less and less often */
	if (known)
		user_retired_delay = USER_RETIRED_CHECK;
	else
		user_retired_delay = min(2 * user_retired_delay,
					 USER_RETIRED_CHECK_MAX);
	if (!list_empty(&user_retired_events))
		schedule_delayed_work(&user_retired_work, user_retired_delay);
}

/*
 * A deletion asked for (DIAG_IOCSDEL, dynamic_events): @ue goes now if no
 * buffer may hold a record of it, else it is retired; -EBUSY while it is
 * busy. No buffer is cleared.
 */
static int user_event_delete(struct user_event *ue)
{
	int nr;

	if (user_event_busy(ue))
		return -EBUSY;
	nr = user_event_nr_buffers(ue);
	if (nr)
		return user_event_retire(ue, nr);
	user_event_forget_enabled(ue);
	return user_event_destroy(ue);
}

/* dynamic_events --------------------------------------------------------- */

/*
 * Past "u:", "SYSTEM/" names the event's system as dynamic_events shows it:
 * user_events, or user_events_GROUP for a tenant group's event. @g is set
 * to that group (NULL if there is none) and the length of "SYSTEM/" is
 * returned; 0 without one, @g left as it was; -EINVAL for any other system,
 * a multi-format one too: those events are made by DIAG_IOCSREG alone.
 */
static int user_system_of_command(const char *cmd, struct user_event_group **g)
{
	size_t len = strcspn(cmd, "/: \t");

	lockdep_assert_held(&event_mutex);
	if (cmd[len] != '/')
		return 0;
	if (len == strlen(USER_EVENTS_SYSTEM) &&
	    !strncmp(cmd, USER_EVENTS_SYSTEM, len)) {
		*g = &user_init_group;
		return len + 1;
	}
	if (!user_group_of_system(cmd, len, g))
		return -EINVAL;
	return len + 1;
}

static int user_event_create(const char *raw_command)
{
	struct user_event_group *g = &user_init_group;
	int skip = strlen(USER_EVENTS_PREFIX), ret;
	struct user_event *ue;
	bool created = false;

	if (!str_has_prefix(raw_command, USER_EVENTS_PREFIX))
		return -ECANCELED;
	/* the feature is off: its set-up failed at boot */
	if (!user_init_group.status_bytes)
		return -ENODEV;
	guard(mutex)(&event_mutex);
	/* "u:SYSTEM/name fields", as dynamic_events shows events */
	ret = user_system_of_command(raw_command + skip, &g);
	if (ret < 0) {
		user_parse_err(&(struct user_parse){ .cmd = raw_command, .skip = skip },
			       USER_ERR_BAD_SYSTEM, NULL);
		return ret;
	}
	skip += ret;
	if (!g)
		return -ENOENT;
	ue = user_event_find_or_create(g, raw_command, skip,
				       UE_REG_SLOT | UE_REG_KEEP, &created);
	return PTR_ERR_OR_ZERO(ue);
}

/*
 * The default group's events as "u:name[:flags] fields", the form Linux 6.4
 * and later show (an ABI); a tenant group's and multi-format events with
 * their system, "u:SYSTEM/name[:flags] fields", as probes show theirs.
 * Written back after "!", a line deletes its event; one without a system
 * also every other type's event of that name whose match takes it
 * (dyn_event_release() asks each type), as "-:name" does for every type:
 * "!u:user_events/name" or "-:user_events/name" deletes this one alone.
 */
static int user_event_show(struct seq_file *m, struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);

	seq_puts(m, USER_EVENTS_PREFIX);
	if (ue->group != &user_init_group || ue->multi)
		seq_printf(m, "%s/", ue->class.system);
	seq_puts(m, ue->name);
	if (ue->flags)
		seq_printf(m, ":%s", ue->flags);
	if (ue->args[0])
		seq_printf(m, " %s", ue->args);
	seq_putc(m, '\n');
	return 0;
}

static bool user_event_is_busy(struct dyn_event *ev)
{
	/* dynamic_events walks the events: none goes meanwhile (no reaping) */
	return user_event_busy(to_user_event(ev));
}

static int user_event_release(struct dyn_event *ev)
{
	return user_event_delete(to_user_event(ev));
}

/*
 * Do the fields of "!u:name fields" (split in @argv) match @ue's? They are
 * parsed after a name of one letter: a multi-format event's "name.<id>"
 * is no name a description may have
 */
static bool user_event_args_match(struct user_event *ue, int argc,
				  const char **argv)
{
	struct user_spec d;
	char *cmd;
	size_t len = 3;
	bool match;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cmd = kmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!cmd)
		return false;
	strscpy(cmd, "e", len);
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

/*
 * "-:SYSTEM/name" and "!u:SYSTEM/name[:flags] [fields]" (a line of
 * dynamic_events) reach the event of that system alone; a tenant group's
 * name is no system of ours, another type's event may have it. Without a
 * system, as in "-:name", an event of user_events, and every other type's
 * of that name too: dyn_event_release() asks each type. Flags and fields,
 * when given, must be the event's.
 */
static bool user_event_match(const char *system, const char *event,
			     int argc, const char **argv, struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);
	size_t len = strcspn(event, ":");

	if (!system ? ue->group != &user_init_group :
	    strcmp(system, ue->class.system))
		return false;
	if (strlen(ue->name) != len || strncmp(event, ue->name, len))
		return false;
	if (event[len] && strcmp(event + len + 1, ue->flags ?: ""))
		return false;
	return !argc || user_event_args_match(ue, argc, argv);
}

/* Enable bits ------------------------------------------------------------ */

/*
 * The enable bits of one address space: made on the first enable-bit
 * registration in it (or by fork() for a copy of one that has some), found
 * by its mm_struct, shared by every task that uses that memory. Its bits go
 * when the memory does (the notifier's release: the last task using it
 * exited or exec()ed), so that a task's exit costs nothing here.
 */
struct user_event_mm {
	struct mmu_notifier	mn;		/* tells of munmap() and release */
	struct mm_struct	*mm;		/* mmgrab()ed */
	/* in user_event_mms while the memory is in use; user_event_mm_lock */
	struct hlist_node	node;
	/*
	 * Its enablers' list, their number and each one's unregistering; RCU
	 * for mn. Taken after event_mutex, before an event's enablers_lock.
	 */
	struct mutex		lock;
	/* struct user_enabler.mm_link */
	struct list_head	enablers;
	/* on that list, at most USER_EVENT_MAX_ENABLERS */
	unsigned int		nr_enablers;
	/* one while listed, one per queued fault work */
	refcount_t		refs;
	/* on user_event_mms_released once its memory went, until dropped */
	struct llist_node	released;
	struct work_struct	free_work;
	/* user_event_mm_find() may still be walking past it once unlisted */
	struct rcu_head		rcu;
};

/* One registered bit: @ue's state, kept at (@addr, @bit) in @umm's memory */
struct user_enabler {
	struct list_head	mm_link;
	struct list_head	event_link;
	struct user_event_mm	*umm;
	/* holds a reference; NULL until registered: umm->lock and ue's lock */
	struct user_event	*ue;
	unsigned long		addr;		/* as registered */
	u8			size;		/* of the word: 4 or 8 */
	u8			bit;
	/* The word's range was unmapped: never written again */
	bool			unmapped;
	/*
	 * The fault queued for it, or NULL: one at a time. Set under
	 * ue->enablers_lock, cleared under umm->lock and that lock.
	 */
	struct user_enabler_fault *fault;
	/*
	 * DIAG_IOCSUNREG is clearing its bit: nothing else writes it (a fork()
	 * meanwhile still gives the child a copy of its own, which does); set
	 * under umm->lock and ue->enablers_lock
	 */
	bool			unregistering;
	struct rcu_head		rcu;
};

/*
 * A bit that could not be written without a page fault: to retry on the
 * way back to user space of the task that changed its state
 * (user_enabler_fault_now()), or in a worker
 */
struct user_enabler_fault {
	struct callback_head	twork;
	struct delayed_work	work;
	struct user_event_mm	*umm;		/* holds a reference */
	/* whose fault it is; NULL once it was unlinked: both of its locks */
	struct user_enabler	*e;
	/* the page went again after the fault, before the write */
	int			tries;
	/* the fault would have waited: the next try in 1 << @waits ms */
	unsigned int		waits;
};

/* Each address space's struct user_event_mm by its mm_struct; RCU to read */
static DEFINE_HASHTABLE(user_event_mms, 8);
static DEFINE_SPINLOCK(user_event_mm_lock);

/* Those whose memory went, their enablers not dropped yet: event_mutex does */
static LLIST_HEAD(user_event_mms_released);
static void user_event_mm_drop_fn(struct work_struct *work);
static DECLARE_WORK(user_event_mm_drop_work, user_event_mm_drop_fn);

/* Unregistering the notifier waits for its readers: not in exit() */
static void user_event_mm_free_work(struct work_struct *work)
{
	struct user_event_mm *umm =
		container_of(work, struct user_event_mm, free_work);

	mmu_notifier_unregister(&umm->mn, umm->mm);
	mmdrop(umm->mm);
	mutex_destroy(&umm->lock);
	/* the notifier's SRCU is not the hash's RCU */
	kfree_rcu(umm, rcu);
}

static void user_event_mm_put(struct user_event_mm *umm)
{
	if (refcount_dec_and_test(&umm->refs))
		queue_work(system_unbound_wq, &umm->free_work);
}

/*
 * munmap() or mremap() of enable words: the kernel never writes them
 * again, whatever is mapped there later. Runs under the mmap_lock, maybe
 * where it must not sleep: it only marks them.
 */
static int user_event_mm_invalidate(struct mmu_notifier *mn,
				    const struct mmu_notifier_range *range)
{
	struct user_event_mm *umm = container_of(mn, struct user_event_mm, mn);
	struct user_enabler *e;

	if (range->event != MMU_NOTIFY_UNMAP)
		return 0;
	rcu_read_lock();
	list_for_each_entry_rcu(e, &umm->enablers, mm_link)
		if (e->addr >= range->start && e->addr < range->end)
			WRITE_ONCE(e->unmapped, true);
	rcu_read_unlock();
	return 0;
}

static void user_event_mm_release(struct mmu_notifier *mn,
				  struct mm_struct *mm);

static const struct mmu_notifier_ops user_event_mm_ops = {
	.invalidate_range_start = user_event_mm_invalidate,
	.release = user_event_mm_release,
};

/*
 * The u32 that holds bit @bit of the @size-byte word at @addr, and the bit
 * in it: an 8-byte word is two u32s, so every update is a 4-byte one.
 */
static unsigned long user_bit_word(unsigned long addr, u8 size, u8 bit,
				   u32 *mask)
{
	*mask = BIT(bit % 32);
	if (size == sizeof(u64)) {
		bool high = bit >= 32;

		if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
			high = !high;
		addr += high ? sizeof(u32) : 0;
	}
	return addr;
}

/*
 * Set or clear @mask in the u32 at @uaddr of @mm, whose mmap_lock the
 * caller holds read-locked, if the page is there writable. Returns -EFAULT
 * if it is not (absent, swapped out, copy-on-write, read-only or unmapped).
 */
static int user_word_write(struct mm_struct *mm, unsigned long uaddr,
			   u32 mask, bool set)
{
	struct page *page;
	u32 *word, old, new;

	if (pin_user_pages_remote(mm, uaddr, 1, FOLL_WRITE | FOLL_NOFAULT,
				  &page, NULL) != 1)
		return -EFAULT;
	word = kmap_local_page(page) + offset_in_page(uaddr);
	old = READ_ONCE(*word);
	do {
		new = set ? old | mask : old & ~mask;
	} while (new != old && !try_cmpxchg(word, &old, new));
	kunmap_local(word);
	unpin_user_pages_dirty_lock(&page, 1, new != old);
	return 0;
}

/*
 * Make the anonymous page at @uaddr of @mm, there but write-protected since
 * a fork(), writable where that waits for nobody: the fault gives it to @mm
 * alone, reused or copied. Never in a shared mapping (its filesystem may
 * wait) nor where a userfaultfd may be asked, and FAULT_FLAG_RETRY_NOWAIT
 * makes a fault that would wait give up instead. It may still allocate and
 * reclaim: never under event_mutex, which every tracer waits on.
 */
static bool user_word_unshare(struct mm_struct *mm, unsigned long uaddr)
{
	unsigned int flags = FAULT_FLAG_WRITE | FAULT_FLAG_ALLOW_RETRY |
			     FAULT_FLAG_RETRY_NOWAIT;
	struct vm_area_struct *vma = vma_lookup(mm, uaddr);

	lockdep_assert_not_held(&event_mutex);
	if (!vma || (vma->vm_flags & (VM_SHARED | VM_WRITE)) != VM_WRITE ||
	    userfaultfd_armed(vma))
		return false;
	if (mm != current->mm)
		flags |= FAULT_FLAG_REMOTE;
	return !(handle_mm_fault(vma, uaddr, flags, NULL) &
		 (VM_FAULT_ERROR | VM_FAULT_RETRY));
}

/*
 * Set or clear @mask in the u32 at @uaddr of @mm, whose mmap_lock the
 * caller holds read-locked, without waiting for a page: -EFAULT when the
 * bit does not already have the wanted value and the page is not there
 * writable (absent, swapped out, copy-on-write, read-only or unmapped),
 * unless @unshare and it is an anonymous page that user_word_unshare()
 * makes writable at once.
 */
static int user_word_update(struct mm_struct *mm, unsigned long uaddr,
			    u32 mask, bool set, bool unshare)
{
	struct page *page;
	bool same, anon;
	u32 *word;

	mmap_assert_locked(mm);
	if (!user_word_write(mm, uaddr, mask, set))
		return 0;
	/* a child after fork() shares the parent's page, and its bits */
	if (get_user_pages_remote(mm, uaddr, 1, FOLL_NOFAULT, &page, NULL) != 1)
		return -EFAULT;
	word = kmap_local_page(page) + offset_in_page(uaddr);
	same = !!(READ_ONCE(*word) & mask) == set;
	kunmap_local(word);
	anon = PageAnon(page);
	put_page(page);
	if (same)
		return 0;
	if (!unshare || !anon || !user_word_unshare(mm, uaddr))
		return -EFAULT;
	return user_word_write(mm, uaddr, mask, set);
}

/* Make @e's bit say whether @e's event has consumers, if that needs no fault */
static int user_enabler_write(struct user_enabler *e, bool set)
{
	struct mm_struct *mm = e->umm->mm;
	unsigned long uaddr;
	u32 mask;
	int ret;

	lockdep_assert_held(&e->ue->enablers_lock);
	/* The process is gone: nobody reads the bit any more */
	if (e->unregistering || !mmget_not_zero(mm))
		return 0;
	uaddr = user_bit_word(e->addr, e->size, e->bit, &mask);
	mmap_read_lock(mm);
	/* munmap() marks under the mmap_lock, before it lets go of the range */
	ret = READ_ONCE(e->unmapped) ? 0 :
	      user_word_update(mm, uaddr, mask, set, false);
	mmap_read_unlock(mm);
	/* the last user's exit_mmap() must not run under our locks */
	mmput_async(mm);
	return ret;
}

static struct user_enabler *
user_enabler_find(struct user_event_mm *umm, unsigned long addr, u8 bit)
{
	struct user_enabler *e;

	/* every change takes both */
	lockdep_assert(lockdep_is_held(&event_mutex) ||
		       lockdep_is_held(&umm->lock));
	list_for_each_entry(e, &umm->enablers, mm_link)
		if (e->addr == addr && e->bit == bit)
			return e;
	return NULL;
}

/*
 * Write the state of the event of @f's enabler as it is now, under the
 * event's enablers_lock, so that an update is never lost to an enable and
 * a disable racing: with no fault (the locks are ones an event_mutex
 * holder may wait on), after the word was faulted in (@faulted), or not at
 * all (the word could not be faulted in: unmapped or read-only now,
 * nothing to write). Returns false when it should be tried again, the page
 * not there writable, unless @last. @f is done once this returns true: a
 * later status change queues another.
 */
static bool user_enabler_fault_done(struct user_enabler_fault *f,
				    bool faulted, bool last)
{
	struct user_enabler *e;

	guard(mutex)(&f->umm->lock);
	e = f->e;
	/* unlinked since (user_enabler_unlink()) */
	if (!e)
		return true;

	guard(mutex)(&e->ue->enablers_lock);
	if (faulted && user_enabler_write(e, user_event_status(e->ue)) &&
	    !last)
		return false;
	/* each forgets the other: @e may be unlinked and freed at once */
	e->fault = NULL;
	f->e = NULL;
	return true;
}

/*
 * Can an enable word be at @vma (NULL: nothing mapped)? It must be
 * writable, and not in a shared mapping of a file whose pages are made
 * writable by its file system (->page_mkwrite(): FUSE asks its daemon, a
 * frozen file system waits to be thawed), which the kernel's faults for
 * the bit would wait on, on behalf of a tracer. tmpfs, memfd and
 * MAP_SHARED | MAP_ANONYMOUS memory have no ->page_mkwrite().
 */
static bool user_word_vma_ok(struct vm_area_struct *vma)
{
	if (!vma || !(vma->vm_flags & VM_WRITE))
		return false;
	return !(vma->vm_flags & VM_SHARED) || !vma->vm_ops ||
	       !vma->vm_ops->page_mkwrite;
}

/*
 * Fault the word at @uaddr of @mm in, writable, for its enable bit, with
 * the mmap_lock read-held: what a write to it would fault, but not
 * waiting (FAULT_FLAG_RETRY_NOWAIT) for I/O nor for the process's
 * userfaultfd, which could park every worker. No ->page_mkwrite(), which
 * the flag does not reach: see user_word_vma_ok(). 0, -EAGAIN when it
 * would have waited, or -EFAULT (gone, or not writable).
 */
static int user_word_fault(struct mm_struct *mm, unsigned long uaddr)
{
	unsigned int flags = FAULT_FLAG_WRITE | FAULT_FLAG_ALLOW_RETRY |
			     FAULT_FLAG_RETRY_NOWAIT;
	struct vm_area_struct *vma = vma_lookup(mm, uaddr);
	vm_fault_t ret;

	mmap_assert_locked(mm);
	if (!user_word_vma_ok(vma))
		return -EFAULT;
	if (mm != current->mm)
		flags |= FAULT_FLAG_REMOTE;
	ret = handle_mm_fault(vma, uaddr, flags, NULL);
	if (ret & VM_FAULT_ERROR)
		return -EFAULT;
	return ret & VM_FAULT_RETRY ? -EAGAIN : 0;
}

/*
 * Fault the word of @f's enabler in, writable, then write its event's
 * state (user_enabler_fault_done()): 0 when done (or given up), -EAGAIN
 * when the fault would have waited, -EFAULT when the page went again
 * before the write (given up instead if @last). Sleeps; the caller holds
 * no lock.
 */
static int user_enabler_fault_in(struct user_enabler_fault *f, bool last)
{
	struct mm_struct *mm = f->umm->mm;
	unsigned long uaddr;
	int ret = -EFAULT;
	bool found;
	u32 mask;

	if (!mmget_not_zero(mm))
		return 0;

	scoped_guard(mutex, &f->umm->lock) {
		found = f->e && !f->e->unmapped;
		if (found)
			uaddr = user_bit_word(f->e->addr, f->e->size, f->e->bit,
					      &mask);
	}

	if (found) {
		mmap_read_lock(mm);
		ret = user_word_fault(mm, uaddr);
		mmap_read_unlock(mm);
	}
	mmput(mm);
	if (ret == -EAGAIN)
		return ret;
	return user_enabler_fault_done(f, !ret, last) ? 0 : -EFAULT;
}

/*
 * The word of the enabler (@addr, @bit) that the calling process just
 * registered in its @umm, faulted in writable and its event's state
 * written, as user_enabler_fault_in() does for a queued fault. Found again
 * under the locks each time: another thread may unregister it meanwhile.
 * Returns false when it should be tried again.
 */
static bool user_enabler_fault_in_new(struct user_event_mm *umm,
				      unsigned long addr, u8 bit)
{
	struct mm_struct *mm = current->mm;
	struct user_enabler *e;
	bool unlocked = false;
	unsigned long uaddr;
	int ret = -ENOENT;
	u32 mask;

	scoped_guard(mutex, &umm->lock) {
		e = user_enabler_find(umm, addr, bit);
		if (e && !e->unmapped)
			uaddr = user_bit_word(addr, e->size, bit, &mask);
		else
			e = NULL;
	}
	if (e) {
		mmap_read_lock(mm);
		ret = fixup_user_fault(mm, uaddr, FAULT_FLAG_WRITE, &unlocked);
		mmap_read_unlock(mm);
	}

	guard(mutex)(&umm->lock);
	e = user_enabler_find(umm, addr, bit);
	if (ret || !e || !e->ue)
		return true;
	guard(mutex)(&e->ue->enablers_lock);
	return !user_enabler_write(e, user_event_status(e->ue));
}

/*
 * Free @f, done or given up: its enabler, if it still has one, no longer
 * points at it (whichever path gave up: the memory gone, the tries spent)
 */
static void user_enabler_fault_free(struct user_enabler_fault *f)
{
	struct user_enabler *e;

	scoped_guard(mutex, &f->umm->lock) {
		e = f->e;
		if (e) {
			guard(mutex)(&e->ue->enablers_lock);
			if (e->fault == f)
				e->fault = NULL;
		}
	}
	user_event_mm_put(f->umm);
	kfree(f);
}

static void user_enabler_fault_work(struct work_struct *work)
{
	struct user_enabler_fault *f =
		container_of(to_delayed_work(work), struct user_enabler_fault,
			     work);

	unsigned int ms = 0;

	switch (user_enabler_fault_in(f, f->tries + 1 >= USER_EVENT_FAULT_TRIES)) {
	case -EAGAIN:
		ms = min(1U << f->waits, USER_ENABLER_FAULT_WAIT_MAX);
		if (ms < USER_ENABLER_FAULT_WAIT_MAX)
			f->waits++;
		break;
	case -EFAULT:
		f->tries++;
		break;
	default:
		user_enabler_fault_free(f);
		return;
	}
	queue_delayed_work(system_unbound_wq, &f->work, msecs_to_jiffies(ms));
}

static void user_enabler_fault_queue_work(struct user_enabler_fault *f)
{
	INIT_DELAYED_WORK(&f->work, user_enabler_fault_work);
	queue_delayed_work(system_unbound_wq, &f->work, 0);
}

/*
 * On the way back to user space of the task whose attach or detach (or
 * fork()) changed the state, holding no lock: a copy-on-write page of
 * anonymous memory is made writable here (user_word_unshare()), then the
 * bit written, so that it is right when that call returns. A page that
 * needs a fault that waits goes to the worker.
 */
static void user_enabler_fault_now(struct callback_head *twork)
{
	struct user_enabler_fault *f =
		container_of(twork, struct user_enabler_fault, twork);
	struct mm_struct *mm = f->umm->mm;
	unsigned long uaddr;
	bool found;
	u32 mask;

	scoped_guard(mutex, &f->umm->lock) {
		found = f->e && !f->e->unmapped;
		if (found)
			uaddr = user_bit_word(f->e->addr, f->e->size, f->e->bit,
					      &mask);
	}
	if (found && mmget_not_zero(mm)) {
		mmap_read_lock(mm);
		user_word_unshare(mm, uaddr);
		mmap_read_unlock(mm);
		mmput(mm);
	}
	if (user_enabler_fault_done(f, true, false))
		user_enabler_fault_free(f);
	else
		user_enabler_fault_queue_work(f);
}

/*
 * A fault for an enabler of @mm: charged to @mm's memory cgroup, whose
 * process asked for the bit, not to the tracer's, whose attach makes it.
 * Under the locks of every tracer, that cgroup's reclaim does not run: at
 * its limit (or with no free memory at hand), the fault is not charged,
 * rather than the update lost (one at a time per enabler, whose own
 * memory the process was charged for).
 */
static struct user_enabler_fault *user_enabler_fault_alloc(struct mm_struct *mm)
{
	struct mem_cgroup *memcg, *old;
	struct user_enabler_fault *f;

	memcg = get_mem_cgroup_from_mm(mm);
	old = set_active_memcg(memcg);
	f = kzalloc(sizeof(*f), GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
	set_active_memcg(old);
	mem_cgroup_put(memcg);
	return f ?: kzalloc(sizeof(*f), GFP_KERNEL);
}

/*
 * Bring @e's bit up to date: now if its page is there writable, else
 * later, out of the caller's locks (an event_mutex holder may wait on
 * them): on the calling task's way back to user space
 * (user_enabler_fault_now()) when it has one, else from a worker that may
 * fault the page in (consumers attach from contexts that must not wait for
 * another process's page, nor sleep on its userfaultfd). One fault at a
 * time per enabler: it writes the state as it is when it runs.
 */
static void user_enabler_update(struct user_enabler *e)
{
	struct user_enabler_fault *f;

	lockdep_assert_held(&e->ue->enablers_lock);
	if (e->fault || !user_enabler_write(e, user_event_status(e->ue)))
		return;
	f = user_enabler_fault_alloc(e->umm->mm);
	if (!f) {
		pr_warn_ratelimited("enable bit %u at 0x%lx not updated\n",
				    e->bit, e->addr);
		return;
	}
	e->fault = f;
	refcount_inc(&e->umm->refs);
	f->umm = e->umm;
	f->e = e;
	if (!(current->flags & (PF_KTHREAD | PF_IO_WORKER))) {
		init_task_work(&f->twork, user_enabler_fault_now);
		/* fails once the task is past exit_task_work() */
		if (!task_work_add(current, &f->twork, TWA_RESUME))
			return;
	}
	user_enabler_fault_queue_work(f);
}

/* Bring the bit of every enabler of @ue up to date */
static void user_event_update_enablers(struct user_event *ue)
{
	struct user_enabler *e;

	lockdep_assert_held(&event_mutex);
	guard(mutex)(&ue->enablers_lock);
	list_for_each_entry(e, &ue->enablers, event_link)
		user_enabler_update(e);
}

/* mmu_notifier_register() in a worker: user_event_mm_notifier_register() */
struct user_event_mm_notifier_work {
	struct work_struct	work;
	struct mmu_notifier	*mn;
	struct mm_struct	*mm;
	int			ret;
};

static void user_event_mm_notifier_fn(struct work_struct *work)
{
	struct user_event_mm_notifier_work *w =
		container_of(work, struct user_event_mm_notifier_work, work);

	w->ret = mmu_notifier_register(w->mn, w->mm);
}

/*
 * Hear of munmap() in @mm. mmu_notifier_register() gives up with -EINTR
 * when the caller has a signal pending (mm_take_all_locks()), which a fork
 * cannot act on: it is past its last failure path, and a child left
 * without its enablers would keep its bits as the parent's were. A worker
 * has no signals: it registers then, while the caller waits (@mm is a new
 * child's, not running yet, or the caller's own).
 */
static int user_event_mm_notifier_register(struct mmu_notifier *mn,
					   struct mm_struct *mm)
{
	struct user_event_mm_notifier_work w = { .mn = mn, .mm = mm };

	w.ret = mmu_notifier_register(mn, mm);
	if (w.ret != -EINTR)
		return w.ret;
	INIT_WORK_ONSTACK(&w.work, user_event_mm_notifier_fn);
	queue_work(system_unbound_wq, &w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	return w.ret;
}

/* Takes @mm's mmap_lock for writing: not under event_mutex */
static struct user_event_mm *user_event_mm_alloc(struct mm_struct *mm)
{
	struct user_event_mm *umm = kzalloc(sizeof(*umm), GFP_KERNEL_ACCOUNT);

	if (!umm)
		return NULL;
	mmgrab(mm);
	umm->mm = mm;
	mutex_init(&umm->lock);
	INIT_LIST_HEAD(&umm->enablers);
	INIT_HLIST_NODE(&umm->node);
	refcount_set(&umm->refs, 1);
	INIT_WORK(&umm->free_work, user_event_mm_free_work);
	umm->mn.ops = &user_event_mm_ops;
	if (user_event_mm_notifier_register(&umm->mn, mm)) {
		mmdrop(mm);
		mutex_destroy(&umm->lock);
		kfree(umm);
		return NULL;
	}
	return umm;
}

/*
 * The enable bits of @mm, or NULL. The caller uses @mm (current's, or one it
 * holds with mmget()): they stay until its release. Memory without any
 * mmu notifier, as most is, has none and is not looked up.
 */
static struct user_event_mm *user_event_mm_find(struct mm_struct *mm)
{
	struct user_event_mm *umm;

	if (!mm || !mm_has_notifiers(mm))
		return NULL;
	rcu_read_lock();
	hash_for_each_possible_rcu(user_event_mms, umm, node, (unsigned long)mm)
		if (umm->mm == mm)
			break;
	rcu_read_unlock();
	return umm;
}

/* List @umm for its memory; false if another got there first */
static bool user_event_mm_list(struct user_event_mm *umm)
{
	bool first;

	spin_lock(&user_event_mm_lock);
	first = !user_event_mm_find(umm->mm);
	if (first)
		hash_add_rcu(user_event_mms, &umm->node, (unsigned long)umm->mm);
	spin_unlock(&user_event_mm_lock);
	return first;
}

/*
 * The calling process's enable bits, made on its first enable-bit
 * registration: every thread of it (and a vfork() child, which shares the
 * memory) finds the same ones.
 */
static struct user_event_mm *user_event_mm_find_or_create(void)
{
	struct user_event_mm *umm = user_event_mm_find(current->mm), *mine;

	if (umm)
		return umm;
	mine = user_event_mm_alloc(current->mm);
	if (!mine)
		return NULL;
	if (user_event_mm_list(mine))
		return mine;
	/* another thread's first registration was quicker */
	user_event_mm_put(mine);
	return user_event_mm_find(current->mm);
}

/* @e is @umm's: the mmu notifier marks it when its word is unmapped */
static void user_enabler_add_mm(struct user_enabler *e,
				struct user_event_mm *umm)
{
	lockdep_assert_held(&umm->lock);
	e->umm = umm;
	list_add_tail_rcu(&e->mm_link, &umm->enablers);
	umm->nr_enablers++;
}

/*
 * @e follows @ue's consumers, and holds a reference on it: one that the
 * caller holds (an fd's, or the parent's enabler's), so no event_mutex
 */
static void user_enabler_add_event(struct user_enabler *e,
				   struct user_event *ue)
{
	lockdep_assert_held(&e->umm->lock);
	guard(mutex)(&ue->enablers_lock);
	e->ue = ue;
	refcount_inc(&ue->refs);
	list_add_tail(&e->event_link, &ue->enablers);
}

/* Undo user_enabler_add_mm() of an enabler that never had an event */
static void user_enabler_drop_mm(struct user_enabler *e)
{
	lockdep_assert_held(&event_mutex);
	guard(mutex)(&e->umm->lock);
	list_del_rcu(&e->mm_link);
	e->umm->nr_enablers--;
	/* the notifier may be looking at it */
	kfree_rcu(e, rcu);
}

/*
 * Watch the word of a new enabler, then check that it is there: on @umm's
 * list first, so that an munmap() by another thread from then on marks it,
 * then the caller's mapping at the address, under the mmap_lock. Checked
 * the other way round, an munmap() and a new mapping at the same address
 * in between would go unseen, and the new mapping get the bit. -EFAULT
 * (and @e freed) unless the word is mapped writable.
 */
static int user_enabler_watch(struct user_enabler *e,
			      struct user_event_mm *umm)
{
	struct vm_area_struct *vma;
	bool ok;

	scoped_guard(mutex, &umm->lock)
		user_enabler_add_mm(e, umm);
	mmap_read_lock(umm->mm);
	vma = vma_lookup(umm->mm, e->addr);
	ok = user_word_vma_ok(vma) && !READ_ONCE(e->unmapped);
	mmap_read_unlock(umm->mm);
	if (ok)
		return 0;
	user_enabler_drop_mm(e);
	return -EFAULT;
}

/* Unlink and free @e: the reference it held on its event is the caller's */
static struct user_event *user_enabler_unlink(struct user_enabler *e)
{
	struct user_event *ue = e->ue;

	lockdep_assert_held(&event_mutex);
	scoped_guard(mutex, &e->umm->lock) {
		list_del_rcu(&e->mm_link);
		e->umm->nr_enablers--;
		scoped_guard(mutex, &ue->enablers_lock) {
			list_del(&e->event_link);
			/* the fault queued for it finds it gone */
			if (e->fault)
				e->fault->e = NULL;
		}
	}
	kfree_rcu(e, rcu);
	return ue;
}

/* Unlink and free @e; its event goes if nothing else refers to it */
static void user_enabler_remove(struct user_enabler *e)
{
	user_event_put(user_enabler_unlink(e));
}

/*
 * Drop the enablers of the memories released since (user_event_mm_release()):
 * from the worker, and first thing wherever an event's references are
 * counted or its name looked up, so that an event they held is free to be
 * deleted or registered anew as soon as the process has been waited for
 * (unless another task held its memory as it exited), as if its exit had
 * dropped them. @reap: an event nothing refers to any
 * more goes now, else from the reaper (the caller may be walking the
 * events: dynamic_events).
 */
static void user_event_mm_drop_released(bool reap)
{
	struct user_event_mm *umm, *next;
	struct user_enabler *e, *tmp;
	struct llist_node *list;
	struct user_event *ue;

	lockdep_assert_held(&event_mutex);
	if (llist_empty(&user_event_mms_released))
		return;
	list = llist_del_all(&user_event_mms_released);
	llist_for_each_entry_safe(umm, next, list, released) {
		list_for_each_entry_safe(e, tmp, &umm->enablers, mm_link) {
			ue = user_enabler_unlink(e);
			if (reap) {
				user_event_put(ue);
				continue;
			}
			/* the event's own reference stays: never 0 */
			refcount_dec(&ue->refs);
			if (user_event_unused(ue))
				schedule_work(&user_event_reap_work);
		}
		user_event_mm_put(umm);
	}
}

static void user_event_mm_drop_fn(struct work_struct *work)
{
	guard(mutex)(&event_mutex);
	user_event_mm_drop_released(true);
}

/*
 * The memory is going: its last user exited or exec()ed (exit_mmap()), or
 * @umm was never listed and its notifier is being unregistered. Nothing
 * writes its bits again: a write takes the memory with mmget_not_zero(),
 * which fails from now on. The enablers are dropped under event_mutex, which
 * this must not take: the last mmput() may be anyone's, under any tracing
 * lock (uprobes' register_for_each_vma() holds event_mutex and
 * dup_mmap_sem, a trace_pipe reader's user stack trace trace_event_sem).
 * So it only unlists @umm and hands it on; a spinlock is all it takes.
 * Called once per listing.
 */
static void user_event_mm_release(struct mmu_notifier *mn,
				  struct mm_struct *mm)
{
	struct user_event_mm *umm = container_of(mn, struct user_event_mm, mn);

	scoped_guard(spinlock, &user_event_mm_lock) {
		if (hlist_unhashed(&umm->node))
			return;
		/* and unhashed: no second release */
		hash_del_rcu(&umm->node);
	}
	/* its listing's reference goes with the enablers */
	llist_add(&umm->released, &user_event_mms_released);
	queue_work(system_unbound_wq, &user_event_mm_drop_work);
}

/*
 * Did fork() copy the range of the word at @addr into @mm, the child's? Not
 * when it is MADV_DONTFORK (VM_DONTCOPY): whatever the child maps there
 * later is not the word.
 */
static bool user_event_mm_has_word(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	bool has;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	has = vma && (vma->vm_flags & VM_WRITE);
	mmap_read_unlock(mm);
	return has;
}

/*
 * A fork() copies the parent's enablers for the child's copy of its memory:
 * the same words, whose bits the kernel keeps up to date in the child too.
 * Under the parent's lock and each event's, not event_mutex: a fork does
 * not wait for registrations, deletions and consumers of every event.
 */
static void user_event_mm_dup(struct user_event_mm *parent,
			      struct mm_struct *mm)
{
	struct user_enabler *e, *c;
	struct user_event_mm *umm;

	umm = user_event_mm_alloc(mm);
	if (!umm)
		return;
	/* a new memory: nobody else lists one for it */
	WARN_ON_ONCE(!user_event_mm_list(umm));

	guard(mutex)(&parent->lock);
	/* the child's, which only its notifier sees yet: a second of the class */
	mutex_lock_nested(&umm->lock, SINGLE_DEPTH_NESTING);
	list_for_each_entry(e, &parent->enablers, mm_link) {
		/*
		 * Being registered, or the word gone. One being unregistered is
		 * copied: the unregistration is the parent's, and the child's
		 * copy of the word may hold the bit as it was before the parent
		 * cleared it, which only an enabler of its own will ever clear.
		 * The parent's keeps its event meanwhile: it goes under our lock.
		 */
		if (!e->ue || e->unmapped || !user_event_mm_has_word(mm, e->addr))
			continue;

		/* the allocator says so when it fails */
		c = kmemdup(e, sizeof(*e), GFP_KERNEL_ACCOUNT);
		if (!c)
			break;

		c->fault = NULL;
		c->unregistering = false;
		c->ue = NULL;

		user_enabler_add_mm(c, umm);
		/* the parent's enabler holds a reference meanwhile */
		user_enabler_add_event(c, e->ue);
		/* a consumer may have come or gone since the memory was copied */
		scoped_guard(mutex, &e->ue->enablers_lock)
			user_enabler_update(c);
	}

	mutex_unlock(&umm->lock);
}

/**
 * user_event_mm_fork - give a new process a copy of its parent's enable bits
 * @t: the task, not running yet, with a copy of current's memory
 *
 * Tasks that share the memory (threads, vfork()) share its bits and need
 * nothing: user_events_fork() calls this only for a copy, and only when
 * the parent's memory has an mmu notifier, ours or another's.
 */
void user_event_mm_fork(struct task_struct *t)
{
	/* current uses its memory: its bits stay meanwhile */
	struct user_event_mm *parent = user_event_mm_find(current->mm);

	if (parent && t->mm)
		user_event_mm_dup(parent, t->mm);
}

/*
 * A new enabler @e of the calling process, not linked yet: watched, with
 * its word checked (user_enabler_watch()), or -errno and @e freed
 */
/*
 * What user_enabler_prepare() would refuse @e for, told before an event is
 * made for it: EADDRINUSE, ENOSPC, or EFAULT (its word cannot be there).
 * Prepared after, it is checked again.
 */
static int user_enabler_check(struct user_enabler *e)
{
	struct user_event_mm *umm = user_event_mm_find(current->mm);
	struct user_enabler *old;
	bool stale, ok;

	lockdep_assert_held(&event_mutex);
	old = user_enabler_find(umm, e->addr, e->bit);
	stale = old && old->unmapped && !old->unregistering;
	if (old && !stale)
		return -EADDRINUSE;
	if (umm->nr_enablers - stale >= USER_EVENT_MAX_ENABLERS)
		return -ENOSPC;
	mmap_read_lock(umm->mm);
	ok = user_word_vma_ok(vma_lookup(umm->mm, e->addr));
	mmap_read_unlock(umm->mm);
	return ok ? 0 : -EFAULT;
}

static int user_enabler_prepare(struct user_enabler *e)
{
	struct user_event_mm *umm = user_event_mm_find(current->mm);
	struct user_enabler *old;

	/* umm's list and nr_enablers change under event_mutex too */
	lockdep_assert_held(&event_mutex);
	old = user_enabler_find(umm, e->addr, e->bit);
	/* a word unmapped since: the new one at that address replaces it */
	if (old && old->unmapped && !old->unregistering) {
		user_enabler_remove(old);
		old = NULL;
	}
	if (old || umm->nr_enablers >= USER_EVENT_MAX_ENABLERS) {
		kfree(e);
		return old ? -EADDRINUSE : -ENOSPC;
	}
	return user_enabler_watch(e, umm);
}

/*
 * Clear the bit of @e, which DIAG_IOCSUNREG is removing: in the caller's
 * own memory, faulting it in if need be, never once the word's range was
 * unmapped. @e stays on its process's list meanwhile, so the notifier
 * marks it if the range goes, also while fixup_user_fault() let go of the
 * mmap_lock.
 */
static void user_enabler_clear(struct user_enabler *e)
{
	struct mm_struct *mm = current->mm;
	unsigned long uaddr;
	bool unlocked;
	int tries;
	u32 mask;

	uaddr = user_bit_word(e->addr, e->size, e->bit, &mask);
	mmap_read_lock(mm);
	for (tries = 0; tries < USER_EVENT_FAULT_TRIES; tries++) {
		if (READ_ONCE(e->unmapped) ||
		    !user_word_update(mm, uaddr, mask, false, true))
			break;
		unlocked = false;
		/* a word gone is no error: nothing to clear */
		if (fixup_user_fault(mm, uaddr, FAULT_FLAG_WRITE, &unlocked))
			break;
	}
	mmap_read_unlock(mm);
}

/* user_events_data ------------------------------------------------------- */

/*
 * The fd's write index for @ue through the ABI @bits tells, taking a
 * reference when it is new. Only an event that existed before (@created
 * false) can already be in the array.
 */
static int user_event_fd_add(struct user_event_fd *ufd, struct user_event *ue,
			     bool created, bool bits)
{
	unsigned long slot = (unsigned long)ue | (bits ? USER_SLOT_BIT_ABI : 0);
	struct user_event_refs *old, *refs;
	int i, count;

	lockdep_assert_held(&event_mutex);
	old = rcu_dereference_protected(ufd->refs, lockdep_is_held(&event_mutex));
	count = old ? old->count : 0;
	for (i = 0; !created && i < count; i++)
		if (old->slots[i] == slot)
			return i;

	refs = old;
	if (!old || count == old->size) {
		int size = old ? 2 * old->size : 8;

		refs = kmalloc(struct_size(refs, slots, size), GFP_KERNEL_ACCOUNT);
		if (!refs)
			return -ENOMEM;
		refs->size = size;
		refs->count = count;
		if (old)
			memcpy(refs->slots, old->slots, count * sizeof(*old->slots));
	}

	refs->slots[count] = slot;
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

/*
 * Register @desc on @file's fd, @how (UE_REG_*), and link @e to it when
 * given (the enable-bit ABI; the process's now, or freed on an error).
 * Returns the write index or -errno. What @e would be refused for is
 * checked first, then the event is found or made, which may let go of
 * event_mutex, and only then is @e watched: a watched enabler must have
 * its event by then (fork() copies it, exit frees it).
 */
static int user_event_fd_register(struct file *file, const char *desc,
				  unsigned int how, struct user_enabler *e,
				  struct user_event **uep)
{
	struct user_event_fd *ufd = file->private_data;
	bool created = false;
	struct user_event *ue;
	int widx;

	lockdep_assert_held(&event_mutex);
	if (e) {
		widx = user_enabler_check(e);
		if (widx) {
			kfree(e);
			return widx;
		}
	}

	ue = user_event_find_or_create(ufd->group, desc, 0,
				       how | (e ? UE_REG_ADOPT_LATER : 0),
				       &created);
	if (IS_ERR(ue)) {
		kfree(e);
		return PTR_ERR(ue);
	}

	/* user_enabler_prepare() may drop a stale enabler's reference on it */
	refcount_inc(&ue->refs);
	if (e) {
		widx = user_enabler_prepare(e);
		if (widx)
			goto out;
		widx = created ? 0 : user_event_adopt(ue, how);
		if (widx)
			goto undo;
	}

	widx = user_event_fd_add(ufd, ue, created, !!e);
	if (widx < 0)
		goto undo;

	if (e) {
		guard(mutex)(&e->umm->lock);
		user_enabler_add_event(e, ue);
	}
	*uep = ue;
	goto out;
undo:
	if (e)
		user_enabler_drop_mm(e);
out:
	if (widx < 0 && created) {
		refcount_dec(&ue->refs);
		user_event_destroy(ue);
	} else {
		user_event_put(ue);
	}
	return widx;
}

/* DIAG_IOCSREG with a struct user_status_reg: the status page */
static long user_data_ioctl_reg_status(struct file *file,
				       struct user_status_reg __user *ureg)
{
	char *desc __free(kfree) = NULL;
	struct user_event *ue;
	struct user_status_reg reg;
	int widx;

	if (copy_from_user(&reg, ureg, sizeof(reg)))
		return -EFAULT;
	desc = user_desc_from_user(u64_to_user_ptr(reg.name_args));
	if (IS_ERR(desc))
		return PTR_ERR(no_free_ptr(desc));

	scoped_guard(mutex, &event_mutex) {
		widx = user_event_fd_register(file, desc,
					      UE_REG_SLOT | UE_REG_KEEP, NULL, &ue);
		if (widx < 0)
			return widx;
		reg.status_index = ue->index;
	}
	reg.write_index = widx;
	if (put_user(reg.status_index, &ureg->status_index) ||
	    put_user(reg.write_index, &ureg->write_index))
		return -EFAULT;
	return 0;
}

/* The fields of an enable bit: its word's size, the bit, the address */
static int user_bit_check(struct user_reg *reg)
{
	if (reg->enable_size != sizeof(u32) && reg->enable_size != sizeof(u64))
		return -EINVAL;
	if (reg->enable_bit >= BITS_PER_BYTE * reg->enable_size ||
	    !IS_ALIGNED(reg->enable_addr, reg->enable_size))
		return -EINVAL;
	/* a 32-bit kernel has no address of more than 32 bits */
	if (reg->enable_addr != (unsigned long)reg->enable_addr)
		return -EFAULT;
	/* tagged (arm64 TBI/MTE, x86 LAM): the enabler keeps the address */
	reg->enable_addr = untagged_addr(reg->enable_addr);
	if (!access_ok(u64_to_user_ptr(reg->enable_addr), reg->enable_size))
		return -EFAULT;
	/* whether the word is mapped writable: once it is watched */
	return 0;
}

/* The struct of the enable-bit ABI: 28 bytes, or more with a zero tail */
static int user_reg_bits_from_user(struct user_reg *reg,
				   void __user *uarg, u32 size)
{
	int ret;

	if (size > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(reg, sizeof(*reg), uarg, size);
	if (ret)
		return ret;
	if (reg->flags & ~(USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT))
		return -EINVAL;
	if ((reg->flags & USER_EVENT_REG_PERSIST) && !perfmon_capable())
		return -EPERM;
	return user_bit_check(reg);
}

/* DIAG_IOCSREG with a struct user_reg: the enable bit */
static long user_data_ioctl_reg_bits(struct file *file, void __user *uarg,
				     u32 size)
{
	struct user_enabler *e __free(kfree) = NULL, *linked;
	char *desc __free(kfree) = NULL;
	struct user_event_mm *umm;
	unsigned int how = 0;
	struct user_reg reg;
	struct user_event *ue;
	int widx, tries;
	unsigned long addr;
	u8 bit;

	widx = user_reg_bits_from_user(&reg, uarg, size);
	if (widx)
		return widx;

	desc = user_desc_from_user(u64_to_user_ptr(reg.name_args));
	if (IS_ERR(desc))
		return PTR_ERR(no_free_ptr(desc));

	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	addr = reg.enable_addr;
	bit = reg.enable_bit;
	e->addr = addr;
	e->bit = bit;
	e->size = reg.enable_size;

	umm = user_event_mm_find_or_create();
	if (!umm)
		return -ENOMEM;

	if (reg.flags & USER_EVENT_REG_PERSIST)
		how |= UE_REG_PERSIST;
	if (reg.flags & USER_EVENT_REG_MULTI_FORMAT)
		how |= UE_REG_MULTI;

	scoped_guard(mutex, &event_mutex) {
		/* the process's now, or freed */
		linked = no_free_ptr(e);
		widx = user_event_fd_register(file, desc, how, linked, &ue);
		if (widx < 0)
			return widx;
	}

	/*
	 * Right when we return: the word faulted in writable here (a
	 * copy-on-write page after fork() broken), so that consumers update
	 * it as they attach from now on, and its bit written
	 */
	for (tries = 0; tries < USER_EVENT_FAULT_TRIES; tries++)
		if (user_enabler_fault_in_new(umm, addr, bit))
			break;

	if (put_user(widx, (u32 __user *)(uarg +
			offsetof(struct user_reg, write_index))))
		return -EFAULT;
	return 0;
}

static long user_data_ioctl_reg(struct file *file, void __user *uarg)
{
	u32 size;

	if (get_user(size, (u32 __user *)uarg))
		return -EFAULT;
	if (size == sizeof(struct user_status_reg))
		return user_data_ioctl_reg_status(file, uarg);
	if (size >= sizeof(struct user_reg))
		return user_data_ioctl_reg_bits(file, uarg, size);
	return -EINVAL;
}

/* DIAG_IOCSUNREG: stop updating a bit of the calling process, and clear it */
static long user_data_ioctl_unreg(struct file *file,
				  struct user_unreg __user *uarg)
{
	struct user_event_fd *ufd = file->private_data;
	struct user_event_group *group = ufd->group;
	struct user_event_mm *umm;
	struct user_enabler *e;
	struct user_unreg unreg;
	u32 size;
	int ret;

	if (get_user(size, &uarg->size))
		return -EFAULT;
	if (size < sizeof(unreg))
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;

	ret = copy_struct_from_user(&unreg, sizeof(unreg), uarg, size);
	if (ret)
		return ret;
	if (unreg.__reserved || unreg.__reserved2)
		return -EINVAL;

	/* as user_bit_check() keeps them: no enabler has any other address */
	if (unreg.disable_addr != (unsigned long)unreg.disable_addr)
		return -ENOENT;
	unreg.disable_addr = untagged_addr(unreg.disable_addr);

	scoped_guard(mutex, &event_mutex) {
		umm = user_event_mm_find(current->mm);
		if (!umm)
			return -ENOENT;
		e = user_enabler_find(umm, unreg.disable_addr,
				      unreg.disable_bit);
		/* nor one of an event of another group than the file's */
		if (!e || e->unregistering || !e->ue || e->ue->group != group)
			return -ENOENT;
		/*
		 * Only this thread removes it now: the process cannot drop its
		 * enablers while one of its threads is here, and a new
		 * registration at the address does not replace it
		 */
		guard(mutex)(&e->umm->lock);
		guard(mutex)(&e->ue->enablers_lock);
		e->unregistering = true;
	}

	user_enabler_clear(e);
	scoped_guard(mutex, &event_mutex)
		user_enabler_remove(e);
	return 0;
}

static long user_data_ioctl_del(struct file *file, const char __user *uname)
{
	char *name __free(kfree) = strndup_user(uname, USER_EVENT_MAX_NAME + 1);
	struct user_event_fd *ufd = file->private_data;
	struct user_event *ue;

	if (IS_ERR(name))
		return PTR_ERR(no_free_ptr(name));
	guard(mutex)(&event_mutex);
	user_event_mm_drop_released(true);
	ue = user_event_find(ufd->group, name);
	if (!ue)
		return -ENOENT;
	if (ue->persist && !perfmon_capable())
		return -EPERM;
	/* no buffer is cleared: its records stay readable, and everyone's */
	return user_event_delete(ue);
}

/*
 * DIAG_IOCSBATCH: a new fd, write-only and close-on-exec, every write of
 * which is a batch of records of @file's events; @flags must be 0. Only
 * from a @file open for writing: the batch fd's writes are not checked
 * against user_events_data's mode again.
 */
static long user_data_ioctl_batch(struct file *file, unsigned long flags)
{
	int fd;

	if (flags)
		return -EINVAL;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	/* the batch fd's own reference: its records name @file's indexes */
	get_file(file);
	fd = anon_inode_getfd("[user_events_batch]", &user_batch_fops, file,
			      O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fput(file);
	return fd;
}

static long user_data_ioctl(struct file *file, unsigned int cmd,
			    unsigned long uarg)
{
	switch (cmd) {
	case DIAG_IOCSBATCH:
		return user_data_ioctl_batch(file, uarg);
	case DIAG_IOCSREG:
		return user_data_ioctl_reg(file, (void __user *)uarg);
	case DIAG_IOCSDEL:
		return user_data_ioctl_del(file, (const char __user *)uarg);
	case DIAG_IOCSUNREG:
		return user_data_ioctl_unreg(file,
					     (struct user_unreg __user *)uarg);
	}
	return -ENOTTY;
}

#ifdef CONFIG_COMPAT
/*
 * 32-bit processes: the ioctl numbers encode the size of a pointer, 4
 * bytes there; the structs have one layout for both (struct
 * user_status_reg's u64 is 8-aligned, the others are packed) and their
 * addresses are u64s.
 */
#define DIAG_IOCSREG32	_IOC(_IOC_READ | _IOC_WRITE, DIAG_IOC_MAGIC, 0, \
			     sizeof(compat_uptr_t))
#define DIAG_IOCSDEL32	_IOC(_IOC_WRITE, DIAG_IOC_MAGIC, 1, sizeof(compat_uptr_t))
#define DIAG_IOCSUNREG32 _IOC(_IOC_WRITE, DIAG_IOC_MAGIC, 2, sizeof(compat_uptr_t))

static long user_data_compat_ioctl(struct file *file, unsigned int cmd,
				   unsigned long uarg)
{
	switch (cmd) {
	case DIAG_IOCSREG32:
		cmd = DIAG_IOCSREG;
		break;
	case DIAG_IOCSDEL32:
		cmd = DIAG_IOCSDEL;
		break;
	case DIAG_IOCSUNREG32:
		cmd = DIAG_IOCSUNREG;
		break;
	case DIAG_IOCSBATCH:
		/* a value, not an address: the same number in both */
		return user_data_ioctl(file, cmd, uarg);
	default:
		return -ENOTTY;
	}
	return user_data_ioctl(file, cmd, (unsigned long)compat_ptr(uarg));
}
#endif

static int user_data_open(struct inode *inode, struct file *file)
{
	struct user_event_fd *ufd = kzalloc(sizeof(*ufd), GFP_KERNEL_ACCOUNT);

	if (!ufd)
		return -ENOMEM;
	ufd->group = user_group_get_of_inode(inode);
	if (!ufd->group) {
		kfree(ufd);
		return -ENODEV;
	}
	file->private_data = ufd;
	/* no file position: write() need not lock or move one */
	return stream_open(inode, file);
}

static int user_data_release(struct inode *inode, struct file *file)
{
	struct user_event_fd *ufd = file->private_data;
	struct user_event_refs *refs;
	int i;

	/* The fd is gone: nobody else can see its array any more */
	refs = rcu_dereference_protected(ufd->refs, true);
	if (refs) {
		/* an enable-bit event nothing else holds goes before close() returns */
		guard(mutex)(&event_mutex);
		for (i = 0; i < refs->count; i++)
			user_event_put(user_slot_event(refs->slots[i]));
	}
	user_group_put(ufd->group);
	kfree(refs);
	kfree(ufd);
	return 0;
}

static const struct file_operations user_data_fops = {
	.open = user_data_open, .release = user_data_release,
	.write		= user_data_write,
	.write_iter	= user_data_write_iter,
	.unlocked_ioctl	= user_data_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= user_data_compat_ioctl,
#endif
};

/* user_events_status ----------------------------------------------------- */

/* A mapping of a group's status page holds the group (and so the page) */
static void user_status_vm_open(struct vm_area_struct *vma)
{
	user_group_get(vma->vm_private_data);
}

static void user_status_vm_close(struct vm_area_struct *vma)
{
	user_group_put(vma->vm_private_data);
}

static const struct vm_operations_struct user_status_vm_ops = {
	.open	= user_status_vm_open,
	.close	= user_status_vm_close,
};

static int user_status_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct user_event_group *g = ((struct seq_file *)file->private_data)->private;
	unsigned long size = vma->vm_end - vma->vm_start;
	int ret;

	if (vma->vm_pgoff || size > PAGE_SIZE)
		return -EINVAL;

	/* Data to read only: neither now nor after a later mprotect() */
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);

	ret = remap_pfn_range(vma, vma->vm_start, page_to_pfn(g->status_page),
			      PAGE_SIZE, vma->vm_page_prot);
	if (ret)
		return ret;
	vma->vm_private_data = g;
	vma->vm_ops = &user_status_vm_ops;
	user_status_vm_open(vma);
	return 0;
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

/* The events of the file's group that have a status byte */
static int user_status_show(struct seq_file *m, void *unused)
{
	struct user_event_group *g = m->private;
	struct user_event *ue;
	unsigned long index;
	int active = 0, busy = 0;

	guard(mutex)(&event_mutex);
	xa_for_each(&g->by_index, index, ue) {
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
	struct user_event_group *g = user_group_get_of_inode(inode);
	int ret;

	if (!g)
		return -ENODEV;
	ret = single_open(file, user_status_show, g);
	if (ret)
		user_group_put(g);
	return ret;
}

static int user_status_release(struct inode *inode, struct file *file)
{
	user_group_put(((struct seq_file *)file->private_data)->private);
	return single_release(inode, file);
}

static const struct file_operations user_status_fops = {
	.mmap		= user_status_mmap,
	.open		= user_status_open,
	.read		= seq_read,
	.release	= user_status_release,
};

/* Groups ----------------------------------------------------------------- */

/*
 * Tenant groups: each has a directory user_groups/NAME/ with its own
 * user_events_data and user_events_status, and events of its own
 * (system user_events_NAME) that its files alone reach. Made and removed
 * through user_events_groups by CAP_PERFMON or CAP_SYS_ADMIN, in its
 * writer and in its opener. See "Containers and groups" in
 * Documentation/trace/user_events.rst.
 */
/* A group's limit of events unless its command gives one */
#define USER_GROUP_EVENTS	1024

static struct dentry *user_groups_dir;

/* user_groups/NAME/ and its two files, which know @g by its id */
static int user_group_add_files(struct user_event_group *g)
{
	void *id = (void *)(unsigned long)g->id;

	g->dir = tracefs_create_dir(g->name, user_groups_dir);
	if (!g->dir)
		return -ENOMEM;
	if (!tracefs_create_file("user_events_status", TRACE_MODE_WRITE,
				 g->dir, id, &user_status_fops) ||
	    !tracefs_create_file("user_events_data", TRACE_MODE_WRITE,
				 g->dir, id, &user_data_fops)) {
		tracefs_remove(g->dir);
		return -ENOMEM;
	}
	return 0;
}

static int user_group_create(const char *name, size_t len, unsigned int max)
{
	struct user_event_group *g;
	int ret;

	lockdep_assert_held(&event_mutex);
	if (!user_groups_dir)
		return -ENODEV;
	if (!user_group_name_ok(name, len) || !max)
		return -EINVAL;
	if (user_group_find(name, len))
		return -EEXIST;
	/* what the default group has stays its own */
	if (max > user_group_max(&user_init_group) ||
	    user_init_group.nr_events > user_group_max(&user_init_group) - max)
		return -ENOSPC;

	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return -ENOMEM;

	xa_init_flags(&g->by_index, XA_FLAGS_ALLOC1);
	refcount_set(&g->refs, 1);
	g->max_events = max;
	g->name = kstrndup(name, len, GFP_KERNEL_ACCOUNT);
	g->system = kasprintf(GFP_KERNEL_ACCOUNT, "%s_%.*s",
			      USER_EVENTS_SYSTEM, (int)len, name);
	g->system_multi = kasprintf(GFP_KERNEL_ACCOUNT, "%s_%.*s_multi",
				    USER_EVENTS_SYSTEM, (int)len, name);
	g->status_page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!g->name || !g->system || !g->system_multi || !g->status_page) {
		user_group_free(g);
		return -ENOMEM;
	}
	g->status_bytes = page_address(g->status_page);

	ret = xa_alloc_cyclic(&user_groups, &g->id, g, xa_limit_32b,
			      &user_group_next_id, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		user_group_free(g);
		return ret;
	}

	ret = user_group_add_files(g);
	if (ret) {
		xa_erase(&user_groups, g->id);
		user_group_free(g);
		return ret;
	}

	user_groups_reserved += max;
	return 0;
}

/*
 * Busy while it has events, an open file or a mapping of its page. Its
 * retired events stay, holding it, until no buffer holds their records.
 */
static int user_group_remove(const char *name, size_t len)
{
	struct user_event_group *g;

	lockdep_assert_held(&event_mutex);
	user_event_mm_drop_released(true);
	g = user_group_find(name, len);
	if (!g)
		return -ENOENT;
	if (g->nr_events != g->nr_retired ||
	    refcount_read(&g->refs) != 1 + g->nr_retired)
		return -EBUSY;
	xa_erase(&user_groups, g->id);
	user_groups_reserved -= g->max_events;
	tracefs_remove(g->dir);
	user_group_put(g);
	return 0;
}

/* "NAME [max=EVENTS]" makes a group, "!NAME" removes it */
static int user_group_command(const char *cmd)
{
	unsigned int max = USER_GROUP_EVENTS;
	bool remove = false;
	const char *name;
	size_t len;

	cmd = skip_spaces(cmd);
	if (*cmd == '!') {
		remove = true;
		cmd = skip_spaces(cmd + 1);
	}
	name = cmd;
	len = strcspn(cmd, " \t");
	cmd = skip_spaces(cmd + len);
	if (*cmd) {
		if (remove || !str_has_prefix(cmd, "max=") ||
		    kstrtouint(cmd + 4, 10, &max))
			return -EINVAL;
	}
	guard(mutex)(&event_mutex);
	return remove ? user_group_remove(name, len) :
			user_group_create(name, len, max);
}

/* What perfmon_capable() asks of the caller, of whoever opened @file */
static bool user_file_perfmon_capable(struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

static ssize_t user_groups_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	/*
	 * The writer and the opener: a privileged program handed an fd that
	 * someone without the right opened (as its standard output, say) must
	 * not make or remove groups for them
	 */
	if (!perfmon_capable() || !user_file_perfmon_capable(file))
		return -EPERM;
	return trace_parse_run_command(file, ubuf, count, ppos,
				       user_group_command);
}

/*
 * "NAME max=EVENTS events=N", a line per group, and " retired=R" when R of
 * the N are retired
 */
static int user_groups_show(struct seq_file *m, void *unused)
{
	struct user_event_group *g;
	unsigned long id;

	guard(mutex)(&event_mutex);
	xa_for_each(&user_groups, id, g) {
		seq_printf(m, "%s max=%u events=%u", g->name, g->max_events,
			   g->nr_events);
		if (g->nr_retired)
			seq_printf(m, " retired=%u", g->nr_retired);
		seq_putc(m, '\n');
	}
	return 0;
}

static int user_groups_open(struct inode *inode, struct file *file)
{
	return single_open(file, user_groups_show, NULL);
}

/* Commands are appended (O_APPEND or not): no seeking */
static const struct file_operations user_groups_fops = {
	.open = user_groups_open, .release = single_release,
	.write		= user_groups_write,
	.read		= seq_read,
};

/* Without them, the default group works as before */
static void __init user_groups_init(void)
{
	user_groups_dir = tracefs_create_dir("user_groups", NULL);
	if (!user_groups_dir ||
	    !tracefs_create_file("user_events_groups", TRACE_MODE_WRITE, NULL,
				 NULL, &user_groups_fops))
		pr_warn("could not create the files of groups\n");
}

/* Set-up at boot --------------------------------------------------------- */

/*
 * Boot-time set-up failed: no events, ever (the u: command checks the
 * status bytes first, and nothing can have made one before the files exist).
 */
static void __init user_events_off(const char *why)
{
	pr_warn("%s: user_events is off\n", why);
	user_init_group.status_bytes = NULL;
	__free_page(user_init_group.status_page);
	user_init_group.status_page = NULL;
}

/*
 * The "u:" command of dynamic_events (ops->free runs under event_mutex),
 * and the status page every event needs: without it, no events.
 */
static int __init trace_events_user_init_early(void)
{
	struct dyn_event_operations *ops = &user_event_ops;
	int ret;

	user_init_group.status_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!user_init_group.status_page) {
		pr_warn("no memory for the status page: user_events is off\n");
		return -ENOMEM;
	}
	user_init_group.status_bytes = page_address(user_init_group.status_page);
	ops->create = user_event_create;
	ops->show = user_event_show;
	ops->is_busy = user_event_is_busy;
	ops->free = user_event_release;
	ops->match = user_event_match;
	ret = dyn_event_register(ops);
	if (ret)
		user_events_off("could not register the u: command");
	return ret;
}
core_initcall(trace_events_user_init_early);

static struct ctl_table user_event_sysctls[] = {
	{
		.procname	= "user_events_max",
		.data		= &user_events_max,
		.maxlen		= sizeof(user_events_max),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{
		.procname	= "user_events_retired_grace",
		.data		= &user_retired_grace,
		.maxlen		= sizeof(user_retired_grace),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &user_retired_grace_max,
	},
};

static int __init trace_events_user_init(void)
{
	struct dentry *status, *data = NULL;

	if (!user_init_group.status_page)
		return -ENOMEM;
	if (tracing_init_dentry()) {
		user_events_off("no tracefs");
		return -ENODEV;
	}
	status = tracefs_create_file("user_events_status", TRACE_MODE_WRITE,
				     NULL, NULL, &user_status_fops);
	if (status)
		data = tracefs_create_file("user_events_data", TRACE_MODE_WRITE,
					   NULL, NULL, &user_data_fops);
	if (!data) {
		tracefs_remove(status);
		user_events_off("could not create its tracefs files");
		return -ENODEV;
	}
	register_sysctl_init("kernel", user_event_sysctls);
	user_groups_init();
	return 0;
}
fs_initcall(trace_events_user_init);
