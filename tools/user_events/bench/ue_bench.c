// SPDX-License-Identifier: GPL-2.0
/*
 * ue_bench: what a user event costs, in guest instructions per operation.
 *
 * Run as root in a guest under QEMU's -icount shift=0 (make bench): guest
 * time then advances one nanosecond per guest instruction, so deltas of
 * the guest's TSC are instruction counts, exactly repeatable.
 *
 * Every figure is the median of ROUNDS rounds of OPS (-n, default 10000)
 * operations; within a
 * round the cases alternate. Every case with a consumer is checked to have
 * really recorded each operation (ftrace entries + overruns, perf samples
 * with no loss, the BPF program's count). The running kernel's user_events
 * ABI is detected: ours (status page) or the upstream one it replaces
 * ("peer": enable bits in the writer's memory), and the same cases run on
 * both where they exist.
 *
 * The cases named *_bits register their events through the enable-bit ABI
 * (the 28-byte struct user_reg of Linux 6.4+, as in our header too,
 * flags 0: the event goes with its last fd and enabler) on both kernels,
 * through the same code: ours speaks that ABI beside the status page, the
 * peer speaks only it. They compare the two kernels on the same ABI with
 * the same client: the bit test, writes with nothing attached (EBADF on
 * both: what a client racing a detach pays), into ftrace, perf and BPF, and
 * the registration of the 1st to the 4095th event.
 *
 * lib_write_bits is what a user of libuserevents pays for an event of two
 * fields, 64 bytes (UE_DEFINE_EVENT(), ue_enabled(), ue_write_begin(), two
 * ue_add_*(), ue_write_end(): the library's default ABI, enable bits),
 * against write_bits, the raw write() of the same bytes.
 *
 * Output: "csv:kernel,case,consumer,payload_bytes,events_registered,
 * instructions_per_op" lines, "# " comments, and exit status 0 only when
 * every case of this kernel worked.
 *
 * exit and exit_bits: the exit of a process of 100 and 1000 threads,
 * without and with one enable-bit event registered (see exit_cost()), in
 * instructions per exit; ue_bench -x runs only them.
 *
 * ue_bench -p is the guest side of scripts/bench-profile: one round of 100
 * writes per case and payload, checked as above, the last of each after a
 * getpgid() whose argument marks it for the host's gdb (see PROFILE_MARK).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

/* tracefs files, waits and perf's ring, shared with the kselftests; eBPF */
#include "../../testing/selftests/user_events/ue_util.h"
#include "../../testing/selftests/user_events/ue_bpf.h"
/* libuserevents, as its users call it (the lib_write_bits case) */
#include "user_events.h"

#define ROUNDS 5
#define MAX_PAYLOAD 4000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#include "ue_bench_common.h"

static const int payloads[] = { 8, 64, 256, 1024, 4000 };
#define NR_SIZES ARRAY_SIZE(payloads)

static int peer;		/* the upstream ABI is running */
static int nr_events;		/* registered right now, by us */
static int CHECK_OPS = 1000000;
/*
 * -p (scripts/bench-profile): one round of 100 operations per case, the
 * last one after getpgid(PROFILE_MARK | case << 8 | size index), where the
 * host's gdb starts counting instructions per kernel function
 */
static int profile;
#define PROFILE_MARK 0x77770000
/* -x: only the exit of a process of many threads (exit_cost()) */
static int exit_only;

static void die(const char *what)
{
	printf("error: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The number a tracefs file holds, -1 when it cannot be read */
static long read_number(const char *path)
{
	char *text = uet_read_file(path);
	long n = text ? atol(text) : -1;

	free(text);
	return n;
}

static void ftrace_reset(void)
{
	if (uet_write_file(TRACEFS "trace", "", O_TRUNC))
		die("clear trace");
}

/* A user event of @size payload bytes, and how to write it */
struct event {
	char name[64];
	int fd;				/* user_events_data */
	uint32_t write_index;
	volatile const uint8_t *status;	/* status page ABI: its byte */
	volatile uint32_t *word;	/* enable-bit ABI: its word (bit ENABLE_BIT) */
	int size;
};

/* The bit of its word an enable-bit registration names */
#define ENABLE_BIT 0

static volatile const uint8_t *status_page;
/* the words of the peer's main events, of the *_bits events, of scaling */
static volatile uint32_t peer_words[8192], bits_words[NR_SIZES];
static volatile uint32_t scale_words[4096];
static int nr_peer_words;

/* "name char[N] d0;..." with N <= 1000 per field, @size bytes in all */
static void describe(char *desc, size_t len, const char *name, int size)
{
	int off = snprintf(desc, len, "%s", name), i;

	for (i = 0; size > 0; i++, size -= 1000)
		off += snprintf(desc + off, len - off, "%s char[%d] d%d",
				i ? ";" : "", size > 1000 ? 1000 : size, i);
}

static void ev_init(struct event *ev, int fd, const char *name, int size,
		    char *desc, size_t len)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->fd = fd;
	ev->size = size;
	describe(desc, len, name, size);
}

/*
 * Through the enable-bit ABI, the one code path on both kernels: the
 * kernel keeps ENABLE_BIT of *@word set while anyone listens
 */
static int ev_register_bits(struct event *ev, int fd, const char *name, int size,
			    volatile uint32_t *word, int flags)
{
	char desc[256];
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = ENABLE_BIT,
		.enable_size = sizeof(*word),
		.flags = flags,
		.enable_addr = (unsigned long)word,
		.name_args = (unsigned long)desc,
	};

	ev_init(ev, fd, name, size, desc, sizeof(desc));
	if (ioctl(fd, DIAG_IOCSREG, &reg))
		return -errno;
	ev->write_index = reg.write_index;
	ev->word = word;
	nr_events++;
	return 0;
}

/* Drop the enabler of @ev: with its fds closed, the event goes too */
static int ev_unregister_bits(struct event *ev)
{
	struct user_unreg unreg = {
		.size = sizeof(unreg),
		.disable_bit = ENABLE_BIT,
		.disable_addr = (unsigned long)ev->word,
	};

	if (ioctl(ev->fd, DIAG_IOCSUNREG, &unreg))
		return -errno;
	nr_events--;
	return 0;
}

/*
 * The main events of this kernel's own ABI: the status page on ours; on
 * the peer enable bits, persistent (deleted only on request), as before
 */
static int ev_register(struct event *ev, int fd, const char *name, int size)
{
	struct user_status_reg reg = { .size = sizeof(reg) };
	char desc[256];

	if (peer)
		return ev_register_bits(ev, fd, name, size,
					&peer_words[nr_peer_words++],
					USER_EVENT_REG_PERSIST);
	ev_init(ev, fd, name, size, desc, sizeof(desc));
	reg.name_args = (unsigned long)desc;
	if (ioctl(fd, DIAG_IOCSREG, &reg))
		return -errno;
	ev->write_index = reg.write_index;
	ev->status = status_page + reg.status_index;
	nr_events++;
	return 0;
}

static int ev_enabled(const struct event *ev)
{
	return ev->word ? !!(*ev->word & (1 << ENABLE_BIT)) : !!*ev->status;
}

/*
 * An enable-bit event (flags 0) whose fd and enabler went: gone within 10 s,
 * 0, or -1. Ours keeps one that recorded into an ftrace buffer (deleting it
 * would clear the buffers, the kernel's records too): deleted here by
 * request, as a tool done with its trace would.
 */
static int bits_event_gone(const char *name)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), TRACEFS "events/user_events/%s", name);
	if (!peer && !access(path, F_OK)) {
		fd = open(TRACEFS "user_events_data", O_RDWR);
		if (fd < 0 || ioctl(fd, DIAG_IOCSDEL, name))
			fail("delete %s: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	/* the peer deletes it from a worker */
	return uet_wait_gone("user_events", name, 10000) ? 0 : -1;
}

/* perf: a per-task event on the tracepoint with a ring for @ops samples */
static int tracepoint_id(const char *system, const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), TRACEFS "events/%s/%s/id", system, name);
	return read_number(path);
}

