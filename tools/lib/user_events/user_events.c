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

/* Guards opening the files, registering events and the enable words */
static pthread_mutex_t ue_lock = PTHREAD_MUTEX_INITIALIZER;
/* user_events_data once open (stored last, with release semantics), else -1 */
static int ue_fd = -1;
/* The status page once mapped (stored last, with release semantics) */
static const unsigned char *ue_page;

/* The ABI ue_set_abi() chose (0: none), and the one $USER_EVENTS_ABI names */
static int ue_abi_set;
static int ue_abi_env = UE_ABI_BITS;
static pthread_once_t ue_env_once = PTHREAD_ONCE_INIT;

static pthread_once_t ue_dir_once = PTHREAD_ONCE_INIT;
static char ue_dir[256] = "/sys/kernel/tracing";

/*
 * The enable-bit ABI: each event registered through it gets a 32-bit word
 * of library memory, and the kernel keeps bit UE_ENABLE_BIT of it set while
 * anyone listens. That bit is in the word's lowest-addressed byte, which
 * the event's status points at, so that ue_enabled() reads it as it reads a
 * status byte. The words come in chunks that are never freed: the kernel
 * may write into a word for as long as it is registered, even after the
 * struct ue_event that used it is gone. All of it is guarded by ue_lock.
 */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UE_ENABLE_BIT 24
#else
#define UE_ENABLE_BIT 0
#endif
#define UE_CHUNK_WORDS 1024

static uint32_t *ue_chunk;		/* where new words are taken from */
static unsigned int ue_chunk_used;	/* its words handed out so far */
static uint32_t **ue_free_words;	/* unregistered words, to reuse */
static size_t ue_nr_free, ue_free_max;

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

/* "status" chooses the status page; "bits", nothing or anything else not */
static void ue_read_abi_env(void)
{
	const char *env = getenv("USER_EVENTS_ABI");

	if (env && !strcmp(env, "status"))
		ue_abi_env = UE_ABI_STATUS;
}

int ue_set_abi(int abi)
{
	if (abi != UE_ABI_BITS && abi != UE_ABI_STATUS)
		return ue_fail(-EINVAL);
	__atomic_store_n(&ue_abi_set, abi, __ATOMIC_RELAXED);
	return 0;
}

