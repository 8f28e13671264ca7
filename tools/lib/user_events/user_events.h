/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libuserevents: emit Linux user_events from a C program.
 *
 * Declare each event once, as data, with its name and its fields:
 *
 *	UE_DEFINE_EVENT(req_done, "req_done", "u64 id; u32 status; __rel_loc char[] path");
 *
 * register the events of the program (or let the first write do it):
 *
 *	ue_register_all();
 *
 * and before each event test the status byte, which costs a load and a
 * branch while nobody listens:
 *
 *	if (ue_enabled(&req_done)) {
 *		struct ue_writer w;
 *
 *		ue_write_begin(&w, &req_done);
 *		ue_add_u64(&w, id);
 *		ue_add_u32(&w, status);
 *		ue_add_str(&w, path);
 *		ue_write_end(&w);
 *	}
 *
 * Functions return 0 (or a byte count) on success and a negative errno on
 * failure, with errno set to the positive value; ue_strerror() explains the
 * errors a user_events writer meets. See Documentation/trace/user_events.rst
 * for the kernel side.
 *
 * Processes and threads: the files are opened and the status page mapped
 * once per process, on first use, under a lock; every function may be
 * called from any thread. After fork() the child keeps the mapping (the
 * status page is one page shared by the whole system) and the data file
 * descriptor, which is the same open file as the parent's: registrations
 * belong to that open file, so the events the parent registered stay
 * registered, with the same write indexes, and the child can write them
 * without registering again. They stay registered until the last process
 * holding the file closes it. The descriptors are opened with O_CLOEXEC, so
 * a program started with exec() starts afresh.
 */
#ifndef _LIBUSEREVENTS_USER_EVENTS_H
#define _LIBUSEREVENTS_USER_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct ue_event - a user event, declared as data
 * @desc: the description given to the kernel: "name[:flags] fields"
 * @status: the event's byte of the status page once registered; until then
 *	a static zero byte, so that ue_enabled() needs no other test
 * @write_index: the index that starts every write of the event (valid once
 *	registered)
 * @status_index: the byte of the status page (0: not registered)
 * @registered: 1 once registered in this process, else 0
 *
 * Initialise with UE_EVENT(), UE_DEFINE_EVENT() or ue_event_init(). Only
 * @desc is meant to be read by callers; the library fills in the rest.
 */
struct ue_event {
	const char *desc;
	const unsigned char *status;
	int write_index;
	unsigned int status_index;
	int registered;
};

/*
 * The byte an unregistered event points at: always 0. Part of the ABI of
 * the library only because UE_EVENT() takes its address.
 */
extern const unsigned char ue_disabled_byte;

/**
 * UE_EVENT() - initialiser of a struct ue_event
 * @name: the event name, a string literal ([A-Za-z0-9_], optionally
 *	followed by ":FLAGS")
 * @fields: the fields, a string literal: "type name" pairs separated by ';'
 *	(may be "" for an event without fields)
 *
 * For instance:
 * static struct ue_event ev = UE_EVENT("myev", "u32 count; __rel_loc char[] msg");
 */
#define UE_EVENT(name, fields) {				\
	.desc = name " " fields,				\
	.status = &ue_disabled_byte,				\
	.write_index = -1,					\
}

/* The section that holds every UE_DEFINE_EVENT() event, as an array */
#define UE_SECTION ue_events
#define __UE_STR(x) #x
/* GCC/Clang attributes; the kernel's __used and friends are not ours to use */
#define UE_ATTR(x) __attribute__(x)
#define UE_STR(x) __UE_STR(x)

/**
 * UE_DEFINE_EVENT() - define a static event that ue_register_all() finds
 * @var: the variable (a static struct ue_event)
 * @name: as for UE_EVENT()
 * @fields: as for UE_EVENT()
 *
 * The variable goes into the section "ue_events" of the executable or
 * shared object being built, where ue_register_all() looks for it. Its
 * alignment is given explicitly, as the struct's own: the compiler may not
 * raise it, so the section is an array of struct ue_event.
 */
#define UE_DEFINE_EVENT(var, name, fields)				\
	static struct ue_event var UE_ATTR((used,			\
		section(UE_STR(UE_SECTION)),				\
		aligned(__alignof__(struct ue_event)))) = UE_EVENT(name, fields)

/**
 * ue_enabled() - is anyone listening to this event?
 * @ev: the event
 *
 * Reads the event's byte of the status page: non-zero while a consumer
 * (ftrace, perf, eBPF) is attached. Before @ev is registered the byte is a
 * static zero, so this is false. The test is a pointer load, a byte load and
 * one branch; call it before computing anything for the event.
 *
 * Return: non-zero when the event should be written.
 */
static inline int ue_enabled(const struct ue_event *ev)
{
	const unsigned char *status = __atomic_load_n(&ev->status, __ATOMIC_RELAXED);

	/* the kernel changes the byte: load it anew at every call */
	return __builtin_expect(__atomic_load_n(status, __ATOMIC_RELAXED), 0);
}