/*
 * A perf event of this process, on any CPU, sampling every record of
 * user_events:@name raw, woken up after @wakeup of them; its fd or -errno
 */
static int tracepoint_open(const char *name, unsigned int wakeup)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pe),
		.config = tracepoint_id("user_events", name),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = wakeup,
	};
	int fd = syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);

	return fd < 0 ? -errno : fd;
}

static int perf_attach(struct uet_ring *r, const char *name, int size)
{
	size_t need = (size_t)OPS * (size + 64);
	int pages = 1, fd, err;

	while ((size_t)pages * 4096 < need)
		pages *= 2;
	fd = tracepoint_open(name, OPS * 2);
	if (fd < 0)
		return fd;
	err = uet_ring_map(r, fd, pages);
	if (err)
		close(fd);
	return err;
}

/* Samples in the ring, and lost ones; then close it */
static void perf_detach(struct uet_ring *r, long *samples, long *lost)
{
	__u64 head = uet_ring_head(r), tail = r->meta->data_tail;
	uint64_t rec[4];	/* the header, then a lost record's id and count */

	*samples = *lost = 0;
	while (tail < head) {
		struct perf_event_header *h = uet_ring_copy(r, &tail, rec, sizeof(rec));

		if (h->type == PERF_RECORD_SAMPLE)
			(*samples)++;
		else if (h->type == PERF_RECORD_LOST)
			*lost += rec[2];
	}
	uet_ring_unmap(r);
	close(r->fd);
}

/* BPF: count runs in an array map; return 0, so no perf sample is made */
static int bpf_map, bpf_prog;

static int bpf_setup(void)
{
	struct bpf_insn prog[] = {
		/* *(u32 *)(fp - 4) = 0, r1 = map, r2 = fp - 4, lookup */
		ST_IMM(BPF_W, 10, -4, 0), LD_MAP(1, 0), LD_IMM_HI(),
		MOV_REG(2, 10), ADD_IMM(2, -4), CALL(BPF_FUNC_map_lookup_elem),
		/* if (r0) *(u64 *)r0 += 1 */
		JEQ_IMM(0, 0, 2),
		MOV_IMM(1, 1),
		LOCK_ADD(0, 1, 0),
		MOV_IMM(0, 0),
		EXIT(),
	};

	bpf_map = uet_bpf_map(8, 1);
	if (bpf_map < 0)
		return -errno;
	prog[1].imm = bpf_map;
	bpf_prog = uet_bpf_load(prog, ARRAY_SIZE(prog));
	return bpf_prog < 0 ? -errno : 0;
}

static long bpf_count(void)
{
	uint64_t value = 0;

	return uet_bpf_map_read(bpf_map, 0, &value) ? -1 : (long)value;
}

static int bpf_attach(const char *name)
{
	uint64_t zero = 0;
	int fd;

	uet_bpf_map_write(bpf_map, 0, &zero);
	fd = tracepoint_open(name, 0);
	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, bpf_prog) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* How a case writes, and what listens */
enum {
	W_WRITEV, W_WRITE, W_MARKER, W_MARKER_RAW, W_WRITE_NULL, W_WRITEV_NULL,
	W_LIB, W_BATCH
};
/* A_TENANT: the group's own trace buffer; A_BOTH: it and the host's ftrace */
enum { A_NONE, A_FTRACE, A_PERF, A_BPF, A_TENANT, A_BOTH };

/*
 * The figures: rounds of one case, by an index (the index is also in the
 * profile's marks: new cases go at the end). The *_bits cases write the
 * events registered through the enable-bit ABI, on both kernels.
 */
enum {
	C_WRITEV, C_FTRACE, C_PERF, C_BPF, C_WRITE_FTRACE, C_MARKER,
	C_MARKER_RAW, C_WRITE_NULL, C_WRITEV_NULL, C_WRITEV_BITS,
	C_FTRACE_BITS, C_PERF_BITS, C_BPF_BITS, C_WRITE_BITS,
	C_WRITE_FTRACE_BITS, C_LIB_FTRACE_BITS, C_FTRACE_GROUP, C_WRITEV_GROUP,
	C_BATCH1_FTRACE, C_BATCH4_FTRACE, C_BATCH16_FTRACE, C_BATCH64_FTRACE,
	C_BATCH1_PERF, C_BATCH4_PERF, C_BATCH16_PERF, C_BATCH64_PERF,
	C_TENANT_GROUP, C_BOTH_GROUP,
	NR_CASES
};

/*
 * @only: the one payload size the case runs at (0: every size); @group:
 * the event of a tenant group (ours only), bench_64 of group "bench";
 * @batch: records per write() of a batch (ours only; the figure is per
 * record, per event)
 */
static const struct {
	const char *name, *consumer;
	int how, attach, bits, only, group, batch;
} bench_cases[NR_CASES] = {
	[C_WRITEV] = { "writev", "none", W_WRITEV, A_NONE },
	[C_FTRACE] = { "writev", "ftrace", W_WRITEV, A_FTRACE },
	[C_PERF] = { "writev", "perf", W_WRITEV, A_PERF },
	[C_BPF] = { "writev", "bpf", W_WRITEV, A_BPF },
	[C_WRITE_FTRACE] = { "write", "ftrace", W_WRITE, A_FTRACE },
	[C_MARKER] = { "trace_marker", "ftrace", W_MARKER, A_NONE },
	[C_MARKER_RAW] = { "trace_marker_raw", "ftrace", W_MARKER_RAW, A_NONE },
	[C_WRITE_NULL] = { "write_devnull", "none", W_WRITE_NULL, A_NONE },
	[C_WRITEV_NULL] = { "writev_devnull", "none", W_WRITEV_NULL, A_NONE },
	[C_WRITEV_BITS] = { "writev_bits", "none", W_WRITEV, A_NONE, 1 },
	[C_FTRACE_BITS] = { "writev_bits", "ftrace", W_WRITEV, A_FTRACE, 1 },
	[C_PERF_BITS] = { "writev_bits", "perf", W_WRITEV, A_PERF, 1 },
	[C_BPF_BITS] = { "writev_bits", "bpf", W_WRITEV, A_BPF, 1 },
	[C_WRITE_BITS] = { "write_bits", "none", W_WRITE, A_NONE, 1 },
	[C_WRITE_FTRACE_BITS] = { "write_bits", "ftrace", W_WRITE, A_FTRACE, 1 },
	[C_LIB_FTRACE_BITS] = { "lib_write_bits", "ftrace", W_LIB, A_FTRACE, 1, 64 },
	[C_FTRACE_GROUP] = { "writev_group", "ftrace", W_WRITEV, A_FTRACE, 0, 64, 1 },
	[C_WRITEV_GROUP] = { "writev_group", "none", W_WRITEV, A_NONE, 0, 64, 1 },
	[C_BATCH1_FTRACE] = { "batch1", "ftrace", W_BATCH, A_FTRACE, 0, 64, 0, 1 },
	[C_BATCH4_FTRACE] = { "batch4", "ftrace", W_BATCH, A_FTRACE, 0, 64, 0, 4 },
	[C_BATCH16_FTRACE] = { "batch16", "ftrace", W_BATCH, A_FTRACE, 0, 64, 0, 16 },
	[C_BATCH64_FTRACE] = { "batch64", "ftrace", W_BATCH, A_FTRACE, 0, 64, 0, 64 },
	[C_BATCH1_PERF] = { "batch1", "perf", W_BATCH, A_PERF, 0, 64, 0, 1 },
	[C_BATCH4_PERF] = { "batch4", "perf", W_BATCH, A_PERF, 0, 64, 0, 4 },
	[C_BATCH16_PERF] = { "batch16", "perf", W_BATCH, A_PERF, 0, 64, 0, 16 },
	[C_BATCH64_PERF] = { "batch64", "perf", W_BATCH, A_PERF, 0, 64, 0, 64 },
	[C_TENANT_GROUP] = { "writev_group", "tenant", W_WRITEV, A_TENANT, 0, 64, 1 },
	[C_BOTH_GROUP] = { "writev_group", "both", W_WRITEV, A_BOTH, 0, 64, 1 },
};