int ue_get_abi(void)
{
	int abi = __atomic_load_n(&ue_abi_set, __ATOMIC_RELAXED);

	if (abi)
		return abi;
	pthread_once(&ue_env_once, ue_read_abi_env);
	return ue_abi_env;
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

/* Open user_events_data with ue_lock held */
static int ue_open_data_locked(void)
{
	static int atfork_done;
	char path[300];
	int fd, err;

	if (ue_fd >= 0)
		return 0;
	if (!atfork_done) {
		err = pthread_atfork(ue_atfork_prepare, ue_atfork_release,
				     ue_atfork_release);
		if (err)
			return -err;
		atfork_done = 1;
	}
	snprintf(path, sizeof(path), "%s/user_events_data", ue_tracefs());
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	__atomic_store_n(&ue_fd, fd, __ATOMIC_RELEASE);
	return 0;
}

/* Map the status page with ue_lock held */
static int ue_map_status_locked(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[300];
	void *map;
	int fd, err;

	if (ue_page)
		return 0;
	snprintf(path, sizeof(path), "%s/user_events_status", ue_tracefs());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	__atomic_store_n(&ue_page, map, __ATOMIC_RELEASE);
	return 0;
}

/* What ABI @abi needs, with ue_lock held: the data file, the status page */
static int ue_open_locked(int abi)
{
	int err = ue_open_data_locked();

	if (!err && abi == UE_ABI_STATUS)
		err = ue_map_status_locked();
	return err;
}

int ue_open(void)
{
	int abi = ue_get_abi(), err;

	if (__atomic_load_n(&ue_fd, __ATOMIC_ACQUIRE) >= 0 &&
	    (abi != UE_ABI_STATUS || __atomic_load_n(&ue_page, __ATOMIC_ACQUIRE)))
		return 0;
	pthread_mutex_lock(&ue_lock);
	err = ue_open_locked(abi);
	pthread_mutex_unlock(&ue_lock);
	return err ? ue_fail(err) : 0;
}

const unsigned char *ue_status_page(void)
{
	const unsigned char *page = __atomic_load_n(&ue_page, __ATOMIC_ACQUIRE);
	int err;

	if (page)
		return page;
	pthread_mutex_lock(&ue_lock);
	err = ue_map_status_locked();
	page = ue_page;
	pthread_mutex_unlock(&ue_lock);
	if (err)
		ue_fail(err);
	return page;
}

int ue_data_fd(void)
{
	return __atomic_load_n(&ue_fd, __ATOMIC_ACQUIRE);
}

void ue_event_init(struct ue_event *ev, const char *desc)
{
	ev->desc = desc;
	ev->status = &ue_disabled_byte;
	ev->write_index = -1;
	ev->status_index = 0;
	ev->registered = 0;
}

/* A zeroed enable word, with ue_lock held; NULL when out of memory */
static uint32_t *ue_word_get(void)
{
	uint32_t *word, *chunk;

	if (ue_nr_free) {
		word = ue_free_words[--ue_nr_free];
	} else {
		if (!ue_chunk || ue_chunk_used == UE_CHUNK_WORDS) {
			chunk = calloc(UE_CHUNK_WORDS, sizeof(*chunk));
			if (!chunk)
				return NULL;
			ue_chunk = chunk;
			ue_chunk_used = 0;
		}
		word = &ue_chunk[ue_chunk_used++];
	}
	/* zero, and its page present and writable when the kernel gets it */
	__atomic_store_n(word, 0, __ATOMIC_RELAXED);
	return word;
}

/* A word the kernel no longer writes, for reuse (ue_lock held) */
static void ue_word_put(uint32_t *word)
{
	uint32_t **bigger;
	size_t max;

	if (ue_nr_free == ue_free_max) {
		max = ue_free_max ? 2 * ue_free_max : 64;
		bigger = realloc(ue_free_words, max * sizeof(*bigger));
		/* without memory the word is not reused: nothing else is lost */
		if (!bigger)
			return;
		ue_free_words = bigger;
		ue_free_max = max;
	}
	ue_free_words[ue_nr_free++] = word;
}

/* Make @ev point at its byte, once its other fields are set */
static void ue_publish(struct ue_event *ev, const unsigned char *status)
{
	__atomic_store_n(&ev->registered, 1, __ATOMIC_RELEASE);
	/* from now on ue_enabled() reads the real byte */
	__atomic_store_n(&ev->status, status, __ATOMIC_RELEASE);
}

/* Register @ev through the status page, with ue_lock held */
static int ue_register_status(struct ue_event *ev)
{
	struct user_status_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.name_args = (uintptr_t)ev->desc;
	if (ioctl(ue_fd, DIAG_IOCSREG, &reg) < 0)
		return -errno;
	ev->write_index = reg.write_index;
	ev->status_index = reg.status_index;
	ue_publish(ev, ue_page + reg.status_index);
	return 0;
}

/* Register @ev through the enable bit, with ue_lock held */
static int ue_register_bits(struct ue_event *ev, unsigned int flags)
{
	struct user_reg reg;
	uint32_t *word = ue_word_get();
	int err;

	if (!word)
		return -ENOMEM;
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_bit = UE_ENABLE_BIT;
	reg.enable_size = sizeof(*word);
	reg.flags = flags;
	reg.enable_addr = (uintptr_t)word;
	reg.name_args = (uintptr_t)ev->desc;
	if (ioctl(ue_fd, DIAG_IOCSREG, &reg) < 0) {
		err = -errno;
		ue_word_put(word);
		return err;
	}
	ev->write_index = reg.write_index;
	ev->status_index = 0;
	ue_publish(ev, (const unsigned char *)word);
	return 0;
}

int ue_event_register_flags(struct ue_event *ev, unsigned int flags)
{
	int abi, err;

	if (__atomic_load_n(&ev->registered, __ATOMIC_ACQUIRE))
		return 0;
	abi = ue_get_abi();
	if (!ev->desc || flags > UINT16_MAX)
		return ue_fail(-EINVAL);
	/* the status page has no flags; its events stay anyway */
	if (abi == UE_ABI_STATUS && (flags & ~USER_EVENT_REG_PERSIST))
		return ue_fail(-EINVAL);
	pthread_mutex_lock(&ue_lock);
	err = ue_open_locked(abi);
	if (err || ev->registered)
		goto out;
	if (abi == UE_ABI_STATUS)
		err = ue_register_status(ev);
	else
		err = ue_register_bits(ev, flags);
out:
	pthread_mutex_unlock(&ue_lock);
	return err ? ue_fail(err) : 0;
}

int ue_event_register(struct ue_event *ev)
{
	return ue_event_register_flags(ev, 0);
}

/* Stop the kernel updating @ev's enable word, with ue_lock held */
static int ue_unregister_bits(const struct ue_event *ev)
{
	uint32_t *word = (uint32_t *)(uintptr_t)ev->status;
	struct user_unreg unreg;
	int err = 0;

	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = UE_ENABLE_BIT;
	unreg.disable_addr = (uintptr_t)word;
	if (ioctl(ue_fd, DIAG_IOCSUNREG, &unreg) < 0)
		err = -errno;
	/* ENOENT: the kernel has no enable bit there either */
	if (!err || err == -ENOENT)
		ue_word_put(word);
	return err;
}

int ue_event_unregister(struct ue_event *ev)
{
	int err = 0;

	pthread_mutex_lock(&ue_lock);
	if (!ev->registered)
		goto out;
	/* a status-page registration belongs to the open file: nothing to drop */
	if (!ev->status_index)
		err = ue_unregister_bits(ev);
	__atomic_store_n(&ev->status, &ue_disabled_byte, __ATOMIC_RELEASE);
	ev->write_index = -1;
	ev->status_index = 0;
	__atomic_store_n(&ev->registered, 0, __ATOMIC_RELEASE);
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

/*
 * A record (write index and payload) of at most this many bytes is copied
 * into one buffer and handed over with one write(): the kernel takes one
 * buffer for about 345 instructions less than the same bytes as iovecs
 * (write() against writev() into ftrace, 8 to 256 bytes, in
 * tools/user_events/bench/results/profile-ours.txt), more than copying a
 * few hundred bytes costs here. Larger records, and large __rel_loc and
 * __data_loc data, go as they are, with writev().
 */
#define UE_WRITE_COPY_MAX 512

/*
 * Hand @n iovecs over: one buffer with write(), several with one write() of
 * a copy when they are small
 */
static ssize_t ue_write_iov(const struct iovec *v, int n)
{
	unsigned char buf[UE_WRITE_COPY_MAX];
	size_t len = 0;
	int i;

	if (n == 1)
		return write(ue_fd, v[0].iov_base, v[0].iov_len);
	for (i = 0; i < n; i++) {
		if (v[i].iov_len > sizeof(buf) - len)
			return writev(ue_fd, v, n);
		memcpy(buf + len, v[i].iov_base, v[i].iov_len);
		len += v[i].iov_len;
	}
	return write(ue_fd, buf, len);
}

/*
 * What a write of @ev returned (@ret, errno), as the library returns it:
 * the payload bytes, or 0 when the kernel refused an enable-bit index
 * because nothing is attached
 */
static ssize_t ue_written(const struct ue_event *ev, ssize_t ret)
{
	if (ret >= 0)
		return ret - (ssize_t)sizeof(ev->write_index);
	/* the last consumer left after ue_enabled(): not recorded, no error */
	if (errno == EBADF && !ev->status_index)
		return 0;
	return ue_fail(-errno);
}

/* Write @n iovecs of @ev, its write index first */
static ssize_t ue_writev(const struct ue_event *ev, const struct iovec *v, int n)
{
	return ue_written(ev, ue_write_iov(v, n));
}

/* Before a write of @n iovecs of @ev: 0, or why it cannot be */
static int ue_write_prepare(struct ue_event *ev, int n)
{
	if (n < 0 || n > UE_MAX_IOV)
		return ue_fail(-EINVAL);
	return ue_event_register(ev);
}

ssize_t ue_write(struct ue_event *ev, const struct iovec *iov, int n)
{
	struct iovec v[1 + UE_MAX_IOV];
	int err;

	err = ue_write_prepare(ev, n);
	if (err)
		return err;
	v[0].iov_base = &ev->write_index;
	v[0].iov_len = sizeof(ev->write_index);
	if (n)
		memcpy(&v[1], iov, n * sizeof(*iov));
	return ue_writev(ev, v, n + 1);
}

/* The writer -------------------------------------------------------------- */

/*
 * From here on the record is described by @w->iov: the fields ue_write_begin()
 * and the inline functions leave unset are set from what they put in the
 * scratch
 */
static void ue_general(struct ue_writer *w)
{
	size_t len = w->pos - w->scratch;

	if (w->general)
		return;
	w->general = 1;
	w->err = 0;
	w->nr_dyn = 0;
	w->nr_loc = 0;
	w->dyn_len = 0;
	w->fixed = len - UE_INDEX_SIZE;
	w->iov[0].iov_base = w->scratch;
	w->iov[0].iov_len = len;
	w->nr_iov = 1;
}

/* The first error of a general writer, kept for ue_write_end() */
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

/* A fixed field of @len bytes at @p, the writer general */
static void ue_push_fixed(struct ue_writer *w, const void *p, size_t len)
{
	int err;

	if (w->err)
		return;
	if (len > UE_LOC_MAX || w->fixed + len > UE_LOC_MAX) {
		ue_set_err(w, -E2BIG);
		return;
	}
	/* the write index and UE_MAX_IOV more */
	err = ue_push(w->iov, &w->nr_iov, 1 + UE_MAX_IOV, p, len);
	if (err)
		ue_set_err(w, err);
	else
		w->fixed += len;
}

/* @size bytes of scratch space for a scalar or a loc word, or NULL (-E2BIG) */
static unsigned char *ue_scratch(struct ue_writer *w, size_t size)
{
	unsigned char *p;

	if (w->scalars + size > UE_SCRATCH) {
		ue_set_err(w, -E2BIG);
		return NULL;
	}
	p = w->pos;
	w->pos += size;
	w->scalars += size;
	return p;
}

/*
 * @len bytes of scratch space for a char[N] or struct field, or NULL: then
 * the field is referenced
 */
static unsigned char *ue_copy_space(struct ue_writer *w, size_t len)
{
	unsigned char *p;

	if (len > UE_COPY_MAX - w->copied)
		return NULL;
	p = w->pos;
	w->pos += len;
	w->copied += len;
	return p;
}

void ue_add_scalar(struct ue_writer *w, const void *v, size_t size)
{
	unsigned char *p;

	ue_general(w);
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		ue_set_err(w, -EINVAL);
		return;
	}
	p = ue_scratch(w, size);
	if (!p)
		return;
	memcpy(p, v, size);
	/* consecutive copies share one iovec */
	ue_push_fixed(w, p, size);
}

void ue_add_bytes_general(struct ue_writer *w, const void *p, size_t len)
{
	unsigned char *copy;

	ue_general(w);
	if (len && !p) {
		ue_set_err(w, -EINVAL);
		return;
	}
	if (w->err)
		return;
	copy = ue_copy_space(w, len);
	if (copy) {
		memcpy(copy, p, len);
		p = copy;
	}
	ue_push_fixed(w, p, len);
}

void ue_copy_chars(void *dst, const char *s, size_t n)
{
	/* what a char[N] field is: cut at N, padded with NULs */
	stpncpy(dst, s, n);
}

void ue_add_chars_general(struct ue_writer *w, const char *s, size_t n)
{
	unsigned char *copy;
	size_t len, pad;

	ue_general(w);
	if (w->err)
		return;
	copy = ue_copy_space(w, n);
	if (copy) {
		ue_copy_chars(copy, s ? s : "", n);
		ue_push_fixed(w, copy, n);
		return;
	}
	/* referenced: the string's bytes, then NULs up to @n */
	len = s ? strnlen(s, n) : 0;
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

	ue_general(w);
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

/* A string, its NUL included (NULL: the empty string), as a loc field */
static void ue_add_loc_str(struct ue_writer *w, const char *s, int rel)
{
	if (!s)
		s = "";
	ue_add_loc(w, s, strlen(s) + 1, rel);
}

void ue_add_str(struct ue_writer *w, const char *s)
{
	ue_add_loc_str(w, s, 1);
}

void ue_add_array(struct ue_writer *w, const void *p, size_t len)
{
	ue_add_loc(w, p, len, 1);
}

void ue_add_data_loc_str(struct ue_writer *w, const char *s)
{
	ue_add_loc_str(w, s, 0);
}

void ue_add_data_loc_array(struct ue_writer *w, const void *p, size_t len)
{
	ue_add_loc(w, p, len, 0);
}

int ue_write_finish(struct ue_writer *w)
{
	uint32_t v, off;
	int i, err;

	ue_general(w);
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
		err = ue_push(w->iov, &w->nr_iov, 1 + UE_MAX_IOV + UE_MAX_LOC,
			      w->dyn[i].iov_base, w->dyn[i].iov_len);
		if (err)
			return ue_fail(err);
	}
	w->nr_dyn = 0;
	memcpy(w->scratch, &w->ev->write_index, UE_INDEX_SIZE);
	return w->nr_iov;
}

ssize_t ue_write_record(struct ue_event *ev, void *rec, size_t len)
{
	int err;

	/* bad input first: it registers nothing */
	if (len < UE_INDEX_SIZE)
		return ue_fail(-EINVAL);
	if (__builtin_expect(!__atomic_load_n(&ev->registered, __ATOMIC_ACQUIRE), 0)) {
		err = ue_event_register(ev);
		if (err)
			return err;
	}
	memcpy(rec, &ev->write_index, UE_INDEX_SIZE);
	return ue_written(ev, write(ue_fd, rec, len));
}

ssize_t ue_write_end_general(struct ue_writer *w)
{
	ssize_t ret;
	int n;

	ue_general(w);
	if (w->err)
		return ue_fail(w->err);
	ret = ue_event_register(w->ev);
	if (ret)
		return ret;
	n = ue_write_finish(w);
	if (n < 0)
		return n;
	return ue_writev(w->ev, w->iov, n);
}

/* Batches ----------------------------------------------------------------- */

/*
 * The process's batch fd (DIAG_IOCSBATCH of ue_fd), made at the first
 * batch written; -1 before, -2 on a kernel without batches. Stored under
 * ue_lock, read with acquire.
 */
static int ue_batch_fd = -1;

/* The batch fd, made if need be; -1 when batches go record by record */
static int ue_batch_get_fd(void)
{
	int fd = __atomic_load_n(&ue_batch_fd, __ATOMIC_ACQUIRE);

	if (fd != -1)
		return fd < 0 ? -1 : fd;
	pthread_mutex_lock(&ue_lock);
	fd = ue_batch_fd;
	if (fd == -1) {
		fd = ioctl(ue_fd, DIAG_IOCSBATCH, 0);
		/* ENOTTY, EINVAL: this kernel has none; anything else: retry later */
		if (fd < 0 && (errno == ENOTTY || errno == EINVAL))
			fd = -2;
		if (fd != -1)
			__atomic_store_n(&ue_batch_fd, fd, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ue_lock);
	return fd < 0 ? -1 : fd;
}

int ue_batch_init(struct ue_batch *b, void *buf, size_t size)
{
	const char *env;

	if (!buf || size < UE_BATCH_MIN)
		return ue_fail(-EINVAL);
	b->buf = buf;
	b->size = size < USER_EVENTS_BATCH_MAX ? size : USER_EVENTS_BATCH_MAX;
	b->len = 0;
	b->nr = 0;
	b->err = 0;
	/* one write per record, as on a kernel without batches */
	env = getenv("USER_EVENTS_BATCH");
	b->alone = env && !strcmp(env, "off");
	return 0;
}

/* Keep the first error of a record of @b */
static void ue_batch_fail(struct ue_batch *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* The bytes of the record at @rec ([size][index][payload]), its size included */
static size_t ue_batch_rec_len(const unsigned char *rec)
{
	uint32_t size;

	memcpy(&size, rec, sizeof(size));
	return sizeof(size) + size;
}

/*
 * Write the record at @rec alone, to ue_fd: how a kernel without batches
 * takes it. Returns the record's bytes, its size included.
 */
static size_t ue_batch_write_one(struct ue_batch *b, const unsigned char *rec)
{
	size_t len = ue_batch_rec_len(rec);

	/* EBADF: an enable-bit index while nothing is attached, not recorded */
	if (write(ue_fd, rec + sizeof(uint32_t), len - sizeof(uint32_t)) < 0 &&
	    errno != EBADF)
		ue_batch_fail(b, -errno);
	return len;
}

/*
 * Write the records of @b and empty it. A short count stops at the record
 * the kernel refused; written again, that record is the first, and the
 * call fails with its errno: it is dropped, and the rest go on.
 */
static void ue_batch_write(struct ue_batch *b)
{
	int fd = b->alone ? -1 : ue_batch_get_fd();
	size_t off = 0;
	ssize_t n;

	while (off < b->len) {
		if (fd < 0) {
			off += ue_batch_write_one(b, b->buf + off);
			continue;
		}
		n = write(fd, b->buf + off, b->len - off);
		if (n > 0) {
			off += n;
			continue;
		}
		ue_batch_fail(b, n < 0 ? -errno : -EIO);
		off += ue_batch_rec_len(b->buf + off);
	}
	b->len = 0;
	b->nr = 0;
}

int ue_batch_flush(struct ue_batch *b)
{
	int err;

	if (b->nr)
		ue_batch_write(b);
	err = b->err;
	b->err = 0;
	return err ? ue_fail(err) : 0;
}

/*
 * Room for a record of @len bytes (write index included) of registered
 * event @ev, flushing first when the buffer has none: where its payload
 * goes, the index put before it; NULL when it is larger than the buffer
 */
static unsigned char *ue_batch_room(struct ue_batch *b,
				    const struct ue_event *ev, size_t len)
{
	uint32_t size = len;
	unsigned char *p;

	/* the size and the record */
	if (len > b->size - sizeof(size))
		return NULL;
	if (sizeof(size) + len > b->size - b->len)
		ue_batch_write(b);
	p = b->buf + b->len;
	memcpy(p, &size, sizeof(size));
	memcpy(p + sizeof(size), &ev->write_index, UE_INDEX_SIZE);
	b->len += sizeof(size) + len;
	b->nr++;
	return p + sizeof(size) + UE_INDEX_SIZE;
}

/* Copy @n iovecs to @p */
static void ue_gather(unsigned char *p, const struct iovec *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy(p, v[i].iov_base, v[i].iov_len);
		p += v[i].iov_len;
	}
}

/* The sum of the lengths of @n iovecs */
static size_t ue_iov_len(const struct iovec *v, int n)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++)
		len += v[i].iov_len;
	return len;
}

