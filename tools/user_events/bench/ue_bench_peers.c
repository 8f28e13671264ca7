// SPDX-License-Identifier: GPL-2.0
/*
 * ue_bench_peers: what users pick instead of user_events, measured as
 * ue_bench measures ours (guest instructions per event under QEMU's
 * -icount shift=0: guest TSC deltas; the median of ROUNDS rounds, the
 * cases alternating within a round; every recorded event counted).
 *
 *   lttng_ust  an LTTng-UST tracepoint (ue_bench_tp.h) of one byte
 *              sequence of the payload's size: consumer "none" is the
 *              tracepoint ue_bench:idle, which no session enables;
 *              "lttng" is ue_bench:payload, recorded by the session that
 *              scripts/bench-guest created before starting this program
 *              (UE_BENCH_LTTNG_SESSION, its trace in UE_BENCH_LTTNG_OUTPUT)
 *              with LTTng's defaults: per-user buffers, discard mode,
 *              4 sub-buffers of 512 KiB per CPU, the consumer daemon
 *              draining them on the other CPU. A round starts on fresh
 *              sub-buffers (lttng rotate) and fills less than one, so
 *              that the consumer's work is not counted as the writer's
 *              (lttng_on()) and nothing is discarded; at the end the
 *              session is stopped and babeltrace2 must count every event
 *              written, in all the trace's chunks, or the rows are not
 *              printed.
 *   usdt       a USDT probe (<sys/sdt.h>, DTRACE_PROBE1(ue_bench, payload,
 *              buf)): "none" is the probe nobody attached (its nop);
 *              "ftrace" is a uprobe event at the probe's address (read from
 *              the .note.stapsdt of /proc/self/exe) that records the
 *              payload as a string (buf: size - 1 bytes and a NUL) into
 *              ftrace, as a user following the USDT documentation would.
 *
 * Output: the csv: lines of ue_bench (kernel,case,consumer,payload_bytes,
 * events_registered,instructions_per_op), "# " comments, "error: " lines;
 * exits 0 only when every case worked.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "ue_bench_tp.h"

#include "../../testing/selftests/user_events/ue_util.h"

#define ROUNDS 5
#define MAX_PAYLOAD 4000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#include "ue_bench_common.h"
/*
 * Half a sub-buffer of LTTng's default (512 KiB): a round never fills one,
 * so the consumer daemon is not woken while it is timed (see lttng_on())
 */
#define LTTNG_ROUND_BYTES (256 << 10)

static const int payloads[] = { 8, 64, 256, 1024, 4000 };
#define NR_SIZES ARRAY_SIZE(payloads)

/* per size: a payload of 'x's, a NUL at size - 1 for the USDT string */
static char bufs[NR_SIZES][MAX_PAYLOAD];

/* LTTng-UST ----------------------------------------------------------------- */

static int lttng_ops(int s)
{
	int n = LTTNG_ROUND_BYTES / (payloads[s] + 64);

	return n < OPS ? n : OPS;
}

static __attribute__((noinline)) double lttng_idle(int s)
{
	uint64_t t0 = now();
	int i;

	for (i = 0; i < OPS; i++)
		lttng_ust_tracepoint(ue_bench, idle, bufs[s], payloads[s]);
	return (double)(now() - t0) / OPS;
}

/*
 * Under -icount the guest's clock counts the instructions of every vCPU:
 * the consumer daemon copying sub-buffers out on the other vCPU would
 * count as the writer's. So each round starts on fresh sub-buffers (a
 * session rotation switches and drains them, waiting for the consumer)
 * and writes less than one: nothing wakes the consumer while it is timed.
 * What the writer pays; the consumer's copy, as for ftrace (nothing reads
 * its buffer here), is not in the figure.
 */
static const char *lttng_session;

static __attribute__((noinline)) double lttng_on(int s)
{
	int i, ops = lttng_ops(s);
	char cmd[300];
	uint64_t t0;

	snprintf(cmd, sizeof(cmd), "lttng rotate %s > /dev/null", lttng_session);
	if (system(cmd))
		fail("lttng: %s failed", cmd);
	t0 = now();
	for (i = 0; i < ops; i++)
		lttng_ust_tracepoint(ue_bench, payload, bufs[s], payloads[s]);
	return (double)(now() - t0) / ops;
}