/*
 * A batch of @n records of @ev's payload (the bytes after the index in
 * payload[]) in batch_buf: [size][index][payload] each; its length
 */
static uint8_t batch_buf[64 * (8 + MAX_PAYLOAD)];

/*
 * The batch fd (DIAG_IOCSBATCH) of the main events' fd, made once before
 * the cases (ours only): a batch case times its writes, not the ioctl
 */
static int batch_fd = -1;

static size_t batch_fill(const struct event *ev, const uint8_t *pl, int n)
{
	uint32_t size = 4 + ev->size;
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++) {
		memcpy(batch_buf + len, &size, 4);
		memcpy(batch_buf + len + 4, &ev->write_index, 4);
		memcpy(batch_buf + len + 8, pl, ev->size);
		len += 8 + ev->size;
	}
	return len;
}

static double figures[NR_CASES][NR_SIZES][ROUNDS];
static int case_broken[NR_CASES][NR_SIZES];

/* the main events (this kernel's own ABI) and the enable-bit ones */
static struct event events[NR_SIZES], bits_events[NR_SIZES];
static uint8_t payload[4 + MAX_PAYLOAD];
static int marker_fd, marker_raw_fd, null_fd;

/* A write into a user event (not trace_marker, not /dev/null) */
static int writes_event(int c)
{
	int how = bench_cases[c].how;

	return how == W_WRITEV || how == W_WRITE || how == W_LIB || how == W_BATCH;
}

/*
 * The library's event: "u64 id; char[56] msg", 64 bytes like bench_bits_64.
 * lib_ev describes it for the cases' code (name, size, its enable byte).
 */
UE_DEFINE_EVENT(lib_event, "bench_lib", "u64 id; char[56] msg");
static struct event lib_ev = { .name = "bench_lib", .size = 64 };

/* A tenant group's event and its status page: ours only */
#define GROUP_DIR TRACEFS "user_groups/bench/"
static struct event group_ev;
static volatile const uint8_t *group_status;
static int have_group;

static struct event *case_event(int c, int s)
{
	if (bench_cases[c].group)
		return &group_ev;
	if (bench_cases[c].how == W_LIB)
		return &lib_ev;
	return bench_cases[c].bits ? &bits_events[s] : &events[s];
}

/*
 * Ours: group "bench", with an event bench_64 of its own (the default
 * group's bench_64 is another event), registered through the group's files,
 * and a trace buffer of its own the size of the host's by default (1408 KiB
 * a CPU), which only the tenant cases enable
 */
static int group_setup(void)
{
	struct user_status_reg reg = { .size = sizeof(reg) };
	char desc[256];
	int fd, sfd;

	uet_write_file(TRACEFS "user_events_groups", "!bench", O_APPEND);
	if (uet_write_file(TRACEFS "user_events_groups", "bench buffer_kb=1408", O_APPEND))
		return -1;
	sfd = open(GROUP_DIR "user_events_status", O_RDONLY);
	if (sfd < 0)
		return -1;
	group_status = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, sfd, 0);
	close(sfd);
	fd = open(GROUP_DIR "user_events_data", O_RDWR);
	if (group_status == MAP_FAILED || fd < 0)
		return -1;
	ev_init(&group_ev, fd, "bench_64", 64, desc, sizeof(desc));
	reg.name_args = (unsigned long)desc;
	if (ioctl(fd, DIAG_IOCSREG, &reg))
		return -1;
	group_ev.write_index = reg.write_index;
	group_ev.status = group_status + reg.status_index;
	return 0;
}

/* The group's own buffer: clear it, its records since, an event's enable */
static void tenant_reset(void)
{
	if (uet_write_file(GROUP_DIR "trace", "", O_TRUNC))
		die("clear the group's trace");
}

static long tenant_recorded(void)
{
	long total = 0;
	char path[128], *stats, *p;
	int cpu;

	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), GROUP_DIR "per_cpu/cpu%d/stats", cpu);
		stats = uet_read_file(path);
		if (!stats)
			break;
		p = strstr(stats, "entries: ");
		if (p)
			total += atol(p + 9);
		p = strstr(stats, "overrun: ");
		if (p)
			total += atol(p + 9);
		free(stats);
	}
	return total;
}

static int tenant_enable(const char *name, int on)
{
	char path[256];

	snprintf(path, sizeof(path), GROUP_DIR "events/user_events_bench/%s/enable", name);
	return uet_write_file(path, on ? "1" : "0", O_TRUNC);
}

static void group_teardown(void)
{
	close(group_ev.fd);
	munmap((void *)group_status, getpagesize());
	if (uet_write_file(TRACEFS "dynamic_events", "-:user_events_bench/bench_64", O_APPEND) ||
	    uet_write_file(TRACEFS "user_events_groups", "!bench", O_APPEND))
		fail("group bench: cannot remove it");
}

/*
 * Ticks to register a new event in group "bench" (then deleted): timed
 * while the default group has 1, 1000 and 4095 events
 */
