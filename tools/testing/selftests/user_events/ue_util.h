/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the user_events kselftests and ue_bench share: how long to wait,
 * tracefs files, and perf's ring buffer. It needs nothing of the kselftest
 * framework nor of <linux/user_events.h>: ue_helpers.h, which the tests
 * include, builds on it; the bench (tools/user_events/bench) and the
 * conformance run's alarm() (scripts/conformance-scaled-alarm.c) include it
 * alone.
 */
#ifndef UE_UTIL_H
#define UE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* kselftest.h's __printf(), where it comes first (the bench has none) */
#ifdef __printf
#define UE_PRINTF_2_3 __printf(2, 3)
#else
#define UE_PRINTF_2_3
#endif

/* How long to wait --------------------------------------------------------
 *
 * No outcome depends on the machine's speed: a test waits for a condition,
 * and the bound that makes a hang fail is generous and scaled by one factor,
 * USER_EVENTS_TIMEOUT_SCALE (a positive decimal, default 1: 3 on a machine
 * three times slower, 0.001 to make waits expire on purpose). A wait that
 * runs out says what it waited for ("# wait expired after N ms (factor F):
 * WHAT") and returns false, so that the ASSERT or EXPECT around it fails
 * under the test's own name. The same factor scales the kselftest harness's timeout of
 * each test (UE_HARNESS_MAIN) and the shell tests' waits (ktap.sh).
 */

/* The bound of a wait for something that comes (a kernel worker's update) */
#define UE_WAIT_MS	60000
/*
 * The least timeout of a harness test: a wait expires inside it, and a
 * machine several times slower than ours still finishes the test in it
 */
#define UE_TEST_TIMEOUT_MIN	(5 * UE_WAIT_MS / 1000)

/* The factor: USER_EVENTS_TIMEOUT_SCALE, 1 when unset or not a positive number */
static inline double ue_timeout_scale(void)
{
	static double scale;
	const char *env;
	char *end;
	double v;

	if (scale > 0)
		return scale;
	env = getenv("USER_EVENTS_TIMEOUT_SCALE");
	v = 1;
	if (env && *env) {
		v = strtod(env, &end);
		if (*end || !(v > 0) || v > 1e6) {
			fprintf(stderr,
				"# USER_EVENTS_TIMEOUT_SCALE='%s' is not a positive number: 1 used\n",
				env);
			v = 1;
		}
	}
	scale = v;
	return scale;
}

/* @base_ms milliseconds times the factor, at least 1 */
static inline long ue_scale_ms(long base_ms)
{
	double ms = base_ms * ue_timeout_scale() + 0.5;

	return ms < 1 ? 1 : (long)ms;
}

/* @base_s seconds times the factor, rounded up, at least 1 (for alarm()) */
static inline int ue_scale_s(int base_s)
{
	double s = base_s * ue_timeout_scale();
	int whole = (int)s;

	return whole < s ? whole + 1 : whole < 1 ? 1 : whole;
}

/*
 * A window in which something must not happen (a late write, a deletion):
 * @base_ms times the factor. It waits for nothing; a test passes the same
 * whatever the machine's speed, a longer window only sees more.
 */
static inline void ue_sleep_ms(long base_ms)
{
	usleep(ue_scale_ms(base_ms) * 1000);
}

static inline long long ue_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static inline long long ue_now_ms(void)
{
	return ue_now_us() / 1000;
}

/* One wait: ue_wait_start(), then ue_wait_over() or ue_wait_next() per try */
struct ue_wait {
	long long start_us, end_us;
	unsigned int pause_us;	/* the next pause of ue_wait_next() */
};

/* Start a wait of at most @base_ms times the factor */
static inline void ue_wait_start(struct ue_wait *w, long base_ms)
{
	w->start_us = ue_now_us();
	w->end_us = w->start_us + ue_scale_ms(base_ms) * 1000LL;
	w->pause_us = 50;
}

