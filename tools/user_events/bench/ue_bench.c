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
 * Output: "csv:kernel,case,consumer,payload_bytes,events_registered,
 * instructions_per_op" lines, "# " comments, and exit status 0 only when
 * every case of this kernel worked.
 *
 * ue_bench -p is the guest side of scripts/bench-profile: one round of 100
 * writes per case and payload, checked as above, the last of each after a
 * getpgid() whose argument marks it for the host's gdb (see PROFILE_MARK).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

#define TRACEFS "/sys/kernel/tracing/"
#define ROUNDS 5
#define MAX_PAYLOAD 4000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const int payloads[] = { 8, 64, 256, 1024, 4000 };
#define NR_SIZES ARRAY_SIZE(payloads)

static const char *kernel = "ours";
static int peer;		/* the upstream ABI is running */
static int failed;
static int nr_events;		/* registered right now, by us */
static int OPS = 10000;		/* operations per round and case (-n) */
static int CHECK_OPS = 1000000;
/*
 * -p (scripts/bench-profile): one round of 100 operations per case, the
 * last one after getpgid(PROFILE_MARK | case << 8 | size index), where the
 * host's gdb starts counting instructions per kernel function
 */
static int profile;
#define PROFILE_MARK 0x77770000

/* The upstream ABI (facts of its uapi header), for the peer kernel */
struct peer_reg {
	uint32_t size;
	uint8_t enable_bit;
	uint8_t enable_size;
	uint16_t flags;
	uint64_t enable_addr;
	uint64_t name_args;
	uint32_t write_index;
} __attribute__((packed));

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("error: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	failed = 1;
}

static void die(const char *what)
{
	printf("error: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * Guest time. Under -icount shift=0 QEMU's TSC is its virtual clock, one
 * nanosecond per guest instruction, so TSC deltas count instructions (the
 * guest kernel cannot calibrate the TSC there and falls back to a jiffies
 * clocksource, so clock_gettime() would only see 4 ms steps).
 */
static inline uint64_t now(void)
{
	return __builtin_ia32_rdtsc();
}

static int write_file(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static long read_number(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

/* Events ftrace has taken since the last reset: entries + overruns, all CPUs */
static long ftrace_recorded(void)
{
	long total = 0;
	char path[128], buf[1024], *p;
	int cpu, fd;
	ssize_t n;

	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), TRACEFS "per_cpu/cpu%d/stats", cpu);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			break;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		p = strstr(buf, "entries: ");
		if (p)
			total += atol(p + 9);
		p = strstr(buf, "overrun: ");
		if (p)
			total += atol(p + 9);
	}
	return total;
}

static void ftrace_reset(void)
{
	if (write_file(TRACEFS "trace", "", O_TRUNC))
		die("clear trace");
}

/* A user event of @size payload bytes, and how to write it */
struct event {
	char name[64];
	int fd;				/* user_events_data */
	uint32_t write_index;
	volatile const uint8_t *status;	/* ours: its byte of the status page */
	volatile uint32_t *word;	/* peer: its enable word (bit 0) */
	int size;
};

static volatile const uint8_t *status_page;
static volatile uint32_t peer_words[8192];

/* "name char[N] d0;..." with N <= 1000 per field, @size bytes in all */
static void describe(char *desc, size_t len, const char *name, int size)
{
	int off = snprintf(desc, len, "%s", name), i;

	for (i = 0; size > 0; i++, size -= 1000)
		off += snprintf(desc + off, len - off, "%s char[%d] d%d",
				i ? ";" : "", size > 1000 ? 1000 : size, i);
}

static int ev_register(struct event *ev, int fd, const char *name, int size)
{
	char desc[256];

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->fd = fd;
	ev->size = size;
	describe(desc, sizeof(desc), name, size);
	if (peer) {
		struct peer_reg reg = {
			.size = sizeof(reg),
			.enable_bit = 0,
			.enable_size = 4,
			.flags = 1,	/* persist: deleted only on request */
			.enable_addr = (unsigned long)&peer_words[nr_events],
			.name_args = (unsigned long)desc,
		};

		if (ioctl(fd, DIAG_IOCSREG, &reg))
			return -errno;
		ev->write_index = reg.write_index;
		ev->word = &peer_words[nr_events];
	} else {
		struct user_reg reg = {
			.size = sizeof(reg),
			.name_args = (unsigned long)desc,
		};

		if (ioctl(fd, DIAG_IOCSREG, &reg))
			return -errno;
		ev->write_index = reg.write_index;
		ev->status = status_page + reg.status_index;
	}
	nr_events++;
	return 0;
}

static int ev_enabled(const struct event *ev)
{
	return peer ? *ev->word & 1 : *ev->status;
}

static int enable(const char *system, const char *name, int on)
{
	char path[600];

	snprintf(path, sizeof(path), TRACEFS "events/%s/%s/enable", system, name);
	return write_file(path, on ? "1" : "0", O_TRUNC);
}

/* perf: a per-task event on the tracepoint with a ring for @ops samples */
struct perf_ring {
	int fd;
	void *base;
	size_t len;		/* of the data area */
};

static int tracepoint_id(const char *system, const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), TRACEFS "events/%s/%s/id", system, name);
	return read_number(path);
}