static double group_register_cost(void)
{
	struct user_status_reg reg = { .size = sizeof(reg) };
	int fd = open(GROUP_DIR "user_events_data", O_RDWR);
	uint64_t t0, t1;

	reg.name_args = (unsigned long)"gscale char[64] d0";
	t0 = now();
	if (fd < 0 || ioctl(fd, DIAG_IOCSREG, &reg))
		fail("register in group bench: %s", strerror(errno));
	t1 = now();
	if (fd >= 0)
		close(fd);
	fd = open(GROUP_DIR "user_events_data", O_RDWR);
	if (fd < 0 || ioctl(fd, DIAG_IOCSDEL, "gscale"))
		fail("delete gscale of group bench: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	return (double)(t1 - t0);
}

/* Does case @c run at payload index @s? */
static int case_runs(int c, int s)
{
	if (bench_cases[c].group && !have_group)
		return 0;
	/* the peer has no batches */
	if (bench_cases[c].batch && peer)
		return 0;
	return !bench_cases[c].only || bench_cases[c].only == payloads[s];
}

/*
 * One event as a program instrumented with the library writes it: the
 * test, then the fields (the message: the 56 bytes after the id in
 * @payload, no NUL, so not padded). The payload bytes written, or -1.
 */
static __attribute__((noinline)) ssize_t lib_write(uint64_t id)
{
	struct ue_writer w;
	ssize_t n;

	if (!ue_enabled(&lib_event))
		return 0;
	ue_write_begin(&w, &lib_event);
	ue_add_u64(&w, id);
	ue_add_chars(&w, (const char *)payload + 4 + 8, 56);
	n = ue_write_end(&w);
	if (n < 0) {
		errno = (int)-n;
		return -1;
	}
	return n;
}

/*
 * @ops writes of case @c, each expected to return @want, or to fail with
 * @err (then counted as @want); returns what the last one did (@want when
 * none ran)
 */
static ssize_t writes(int c, struct event *ev, struct iovec *iov, int ops,
		      ssize_t want, int err)
{
	ssize_t n = want;
	int i;

	switch (bench_cases[c].how) {
	case W_WRITEV:
		for (i = 0; i < ops && n == want; i++) {
			n = writev(ev->fd, iov, 2);
			if (n < 0 && errno == err)
				n = want;
		}
		break;
	case W_WRITE:
		if (!err) {
			for (i = 0; i < ops && n == want; i++)
				n = write(ev->fd, payload, want);
			break;
		}
		for (i = 0; i < ops && n == want; i++) {
			n = write(ev->fd, payload, want);
			if (n < 0 && errno == err)
				n = want;
		}
		break;
	case W_MARKER:
		for (i = 0; i < ops && n == want; i++)
			n = write(marker_fd, payload + 4, want);
		break;
	case W_MARKER_RAW:
		for (i = 0; i < ops && n == want; i++)
			n = write(marker_raw_fd, payload, want);
		break;
	case W_WRITE_NULL:
		for (i = 0; i < ops && n == want; i++)
			n = write(null_fd, payload, want);
		break;
	case W_WRITEV_NULL:
		for (i = 0; i < ops && n == want; i++)
			n = writev(null_fd, iov, 2);
		break;
	case W_LIB:
		for (i = 0; i < ops && n == want; i++)
			n = lib_write(i);
		break;
	case W_BATCH: {
		/*
		 * @ops records, bench_cases[c].batch a write, the last write
		 * the rest: the loop of whole batches is the loop of the
		 * other cases, so that a batch's figure is not the loop's
		 */
		int per = bench_cases[c].batch, k = ops % per;
		ssize_t len = (ssize_t)per * (8 + ev->size);

		for (i = per; i <= ops && n == want; i += per)
			n = write(batch_fd, batch_buf, len);
		if (k && n == want) {
			len = (ssize_t)k * (8 + ev->size);
			n = write(batch_fd, batch_buf, len) == len ? want : -1;
		}
		break;
	}
	}
	return n;
}

/*
 * OPS writes of one kind, timed; returns instructions per write or -1.
 * With -p the last one is untimed, after the marker of case @c, size @s.
 */
static double run_writes(int c, int s, struct event *ev, int ops)
{
	struct iovec iov[2] = {
		{ &ev->write_index, sizeof(ev->write_index) },
		{ payload + 4, ev->size },
	};
	/* trace_marker gets the payload alone; the library says what it wrote */
	int alone = bench_cases[c].how == W_MARKER || bench_cases[c].how == W_LIB;
	ssize_t want = alone ? ev->size : 4 + ev->size, n;
	int mark = PROFILE_MARK | c << 8 | s, err = 0;
	/* a batch: what one write() takes and records */
	int per = bench_cases[c].how == W_BATCH ? bench_cases[c].batch : 1;
	uint64_t t0, t1;

	/*
	 * An enable-bit index with nothing attached: EBADF, on both kernels
	 * (a client that tests its bit first pays this only when it races a
	 * detach)
	 */
	if (writes_event(c) && ev->word && bench_cases[c].attach == A_NONE)
		err = EBADF;
	memcpy(payload, &ev->write_index, 4);
	if (per > 1 || bench_cases[c].how == W_BATCH)
		want = batch_fill(ev, payload + 4, per);
	ops -= profile * per;
	t0 = now();
	n = writes(c, ev, iov, ops, want, err);
	t1 = now();
	if (profile && n == want) {
		printf("# profile %#x: %s/%s %d bytes\n", mark, bench_cases[c].name,
		       bench_cases[c].consumer, ev->size);
		getpgid(mark);
		n = writes(c, ev, iov, per, want, err);
	}
	if (n != want) {
		fail("%s/%s %d bytes: wrote %zd of %zd: %s", bench_cases[c].name,
		     bench_cases[c].consumer, ev->size, n, want,
		     n < 0 ? strerror(errno) : "short");
		return -1;
	}
	return (double)(t1 - t0) / ops;
}

/* One round of case @c at payload index @s: attach, time, check, detach */
static void one_case(int c, int s, int r)
{
	struct event *ev = case_event(c, s);
	struct uet_ring ring = { .fd = -1 };
	long got = -1, lost = 0;
	double v;
	int fd = -1, err = 0, attach = bench_cases[c].attach, listened;

	if (case_broken[c][s] || !case_runs(c, s))
		return;
	switch (attach) {
	case A_FTRACE:
		ftrace_reset();
		err = uet_enable_in(bench_cases[c].group ? "user_events_bench" : "user_events",
			     ev->name, 1);
		break;
	case A_PERF:
		err = perf_attach(&ring, ev->name, ev->size);
		break;
	case A_BPF:
		fd = bpf_attach(ev->name);
		err = fd < 0 ? fd : 0;
		break;
	case A_BOTH:
		ftrace_reset();
		err = uet_enable_in("user_events_bench", ev->name, 1);
		if (err)
			break;
		/* fall through */
	case A_TENANT:
		tenant_reset();
		err = tenant_enable(ev->name, 1);
		break;
	default:
		/* trace_marker records into ftrace by itself */
		if (bench_cases[c].how == W_MARKER || bench_cases[c].how == W_MARKER_RAW)
			ftrace_reset();
	}
	if (err) {
		fail("%s/%s: attach: %s", bench_cases[c].name, bench_cases[c].consumer,
		     strerror(-err));
		case_broken[c][s] = 1;
		return;
	}
	listened = attach != A_NONE;
	if (writes_event(c) && listened != ev_enabled(ev)) {
		fail("%s/%s: %s %d with %s attached", bench_cases[c].name,
		     bench_cases[c].consumer, ev->word ? "enable bit" : "status",
		     ev_enabled(ev), bench_cases[c].consumer);
		case_broken[c][s] = 1;
	}
	v = run_writes(c, s, ev, OPS);
	switch (attach) {
	case A_FTRACE:
		uet_enable_in(bench_cases[c].group ? "user_events_bench" : "user_events",
		       ev->name, 0);
		got = ftrace_recorded();
		break;
	case A_PERF:
		perf_detach(&ring, &got, &lost);
		break;
	case A_BPF:
		got = bpf_count();
		close(fd);
		break;
	case A_TENANT:
		tenant_enable(ev->name, 0);
		got = tenant_recorded();
		break;
	case A_BOTH:
		tenant_enable(ev->name, 0);
		uet_enable_in("user_events_bench", ev->name, 0);
		/* each buffer took every record */
		got = tenant_recorded();
		if (ftrace_recorded() < got)
			got = ftrace_recorded();
		break;
	default:
		if (bench_cases[c].how == W_MARKER || bench_cases[c].how == W_MARKER_RAW)
			got = ftrace_recorded();
		else
			got = OPS;
	}
	if (v < 0 || got != OPS || lost) {
		if (v >= 0)
			printf("# %s %s/%s %d bytes: %ld of %d recorded, %ld lost\n",
			       kernel, bench_cases[c].name, bench_cases[c].consumer,
			       ev->size, got, OPS, lost);
		if (v >= 0 && attach == A_BPF && peer && got == 0)
			printf("# the peer attaches the program but never runs it\n");
		else
			failed = 1;
		case_broken[c][s] = 1;
		return;
	}
	figures[c][s][r] = v;
}

/* The bare loop of the disabled checks, in instructions per iteration */
static uint64_t bare_loop(void)
{
	uint64_t t0 = now();
	int i;

	for (i = 0; i < CHECK_OPS; i++)
		__asm__ volatile("" ::: "memory");
	return now() - t0;
}

/*
 * What one test of @enabled (a read of the event's status byte or word)
 * costs: CHECK_OPS of them in a loop, less the bare loop. An event found
 * enabled fails the run.
 */
#define CHECK_COST(enabled) ({							\
	uint64_t t0_, t1_;							\
	long hits_ = 0;								\
	int i_;									\
										\
	t0_ = now();								\
	for (i_ = 0; i_ < CHECK_OPS; i_++) {					\
		if (enabled)							\
			hits_++;						\
		__asm__ volatile("" ::: "memory");				\
	}									\
	t1_ = now();								\
	if (hits_)								\
		fail("disabled check: the event was enabled");			\
	((double)(t1_ - t0_) - (double)bare_loop()) / CHECK_OPS;		\
})

