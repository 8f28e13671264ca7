// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_test: a seeded fuzzer of user_events, in three parts that one
 * iteration runs in turn, each a file of its own:
 *
 * - fuzz_desc.c: descriptions (the grammar of the ABI, mutated) registered
 *   and deleted, their canonical forms and formats, payloads written and
 *   found byte for byte in ftrace and perf; tenant groups;
 * - fuzz_bits.c: the enable-bit ABI against a model of the enablers, words
 *   and events;
 * - fuzz_race.c: the enable bit while a thread of the test changes the pages
 *   of its words, forks and signals.
 *
 * All the while, a thread takes CPUs offline and online (ue_hotplug.h) at
 * random times, its choices drawn from the seed, and brings every CPU back
 * as it was at the end.
 *
 * This file runs them: options, the random streams, failures and the report.
 *
 * An iteration draws from its own random stream (seed, iteration) and leaves
 * no event behind, so a failing one replays alone:
 *	fuzz_test --seed S --start I --iterations 1
 *
 * Options: --seed N, --iterations N, --minutes N, --seconds N, --start N,
 * --keep-going (go on after a failure, report each kind once), --verbose,
 * --no-hotplug (no CPU goes offline: is a failure hotplug's?).
 * Without options it runs for about 40 s with a seed taken from the clock.
 */
#include "fuzz_test.h"
#include "ue_hotplug.h"

struct fuzz_opt opt;
unsigned long long rng_state, cur_iter;
static unsigned long long done;
int page_size;
int max_payload;
int fits_all;
const unsigned char *status_page;
unsigned char *guard;		/* a read-write page, then PROT_NONE */
unsigned char *mem;		/* memfd pages, zapped before some writes */

struct live live[MAX_LIVE];
int nr_live;
char (*pre)[256];		/* events that were there before us */
int nr_pre;
int iter_fds[16], nr_iter_fds;

static jmp_buf fail_jmp;
static int failures;
static char fail_kinds[32][64];
static int fail_counts[32], nr_fail_kinds;

struct fuzz_ctx ctx;

struct fuzz_stats stats;

/* Random numbers: splitmix64, one stream per (seed, iteration) ----------- */

unsigned long long mix64(unsigned long long z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned long long rnd(void)
{
	rng_state += 0x9e3779b97f4a7c15ULL;
	return mix64(rng_state);
}

unsigned int rnd_below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

/* lo..hi, both included */
int rnd_range(int lo, int hi)
{
	return hi <= lo ? lo : lo + (int)rnd_below(hi - lo + 1);
}

int chance(int percent)
{
	return (int)rnd_below(100) < percent;
}

const char *pick(const char * const *list, int n)
{
	return list[rnd_below(n)];
}

/* Reporting --------------------------------------------------------------- */

static void print_escaped(const char *label, const unsigned char *s, int len)
{
	static char out[16 * TEXT_MAX + 16];
	int i, o = 0;

	for (i = 0; i < len && o < (int)sizeof(out) - 8; i++) {
		unsigned char c = s[i];

		if (c == '\\' || c == '"')
			o += sprintf(out + o, "\\%c", c);
		else if (c == '\n')
			o += sprintf(out + o, "\\n");
		else if (c == '\t')
			o += sprintf(out + o, "\\t");
		else if (c < 0x20 || c >= 0x7f)
			o += sprintf(out + o, "\\x%02x", c);
		else
			out[o++] = c;
	}
	out[o] = '\0';
	ksft_print_msg("%s (%d bytes): \"%s\"\n", label, len, out);
}

static void print_hex(const char *label, const unsigned char *p, int len)
{
	char line[100];
	int i, o;

	ksft_print_msg("%s (%d bytes):\n", label, len);
	for (i = 0; i < len && i < 4096; i += 32) {
		int j;

		o = 0;
		for (j = i; j < len && j < i + 32; j++)
			o += sprintf(line + o, "%02x", p[j]);
		ksft_print_msg("  %04x: %s\n", i, line);
	}
}

void set_ctx(const char *op, const char *text)
{
	snprintf(ctx.op, sizeof(ctx.op), "%s", op);
	snprintf(ctx.text, sizeof(ctx.text), "%s", text ? text : "");
	ctx.payload = NULL;
	ctx.payload_len = 0;
}

/* A failure: report it with what replays it, then leave the iteration */
__noreturn __printf(2, 3) void fail(const char *kind, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int i;

	/* the race scenario's threads change memory and send signals: not now */
	race_quiet();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	failures++;
	for (i = 0; i < nr_fail_kinds; i++)
		if (!strcmp(fail_kinds[i], kind))
			break;
	if (i == nr_fail_kinds && i < (int)ARRAY_SIZE(fail_kinds)) {
		snprintf(fail_kinds[i], sizeof(fail_kinds[i]), "%s", kind);
		nr_fail_kinds++;
	}
	if (i < (int)ARRAY_SIZE(fail_kinds) && fail_counts[i]++ && opt.keep_going)
		longjmp(fail_jmp, 1);
	ksft_print_msg("FAIL [%s] seed %llu iteration %llu: %s\n", kind, opt.seed,
		       cur_iter, msg);
	ksft_print_msg("operation: %s\n", ctx.op);
	print_escaped("input", (const unsigned char *)ctx.text, strlen(ctx.text));
	if (ctx.payload)
		print_hex("payload after the write index", ctx.payload, ctx.payload_len);
	ksft_print_msg("replay: fuzz_test --seed %llu --start %llu --iterations 1\n",
		       opt.seed, cur_iter);
	longjmp(fail_jmp, 1);
}

int errno_documented(int err)
{
	switch (err) {
	case EINVAL: case E2BIG: case EADDRINUSE: case EMFILE: case ENOENT:
	case EBUSY: case EFAULT: case ENOMEM: case EBADF: case EPERM:
		return 1;
	}
	return 0;
}

const char *err_name(int ret)
{
	static char buf[32];

	switch (-ret) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EADDRINUSE: return "EADDRINUSE";
	case EMFILE: return "EMFILE";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case ENOTTY: return "ENOTTY";
	case EBADF: return "EBADF";
	case EPERM: return "EPERM";
	}
	snprintf(buf, sizeof(buf), "%d (%s)", ret, strerror(-ret));
	return buf;
}

void expect_err(const char *what, int ret, int want)
{
	if (ret != want)
		fail(what, "%s: got %s, want %s", what, err_name(ret), err_name(want));
}

/* tracefs ----------------------------------------------------------------- */

/* The first byte where @a and @b differ, or -1 */
long first_diff(const unsigned char *a, const unsigned char *b, long len)
{
	long i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; a[i] == b[i]; i++)
		;
	return i;
}

