/* SPDX-License-Identifier: GPL-2.0-only */
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
 *
 * This header holds the types and functions that its files share. The
 * files, trace_events_user_<name>.c:
 *
 *   fmt.c     parsing a description, print format, printing records
 *   write.c   the write path, single and batch
 *   core.c    groups' references, an event's last reference and deletion
 *   bits.c    enable bits: mm tracking, word writes, faults, enablers
 *   retire.c  retired events
 *   reg.c     consumers, status byte, making/finding events, the u: command
 *   files.c   tracefs files (data, status, groups) and the set-up at boot
 *
 * They are listed in the order they call each other: a file calls only
 * those above it (fmt calls none of the others, files may call any).
 */
#ifndef _TRACE_EVENTS_USER_H
#define _TRACE_EVENTS_USER_H

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
#include <linux/secretmem.h>
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
/* The longest name of an event: a multi-format one, "name.<id>", 16 hex digits */
#define USER_EVENT_MAX_FULL_NAME	(USER_EVENT_MAX_NAME + 17)
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
/*
 * How many times in all a copy from or to user memory is tried, its pages
 * faulted in between, before giving up
 */
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

/**
 * user_slot_event() - The event of a slot of an fd's array
 * @slot: the slot
 *
 * Return: the event, without USER_SLOT_BIT_ABI.
 */
static inline struct user_event *user_slot_event(unsigned long slot)
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
extern DECLARE_HASHTABLE(user_event_table, 8);
extern unsigned int user_events_count;
/* Bounds user_events_count: the kernel.user_events_max sysctl */
extern unsigned int user_events_max;

/*
 * The events of one set of files (user_events_data, user_events_status):
 * their names, their status page and their limit. user_event_init_group is
 * the files at the root of tracefs, whose events are user_events:*; a
 * tenant group (trace_events_user_files.c) has files of its own and events
 * of its own system.
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
	/* A tenant group's own trace buffer, if it was given one (KiB per CPU) */
	struct trace_array	*tr;
	unsigned int		buffer_kb;
};

/*
 * The default group; its status_bytes are NULL when the page could not be
 * made at boot, and then no event is ever made either.
 */
extern struct user_event_group user_event_init_group;

/* By id, which a group's files hold (i_private): never a pointer; event_mutex */
extern struct xarray user_event_groups;
/* Their limits together, which the default group cannot use */
extern unsigned int user_groups_reserved;

/* Consumers and the status byte ------------------------------------------ */

/**
 * user_event_status() - The status byte of an event: its consumers' kinds
 * @ue: the event
 *
 * A trace event's consumers attach as ftrace (TRACE_REG_REGISTER) or as
 * perf (TRACE_REG_PERF_REGISTER, eBPF programs included): nothing sets
 * EVENT_BIT_OTHER, which the ABI keeps for a kind that might come.
 *
 * Context: event_mutex, under which the counts change, or the
 * enablers_lock of @ue: a count changes before user_event_update_enablers()
 * takes that lock, so a holder reads the count as it was when the last
 * update queued for its enabler, or a newer one.
 * Return: EVENT_STATUS_FTRACE and EVENT_STATUS_PERF, each if attached.
 */
static inline u8 user_event_status(struct user_event *ue)
{
	return (READ_ONCE(ue->ftrace_users) ? EVENT_STATUS_FTRACE : 0) |
	       (READ_ONCE(ue->perf_users) ? EVENT_STATUS_PERF : 0);
}

/**
 * user_event_unused() - Is an event an unused enable-bit event?
 * @ue: the event
 *
 * Is @ue an enable-bit event that nothing refers to any more, and that can
 * go: at once, or once what holds its trace event lets go (an eprobe, a
 * trigger, a perf event)? One that recorded into an ftrace buffer stays,
 * listed and registrable as before, until it is deleted on purpose (DIAG_IOCSDEL,
 * "-:name"), which retires it (section Retired events). It counts against
 * user_events_max as any event does.
 *
 * Return: true if so.
 */
static inline bool user_event_unused(struct user_event *ue)
{
	return ue->auto_del && refcount_read(&ue->refs) == 1 &&
	       !user_event_status(ue) && !READ_ONCE(ue->in_buffer);
}

/*
 * The bytes a __data_loc/__rel_loc field of @rec (@size bytes long) points
 * at, or false when they are not all inside the record.
 */
static inline bool user_loc_range(struct user_field *f, const void *rec,
				  u32 size, u32 *start, u32 *len)
{
	u32 loc = get_unaligned((const u32 *)(rec + f->offset));

	*len = loc >> 16;
	*start = (loc & 0xffff) + (f->rel ? f->offset + sizeof(u32) : 0);
	return *start >= sizeof(struct trace_entry) && *start <= size &&
	       *len <= size - *start;
}

/**
 * user_loc_valid() - Is a __data_loc/__rel_loc field of a record sound?
 * @f: the field, a loc one
 * @rec: the record, from its common header
 * @size: the record's length in bytes
 *
 * The bytes it points at must all be inside the record, past the common
 * header; a string's must end with its NUL, and an array's be whole
 * elements.
 *
 * Return: true if so.
 */
static inline bool user_loc_valid(struct user_field *f, const u8 *rec,
				  u32 size)
{
	u32 start, len;

	if (!user_loc_range(f, rec, size, &start, &len))
		return false;
	if (f->kind == UF_LOC_STR)
		return len && !rec[start + len - 1];
	return !(len % f->elem_size);
}

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

