/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ue_bench and ue_bench_peers share: the clock (guest instructions
 * under -icount), the median of the rounds, the csv: row, error lines and
 * the count of what ftrace recorded. Include after <stdio.h> and friends,
 * ue_util.h and a definition of ROUNDS.
 */
#ifndef UE_BENCH_COMMON_H
#define UE_BENCH_COMMON_H

/* "ours" or "peer": the kernel whose ABI the program found */
static const char *kernel = "ours";
static int failed;
static int OPS = 10000;		/* operations per round and case (-n) */

/* Exit 2 with the usage line (@args) unless OPS is at least 1 */
static void need_ops(const char *prog, const char *args)
{
	if (OPS >= 1)
		return;
	fprintf(stderr, "usage: %s %s\n", prog, args);
	exit(2);
}

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

/* Events ftrace has taken since the last reset: entries + overruns, all CPUs */
static long ftrace_recorded(void)
{
	long total = 0;
	char path[128], *stats, *p;
	int cpu;

	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), TRACEFS "per_cpu/cpu%d/stats", cpu);
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

#endif /* UE_BENCH_COMMON_H */