/*
 * The enable-bit test of a client, if (word & (1 << bit)), per loop against
 * the bare loop: one function, so the same instructions on both kernels
 */
static __attribute__((noinline)) double bit_check(volatile uint32_t *word)
{
	return CHECK_COST(*word & (1 << ENABLE_BIT));
}

/* The disabled check of this kernel's own ABI: a status test per loop */
static double disabled_check(const struct event *ev)
{
	volatile const uint8_t *status = ev->status;

	if (ev->word)
		return bit_check(ev->word);
	return CHECK_COST(*status);
}

static double getppid_cost(void)
{
	uint64_t t0 = now();
	int i;

	for (i = 0; i < OPS; i++)
		syscall(SYS_getppid);
	return (double)(now() - t0) / OPS;
}

/* uprobe on an empty function, ftrace attached: what user_events replaces */
__attribute__((noinline)) void ue_bench_probe_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static int uprobe_setup(void)
{
	unsigned long addr = (unsigned long)ue_bench_probe_target, start, end, off;
	char line[512], path[256], perms[8], cmd[400];
	FILE *maps = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &start, &end,
			   perms, &off, path) == 5 && addr >= start && addr < end) {
			found = 1;
			break;
		}
	}
	fclose(maps);
	if (!found)
		return -ENOENT;
	snprintf(cmd, sizeof(cmd), "p:uprobes/ue_bench_probe %s:0x%lx", path,
		 addr - start + off);
	found = uet_write_file(TRACEFS "uprobe_events", cmd, O_APPEND);
	if (found)
		return found;
	return uet_enable_in("uprobes", "ue_bench_probe", 1);
}

static double uprobe_cost(void)
{
	uint64_t t0;
	long got;
	int i;

	ftrace_reset();
	t0 = now();
	for (i = 0; i < OPS; i++)
		ue_bench_probe_target();
	t0 = now() - t0;
	got = ftrace_recorded();
	if (got != OPS) {
		fail("uprobe: %ld of %d recorded", got, OPS);
		return -1;
	}
	return (double)t0 / OPS;
}

static void uprobe_teardown(void)
{
	uet_enable_in("uprobes", "ue_bench_probe", 0);
	uet_write_file(TRACEFS "uprobe_events", "-:uprobes/ue_bench_probe", O_APPEND);
}

/* Scaling ---------------------------------------------------------------- */

struct writer {
	struct event *ev;
	int cpu;
	uint64_t start, end;
	pthread_barrier_t *go;
	int err;
};

static void *writer_run(void *arg)
{
	struct writer *w = arg;
	struct iovec iov[2] = {
		{ &w->ev->write_index, 4 },
		{ payload + 4, w->ev->size },
	};
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	pthread_barrier_wait(w->go);
	w->start = now();
	for (i = 0; i < OPS; i++)
		if (writev(w->ev->fd, iov, 2) != 4 + w->ev->size)
			w->err = errno ? errno : EIO;
	w->end = now();
	return NULL;
}

