// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libuserevents: emit Linux user_events from a C program.
 * See user_events.h for the interface.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/user_events.h>

#include "user_events.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* The common header of every record, before the payload (__data_loc) */
#define UE_COMMON_HEADER 8
/* The largest offset or size a loc field holds */
#define UE_LOC_MAX 0xffff

const unsigned char ue_disabled_byte;

/* Zeros that pad char[N] fields */
static const char ue_zeros[1024];

/* Guards opening the files and registering events */
static pthread_mutex_t ue_lock = PTHREAD_MUTEX_INITIALIZER;
static int ue_fd = -1;
/* Set last, with release semantics: non-NULL means ue_fd is valid too */
static const unsigned char *ue_page;

static pthread_once_t ue_dir_once = PTHREAD_ONCE_INIT;
static char ue_dir[256] = "/sys/kernel/tracing";

static int ue_fail(int err)
{
	errno = -err;
	return err;
}

static void ue_find_tracefs(void)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	const char *env = getenv("USER_EVENTS_TRACEFS");
	char path[300];
	struct stat st;
	size_t i;

	if (env && *env) {
		snprintf(ue_dir, sizeof(ue_dir), "%s", env);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/user_events_data", dirs[i]);
		/* EACCES (a 0700 mount point) still means it is there */
		if (!stat(path, &st) || errno != ENOENT) {
			snprintf(ue_dir, sizeof(ue_dir), "%s", dirs[i]);
			return;
		}
	}
}

const char *ue_tracefs(void)
{
	pthread_once(&ue_dir_once, ue_find_tracefs);
	return ue_dir;
}

/* fork() while another thread holds ue_lock must not leave it held */
static void ue_atfork_prepare(void)
{
	pthread_mutex_lock(&ue_lock);
}

static void ue_atfork_release(void)
{
	pthread_mutex_unlock(&ue_lock);
}

/* Open the files with ue_lock held */
static int ue_open_locked(void)
{
	static int atfork_done;
	char path[300];
	long page = sysconf(_SC_PAGESIZE);
	void *map;
	int sfd, dfd, err;

	if (ue_page)
		return 0;
	snprintf(path, sizeof(path), "%s/user_events_status", ue_tracefs());
	sfd = open(path, O_RDONLY | O_CLOEXEC);
	if (sfd < 0)
		return -errno;
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, sfd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	close(sfd);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/user_events_data", ue_tracefs());
	dfd = open(path, O_RDWR | O_CLOEXEC);
	if (dfd < 0) {
		err = -errno;
		munmap(map, page);
		return err;
	}
	if (!atfork_done) {
		err = pthread_atfork(ue_atfork_prepare, ue_atfork_release,
				     ue_atfork_release);
		if (err) {
			close(dfd);
			munmap(map, page);
			return -err;
		}
		atfork_done = 1;
	}
	ue_fd = dfd;
	__atomic_store_n(&ue_page, map, __ATOMIC_RELEASE);
	return 0;
}

int ue_open(void)
{
	int err;

	if (__atomic_load_n(&ue_page, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&ue_lock);
	err = ue_open_locked();
	pthread_mutex_unlock(&ue_lock);
	return err ? ue_fail(err) : 0;
}

const unsigned char *ue_status_page(void)
{
	return __atomic_load_n(&ue_page, __ATOMIC_ACQUIRE);
}

int ue_data_fd(void)
{
	return ue_status_page() ? ue_fd : -1;
}

void ue_event_init(struct ue_event *ev, const char *desc)
{
	ev->desc = desc;
	ev->status = &ue_disabled_byte;
	ev->write_index = -1;
	ev->status_index = 0;
	ev->registered = 0;
}

int ue_event_register(struct ue_event *ev)
{
	struct user_reg reg;
	int err;

	if (__atomic_load_n(&ev->registered, __ATOMIC_ACQUIRE))
		return 0;
	if (!ev->desc)
		return ue_fail(-EINVAL);
	pthread_mutex_lock(&ue_lock);
	err = ue_open_locked();
	if (err || ev->registered)
		goto out;
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.name_args = (uintptr_t)ev->desc;
	if (ioctl(ue_fd, DIAG_IOCSREG, &reg) < 0) {
		err = -errno;
		goto out;
	}
	ev->write_index = reg.write_index;
	ev->status_index = reg.status_index;
	__atomic_store_n(&ev->registered, 1, __ATOMIC_RELEASE);
	/* from now on ue_enabled() reads the real byte */
	__atomic_store_n(&ev->status, ue_page + reg.status_index,
			 __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&ue_lock);
	return err ? ue_fail(err) : 0;
}

int ue_register_events(struct ue_event *const *evs, size_t n)
{
	int err, first = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!evs[i])
			continue;
		err = ue_event_register(evs[i]);
		if (err && !first)
			first = err;
	}
	return first ? ue_fail(first) : 0;
}