/**
 * ue_open() - open user_events_data and map the status page
 *
 * Done once per process; later calls return at once. Every other function
 * calls it when needed, so a program need not, but calling it early reports
 * a missing tracefs or missing permissions at start-up.
 *
 * Return: 0, or a negative errno (-EACCES without access to the files,
 * -ENOENT when tracefs is not mounted or the kernel has no user_events).
 */
int ue_open(void);

/**
 * ue_tracefs() - the tracefs directory the library uses
 *
 * /sys/kernel/tracing, or /sys/kernel/debug/tracing when only that exists,
 * or $USER_EVENTS_TRACEFS when set. Without a trailing '/'.
 *
 * Return: a string owned by the library.
 */
const char *ue_tracefs(void);

/**
 * ue_status_page() - the mapped status page
 *
 * Return: the page (after a successful ue_open()), or NULL.
 */
const unsigned char *ue_status_page(void);

/**
 * ue_data_fd() - the file descriptor of user_events_data
 *
 * Return: the descriptor (after a successful ue_open()), or -1.
 */
int ue_data_fd(void);

/**
 * ue_event_init() - initialise an event at run time
 * @ev: the event
 * @desc: "name[:flags] fields"; the string must outlive @ev
 *
 * The run-time equivalent of UE_EVENT().
 */
void ue_event_init(struct ue_event *ev, const char *desc);

/**
 * ue_event_register() - register one event
 * @ev: the event
 *
 * Registers @ev with the kernel (creating it if it does not exist yet) and
 * points its status at its byte of the status page. Thread-safe; does
 * nothing when @ev is already registered. The event then exists until it
 * is deleted, even after the process exits.
 *
 * Return: 0, or a negative errno: -EINVAL for a bad description,
 * -EADDRINUSE when the name exists with other fields, -E2BIG for a
 * description longer than 511 bytes, -EMFILE when all events are in use,
 * or an error of ue_open().
 */
int ue_event_register(struct ue_event *ev);

/**
 * ue_register_events() - register several events
 * @evs: pointers to the events (NULL entries are skipped)
 * @n: how many
 *
 * Registers all of them, even when one fails.
 *
 * Return: 0, or the first error.
 */
int ue_register_events(struct ue_event *const *evs, size_t n);

/**
 * ue_register_section() - register the events of an array
 * @start: the first
 * @stop: one past the last
 *
 * ue_register_all() calls it on the "ue_events" section. Entries without a
 * description (the anchors below) are skipped.
 *
 * Return: 0, or the first error.
 */
int ue_register_section(struct ue_event *start, struct ue_event *stop);

/*
 * The linker defines __start_ue_events and __stop_ue_events around the
 * section in each executable and shared object. Every file that includes
 * this header puts an empty entry there, so the section always exists.
 */
extern struct ue_event __start_ue_events[]
	UE_ATTR((visibility("hidden")));
extern struct ue_event __stop_ue_events[]
	UE_ATTR((visibility("hidden")));
static struct ue_event __ue_section_anchor UE_ATTR((used,
	section(UE_STR(UE_SECTION)), aligned(__alignof__(struct ue_event))));

/**
 * ue_register_all() - register every UE_DEFINE_EVENT() event of the caller
 *
 * A macro: it registers the events defined in the executable or shared
 * object that calls it (each has its own "ue_events" section).
 *
 * Return: 0, or the first error of ue_event_register().
 */
#define ue_register_all()						\
	ue_register_section(__start_ue_events, __stop_ue_events)

/**
 * ue_delete_event() - delete an event by name
 * @name: the event name (without flags or fields)
 *
 * Return: 0, -ENOENT when there is no such event, -EBUSY while an open
 * file (this process's too, if it registered the event) holds it or a
 * consumer is attached.
 */
int ue_delete_event(const char *name);

/**
 * ue_write() - write one event from the caller's iovecs
 * @ev: the event, registered here if it is not yet
 * @iov: the payload: the fields, laid out as the description says
 * @n: entries in @iov (at most UE_MAX_IOV)
 *
 * The write index is put in front of @iov; the data is not copied.
 *
 * Return: the payload bytes written (the write index not counted), or a
 * negative errno.
 */
ssize_t ue_write(struct ue_event *ev, const struct iovec *iov, int n);

/* Most iovecs of one write (the write index not counted) */
#define UE_MAX_IOV 64
/* Most __rel_loc/__data_loc fields of one ue_writer */
#define UE_MAX_LOC 16
/* Bytes of scalar values one ue_writer can hold */
#define UE_SCRATCH 256

/**
 * struct ue_writer - lays out one event's payload into iovecs
 * @ev: the event
 * @err: the first error, reported by ue_write_end()
 * @nr_iov: entries in @iov[1..]
 * @nr_dyn: entries in @dyn
 * @nr_loc: __rel_loc/__data_loc fields so far
 * @fixed: bytes of the fixed part so far
 * @dyn_len: bytes of the dynamic part so far
 * @used: bytes of @scratch used
 * @iov: [0] the write index, then the fixed fields
 * @dyn: the data of the loc fields, which follows the fixed part
 * @loc: where each loc field is: its offset in @scratch, its end in the
 *	payload, whether it is __rel_loc
 * @scratch: the values of scalar fields and of the loc words
 *
 * Lives on the caller's stack between ue_write_begin() and ue_write_end();
 * about 2 KiB. Strings and byte arrays are referenced, not copied, so they
 * must stay valid until ue_write_end().
 */