/*
 * The line at *@p of a text read whole (its length, without the '\n', in
 * *@len), *@p moved past it; NULL after the last
 */
const char *next_line(const char **p, int *len)
{
	const char *line = *p, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	*len = nl ? nl - line : (int)strlen(line);
	*p = nl ? nl + 1 : line + *len;
	return line;
}

/* The run --------------------------------------------------------------------- */

static void cleanup(void)
{
	char line[2 * TEXT_MAX], name[256];
	int i;

	race_cleanup();
	bits_cleanup();
	tenant_cleanup();
	for (i = 0; i < nr_iter_fds; i++)
		close(iter_fds[i]);
	nr_iter_fds = 0;
	perf_detach(&ring);
	/* events we lost track of: none should be, but leave nothing behind */
	if (!setjmp(fail_jmp)) {
		while (nr_live < MAX_LIVE && dyn_new_lines(line, sizeof(line))) {
			line_name(line, strlen(line), name);
			if (is_live(name) >= 0)
				break;
			add_live(name, line);
		}
	}
	while (nr_live) {
		struct live *e = &live[nr_live - 1];
		int fd = open(UE_DATA, O_RDWR);

		uet_write_file(inst_path(0, e->name, "enable"), "0", O_TRUNC);
		uet_write_file(inst_path(1, e->name, "enable"), "0", O_TRUNC);
		uet_write_file(inst_path(0, e->name, "trigger"), "", O_TRUNC);
		if (fd < 0 || uet_delete(fd, e->name)) {
			char cmd[300];

			snprintf(cmd, sizeof(cmd), "-:%s", e->name);
			if (uet_dyn_cmd(cmd))
				ksft_print_msg("could not delete %s at the end\n", e->name);
		}
		if (fd >= 0)
			close(fd);
		nr_live--;
	}
}

