/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * user_events: trace events created and written by user processes.
 *
 * Two ways to learn whether anyone listens, on the same events:
 *
 * - the enable bit (the ABI of Linux 6.4 and later): a process registers
 *   with a struct user_reg (28 bytes), naming a bit of a 4- or 8-byte word
 *   of its own memory, which the kernel keeps set while anyone listens;
 * - the status page: a process maps the status page of the tracefs file
 *   user_events_status, registers events with a struct user_status_reg
 *   (24 bytes) and tests the byte at status_index before each event.
 *
 * Either way it writes [write_index][payload] with write() or writev() to
 * the fd it registered on, or many such records in one call to a batch fd
 * (DIAG_IOCSBATCH). See Documentation/trace/user_events.rst.
 *
 * Every name and layout of the header of Linux 6.4 and later is here as
 * there. A program written against the status-page header, where the
 * 24-byte layout is called struct user_reg, builds unchanged when it
 * defines USER_EVENTS_STATUS_ABI before including this header.
 */
#ifndef _UAPI_LINUX_USER_EVENTS_H
#define _UAPI_LINUX_USER_EVENTS_H

#include <linux/types.h>
#include <linux/ioctl.h>

#ifdef __KERNEL__
#include <linux/uio.h>
#else
#include <sys/uio.h>
#endif

/* Trace system (events/<system>/) of every user event */
#define USER_EVENTS_SYSTEM "user_events"

/* Trace system of the events registered with USER_EVENT_REG_MULTI_FORMAT */
#define USER_EVENTS_MULTI_SYSTEM "user_events_multi"

/* dynamic_events command prefix */
#define USER_EVENTS_PREFIX "u:"

/* A __data_loc/__rel_loc field's value: @size bytes at @offset */
#define DYN_LOC(offset, size) ((size) << 16 | (offset))

/*
 * A batch: one write() or writev() of many records, to a batch fd, which
 * ioctl(data_fd, DIAG_IOCSBATCH, 0) returns. Every write of a batch fd is
 * records of the events of data_fd, back to back, and nothing else; each
 * record is a __u32 count of the bytes of a single write and those bytes,
 * as a write of the event alone to data_fd would carry them: the write
 * index (of either ABI, of any event of data_fd) and the payload:
 *
 *   [struct user_batch_rec][write_index][payload]   (size = 4 + payload)
 *   [struct user_batch_rec][write_index][payload]   ...
 *
 * Every field has a fixed size, in the byte order of the machine, with no
 * alignment asked of it: 32-bit and 64-bit processes write the same bytes.
 * Each record is checked and recorded as a write of it alone would be,
 * with its own time stamp, in order; one of an event that nobody listens
 * to is checked, then skipped (for the enable-bit ABI too, where a write
 * alone fails with EBADF). The first record that fails ends the batch: the
 * call returns the bytes of the records before it (all recorded), as a
 * short write does, or its errno when it is the first. What a short write
 * left, written again as it is, starts at that record, as a write-all loop
 * resumes. A batch of more than USER_EVENTS_BATCH_MAX bytes fails with
 * EMSGSIZE before anything is read. See Documentation/trace/user_events.rst.
 */
/* The largest batch, in bytes */
#define USER_EVENTS_BATCH_MAX (1U << 20)

/* Header of each record of a batch */
struct user_batch_rec {
	/* bytes of the record that follow: the write index and the payload */
	__u32 size;
};

/* Bits of an event's status byte: who is attached right now */
#define EVENT_BIT_FTRACE 0
#define EVENT_BIT_PERF 1
#define EVENT_BIT_OTHER 7

#define EVENT_STATUS_FTRACE (1 << EVENT_BIT_FTRACE)
#define EVENT_STATUS_PERF (1 << EVENT_BIT_PERF)
#define EVENT_STATUS_OTHER (1 << EVENT_BIT_OTHER)

/* Where the data of a BPF_ITER event lives (struct user_bpf_context) */
enum {
	USER_BPF_DATA_KERNEL,	/* kdata: a kernel copy */
	USER_BPF_DATA_USER,	/* udata: a single user buffer */
	USER_BPF_DATA_ITER,	/* iter: the writer's iovecs, unread */
};