/* A result of ue_write*() as an add returns it */
static int ue_batch_alone(ssize_t ret)
{
	return ret < 0 ? (int)ret : 0;
}

int ue_batch_add(struct ue_batch *b, struct ue_event *ev,
		 const struct iovec *iov, int n)
{
	unsigned char *p;
	int err;

	err = ue_write_prepare(ev, n);
	if (err)
		return err;
	p = ue_batch_room(b, ev, UE_INDEX_SIZE + ue_iov_len(iov, n));
	if (!p)
		return ue_batch_alone(ue_write(ev, iov, n));
	ue_gather(p, iov, n);
	return 0;
}

int ue_batch_add_record(struct ue_batch *b, struct ue_event *ev,
			const void *payload, size_t len)
{
	struct iovec v = { (void *)payload, len };

	return ue_batch_add(b, ev, &v, 1);
}

int ue_batch_add_writer(struct ue_batch *b, struct ue_writer *w)
{
	unsigned char *p;
	int err, n;

	if (w->general && w->err)
		return ue_fail(w->err);
	err = ue_event_register(w->ev);
	if (err)
		return err;
	if (!w->general) {
		p = ue_batch_room(b, w->ev, w->pos - w->scratch);
		if (!p)
			return ue_batch_alone(ue_write_record(w->ev, w->scratch,
							      w->pos - w->scratch));
		memcpy(p, w->scratch + UE_INDEX_SIZE,
		       w->pos - w->scratch - UE_INDEX_SIZE);
		return 0;
	}
	n = ue_write_finish(w);
	if (n < 0)
		return n;
	p = ue_batch_room(b, w->ev, ue_iov_len(w->iov, n));
	if (!p)
		return ue_batch_alone(ue_writev(w->ev, w->iov, n));
	/* the first entry starts with the write index, put there already */
	ue_gather(p - UE_INDEX_SIZE, w->iov, n);
	return 0;
}

