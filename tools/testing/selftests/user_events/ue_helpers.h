/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user_events kselftests: registering and deleting
 * events, reading what ftrace and perf recorded, the harness's timeouts
 * scaled; and through ue_util.h how long to wait and tracefs files.
 *
 * A program that cannot take the rest (a header test that defines its own
 * struct user_reg) defines UE_TIMING_ONLY before the include: it gets
 * ue_util.h and the harness's scaled timeouts alone.
 */
#ifndef UE_HELPERS_H
#define UE_HELPERS_H

#include "../kselftest.h"
/* the waits, tracefs files and perf's ring, shared with ue_bench */
#include "ue_util.h"

#ifdef __KSELFTEST_HARNESS_H
/*
 * Every registered test's timeout (TEST_F_TIMEOUT's, or the harness's 30 s)
 * at least UE_TEST_TIMEOUT_MIN, times the factor; before test_harness_run()
 */
static inline void ue_scale_test_timeouts(void)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout = ue_scale_s(t->timeout < UE_TEST_TIMEOUT_MIN ?
						UE_TEST_TIMEOUT_MIN : t->timeout);
}

/* test_harness_run(), with the timeouts scaled */
static inline int ue_harness_run(int argc, char **argv)
{
	ue_scale_test_timeouts();
	return test_harness_run(argc, argv);
}

/* TEST_HARNESS_MAIN, with the timeouts scaled */
#define UE_HARNESS_MAIN							\
	int main(int argc, char **argv)					\
	{								\
		exit(ue_harness_run(argc, argv));			\
	}
#endif

#ifndef UE_TIMING_ONLY

#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/user_events.h>

/* The largest payload of any write: a record (8-byte header) of 64 KiB - 1 */
#define UE_MAX_PAYLOAD (65535 - 8)
/* The largest payload perf records: PERF_MAX_TRACE_SIZE less its u32 size, the header */
#define UE_PERF_MAX_PAYLOAD (8192 - 4 - 8)

/* Register @desc on @fd; returns 0 or -errno */
static inline int uet_register(int fd, const char *desc,
			       struct user_status_reg *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->name_args = (unsigned long)desc;
	return ioctl(fd, DIAG_IOCSREG, reg) ? -errno : 0;
}

static inline int uet_delete(int fd, const char *name)
{
	return ioctl(fd, DIAG_IOCSDEL, name) ? -errno : 0;
}

/*
 * @n new fds in @fds, each registering @desc twice (one reference each);
 * 0 or -errno. The fds opened before a failure stay in @fds, the rest -1.
 */
static inline int uet_fds_holding(const char *desc, int *fds, int n)
{
	struct user_status_reg reg;
	int i, ret = 0;

	for (i = 0; i < n; i++)
		fds[i] = -1;
	for (i = 0; i < n && !ret; i++) {
		fds[i] = open(UE_DATA, O_RDWR);
		ret = fds[i] < 0 ? -errno : uet_register(fds[i], desc, &reg);
		if (!ret)
			ret = uet_register(fds[i], desc, &reg);
	}
	return ret;
}

/* Delete @name through an fd of its own (one that holds nothing); 0 or -errno */
static inline int uet_delete_named(const char *name)
{
	int fd = open(UE_DATA, O_RDWR), ret;

	if (fd < 0)
		return -errno;
	ret = uet_delete(fd, name);
	close(fd);
	return ret;
}

/* The tracepoint id of user event @name (for perf_event_open), or -1 */
static inline int uet_tracepoint_id(const char *name)
{
	char path[256], *text;
	int id;

	snprintf(path, sizeof(path), TRACEFS "events/user_events/%s/id", name);
	text = uet_read_file(path);
	id = text ? atoi(text) : -1;
	free(text);
	return id;
}

/* 1/0 into events/user_events/@name/enable of @instance ("" or "instances/x/") */
static inline int uet_enable(const char *instance, const char *name, int on)
{
	char path[512];

	snprintf(path, sizeof(path), TRACEFS "%sevents/user_events/%s/enable",
		 instance, name);
	return uet_write_file(path, on ? "1" : "0", O_TRUNC);
}

static inline int uet_clear_trace(void)
{
	return uet_write_file(TRACEFS "trace", "", O_TRUNC);
}

/* How many lines of trace contain @needle */
static inline int uet_trace_count(const char *needle)
{
	return uet_count_in(TRACEFS "trace", needle);
}

/* How many lines of the trace of @instance ("" or "instances/x/") contain @needle */
static inline int uet_instance_trace_count(const char *instance, const char *needle)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "%strace", instance);
	return uet_count_in(path, needle);
}