static int perf_attach(struct perf_ring *r, const char *name, int size)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pe),
		.config = tracepoint_id("user_events", name),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = OPS * 2,
	};
	size_t need = (size_t)OPS * (size + 64), pages = 1;

	while (pages * 4096 < need)
		pages *= 2;
	r->len = pages * 4096;
	r->fd = syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
	if (r->fd < 0)
		return -errno;
	r->base = mmap(NULL, r->len + 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->fd, 0);
	if (r->base == MAP_FAILED) {
		close(r->fd);
		return -errno;
	}
	return 0;
}

/* Samples in the ring, and lost ones; then close it */
static void perf_detach(struct perf_ring *r, long *samples, long *lost)
{
	struct perf_event_mmap_page *meta = r->base;
	uint8_t *data = (uint8_t *)r->base + 4096;
	uint64_t head = meta->data_head, tail = meta->data_tail;

	__sync_synchronize();
	*samples = *lost = 0;
	while (tail < head) {
		struct perf_event_header *h = (void *)(data + (tail % r->len));

		if (h->type == PERF_RECORD_SAMPLE) {
			(*samples)++;
		} else if (h->type == PERF_RECORD_LOST) {
			uint64_t body[2];
			size_t i;

			for (i = 0; i < sizeof(body); i++)
				((uint8_t *)body)[i] =
					data[(tail + sizeof(*h) + i) % r->len];
			*lost += body[1];
		}
		tail += h->size;
	}
	munmap(r->base, r->len + 4096);
	close(r->fd);
}

/* BPF: count runs in an array map; return 0, so no perf sample is made */
static int bpf_sys(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int bpf_map, bpf_prog;

static int bpf_setup(void)
{
	union bpf_attr m = {
		.map_type = BPF_MAP_TYPE_ARRAY,
		.key_size = 4,
		.value_size = 8,
		.max_entries = 1,
	};
	struct bpf_insn prog[] = {
		/* r1 = map, *(u32 *)(fp - 4) = 0, r2 = fp - 4, lookup */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1,
		  .src_reg = BPF_PSEUDO_MAP_FD },
		{ 0 },
		{ .code = BPF_ST | BPF_W | BPF_MEM, .dst_reg = 10, .off = -4 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 2, .imm = -4 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		/* if (r0) *(u64 *)r0 += 1 */
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = 0, .off = 2 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 1, .imm = 1 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = 0, .src_reg = 1,
		  .imm = BPF_ADD },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr p = {
		.prog_type = BPF_PROG_TYPE_TRACEPOINT,
		.insns = (unsigned long)prog,
		.insn_cnt = ARRAY_SIZE(prog),
		.license = (unsigned long)"GPL",
	};

	bpf_map = bpf_sys(BPF_MAP_CREATE, &m);
	if (bpf_map < 0)
		return -errno;
	prog[0].imm = bpf_map;
	bpf_prog = bpf_sys(BPF_PROG_LOAD, &p);
	return bpf_prog < 0 ? -errno : 0;
}

static long bpf_count(void)
{
	uint32_t key = 0;
	uint64_t value = 0;
	union bpf_attr a = {
		.map_fd = bpf_map,
		.key = (unsigned long)&key,
		.value = (unsigned long)&value,
	};

	return bpf_sys(BPF_MAP_LOOKUP_ELEM, &a) ? -1 : (long)value;
}

static int bpf_attach(const char *name)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pe),
		.config = tracepoint_id("user_events", name),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
	};
	uint32_t key = 0;
	uint64_t zero = 0;
	union bpf_attr a = {
		.map_fd = bpf_map,
		.key = (unsigned long)&key,
		.value = (unsigned long)&zero,
	};
	int fd;

	bpf_sys(BPF_MAP_UPDATE_ELEM, &a);
	fd = syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, bpf_prog) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* The figures: rounds of one case, by an index */