/* Whether its time is up (for a loop that paces itself) */
static inline bool ue_wait_over(const struct ue_wait *w)
{
	return ue_now_us() >= w->end_us;
}

/* false when its time is up, else true after a pause: 50 us, doubling to 10 ms */
static inline bool ue_wait_next(struct ue_wait *w)
{
	if (ue_wait_over(w))
		return false;
	usleep(w->pause_us);
	if (w->pause_us < 10000)
		w->pause_us *= 2;
	return true;
}

/* "# wait expired after N ms (factor F): WHAT" on stderr, where TH_LOG writes */
static inline void UE_PRINTF_2_3
ue_wait_expired(const struct ue_wait *w, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "# wait expired after %lld ms (factor %g): ",
		(ue_now_us() - w->start_us) / 1000, ue_timeout_scale());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/*
 * ue_wait_for(BASE_MS, COND, FMT, ...): COND, tried again after a short pause
 * until it is true or BASE_MS times the factor went by; true when it came,
 * else false after ue_wait_expired(FMT, ...) said what was waited for (FMT's
 * arguments are evaluated then: they may show the last value read).
 */
#define ue_wait_for(base_ms, cond, ...) ({				\
	struct ue_wait __uw;						\
	bool __ok;							\
									\
	ue_wait_start(&__uw, (base_ms));				\
	while (!(__ok = !!(cond)) && ue_wait_next(&__uw))		\
		;							\
	if (!__ok)							\
		ue_wait_expired(&__uw, __VA_ARGS__);			\
	__ok;								\
})

/* The number in environment variable @name (strtoul()'s bases), @def when unset */
static inline unsigned long ue_env_number(const char *name, unsigned long def)
{
	const char *env = getenv(name);

	return env ? strtoul(env, NULL, 0) : def;
}

/* tracefs ------------------------------------------------------------------ */

#define TRACEFS "/sys/kernel/tracing/"
#define UE_STATUS TRACEFS "user_events_status"
#define UE_DATA TRACEFS "user_events_data"
#define UE_DYN TRACEFS "dynamic_events"

/* Write @text to a tracefs file in one write(); returns 0 or -errno */
static inline int uet_write_file(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * What @fd (opened by the caller, closed here) reads until its end, or until
 * it would block (O_NONBLOCK: trace_pipe), as a malloc()ed string; NULL on
 * an error
 */
static inline char *uet_read_fd(int fd)
{
	size_t len = 0, size = 4096;
	char *buf = malloc(size);
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, size - len - 1)) > 0) {
		len += n;
		if (len + 1 == size) {
			char *bigger = realloc(buf, 2 * size);

			if (!bigger) {
				n = -1;
				break;
			}
			buf = bigger;
			size *= 2;
		}
	}
	if (n < 0 && errno == EAGAIN)
		n = 0;
	close(fd);
	/* a read error or no memory: no partial file that looks whole */
	if (n < 0) {
		free(buf);
		buf = NULL;
	} else {
		buf[len] = '\0';
	}
	return buf;
}

/* The whole file as a malloc()ed string, NULL on error */
static inline char *uet_read_file(const char *path)
{
	return uet_read_fd(open(path, O_RDONLY));
}

/* How many times @needle occurs in file @path (lines of a trace: once a line) */
static inline int uet_count_in(const char *path, const char *needle)
{
	char *text = uet_read_file(path), *p;
	int n = 0;

	for (p = text; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	free(text);
	return n;
}

/* 1/0 into events/@system/@name/enable (a group's system too); 0 or -errno */
static inline int uet_enable_in(const char *system, const char *name, int on)
{
	char path[512];

	snprintf(path, sizeof(path), TRACEFS "events/%s/%s/enable", system, name);
	return uet_write_file(path, on ? "1" : "0", O_TRUNC);
}

/* Whether events/@system/@name exists (system "user_events", ...) */
static inline int uet_event_exists(const char *system, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), TRACEFS "events/%s/%s", system, name);
	return !access(path, F_OK);
}