/* The line of events/user_events/@name/format about @what, or "" */
static inline void uet_format_line(const char *name, const char *what,
				   char *out, size_t size)
{
	char path[512], *fmt, *p, *end;

	snprintf(path, sizeof(path), TRACEFS "events/user_events/%s/format", name);
	fmt = uet_read_file(path);
	out[0] = '\0';
	p = fmt ? strstr(fmt, what) : NULL;
	if (p) {
		while (p > fmt && p[-1] != '\n')
			p--;
		end = strchr(p, '\n');
		snprintf(out, size, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	}
	free(fmt);
}

/*
 * The totals that end the text of user_events_status ("\nActive: N\nBusy:
 * N\nMax: N\n"); returns where they start (the event lines end there), or
 * NULL when @text has none
 */
static inline const char *uet_status_totals(const char *text, long *active,
					    long *busy, long *max)
{
	const char *p = text ? strstr(text, "\nActive: ") : NULL;

	if (!p || sscanf(p, "\nActive: %ld\nBusy: %ld\nMax: %ld", active, busy, max) != 3)
		return NULL;
	return p;
}

/*
 * The largest payload ftrace records in @instance ("" or "instances/x/"):
 * its sub-buffer (buffer_subbuf_size_kb) less the sub-buffer header (16),
 * the event header (8), an absolute time stamp when timestamp_mode is
 * absolute (8), room for a time stamp the ring buffer may add (8) and the
 * common header (8); -1 when the files cannot be read
 */
static inline long uet_ftrace_max_payload(const char *instance)
{
	char path[300], *kb, *mode;
	long max = -1;

	snprintf(path, sizeof(path), TRACEFS "%sbuffer_subbuf_size_kb", instance);
	kb = uet_read_file(path);
	snprintf(path, sizeof(path), TRACEFS "%stimestamp_mode", instance);
	mode = uet_read_file(path);
	if (kb && mode)
		max = atol(kb) * 1024 - 16 - 8 - (strstr(mode, "[absolute]") ? 8 : 0) - 8 - 8;
	free(kb);
	free(mode);
	return max;
}

/* How many events user_events_status says are active, or -1 */
static inline int uet_status_active(void)
{
	char *text = uet_read_file(UE_STATUS);
	long active = -1, busy, max;

	if (!uet_status_totals(text, &active, &busy, &max))
		active = -1;
	free(text);
	return active;
}

/* Perf, eBPF and the tracefs files they need -------------------------- */

/* What a test needs besides root, tracefs and user_events: UE_NEED_* */
#define UE_NEED_PERF	0x1	/* perf_event_open() on tracepoints */
#define UE_NEED_BPF	0x2	/* the bpf() system call */
#define UE_NEED_HIST	0x4	/* hist triggers */
#define UE_NEED_SYNTH	0x8	/* synthetic events */

/*
 * Why this process cannot run a test that needs @needs, or NULL when it can:
 * a kernel without an option the test uses makes a SKIP that names it, not
 * a failure. The sysctl files of perf and bpf exist only when the kernel
 * has the system call.
 */
static inline const char *uet_missing(int needs)
{
	char *readme;
	int hist;

	if (geteuid())
		return "must be run as root";
	if (access(TRACEFS "trace", F_OK))
		return "no tracefs at " TRACEFS;
	if (access(UE_DATA, F_OK))
		return "no " UE_DATA ": the kernel lacks CONFIG_USER_EVENTS";
	if ((needs & UE_NEED_PERF) && access("/proc/sys/kernel/perf_event_paranoid", F_OK))
		return "no perf_event_open(): the kernel lacks CONFIG_PERF_EVENTS";
	if ((needs & UE_NEED_BPF) && access("/proc/sys/kernel/unprivileged_bpf_disabled", F_OK))
		return "no bpf(): the kernel lacks CONFIG_BPF_SYSCALL";
	if ((needs & UE_NEED_SYNTH) && access(TRACEFS "synthetic_events", F_OK))
		return "no synthetic_events: the kernel lacks CONFIG_SYNTH_EVENTS";
	if (needs & UE_NEED_HIST) {
		/* the README documents hist triggers only when they are built in */
		readme = uet_read_file(TRACEFS "README");
		hist = readme && strstr(readme, "hist:keys");
		free(readme);
		if (!hist)
			return "no hist triggers: the kernel lacks CONFIG_HIST_TRIGGERS";
	}
	return NULL;
}

#ifdef __KSELFTEST_HARNESS_H
/*
 * In a TEST or FIXTURE_SETUP, first: `if (uet_skip(_metadata, needs)) return;`
 * marks the test SKIP, with the reason, when uet_missing() names one
 */
static inline bool uet_skip(struct __test_metadata *_metadata, int needs)
{
	const char *why = uet_missing(needs);

	if (why)
		SKIP(return true, "%s", why);
	return false;
}
#endif

/*
 * Keep only the capabilities of mask @caps (1ULL << CAP_*), effective and
 * permitted, in this process (a child a test forked); 0 or -errno
 */
static inline int uet_caps_only(__u64 caps)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (__u32)caps, .permitted = (__u32)caps },
		{ .effective = (__u32)(caps >> 32), .permitted = (__u32)(caps >> 32) },
	};

	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/* The status page, mapped read-only, or NULL */