/* A parsed description: what an event is made of */
struct user_spec {
	char			*name;
	char			*flags;
	char			*args;
	struct user_field	*fields;
	int			nr_fields;
};

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
	/* the last enabler's id (struct user_enabler.id) */
	u32			next_id;
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
	 * Registered, its word not checked and written yet under its process's
	 * mmap_lock (user_enabler_fault_in_new()): no consumer writes its bit,
	 * no fork() copies it, DIAG_IOCSUNREG does not find it and a new
	 * registration does not replace it meanwhile. Cleared under umm->lock
	 * and ue's enablers_lock.
	 */
	bool			unchecked;
	/* told apart from a later enabler of the same bit; umm->lock */
	u32			id;
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

/* How user_event_find_or_create() registers an event */
enum {
	UE_REG_SLOT	= BIT(0),	/* with a status-page byte */
	UE_REG_KEEP	= BIT(1),	/* until deleted, not while referred to */
	UE_REG_PERSIST	= BIT(2),	/* USER_EVENT_REG_PERSIST */
	UE_REG_MULTI	= BIT(3),	/* USER_EVENT_REG_MULTI_FORMAT */
	UE_REG_ADOPT_LATER = BIT(4),	/* an event found: the caller adopts it */
};

/* trace_events_user_core.c: groups, and the end of an event */
/* Deletes the enable-bit events that user_event_unused() says may go */
extern struct work_struct user_event_reap_work;
bool user_event_busy(struct user_event *ue);
int user_event_destroy(struct user_event *ue);
void user_event_forget_enabled(struct user_event *ue);
void user_event_forget_enabled_in(struct user_event *ue,
				  struct trace_array *tr);
void user_event_free(struct user_event *ue);
void user_event_put(struct user_event *ue);
int user_event_remove_call(struct user_event *ue);
void user_event_unlist(struct user_event *ue);
struct user_event_group *user_group_find(const char *name, size_t len);
void user_group_free(struct user_event_group *g);
struct user_event_group *user_group_get(struct user_event_group *g);
struct user_event_group *user_group_get_of_inode(struct inode *inode);
unsigned int user_group_max(struct user_event_group *g);
bool user_group_name_ok(const char *name, size_t len);
bool user_group_of_system(const char *sys, size_t len,
			  struct user_event_group **g);
void user_group_put(struct user_event_group *g);
/* trace_events_user_fmt.c: parsing a description, print format, printing */
/* What prints an event's records */
extern struct trace_event_functions user_event_funcs;
struct trace_event_fields *user_event_fields_alloc(struct user_event *ue);
int user_event_set_print_fmt(struct user_event *ue);
void user_event_fields_free(struct user_field *fields, int n);
int user_event_parse(const char *cmd, int skip, bool quiet,
		     struct user_spec *d);
void user_event_parse_err(struct user_parse *p, enum user_err err,
			  const char *at);
void user_event_spec_free(struct user_spec *d);
/* trace_events_user_write.c: the write path, single and batch */
ssize_t user_data_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos);
ssize_t user_data_write_iter(struct kiocb *kiocb, struct iov_iter *i);
long user_data_ioctl_batch(struct file *file, unsigned long flags);
int user_event_attach(struct user_event *ue, enum trace_reg type, void *data);
/* trace_events_user_retire.c: retired events */
/* Deleted, their records still in a buffer; event_mutex */
extern struct list_head user_retired_events;
/* kernel.user_events_retired_grace, in seconds */
extern unsigned int user_retired_grace;
int user_event_delete(struct user_event *ue);
bool user_retired_reclaim(struct user_event_group *room_for, bool all);
/* trace_events_user_bits.c: enable bits */
void user_enabler_add_event(struct user_enabler *e,
			    struct user_event *ue);
int user_enabler_check(struct user_enabler *e);
void user_enabler_clear(struct user_enabler *e);
void user_enabler_drop_mm(struct user_enabler *e);
int user_enabler_fault_in_new(struct user_event_mm *umm, unsigned long addr,
			      u8 bit, u32 id);
struct user_enabler *
user_enabler_find(struct user_event_mm *umm, unsigned long addr, u8 bit);
int user_enabler_prepare(struct user_enabler *e);
void user_enabler_remove(struct user_enabler *e);
void user_enabler_update_new(struct user_event_mm *umm, unsigned long addr,
			     u8 bit, u32 id);
void user_event_mm_drop_released(bool reap);
struct user_event_mm *user_event_mm_find(struct mm_struct *mm);
struct user_event_mm *user_event_mm_find_or_create(void);
void user_event_update_enablers(struct user_event *ue);
int user_word_check(unsigned long addr);
/* trace_events_user_reg.c: consumers, making and finding events */
int __init user_event_dyn_register(void);
int user_event_adopt(struct user_event *ue, unsigned int how);
int user_event_consumer_reg(struct trace_event_call *call,
			    enum trace_reg type, void *data);
struct user_event *user_event_find(struct user_event_group *g,
				   const char *name);
struct user_event *user_event_find_or_create(struct user_event_group *g,
					     const char *cmd,
					     int skip, unsigned int how,
					     bool *created);
/* trace_events_user_files.c: tracefs files and boot set-up; shares nothing */

#endif /* _TRACE_EVENTS_USER_H */