/* Instructions per event with @n writers on CPUs 0.. into @evs[i % nev] */
static double writers(int n, struct event **evs)
{
	pthread_barrier_t go;
	struct writer w[2];
	pthread_t t[2];
	uint64_t start = UINT64_MAX, end = 0;
	int i;

	pthread_barrier_init(&go, NULL, n);
	for (i = 0; i < n; i++) {
		w[i] = (struct writer){ .ev = evs[i], .cpu = i, .go = &go };
		pthread_create(&t[i], NULL, writer_run, &w[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (w[i].err)
			fail("writer %d: %s", i, strerror(w[i].err));
		start = w[i].start < start ? w[i].start : start;
		end = w[i].end > end ? w[i].end : end;
	}
	pthread_barrier_destroy(&go);
	return (double)(end - start) / (n * OPS);
}

/*
 * Per-write cost (64 bytes, ftrace attached) with 1, 64 and 4095 events
 * registered; the cost to register the 1st, 1000th and 4095th event and to
 * delete them; one and two writers.
 */
/*
 * @OPS writes into @ev (event @name) through case @c, ftrace attached, each
 * checked to be recorded (@what names the case): instructions per write
 */
static double ftrace_writes(int c, struct event *ev, const char *name, const char *what)
{
	double v;

	ftrace_reset();
	uet_enable_in("user_events", name, 1);
	v = run_writes(c, 0, ev, OPS);
	uet_enable_in("user_events", name, 0);
	if (ftrace_recorded() != OPS)
		fail("%s: %ld of %d recorded", what, ftrace_recorded(), OPS);
	return v;
}

/* The row of the registration of the 1st, 1000th and 4095th event, else -1 */
static int reg_mark(int n)
{
	return n == 1 ? 0 : n == 1000 ? 1 : n == 4095 ? 2 : -1;
}

static void scaling(void)
{
	static const int marks[] = { 1, 64, 4095 };
	static double wr[3][ROUNDS], reg[3][ROUNDS], del[3][ROUNDS];
	static double greg[3][ROUNDS];
	static double one[ROUNDS], two1[ROUNDS], two2[ROUNDS];
	struct event *fill = calloc(4096, sizeof(*fill)), *pair[2], other;
	char name[32];
	uint64_t t0;
	int r, i, m, fd, fd2, fd3, base = nr_events;

	if (!fill)
		die("calloc");
	for (r = 0; r < ROUNDS && !failed; r++) {
		fd = open(TRACEFS "user_events_data", O_RDWR);
		fd2 = open(TRACEFS "user_events_data", O_RDWR);
		fd3 = open(TRACEFS "user_events_data", O_RDWR);
		if (fd < 0 || fd2 < 0 || fd3 < 0)
			die("open user_events_data");
		nr_events = base;
		m = 0;
		for (i = 1; i <= 4095 && !failed; i++) {
			snprintf(name, sizeof(name), "scale_%d", i);
			t0 = now();
			if (ev_register(&fill[i], i == 1 ? fd2 : fd, name, 64))
				fail("register %s: %s", name, strerror(errno));
			t0 = now() - t0;
			if (reg_mark(i) >= 0) {
				reg[reg_mark(i)][r] = t0;
				if (have_group)
					greg[reg_mark(i)][r] = group_register_cost();
			}
			if (i == 1) {
				/* one writer; two into scale_1; two into two events */
				if (ev_register(&other, fd3, "scale_pair", 64))
					fail("register scale_pair: %s", strerror(errno));
				uet_enable_in("user_events", "scale_1", 1);
				uet_enable_in("user_events", "scale_pair", 1);
				pair[0] = &fill[1];
				pair[1] = &fill[1];
				one[r] = writers(1, pair);
				two1[r] = writers(2, pair);
				pair[1] = &other;
				two2[r] = writers(2, pair);
				uet_enable_in("user_events", "scale_1", 0);
				uet_enable_in("user_events", "scale_pair", 0);
				close(fd3);
				if (!peer && ioctl(fd2, DIAG_IOCSDEL, "scale_pair"))
					fail("delete scale_pair: %s", strerror(errno));
			}
			if (i != marks[m])
				continue;
			/* writes into the first event */
			wr[m++][r] = ftrace_writes(C_FTRACE, &fill[1], "scale_1", "scaling");
		}
		/* ours: an fd's references go with it (the peer's stay) */
		close(fd);
		for (i = 4095; i >= 2 && !peer && !failed; i--) {
			t0 = now();
			if (ioctl(fd2, DIAG_IOCSDEL, fill[i].name))
				fail("delete %s: %s", fill[i].name, strerror(errno));
			t0 = now() - t0;
			if (i == 1000 || i == 4095)
				del[i == 1000 ? 1 : 2][r] = t0;
		}
		close(fd2);
		fd = open(TRACEFS "user_events_data", O_RDWR);
		t0 = now();
		if (!peer && ioctl(fd, DIAG_IOCSDEL, "scale_1"))
			fail("delete scale_1: %s", strerror(errno));
		del[0][r] = now() - t0;
		close(fd);
		/* the peer's events stay registered: one round there */
		if (peer)
			break;
	}
	free(fill);
	if (failed)
		return;
	r = peer ? 1 : ROUNDS;
	for (m = 0; m < 3; m++) {
		row("writev", "ftrace", 64, marks[m], median(wr[m], r));
		row("register", "none", 64, m ? (m == 1 ? 1000 : 4095) : 1,
		    median(reg[m], r));
		if (!peer)
			row("delete", "none", 64, m ? (m == 1 ? 1000 : 4095) : 1,
			    median(del[m], r));
		/* events in the other groups: the default group's */
		if (have_group)
			row("register_group", "none", 64,
			    m ? (m == 1 ? 1000 : 4095) : 1, median(greg[m], r));
	}
	row("one_writer", "ftrace", 64, 1, median(one, r));
	row("two_writers_one_event", "ftrace", 64, 2, median(two1, r));
	row("two_writers_two_events", "ftrace", 64, 2, median(two2, r));
}

/*
 * The enable-bit ABI on both kernels: per-write cost (64 bytes, ftrace
 * attached) with 1, 64 and 4095 events registered and the cost to register
 * the 1st, 1000th and 4095th event. Each round's events go with their fd
 * and enablers (flags 0): ours deletes them then (sbits_1, which recorded
 * into ftrace, by request: bits_event_gone()), the peer from a worker,
 * which the next round waits for. Ours starts from no event, the peer from
 * the 5 persistent main events it cannot delete.
 */
static void scaling_bits(void)
{
	static const int marks[] = { 1, 64, 4095 };
	static double wr[3][ROUNDS], reg[3][ROUNDS];
	struct event *fill = calloc(4096, sizeof(*fill));
	char name[32];
	uint64_t t0;
	int r, i, m, fd, n;

	if (!fill)
		die("calloc");
	for (i = 0; i < 4096; i++)
		scale_words[i] = 0;	/* present, not waiting for a fault */
	for (r = 0; r < ROUNDS && !failed; r++) {
		fd = open(TRACEFS "user_events_data", O_RDWR);
		if (fd < 0)
			die("open user_events_data");
		m = 0;
		for (n = 1; n <= 4095 && !failed; n++) {
			snprintf(name, sizeof(name), "sbits_%d", n);
			t0 = now();
			if (ev_register_bits(&fill[n], fd, name, 64, &scale_words[n], 0)) {
				fail("register %s: %s", name, strerror(errno));
				break;
			}
			t0 = now() - t0;
			if (reg_mark(n) >= 0)
				reg[reg_mark(n)][r] = t0;
			if (n != marks[m])
				continue;
			wr[m++][r] = ftrace_writes(C_FTRACE_BITS, &fill[1], "sbits_1",
						   "scaling bits");
		}
		for (i = 1; i < n; i++)
			if (ev_unregister_bits(&fill[i]))
				fail("unregister %s: %s", fill[i].name, strerror(errno));
		close(fd);
		for (i = 1; i < n; i++)
			if (bits_event_gone(fill[i].name))
				fail("%s: still there 10 s after its fd and enabler went",
				     fill[i].name);
	}
	free(fill);
	if (failed)
		return;
	for (m = 0; m < 3; m++) {
		row("writev_bits", "ftrace", 64, marks[m], median(wr[m], ROUNDS));
		row("register_bits", "none", 64, m ? (m == 1 ? 1000 : 4095) : 1,
		    median(reg[m], ROUNDS));
	}
}

/*
 * The *_bits events of the main phase, on @fd beside the main ones (the
 * same on both kernels); 0 or -1 (the kernel refused the ABI: no bits cases)
 */
static int register_bits_events(int fd)
{
	char name[32];
	int s, c;

	for (s = 0; s < (int)NR_SIZES; s++) {
		snprintf(name, sizeof(name), "bench_bits_%d", payloads[s]);
		bits_words[s] = 0;
		if (ev_register_bits(&bits_events[s], fd, name, payloads[s],
				     &bits_words[s], 0)) {
			fail("register %s through the enable-bit ABI: %s", name,
			     strerror(errno));
			for (c = 0; c < NR_CASES; c++)
				for (s = 0; s < (int)NR_SIZES; s++)
					case_broken[c][s] |= bench_cases[c].bits;
			return -1;
		}
	}
	return 0;
}

/* The main phase's *_bits events: their enablers go, then their fd */
static void drop_bits_events(int fd)
{
	int s;

	for (s = 0; s < (int)NR_SIZES; s++)
		if (bits_events[s].word && ev_unregister_bits(&bits_events[s]))
			fail("unregister %s: %s", bits_events[s].name, strerror(errno));
	close(fd);
	for (s = 0; s < (int)NR_SIZES; s++)
		if (bits_events[s].word && bits_event_gone(bits_events[s].name))
			fail("%s: still there 10 s after its fd and enabler went",
			     bits_events[s].name);
}

/* The library's event, through its default ABI: 0, or -1 (no lib case) */
static int register_lib_event(void)
{
	int err, s;

	ue_set_abi(UE_ABI_BITS);
	err = ue_register_all();
	if (err) {
		fail("libuserevents: register bench_lib: %s", ue_strerror(err));
		for (s = 0; s < (int)NR_SIZES; s++)
			case_broken[C_LIB_FTRACE_BITS][s] = 1;
		return -1;
	}
	lib_ev.status = lib_event.status;
	nr_events++;
	return 0;
}

/*
 * The library's event goes with its enable bit and the library's file (the
 * library closes it only at exit: closed here, nothing else uses it)
 */
static void drop_lib_event(void)
{
	int err = ue_event_unregister(&lib_event);

	if (err)
		fail("libuserevents: unregister bench_lib: %s", ue_strerror(err));
	close(ue_data_fd());
	nr_events--;
	if (bits_event_gone(lib_ev.name))
		fail("bench_lib: still there 10 s after its fd and enabler went");
}

/* Exit of a process of many threads -------------------------------------- */

/*
 * The exit of a process of N threads in all (its main thread and N - 1
 * pthreads of 16 KiB stacks, each asleep in pause()), forked for it: at a
 * byte from the parent its main thread calls _exit() (exit_group), and
 * every thread wakes, is killed and goes. exit_bits: the process first
 * registered one enable-bit event (flags 0, one word), so it has
 * user_events per-process state that each of its threads leaves at exit
 * (ours: a count of the process's threads; before it, each exiting thread
 * walked them all under a global lock, O(N^2) for the whole exit); its
 * enabler, fd and event go with it. exit: the same process without
 * user_events, the baseline. Rows: payload_bytes is N, events_registered
 * the events of the exiting process.
 *
 * The figure is the instructions the process's threads run from the byte
 * on, in task context: the time each CPU spends in one of them (ftrace's
 * sched_switch, on the TSC: trace_clock x86-tsc) less the interrupts and
 * softirqs in it (their _entry and _exit events). Not the time to the
 * return of waitpid() (printed too): under -icount (sleep=off) the clock
 * jumps to the next timer whenever every vCPU idles, and ours' exit_mmap()
 * of a process that had enable bits idles so for an SRCU grace period (its
 * mmu notifier), a few ticks; and what the exit leaves to workers and RCU
 * callbacks (the tasks' and stacks' freeing) falls in the window or after
 * it as the wait lets it. The parent, the child and the unbound
 * workqueues' workers (those the exit queues, with the locks they take)
 * run on CPU 0: with them on both vCPUs, QEMU's round-robin keeps running a
 * vCPU that spins for the other (an IPI, a lock) up to its next timer, and
 * rounds differ by up to 40 %.
 *
 * main() runs it first, before this process has registered anything: a
 * fork copies the parent's enable bits into the child (on both kernels).
 */
static const int exit_threads[] = { 100, 1000 };
#define NR_EXITS ARRAY_SIZE(exit_threads)
#define EXIT_STACK (16 * 1024)
#define EXIT_COMM "ue_bench_exit"
/* the CPUs unbound workqueues' workers may run on */
#define WQ_CPUMASK "/sys/devices/virtual/workqueue/cpumask"
/* the parent idles this long before the byte: the last exit's leftovers done */
#define EXIT_QUIET_US 200000

static void *exit_thread_run(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/* The child: @n threads in all, a byte on @ready, _exit(0) at a byte on @go */
static void exit_child(int n, int bits, int ready, int go)
{
	static volatile uint32_t word;
	static int started;
	pthread_attr_t attr;
	struct event ev;
	pthread_t t;
	char c = 0;
	int i, fd;

	/* the name of every thread: the trace tells them by it */
	prctl(PR_SET_NAME, EXIT_COMM);
	if (bits) {
		fd = open(TRACEFS "user_events_data", O_RDWR);
		if (fd < 0 || ev_register_bits(&ev, fd, "bench_exit", 8, &word, 0))
			_exit(3);
	}
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, EXIT_STACK))
		_exit(4);
	for (i = 1; i < n; i++)
		if (pthread_create(&t, &attr, exit_thread_run, &started))
			_exit(5);
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < n - 1)
		usleep(1000);
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(6);
	_exit(0);
}