static inline const unsigned char *uet_map_status(void)
{
	int fd = open(UE_STATUS, O_RDONLY);
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* Helpers of the enable-bit ABI ------------------------------------------- */

/*
 * Register @desc on @fd through the enable-bit ABI: the kernel keeps bit
 * @bit of the @size-byte word at @addr set while the event has a consumer.
 * @flags: USER_EVENT_REG_*. Returns 0 (the write index in *@write_index
 * unless NULL) or -errno.
 */
static inline int uet_register_bits(int fd, const char *desc, void *addr, int size,
				    int bit, int flags, __u32 *write_index)
{
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = bit,
		.enable_size = size,
		.flags = flags,
		.enable_addr = (unsigned long)addr,
		.name_args = (unsigned long)desc,
	};

	if (ioctl(fd, DIAG_IOCSREG, &reg))
		return -errno;
	if (write_index)
		*write_index = reg.write_index;
	return 0;
}

/* Drop this process's enabler at (@addr, @bit); 0 or -errno */
static inline int uet_unregister_bits(int fd, void *addr, int bit)
{
	struct user_unreg unreg = {
		.size = sizeof(unreg),
		.disable_bit = bit,
		.disable_addr = (unsigned long)addr,
	};

	return ioctl(fd, DIAG_IOCSUNREG, &unreg) ? -errno : 0;
}

/*
 * The first failure among a test's threads and processes, in memory they
 * share: *@failed set and its message in @why (@size bytes); later ones
 * change nothing. Returns whether it was the first.
 */
static inline bool ue_fail_once(int *failed, char *why, size_t size, const char *fmt,
				va_list ap)
{
	if (__atomic_exchange_n(failed, 1, __ATOMIC_SEQ_CST))
		return false;
	vsnprintf(why, size, fmt, ap);
	return true;
}

/* A busy loop of @n steps, for a head start in a race */
static inline void ue_spin(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * Steps of ue_spin() that take about as long as a registration of @desc on
 * @fd through the enable-bit ABI (bit @bit of the @size-byte word at @word)
 * and its unregistration, so that head starts drawn below it cover both
 * calls; each measured for 50 ms at least, as the guest's clock may tick
 * coarsely. 0 (errno set) when a call fails.
 */
static inline unsigned int uet_spins_per_reg(int fd, const char *desc, void *word, int size,
					     int bit)
{
	unsigned long long spins = 0, pairs = 0, pairs_us, spin_us;
	long long t = ue_now_us();

	do {
		if (uet_register_bits(fd, desc, word, size, bit, 0, NULL) ||
		    uet_unregister_bits(fd, word, bit))
			return 0;
		pairs++;
	} while ((pairs_us = ue_now_us() - t) < 50000);
	t = ue_now_us();
	do {
		ue_spin(10000);
		spins += 10000;
	} while ((spin_us = ue_now_us() - t) < 50000);
	return spins * pairs_us / pairs / spin_us + 1;
}

/* Retired events: deleted, their records still in a buffer ------------ */

/* The type id of events/@system/@name (its id file), or -1 */
static inline int uet_event_id(const char *system, const char *name)
{
	char path[512], *text;
	int id;

	snprintf(path, sizeof(path), TRACEFS "events/%s/%s/id", system, name);
	text = uet_read_file(path);
	id = text ? atoi(text) : -1;
	free(text);
	return id;
}

/*
 * The directory of the format of event @name of @system, type @id, once
 * deleted while a buffer held its records: events/@system_retired/@name_@id
 * (of @instance: "" or "instances/x/"), in @buf
 */
static inline const char *uet_retired_dir(const char *instance, const char *system,
					  const char *name, int id, char *buf,
					  size_t size)
{
	snprintf(buf, size, TRACEFS "%sevents/%s_retired/%s_%d", instance, system,
		 name, id);
	return buf;
}

/*
 * Have the kernel remove now the retired events that no buffer holds
 * records of any more: it does before it refuses to create an event for
 * want of room, which kernel.user_events_max at 0 makes certain for one
 * registration. 0 when that registration was refused, else -errno.
 */
static inline int uet_reclaim_retired(void)
{
	const char *max_path = "/proc/sys/kernel/user_events_max";
	char *saved = uet_read_file(max_path);
	struct user_status_reg reg;
	int fd = open(UE_DATA, O_RDWR), ret = -EIO;

	if (saved && fd >= 0 && !uet_write_file(max_path, "0", O_TRUNC)) {
		/* a name nobody registers: a new event, refused */
		ret = uet_register(fd, "uet_reclaim_probe u32 x", &reg);
		ret = ret == -EMFILE ? 0 : ret ? ret : -EEXIST;
		if (uet_write_file(max_path, saved, O_TRUNC))
			ret = -EIO;
	}
	if (fd >= 0)
		close(fd);
	free(saved);
	return ret;
}

/* Wait until @path does not exist, ue_scale_ms(@seconds s) at most */
static inline bool uet_wait_absent(const char *path, int seconds)
{
	return ue_wait_for(seconds * 1000L, access(path, F_OK) && errno == ENOENT,
			   "%s to be gone", path);
}

#endif /* UE_TIMING_ONLY */
#endif /* UE_HELPERS_H */