enum { C_WRITEV, C_FTRACE, C_PERF, C_BPF, C_WRITE_FTRACE, C_MARKER,
       C_MARKER_RAW, C_WRITE_NULL, C_WRITEV_NULL, NR_CASES };
static const struct { const char *name, *consumer; } cases[NR_CASES] = {
	[C_WRITEV] = { "writev", "none" },
	[C_FTRACE] = { "writev", "ftrace" },
	[C_PERF] = { "writev", "perf" },
	[C_BPF] = { "writev", "bpf" },
	[C_WRITE_FTRACE] = { "write", "ftrace" },
	[C_MARKER] = { "trace_marker", "ftrace" },
	[C_MARKER_RAW] = { "trace_marker_raw", "ftrace" },
	[C_WRITE_NULL] = { "write_devnull", "none" },
	[C_WRITEV_NULL] = { "writev_devnull", "none" },
};
static double figures[NR_CASES][NR_SIZES][ROUNDS];
static int case_broken[NR_CASES][NR_SIZES];

static struct event events[NR_SIZES];
static uint8_t payload[4 + MAX_PAYLOAD];
static int marker_fd, marker_raw_fd, null_fd;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	double s[ROUNDS * 4];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void row(const char *name, const char *consumer, int bytes, int events,
		double v)
{
	printf("csv:%s,%s,%s,%d,%d,%.1f\n", kernel, name, consumer, bytes, events, v);
	fflush(stdout);
}

/*
 * @ops writes of case @c, each expected to return @want; returns what the
 * last one did (@want when none ran or the peer refused as it does)
 */