/* Threads of process @pid asleep (state S), or -1 */
static int threads_asleep(pid_t pid)
{
	char path[64], *stat, *p;
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", pid, d->d_name);
		stat = uet_read_file(path);
		p = stat ? strrchr(stat, ')') : NULL;
		if (p && p[1] == ' ' && p[2] == 'S')
			n++;
		free(stat);
	}
	closedir(dir);
	return n;
}

/*
 * Ticks after @t0 that a CPU spent in an EXIT_COMM task outside interrupts
 * and softirqs, from the trace (x86-tsc clock): sched_switch to and from
 * one (filtered to those), and every *_entry and *_exit event of irq and
 * irq_vectors. -1 when the trace lost events.
 */
static double exit_task_time(uint64_t t0)
{
	char *text = uet_read_file(TRACEFS "trace"), *line, *p, *b, *name;
	int in[64] = { 0 }, depth[64] = { 0 }, cpu, was;
	uint64_t ts, since[64] = { 0 }, sum = 0;
	size_t len;

	if (!text)
		return -1;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		/* "  comm-pid  [cpu] flags  ts: event: fields" */
		if (strstr(line, "LOST") && strstr(line, "EVENTS")) {
			free(text);
			return -1;
		}
		p = strstr(line, "] ");
		b = strchr(line, '[');
		if (line[0] == '#' || !p || !b || b > p ||
		    sscanf(p + 2, "%*s %" SCNu64 ":", &ts) != 1)
			continue;
		cpu = atoi(b + 1);
		name = strstr(p + 2, ": ");
		if (cpu < 0 || cpu >= 64 || !name)
			continue;
		name += 2;
		len = strcspn(name, ":");
		was = in[cpu] && !depth[cpu];
		if (!strncmp(name, "sched_switch", len))
			in[cpu] = !!strstr(name, "next_comm=" EXIT_COMM " ");
		else if (len > 6 && !strncmp(name + len - 6, "_entry", 6))
			depth[cpu]++;
		else if (len > 5 && !strncmp(name + len - 5, "_exit", 5) && depth[cpu])
			depth[cpu]--;
		if (was && ts > t0)
			sum += ts - (since[cpu] > t0 ? since[cpu] : t0);
		since[cpu] = ts;
	}
	free(text);
	return (double)sum;
}

/*
 * One exit of a process of @n threads, with one enable-bit event (@bits)
 * or none: the instructions of its threads from the parent's byte on (see
 * exit_cost() above), the ticks to waitpid()'s return in *@elapsed; or -1
 */
