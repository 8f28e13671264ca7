/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * user_events: trace events created and written by user processes.
 *
 * A process maps the status page of the tracefs file user_events_status,
 * registers events with DIAG_IOCSREG on user_events_data, tests the byte
 * at status_index before each event and writes
 * [write_index][payload] with write() or writev() to the same fd.
 * See Documentation/trace/user_events.rst.
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

/* dynamic_events command prefix */
#define USER_EVENTS_PREFIX "u:"

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

/* Context of BPF programs attached to an event registered with BPF_ITER */
struct user_bpf_context {
	__u32 data_type;	/* USER_BPF_DATA_* */
	__u32 data_len;		/* payload bytes */
	union {
		const void *kdata;
		const void *udata;
		struct user_bpf_iter *iter;
	};
};

/* Argument of DIAG_IOCSREG */
struct user_reg {
	/* in: sizeof(struct user_reg) */
	__u32 size;

	/* in: user address of "name[:FLAG1[,FLAG2...]] [field1[;field2...]]" */
	__u64 name_args __attribute__((aligned(8)));

	/* out: byte of the status page that tells whether anyone listens */
	__u32 status_index;

	/* out: index to put first in every write of this event on this fd */
	__u32 write_index;
};

#define DIAG_IOC_MAGIC '*'

/* Register an event (struct user_reg *) */
#define DIAG_IOCSREG _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg *)

/* Delete an event by name (char *) */
#define DIAG_IOCSDEL _IOW(DIAG_IOC_MAGIC, 1, char *)

#endif /* _UAPI_LINUX_USER_EVENTS_H */