/* A command into dynamic_events ("u:NAME FIELDS", "-:NAME"); 0 or -errno */
static inline int uet_dyn_cmd(const char *cmd)
{
	return uet_write_file(UE_DYN, cmd, O_APPEND);
}

/*
 * Whether events/@system/@name is gone, or goes within ue_scale_ms(@base_ms)
 * (0: look once); quietly, for an event that may go or stay
 */
static inline bool uet_gone_within(const char *system, const char *name, long base_ms)
{
	struct ue_wait wait;

	ue_wait_start(&wait, base_ms);
	do {
		if (!uet_event_exists(system, name))
			return true;
	} while (base_ms && ue_wait_next(&wait));
	return false;
}

/*
 * Wait until events/@system/@name is gone, ue_scale_ms(@base_ms) at most:
 * true when it is, else false after saying what was waited for
 */
static inline bool uet_wait_gone(const char *system, const char *name, long base_ms)
{
	return ue_wait_for(base_ms, !uet_event_exists(system, name),
			   "events/%s/%s to be gone", system, name);
}

/* perf --------------------------------------------------------------------- */

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>

/*
 * A perf event on tracepoint @id for task @pid (0: the caller, -1: all) on
 * @cpu (-1: all), sampling every write with PERF_SAMPLE_RAW when @raw (the
 * count read() returns is followed by the lost samples); an fd or -1
 */
static inline int uet_perf_open(int id, int pid, int cpu, int raw)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pe),
		.config = id,
		.sample_period = 1,
		.sample_type = raw ? PERF_SAMPLE_RAW : 0,
		.read_format = PERF_FORMAT_LOST,
		.wakeup_events = 1,
	};

	return syscall(__NR_perf_event_open, &pe, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* A perf event's ring buffer, mapped: the meta page, then the data pages */
struct uet_ring {
	int fd;
	size_t size;			/* bytes of data pages */
	struct perf_event_mmap_page *meta;
	unsigned char *data;
};

/* Map @pages data pages (a power of 2) of perf event @fd; 0 or -errno */
static inline int uet_ring_map(struct uet_ring *r, int fd, int pages)
{
	long page = sysconf(_SC_PAGESIZE);

	r->fd = fd;
	r->size = (size_t)pages * page;
	r->meta = mmap(NULL, r->size + page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->meta == MAP_FAILED) {
		r->meta = NULL;
		return -errno;
	}
	r->data = (unsigned char *)r->meta + page;
	return 0;
}

static inline void uet_ring_unmap(struct uet_ring *r)
{
	if (r->meta)
		munmap(r->meta, r->size + sysconf(_SC_PAGESIZE));
	r->meta = NULL;
}

/* Where the kernel's records end; they start at r->meta->data_tail */
static inline __u64 uet_ring_head(const struct uet_ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

/*
 * The record at *@pos (below uet_ring_head()) copied into @buf, whole or
 * its first @size bytes (at least its header), as if the ring did not wrap;
 * *@pos moves past it. Returns its header, at @buf.
 */
static inline struct perf_event_header *
uet_ring_copy(const struct uet_ring *r, __u64 *pos, void *buf, size_t size)
{
	struct perf_event_header *h = buf;
	unsigned char *out = buf;
	size_t i, n;

	for (i = 0; i < sizeof(*h); i++)
		out[i] = r->data[(*pos + i) % r->size];
	n = h->size < size ? h->size : size;
	for (; i < n; i++)
		out[i] = r->data[(*pos + i) % r->size];
	*pos += h->size > sizeof(*h) ? h->size : sizeof(*h);
	return h;
}

/* The records before @pos are read: the kernel may write over them */
static inline void uet_ring_done(struct uet_ring *r, __u64 pos)
{
	__atomic_store_n(&r->meta->data_tail, pos, __ATOMIC_RELEASE);
}

#endif /* UE_UTIL_H */