static ssize_t writes(int c, struct event *ev, struct iovec *iov, int ops,
		      ssize_t want)
{
	ssize_t n = want;
	int i;

	switch (c) {
	case C_WRITEV: case C_FTRACE: case C_PERF: case C_BPF:
		for (i = 0; i < ops && n == want; i++) {
			n = writev(ev->fd, iov, 2);
			/* the peer refuses writes nobody listens to */
			if (n < 0 && errno == EBADF && peer && c == C_WRITEV)
				n = want;
		}
		break;
	case C_WRITE_FTRACE:
		for (i = 0; i < ops && n == want; i++)
			n = write(ev->fd, payload, want);
		break;
	case C_MARKER:
		for (i = 0; i < ops && n == want; i++)
			n = write(marker_fd, payload + 4, want);
		break;
	case C_MARKER_RAW:
		for (i = 0; i < ops && n == want; i++)
			n = write(marker_raw_fd, payload, want);
		break;
	case C_WRITE_NULL:
		for (i = 0; i < ops && n == want; i++)
			n = write(null_fd, payload, want);
		break;
	case C_WRITEV_NULL:
		for (i = 0; i < ops && n == want; i++)
			n = writev(null_fd, iov, 2);
		break;
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
	/* trace_marker gets the payload alone */
	ssize_t want = c == C_MARKER ? ev->size : 4 + ev->size, n;
	int mark = PROFILE_MARK | c << 8 | s;
	uint64_t t0, t1;

	memcpy(payload, &ev->write_index, 4);
	ops -= profile;
	t0 = now();
	n = writes(c, ev, iov, ops, want);
	t1 = now();
	if (profile && n == want) {
		printf("# profile %#x: %s/%s %d bytes\n", mark, cases[c].name,
		       cases[c].consumer, ev->size);
		getpgid(mark);
		n = writes(c, ev, iov, 1, want);
	}
	if (n != want) {
		fail("%s/%s %d bytes: wrote %zd of %zd: %s", cases[c].name,
		     cases[c].consumer, ev->size, n, want,
		     n < 0 ? strerror(errno) : "short");
		return -1;
	}
	return (double)(t1 - t0) / ops;
}

/* One round of case @c at payload index @s: attach, time, check, detach */
static void one_case(int c, int s, int r)
{
	struct event *ev = &events[s];
	struct perf_ring ring;
	long got = -1, lost = 0;
	double v;
	int fd = -1, err = 0;

	if (case_broken[c][s])
		return;
	switch (c) {
	case C_FTRACE:
	case C_WRITE_FTRACE:
		ftrace_reset();
		err = enable("user_events", ev->name, 1);
		break;
	case C_MARKER:
	case C_MARKER_RAW:
		ftrace_reset();
		break;
	case C_PERF:
		err = perf_attach(&ring, ev->name, ev->size);
		break;
	case C_BPF:
		fd = bpf_attach(ev->name);
		err = fd < 0 ? fd : 0;
		break;
	}
	if (err) {
		fail("%s/%s: attach: %s", cases[c].name, cases[c].consumer,
		     strerror(-err));
		case_broken[c][s] = 1;
		return;
	}
	if (c <= C_WRITE_FTRACE && (c == C_WRITEV) != !ev_enabled(ev)) {
		fail("%s/%s: status %d", cases[c].name, cases[c].consumer,
		     ev_enabled(ev));
		case_broken[c][s] = 1;
	}
	v = run_writes(c, s, ev, OPS);
	switch (c) {
	case C_FTRACE:
	case C_WRITE_FTRACE:
		enable("user_events", ev->name, 0);
		/* fallthrough */
	case C_MARKER:
	case C_MARKER_RAW:
		got = ftrace_recorded();
		break;
	case C_PERF:
		perf_detach(&ring, &got, &lost);
		break;
	case C_BPF:
		got = bpf_count();
		close(fd);
		break;
	default:
		got = OPS;
	}
	if (v < 0 || got != OPS || lost) {
		if (v >= 0)
			printf("# %s %s/%s %d bytes: %ld of %d recorded, %ld lost\n",
			       kernel, cases[c].name, cases[c].consumer, ev->size,
			       got, OPS, lost);
		if (v >= 0 && c == C_BPF && peer && got == 0)
			printf("# the peer attaches the program but never runs it\n");
		else
			failed = 1;
		case_broken[c][s] = 1;
		return;
	}
	figures[c][s][r] = v;
}

/* The disabled check: a status test per loop, against the bare loop */
static double disabled_check(const struct event *ev)
{
	volatile const uint8_t *status = ev->status;
	volatile uint32_t *word = ev->word;
	uint64_t t0, t1, t2;
	long hits = 0;
	int i;

	t0 = now();
	if (peer) {
		for (i = 0; i < CHECK_OPS; i++) {
			if (*word & 1)
				hits++;
			__asm__ volatile("" ::: "memory");
		}
	} else {
		for (i = 0; i < CHECK_OPS; i++) {
			if (*status)
				hits++;
			__asm__ volatile("" ::: "memory");
		}
	}
	t1 = now();
	for (i = 0; i < CHECK_OPS; i++)
		__asm__ volatile("" ::: "memory");
	t2 = now();
	if (hits)
		fail("disabled check: the event was enabled");
	return ((double)(t1 - t0) - (double)(t2 - t1)) / CHECK_OPS;
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
	found = write_file(TRACEFS "uprobe_events", cmd, O_APPEND);
	if (found)
		return found;
	return enable("uprobes", "ue_bench_probe", 1);
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
	enable("uprobes", "ue_bench_probe", 0);
	write_file(TRACEFS "uprobe_events", "-:uprobes/ue_bench_probe", O_APPEND);
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
static void scaling(void)
{
	static const int marks[] = { 1, 64, 4095 };
	static double wr[3][ROUNDS], reg[3][ROUNDS], del[3][ROUNDS];
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
			if (i == 1 || i == 1000 || i == 4095)
				reg[i == 1 ? 0 : i == 1000 ? 1 : 2][r] = t0;
			if (i == 1) {
				/* one writer; two into scale_1; two into two events */
				if (ev_register(&other, fd3, "scale_pair", 64))
					fail("register scale_pair: %s", strerror(errno));
				enable("user_events", "scale_1", 1);
				enable("user_events", "scale_pair", 1);
				pair[0] = &fill[1];
				pair[1] = &fill[1];
				one[r] = writers(1, pair);
				two1[r] = writers(2, pair);
				pair[1] = &other;
				two2[r] = writers(2, pair);
				enable("user_events", "scale_1", 0);
				enable("user_events", "scale_pair", 0);
				close(fd3);
				if (!peer && ioctl(fd2, DIAG_IOCSDEL, "scale_pair"))
					fail("delete scale_pair: %s", strerror(errno));
			}
			if (i != marks[m])
				continue;
			/* writes into the first event, ftrace attached */
			ftrace_reset();
			enable("user_events", "scale_1", 1);
			wr[m][r] = run_writes(C_FTRACE, 0, &fill[1], OPS);
			enable("user_events", "scale_1", 0);
			if (ftrace_recorded() != OPS)
				fail("scaling: %ld of %d recorded", ftrace_recorded(), OPS);
			m++;
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
	}
	row("one_writer", "ftrace", 64, 1, median(one, r));
	row("two_writers_one_event", "ftrace", 64, 2, median(two1, r));
	row("two_writers_two_events", "ftrace", 64, 2, median(two2, r));
}

int main(int argc, char **argv)
{
	double check[ROUNDS], ppid[ROUNDS], up[ROUNDS];
	int fd, sfd, r, s, c, have_uprobe;
	char name[32];

	if (argc == 3 && !strcmp(argv[1], "-n")) {
		OPS = atoi(argv[2]);
		CHECK_OPS = OPS * 100;
	} else if (argc == 2 && !strcmp(argv[1], "-p")) {
		profile = 1;
		OPS = 100;
	} else if (argc != 1) {
		OPS = 0;
	}
	if (OPS < 1) {
		fprintf(stderr, "usage: %s [-n OPS | -p]\n", argv[0]);
		return 2;
	}
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
	fd = open(TRACEFS "user_events_data", O_RDWR);
	marker_fd = open(TRACEFS "trace_marker", O_WRONLY);
	marker_raw_fd = open(TRACEFS "trace_marker_raw", O_WRONLY);
	null_fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || marker_fd < 0 || marker_raw_fd < 0 || null_fd < 0)
		die("open");
	/* room for a round of the largest payload: no overrun needed */
	if (write_file(TRACEFS "buffer_size_kb", "8192", O_TRUNC))
		die("buffer_size_kb");
	write_file(TRACEFS "tracing_on", "1", O_TRUNC);
	memset(payload + 4, 'x', MAX_PAYLOAD);
	for (s = 0; s < (int)NR_SIZES; s++) {
		snprintf(name, sizeof(name), "bench_%d", payloads[s]);
		if (ev_register(&events[s], fd, name, payloads[s]))
			die(name);
	}
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
		ppid[r] = getppid_cost();
		for (s = 0; s < (int)NR_SIZES; s++)
			for (c = 0; c < NR_CASES; c++)
				one_case(c, s, r);
		up[r] = have_uprobe ? uprobe_cost() : -1;
	}
	if (have_uprobe)
		uprobe_teardown();

	row("disabled_check", "none", 0, nr_events, median(check, ROUNDS));
	row("getppid", "none", 0, nr_events, median(ppid, ROUNDS));
	if (have_uprobe && up[0] >= 0)
		row("uprobe", "ftrace", 0, nr_events, median(up, ROUNDS));
	for (c = 0; c < NR_CASES; c++)
		for (s = 0; s < (int)NR_SIZES; s++)
			if (!case_broken[c][s])
				row(cases[c].name, cases[c].consumer, payloads[s],
				    nr_events, median(figures[c][s], ROUNDS));

	/* the events of the main table go, so that scaling starts from one */
	close(fd);
	fd = open(TRACEFS "user_events_data", O_RDWR);
	for (s = 0; s < (int)NR_SIZES && !peer; s++)
		if (ioctl(fd, DIAG_IOCSDEL, events[s].name))
			fail("delete %s: %s", events[s].name, strerror(errno));
	close(fd);
	if (!peer)
		nr_events = 0;
	scaling();
	printf("# done: %s\n", failed ? "FAILED" : "ok");
	return failed;
}