static void one_iteration(void)
{
	char desc[TEXT_MAX];
	int n = chance(80) ? 1 : rnd_range(2, 4), i, fd, fd_count = 0;

	fd = open_data();
	for (i = 0; i < n; i++) {
		if (i && nr_live && chance(50)) {
			struct live *e = &live[rnd_below(nr_live)];

			/* the same name: same fields again, or other ones */
			if (chance(50))
				respace(e->line, desc, sizeof(desc));
			else
				gen_desc(desc, sizeof(desc), e->name);
		} else {
			gen_desc(desc, sizeof(desc), NULL);
		}
		if (chance(50)) {
			mutate(desc, sizeof(desc));
			stats.mutated++;
		}
		try_desc(desc, fd, &fd_count);
	}
	close_data(fd);
	while (nr_live)
		process_live(&live[0]);
	if (chance(25))
		reg_edges();
	if (chance(8))
		dyn_edges();
	if (chance(4))
		refs_scenario();
	if (chance(2))
		many_events();
	while (nr_live)
		delete_live(&live[0]);
	if (chance(30)) {
		stats.bits_scenarios++;
		bits_scenario();
	}
	if (chance(4))
		race_scenario();
	if (chance(5))
		groups_scenario();
	if (chance(5))
		tenant_scenario();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void read_pre(void)
{
	char *all = uet_read_file(UE_DYN), name[256];
	const char *p = all, *l;
	int cap = 0, len;

	if (!all)
		ksft_exit_skip("cannot read %s: %s\n", UE_DYN, strerror(errno));
	while ((l = next_line(&p, &len))) {
		if (line_name(l, len, name)) {
			if (nr_pre == cap) {
				cap = cap ? 2 * cap : 16;
				pre = realloc(pre, cap * sizeof(*pre));
				if (!pre)
					ksft_exit_fail_msg("out of memory\n");
			}
			snprintf(pre[nr_pre++], 256, "%s", name);
		}
	}
	free(all);
}

static void setup(void)
{
	int fd = open(UE_STATUS, O_RDONLY), mfd;

	page_size = getpagesize();
	max_payload = UE_MAX_PAYLOAD;
	fits_all = page_size - 48;
	if (fd < 0)
		ksft_exit_skip("cannot open %s: %s\n", UE_STATUS, strerror(errno));
	status_page = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (status_page == MAP_FAILED)
		ksft_exit_fail_msg("mmap of the status page: %s\n", strerror(errno));
	guard = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || mprotect(guard + page_size, page_size, PROT_NONE))
		ksft_exit_fail_msg("guard page: %s\n", strerror(errno));
	mfd = memfd_create("fuzz_test", 0);
	if (mfd < 0 || ftruncate(mfd, MEM_PAGES * page_size))
		ksft_exit_fail_msg("memfd: %s\n", strerror(errno));
	mem = mmap(NULL, MEM_PAGES * page_size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	close(mfd);
	if (mem == MAP_FAILED)
		ksft_exit_fail_msg("mmap of the memfd: %s\n", strerror(errno));
	read_pre();
	bits_setup();
	if (mkdir(TRACEFS INSTANCE, 0755) && errno != EEXIST)
		ksft_exit_fail_msg("mkdir %s: %s\n", TRACEFS INSTANCE, strerror(errno));
}

static unsigned long long arg_num(int argc, char **argv, int i)
{
	char *end;
	unsigned long long v;

	if (i + 1 >= argc)
		ksft_exit_fail_msg("%s needs a number\n", argv[i]);
	errno = 0;
	v = strtoull(argv[i + 1], &end, 0);
	if (errno || *end || end == argv[i + 1])
		ksft_exit_fail_msg("%s: bad number '%s'\n", argv[i], argv[i + 1]);
	return v;
}

static const char usage[] =
	"[--seed N] [--iterations N] [--minutes|--seconds N] [--start N] [--keep-going] [-v]";
static int no_hotplug;

static void parse_args(int argc, char **argv)
{
	int i, have_seed = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed")) {
			opt.seed = arg_num(argc, argv, i++);
			have_seed = 1;
		} else if (!strcmp(argv[i], "--iterations")) {
			opt.iterations = arg_num(argc, argv, i++);
			opt.have_iterations = 1;
		} else if (!strcmp(argv[i], "--minutes")) {
			opt.seconds = 60.0 * arg_num(argc, argv, i++);
			opt.have_time = 1;
		} else if (!strcmp(argv[i], "--seconds")) {
			opt.seconds = arg_num(argc, argv, i++);
			opt.have_time = 1;
		} else if (!strcmp(argv[i], "--start")) {
			opt.start = arg_num(argc, argv, i++);
		} else if (!strcmp(argv[i], "--keep-going")) {
			opt.keep_going = 1;
		} else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
			opt.verbose = 1;
		} else if (!strcmp(argv[i], "--no-hotplug")) {
			no_hotplug = 1;
		} else {
			ksft_exit_fail_msg("usage: %s %s [--no-hotplug]\n", argv[0], usage);
		}
	}
	if (!have_seed)
		opt.seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
	if (!opt.have_iterations && !opt.have_time) {
		opt.seconds = DEFAULT_SECONDS;
		opt.have_time = 1;
	}
}