/* Errors ------------------------------------------------------------------ */

static const struct {
	int err;
	const char *msg;
} ue_messages[] = {
	{ EACCES,
	  "Permission denied: ask an administrator for read and write access to user_events_data in tracefs (and to user_events_status for the status-page ABI), and for search access to the tracefs directory, 0700 by default"
	},
	{ EPERM,
	  "Operation not permitted: a persistent event (USER_EVENT_REG_PERSIST) needs CAP_PERFMON to be registered or deleted; the status page can only be mapped read-only"
	},
	{ ENOENT,
	  "No such event, or a write index this process never registered; or a tracefs file is missing: tracefs is not mounted, the kernel lacks CONFIG_USER_EVENTS, or (user_events_status) it has no status page: use the enable-bit ABI"
	},
	{ EADDRINUSE,
	  "An event of this name already exists with other fields: use the same fields, another name, or delete the old event first"
	},
	{ E2BIG,
	  "Too big: a description longer than 511 bytes, a payload larger than an attached consumer records (4056 bytes with ftrace's default one-page sub-buffers, 8180 with perf) or than 65527 bytes, or more fields than a ue_writer holds"
	},
	{ EINVAL,
	  "Invalid: a bad event name, flag or field (tracefs error_log shows which), a payload shorter than the event's fixed fields, or a kernel without this ABI (USER_EVENTS_ABI=status or bits chooses the other)"
	},
	{ EMFILE,
	  "Too many events: the status page's PAGE_SIZE - 1 slots or kernel.user_events_max are used up; delete unused events"
	},
	{ EBUSY,
	  "Event in use: an open user_events_data file or an enable bit (a running writer) holds it, or a consumer is attached"
	},
	{ EBADF,
	  "Nothing attached: the kernel refuses writes of an event registered through the enable-bit ABI while nobody listens (the library reports 0 for them), or user_events_data was closed"
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