struct ue_writer {
	struct ue_event *ev;
	int err;
	int nr_iov;
	int nr_dyn;
	int nr_loc;
	uint32_t fixed;
	uint32_t dyn_len;
	uint32_t used;
	struct iovec iov[1 + UE_MAX_IOV + UE_MAX_LOC];
	struct iovec dyn[UE_MAX_LOC];
	struct {
		uint32_t at;
		uint32_t end;
		uint32_t rel;
	} loc[UE_MAX_LOC];
	unsigned char scratch[UE_SCRATCH] UE_ATTR((aligned(8)));
};

/**
 * ue_write_begin() - start laying out an event
 * @w: the writer
 * @ev: the event
 *
 * Then add every field in the order of the description with the
 * ue_add_*() functions and finish with ue_write_end(). Errors of the
 * ue_add_*() calls are kept in @w and reported by ue_write_end().
 */
void ue_write_begin(struct ue_writer *w, struct ue_event *ev);

/**
 * ue_add_scalar() - add an integer field
 * @w: the writer
 * @v: the value, in host byte order
 * @size: its size: 1, 2, 4 or 8
 *
 * The value is copied into @w. ue_add_u8() ... ue_add_s64() call this.
 */
void ue_add_scalar(struct ue_writer *w, const void *v, size_t size);

/**
 * ue_add_bytes() - add a fixed-size field from memory
 * @w: the writer
 * @p: its bytes
 * @len: how many: the size of the field (char[N], unsigned char[N], struct)
 *
 * Referenced, not copied.
 */
void ue_add_bytes(struct ue_writer *w, const void *p, size_t len);

/**
 * ue_add_chars() - add a char[N] field from a string
 * @w: the writer
 * @s: the string (NULL: empty)
 * @n: N, the size of the field
 *
 * The string is cut at @n bytes; shorter ones are padded with NULs.
 */
void ue_add_chars(struct ue_writer *w, const char *s, size_t n);

/**
 * ue_add_str() - add a __rel_loc char[] field
 * @w: the writer
 * @s: the string with its NUL (NULL: empty)
 */
void ue_add_str(struct ue_writer *w, const char *s);

/**
 * ue_add_array() - add a __rel_loc array field
 * @w: the writer
 * @p: the elements
 * @len: their size in bytes
 */
void ue_add_array(struct ue_writer *w, const void *p, size_t len);

/**
 * ue_add_data_loc_str() - add a __data_loc char[] field
 * @w: the writer
 * @s: the string with its NUL (NULL: empty)
 */
void ue_add_data_loc_str(struct ue_writer *w, const char *s);

/**
 * ue_add_data_loc_array() - add a __data_loc array field
 * @w: the writer
 * @p: the elements
 * @len: their size in bytes
 */
void ue_add_data_loc_array(struct ue_writer *w, const void *p, size_t len);

/**
 * ue_write_finish() - lay out the loc fields and the dynamic part
 * @w: the writer
 *
 * What ue_write_end() does before writev(): after it, @w->iov holds
 * 1 + @w->nr_iov entries, the write index first. Exposed for tests and for
 * callers that write themselves.
 *
 * Return: the number of entries of @w->iov, or a negative errno.
 */
int ue_write_finish(struct ue_writer *w);

/**
 * ue_write_end() - write the event laid out in @w
 * @w: the writer
 *
 * Registers the event if it is not yet, then writes it with one writev().
 *
 * Return: the payload bytes written (the write index not counted), or a
 * negative errno: the first error of the ue_add_*() calls (-E2BIG when a
 * writer limit was exceeded), or one of the kernel's.
 */
ssize_t ue_write_end(struct ue_writer *w);

/**
 * ue_strerror() - what an error of the library means for a writer
 * @err: an errno value, negative or positive
 *
 * Return: a sentence with a hint on what to do, in static storage.
 */
const char *ue_strerror(int err);

/* Typed wrappers of ue_add_scalar() */
#define __UE_ADD(name, type)						\
static inline void ue_add_##name(struct ue_writer *w, type v)		\
{									\
	ue_add_scalar(w, &v, sizeof(v));				\
}

__UE_ADD(u8, uint8_t)
__UE_ADD(s8, int8_t)
__UE_ADD(u16, uint16_t)
__UE_ADD(s16, int16_t)
__UE_ADD(u32, uint32_t)
__UE_ADD(s32, int32_t)
__UE_ADD(u64, uint64_t)
__UE_ADD(s64, int64_t)
#undef __UE_ADD

#ifdef __cplusplus
}
#endif

#endif /* _LIBUSEREVENTS_USER_EVENTS_H */