static double exit_once(int n, int bits, double *elapsed)
{
	int ready[2], go[2], status, i;
	uint64_t t0, t1;
	double v;
	char c = 0;
	pid_t pid;

	if (pipe(ready) || pipe(go))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(ready[0]);
		close(go[1]);
		exit_child(n, bits, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	/* every thread started, then every one asleep */
	if (read(ready[0], &c, 1) == 1)
		for (i = 0; i < 10000 && threads_asleep(pid) != n; i++)
			usleep(1000);
	else
		i = -1;
	usleep(EXIT_QUIET_US);
	ftrace_reset();
	t0 = now();
	if (i >= 0 && write(go[1], &c, 1) != 1)
		i = -1;
	if (i < 0)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	t1 = now();
	close(ready[0]);
	close(go[1]);
	if (i < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fail("exit%s of %d threads: the child %s %d (3 register, 4-6 threads)",
		     bits ? "_bits" : "", n, WIFEXITED(status) ? "exited" : "died of",
		     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	if (i == 10000) {
		fail("exit%s of %d threads: not all asleep after 10 s", bits ? "_bits" : "", n);
		return -1;
	}
	v = exit_task_time(t0);
	if (v <= 0) {
		fail("exit%s of %d threads: no trace of its threads (or events lost)",
		     bits ? "_bits" : "", n);
		return -1;
	}
	/* the peer deletes the event from a worker: gone before the next round */
	if (bits && bits_event_gone("bench_exit")) {
		fail("bench_exit: still there 10 s after its process exited");
		return -1;
	}
	*elapsed = (double)(t1 - t0);
	return v;
}

/* The events exit_task_time() reads on (1) or off (0); 0 or -errno */
static int exit_trace(int on)
{
	static const char *const enables[] = {
		"sched/sched_switch", "irq", "irq_vectors",
	};
	char path[128];
	size_t k;
	int err;

	/* the filter goes with "0" */
	err = uet_write_file(TRACEFS "events/sched/sched_switch/filter",
			     on ? "prev_comm == \"" EXIT_COMM "\" || "
				  "next_comm == \"" EXIT_COMM "\"" : "0", O_TRUNC);
	for (k = 0; k < ARRAY_SIZE(enables) && !err; k++) {
		snprintf(path, sizeof(path), TRACEFS "events/%s/enable", enables[k]);
		err = uet_write_file(path, on ? "1" : "0", O_TRUNC);
	}
	return err;
}

/*
 * ROUNDS of each number of threads, with and without an event, alternating;
 * on CPU 0, the parent and the child's threads, traced on the TSC
 */
static void exit_cost(void)
{
	static double v[2][NR_EXITS][ROUNDS], elapsed[2][NR_EXITS][ROUNDS];
	char *clock = uet_read_file(TRACEFS "trace_clock"), *b, *e;
	char *wq = uet_read_file(WQ_CPUMASK);
	cpu_set_t all, one;
	int r, i, bits;

	/* the trace's clock, the TSC, while this runs; then the one in [brackets] */
	b = clock ? strchr(clock, '[') : NULL;
	e = b ? strchr(b, ']') : NULL;
	if (!e || uet_write_file(TRACEFS "trace_clock", "x86-tsc", O_TRUNC) ||
	    uet_write_file(TRACEFS "buffer_size_kb", "8192", O_TRUNC) ||
	    uet_write_file(TRACEFS "tracing_on", "1", O_TRUNC) || exit_trace(1)) {
		fail("exit: cannot trace sched_switch and interrupts on the TSC");
		exit_trace(0);
		free(clock);
		return;
	}
	*e = '\0';
	if (sched_getaffinity(0, sizeof(all), &all))
		die("sched_getaffinity");
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		die("sched_setaffinity");
	/* and the unbound workers: the exit's, with its locks, on CPU 0 too */
	if (!wq || uet_write_file(WQ_CPUMASK, "1", O_TRUNC))
		fail("exit: cannot put the unbound workers on CPU 0 (%s)", WQ_CPUMASK);
	for (r = 0; r < ROUNDS && !failed; r++)
		for (i = 0; i < (int)NR_EXITS && !failed; i++)
			for (bits = 0; bits < 2 && !failed; bits++)
				v[bits][i][r] = exit_once(exit_threads[i], bits,
							  &elapsed[bits][i][r]);
	if (sched_setaffinity(0, sizeof(all), &all))
		die("sched_setaffinity");
	if (wq && uet_write_file(WQ_CPUMASK, wq, O_TRUNC))
		fail("exit: cannot set %s back to %s", WQ_CPUMASK, wq);
	free(wq);
	if (exit_trace(0) || uet_write_file(TRACEFS "trace_clock", b + 1, O_TRUNC))
		fail("exit: cannot stop tracing, or set trace_clock back to %s", b + 1);
	free(clock);
	ftrace_reset();
	if (failed)
		return;
	for (i = 0; i < (int)NR_EXITS; i++)
		for (bits = 0; bits < 2; bits++) {
			printf("# %s exit%s of %d threads, each round: instructions "
			       "(ticks to waitpid()):", kernel, bits ? "_bits" : "",
			       exit_threads[i]);
			for (r = 0; r < ROUNDS; r++)
				printf(" %.0f (%.0f)", v[bits][i][r], elapsed[bits][i][r]);
			printf("\n");
			row(bits ? "exit_bits" : "exit", "none", exit_threads[i], bits,
			    median(v[bits][i], ROUNDS));
		}
}

int main(int argc, char **argv)
{
	double check[ROUNDS], check_bits[ROUNDS], ppid[ROUNDS], up[ROUNDS];
	int fd, sfd, r, s, c, have_uprobe, have_bits, have_lib;
	char name[32];

	if (argc == 3 && !strcmp(argv[1], "-n")) {
		OPS = atoi(argv[2]);
		CHECK_OPS = OPS * 100;
	} else if (argc == 2 && !strcmp(argv[1], "-p")) {
		profile = 1;
		OPS = 100;
	} else if (argc == 2 && !strcmp(argv[1], "-x")) {
		exit_only = 1;
	} else if (argc != 1) {
		OPS = 0;
	}
	need_ops(argv[0], "[-n OPS | -p | -x]");
	setvbuf(stdout, NULL, _IOLBF, 0);
	sfd = open(TRACEFS "user_events_status", O_RDONLY);
	if (sfd < 0)
		die("open user_events_status");
	status_page = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, sfd, 0);
	if (status_page == MAP_FAILED) {
		/* the upstream ABI has no status page */
		peer = 1;
		kernel = "peer";
	}
	printf("# kernel %s: %s ABI, %d rounds of %d operations\n", kernel,
	       peer ? "upstream (enable bits)" : "our (status page)", ROUNDS, OPS);
	if (peer)
		printf("# the peer fails writes with nothing attached (EBADF): writev/none\n"
		       "# is the cost of that refusal\n");
	printf("# *_bits: events registered through the enable-bit ABI (flags 0), the\n"
	       "# same code on both kernels; with nothing attached their writes fail\n"
	       "# with EBADF on both\n");
	/* first: a fork would copy enable bits this process registered */
	if (!profile) {
		printf("# exit, exit_bits: a process of payload_bytes threads exits, without\n"
		       "# and with one enable-bit event registered; ticks per exit\n");
		exit_cost();
	}
	if (exit_only) {
		printf("# done: %s\n", failed ? "FAILED" : "ok");
		return failed;
	}
	fd = open(TRACEFS "user_events_data", O_RDWR);
	marker_fd = open(TRACEFS "trace_marker", O_WRONLY);
	marker_raw_fd = open(TRACEFS "trace_marker_raw", O_WRONLY);
	null_fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || marker_fd < 0 || marker_raw_fd < 0 || null_fd < 0)
		die("open");
	/* room for a round of the largest payload: no overrun needed */
	if (uet_write_file(TRACEFS "buffer_size_kb", "8192", O_TRUNC))
		die("buffer_size_kb");
	uet_write_file(TRACEFS "tracing_on", "1", O_TRUNC);
	memset(payload + 4, 'x', MAX_PAYLOAD);
	for (s = 0; s < (int)NR_SIZES; s++) {
		snprintf(name, sizeof(name), "bench_%d", payloads[s]);
		if (ev_register(&events[s], fd, name, payloads[s]))
			die(name);
	}
	/* ours: the batch cases' fd, made once, so the writes alone are timed */
	if (!peer) {
		batch_fd = ioctl(fd, DIAG_IOCSBATCH, 0);
		if (batch_fd < 0) {
			fail("DIAG_IOCSBATCH: %s", strerror(errno));
			for (c = 0; c < NR_CASES; c++)
				for (s = 0; s < (int)NR_SIZES; s++)
					case_broken[c][s] |= !!bench_cases[c].batch;
		}
	}
	have_bits = !register_bits_events(fd);
	have_lib = have_bits && !register_lib_event();
	have_group = !peer && !group_setup();
	if (!peer && !have_group)
		fail("group bench: cannot set it up");
	if (bpf_setup())
		die("bpf program");
	if (profile) {
		for (s = 0; s < (int)NR_SIZES; s++)
			for (c = 0; c < NR_CASES; c++)
				one_case(c, s, 0);
		printf("# done: %s\n", failed ? "FAILED" : "ok");
		return failed;
	}
	have_uprobe = !uprobe_setup();
	if (!have_uprobe)
		fail("uprobe: cannot set one up");

	for (r = 0; r < ROUNDS; r++) {
		check[r] = disabled_check(&events[0]);
		check_bits[r] = have_bits ? bit_check(bits_events[0].word) : -1;
		ppid[r] = getppid_cost();
		for (s = 0; s < (int)NR_SIZES; s++)
			for (c = 0; c < NR_CASES; c++)
				one_case(c, s, r);
		up[r] = have_uprobe ? uprobe_cost() : -1;
	}
	if (have_uprobe)
		uprobe_teardown();

	row("disabled_check", "none", 0, nr_events, median(check, ROUNDS));
	if (have_bits)
		row("disabled_check_bits", "none", 0, nr_events,
		    median(check_bits, ROUNDS));
	row("getppid", "none", 0, nr_events, median(ppid, ROUNDS));
	if (have_uprobe && up[0] >= 0)
		row("uprobe", "ftrace", 0, nr_events, median(up, ROUNDS));
	for (c = 0; c < NR_CASES; c++)
		for (s = 0; s < (int)NR_SIZES; s++)
			if (!case_broken[c][s] && case_runs(c, s))
				row(bench_cases[c].name, bench_cases[c].consumer, payloads[s],
				    nr_events, median(figures[c][s], ROUNDS));

	/*
	 * the events of the main table go, so that scaling starts from one;
	 * the batch fd first, which holds fd's events
	 */
	if (batch_fd >= 0)
		close(batch_fd);
	drop_bits_events(fd);
	if (have_lib)
		drop_lib_event();
	fd = open(TRACEFS "user_events_data", O_RDWR);
	for (s = 0; s < (int)NR_SIZES && !peer; s++)
		if (ioctl(fd, DIAG_IOCSDEL, events[s].name))
			fail("delete %s: %s", events[s].name, strerror(errno));
	close(fd);
	if (!peer)
		nr_events = 0;
	if (have_bits)
		scaling_bits();
	scaling();
	if (have_group)
		group_teardown();
	printf("# done: %s\n", failed ? "FAILED" : "ok");
	return failed;
}