int ue_register_section(struct ue_event *start, struct ue_event *stop)
{
	struct ue_event *ev;
	int err, first = 0;

	for (ev = start; ev < stop; ev++) {
		if (!ev->desc)
			continue;
		err = ue_event_register(ev);
		if (err && !first)
			first = err;
	}
	return first ? ue_fail(first) : 0;
}

int ue_delete_event(const char *name)
{
	int err = ue_open();

	if (err)
		return err;
	if (ioctl(ue_fd, DIAG_IOCSDEL, name) < 0)
		return ue_fail(-errno);
	return 0;
}

ssize_t ue_write(struct ue_event *ev, const struct iovec *iov, int n)
{
	struct iovec v[1 + UE_MAX_IOV];
	ssize_t ret;
	int err;

	if (n < 0 || n > UE_MAX_IOV)
		return ue_fail(-EINVAL);
	err = ue_event_register(ev);
	if (err)
		return err;
	v[0].iov_base = &ev->write_index;
	v[0].iov_len = sizeof(ev->write_index);
	if (n)
		memcpy(&v[1], iov, n * sizeof(*iov));
	ret = writev(ue_fd, v, n + 1);
	if (ret < 0)
		return ue_fail(-errno);
	return ret - (ssize_t)sizeof(ev->write_index);
}

/* The writer -------------------------------------------------------------- */

void ue_write_begin(struct ue_writer *w, struct ue_event *ev)
{
	w->ev = ev;
	w->err = 0;
	w->nr_iov = 0;
	w->nr_dyn = 0;
	w->nr_loc = 0;
	w->fixed = 0;
	w->dyn_len = 0;
	w->used = 0;
}

static void ue_set_err(struct ue_writer *w, int err)
{
	if (!w->err)
		w->err = err;
}

/* Append @len bytes at @p to @v (@n entries, at most @max), merging */
static int ue_push(struct iovec *v, int *n, int max, const void *p, size_t len)
{
	struct iovec *last = *n ? &v[*n - 1] : NULL;

	if (!len)
		return 0;
	if (last && (const char *)last->iov_base + last->iov_len == p) {
		last->iov_len += len;
		return 0;
	}
	if (*n == max)
		return -E2BIG;
	v[*n].iov_base = (void *)p;
	v[*n].iov_len = len;
	(*n)++;
	return 0;
}

/* A fixed field of @len bytes at @p */
static void ue_push_fixed(struct ue_writer *w, const void *p, size_t len)
{
	int err;

	if (w->err)
		return;
	if (len > UE_LOC_MAX || w->fixed + len > UE_LOC_MAX) {
		ue_set_err(w, -E2BIG);
		return;
	}
	/* iov[0] is the write index */
	err = ue_push(w->iov + 1, &w->nr_iov, UE_MAX_IOV, p, len);
	if (err)
		ue_set_err(w, err);
	else
		w->fixed += len;
}

/* @size bytes of scratch space, or NULL (and -E2BIG in @w) */
static unsigned char *ue_scratch(struct ue_writer *w, size_t size)
{
	unsigned char *p;

	if (w->used + size > UE_SCRATCH) {
		ue_set_err(w, -E2BIG);
		return NULL;
	}
	p = w->scratch + w->used;
	w->used += size;
	return p;
}

void ue_add_scalar(struct ue_writer *w, const void *v, size_t size)
{
	unsigned char *p;

	if (size != 1 && size != 2 && size != 4 && size != 8) {
		ue_set_err(w, -EINVAL);
		return;
	}
	p = ue_scratch(w, size);
	if (!p)
		return;
	memcpy(p, v, size);
	/* consecutive scalars share one iovec */
	ue_push_fixed(w, p, size);
}

void ue_add_bytes(struct ue_writer *w, const void *p, size_t len)
{
	if (len && !p) {
		ue_set_err(w, -EINVAL);
		return;
	}
	ue_push_fixed(w, p, len);
}

void ue_add_chars(struct ue_writer *w, const char *s, size_t n)
{
	size_t len = s ? strnlen(s, n) : 0, pad;

	ue_push_fixed(w, s, len);
	for (n -= len; n; n -= pad) {
		pad = n < sizeof(ue_zeros) ? n : sizeof(ue_zeros);
		ue_push_fixed(w, ue_zeros, pad);
	}
}

/*
 * A loc field: its u32 goes into the fixed part now, with the size and the
 * offset of the data within the dynamic part; ue_write_finish() adds where
 * the dynamic part starts once the fixed part is complete.
 */
static void ue_add_loc(struct ue_writer *w, const void *p, size_t len, int rel)
{
	unsigned char *word;
	uint32_t v;
	int err;

	if (w->err)
		return;
	if (len && !p) {
		ue_set_err(w, -EINVAL);
		return;
	}
	if (w->nr_loc == UE_MAX_LOC || len > UE_LOC_MAX ||
	    w->dyn_len + len > UE_LOC_MAX) {
		ue_set_err(w, -E2BIG);
		return;
	}
	word = ue_scratch(w, sizeof(v));
	if (!word)
		return;
	v = (uint32_t)len << 16 | w->dyn_len;
	memcpy(word, &v, sizeof(v));
	ue_push_fixed(w, word, sizeof(v));
	if (w->err)
		return;
	w->loc[w->nr_loc].at = word - w->scratch;
	w->loc[w->nr_loc].end = w->fixed;
	w->loc[w->nr_loc].rel = rel;
	w->nr_loc++;
	err = ue_push(w->dyn, &w->nr_dyn, UE_MAX_LOC, p, len);
	if (err)
		ue_set_err(w, err);
	w->dyn_len += len;
}