/* The writer's iovecs, as given to writev(), after the write index */
struct user_bpf_iter {
	__u32 iov_offset;	/* bytes of iov[0] already consumed */
	__u32 nr_segs;		/* entries in iov */
	const struct iovec *iov;
};

/*
 * Context of BPF programs attached to an event registered with BPF_ITER, at
 * USER_BPF_CONTEXT_OFFSET of the program's context: as for any tracepoint
 * program, the context's first 8 bytes are the kernel's.
 */
#define USER_BPF_CONTEXT_OFFSET 8

struct user_bpf_context {
	__u32 data_type;	/* USER_BPF_DATA_* */
	__u32 data_len;		/* payload bytes */
	union {
		const void *kdata;
		const void *udata;
		struct user_bpf_iter *iter;
	};
};

/* Argument of DIAG_IOCSREG for the status page: size 24 */
struct user_status_reg {
	/* in: sizeof(struct user_status_reg) */
	__u32 size;

	/* in: user address of "name[:FLAG1[,FLAG2...]] [field1[;field2...]]" */
	__u64 name_args __attribute__((aligned(8)));

	/* out: byte of the status page that tells whether anyone listens */
	__u32 status_index;

	/* out: index to put first in every write of this event on this fd */
	__u32 write_index;
};

/* Flags of struct user_reg */
enum user_reg_flag {
	/* The event outlives its last reference (needs CAP_PERFMON) */
	USER_EVENT_REG_PERSIST		= 1U << 0,

	/* Several formats under one name: user_events_multi/<name>.<id> */
	USER_EVENT_REG_MULTI_FORMAT	= 1U << 1,

	/* This bit and the ones above it are refused (EINVAL) */
	USER_EVENT_REG_MAX		= 1U << 2,
};

#ifdef USER_EVENTS_STATUS_ABI
/* A program written for the status-page header: its struct user_reg */
#define user_reg user_status_reg
#else
/*
 * Argument of DIAG_IOCSREG for the enable-bit ABI; size 28 (or more, with
 * the bytes past 28 zero) tells it from struct user_status_reg.
 */
struct user_reg {
	/* in: sizeof(struct user_reg) */
	__u32	size;

	/* in: the bit of the word at enable_addr that tells "enabled" */
	__u8	enable_bit;

	/* in: size of that word, 4 or 8 */
	__u8	enable_size;

	/* in: USER_EVENT_REG_* */
	__u16	flags;

	/* in: address of the word, aligned to enable_size */
	__u64	enable_addr;

	/* in: user address of "name[:FLAG1[,FLAG2...]] [field1[;field2...]]" */
	__u64	name_args;

	/* out: index to put first in every write of this event on this fd */
	__u32	write_index;
} __attribute__((__packed__));
#endif

/* Argument of DIAG_IOCSUNREG: stop updating the bit at (disable_addr, disable_bit) */
struct user_unreg {
	/* in: sizeof(struct user_unreg) */
	__u32	size;

	/* in: the bit given to DIAG_IOCSREG */
	__u8	disable_bit;

	/* in: zero */
	__u8	__reserved;

	/* in: zero */
	__u16	__reserved2;

	/* in: the address given to DIAG_IOCSREG */
	__u64	disable_addr;
} __attribute__((__packed__));

#define DIAG_IOC_MAGIC '*'

/* Register an event (struct user_reg * or struct user_status_reg *) */
#define DIAG_IOCSREG _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg *)

/*
 * Delete an event by name (char *); EBUSY while it is in use. No buffer is
 * cleared: an event whose records a trace buffer holds is retired (its
 * name free at once, its records decoded until no buffer holds them); see
 * Documentation/trace/user_events.rst.
 */
#define DIAG_IOCSDEL _IOW(DIAG_IOC_MAGIC, 1, char *)

/* Stop updating an enable bit (struct user_unreg *) */
#define DIAG_IOCSUNREG _IOW(DIAG_IOC_MAGIC, 2, struct user_unreg *)

/*
 * A batch fd for this fd's events (the argument, flags, must be 0): returns
 * a new fd, write-only and close-on-exec, every write() or writev() of
 * which is a batch (see struct user_batch_rec). It holds this fd's open
 * file, and so its events, until it is closed.
 */
#define DIAG_IOCSBATCH _IO(DIAG_IOC_MAGIC, 16)

#endif /* _UAPI_LINUX_USER_EVENTS_H */