/* ue_bench:payload events in the session's trace, by babeltrace2; -1 on error */
static long lttng_count(const char *session, const char *output)
{
	char cmd[600], line[256];
	long n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "lttng stop %s > /dev/null", session);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "babeltrace2 %s -c sink.utils.counter 2>&1",
		 output);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	/* the counter prints running totals: the last one counts */
	while (fgets(line, sizeof(line), p)) {
		long v;

		if (strstr(line, "Event messages") && sscanf(line, "%ld", &v) == 1)
			n = v;
	}
	if (pclose(p))
		return -1;
	return n;
}

/*
 * LTTng-UST stamps each event with clock_gettime(CLOCK_MONOTONIC). The
 * bench guest's clocksource is jiffies (no TSC calibration under -icount),
 * which the vDSO cannot read: each call is a system call, which a machine
 * with a TSC clocksource does not make. Measured apart, so the report can
 * show LTTng-UST with and without it.
 */
static __attribute__((noinline)) double clock_cost(void)
{
	struct timespec ts;
	uint64_t t0 = now();
	int i;

	for (i = 0; i < OPS; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(now() - t0) / OPS;
}

/* USDT ----------------------------------------------------------------------- */

static __attribute__((noinline)) double usdt_run(int s)
{
	const char *buf = bufs[s];
	uint64_t t0 = now();
	int i;

	for (i = 0; i < OPS; i++)
		DTRACE_PROBE1(ue_bench, payload, buf);
	return (double)(now() - t0) / OPS;
}

/* pt_regs names of uprobe fetch args, for the registers a note may name */
static const char *reg_name(const char *r)
{
	static const char *const map[][5] = {
		{ "ax", "rax", "eax" }, { "bx", "rbx", "ebx" }, { "cx", "rcx", "ecx" },
		{ "dx", "rdx", "edx" }, { "si", "rsi", "esi" }, { "di", "rdi", "edi" },
		{ "bp", "rbp", "ebp" }, { "sp", "rsp", "esp" },
		{ "r8", "r8", "r8d" }, { "r9", "r9", "r9d" }, { "r10", "r10", "r10d" },
		{ "r11", "r11", "r11d" }, { "r12", "r12", "r12d" },
		{ "r13", "r13", "r13d" }, { "r14", "r14", "r14d" },
		{ "r15", "r15", "r15d" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(r, map[i][1]) || !strcmp(r, map[i][2]))
			return map[i][0];
	return NULL;
}

/*
 * The uprobe_events line of the USDT probe ue_bench:payload of @path:
 * its file offset from the note's pc and the program headers, its
 * argument's register from the note's "8@%reg"
 */
static int usdt_probe_line(const char *path, char *line, size_t len)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const Elf64_Phdr *ph;
	const char *base, *strtab;
	int fd, i, ret = -ENOENT;
	struct stat st;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return -errno;
	base = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return -errno;
	eh = (const Elf64_Ehdr *)base;
	sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	strtab = base + sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *p = base + sh[i].sh_offset, *end = p + sh[i].sh_size;

		if (sh[i].sh_type != SHT_NOTE ||
		    strcmp(strtab + sh[i].sh_name, ".note.stapsdt"))
			continue;
		while (p + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
			const char *desc = p + sizeof(*nh) + ((nh->n_namesz + 3) & ~3);
			const char *prov, *name, *args;
			char reg[8];
			uint64_t pc;
			int k;

			p = desc + ((nh->n_descsz + 3) & ~3);
			if (nh->n_type != 3)
				continue;
			memcpy(&pc, desc, sizeof(pc));
			prov = desc + 24;
			name = prov + strlen(prov) + 1;
			args = name + strlen(name) + 1;
			if (strcmp(prov, "ue_bench") || strcmp(name, "payload"))
				continue;
			printf("# usdt: ue_bench:payload at 0x%llx, argument %s\n",
			       (unsigned long long)pc, args);
			if (sscanf(args, "8@%%%7[a-z0-9]", reg) != 1 || !reg_name(reg))
				break;
			for (k = 0; k < eh->e_phnum; k++) {
				if (ph[k].p_type != PT_LOAD || pc < ph[k].p_vaddr ||
				    pc >= ph[k].p_vaddr + ph[k].p_memsz)
					continue;
				snprintf(line, len,
					 "p:usdt/ue_bench_payload %s:0x%llx buf=+0(%%%s):string",
					 path, (unsigned long long)(pc - ph[k].p_vaddr +
								   ph[k].p_offset),
					 reg_name(reg));
				ret = 0;
			}
			break;
		}
	}
	munmap((void *)base, st.st_size);
	return ret;
}