static void print_stats(unsigned long long done, double secs)
{
	ksft_print_msg("seed %llu: %llu iterations (from %llu) in %.0f s, %.1f/s\n",
		       opt.seed, done, opt.start, secs, secs > 0 ? done / secs : 0.0);
	ksft_print_msg("descriptions %llu (mutated %llu): accepted %llu, rejected %llu\n",
		       stats.descs, stats.mutated, stats.accepted, stats.rejected);
	ksft_print_msg("either-way %llu; round trips %llu; deletes %llu\n", stats.either,
		       stats.round_trips, stats.deletes);
	ksft_print_msg("writes %llu (accepted %llu): %llu traced, %llu perf samples; "
		       "trace checks %llu (%llu lines cut at 8 KiB), perf checks %llu; "
		       "edge cases %llu\n",
		       stats.writes, stats.writes_ok, stats.traced, stats.sampled,
		       stats.trace_checks, stats.cut_lines, stats.perf_checks, stats.edges);
	ksft_print_msg("enable bits: %llu scenarios, %llu regs (%llu ok), %llu unregs (%llu ok)\n",
		       stats.bits_scenarios, stats.bits_regs, stats.bits_regs_ok,
		       stats.bits_unregs, stats.bits_unregs_ok);
	ksft_print_msg("enable bits: %llu auto-deleted, %llu word checks, %llu unprivileged\n",
		       stats.bits_gone, stats.bits_word_checks, stats.bits_unprivileged);
	ksft_print_msg("enable bits: %llu race scenarios; %llu regs (%llu ok, %llu EFAULT); "
		       "%llu unregs (%llu ok); %llu pages changed by a thread; "
		       "%llu forks, %llu by the thread; %llu signals; %llu page checks\n",
		       stats.race_scenarios, stats.race_regs, stats.race_regs_ok, stats.race_efault,
		       stats.race_unregs, stats.race_unregs_ok, stats.race_remaps, stats.race_forks,
		       stats.race_thread_forks, stats.race_signals, stats.race_checks);
	ksft_print_msg("groups: %llu scenarios, %llu regs (%llu past the limit), %llu twins\n",
		       stats.group_scenarios, stats.group_regs, stats.group_full,
		       stats.group_same_name);
	ksft_print_msg("tenant buffers: %llu scenarios, %llu operations, %llu %s, %llu %s\n",
		       stats.tenant_scenarios, stats.tenant_ops, stats.tenant_removed,
		       "removed under readers", stats.tenant_spliced,
		       "with spliced pages held");
}

int main(int argc, char **argv)
{
	double start_time, secs;
	int i, active, before;
	const char *why;
	char limit[64];

	parse_args(argc, argv);
	ksft_print_header();
	/* perf samples and hist triggers are among the operations */
	why = uet_missing(UE_NEED_PERF | UE_NEED_HIST);
	if (why)
		ksft_exit_skip("%s\n", why);
	ksft_set_plan(2);
	setup();
	before = uet_status_active();
	if (opt.have_iterations)
		snprintf(limit, sizeof(limit), "%llu iterations", opt.iterations);
	else
		snprintf(limit, sizeof(limit), "no iteration limit");
	if (opt.have_time)
		snprintf(limit + strlen(limit), sizeof(limit) - strlen(limit), ", %.0f s",
			 opt.seconds);
	ksft_print_msg("seed %llu, from iteration %llu, %s%s\n", opt.seed, opt.start, limit,
		       opt.keep_going ? ", keep going after failures" : "");
	if (!no_hotplug)
		ue_hotplug_start(opt.seed);
	start_time = now();
	for (cur_iter = opt.start; ; cur_iter++) {
		if (opt.have_iterations && done >= opt.iterations)
			break;
		if (opt.have_time && now() - start_time >= opt.seconds)
			break;
		if (failures && !opt.keep_going)
			break;
		rng_state = mix64(opt.seed) ^ mix64(cur_iter + 0x5eed);
		if (!setjmp(fail_jmp))
			one_iteration();
		cleanup();
		done++;
		if (opt.verbose && !(done % 100))
			ksft_print_msg("%llu iterations\n", done);
	}
	secs = now() - start_time;
	failures += ue_hotplug_stop();
	print_stats(done, secs);
	for (i = 0; i < nr_fail_kinds; i++)
		ksft_print_msg("failure kind '%s': %d times\n", fail_kinds[i], fail_counts[i]);
	ksft_test_result(!failures, "fuzz seed %llu: %llu iterations, %d failures\n",
			 opt.seed, done, failures);
	active = uet_status_active();
	rmdir(TRACEFS INSTANCE);
	ksft_test_result(active == before, "cleanup: Active %d, %d before the run\n",
			 active, before);
	ksft_finished();
}