void ue_add_str(struct ue_writer *w, const char *s)
{
	if (!s)
		s = "";
	ue_add_loc(w, s, strlen(s) + 1, 1);
}

void ue_add_array(struct ue_writer *w, const void *p, size_t len)
{
	ue_add_loc(w, p, len, 1);
}

void ue_add_data_loc_str(struct ue_writer *w, const char *s)
{
	if (!s)
		s = "";
	ue_add_loc(w, s, strlen(s) + 1, 0);
}

void ue_add_data_loc_array(struct ue_writer *w, const void *p, size_t len)
{
	ue_add_loc(w, p, len, 0);
}

int ue_write_finish(struct ue_writer *w)
{
	uint32_t v, off;
	int i, err;

	if (w->err)
		return ue_fail(w->err);
	if (w->fixed + w->dyn_len > UE_LOC_MAX)
		return ue_fail(-E2BIG);
	for (i = 0; i < w->nr_loc; i++) {
		memcpy(&v, w->scratch + w->loc[i].at, sizeof(v));
		off = v & UE_LOC_MAX;
		/* __rel_loc: from the end of the loc word; __data_loc: the record */
		if (w->loc[i].rel)
			off += w->fixed - w->loc[i].end;
		else
			off += UE_COMMON_HEADER + w->fixed;
		if (off > UE_LOC_MAX)
			return ue_fail(-E2BIG);
		v = (v & ~(uint32_t)UE_LOC_MAX) | off;
		memcpy(w->scratch + w->loc[i].at, &v, sizeof(v));
	}
	w->nr_loc = 0;
	for (i = 0; i < w->nr_dyn; i++) {
		err = ue_push(w->iov + 1, &w->nr_iov, UE_MAX_IOV + UE_MAX_LOC,
			      w->dyn[i].iov_base, w->dyn[i].iov_len);
		if (err)
			return ue_fail(err);
	}
	w->nr_dyn = 0;
	w->iov[0].iov_base = &w->ev->write_index;
	w->iov[0].iov_len = sizeof(w->ev->write_index);
	return w->nr_iov + 1;
}

ssize_t ue_write_end(struct ue_writer *w)
{
	ssize_t ret;
	int n;

	if (w->err)
		return ue_fail(w->err);
	ret = ue_event_register(w->ev);
	if (ret)
		return ret;
	n = ue_write_finish(w);
	if (n < 0)
		return n;
	ret = writev(ue_fd, w->iov, n);
	if (ret < 0)
		return ue_fail(-errno);
	return ret - (ssize_t)sizeof(w->ev->write_index);
}

/* Errors ------------------------------------------------------------------ */

static const struct {
	int err;
	const char *msg;
} ue_messages[] = {
	{ EACCES,
	  "Permission denied: ask an administrator for read and write access to user_events_status and user_events_data in tracefs (and for search access to the tracefs directory, 0700 by default)"
	},
	{ EPERM,
	  "Operation not permitted: the status page can only be mapped read-only, and the files need the access an administrator grants"
	},
	{ ENOENT,
	  "No such event, or a write index this process never registered; or no user_events_data at all: tracefs is not mounted or the kernel lacks CONFIG_USER_EVENTS"
	},
	{ EADDRINUSE,
	  "An event of this name already exists with other fields: use the same fields, another name, or delete the old event first"
	},
	{ E2BIG,
	  "Too big: a description longer than 511 bytes, a payload larger than PAGE_SIZE - 40 bytes, or more fields than a ue_writer holds"
	},
	{ EINVAL,
	  "Invalid: a bad event name, flag or field (tracefs error_log shows which), or a payload shorter than the event's fixed fields"
	},
	{ EMFILE,
	  "No free status byte: PAGE_SIZE - 1 events exist already; delete unused events"
	},
	{ EBUSY,
	  "Event in use: an open user_events_data file (a running writer) holds it, or a consumer is attached"
	},
	{ EFAULT,
	  "Bad data: a __rel_loc/__data_loc field points outside the record or a string lacks its NUL, or a bad pointer"
	},
	{ ENOTTY,
	  "The kernel does not know this request: its user_events has a different ABI"
	},
};

const char *ue_strerror(int err)
{
	size_t i;

	if (err < 0)
		err = -err;
	if (!err)
		return "Success";
	for (i = 0; i < ARRAY_SIZE(ue_messages); i++)
		if (ue_messages[i].err == err)
			return ue_messages[i].msg;
	return strerror(err);
}
