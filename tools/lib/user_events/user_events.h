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
 * and before each event test whether anyone listens, which costs a load
 * and a branch (and the load of the event's pointer) while nobody does:
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
 * Two ABIs. The kernel tells a writer whether anyone listens in one of two
 * ways, on the same events; the library speaks both:
 *
 * - UE_ABI_BITS, the default: the enable-bit ABI of Linux 6.4 and later.
 *   The library gives each event a word of its own memory, and the kernel
 *   keeps a bit of it set while a consumer is attached. It is the default
 *   because a program built with it runs unchanged on any Linux 6.4+ kernel
 *   as well as on this project's, and because it needs user_events_data
 *   only: there is no user_events_status to open, map or be given access
 *   to. While nothing is attached the kernel refuses writes (EBADF); the
 *   library returns 0 for them, "not recorded", so a consumer that leaves
 *   between ue_enabled() and the write is not an error. An event this ABI
 *   creates is deleted by the kernel once no process has it registered and
 *   no consumer is attached, unless it was registered with
 *   USER_EVENT_REG_PERSIST (ue_event_register_flags()); registering an
 *   event that exists already does not change how long it lives.
 * - UE_ABI_STATUS: this project's status page. The library maps
 *   user_events_status read-only and ue_enabled() reads the event's byte of
 *   it. Writes while nothing is attached are accepted and record nothing.
 *   Events it creates stay until deleted (ue_delete_event()).
 *
 * The environment variable USER_EVENTS_ABI ("bits" or "status") chooses
 * for a program that does not choose itself; ue_set_abi() chooses for the
 * events registered after it, so one process can use both.
 *
 * The kernel writes enable bits only into memory the library allocates and
 * never frees, not into struct ue_event: an event on the stack or the heap
 * may go away without ue_event_unregister() and nothing gets corrupted (its
 * registration then lasts until the process exits or calls exec()).
 *
 * Processes and threads: the data file is opened (and the status page
 * mapped, for UE_ABI_STATUS) once per process, on first use, under a lock;
 * every function may be called from any thread. After fork() the child has
 * the parent's data file descriptor, the same open file, so the parent's
 * write indexes stay valid in the child; it has the mapping of the status
 * page (one page shared by the whole system); and the kernel gives it its
 * own copy of each of the parent's enable bits, at the same address in the
 * child's copy of the library's memory. So the events the parent registered
 * are registered in the child too, through either ABI: the child writes
 * them without registering again (ue_event_register() of such an event
 * returns 0 and does nothing), and ue_event_unregister() in the child drops
 * the child's enable bit, not the parent's. Status-page registrations stay
 * until the last process holding the file closes it. The descriptors are
 * opened with O_CLOEXEC, and the kernel drops enable bits at exec(), so a
 * program started with exec() starts afresh.
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
 * @status: the byte ue_enabled() reads: once registered, the event's byte
 *	of the status page (UE_ABI_STATUS) or the byte of the library's word
 *	that holds the kernel's enable bit (UE_ABI_BITS); until then a static
 *	zero byte, so that ue_enabled() needs no other test
 * @write_index: the index that starts every write of the event (valid once
 *	registered)
 * @status_index: the byte of the status page (0: not registered, or
 *	registered through UE_ABI_BITS)
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
 * enum ue_abi - how the kernel tells the library whether anyone listens
 * @UE_ABI_BITS: the enable-bit ABI of Linux 6.4+ (the default)
 * @UE_ABI_STATUS: the status page of user_events_status
 *
 * See the top of this file for what each means and why UE_ABI_BITS is the
 * default.
 */
enum ue_abi {
	UE_ABI_BITS = 1,
	UE_ABI_STATUS = 2,
};

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
	/* in member order, no designators: C++ before C++20 has none */ \
	name " " fields,	/* desc */			\
	&ue_disabled_byte,	/* status */			\
	-1,			/* write_index */		\
	0,			/* status_index */		\
	0,			/* registered */		\
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
 * Reads the byte @ev->status points at, which is non-zero while a
 * consumer (ftrace, perf, eBPF) is attached: the event's byte of the status
 * page, or the byte of the library's word that holds the kernel's enable
 * bit. Before @ev is registered the byte is a static zero, so this is
 * false. The test is the same for both ABIs: a pointer load, a byte load
 * and one branch; call it before computing anything for the event.
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
 * ue_set_abi() - choose the ABI of the events registered from now on
 * @abi: UE_ABI_BITS or UE_ABI_STATUS
 *
 * Events registered before keep theirs. Without a call the ABI is the one
 * $USER_EVENTS_ABI names ("bits" or "status"), else UE_ABI_BITS.
 *
 * Return: 0, or -EINVAL for another value.
 */
int ue_set_abi(int abi);

/**
 * ue_get_abi() - the ABI ue_event_register() uses now
 *
 * Return: UE_ABI_BITS or UE_ABI_STATUS.
 */
int ue_get_abi(void);

/**
 * ue_open() - open user_events_data (and map the status page)
 *
 * Opens user_events_data and, when the ABI is UE_ABI_STATUS, maps the
 * status page. Done once per process; later calls return at once. Every
 * other function calls it when needed, so a program need not, but calling
 * it early reports a missing tracefs or missing permissions at start-up.
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
 * ue_status_page() - the status page, mapped read-only
 *
 * Maps it on the first call (whatever the ABI: a program may want the
 * page to read other events' bytes).
 *
 * Return: the page, or NULL with errno set when user_events_status cannot
 * be opened or mapped.
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
 * The run-time equivalent of UE_EVENT(). Not for an event that is
 * registered: ue_event_unregister() it first.
 */
void ue_event_init(struct ue_event *ev, const char *desc);

/**
 * ue_event_register() - register one event
 * @ev: the event
 *
 * Registers @ev with the kernel through the current ABI (ue_get_abi()),
 * creating the event if it does not exist yet, and points its status at
 * its byte of the status page or at its word of library memory.
 * Thread-safe; does nothing when @ev is already registered (in this
 * process, or in the parent before fork()). An event created through
 * UE_ABI_STATUS exists until it is deleted, even after the process exits;
 * one created through UE_ABI_BITS until nothing refers to it any more.
 *
 * Return: 0, or a negative errno: -EINVAL for a bad description (or a
 * kernel without the ABI: try the other), -EADDRINUSE when the name exists
 * with other fields, -E2BIG for a description longer than 511 bytes,
 * -EMFILE when all events are in use, -ENOMEM, or an error of ue_open().
 */
int ue_event_register(struct ue_event *ev);

/**
 * ue_event_register_flags() - register one event with USER_EVENT_REG_* flags
 * @ev: the event
 * @flags: USER_EVENT_REG_PERSIST (the event stays until deleted; needs
 *	CAP_PERFMON, also to delete it), USER_EVENT_REG_MULTI_FORMAT (the
 *	event is user_events_multi/<name>.<id>)
 *
 * As ue_event_register(). The flags belong to the enable-bit ABI; with
 * UE_ABI_STATUS, USER_EVENT_REG_PERSIST is what happens anyway and is
 * accepted, the others are not.
 *
 * Return: 0, or a negative errno: those of ue_event_register(), -EPERM for
 * USER_EVENT_REG_PERSIST without CAP_PERFMON, -EINVAL for unknown flags.
 */
int ue_event_register_flags(struct ue_event *ev, unsigned int flags);

/**
 * ue_event_unregister() - stop using an event
 * @ev: the event
 *
 * Through UE_ABI_BITS: the kernel stops updating the event's enable bit in
 * this process (DIAG_IOCSUNREG) and the library reuses the word. Through
 * UE_ABI_STATUS there is nothing to drop: the registration belongs to the
 * library's open file until the process exits. Either way @ev goes back to
 * its state before registration, so it can be freed or registered again.
 * Do not call it while another thread writes @ev.
 *
 * Return: 0, or a negative errno of DIAG_IOCSUNREG.
 */
int ue_event_unregister(struct ue_event *ev);

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
 * file or an enable bit (this process's too, if it registered the event)
 * holds it or a consumer is attached, -EPERM for an event registered with
 * USER_EVENT_REG_PERSIST without CAP_PERFMON.
 */
int ue_delete_event(const char *name);

/**
 * ue_write() - write one event from the caller's iovecs
 * @ev: the event, registered here if it is not yet
 * @iov: the payload: the fields, laid out as the description says
 * @n: entries in @iov (at most UE_MAX_IOV)
 *
 * The write index is put in front of @iov. A record (index included) of at
 * most 512 bytes is copied into one buffer and written with write(), which
 * the kernel takes for fewer instructions; a larger one is written with
 * writev() and the data is not copied.
 *
 * Return: the payload bytes written (the write index not counted); 0 when
 * the event is registered through UE_ABI_BITS and nothing is attached (the
 * kernel refused the write with EBADF: not recorded); or a negative errno.
 */
ssize_t ue_write(struct ue_event *ev, const struct iovec *iov, int n);

/* Most iovecs of one write (the write index not counted) */
#define UE_MAX_IOV 64
/* Most __rel_loc/__data_loc fields of one ue_writer */
#define UE_MAX_LOC 16
/* Bytes of scalar values (and loc words) one ue_writer can hold */
#define UE_SCRATCH 256
/* Bytes of char[N] and struct fields one ue_writer copies; beyond, referenced */
#define UE_COPY_MAX 256
/* The write index, which starts every record */
#define UE_INDEX_SIZE 4

/**
 * struct ue_writer - lays out one event's payload
 * @ev: the event
 * @pos: where the next byte goes in @scratch
 * @scalars: bytes of @scratch used by scalar values and loc words
 * @copied: bytes of @scratch used by copied char[N] and struct fields
 * @general: 0 while the record is the bytes of @scratch up to @pos, every
 *	field so far copied there and no error: the fields below are not set
 *	yet. 1 once a field is referenced or is a loc field, an error was
 *	met, or ue_write_finish() ran: the record is described by @iov and
 *	@dyn.
 * @err: the first error, reported by ue_write_end()
 * @nr_iov: entries in @iov
 * @nr_dyn: entries in @dyn
 * @nr_loc: __rel_loc/__data_loc fields so far
 * @fixed: bytes of the fixed part so far
 * @dyn_len: bytes of the dynamic part so far
 * @iov: the record so far: the fixed part, from the write index on
 * @dyn: the data of the loc fields, which follows the fixed part
 * @loc: where each loc field is: its offset in @scratch, its end in the
 *	payload, whether it is __rel_loc
 * @scratch: the write index, then the values copied, in the order added
 *
 * Lives on the caller's stack between ue_write_begin() and ue_write_end();
 * about 2.5 KiB, of which an event of copied fields touches only the first
 * bytes and @scratch. Scalars, and char[N] and struct fields up to
 * UE_COPY_MAX bytes in all, are copied; larger fields and the data of
 * __rel_loc and __data_loc fields are referenced, not copied, so they must
 * stay valid until ue_write_end().
 *
 * The functions that add the fields are inline for as long as the record
 * is one buffer (@general 0): a few stores each, and ue_write_end() hands
 * the buffer to ue_write_record(). The rest is the library's.
 */
struct ue_writer {
	struct ue_event *ev;
	unsigned char *pos;
	uint32_t scalars;
	uint32_t copied;
	int general;
	int err;
	int nr_iov;
	int nr_dyn;
	int nr_loc;
	uint32_t fixed;
	uint32_t dyn_len;
	struct iovec iov[1 + UE_MAX_IOV + UE_MAX_LOC];
	struct iovec dyn[UE_MAX_LOC];
	struct {
		uint32_t at;
		uint32_t end;
		uint32_t rel;
	} loc[UE_MAX_LOC];
	unsigned char scratch[UE_INDEX_SIZE + UE_SCRATCH + UE_COPY_MAX]
		UE_ATTR((aligned(8)));
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
static inline void ue_write_begin(struct ue_writer *w, struct ue_event *ev)
{
	w->ev = ev;
	/* the write index goes first, when the record is written */
	w->pos = w->scratch + UE_INDEX_SIZE;
	w->scalars = 0;
	w->copied = 0;
	w->general = 0;
}

/**
 * ue_add_scalar() - add an integer field
 * @w: the writer
 * @v: the value, in host byte order
 * @size: its size: 1, 2, 4 or 8
 *
 * The value is copied into @w. ue_add_u8() ... ue_add_s64() call this.
 */
void ue_add_scalar(struct ue_writer *w, const void *v, size_t size);

/* Is the record one buffer still, with room for @n more copied bytes? */
static inline int __ue_copy_fits(const struct ue_writer *w, size_t n)
{
	return !w->general && n <= UE_COPY_MAX - w->copied;
}

/* The @n bytes of the buffer that __ue_copy_fits() found */
static inline unsigned char *__ue_copy_take(struct ue_writer *w, size_t n)
{
	unsigned char *p = w->pos;

	w->pos += n;
	w->copied += n;
	return p;
}

void ue_add_bytes_general(struct ue_writer *w, const void *p, size_t len);
void ue_add_chars_general(struct ue_writer *w, const char *s, size_t n);

/**
 * ue_add_bytes() - add a fixed-size field from memory
 * @w: the writer
 * @p: its bytes
 * @len: how many: the size of the field (char[N], unsigned char[N], struct)
 *
 * Copied while the writer's UE_COPY_MAX bytes for such fields last, else
 * referenced (by ue_add_bytes_general(), which does the rest).
 */
static inline void ue_add_bytes(struct ue_writer *w, const void *p, size_t len)
{
	if (__builtin_expect(p && __ue_copy_fits(w, len), 1)) {
		__builtin_memcpy(__ue_copy_take(w, len), p, len);
		return;
	}
	ue_add_bytes_general(w, p, len);
}

/**
 * ue_copy_chars() - @n bytes of a char[N] field at @dst, from string @s
 * @dst: where
 * @s: the string
 * @n: N
 *
 * The string cut at @n bytes, or padded with NULs up to them: stpncpy()
 * (strncpy() returning the end), which takes fewer instructions than
 * strnlen(), memcpy() and memset() (glibc, SSE2 and AVX2). Out of line for
 * the inline ue_add_chars(): where the compiler sees the string, it would
 * warn of the cut made on purpose.
 */
void ue_copy_chars(void *dst, const char *s, size_t n);

/**
 * ue_add_chars() - add a char[N] field from a string
 * @w: the writer
 * @s: the string (NULL: empty)
 * @n: N, the size of the field
 *
 * The string is cut at @n bytes; shorter ones are padded with NULs.
 * Copied, or referenced, as for ue_add_bytes().
 */
static inline void ue_add_chars(struct ue_writer *w, const char *s, size_t n)
{
	if (__builtin_expect(s && __ue_copy_fits(w, n), 1)) {
		ue_copy_chars(__ue_copy_take(w, n), s, n);
		return;
	}
	ue_add_chars_general(w, s, n);
}

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
 * What ue_write_end() does before writing: after it, @w->iov holds
 * @w->nr_iov entries, the record from its write index on (in one entry
 * when every field was copied). Exposed for tests and for callers that
 * write themselves.
 *
 * Return: the number of entries of @w->iov, or a negative errno.
 */
int ue_write_finish(struct ue_writer *w);

/**
 * ue_write_record() - write a record laid out by the caller
 * @ev: the event, registered here if it is not yet
 * @rec: the record: UE_INDEX_SIZE bytes this function fills with the
 *	event's write index, then the payload, laid out as the description
 *	says
 * @len: its bytes, the index included (at least UE_INDEX_SIZE)
 *
 * One write() of @rec. ue_write_end() calls it for a record of copied
 * fields; a caller that keeps an event's fields in a struct of that layout
 * may call it directly.
 *
 * Return: as ue_write().
 */
ssize_t ue_write_record(struct ue_event *ev, void *rec, size_t len);

/* ue_write_end() of a record that is not one buffer */
ssize_t ue_write_end_general(struct ue_writer *w);

/**
 * ue_write_end() - write the event laid out in @w
 * @w: the writer
 *
 * Registers the event if it is not yet, then writes it with one system
 * call: write() of the writer's buffer when every field was copied there
 * (ue_write_record()); else write() of a copy when the record (index
 * included) is at most 512 bytes, which the kernel takes for fewer
 * instructions; else writev() of the iovecs, the referenced data not
 * copied.
 *
 * Return: as ue_write(): the payload bytes written, 0 when not recorded
 * because nothing is attached (UE_ABI_BITS), or a negative errno: the first
 * error of the ue_add_*() calls (-E2BIG when a writer limit was exceeded),
 * or one of the kernel's.
 */
static inline ssize_t ue_write_end(struct ue_writer *w)
{
	if (__builtin_expect(!w->general, 1))
		return ue_write_record(w->ev, w->scratch, w->pos - w->scratch);
	return ue_write_end_general(w);
}

/**
 * struct ue_batch - events gathered in a buffer of the caller's, written
 *	with one system call
 * @buf: the caller's buffer
 * @size: its bytes (at most 1 MiB of them are used: the kernel's limit)
 * @len: bytes in use: the records
 * @nr: records in the buffer
 * @err: the first error of a record written since the last
 *	ue_batch_flush(), which returns it
 *
 * Many events in one write (see "Writing many events at once" in
 * Documentation/trace/user_events.rst): a system call is much of what an
 * event costs. The library writes batches to a batch fd of its own
 * (DIAG_IOCSBATCH), made at the first flush. ue_batch_init() gives the
 * batch its buffer. Each
 * ue_batch_add*() function lays out one record as the matching write
 * function would write it alone (ue_write_end(), ue_write(),
 * ue_write_record()), registering the event if it is not yet, and copies it
 * into the buffer; a record that does not fit is preceded by a flush, and
 * one larger than the whole buffer is written alone. ue_batch_flush() writes
 * what the buffer holds.
 *
 * Each record is its own event for the kernel: recorded by each consumer,
 * filtered, with its own time stamp, taken when the batch is written (a
 * writer that needs the time the event happened puts it in a field). A
 * record of an event nobody listens to when the batch is written is
 * skipped, whichever the ABI. A record the kernel refuses is dropped and
 * its error kept for ue_batch_flush(); the records after it are written.
 * On a kernel without batches the records are written one by one, as
 * they are when the environment variable USER_EVENTS_BATCH is "off" when
 * ue_batch_init() runs.
 *
 * Test ue_enabled() before adding, as before writing. The data referenced
 * by a ue_writer is copied by the add: the writer may go after it. A batch
 * is not for several threads at once: give each thread its own.
 */
struct ue_batch {
	unsigned char *buf;
	size_t size;
	size_t len;
	unsigned int nr;
	int err;
	int alone;
};

/**
 * ue_batch_init() - give a batch its buffer
 * @b: the batch
 * @buf: the buffer, the caller's until the batch is no longer used
 * @size: its bytes: at least UE_BATCH_MIN
 *
 * Return: 0, or -EINVAL for a NULL @buf or too small a @size.
 */
int ue_batch_init(struct ue_batch *b, void *buf, size_t size);

/* The smallest batch buffer: one record of 8 payload bytes */
#define UE_BATCH_MIN 16

/**
 * ue_batch_add_writer() - add the event laid out in a ue_writer
 * @b: the batch
 * @w: the writer, after the ue_add_*() calls, instead of ue_write_end()
 *
 * Return: 0 once the record is in the batch (or, larger than the buffer,
 * was written alone: then as ue_write_end()), or a negative errno: the
 * first error of the ue_add_*() calls, or of the registration.
 */
int ue_batch_add_writer(struct ue_batch *b, struct ue_writer *w);

/**
 * ue_batch_add() - add an event from the caller's iovecs
 * @b: the batch
 * @ev: the event
 * @iov: the payload, as for ue_write()
 * @n: entries in @iov (at most UE_MAX_IOV)
 *
 * Return: as ue_batch_add_writer().
 */
int ue_batch_add(struct ue_batch *b, struct ue_event *ev,
		 const struct iovec *iov, int n);

/**
 * ue_batch_add_record() - add an event from a payload laid out by the caller
 * @b: the batch
 * @ev: the event
 * @payload: the fields, laid out as the description says
 * @len: their bytes
 *
 * Return: as ue_batch_add_writer().
 */
int ue_batch_add_record(struct ue_batch *b, struct ue_event *ev,
			const void *payload, size_t len);

/**
 * ue_batch_flush() - write the records of a batch
 * @b: the batch
 *
 * One write() for the lot, unless the kernel refuses a record: then that
 * record is dropped, and the rest written from the next one.
 *
 * Return: 0, or the first negative errno of a record written since the
 * last flush (by this call or by an add that found the buffer full);
 * @b is empty either way.
 */
int ue_batch_flush(struct ue_batch *b);

/**
 * ue_strerror() - what an error of the library means for a writer
 * @err: an errno value, negative or positive
 *
 * Return: a sentence with a hint on what to do, in static storage.
 */
const char *ue_strerror(int err);

/*
 * Typed wrappers of ue_add_scalar(), inline while the record is one buffer
 * (@w->general 0) and the scalars fit
 */
#define __UE_ADD(name, type)						\
static inline void ue_add_##name(struct ue_writer *w, type v)		\
{									\
	if (__builtin_expect(!w->general &&				\
			     w->scalars <= UE_SCRATCH - sizeof(v), 1)) {	\
		__builtin_memcpy(w->pos, &v, sizeof(v));		\
		w->pos += sizeof(v);					\
		w->scalars += sizeof(v);				\
		return;							\
	}								\
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