static int usdt_setup(void)
{
	char exe[256], line[600];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret;

	if (n < 0)
		return -errno;
	exe[n] = '\0';
	ret = usdt_probe_line(exe, line, sizeof(line));
	if (ret)
		return ret;
	printf("# usdt: %s\n", line);
	ret = uet_write_file(TRACEFS "uprobe_events", line, O_APPEND);
	return ret ? ret : uet_enable_in("usdt", "ue_bench_payload", 0);
}

static void usdt_teardown(void)
{
	uet_enable_in("usdt", "ue_bench_payload", 0);
	uet_write_file(TRACEFS "uprobe_events", "-:usdt/ue_bench_payload", O_APPEND);
}

/* A round of the attached probe: every hit recorded, with its string */
static double usdt_traced(int s)
{
	double v;
	long got;

	uet_write_file(TRACEFS "trace", "", O_TRUNC);
	v = usdt_run(s);
	got = ftrace_recorded();
	if (got != OPS) {
		fail("usdt %d B: %ld of %d recorded", payloads[s], got, OPS);
		return -1;
	}
	return v;
}

int main(int argc, char **argv)
{
	double l_idle[ROUNDS], l_on[NR_SIZES][ROUNDS];
	double u_idle[ROUNDS], u_on[NR_SIZES][ROUNDS], clk[ROUNDS];
	const char *session = getenv("UE_BENCH_LTTNG_SESSION");
	const char *output = getenv("UE_BENCH_LTTNG_OUTPUT");
	long expected = 0, got;
	int r, s, sfd, have_usdt, have_lttng = session && output;
	void *page;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		OPS = atoi(argv[2]);
	else if (argc != 1)
		OPS = 0;
	need_ops(argv[0], "[-n OPS]");
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* ue_bench's test of the kernel: ours has a status page to map */
	sfd = open(TRACEFS "user_events_status", O_RDONLY);
	page = sfd < 0 ? MAP_FAILED :
	       mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, sfd, 0);
	if (page == MAP_FAILED)
		kernel = "peer";
	printf("# ue_bench_peers in kernel %s: %d rounds of %d operations\n",
	       kernel, ROUNDS, OPS);
	for (s = 0; s < (int)NR_SIZES; s++) {
		memset(bufs[s], 'x', payloads[s] - 1);
		bufs[s][payloads[s] - 1] = '\0';
	}
	lttng_session = session;
	if (!have_lttng)
		fail("lttng: no session (UE_BENCH_LTTNG_SESSION, UE_BENCH_LTTNG_OUTPUT)");
	have_usdt = !usdt_setup();
	if (!have_usdt)
		fail("usdt: cannot set up the uprobe of the probe");
	uet_write_file(TRACEFS "tracing_on", "1", O_TRUNC);

	for (r = 0; r < ROUNDS; r++) {
		l_idle[r] = lttng_idle(1);
		clk[r] = clock_cost();
		uet_enable_in("usdt", "ue_bench_payload", 0);
		u_idle[r] = usdt_run(1);
		for (s = 0; s < (int)NR_SIZES; s++) {
			if (have_lttng) {
				l_on[s][r] = lttng_on(s);
				expected += lttng_ops(s);
			}
			if (have_usdt) {
				uet_enable_in("usdt", "ue_bench_payload", 1);
				u_on[s][r] = usdt_traced(s);
				uet_enable_in("usdt", "ue_bench_payload", 0);
			}
		}
	}
	if (have_usdt)
		usdt_teardown();

	row("lttng_ust", "none", 64, 0, median(l_idle, ROUNDS));
	row("usdt", "none", 64, 0, median(u_idle, ROUNDS));
	row("clock_gettime", "none", 0, 0, median(clk, ROUNDS));
	if (have_lttng) {
		got = lttng_count(session, output);
		printf("# lttng: %ld ue_bench:payload events written, %ld in the trace\n",
		       expected, got);
		if (got != expected)
			fail("lttng: %ld events written, the trace has %ld", expected, got);
		else
			for (s = 0; s < (int)NR_SIZES; s++)
				row("lttng_ust", "lttng", payloads[s], 0,
				    median(l_on[s], ROUNDS));
	}
	for (s = 0; s < (int)NR_SIZES && have_usdt; s++)
		if (u_on[s][0] >= 0)
			row("usdt", "ftrace", payloads[s], 0, median(u_on[s], ROUNDS));
	printf("# done: %s\n", failed ? "FAILED" : "ok");
	return failed;
}
