// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_test: a seeded fuzzer for user_events descriptions and payloads.
 *
 * Each iteration generates event descriptions from the grammar of the ABI
 * (names, flags, every field type, arrays, __data_loc/__rel_loc, struct with
 * sizes, separators), mutates some of them (bytes, lengths around the
 * 512-byte limit, separators, numbers at their limits, white space) and
 * registers them through DIAG_IOCSREG or the u: command of dynamic_events.
 *
 * A reference parser written from the ABI and the choices user_events.rst
 * documents where the ABI is silent (sizes are decimal or 0x hex, no sign,
 * no leading 0 in either; only space, tab and newline separate words; names
 * are ASCII; no event called "enable" or "filter", no field called
 * "common_*"; the canonical form obeys the 511-byte limit too) predicts each
 * outcome: accepted with a known canonical form and layout, EINVAL or E2BIG.
 * Every accepted description must show up in
 * dynamic_events in a canonical form that parses back to itself and that,
 * registered again after a delete, makes the same event: the same line and
 * the same format file. Accepted events then get random and boundary payloads
 * through write() and writev() (split iovecs, pages not present, unreadable
 * memory, loc fields pointing anywhere) with ftrace and perf attached or not;
 * every write accepted while a consumer listened must be in the trace and in
 * the perf buffer, byte for byte. Errors other than the documented ones fail.
 *
 * The enable-bit ABI (ABI section 9) gets scenarios of its own: registrations
 * through struct user_reg with sizes, tails, enable_size, enable_bit,
 * alignment, flags and addresses (a word, unmapped, read-only, the struct or
 * the description running into PROT_NONE) valid or not, DIAG_IOCSUNREG with
 * good and bad arguments, the status-page ABI on the same events, consumers
 * attached to pages the kernel must fault in, writes (EBADF while nothing
 * listens), fds closed and enablers dropped in random order, a child without
 * CAP_PERFMON. A model of the process's enablers, of the words (every other
 * bit of memory around them must stay as it was) and of each event's
 * references predicts each errno, each word and when each event goes.
 *
 * A race scenario of the enable bit, now and then: the test registers,
 * unregisters, attaches and detaches consumers and forks while a thread of
 * its own changes the pages of the words at that same moment (each call
 * paired with one change, both released together after head starts of
 * their own): it moves a page of random bytes over a word (mremap()), maps
 * a memfd page over it (with or without an munmap() first), unmaps it or
 * moves it away, or forks a child that exits at once (the copy of the
 * enablers meeting one being unregistered, or registered); mostly a third
 * thread sends the test SIGUSR1, without SA_RESTART. Each registration
 * returns 0, EFAULT or EADDRINUSE, the exact one when its page did not
 * change meanwhile, and never EINTR; each DIAG_IOCSUNREG 0 while the
 * process has the enabler, whatever became of its page. After each status
 * change and at the end, every page mapped
 * over a word holds what the thread put there but for the bits of enablers
 * registered since, and a page moved away is as it was when it moved: the
 * kernel wrote nothing into memory the process no longer had as the word.
 * A child forked meanwhile maps pages of its own over the words at once,
 * and they keep their bytes through two status changes. Everything is
 * unregistered, closed and detached at the end, and the scenario's two
 * events, made through this ABI, must go. Its calls and changes come from
 * the iteration's stream like the rest; only their interleaving, and so
 * whether a window is hit, differs from one run of it to the next.
 *
 * The reference model (the parser of the grammar, the model of the enablers,
 * words and events) is in fuzz_model.h; this file generates the inputs,
 * makes the system calls and compares what the kernel did with the model.
 *
 * An iteration draws from its own random stream (seed, iteration) and leaves
 * no event behind, so a failing one replays alone:
 *	fuzz_test --seed S --start I --iterations 1
 *
 * Options: --seed N, --iterations N, --minutes N, --seconds N, --start N,
 * --keep-going (go on after a failure, report each kind once), --verbose.
 * Without options it runs for about 40 s with a seed taken from the clock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/capability.h>
#include <linux/perf_event.h>

#include "../kselftest.h"
#include "ue_helpers.h"
#include "fuzz_model.h"

#define MAX_LIVE	64
#define MAX_WRITES	12
#define PAYLOAD_BUF	(70 * 1024)
#define REC_BUF		(MAX_WRITES * (8192 + 16))
#define PERF_PAGES	32
#define MEM_PAGES	32
#define TRACE_TEXT	(16 * 1024)
#define DEFAULT_SECONDS	40

/* An event this run created and has not deleted yet */
struct live {
	char name[256];
	char line[2 * TEXT_MAX];	/* as dynamic_events shows it */
	unsigned int sidx;		/* status index, 0 while unknown */
	int widx;			/* write index on the iteration's fd, or -1 */
};

static struct {
	unsigned long long seed, start, iterations;
	double seconds;
	int keep_going, verbose, have_iterations, have_time;
} opt;

static unsigned long long rng_state, cur_iter, done;
static int max_payload;
/* the largest payload every consumer records (ftrace, one-page sub-buffers) */
static int fits_all;
static const unsigned char *status_page;
static unsigned char *guard;		/* a read-write page, then PROT_NONE */
static unsigned char *mem;		/* memfd pages, zapped before some writes */

static struct live live[MAX_LIVE];
static int nr_live;
static char (*pre)[256];		/* events that were there before us */
static int nr_pre;
static int iter_fds[16], nr_iter_fds;

static jmp_buf fail_jmp;
static int failures;
static char fail_kinds[32][64];
static int fail_counts[32], nr_fail_kinds;

/* What the failing operation was given, for the report */
static struct {
	char op[64];
	char text[4 * TEXT_MAX];
	const unsigned char *payload;
	int payload_len;
} ctx;

static struct {
	unsigned long long descs, mutated, accepted, rejected, either, round_trips;
	unsigned long long writes, writes_ok, traced, sampled, trace_checks, cut_lines;
	unsigned long long perf_checks, deletes, edges;
	unsigned long long bits_scenarios, bits_regs, bits_regs_ok, bits_unregs;
	unsigned long long bits_unregs_ok, bits_gone, bits_word_checks, bits_unprivileged;
	unsigned long long race_scenarios, race_regs, race_regs_ok, race_efault, race_unregs;
	unsigned long long race_unregs_ok, race_remaps, race_forks, race_signals, race_checks;
	unsigned long long race_thread_forks;
	unsigned long long group_scenarios, group_regs, group_full, group_same_name;
} stats;

/* Random numbers: splitmix64, one stream per (seed, iteration) ----------- */

static unsigned long long mix64(unsigned long long z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned long long rnd(void)
{
	rng_state += 0x9e3779b97f4a7c15ULL;
	return mix64(rng_state);
}

static unsigned int rnd_below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

/* lo..hi, both included */
static int rnd_range(int lo, int hi)
{
	return hi <= lo ? lo : lo + (int)rnd_below(hi - lo + 1);
}

static int chance(int percent)
{
	return (int)rnd_below(100) < percent;
}

static const char *pick(const char * const *list, int n)
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

static void set_ctx(const char *op, const char *text)
{
	snprintf(ctx.op, sizeof(ctx.op), "%s", op);
	snprintf(ctx.text, sizeof(ctx.text), "%s", text ? text : "");
	ctx.payload = NULL;
	ctx.payload_len = 0;
}

static void race_quiet(void);

/* A failure: report it with what replays it, then leave the iteration */
static __noreturn __printf(2, 3) void fail(const char *kind, const char *fmt, ...)
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

static int errno_documented(int err)
{
	switch (err) {
	case EINVAL: case E2BIG: case EADDRINUSE: case EMFILE: case ENOENT:
	case EBUSY: case EFAULT: case ENOMEM: case EBADF: case EPERM:
		return 1;
	}
	return 0;
}

static const char *err_name(int ret)
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

static void expect_err(const char *what, int ret, int want)
{
	if (ret != want)
		fail(what, "%s: got %s, want %s", what, err_name(ret), err_name(want));
}

/* tracefs ----------------------------------------------------------------- */

static int dyn_cmd(const char *cmd)
{
	return uet_write_file(UE_DYN, cmd, O_APPEND);
}

/*
 * The name of a "u:" line of dynamic_events, into @name: a default-group
 * event's "name"; another system's event ("u:SYSTEM/name") keeps the
 * system in it, so it is never taken for one of the default group
 */
static int line_name(const char *line, int len, char *name)
{
	int n = 0;

	if (len < 3 || strncmp(line, "u:", 2))
		return 0;
	line += 2;
	len -= 2;
	while (n < len && n < 255 && line[n] != ':' && line[n] != ' ')
		n++;
	copy_word(name, 256, line, n);
	return 1;
}

/* The dynamic_events line of @name into @out (without '\n'), or 0 */
static int dyn_line(const char *name, char *out, size_t size)
{
	char *all = uet_read_file(UE_DYN), *p, *nl, lname[256];
	int found = 0;

	if (!all)
		fail("tracefs", "cannot read dynamic_events: %s", strerror(errno));
	for (p = all; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (line_name(p, nl - p, lname) && !strcmp(lname, name)) {
			snprintf(out, size, "%.*s", (int)(nl - p), p);
			found++;
		}
		if (!*nl)
			break;
	}
	free(all);
	if (found > 1)
		fail("listing", "dynamic_events shows %s %d times", name, found);
	return found;
}

static int is_live(const char *name)
{
	int i;

	for (i = 0; i < nr_live; i++)
		if (!strcmp(live[i].name, name))
			return i;
	return -1;
}

static int is_pre(const char *name)
{
	int i;

	for (i = 0; i < nr_pre; i++)
		if (!strcmp(pre[i], name))
			return 1;
	return 0;
}

static struct live *add_live(const char *name, const char *line)
{
	struct live *e;

	if (nr_live == MAX_LIVE)
		fail("internal", "too many live events");
	e = &live[nr_live++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->line, sizeof(e->line), "%s", line);
	e->widx = -1;
	return e;
}

static void drop_live(struct live *e)
{
	int i = e - live;

	memmove(&live[i], &live[i + 1], (nr_live - i - 1) * sizeof(*e));
	nr_live--;
}

/*
 * The "u:" lines of dynamic_events whose events are neither ours nor were
 * there before: what a registration just created. Returns how many; the
 * first goes to @line.
 */
static int dyn_new_lines(char *line, size_t size)
{
	char *all = uet_read_file(UE_DYN), *p, *nl, name[256];
	int n = 0;

	if (!all)
		fail("tracefs", "cannot read dynamic_events: %s", strerror(errno));
	for (p = all; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (line_name(p, nl - p, name) && is_live(name) < 0 && !is_pre(name)) {
			if (!n++)
				snprintf(line, size, "%.*s", (int)(nl - p), p);
		}
		if (!*nl)
			break;
	}
	free(all);
	return n;
}

/* The user_events_status line of @name: its index and what follows it */
static int status_line(const char *name, unsigned int *idx, char *tail, size_t size)
{
	char *all = uet_read_file(UE_STATUS), *p, *nl, *c;
	size_t nlen = strlen(name);
	int found = 0;

	if (!all)
		fail("tracefs", "cannot read user_events_status: %s", strerror(errno));
	for (p = all; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		c = memchr(p, ':', nl - p);
		if (c && is_digit(*p) && !strncmp(c + 1, name, nlen) &&
		    (c[1 + nlen] == ':' || c[1 + nlen] == ' ' || c + 1 + nlen == nl)) {
			*idx = strtoul(p, NULL, 10);
			snprintf(tail, size, "%.*s", (int)(nl - c - 1 - nlen), c + 1 + nlen);
			found++;
		}
		if (!*nl)
			break;
	}
	free(all);
	return found;
}

#define INSTANCE "instances/fuzz_test/"

/* events/@sys/@name/@file, of the top buffer or of our instance */
static char *sys_path(int inst, const char *sys, const char *name, const char *file)
{
	static char path[600];

	snprintf(path, sizeof(path), TRACEFS "%sevents/%s/%s%s%s",
		 inst ? INSTANCE : "", sys, name, *file ? "/" : "", file);
	return path;
}

/* events/user_events/@name/@file, of the top buffer or of our instance */
static char *inst_path(int inst, const char *name, const char *file)
{
	return sys_path(inst, USER_EVENTS_SYSTEM, name, file);
}

static char *event_path(const char *name, const char *file)
{
	return inst_path(0, name, file);
}

static int open_data(void)
{
	int fd = open(UE_DATA, O_RDWR);

	if (fd < 0)
		fail("tracefs", "open user_events_data: %s", strerror(errno));
	if (nr_iter_fds < (int)ARRAY_SIZE(iter_fds))
		iter_fds[nr_iter_fds++] = fd;
	return fd;
}

static void close_data(int fd)
{
	int i;

	for (i = 0; i < nr_iter_fds; i++) {
		if (iter_fds[i] == fd) {
			iter_fds[i] = iter_fds[--nr_iter_fds];
			break;
		}
	}
	close(fd);
}

/* Registering and deleting ------------------------------------------------ */

/* @desc through DIAG_IOCSREG, sometimes ending right before a PROT_NONE page */
static int reg_ioctl(int fd, const char *desc, struct user_status_reg *reg)
{
	size_t len = strlen(desc) + 1;

	if (len <= (size_t)page_size && chance(10)) {
		char *at = (char *)guard + page_size - len;

		memcpy(at, desc, len);
		return uet_register(fd, at, reg);
	}
	return uet_register(fd, desc, reg);
}

static int reg_dyn(const char *desc)
{
	static char cmd[TEXT_MAX + 8];

	snprintf(cmd, sizeof(cmd), "u:%s", desc);
	return dyn_cmd(cmd);
}

/* dynamic_events splits lines at '\n' and drops what follows '#' */
static int dyn_safe(const char *desc)
{
	/* nor "GROUP/name", which dynamic_events takes for a tenant group's */
	return !strchr(desc, '\n') && !strchr(desc, '#') &&
	       desc[strcspn(desc, "/: \t")] != '/';
}

/* The fields part of a canonical line: after "u:name[:flags] " */
static const char *line_fields(const char *line)
{
	const char *sp = strchr(line, ' ');

	return sp ? sp + 1 : "";
}

/* Check that @name is gone from dynamic_events, the listing and events/ */
static void check_gone(const char *name)
{
	char line[2 * TEXT_MAX], tail[256];
	unsigned int idx;
	struct stat st;

	if (dyn_line(name, line, sizeof(line)))
		fail("delete", "%s is still in dynamic_events after a delete", name);
	if (status_line(name, &idx, tail, sizeof(tail)))
		fail("delete", "%s is still in user_events_status after a delete", name);
	/* "enable" and "filter" are also files of the system's directory */
	if (!stat(event_path(name, ""), &st) && S_ISDIR(st.st_mode))
		fail("delete", "events/user_events/%s is still there after a delete", name);
}

/* Delete @e one of the five ways; returns 0 or -errno */
static int delete_any(struct live *e, int *method)
{
	char cmd[3 * TEXT_MAX];
	int fd, ret, m = rnd_below(5);

	if (method)
		*method = m;
	switch (m) {
	case 0:
		set_ctx("DIAG_IOCSDEL", e->name);
		fd = open_data();
		ret = uet_delete(fd, e->name);
		close_data(fd);
		return ret;
	case 1:
		snprintf(cmd, sizeof(cmd), "-:%s", e->name);
		break;
	case 2:
		snprintf(cmd, sizeof(cmd), "-:user_events/%s", e->name);
		break;
	case 3:
		/* the line dynamic_events shows, written back, or with the system */
		if (chance(50))
			snprintf(cmd, sizeof(cmd), "!%s", e->line);
		else
			snprintf(cmd, sizeof(cmd), "!u:user_events/%s", e->line + DYN_SKIP);
		break;
	default:
		if (chance(50) && *line_fields(e->line))
			snprintf(cmd, sizeof(cmd), "!u:%s %s", e->name, line_fields(e->line));
		else
			snprintf(cmd, sizeof(cmd), "!u:%s", e->name);
		break;
	}
	set_ctx("dynamic_events delete", cmd);
	return dyn_cmd(cmd);
}

static void delete_live(struct live *e)
{
	int ret = delete_any(e, NULL);

	if (ret)
		fail("delete", "deleting %s (nothing holds it): %s", e->name, err_name(ret));
	stats.deletes++;
	check_gone(e->name);
	drop_live(e);
}

/* Generating descriptions --------------------------------------------------- */

static const char * const name_pool[] = {
	"enable", "filter", "id", "format", "trigger", "hist", "common_pid",
	"common_type", "common_flags", "user_events", "u", "a", "_", "BPF_ITER",
	"struct", "unsigned", "char", "long", "__data_loc", "__rel_loc", "REC",
	"dynamic_events", "x", "ftrace", "perf", "print", "fmt", "s", "n",
};

static const char * const flag_pool[] = {
	"BPF_ITER", "BPF_ITER", "NEW_THING", "X", "flag_2", "bpf_iter", "0", "_",
};

static void gen_ident(char *out, int event)
{
	static const char first[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
	static const char rest[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
	int len, i, r = rnd_below(100);

	if (r < 12) {
		snprintf(out, 256, "%s", pick(name_pool, ARRAY_SIZE(name_pool)));
		return;
	}
	if (r < 75)
		len = rnd_range(1, 12);
	else if (r < 92)
		len = rnd_range(13, 64);
	else if (r < 97)
		len = rnd_range(65, 254);
	else
		len = 255;
	out[0] = first[rnd_below(sizeof(first) - 1)];
	for (i = 1; i < len; i++)
		out[i] = rest[rnd_below(sizeof(rest) - 1)];
	out[len] = '\0';
	/* mostly short, so that more fields fit in the description */
	if (len > 40 && chance(event ? 50 : 40))
		out[rnd_range(1, 40)] = '\0';
}

static const char *sep_ws(void)
{
	static const char * const seps[] = {
		" ", " ", " ", " ", " ", " ", " ", " ", "  ", "\t", " \t ", "\n",
	};

	return pick(seps, ARRAY_SIZE(seps));
}

static const char *sep_field(int packed)
{
	static const char * const seps[] = {
		"; ", "; ", "; ", ";", ";", " ;", " ; ", ";\t", ";  ", "\t;\n",
	};

	return packed ? ";" : pick(seps, ARRAY_SIZE(seps));
}

/* N as decimal or hex, sometimes with leading zeros (refused: rule 9) */
static void render_number(char *out, size_t size, int n)
{
	int r = rnd_below(100);

	if (r < 60)
		snprintf(out, size, "%d", n);
	else if (r < 82)
		snprintf(out, size, "0x%x", n);
	else if (r < 88)
		snprintf(out, size, "0X%X", n);
	else if (r < 95)
		snprintf(out, size, "0x%0*x", rnd_range(1, 40), n);
	else
		snprintf(out, size, "%0*d", rnd_range(1, 12), n);
}

static int gen_size(void)
{
	static const int sizes[] = {
		1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 64, 100, 255, 256, 511, 512,
		1000, 1023, 1024,
	};

	if (chance(60))
		return sizes[rnd_below(ARRAY_SIZE(sizes))];
	return chance(70) ? rnd_range(1, 64) : rnd_range(1, 1024);
}

static const char * const bad_fields[] = {
	"long x", "unsigned long x", "u32[4] x", "char[0] x", "char[1025] x",
	"struct foo x", "u32 x 4", "__data_loc char[4] x", "__rel_loc char x",
	"u128 x", "char[] x", "x", "unsigned x", "signed char x", "char[4 x",
	"char[0x] x", "char[-1] x", "struct foo x 0", "struct foo x 1025",
	"struct 9foo x 8", "u32 9x", "u32 a-b", "__data_loc __rel_loc char[] x",
	"__rel_loc struct foo x 8", "char[4][2] x", "char[1]x x", "u32 %s%n%p",
	"struct %s%n x 4", "u64 x[]", "unsigned unsigned int x",
	"char[4294967297] x", "char[0x100000400] x", "__data_loc char[]",
};

/* One field as words, with a name not in @names */
static void gen_field(char *out, size_t size, char names[][256], int nr, int packed)
{
	char fname[256], type[64], num[64], sname[256];
	const char *ws = packed ? " " : sep_ws();
	int r = rnd_below(100), i;

again:
	gen_ident(fname, 0);
	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], fname))
			goto again;
	snprintf(names[nr], 256, "%s", fname);
	if (packed)
		r = rnd_below(45);
	if (r < 45) {
		const char *t = base_types[rnd_below(ARRAY_SIZE(base_types))].name;

		if (!strncmp(t, "unsigned ", 9))
			snprintf(out, size, "unsigned%s%s%s%s", ws, t + 9, sep_ws(), fname);
		else
			snprintf(out, size, "%s%s%s", t, ws, fname);
	} else if (r < 60) {
		render_number(num, sizeof(num), gen_size());
		snprintf(out, size, "%s[%s]%s%s", chance(60) ? "char" : "unsigned char",
			 num, ws, fname);
	} else if (r < 80) {
		const char *loc = chance(50) ? "__rel_loc" : "__data_loc";
		const char *t = chance(50) ? "char" :
			base_types[rnd_below(ARRAY_SIZE(base_types))].name;

		snprintf(type, sizeof(type), "%s[]", t);
		snprintf(out, size, "%s%s%s%s%s", loc, ws, type, sep_ws(), fname);
	} else if (r < 94) {
		gen_ident(sname, 0);
		render_number(num, sizeof(num), gen_size());
		snprintf(out, size, "struct%s%s%s%s%s%s", ws, sname, sep_ws(), fname,
			 sep_ws(), num);
	} else {
		snprintf(out, size, "%s", pick(bad_fields, ARRAY_SIZE(bad_fields)));
	}
}

static int gen_field_count(void)
{
	int r = rnd_below(100);

	if (r < 15)
		return 0;
	if (r < 75)
		return rnd_range(1, 4);
	if (r < 95)
		return rnd_range(5, 20);
	return rnd_range(21, 60);
}

/* A description from the grammar; @name forces the event name */
static void gen_desc(char *out, size_t size, const char *name)
{
	static char names[MAX_FIELDS][256];
	char ename[256], field[800];
	int nr = gen_field_count(), packed = chance(5), i, o;

	if (packed)
		nr = rnd_range(20, 110);
	if (name) {
		snprintf(ename, sizeof(ename), "%s", name);
	} else {
		do
			gen_ident(ename, 1);
		while (is_live(ename) >= 0 || is_pre(ename));
	}
	o = snprintf(out, size, "%s%s", chance(8) ? sep_ws() : "", ename);
	if (chance(15)) {
		int n = rnd_range(1, 3);

		for (i = 0; i < n; i++) {
			const char *flag = pick(flag_pool, ARRAY_SIZE(flag_pool));

			o += snprintf(out + o, size - o, "%c%s", i ? ',' : ':',
				      chance(80) ? flag : "ANY_flag");
		}
	}
	for (i = 0; i < nr && o < (int)size - 1; i++) {
		gen_field(field, sizeof(field), names, i, packed);
		o += snprintf(out + o, size - o, "%s%s", i ? sep_field(packed) : sep_ws(),
			      field);
		if (packed && o > DESC_LIMIT - 8)
			break;
	}
	if (nr && o < (int)size - 4 && chance(15))
		o += snprintf(out + o, size - o, "%s;", chance(50) ? "" : " ");
	if (o < (int)size - 4 && chance(8))
		snprintf(out + o, size - o, "%s", sep_ws());
}

/* Mutations ------------------------------------------------------------------ */

static const char * const tokens[] = {
	" ", ";", ":", ",", "[", "]", "[]", "0x", "-1", "unsigned ", "long ",
	"struct ", "__data_loc ", "__rel_loc ", "char", "%s%n%p", "\t", "\n", "#",
	"1024", "1025", "0", "u64 ", "  ;  ", "\v", "\r", "\xa0", "\xe9", "\xff",
	"\x01", "u:", "!", "-", "/", "BPF_ITER", "[1024]", "[1025]", "[0x400]",
	"; u8 zz", ";;", "  ", "=", "\"", "\\", "'", "*", "..", "a",
};

static const char * const numbers[] = {
	"0", "1", "2", "1023", "1024", "1025", "0x400", "0x401", "0X400", "0x3ff",
	"0x0", "0x", "4294967295", "4294967296", "4294968320",
	"18446744073709551616", "-1", "-0", "+1", "+1024", "010", "08", "0001",
	"00000000000000000000000001", "0x00000000000000000000000010",
	"0x000000000000000000000000000000000400", "99999999999999999999999",
	"1e3", "0b1", "65535", "65536", "0xffffffff", " 1", "1 ",
};

static void insert_at(char *s, size_t size, int at, const char *what, int wlen)
{
	int len = strlen(s);

	if (len + wlen >= (int)size)
		wlen = size - 1 - len;
	if (wlen <= 0)
		return;
	memmove(s + at + wlen, s + at, len - at + 1);
	memcpy(s + at, what, wlen);
}

static void delete_range(char *s, int at, int n)
{
	int len = strlen(s);

	if (at + n > len)
		n = len - at;
	memmove(s + at, s + at + n, len - at - n + 1);
}

/* Replace a run of digits (and hex letters after 0x) with a limit value */
static void mutate_number(char *s, size_t size)
{
	int len = strlen(s), starts[64], n = 0, i, at, end;
	const char *num = pick(numbers, ARRAY_SIZE(numbers));

	for (i = 0; i < len && n < 64; i++)
		if (is_digit(s[i]) && (i == 0 || !is_word_char((unsigned char)s[i - 1])))
			starts[n++] = i;
	if (!n) {
		insert_at(s, size, rnd_below(len + 1), num, strlen(num));
		return;
	}
	at = starts[rnd_below(n)];
	for (end = at; end < len && is_word_char((unsigned char)s[end]); end++)
		;
	delete_range(s, at, end - at);
	insert_at(s, size, at, num, strlen(num));
}

/* Make @s exactly @target bytes long, mostly with white space or a long name */
static void pad_to(char *s, size_t size, int target)
{
	int len = strlen(s), how = rnd_below(4);

	if (target >= (int)size)
		target = size - 1;
	if (len > target) {
		s[target] = '\0';
		return;
	}
	while (len < target) {
		char c = how == 0 ? ' ' : how == 1 ? '\t' : 'z';
		int at;

		if (how == 3) {
			/* more fields, packed, then spaces */
			if (target - len > 8) {
				char f[32];

				snprintf(f, sizeof(f), ";u8 p%d", len);
				insert_at(s, size, len, f, strlen(f));
				len = strlen(s);
				continue;
			}
			c = ' ';
		}
		if (c == 'z') {
			/* grow the last word: a name, mostly */
			at = len;
			while (at > 0 && is_ws((unsigned char)s[at - 1]))
				at--;
		} else {
			at = chance(70) ? len : (int)rnd_below(len + 1);
		}
		insert_at(s, size, at, &c, 1);
		len++;
	}
}

static void mutate(char *s, size_t size)
{
	static const int lengths[] = { 510, 511, 512, 513, 255, 256, 1000 };
	int n = rnd_range(1, 3), len, at;
	char c;

	while (n--) {
		len = strlen(s);
		at = rnd_below(len + 1);
		switch (rnd_below(12)) {
		case 0:		/* flip a byte */
			if (len) {
				c = (char)rnd_range(1, 255);
				s[rnd_below(len)] = c;
			}
			break;
		case 1:		/* insert a byte */
			c = chance(50) ? (char)rnd_range(1, 255) :
				" ;:,[]_\t\nx0"[rnd_below(12)];
			insert_at(s, size, at, &c, 1);
			break;
		case 2:
		case 3: {	/* insert a token */
			const char *t = pick(tokens, ARRAY_SIZE(tokens));

			insert_at(s, size, at, t, strlen(t));
			break;
		}
		case 4:		/* delete a range */
			delete_range(s, at, rnd_range(1, 8));
			break;
		case 5:		/* duplicate a range */
			if (len) {
				int from = rnd_below(len), cnt = rnd_range(1, 40);
				char tmp[64];

				if (from + cnt > len)
					cnt = len - from;
				memcpy(tmp, s + from, cnt);
				insert_at(s, size, at, tmp, cnt);
			}
			break;
		case 6:
		case 7:		/* a number at its limits */
			mutate_number(s, size);
			break;
		case 8:		/* a length around the limits */
			pad_to(s, size, chance(80) ? lengths[rnd_below(ARRAY_SIZE(lengths))] :
			       rnd_range(0, 700));
			break;
		case 9: {	/* swap separators */
			static const char seps[] = " ;:,\t\n";
			int i;

			for (i = 0; i < len; i++)
				if (strchr(seps, s[i]) && chance(30))
					s[i] = seps[rnd_below(sizeof(seps) - 1)];
			break;
		}
		case 10:	/* truncate */
			s[at] = '\0';
			break;
		default: {	/* white space in odd places and of odd kinds */
			static const char spaces[] = " \t\n\v\f\r";
			int i;

			for (i = 0; i < len; i++)
				if (s[i] == ' ' && chance(25))
					s[i] = spaces[rnd_below(sizeof(spaces) - 1)];
			if (chance(30))
				insert_at(s, size, at, "   ", rnd_range(1, 3));
			break;
		}
		}
	}
}

/* Checking an event that exists ---------------------------------------------- */

static void field_format(const struct field *f, char *out, size_t size)
{
	char type[300], name[300];

	switch (f->kind) {
	case K_INT:
		snprintf(type, sizeof(type), "%s", f->base);
		snprintf(name, sizeof(name), "%s", f->name);
		break;
	case K_CHARS:
	case K_BYTES:
		snprintf(type, sizeof(type), "%s", f->base);
		snprintf(name, sizeof(name), "%s[%d]", f->name, f->size);
		break;
	case K_STRUCT:
		snprintf(type, sizeof(type), "struct %s", f->stype);
		snprintf(name, sizeof(name), "%s", f->name);
		break;
	default:
		/* ftrace splits "[]" off __rel_loc types, not off __data_loc ones */
		if (f->rel) {
			snprintf(type, sizeof(type), "__rel_loc %s", f->base);
			snprintf(name, sizeof(name), "%s[]", f->name);
		} else {
			snprintf(type, sizeof(type), "__data_loc %s[]", f->base);
			snprintf(name, sizeof(name), "%s", f->name);
		}
		break;
	}
	snprintf(out, size, "\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;", type,
		 name, f->offset, f->size, f->is_signed);
}

/*
 * Check events/user_events/NAME/format against @d; returns it without its
 * ID line (malloc()ed), for comparing two incarnations.
 */
static char *check_format_sys(const struct event_desc *d, const char *sys)
{
	char *fmt = uet_read_file(sys_path(0, sys, d->name, "format")), *p, *nl, *out;
	char want[800], head[300];
	int i, line = 0, field = -1, o = 0;

	if (!fmt)
		fail("format", "cannot read the format of %s: %s", d->name, strerror(errno));
	out = malloc(strlen(fmt) + 1);
	if (!out)
		ksft_exit_fail_msg("out of memory\n");
	snprintf(head, sizeof(head), "name: %s", d->name);
	for (p = fmt; p && *p; p = nl ? nl + 1 : NULL, line++) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (line == 0 && strcmp(p, head))
			fail("format", "format of %s starts with '%s'", d->name, p);
		if (strncmp(p, "ID: ", 4))
			o += sprintf(out + o, "%s\n", p);
		if (field < 0 && !*p && line > 3) {
			field = 0;
		} else if (field >= 0 && field < d->nr) {
			field_format(&d->f[field], want, sizeof(want));
			if (strcmp(p, want))
				fail("format", "field %d of %s: format shows '%s', want '%s'",
				     field, d->name, p, want);
			field++;
		} else if (field == d->nr) {
			if (*p)
				fail("format", "format of %s: '%s' after its %d fields",
				     d->name, p, d->nr);
			field++;
		} else if (field == d->nr + 1) {
			if (strncmp(p, "print fmt: \"", 12))
				fail("format", "format of %s: '%s' where print fmt belongs",
				     d->name, p);
			for (i = 0; i < d->nr; i++) {
				snprintf(want, sizeof(want), "%s=", d->f[i].name);
				if (!strstr(p, want))
					fail("format", "print fmt of %s lacks %s", d->name, want);
			}
			field++;
		}
	}
	free(fmt);
	if (field != d->nr + 2)
		fail("format", "format of %s is incomplete (%d of %d fields)", d->name,
		     field < 0 ? 0 : field, d->nr);
	return out;
}

static char *check_format(const struct event_desc *d)
{
	return check_format_sys(d, USER_EVENTS_SYSTEM);
}

/* events/user_events/enable and filter stay files, whatever events are called */
static void check_system_files(const char *name)
{
	static const char * const files[] = { "enable", "filter" };
	char path[300];
	struct stat st;
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), TRACEFS "events/user_events/%s", files[i]);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			char names[600];
			int j, o = 0;

			for (j = 0; j < nr_live && o < (int)sizeof(names) - 1; j++)
				o += snprintf(names + o, sizeof(names) - o, " %.40s", live[j].name);
			fail("system files", "checking %s: events/user_events/%s is %s; "
			     "events:%s", name, files[i],
			     stat(path, &st) ? strerror(errno) : "not a file", names);
		}
	}
}

/*
 * Check a live event: dynamic_events shows its line, which parses back to
 * itself; its format matches; the status listing shows it. Returns the
 * format text (without ID).
 */
static char *check_event(struct live *e, struct event_desc *d)
{
	char line[2 * TEXT_MAX], tail[TEXT_MAX], want[TEXT_MAX + 2];
	unsigned int idx;
	enum verdict v;

	set_ctx("check the listing of", e->line);
	if (!dyn_line(e->name, line, sizeof(line)))
		fail("listing", "%s is not in dynamic_events", e->name);
	if (strcmp(line, e->line))
		fail("listing", "dynamic_events shows '%s', was '%s'", line, e->line);
	if (strlen(line + DYN_SKIP) > DESC_LIMIT)
		fail("round trip", "canonical form over the limit (%zu > %d bytes): '%s'",
		     strlen(line + DYN_SKIP), DESC_LIMIT, line);
	/* "either" names pass, as long as the parse is complete */
	v = oracle(line + DYN_SKIP, d);
	if (v != V_OK && v != V_ANY)
		fail("canonical", "the canonical line '%s' is not valid to the ABI (%s)",
		     line, verdict_names[v]);
	if (strcmp(d->canon, line))
		fail("canonical", "the canonical line '%s' is not canonical: '%s'", line,
		     d->canon);
	if (status_line(e->name, &idx, tail, sizeof(tail)) != 1)
		fail("listing", "user_events_status does not show %s once", e->name);
	snprintf(want, sizeof(want), "%s%s", d->has_flags ? ":" : "",
		 d->has_flags ? d->flags : "");
	if (strcmp(tail, want))
		fail("listing", "user_events_status shows %s with '%s', want '%s'",
		     e->name, tail, want);
	if (e->sidx && idx != e->sidx)
		fail("listing", "user_events_status shows %s at %u, registered at %u",
		     e->name, idx, e->sidx);
	e->sidx = idx;
	check_system_files(e->name);
	if (status_page[idx])
		fail("status", "status byte %u of %s is %#x with nothing attached", idx,
		     e->name, status_page[idx]);
	return check_format(d);
}

/* Payloads ----------------------------------------------------------------- */

enum { LOC_VALID, LOC_EITHER, LOC_BAD };

static const char nice_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+=/%";

static void put_le(unsigned char *p, unsigned long long v, int size)
{
	int i;

	for (i = 0; i < size; i++)
		p[i] = v >> (8 * i);
}

static unsigned long long get_le(const unsigned char *p, int size)
{
	unsigned long long v = 0;
	int i;

	for (i = 0; i < size; i++)
		v |= (unsigned long long)p[i] << (8 * i);
	return v;
}

static void fill_random(unsigned char *p, int len)
{
	while (len-- > 0)
		*p++ = rnd();
}

static void fill_nice(unsigned char *p, int len)
{
	while (len-- > 0)
		*p++ = nice_chars[rnd_below(sizeof(nice_chars) - 1)];
}

static int loc_start(const struct field *f, const unsigned char *pl, int *len)
{
	unsigned int v = get_le(pl + f->offset - 8, 4);

	*len = v >> 16;
	return (v & 0xffff) + (f->rel ? f->offset + 4 : 0);
}

/* What ABI section 5 says of the loc fields of a record of @plen bytes */
static int loc_class(const struct event_desc *d, const unsigned char *pl, int plen)
{
	int i, cls = LOC_VALID, size = 8 + plen;

	for (i = 0; i < d->nr; i++) {
		const struct field *f = &d->f[i];
		int start, len;

		if (f->kind < K_LOC_STR)
			continue;
		start = loc_start(f, pl, &len);
		if (start + len > size)
			return LOC_BAD;
		if (start < 8) {
			/* into the common header: not the writer's bytes */
			cls = LOC_EITHER;
		} else if (f->kind == K_LOC_STR) {
			if (!len)
				cls = LOC_EITHER;
			else if (pl[start + len - 1 - 8])
				return LOC_BAD;
		} else if (len % f->elem) {
			cls = LOC_EITHER;
		}
	}
	return cls;
}

static void set_loc(const struct field *f, unsigned char *pl, int start, int len)
{
	unsigned int off = f->rel ? start - (f->offset + 4) : start;

	put_le(pl + f->offset - 8, ((unsigned int)len << 16) | (off & 0xffff), 4);
}

/* A loc field pointing somewhere interesting */
static void loc_edge(const struct event_desc *d, unsigned char *pl, int plen)
{
	int locs[MAX_FIELDS], n = 0, i, size = 8 + plen, start, len;
	const struct field *f;

	for (i = 0; i < d->nr; i++)
		if (d->f[i].kind >= K_LOC_STR)
			locs[n++] = i;
	if (!n)
		return;
	f = &d->f[locs[rnd_below(n)]];
	start = loc_start(f, pl, &len);
	switch (rnd_below(10)) {
	case 0:		/* empty, at the very end */
		set_loc(f, pl, size, 0);
		break;
	case 1:		/* the last byte, NUL or not */
		if (plen > d->min_size) {
			pl[plen - 1] = chance(50) ? 0 : 'x';
			set_loc(f, pl, size - 1, 1);
		}
		break;
	case 2:		/* far too long */
		set_loc(f, pl, start, 0xffff);
		break;
	case 3:		/* into the common header */
		if (!f->rel)
			put_le(pl + f->offset - 8, (4u << 16) | rnd_below(8), 4);
		break;
	case 4:		/* past the end */
		set_loc(f, pl, size + rnd_range(1, 4), 0);
		break;
	case 5:		/* no NUL */
		if (len && start >= 8 && start + len <= size)
			pl[start + len - 1 - 8] = 'x';
		break;
	case 6:		/* a length not a multiple of the element */
		set_loc(f, pl, start, len + 1);
		break;
	case 7:		/* one byte over the end */
		if (start <= size)
			set_loc(f, pl, start, size - start + 1);
		break;
	case 8:		/* at another loc field's data */
		if (n > 1) {
			int s2, l2;

			s2 = loc_start(&d->f[locs[rnd_below(n)]], pl, &l2);
			set_loc(f, pl, s2, l2);
		}
		break;
	default:
		put_le(pl + f->offset - 8, rnd(), 4);
		break;
	}
}

/* 0, 1, -1, the smallest and the largest signed, or anything */
static unsigned long long int_value(int size)
{
	unsigned long long sign = 1ULL << (8 * size - 1);

	switch (rnd_below(6)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return ~0ULL;
	case 3:
		return sign;
	case 4:
		return sign - 1;
	}
	return rnd();
}

/* A payload that follows the layout, strings mostly printable */
static int payload_layout(const struct event_desc *d, unsigned char *pl, int cap)
{
	int order[MAX_FIELDS], n = 0, i, pos = d->min_size;

	for (i = 0; i < d->nr; i++) {
		const struct field *f = &d->f[i];
		unsigned char *p = pl + f->offset - 8;
		unsigned long long v;

		switch (f->kind) {
		case K_INT:
			v = int_value(f->size);
			put_le(p, v, f->size);
			break;
		case K_CHARS:
			memset(p, 0, f->size);
			if (chance(85))
				fill_nice(p, rnd_range(0, f->size));
			else
				fill_random(p, f->size);
			break;
		case K_BYTES:
		case K_STRUCT:
			fill_random(p, f->size);
			break;
		default:
			order[n++] = i;
			break;
		}
	}
	/* the loc fields' data after the fixed part, in random order */
	for (i = n - 1; i > 0; i--) {
		int j = rnd_below(i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		const struct field *f = &d->f[order[i]];
		int len, r = rnd_below(100);

		if (chance(10))
			pos += rnd_range(1, 8);
		if (f->kind == K_LOC_STR)
			len = 1 + (r < 70 ? rnd_range(0, 16) : r < 92 ? rnd_range(17, 200) :
				   rnd_range(201, 3000));
		else
			len = f->elem * (r < 80 ? rnd_range(0, 16) : rnd_range(17, 1000 / f->elem));
		if (pos + len > max_payload && chance(80))
			len = max_payload - pos;
		if (pos + len > cap)
			len = cap - pos;
		if (len < 0)
			len = 0;
		if (f->kind == K_LOC_STR && len) {
			if (chance(90))
				fill_nice(pl + pos, len - 1);
			else
				fill_random(pl + pos, len - 1);
			pl[pos + len - 1] = 0;
		} else {
			fill_random(pl + pos, len);
		}
		set_loc(f, pl, 8 + pos, len);
		pos += len;
	}
	if (chance(15) && pos + 16 < cap) {
		int junk = rnd_range(1, 16);

		fill_random(pl + pos, junk);
		pos += junk;
	}
	if (pos > cap)
		pos = cap;
	if (chance(25))
		loc_edge(d, pl, pos);
	return pos;
}

static int gen_payload(const struct event_desc *d, unsigned char *pl, int cap)
{
	int sizes[] = {
		0, d->min_size - 1, d->min_size, d->min_size + 1, max_payload - 1,
		max_payload, max_payload + 1, max_payload + 8, page_size, 2 * page_size,
		fits_all, fits_all + 1, 65535, 65536 + 7, rnd_range(0, fits_all),
	};
	int r = rnd_below(100), len, want;

	if (d->min_size > cap)
		return 0;
	if (r < 60)
		return payload_layout(d, pl, cap);
	if (r < 72) {
		len = rnd_range(0, d->min_size + 64);
		if (len > cap)
			len = cap;
		fill_random(pl, len);
		return len;
	}
	/* a size at a boundary, the layout's bytes first */
	len = payload_layout(d, pl, cap);
	want = sizes[rnd_below(ARRAY_SIZE(sizes))];
	if (want < 0)
		want = 0;
	if (want > cap)
		want = cap;
	if (want > len) {
		if (chance(50))
			memset(pl + len, 0, want - len);
		else
			fill_random(pl + len, want - len);
	}
	return want;
}

/* Does ftrace print this record as plain text we can predict? */
static int payload_nice(const struct event_desc *d, const unsigned char *pl, int plen)
{
	int i, j, start, len;

	if (loc_class(d, pl, plen) != LOC_VALID)
		return 0;
	for (i = 0; i < d->nr; i++) {
		const struct field *f = &d->f[i];
		const unsigned char *p;

		if (f->kind == K_CHARS) {
			p = pl + f->offset - 8;
			len = f->size;
		} else if (f->kind == K_LOC_STR) {
			start = loc_start(f, pl, &len);
			p = pl + start - 8;
		} else {
			continue;
		}
		for (j = 0; j < len && p[j]; j++)
			if (!strchr(nice_chars, p[j]))
				return 0;
	}
	return 1;
}

static int add_hex(char *out, int o, int size, const unsigned char *p, int len)
{
	int i;

	for (i = 0; i < len && o < size - 3; i++)
		o += sprintf(out + o, "%02x", p[i]);
	return o;
}

/* The trace line ftrace should print for a record, after "<ts>: " */
static void trace_text(const struct event_desc *d, const unsigned char *pl,
		       char *out, int size)
{
	int i, o = snprintf(out, size, "%s:", d->name), start, len;

	for (i = 0; i < d->nr && o < size - 64; i++) {
		const struct field *f = &d->f[i];
		const unsigned char *p = pl + f->offset - 8;
		unsigned long long v;

		o += snprintf(out + o, size - o, " %s=", f->name);
		switch (f->kind) {
		case K_INT:
			v = get_le(p, f->size);
			if (f->is_signed && f->size < 8 && (v >> (8 * f->size - 1)))
				v |= ~0ULL << (8 * f->size);
			o += snprintf(out + o, size - o, f->is_signed ? "%lld" : "%llu", v);
			break;
		case K_CHARS:
			o += snprintf(out + o, size - o, "%.*s",
				      (int)strnlen((const char *)p, f->size), p);
			break;
		case K_BYTES:
		case K_STRUCT:
			o = add_hex(out, o, size, p, f->size);
			break;
		case K_LOC_STR:
			start = loc_start(f, pl, &len);
			p = pl + start - 8;
			o += snprintf(out + o, size - o, "%.*s",
				      (int)strnlen((const char *)p, len), p);
			break;
		default:
			start = loc_start(f, pl, &len);
			o = add_hex(out, o, size, pl + start - 8, len);
			break;
		}
	}
}

/* Consumers -------------------------------------------------------------------- */

struct perf_ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
};

/* The one perf consumer, closed by cleanup() too */
static struct perf_ring ring = { .fd = -1 };

static int perf_attach_sys(const char *sys, const char *name, struct perf_ring *r)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pe),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};
	char *text = uet_read_file(sys_path(0, sys, name, "id"));
	int id = text ? atoi(text) : -1;

	free(text);
	if (id <= 0)
		fail("perf", "no tracepoint id for %s", name);
	pe.config = id;
	r->fd = syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
	if (r->fd < 0)
		fail("perf", "perf_event_open on %s: %s", name, strerror(errno));
	r->meta = mmap(NULL, (PERF_PAGES + 1) * page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, r->fd, 0);
	if (r->meta == MAP_FAILED)
		fail("perf", "mmap of the perf buffer: %s", strerror(errno));
	r->data = (unsigned char *)r->meta + page_size;
	return id;
}

static int perf_attach(const char *name, struct perf_ring *r)
{
	return perf_attach_sys(USER_EVENTS_SYSTEM, name, r);
}

static void perf_detach(struct perf_ring *r)
{
	if (r->fd < 0)
		return;
	munmap(r->meta, (PERF_PAGES + 1) * page_size);
	close(r->fd);
	r->fd = -1;
}

/* Records accepted while consumers listened, in write order */
struct records {
	unsigned char buf[REC_BUF];
	int off[MAX_WRITES], len[MAX_WRITES], nice[MAX_WRITES];
	int n, used;
};

static void check_perf(struct perf_ring *r, int id, const struct records *want)
{
	unsigned long long head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	unsigned long long pos = r->meta->data_tail, size = PERF_PAGES * page_size;
	static unsigned char rec[PAYLOAD_BUF];
	int n = 0;

	stats.perf_checks++;
	if (head - pos > size)
		fail("perf", "the perf buffer wrapped (%llu bytes)", head - pos);
	while (pos < head) {
		struct perf_event_header hdr;
		unsigned int i, raw_size, want_size;

		for (i = 0; i < sizeof(hdr); i++)
			((unsigned char *)&hdr)[i] = r->data[(pos + i) % size];
		for (i = 0; i < hdr.size && i < sizeof(rec); i++)
			rec[i] = r->data[(pos + i) % size];
		pos += hdr.size;
		if (hdr.type != PERF_RECORD_SAMPLE)
			fail("perf", "perf record of type %u (lost samples?)", hdr.type);
		if (n >= want->n)
			fail("perf", "more perf samples than accepted writes (%d)", want->n);
		raw_size = get_le(rec + sizeof(hdr), 4);
		want_size = ((8 + want->len[n] + 4 + 7) & ~7) - 4;
		if (raw_size != want_size)
			fail("perf", "sample %d: raw size %u, want %u", n, raw_size, want_size);
		if (get_le(rec + sizeof(hdr) + 4, 2) != (unsigned int)id ||
		    (int)get_le(rec + sizeof(hdr) + 8, 4) != getpid())
			fail("perf", "sample %d: header is not type %d, pid %d", n, id, getpid());
		if (memcmp(rec + sizeof(hdr) + 4 + 8, want->buf + want->off[n], want->len[n]))
			fail("perf", "sample %d: the payload differs from the write", n);
		n++;
		stats.sampled++;
	}
	r->meta->data_tail = head;
	if (n != want->n)
		fail("perf", "%d perf samples for %d accepted writes", n, want->n);
}

/*
 * ftrace prints a record's line into a trace_seq of 8 KiB, header included
 * (TRACE_SEQ_BUFFER_SIZE, the same for every event), and cuts what does
 * not fit: a line of @len bytes that long, whose record text @got is the
 * start of the expected @exp, is that record
 */
#define TRACE_LINE_MAX	(8192 - 64)
static int cut_line(const char *got, int len, const char *exp)
{
	size_t n = strlen(got);

	if (len < TRACE_LINE_MAX || n >= strlen(exp) || strncmp(got, exp, n))
		return 0;
	stats.cut_lines++;
	return 1;
}

/*
 * The trace of the top buffer or of our instance has exactly the accepted
 * records, printed as predicted; or, with @subset (a filter or a trigger is
 * set), some of them.
 */
static void check_trace(int inst, const struct event_desc *d, const struct records *want,
			int subset)
{
	char *trace = uet_read_file(inst ? TRACEFS INSTANCE "trace" : TRACEFS "trace");
	char *p, *nl, *got[64], *exp[MAX_WRITES], needle[300];
	int n = 0, i, j, all_nice = 1, line_len[64];

	if (!trace)
		fail("trace", "cannot read trace: %s", strerror(errno));
	stats.trace_checks++;
	for (i = 0; i < want->n; i++)
		all_nice &= want->nice[i];
	snprintf(needle, sizeof(needle), ": %s:", d->name);
	for (p = trace; p && *p; p = nl ? nl + 1 : NULL) {
		char *at;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		at = *p != '#' ? strstr(p, needle) : NULL;
		if (at && n < (int)ARRAY_SIZE(got)) {
			line_len[n] = strlen(p);
			got[n++] = at + 2;
		}
	}
	if (!all_nice) {
		/* a record's text may have held a newline: nothing to count */
		free(trace);
		return;
	}
	if (subset ? n > want->n : n != want->n) {
		for (i = 0; opt.verbose && i < n; i++)
			ksft_print_msg("trace: %.300s\n", got[i]);
		free(trace);
		fail("trace", "%d records of %s in %strace for %d accepted writes", n,
		     d->name, inst ? "the instance's " : "", want->n);
	}
	for (i = 0; i < want->n; i++) {
		exp[i] = malloc(TRACE_TEXT);
		if (!exp[i])
			ksft_exit_fail_msg("out of memory\n");
		trace_text(d, want->buf + want->off[i], exp[i], TRACE_TEXT);
	}
	/* every record shown is one written, each written shown at most once */
	for (i = 0; i < n; i++) {
		for (j = 0; j < want->n; j++) {
			if (exp[j] && (!strcmp(got[i], exp[j]) ||
				       cut_line(got[i], line_len[i], exp[j]))) {
				free(exp[j]);
				exp[j] = NULL;
				break;
			}
		}
		if (j == want->n) {
			static char g[TRACE_TEXT];

			snprintf(g, sizeof(g), "%s", got[i]);
			for (j = 0; j < want->n; j++)
				free(exp[j]);
			free(trace);
			fail("trace", "%strace shows '%.400s', not one of the %d accepted writes",
			     inst ? "the instance's " : "", g, want->n);
		}
	}
	for (j = 0; j < want->n; j++)
		free(exp[j]);
	free(trace);
}

/* Writing ----------------------------------------------------------------------- */

enum {
	OUT_OK = 1, OUT_EINVAL = 2, OUT_E2BIG = 4, OUT_ENOENT = 8, OUT_EFAULT = 16,
	OUT_EBADF = 32,
};

static int outcome_bit(int ret)
{
	switch (ret) {
	case 0: return OUT_OK;
	case -EINVAL: return OUT_EINVAL;
	case -E2BIG: return OUT_E2BIG;
	case -ENOENT: return OUT_ENOENT;
	case -EFAULT: return OUT_EFAULT;
	case -EBADF: return OUT_EBADF;
	}
	return 0;
}

/*
 * One write of a payload for @d on @fd (write index @widx) with @consumers
 * attached; checks the outcome. An accepted write is added to @rec. With
 * @bits the index is of an enable-bit registration: with nothing attached
 * the write fails with EBADF where it would be taken (section 9); where it
 * is refused for another reason, either errno may come first.
 */
static void do_write_abi(int fd, const struct event_desc *d, int widx, int consumers,
			 struct records *rec, int bits)
{
	static unsigned char wbuf[4 + PAYLOAD_BUF];
	struct iovec iov[16];
	int plen = gen_payload(d, wbuf + 4, PAYLOAD_BUF), total = 4 + plen;
	int idx = widx, r = rnd_below(100), allowed, nseg, i, pos, bad = 0, zap = 0;
	int cls, nice;
	ssize_t ret;

	if (r < 4)
		idx = chance(50) ? -1 - (int)rnd_below(1000) : INT_MIN;
	else if (r < 8)
		idx = chance(50) ? widx + 1 + (int)rnd_below(1000) : INT_MAX;
	else if (r < 10)
		total = rnd_below(4);
	memcpy(wbuf, &idx, 4);

	/* what the ABI allows */
	cls = total >= 4 + d->min_size ? loc_class(d, wbuf + 4, plen) : LOC_VALID;
	if (!total) {
		/* the VFS may answer an empty writev() itself */
		allowed = OUT_EINVAL | OUT_OK;
	} else if (total < 4 || idx < 0) {
		allowed = OUT_EINVAL;
	} else if (idx != widx) {
		allowed = OUT_ENOENT;
	} else if (plen < d->min_size && plen > max_payload) {
		allowed = OUT_EINVAL | OUT_E2BIG;
	} else if (plen < d->min_size) {
		allowed = OUT_EINVAL;
	} else if (plen > max_payload) {
		allowed = OUT_E2BIG;
	} else if (!consumers) {
		allowed = OUT_OK;
	} else {
		allowed = cls == LOC_VALID ? OUT_OK : cls == LOC_BAD ? OUT_EFAULT :
			  OUT_OK | OUT_EFAULT;
		/* over what every consumer takes: their limits (ftrace_test) decide */
		if (plen > fits_all)
			allowed |= OUT_E2BIG;
	}

	/* how the bytes are handed over */
	nseg = chance(45) ? 1 : rnd_range(2, ARRAY_SIZE(iov));
	if (nseg > total)
		nseg = total ? total : 1;
	zap = chance(15) && total <= MEM_PAGES * page_size;
	for (i = 0, pos = 0; i < nseg; i++) {
		int left = total - pos, len;

		len = i == nseg - 1 ? left : rnd_range(0, left);
		iov[i].iov_base = wbuf + pos;
		iov[i].iov_len = len;
		if (zap) {
			memcpy(mem + pos, wbuf + pos, len);
			iov[i].iov_base = mem + pos;
		}
		pos += len;
	}
	/* a payload segment nobody can read */
	if (chance(6) && nseg > 1 && iov[nseg - 1].iov_len &&
	    total - (int)iov[nseg - 1].iov_len >= 4 && (allowed & OUT_OK)) {
		int len = iov[nseg - 1].iov_len, readable = rnd_below(len);

		if (len <= page_size) {
			iov[nseg - 1].iov_base = guard + page_size - readable;
			memcpy(guard + page_size - readable, wbuf + total - len, readable);
		} else {
			iov[nseg - 1].iov_base = guard + page_size;
		}
		bad = 1;
		allowed = consumers ? OUT_EFAULT : OUT_OK | OUT_EFAULT;
		/* the limits of the consumers are checked before any copy */
		if (consumers && plen > fits_all)
			allowed |= OUT_E2BIG;
	}
	/* with nothing attached, an enable-bit index may be refused first */
	if (bits && !consumers && total >= 4 && idx == widx) {
		if (allowed & OUT_OK)
			allowed = (allowed & ~OUT_OK) | OUT_EBADF;
		else
			allowed |= OUT_EBADF;
	}
	if (zap)
		madvise(mem, MEM_PAGES * page_size, MADV_DONTNEED);

	set_ctx(nseg == 1 ? "write" : "writev", "");
	snprintf(ctx.text, sizeof(ctx.text), "index %d%s, %d bytes, %d segments%s%s, %s %#x: %s",
		 idx, bits ? " (enable-bit)" : "", total, nseg, zap ? ", pages zapped" : "",
		 bad ? ", last segment unreadable" : "", "consumers", consumers, d->canon);
	ctx.payload = wbuf + 4;
	ctx.payload_len = plen > 0 ? plen : 0;
	stats.writes++;
	if (nseg == 1 && chance(50))
		ret = write(fd, iov[0].iov_base, iov[0].iov_len);
	else
		ret = writev(fd, iov, nseg);
	if (opt.verbose)
		ksft_print_msg("%s -> %s\n", ctx.text, ret < 0 ? err_name(-errno) : "ok");
	if (ret < 0) {
		int err = errno;

		if (!errno_documented(err))
			fail("write errno", "write: undocumented error %s", err_name(-err));
		if (!(outcome_bit(-err) & allowed))
			fail("write", "write: %s, allowed %#x (loc class %d)", err_name(-err),
			     allowed, cls);
		return;
	}
	if (!(allowed & OUT_OK))
		fail("write", "write accepted (%zd), allowed %#x (loc class %d)", ret,
		     allowed, cls);
	if (ret != total)
		fail("write", "write returned %zd for %d bytes", ret, total);
	stats.writes_ok++;
	if (!consumers || bad || !total)
		return;
	nice = payload_nice(d, wbuf + 4, plen);
	if (rec->n < MAX_WRITES && rec->used + plen <= REC_BUF) {
		memcpy(rec->buf + rec->used, wbuf + 4, plen);
		rec->off[rec->n] = rec->used;
		rec->len[rec->n] = plen;
		rec->nice[rec->n++] = nice;
		rec->used += plen;
	} else {
		fail("internal", "record buffer full");
	}
}

static void do_write(int fd, const struct event_desc *d, int widx, int consumers,
		     struct records *rec)
{
	do_write_abi(fd, d, widx, consumers, rec, 0);
}

static void set_enable(int inst, const char *name, int on)
{
	int ret = uet_write_file(inst_path(inst, name, "enable"), on ? "1" : "0", O_TRUNC);

	if (ret)
		fail("ftrace", "%s ftrace on %s%s: %s", on ? "enabling" : "disabling", name,
		     inst ? " in the instance" : "", err_name(ret));
}

/* A filter on a random field, mostly well formed */
static void gen_filter(const struct event_desc *d, char *out, size_t size)
{
	static const char * const ops[] = { "==", "!=", "<", ">", "<=", ">=", "&" };
	static const char * const odd[] = {
		"common_pid > 0", "%s%n", "(", "0", "1", "x == 1", "common_pid == -1",
	};
	const struct field *f;
	char text[8] = "";

	if (!d->nr || chance(10)) {
		snprintf(out, size, "%s", pick(odd, ARRAY_SIZE(odd)));
		return;
	}
	f = &d->f[rnd_below(d->nr)];
	switch (f->kind) {
	case K_INT:
		snprintf(out, size, "%s %s %lld", f->name, pick(ops, ARRAY_SIZE(ops)),
			 (long long)int_value(f->size));
		break;
	case K_CHARS:
	case K_LOC_STR:
		fill_nice((unsigned char *)text, rnd_below(3));
		snprintf(out, size, "%s %s \"%s%s\"", f->name, chance(50) ? "==" : "~", text,
			 chance(50) ? "*" : "");
		break;
	default:
		snprintf(out, size, "%s == %d", f->name, (int)rnd_below(3));
		break;
	}
	if (chance(20))
		snprintf(out + strlen(out), size - strlen(out), " && common_pid != 0");
}

/* A hist trigger keyed on a random field */
static void gen_trigger(const struct event_desc *d, char *out, size_t size)
{
	static const char * const mods[] = { "", "", "", ".hex", ".log2", ".buckets=16" };
	const char *key = "common_pid", *mod = "";
	int i, o;

	if (d->nr && chance(85)) {
		const struct field *f = &d->f[rnd_below(d->nr)];

		key = f->name;
		if (f->kind == K_INT)
			mod = pick(mods, ARRAY_SIZE(mods));
	}
	o = snprintf(out, size, "hist:keys=%s%s", key, mod);
	for (i = 0; i < d->nr && chance(30); i++) {
		if (d->f[i].kind == K_INT) {
			o += snprintf(out + o, size - o, ":vals=%s", d->f[i].name);
			break;
		}
	}
	if (chance(20))
		o += snprintf(out + o, size - o, ":sort=hitcount");
	/* the smallest map: a full-size one costs half a second here */
	if (chance(85))
		o += snprintf(out + o, size - o, ":size=128");
	if (chance(15)) {
		char filter[600];

		gen_filter(d, filter, sizeof(filter));
		snprintf(out + o, size - o, " if %s", filter);
	}
}

static void expect_status(const struct live *e, int want, const char *when)
{
	if (status_page[e->sidx] != want)
		fail("status", "status byte of %s is %#x %s, want %#x", e->name,
		     status_page[e->sidx], when, want);
}

/* Writes to @e, with ftrace and perf attached or not */
static void payload_phase(struct live *e, const struct event_desc *d)
{
	static struct records rec;
	int fd = open_data(), ret, ftrace = chance(50), perf = chance(25), readback = 0;
	int id = -1, consumers = 0, nw = rnd_range(1, MAX_WRITES), i, inst = 0;
	int filtered = 0, triggered = 0;
	char filter[700], trigger[1400];
	struct user_status_reg reg;

	set_ctx("DIAG_IOCSREG (for writing)", e->line + DYN_SKIP);
	ret = uet_register(fd, e->line + DYN_SKIP, &reg);
	if (ret)
		fail("register", "registering the live event %s: %s", e->name, err_name(ret));
	if (reg.write_index != 0 || reg.status_index != e->sidx)
		fail("register", "write index %u, status index %u on a fresh fd, want 0, %u",
		     reg.write_index, reg.status_index, e->sidx);
	expect_status(e, 0, "before any consumer");
	if (ftrace) {
		readback = chance(70);
		if (readback)
			uet_clear_trace();
		set_enable(0, e->name, 1);
		consumers |= EVENT_STATUS_FTRACE;
		expect_status(e, consumers, "with ftrace");
		/* a second ftrace consumer: our instance */
		inst = chance(20);
		if (inst) {
			uet_write_file(TRACEFS INSTANCE "trace", "", O_TRUNC);
			set_enable(1, e->name, 1);
		}
		if (chance(20)) {
			gen_filter(d, filter, sizeof(filter));
			set_ctx("set the filter", filter);
			filtered = !uet_write_file(event_path(e->name, "filter"), filter, O_TRUNC);
		}
	}
	/* a hist trigger is a consumer of its own (and costly: not too often) */
	if (chance(6)) {
		gen_trigger(d, trigger, sizeof(trigger));
		set_ctx("set the trigger", trigger);
		triggered = !uet_write_file(event_path(e->name, "trigger"), trigger, O_APPEND);
		if (triggered) {
			consumers |= EVENT_STATUS_FTRACE;
			expect_status(e, consumers, "with a hist trigger");
		}
	}
	if (perf) {
		id = perf_attach(e->name, &ring);
		consumers |= EVENT_STATUS_PERF;
		expect_status(e, consumers, "with perf");
	}
	rec.n = 0;
	rec.used = 0;
	for (i = 0; i < nw; i++)
		do_write(fd, d, reg.write_index, consumers, &rec);
	stats.traced += ftrace ? rec.n : 0;
	set_ctx("check the records of", e->line);
	if (ftrace && readback)
		check_trace(0, d, &rec, filtered || triggered);
	if (inst)
		check_trace(1, d, &rec, 0);
	if (perf)
		check_perf(&ring, id, &rec);
	if (consumers && chance(15)) {
		close_data(fd);
		fd = -1;
		ret = delete_any(e, NULL);
		if (ret != -EBUSY)
			fail("delete", "deleting %s with consumers %#x: %s, want EBUSY",
			     e->name, consumers, err_name(ret));
	}
	if (triggered) {
		free(uet_read_file(event_path(e->name, "hist")));
		memmove(trigger + 1, trigger, strlen(trigger) + 1);
		trigger[0] = '!';
		set_ctx("remove the trigger", trigger);
		ret = uet_write_file(event_path(e->name, "trigger"), trigger, O_APPEND);
		if (ret)
			fail("trigger", "removing the trigger of %s: %s", e->name, err_name(ret));
	}
	if (filtered) {
		set_ctx("clear the filter", "0");
		ret = uet_write_file(event_path(e->name, "filter"), "0", O_TRUNC);
		if (ret)
			fail("filter", "clearing the filter of %s: %s", e->name, err_name(ret));
	}
	if (ftrace)
		set_enable(0, e->name, 0);
	if (inst)
		set_enable(1, e->name, 0);
	perf_detach(&ring);
	expect_status(e, 0, "after the consumers left");
	if (fd >= 0 && chance(20)) {
		ret = delete_any(e, NULL);
		if (ret != -EBUSY)
			fail("delete", "deleting %s while an fd holds it: %s, want EBUSY",
			     e->name, err_name(ret));
	}
	if (fd >= 0)
		close_data(fd);
}

/* One event, from registration to deletion -------------------------------------- */

/* Delete @e and make it again from its own line; it must come back the same */
static void round_trip(struct live *e, const char *fmt)
{
	struct event_desc *d = malloc(sizeof(*d));
	char line[2 * TEXT_MAX], *fmt2;
	struct user_status_reg reg;
	int ret, fd = -1;

	if (!d)
		ksft_exit_fail_msg("out of memory\n");
	ret = delete_any(e, NULL);
	if (ret)
		fail("delete", "deleting %s (nothing holds it): %s", e->name, err_name(ret));
	check_gone(e->name);
	if (chance(50)) {
		set_ctx("round trip through DIAG_IOCSREG", e->line + DYN_SKIP);
		fd = open_data();
		ret = uet_register(fd, e->line + DYN_SKIP, &reg);
		e->sidx = reg.status_index;
	} else {
		set_ctx("round trip through dynamic_events", e->line);
		ret = dyn_cmd(e->line);
		e->sidx = 0;
	}
	if (ret) {
		drop_live(e);
		fail("round trip", "the line %s was shown for an accepted event; "
		     "registered again it fails with %s", e->line, err_name(ret));
	}
	if (!dyn_line(e->name, line, sizeof(line)) || strcmp(line, e->line))
		fail("round trip", "registered again from '%s' it shows as '%s'", e->line,
		     line);
	if (fd >= 0)
		close_data(fd);
	fmt2 = check_event(e, d);
	if (strcmp(fmt, fmt2))
		fail("round trip", "the format of %s changed:\n%s\nthen\n%s", e->name, fmt,
		     fmt2);
	stats.round_trips++;
	free(fmt2);
	free(d);
}

static void process_live(struct live *e)
{
	struct event_desc *d = malloc(sizeof(*d));
	char *fmt;

	if (!d)
		ksft_exit_fail_msg("out of memory\n");
	fmt = check_event(e, d);
	round_trip(e, fmt);
	free(fmt);
	if (chance(70))
		payload_phase(e, d);
	if (chance(5)) {
		char cmd[TEXT_MAX];
		int ret;

		/* a delete whose fields do not match deletes nothing */
		snprintf(cmd, sizeof(cmd), "!u:%s u8 zz_not_a_field", e->name);
		set_ctx("dynamic_events delete", cmd);
		ret = dyn_cmd(cmd);
		if (ret != -ENOENT)
			fail("delete", "%s: %s, want ENOENT", cmd, err_name(ret));
	}
	delete_live(e);
	free(d);
}

/*
 * Register @desc (through @fd's ioctl or dynamic_events) and check the
 * outcome against the ABI. @fd_count counts the events on @fd.
 */
static void try_desc(const char *desc, int fd, int *fd_count)
{
	static struct event_desc want;
	char line[2 * TEXT_MAX];
	int via_dyn = chance(40) && dyn_safe(desc), ret, n, li;
	enum verdict v = oracle(desc, &want);
	struct user_status_reg reg = { 0 };
	struct live *e = NULL;

	stats.descs++;
	set_ctx(via_dyn ? "dynamic_events u:" : "DIAG_IOCSREG", desc);
	ret = via_dyn ? reg_dyn(desc) : reg_ioctl(fd, desc, &reg);
	if (opt.verbose)
		ksft_print_msg("%s '%s' -> %s (ABI: %s)\n", via_dyn ? "dyn" : "ioctl", desc,
			       err_name(ret), verdict_names[v]);
	if (ret && !errno_documented(-ret))
		fail("register errno", "undocumented error %s", err_name(ret));
	/* whatever got made is ours to delete, even when it should not exist */
	n = ret ? 0 : dyn_new_lines(line, sizeof(line));
	if (n == 1) {
		char name[256];

		line_name(line, strlen(line), name);
		e = add_live(name, line);
	}
	li = v == V_OK ? is_live(want.name) : -1;
	if (n == 1 && li == e - live)
		li = -1;
	switch (v) {
	case V_OK:
		if (li >= 0 && strcmp(line_fields(live[li].line), line_fields(want.canon)))
			expect_err("register: same name, other fields", ret, -EADDRINUSE);
		else
			expect_err("register: valid description", ret, 0);
		break;
	case V_EINVAL:
		expect_err("register: invalid description", ret, -EINVAL);
		break;
	case V_E2BIG:
		expect_err("register: description too long", ret, -E2BIG);
		break;
	default:
		if (ret && ret != -EINVAL && ret != -EADDRINUSE)
			fail("register", "either accepted or EINVAL, got %s", err_name(ret));
		stats.either++;
		break;
	}
	if (ret) {
		stats.rejected++;
		return;
	}
	stats.accepted++;
	if (n > 1)
		fail("register", "one registration made %d events", n);
	if (n == 1) {
		if (v == V_OK && strcmp(line, want.canon))
			fail("canonical", "dynamic_events shows '%s', the ABI says '%s'", line,
			     want.canon);
	} else {
		li = is_live(want.name);
		/* an "either" may name a live event in a way we do not parse */
		if (li < 0 && v != V_OK && nr_live)
			return;
		if (li < 0)
			fail("register", "accepted, but nothing new in dynamic_events");
		e = &live[li];
		if (!dyn_line(e->name, line, sizeof(line)) || strcmp(line, e->line))
			fail("register", "registering %s again changed its line to '%s'",
			     e->name, line);
		if (!via_dyn && e->sidx && reg.status_index != e->sidx)
			fail("register", "%s again: status index %u, was %u", e->name,
			     reg.status_index, e->sidx);
	}
	if (!via_dyn) {
		if (!e->sidx)
			e->sidx = reg.status_index;
		if (e->widx < 0)
			e->widx = (*fd_count)++;
		if ((int)reg.write_index != e->widx || reg.status_index != e->sidx)
			fail("register", "write index %u (want %d), status index %u (want %u)",
			     reg.write_index, e->widx, reg.status_index, e->sidx);
	}
}

/* The same fields as @line, spaced differently, maybe with other flags */
static void respace(const char *line, char *out, size_t size)
{
	const char *p = line_fields(line);
	int o = snprintf(out, size, "%s", sep_ws());
	char name[256];

	line_name(line, strlen(line), name);
	o += snprintf(out + o, size - o, "%s%s", name, chance(30) ? ":NEW_FLAG" : "");
	if (*p)
		o += snprintf(out + o, size - o, "%s", sep_ws());
	for (; *p && o < (int)size - 8; p++) {
		if (p[0] == ';' && p[1] == ' ') {
			o += snprintf(out + o, size - o, "%s", sep_field(0));
			p++;
		} else if (*p == ' ') {
			o += snprintf(out + o, size - o, "%s", sep_ws());
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	if (*line_fields(line) && chance(30))
		snprintf(out + o, size - o, ";");
}

/* Edge cases of the ioctls and of dynamic_events ---------------------------------- */

static void reg_edges(void)
{
	/* 24 is this struct, 28 to 4096 the enable-bit one, more is E2BIG */
	static const unsigned int sizes[] = { 0, 1, 16, 23, 25, 27, 4097, 0xffffffff };
	static const unsigned long long ptrs[] = {
		0, 1, 0xffffffff81000000ULL, 0x8000000000000000ULL, 0xffffffffffffffffULL,
	};
	char desc[TEXT_MAX], *at;
	struct user_status_reg reg;
	int fd = open_data(), ret, len;

	stats.edges++;
	gen_desc(desc, sizeof(desc), NULL);
	switch (rnd_below(8)) {
	case 0:		/* a size of neither struct */
		memset(&reg, 0, sizeof(reg));
		reg.size = sizes[rnd_below(ARRAY_SIZE(sizes))];
		reg.name_args = (unsigned long)desc;
		set_ctx("DIAG_IOCSREG with a bad size", desc);
		ret = ioctl(fd, DIAG_IOCSREG, &reg) ? -errno : 0;
		expect_err("DIAG_IOCSREG size", ret, reg.size > 4096 ? -E2BIG : -EINVAL);
		break;
	case 1:		/* a description nobody can read */
		memset(&reg, 0, sizeof(reg));
		reg.size = sizeof(reg);
		reg.name_args = chance(70) ? ptrs[rnd_below(ARRAY_SIZE(ptrs))] :
			(unsigned long)(guard + page_size);
		set_ctx("DIAG_IOCSREG with a bad pointer", "");
		ret = ioctl(fd, DIAG_IOCSREG, &reg) ? -errno : 0;
		expect_err("DIAG_IOCSREG pointer", ret, -EFAULT);
		break;
	case 2:		/* a description running into a PROT_NONE page */
		len = chance(50) ? rnd_range(1, 600) : 508 + (int)rnd_below(8);
		at = (char *)guard + page_size - len;
		memset(at, 'a', len);
		set_ctx("DIAG_IOCSREG, no NUL before PROT_NONE", "");
		snprintf(ctx.text, sizeof(ctx.text), "%d bytes of 'a'", len);
		ret = uet_register(fd, at, &reg);
		if (len < DESC_LIMIT + 1)
			expect_err("DIAG_IOCSREG unterminated", ret, -EFAULT);
		else if (len > DESC_LIMIT + 1)
			expect_err("DIAG_IOCSREG unterminated", ret, -E2BIG);
		else if (ret != -EFAULT && ret != -E2BIG)
			fail("DIAG_IOCSREG unterminated", "%s, want EFAULT or E2BIG",
			     err_name(ret));
		break;
	case 3:		/* the struct itself unreadable, past its size */
		set_ctx("DIAG_IOCSREG with a bad struct pointer", "");
		len = chance(50) ? 4 : 8;
		at = (char *)guard + page_size - len;
		memset(at, 0, len);
		*(unsigned int *)at = sizeof(reg);
		ret = ioctl(fd, DIAG_IOCSREG, chance(30) ? NULL : at) ? -errno : 0;
		expect_err("DIAG_IOCSREG struct pointer", ret, -EFAULT);
		break;
	case 4:		/* deleting through bad pointers and odd names */
		set_ctx("DIAG_IOCSDEL with a bad pointer", "");
		ret = ioctl(fd, DIAG_IOCSDEL, chance(50) ? NULL : guard + page_size) ?
			-errno : 0;
		expect_err("DIAG_IOCSDEL pointer", ret, -EFAULT);
		len = rnd_range(0, 300);
		at = (char *)guard + page_size - len - 1;
		memset(at, 'q', len);
		at[len] = '\0';
		set_ctx("DIAG_IOCSDEL of a name nobody has", at);
		ret = uet_delete(fd, at);
		if (ret != -ENOENT && ret != -EINVAL)
			fail("DIAG_IOCSDEL", "%s, want ENOENT or EINVAL", err_name(ret));
		break;
	case 5:		/* a name running into PROT_NONE */
		len = rnd_range(1, 300);
		at = (char *)guard + page_size - len;
		memset(at, 'q', len);
		set_ctx("DIAG_IOCSDEL, no NUL before PROT_NONE", "");
		ret = uet_delete(fd, at);
		if (ret != -EFAULT && ret != -EINVAL)
			fail("DIAG_IOCSDEL", "%s, want EFAULT or EINVAL", err_name(ret));
		break;
	case 6:		/* unknown ioctls */
		set_ctx("an unknown ioctl", "");
		ret = ioctl(fd, chance(50) ? _IO(DIAG_IOC_MAGIC, 2) :
			    _IOWR(DIAG_IOC_MAGIC, 0, char[10]), desc) ? -errno : 0;
		expect_err("unknown ioctl", ret, -ENOTTY);
		break;
	default:	/* writes to an fd that registered nothing */
		set_ctx("write on an fd without events", "");
		ret = chance(50) ? 0 : -1;
		ret = write(fd, &ret, sizeof(ret)) < 0 ? -errno : 0;
		if (ret != -ENOENT && ret != -EINVAL)
			fail("write", "write on an fd without events: %s", err_name(ret));
		break;
	}
	close_data(fd);
}

static void dyn_edges(void)
{
	static const char * const cmds[] = {
		"u:", "u: ", "!u:", "-:", "-:user_events/", "-:/", "-:kprobes/fz_none",
		"-:fz_none_such", "!u:fz_none_such u32 a", "-:user_events/fz_none_such",
		"u::", "u:\t", "!u: ", "!u:fz_none_such;",
	};
	char cmd[700];
	int ret;

	stats.edges++;
	if (chance(70)) {
		snprintf(cmd, sizeof(cmd), "%s", pick(cmds, ARRAY_SIZE(cmds)));
	} else {
		int len = rnd_range(250, 600);

		memset(cmd, 'n', len);
		cmd[len] = '\0';
		memcpy(cmd, chance(50) ? "-:" : "u:", 2);
	}
	set_ctx("dynamic_events", cmd);
	ret = dyn_cmd(cmd);
	if (!ret) {
		/* only "u:" + a long valid name creates something */
		char line[TEXT_MAX];

		if (dyn_new_lines(line, sizeof(line)) != 1 || strlen(cmd) > 2 + 255)
			fail("dynamic_events", "'%.40s...' accepted", cmd);
		add_live(cmd + 2, line);
		return;
	}
	if (ret != -EINVAL && ret != -ENOENT && ret != -E2BIG)
		fail("dynamic_events", "%s", err_name(ret));
}

/* Several fds hold one event; it can be deleted only once all are closed */
static void refs_scenario(void)
{
	char desc[TEXT_MAX];
	static struct event_desc d;
	struct user_status_reg reg;
	int fds[4], n = rnd_range(2, 4), i, ret;
	struct live *e = NULL;
	pid_t child = -1;

	do
		gen_desc(desc, sizeof(desc), NULL);
	while (oracle(desc, &d) != V_OK || strlen(d.canon + DYN_SKIP) > DESC_LIMIT);
	for (i = 0; i < n; i++) {
		fds[i] = open_data();
		set_ctx("DIAG_IOCSREG on several fds", desc);
		ret = uet_register(fds[i], desc, &reg);
		if (ret)
			fail("refs", "registering a valid event on fd %d: %s", i,
			     err_name(ret));
		if (!i) {
			e = add_live(d.name, d.canon);
			e->sidx = reg.status_index;
		}
		if (reg.write_index || reg.status_index != e->sidx)
			fail("refs", "fd %d: write index %u, status index %u (want 0, %u)",
			     i, reg.write_index, reg.status_index, e->sidx);
	}
	if (chance(30)) {
		child = fork();
		if (child == 0) {
			/* holds copies of the fds until told to go */
			pause();
			_exit(0);
		}
	}
	for (i = n - 1; i > 0; i--) {
		int j = rnd_below(i + 1), t = fds[i];

		fds[i] = fds[j];
		fds[j] = t;
	}
	for (i = 0; i < n; i++) {
		ret = delete_any(e, NULL);
		if (ret != -EBUSY)
			fail("refs", "delete with %d fds open: %s, want EBUSY", n - i,
			     err_name(ret));
		close_data(fds[i]);
	}
	if (child > 0) {
		ret = delete_any(e, NULL);
		if (ret != -EBUSY)
			fail("refs", "delete while a child holds the fds: %s, want EBUSY",
			     err_name(ret));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	delete_live(e);
}

/* Many events on one fd: dense write indexes, all writable */
static void many_events(void)
{
	static struct event_desc d;
	char desc[TEXT_MAX];
	struct user_status_reg reg;
	int fd = open_data(), n = rnd_range(8, 40), i, ret, idx;
	unsigned char buf[8];

	for (i = 0; i < n && nr_live < MAX_LIVE; i++) {
		struct live *e;

		do
			gen_desc(desc, sizeof(desc), NULL);
		while (oracle(desc, &d) != V_OK || d.min_size > 4 ||
		       strlen(d.canon + DYN_SKIP) > DESC_LIMIT);
		set_ctx("DIAG_IOCSREG of many events", desc);
		ret = uet_register(fd, desc, &reg);
		if (ret)
			fail("many", "registering event %d: %s", i, err_name(ret));
		if ((int)reg.write_index != i)
			fail("many", "event %d got write index %u", i, reg.write_index);
		e = add_live(d.name, d.canon);
		e->sidx = reg.status_index;
	}
	n = i;
	for (i = 0; i < 2 * n; i++) {
		idx = rnd_below(n);
		memcpy(buf, &idx, 4);
		memset(buf + 4, 0, 4);
		set_ctx("write to one of many events", "");
		if (write(fd, buf, 8) != 8)
			fail("many", "write to index %d: %s", idx, strerror(errno));
	}
	close_data(fd);
}

/* The enable-bit ABI (section 9), on the model of fuzz_model.h ---------- */

/* Errno sets ----------------------------------------------------------------- */

static const int errno_list[] = {
	0, EINVAL, E2BIG, EFAULT, EADDRINUSE, EPERM, ENOENT, EBUSY, EBADF,
};

static unsigned int es(int err)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errno_list); i++)
		if (errno_list[i] == err)
			return 1u << i;
	return 1u << 31;
}

/* @ret (0 or -errno) must be one of @set */
static void expect_set(const char *what, int ret, unsigned int set)
{
	char names[200];
	unsigned int i;
	int o = 0;

	if (es(-ret) & set)
		return;
	names[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(errno_list); i++)
		if (set & (1u << i))
			o += snprintf(names + o, sizeof(names) - o, "%s%s", o ? " or " : "",
				      err_name(-errno_list[i]));
	fail(what, "%s: got %s, want %s", what, err_name(ret), names);
}

/* The first byte where @a and @b differ, or -1 */
static long first_diff(const unsigned char *a, const unsigned char *b, long len)
{
	long i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; a[i] == b[i]; i++)
		;
	return i;
}

/*
 * Every word the enablers name is as the model says, and every other bit
 * of memory around them untouched. The kernel updates a bit before the
 * call that changed it returns; on a page that was not present (after a
 * zap, @lenient) a worker may do it shortly after.
 */
static void check_words(const char *when, int lenient)
{
	const unsigned char *got = NULL, *want = NULL;
	struct ue_wait wait;
	long off;

	ue_wait_start(&wait, UE_WAIT_MS);
	for (;;) {
		off = first_diff(words, words_shadow, WORD_PAGES * page_size);
		if (off >= 0) {
			got = words + off;
			want = words_shadow + off;
		} else {
			off = first_diff((unsigned char *)bss_words,
					 (unsigned char *)bss_shadow, sizeof(bss_words));
			if (off < 0)
				break;
			got = (unsigned char *)bss_words + off;
			want = (unsigned char *)bss_shadow + off;
		}
		if (!lenient)
			fail("enable bit", "%s: the byte at %p is %#x, want %#x", when,
			     (void *)got, *got, *want);
		if (!ue_wait_next(&wait))
			fail("enable bit",
			     "%s: the byte at %p is %#x, want %#x (wait expired after %ld ms: the page had been dropped)",
			     when, (void *)got, *got, *want, ue_scale_ms(UE_WAIT_MS));
	}
	bits.zapped = 0;
	stats.bits_word_checks++;
}

/* A free bit of a word of @size bytes: the memfd pages or .bss, few words */
static void pick_word(int size, unsigned long *addr, int *bit)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		if (chance(70)) {
			int s = rnd_below(MEM_SLOTS);

			*addr = (unsigned long)words + (s % WORD_PAGES) * page_size +
				(s / WORD_PAGES) * 8;
		} else {
			*addr = (unsigned long)&bss_words[rnd_below(BSS_SLOTS)];
		}
		if (size == 4 && chance(50))
			*addr += 4;
		*bit = rnd_below(8 * size);
		if (!bit_taken(*addr, *bit))
			return;
	}
	fail("internal", "no free enable bit");
}

/* Drop the pages of the words: the kernel must fault them in to update */
static void zap_words(void)
{
	if (madvise(words, WORD_PAGES * page_size, MADV_DONTNEED))
		fail("internal", "madvise: %s", strerror(errno));
	bits.zapped = 1;
}

/* Events ------------------------------------------------------------------------ */

static int ev_exists(const struct bits_event *e)
{
	return !access(sys_path(0, e->sys, e->d->name, ""), F_OK);
}

/*
 * Wait up to @ms times the factor (UE_WAIT_MS for what must come, SETTLE_MS
 * where staying is right too; 0: look once) for events/@sys/@name to go; 1
 * when gone
 */
static int wait_gone(const char *sys, const char *name, int ms)
{
	struct ue_wait wait;

	ue_wait_start(&wait, ms);
	do {
		if (access(sys_path(0, sys, name, ""), F_OK))
			return 1;
	} while (ms && ue_wait_next(&wait));
	return 0;
}

/*
 * After a reference of @ev went: an event created through this ABI without
 * PERSIST goes with its last reference, synchronously when that was an fd
 * or an enabler, shortly after when it was a consumer (@async); else it
 * stays, as it does once it recorded into an ftrace buffer.
 */
static void settle(int ev, int async, const char *when)
{
	struct bits_event *e = &bits.ev[ev];
	char line[2 * TEXT_MAX];

	if (e->gone)
		return;
	if (e->stays || ev_refs(ev)) {
		if (!ev_exists(e))
			fail("lifetime", "%s went %s, held: fds %#x, %d enablers, %d consumers%s",
			     e->d->name, when, e->fds, ev_enablers(ev),
			     ev_consumers(e), e->stays ? ", and it should stay" : "");
		return;
	}
	if (!wait_gone(e->sys, e->d->name, async ? UE_WAIT_MS : 0))
		fail("lifetime", "%s still there %s%s: enable-bit event, no PERSIST, no holder",
		     e->d->name, when,
		     async ? " (wait expired)" : "");
	if (!e->multi && dyn_line(e->d->name, line, sizeof(line)))
		fail("lifetime", "%s went, but dynamic_events still shows it", e->d->name);
	e->gone = 1;
	stats.bits_gone++;
}

static void settle_all(int async, const char *when)
{
	int i;

	for (i = 0; i < bits.nr_ev; i++)
		settle(i, async, when);
}

static int new_event(const struct event_desc *want, int multi, const char *dir)
{
	struct bits_event *e;
	int f;

	if (bits.nr_ev == BITS_EVENTS)
		fail("internal", "too many enable-bit events");
	e = &bits.ev[bits.nr_ev];
	memset(e, 0, sizeof(*e));
	e->d = malloc(sizeof(*e->d));
	if (!e->d)
		ksft_exit_fail_msg("out of memory\n");
	memcpy(e->d, want, sizeof(*want));
	snprintf(e->reg_name, sizeof(e->reg_name), "%s", want->name);
	e->multi = multi;
	snprintf(e->sys, sizeof(e->sys), "%s",
		 multi ? USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM);
	if (multi)
		snprintf(e->d->name, sizeof(e->d->name), "%s", dir);
	for (f = 0; f < BITS_FDS; f++) {
		bits.widx[f][bits.nr_ev][0] = -1;
		bits.widx[f][bits.nr_ev][1] = -1;
	}
	bits.created++;
	return bits.nr_ev++;
}

/* A random event not gone, matching @multi (-1: any), or -1 */
static int some_event(int multi)
{
	int i, n = 0, pickd = -1;

	for (i = 0; i < bits.nr_ev; i++) {
		if (bits.ev[i].gone || (multi >= 0 && bits.ev[i].multi != multi))
			continue;
		if (!rnd_below(++n))
			pickd = i;
	}
	return pickd;
}

/* The plain event (not gone) called @name, or -1 */
static int plain_named(const char *name)
{
	int i;

	for (i = 0; i < bits.nr_ev; i++)
		if (!bits.ev[i].gone && !bits.ev[i].multi &&
		    !strcmp(bits.ev[i].reg_name, name))
			return i;
	return -1;
}

/* A multi-format event (not gone) called @name, with the format of @d */
static int multi_named(const char *name, const struct event_desc *d, int *any)
{
	int i, found = -1;

	*any = 0;
	for (i = 0; i < bits.nr_ev; i++) {
		const struct bits_event *e = &bits.ev[i];

		if (e->gone || !e->multi || strcmp(e->reg_name, name))
			continue;
		*any = 1;
		if (!strcmp(line_fields(e->d->canon), line_fields(d->canon)))
			found = i;
	}
	return found;
}

static int known_dir(const char *dir)
{
	int i;

	for (i = 0; i < bits.nr_ev; i++)
		if (!bits.ev[i].gone && bits.ev[i].multi && !strcmp(bits.ev[i].d->name, dir))
			return 1;
	return 0;
}

/*
 * The directories events/user_events_multi/@name.<hex id> that are not one
 * of our events: how many, the first into @dir
 */
static int new_multi_dirs(const char *name, char *dir, size_t size)
{
	DIR *dp = opendir(TRACEFS "events/" USER_EVENTS_MULTI_SYSTEM);
	size_t len = strlen(name);
	struct dirent *de;
	int n = 0;

	if (!dp)
		return 0;
	while ((de = readdir(dp))) {
		const char *id = de->d_name + len + 1;

		if (strncmp(de->d_name, name, len) || de->d_name[len] != '.' || !*id ||
		    strspn(id, "0123456789abcdef") != strlen(id) || known_dir(de->d_name))
			continue;
		if (!n++)
			snprintf(dir, size, "%s", de->d_name);
	}
	closedir(dp);
	return n;
}

/* @got, the write index @fd slot got for @ev: the same again, else a new one */
static void check_widx(int slot, int ev, int bits_abi, unsigned int got)
{
	int *w = &bits.widx[slot][ev][bits_abi], i, a;

	if (*w >= 0) {
		if ((int)got != *w)
			fail("write index", "%s again, same fd, same ABI: write index %u, was %d",
			     bits.ev[ev].d->name, got, *w);
		return;
	}
	for (i = 0; i < bits.nr_ev; i++)
		for (a = 0; a < 2; a++)
			if (bits.widx[slot][i][a] == (int)got)
				fail("write index", "%s got index %u, on that fd %s's (%s ABI)",
				     bits.ev[ev].d->name, got,
				     bits.ev[i].d->name, a ? "enable-bit" : "status-page");
	*w = got;
}

/* Listed where it should be: dynamic_events, user_events_status (slot only) */
static void check_listing(int ev)
{
	struct bits_event *e = &bits.ev[ev];
	char line[2 * TEXT_MAX], tail[TEXT_MAX];
	unsigned int idx;
	int n;

	if (e->multi) {
		if (!ev_exists(e))
			fail("listing", "events/%s/%s is not there", e->sys, e->d->name);
		return;
	}
	if (!dyn_line(e->d->name, line, sizeof(line)))
		fail("listing", "%s is not in dynamic_events", e->d->name);
	if (strcmp(line, e->d->canon))
		fail("listing", "dynamic_events shows '%s', want '%s'", line, e->d->canon);
	n = status_line(e->d->name, &idx, tail, sizeof(tail));
	if (!e->has_sidx && n)
		fail("listing", "user_events_status lists %s, an enable-bit event",
		     e->d->name);
	if (e->has_sidx && (n != 1 || idx != e->sidx))
		fail("listing", "user_events_status shows %s %d times (index %u, want %u)",
		     e->d->name, n, n ? idx : 0, e->sidx);
}

/* The status byte of an event with a slot follows the same consumers */
static void check_status_byte(int ev)
{
	const struct bits_event *e = &bits.ev[ev];

	if (e->has_sidx && !status_page[e->sidx] != !ev_consumers(e))
		fail("status", "status byte of %s is %#x with %d consumers", e->d->name,
		     status_page[e->sidx], ev_consumers(e));
}

/* fds ---------------------------------------------------------------------------- */

static int slot_fd(int slot)
{
	if (bits.fd[slot] < 0) {
		int ev, a;

		bits.fd[slot] = open_data();
		for (ev = 0; ev < BITS_EVENTS; ev++)
			for (a = 0; a < 2; a++)
				bits.widx[slot][ev][a] = -1;
	}
	return bits.fd[slot];
}

/* An open fd of ours, any (enablers belong to the process, not to an fd) */
static int any_fd(void)
{
	return slot_fd(rnd_below(WRITER));
}

static void close_slot(int slot)
{
	int ev;

	if (bits.fd[slot] < 0)
		return;
	close_data(bits.fd[slot]);
	bits.fd[slot] = -1;
	for (ev = 0; ev < bits.nr_ev; ev++)
		bits.ev[ev].fds &= ~(1 << slot);
	settle_all(0, "after close() of the last fd that held it");
}

/* Registering ------------------------------------------------------------------- */

/* What one DIAG_IOCSREG through struct user_reg is given and expects */
struct bits_try {
	unsigned int size;
	int esize, size_field, bit, flags;
	unsigned long addr;
	int tail_at, guard_len, null;	/* a non-zero tail byte; placement */
	unsigned int set;	/* the errnos the ABI allows; 0: success */
};

/*
 * The fields around the description, valid or not (all valid when @clean),
 * and what each allows
 */
static void gen_reg_struct(struct bits_try *t, int clean, int force_fail)
{
	static const int odd_sizes[] = { 0, 1, 2, 3, 5, 6, 7, 9, 12, 16, 32, 255 };
	static const unsigned int bad_struct[] = { 0, 1, 4, 8, 16, 20, 23, 25, 26, 27 };
	static const unsigned long long bad_addr[] = {
		0, 0xffffffff81000000ULL, 0x8000000000000000ULL, 0xfffffffffffff000ULL,
	};
	int r = rnd_below(100);

	t->esize = chance(50) ? 4 : 8;
	t->size_field = t->esize;
	t->size = 28;
	if (clean)
		r = 0;
	/* where the bit is */
	if (r < 82) {
		pick_word(t->esize, &t->addr, &t->bit);
	} else if (r < 88 && bits.nr_en) {
		const struct enabler *en = &bits.en[rnd_below(bits.nr_en)];

		t->addr = en->addr;
		t->bit = en->bit;
		t->esize = en->size;
		t->size_field = en->size;
		t->set |= es(EADDRINUSE);
	} else if (r < 92) {
		pick_word(t->esize, &t->addr, &t->bit);
		t->addr += rnd_range(1, t->esize - 1);
		t->set |= es(EINVAL);
	} else if (r < 97) {
		/* the read-only page or the PROT_NONE one after the words */
		t->addr = (unsigned long)words + (r < 95 ? 2 : 3) * page_size +
			  t->esize * rnd_below(page_size / t->esize);
		t->bit = rnd_below(8 * t->esize);
		t->set |= es(EFAULT);
	} else {
		t->addr = chance(50) ? (unsigned long)(guard + page_size) :
			  bad_addr[rnd_below(ARRAY_SIZE(bad_addr))];
		t->bit = rnd_below(8 * t->esize);
		t->set |= es(EFAULT);
	}
	if (!clean && chance(5)) {
		t->bit = rnd_range(8 * t->esize, 255);
		t->set |= es(EINVAL);
	}
	if ((!clean && chance(5)) || force_fail) {
		t->size_field = odd_sizes[rnd_below(ARRAY_SIZE(odd_sizes))];
		t->set |= es(EINVAL);
	}
	/* the struct's own size and tail */
	r = rnd_below(100);
	if (clean || r < 75) {
		;
	} else if (r < 85) {
		t->size = rnd_range(29, 64);
	} else if (r < 87) {
		t->size = page_size;
	} else if (r < 91) {
		t->size = rnd_range(29, 64);
		t->tail_at = rnd_range(28, t->size - 1);
		t->set |= es(E2BIG);
	} else if (r < 94) {
		t->size = chance(50) ? page_size + rnd_range(1, page_size) : 0xffffffff;
		t->set |= es(E2BIG);
	} else {
		t->size = bad_struct[rnd_below(ARRAY_SIZE(bad_struct))];
		t->set |= es(EINVAL);
	}
	/* a struct that runs into a PROT_NONE page, or no struct at all */
	if (clean) {
		;
	} else if (chance(4) && t->size > 4 && t->size <= 64) {
		t->guard_len = rnd_range(4, t->size - 1);
		t->set |= es(EFAULT);
	} else if (chance(1)) {
		t->null = 1;
		t->set |= es(EFAULT);
	}
}

/* Register (@desc, @t) on @slot's fd; returns 0 or -errno, the index in @widx */
static int do_reg(int slot, const char *desc, const struct bits_try *t,
		  unsigned int *widx)
{
	static unsigned char buf[REG_BUF];
	struct user_reg reg = {
		.size = t->size,
		.enable_bit = t->bit,
		.enable_size = t->size_field,
		.flags = t->flags,
		.enable_addr = t->addr,
		.name_args = (unsigned long)desc,
	};
	unsigned char *at = buf;
	int ret, len = sizeof(reg);

	memset(buf, 0, sizeof(buf));
	if (t->tail_at)
		buf[t->tail_at] = rnd_range(1, 255);
	if (t->guard_len) {
		/* the first guard_len bytes readable, the rest PROT_NONE */
		at = guard + page_size - t->guard_len;
		memset(at, 0, t->guard_len);
		if (t->guard_len < len)
			len = t->guard_len;
	}
	memcpy(at, &reg, len);
	ret = ioctl(slot_fd(slot), DIAG_IOCSREG, t->null ? NULL : at) ? -errno : 0;
	memcpy(&reg, at, len);
	*widx = reg.write_index;
	stats.bits_regs++;
	return ret;
}

/* The fields of @line spaced anew: the same format (no flags: they may count) */
static void same_format(const struct event_desc *d, const char *name, char *out,
			size_t size)
{
	const char *p = line_fields(d->canon);
	int o = snprintf(out, size, "%s%s", chance(20) ? sep_ws() : "", name);

	if (*p)
		o += snprintf(out + o, size - o, "%s", sep_ws());
	for (; *p && o < (int)size - 8; p++) {
		if (p[0] == ';' && p[1] == ' ') {
			o += snprintf(out + o, size - o, "%s", sep_field(0));
			p++;
		} else if (*p == ' ') {
			o += snprintf(out + o, size - o, "%s", sep_ws());
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

/* A failed registration made nothing (an event it made went with it) */
static void check_nothing_made(const struct event_desc *want, int multi, int persist)
{
	char dir[300];
	struct ue_wait wait;

	if (multi) {
		ue_wait_start(&wait, UE_WAIT_MS);
		while (new_multi_dirs(want->name, dir, sizeof(dir)))
			if (!ue_wait_next(&wait))
				fail("register",
				     "a failed registration left events/%s/%s (wait expired)",
				     USER_EVENTS_MULTI_SYSTEM, dir);
		return;
	}
	if (plain_named(want->name) >= 0 || is_pre(want->name))
		return;
	/* PERSIST: it may stay, and the window ends the wait; else it must go */
	if (wait_gone(USER_EVENTS_SYSTEM, want->name, persist ? SETTLE_MS : UE_WAIT_MS))
		return;
	/* as Linux 6.12: PERSIST applies once the event exists; delete it */
	if (persist) {
		int ev = new_event(want, 0, NULL);

		bits.ev[ev].persist = 1;
		bits.ev[ev].stays = 1;
		return;
	}
	fail("register", "a failed registration left %s behind", want->name);
}

/*
 * One registration through struct user_reg: a description (new, of an
 * event of ours, or mutated), flags, the word, the bit, the struct's size,
 * valid or not; the errno must be one the ABI allows, the model follows.
 */
static void bits_register(void)
{
	static char desc[TEXT_MAX];
	static struct event_desc want;
	struct bits_try t = { 0 };
	enum verdict v;
	int slot = rnd_below(WRITER), r = rnd_below(100), target = -1, ev = -1;
	int plain, multi_same, multi_any, ret, persist, multi, name_ok, clean = chance(50);
	int bad_name = 0;
	unsigned int widx = 0, desc_set = 0;
	char dir[300] = "";

	/* the description */
	target = r < 30 ? some_event(-1) : -1;
	if (target >= 0) {
		struct bits_event *e = &bits.ev[target];

		if (chance(70))
			same_format(e->d, e->reg_name, desc, sizeof(desc));
		else
			gen_desc(desc, sizeof(desc), e->reg_name);
	} else {
		if (bits.created >= BITS_NEW_MAX)
			return;
		gen_desc(desc, sizeof(desc), NULL);
		if (!clean && chance(40)) {
			mutate(desc, sizeof(desc));
			stats.mutated++;
		}
	}
	v = oracle(desc, &want);
	name_ok = !!want.name[0];
	if (name_ok && (is_pre(want.name) || is_live(want.name) >= 0))
		return;
	plain = plain_named(want.name);
	multi_same = multi_named(want.name, &want, &multi_any);
	/* whether text flags make another format is not the ABI's to say */
	if (multi_any && want.has_flags)
		return;

	/* the flags: an event is plain or multi-format, each name one or the other */
	r = rnd_below(clean ? 95 : 100);
	t.flags = r < 65 ? 0 : r < 75 ? USER_EVENT_REG_PERSIST :
		  r < 92 ? USER_EVENT_REG_MULTI_FORMAT :
		  r < 95 ? USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT :
		  (USER_EVENT_REG_MAX << rnd_below(14)) | rnd_below(4);
	if ((t.flags & USER_EVENT_REG_MULTI_FORMAT) &&
	    (plain >= 0 || want.has_flags || system_file_name(want.name, strlen(want.name)) ||
	     strlen(want.name) > 200))
		t.flags &= ~USER_EVENT_REG_MULTI_FORMAT;
	if (!(t.flags & USER_EVENT_REG_MULTI_FORMAT) && multi_any)
		t.flags = (t.flags & ~USER_EVENT_REG_PERSIST) | USER_EVENT_REG_MULTI_FORMAT;
	if (t.flags >= USER_EVENT_REG_MAX)
		t.set |= es(EINVAL);
	persist = t.flags & USER_EVENT_REG_PERSIST;
	multi = !!(t.flags & USER_EVENT_REG_MULTI_FORMAT);
	/* a persistent multi-format event has no name to delete it by: never made */
	gen_reg_struct(&t, clean, persist && multi && t.flags < USER_EVENT_REG_MAX);

	/* the description's own verdict, and a name taken with other fields */
	if (v == V_EINVAL)
		desc_set = es(EINVAL);
	else if (v == V_E2BIG)
		desc_set = es(E2BIG);
	else if (!multi && plain >= 0 &&
		 strcmp(line_fields(bits.ev[plain].d->canon), line_fields(want.canon)))
		desc_set = es(EADDRINUSE);
	if (!clean && chance(3)) {
		/* a description nobody can read */
		desc_set = es(EFAULT);
		bad_name = 1;
	}
	t.set |= desc_set;

	set_ctx("DIAG_IOCSREG (enable bit)", bad_name ? "(name_args: PROT_NONE)" : desc);
	snprintf(ctx.op, sizeof(ctx.op), "DIAG_IOCSREG bits size %u flags %#x",
		 t.size, t.flags);
	snprintf(ctx.text + strlen(ctx.text), sizeof(ctx.text) - strlen(ctx.text),
		 " [enable_size %d, enable_bit %d, enable_addr %#lx%s%s%s]", t.size_field,
		 t.bit, t.addr, t.tail_at ? ", non-zero tail" : "",
		 t.guard_len ? ", struct runs into PROT_NONE" : "",
		 t.null ? ", NULL struct" : "");
	/* a word whose page is not there: still right when the ioctl returns */
	if (chance(10))
		zap_words();
	ret = do_reg(slot, bad_name ? (const char *)(guard + page_size) : desc, &t, &widx);
	if (opt.verbose)
		ksft_print_msg("%s '%s' -> %s\n", ctx.op, ctx.text, err_name(ret));
	expect_set("register (enable bit)", ret, t.set ? t.set : es(0));
	if (ret) {
		if (v == V_OK && !bad_name)
			check_nothing_made(&want, multi, persist);
		check_words("after a failed registration", 0);
		return;
	}
	stats.bits_regs_ok++;

	/* which event: the one of this name and fields, or a new one */
	if (multi) {
		int n = new_multi_dirs(want.name, dir, sizeof(dir));

		if (multi_same >= 0 && n)
			fail("multi-format", "the same format again made events/%s/%s",
			     USER_EVENTS_MULTI_SYSTEM, dir);
		if (multi_same < 0 && n != 1)
			fail("multi-format", "a new format of %s made %d events in %s", want.name,
			     n, USER_EVENTS_MULTI_SYSTEM);
		ev = multi_same >= 0 ? multi_same : new_event(&want, 1, dir);
	} else if (plain >= 0) {
		ev = plain;
	} else {
		ev = new_event(&want, 0, NULL);
	}
	if (persist) {
		bits.ev[ev].persist = 1;
		bits.ev[ev].stays = 1;
	}
	bits.ev[ev].fds |= 1 << slot;
	add_enabler(t.addr, t.bit, t.esize, ev);
	check_widx(slot, ev, 1, widx);
	if (ev == bits.nr_ev - 1 && (multi ? multi_same < 0 : plain < 0))
		free(check_format_sys(bits.ev[ev].d, bits.ev[ev].sys));
	check_listing(ev);
	check_words("after a registration", 0);
}

/* The status-page ABI on an event of ours, or a new event made through it */
static void bits_status_reg(int fresh)
{
	static char desc[TEXT_MAX];
	static struct event_desc want;
	struct user_status_reg reg;
	int slot = rnd_below(WRITER), ev = fresh ? -1 : some_event(0), ret;

	if (fresh) {
		if (bits.created >= BITS_NEW_MAX)
			return;
		do
			gen_desc(desc, sizeof(desc), NULL);
		while (oracle(desc, &want) != V_OK || plain_named(want.name) >= 0 ||
		       is_pre(want.name));
	} else {
		if (ev < 0)
			return;
		snprintf(desc, sizeof(desc), "%s", bits.ev[ev].d->canon + DYN_SKIP);
	}
	set_ctx("DIAG_IOCSREG (status page) of an enable-bit event", desc);
	ret = uet_register(slot_fd(slot), desc, &reg);
	if (ret)
		fail("register", "status-page registration: %s", err_name(ret));
	if (fresh) {
		ev = new_event(&want, 0, NULL);
		if (!dyn_line(want.name, desc, sizeof(desc)) || strcmp(desc, want.canon))
			fail("register", "a new status-page event is not in dynamic_events as '%s'",
			     want.canon);
	}
	if (bits.ev[ev].has_sidx && reg.status_index != bits.ev[ev].sidx)
		fail("register", "%s: status index %u, was %u", bits.ev[ev].d->name,
		     reg.status_index, bits.ev[ev].sidx);
	/* a status-page slot: the event stays until deleted */
	bits.ev[ev].has_sidx = 1;
	bits.ev[ev].sidx = reg.status_index;
	bits.ev[ev].stays = 1;
	bits.ev[ev].fds |= 1 << slot;
	check_widx(slot, ev, 0, reg.write_index);
	check_listing(ev);
	check_status_byte(ev);
}

/* DIAG_IOCSUNREG: the enabler at (address, bit) goes and its bit clears */
static void bits_unreg(void)
{
	static unsigned char buf[REG_BUF];
	struct user_unreg u = { .size = sizeof(u) };
	unsigned int set = 0, maybe = 0;
	int r = rnd_below(100), match, ret, ev, len = sizeof(u);
	unsigned long addr;
	unsigned char *at = buf;
	int bit;

	if (bits.nr_en && r < 65) {
		const struct enabler *en = &bits.en[rnd_below(bits.nr_en)];

		addr = en->addr;
		bit = en->bit;
	} else {
		pick_word(chance(50) ? 4 : 8, &addr, &bit);
		if (chance(15))
			bit = rnd_range(64, 255);
	}
	match = find_enabler(addr, bit);
	u.disable_bit = bit;
	u.disable_addr = addr;
	memset(buf, 0, sizeof(buf));
	r = rnd_below(100);
	if (r < 8) {
		if (chance(50))
			u.__reserved = rnd_range(1, 255);
		else
			u.__reserved2 = rnd_range(1, 65535);
		set |= es(EINVAL);
	} else if (r < 15) {
		static const unsigned int small[] = { 0, 1, 4, 8, 12, 15 };

		u.size = small[rnd_below(ARRAY_SIZE(small))];
		set |= es(EINVAL);
	} else if (r < 20) {
		/* larger, zero tail: upstream takes it, "a bad size" may not */
		u.size = rnd_range(17, 64);
		maybe |= es(EINVAL);
	} else if (r < 23) {
		u.size = rnd_range(17, 64);
		buf[rnd_range(16, u.size - 1)] = rnd_range(1, 255);
		set |= es(EINVAL) | es(E2BIG);
	} else if (r < 25) {
		u.size = chance(50) ? page_size + rnd_range(1, page_size) : 0xffffffff;
		set |= es(EINVAL) | es(E2BIG);
	} else if (r < 29) {
		/* the struct runs into PROT_NONE, or is not there */
		len = rnd_range(4, sizeof(u) - 1);
		at = chance(80) ? guard + page_size - len : NULL;
		set |= es(EFAULT);
	}
	/* an invalid argument may be seen before the lookup, never after success */
	if (set)
		set |= match < 0 ? es(ENOENT) : 0;
	else
		set = maybe | es(match < 0 ? ENOENT : 0);
	if (at)
		memcpy(at, &u, len);
	set_ctx("DIAG_IOCSUNREG", "");
	snprintf(ctx.text, sizeof(ctx.text), "size %u, bit %d, addr %#lx, reserved %u/%u%s%s",
		 u.size, bit, addr, u.__reserved, u.__reserved2,
		 at && at != buf ? ", struct runs into PROT_NONE" : "", at ? "" : ", NULL");
	ret = ioctl(any_fd(), DIAG_IOCSUNREG, at) ? -errno : 0;
	if (opt.verbose)
		ksft_print_msg("DIAG_IOCSUNREG %s -> %s\n", ctx.text, err_name(ret));
	stats.bits_unregs++;
	expect_set("DIAG_IOCSUNREG", ret, set);
	if (ret)
		return;
	stats.bits_unregs_ok++;
	ev = bits.en[match].ev;
	drop_enabler(match);
	check_words("after DIAG_IOCSUNREG", bits.zapped);
	settle(ev, 0, "after DIAG_IOCSUNREG of its last enabler");
}

/* Consumers ----------------------------------------------------------------------- */

static int ring_busy(void)
{
	return ring.fd >= 0;
}

/* Attach or detach one consumer of @ev: 0 ftrace, 1 our instance, 2 perf */
static void bits_consumer(int ev, int which, int on)
{
	struct bits_event *e = &bits.ev[ev];
	int *state = which == 0 ? &e->ftrace : which == 1 ? &e->inst : &e->perf;
	char when[64];

	if (*state == on)
		return;
	if (on && chance(25))
		zap_words();
	set_ctx(on ? "attach a consumer" : "detach a consumer", e->d->name);
	if (which == 2) {
		if (on)
			perf_attach_sys(e->sys, e->d->name, &ring);
		else
			perf_detach(&ring);
	} else {
		int ret = uet_write_file(sys_path(which, e->sys, e->d->name, "enable"),
					on ? "1" : "0", O_TRUNC);

		if (ret)
			fail("ftrace", "%s %s%s: %s", on ? "enabling" : "disabling", e->d->name,
			     which ? " in the instance" : "", err_name(ret));
	}
	*state = on;
	shadow_event(ev);
	snprintf(when, sizeof(when), "after %s %s", on ? "attaching" : "detaching",
		 which == 0 ? "ftrace" : which == 1 ? "ftrace (instance)" : "perf");
	check_words(when, bits.zapped);
	check_status_byte(ev);
	if (!on)
		settle(ev, 1, "after its last consumer left");
}

/*
 * Writes with an enable-bit index: EBADF with nothing attached; with
 * consumers, recorded as a status-page write is. On a fresh fd of its own.
 */
static void bits_write(int ev)
{
	static struct records rec;
	static char desc[TEXT_MAX];
	struct bits_event *e = &bits.ev[ev];
	struct bits_try t = { .size = 28 };
	int fd, ftrace = chance(60), inst = chance(15), perf = !ring_busy() && chance(30);
	int readback = chance(70), consumers, nw, i, ret, n;
	unsigned int widx;
	char dir[300];

	close_slot(WRITER);
	if (e->gone)
		return;
	fd = slot_fd(WRITER);
	snprintf(desc, sizeof(desc), "%s", e->d->canon + DYN_SKIP);
	t.esize = chance(50) ? 4 : 8;
	t.size_field = t.esize;
	pick_word(t.esize, &t.addr, &t.bit);
	t.flags = e->multi ? USER_EVENT_REG_MULTI_FORMAT : 0;
	set_ctx("DIAG_IOCSREG (enable bit) for writing", desc);
	ret = do_reg(WRITER, desc, &t, &widx);
	if (ret)
		fail("register", "registering %s again for writing: %s", e->d->name,
		     err_name(ret));
	n = e->multi ? new_multi_dirs(e->reg_name, dir, sizeof(dir)) : 0;
	if (n)
		fail("multi-format", "the same format again made events/%s/%s",
		     USER_EVENTS_MULTI_SYSTEM, dir);
	e->fds |= 1 << WRITER;
	add_enabler(t.addr, t.bit, t.esize, ev);
	check_widx(WRITER, ev, 1, widx);
	check_words("after a registration", 0);

	/* nothing attached (a consumer may be left from before) */
	if (!ev_consumers(e))
		for (i = rnd_range(1, 3); i > 0; i--)
			do_write_abi(fd, e->d, widx, 0, &rec, 1);
	if (ftrace && readback)
		uet_clear_trace();
	if (inst)
		uet_write_file(TRACEFS INSTANCE "trace", "", O_TRUNC);
	if (ftrace)
		bits_consumer(ev, 0, 1);
	if (inst)
		bits_consumer(ev, 1, 1);
	if (perf)
		bits_consumer(ev, 2, 1);
	consumers = (e->ftrace || e->inst ? EVENT_STATUS_FTRACE : 0) |
		    (e->perf ? EVENT_STATUS_PERF : 0);
	rec.n = 0;
	rec.used = 0;
	nw = rnd_range(1, MAX_WRITES);
	for (i = 0; i < nw; i++)
		do_write_abi(fd, e->d, widx, consumers, &rec, 1);
	/* a record in an ftrace buffer: the event is not deleted automatically */
	if ((consumers & EVENT_STATUS_FTRACE) && rec.n)
		e->stays = 1;
	stats.traced += ftrace ? rec.n : 0;
	set_ctx("check the records of", e->d->canon);
	if (ftrace && readback)
		check_trace(0, e->d, &rec, 0);
	if (inst)
		check_trace(1, e->d, &rec, 0);
	if (e->perf) {
		char *text = uet_read_file(sys_path(0, e->sys, e->d->name, "id"));

		check_perf(&ring, text ? atoi(text) : -1, &rec);
		free(text);
	}
	/* mostly all go; a consumer left behind outlives the fds and enablers */
	if (chance(85))
		bits_consumer(ev, 0, 0);
	bits_consumer(ev, 1, 0);
	bits_consumer(ev, 2, 0);
	if (!ev_consumers(e))
		do_write_abi(fd, e->d, widx, 0, &rec, 1);
}

/* Lifetime and teardown ---------------------------------------------------------- */

/* DIAG_IOCSDEL of an event: EBUSY while anything holds it */
static void bits_delete(int ev)
{
	struct bits_event *e = &bits.ev[ev];
	int ret, fd = open_data();

	set_ctx("DIAG_IOCSDEL of an enable-bit event", e->d->name);
	ret = uet_delete(fd, e->d->name);
	close_data(fd);
	if (ev_refs(ev)) {
		expect_err("delete while held", ret, -EBUSY);
		return;
	}
	expect_err("delete", ret, 0);
	check_gone(e->d->name);
	e->gone = 1;
}

/* A child without CAP_PERFMON and CAP_SYS_ADMIN: what it got, to @wfd */
static void unprivileged_child(int wfd, const char *del, const char *desc,
			       unsigned long addr, int bit, unsigned long addr2, int bit2)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];
	int res[3] = { 1, 1, 1 }, fd;

	if (syscall(SYS_capget, &h, c) == 0) {
		c[CAP_TO_INDEX(CAP_PERFMON)].effective &= ~CAP_TO_MASK(CAP_PERFMON);
		c[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		if (syscall(SYS_capset, &h, c) == 0) {
			fd = open(UE_DATA, O_RDWR);
			res[0] = del ? uet_delete(fd, del) : 0;
			res[1] = uet_register_bits(fd, desc, (void *)addr, 8, bit,
						   USER_EVENT_REG_PERSIST, NULL);
			res[2] = uet_register_bits(fd, desc, (void *)addr2, 8, bit2, 0, NULL);
		}
	}
	if (write(wfd, res, sizeof(res)) != sizeof(res))
		_exit(1);
	_exit(0);
}

/*
 * Without CAP_PERFMON: PERSIST is EPERM, for registering and for deleting
 * (@ev, a persistent event nothing holds, or -1); flags 0 work, and the
 * event that makes goes when the process exits.
 */
static void bits_unprivileged(int ev)
{
	static char desc[TEXT_MAX];
	static struct event_desc want;
	int pfd[2], res[3] = { 1, 1, 1 }, bit, bit2;
	unsigned long addr, addr2;
	pid_t pid;

	do
		gen_desc(desc, sizeof(desc), NULL);
	while (oracle(desc, &want) != V_OK || plain_named(want.name) >= 0 ||
	       is_pre(want.name));
	pick_word(8, &addr, &bit);
	do
		pick_word(8, &addr2, &bit2);
	while (addr2 == addr && bit2 == bit);
	if (pipe(pfd))
		fail("internal", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		fail("internal", "fork: %s", strerror(errno));
	if (!pid)
		unprivileged_child(pfd[1], ev >= 0 ? bits.ev[ev].d->name : NULL, desc,
				   addr, bit, addr2, bit2);
	close(pfd[1]);
	if (read(pfd[0], res, sizeof(res)) != sizeof(res))
		res[0] = 1;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	stats.bits_unprivileged++;
	set_ctx("without CAP_PERFMON", desc);
	if (res[0] == 1)
		fail("capabilities", "the child could not drop CAP_PERFMON");
	if (ev >= 0)
		expect_err("delete a PERSIST event without CAP_PERFMON", res[0], -EPERM);
	expect_err("register PERSIST without CAP_PERFMON", res[1], -EPERM);
	expect_err("register without CAP_PERFMON, flags 0", res[2], 0);
	/* its fd and enablers went with it, and so did the event */
	if (!wait_gone(USER_EVENTS_SYSTEM, want.name, UE_WAIT_MS))
		fail("lifetime",
		     "%s, made by a process that exited, is still there (wait expired)",
		     want.name);
	if (ev >= 0 && !ev_exists(&bits.ev[ev]))
		fail("capabilities", "%s went: deleted without CAP_PERFMON", bits.ev[ev].d->name);
}

/* Everything goes in random order; the model says when each event goes */
static void bits_teardown(void)
{
	int i, ev;

	for (;;) {
		int fds = 0, cons = 0, r;

		for (i = 0; i < BITS_FDS; i++)
			fds += bits.fd[i] >= 0;
		for (i = 0; i < bits.nr_ev; i++)
			cons += ev_consumers(&bits.ev[i]);
		if (!fds && !bits.nr_en && !cons)
			break;
		/* one of what is left to drop, now and then a delete or a bad unreg */
		r = rnd_below(100);
		ev = r < 8 ? some_event(0) : -1;
		if (ev >= 0) {
			bits_delete(ev);
		} else if (r < 16 && bits.nr_en) {
			bits_unreg();
		} else if (r < 50 && fds) {
			do
				i = rnd_below(BITS_FDS);
			while (bits.fd[i] < 0);
			close_slot(i);
		} else if (r < 90 && bits.nr_en) {
			const struct enabler *en = &bits.en[rnd_below(bits.nr_en)];
			int ret;

			set_ctx("DIAG_IOCSUNREG", "");
			ev = en->ev;
			ret = uet_unregister_bits(any_fd(), (void *)en->addr, en->bit);
			stats.bits_unregs++;
			expect_err("DIAG_IOCSUNREG of an enabler", ret, 0);
			stats.bits_unregs_ok++;
			drop_enabler(en - bits.en);
			check_words("after DIAG_IOCSUNREG", bits.zapped);
			settle(ev, 0, "after DIAG_IOCSUNREG of its last enabler");
		} else {
			for (i = 0; i < bits.nr_ev; i++) {
				if (ev_consumers(&bits.ev[i])) {
					bits_consumer(i, 0, 0);
					bits_consumer(i, 1, 0);
					bits_consumer(i, 2, 0);
					break;
				}
			}
		}
	}
	/* any_fd() may have opened one more: nothing holds anything now */
	for (i = 0; i < BITS_FDS; i++)
		close_slot(i);
	for (ev = 0; ev < bits.nr_ev; ev++)
		if (!bits.ev[ev].gone && !bits.ev[ev].stays)
			fail("lifetime", "%s: still there with nothing holding it",
			     bits.ev[ev].d->name);
	if (chance(10)) {
		for (ev = 0; ev < bits.nr_ev; ev++)
			if (!bits.ev[ev].gone && bits.ev[ev].persist)
				break;
		bits_unprivileged(ev < bits.nr_ev ? ev : -1);
	}
	for (ev = 0; ev < bits.nr_ev; ev++)
		if (!bits.ev[ev].gone)
			bits_delete(ev);
}

static void bits_reset(void)
{
	int i;

	for (i = 0; i < bits.nr_ev; i++)
		free(bits.ev[i].d);
	memset(&bits, 0, sizeof(bits));
	for (i = 0; i < BITS_FDS; i++)
		bits.fd[i] = -1;
}

/* One scenario of the enable-bit ABI, from nothing back to nothing */
static void bits_scenario(void)
{
	int n = rnd_range(1, 10), i, ev;

	bits.active = 1;
	fill_random(words, WORD_PAGES * page_size);
	memcpy(words_shadow, words, WORD_PAGES * page_size);
	fill_random((unsigned char *)bss_words, sizeof(bss_words));
	memcpy(bss_shadow, bss_words, sizeof(bss_words));
	if (chance(15))
		bits_status_reg(1);
	for (i = 0; i < n; i++) {
		int r = rnd_below(100);

		if (r < 70)
			bits_register();
		else if (r < 82)
			bits_unreg();
		else if (r < 90)
			bits_status_reg(0);
		else
			close_slot(rnd_below(WRITER));
	}
	for (ev = 0; ev < bits.nr_ev; ev++)
		if (!bits.ev[ev].gone)
			check_listing(ev);
	ev = chance(70) ? some_event(-1) : -1;
	if (ev >= 0)
		bits_write(ev);
	bits_teardown();
	bits_reset();
}

/* After a failure: no enabler, consumer, fd or event of ours is left */
static void bits_cleanup(void)
{
	int i, fd;

	if (!bits.active)
		return;
	fd = open(UE_DATA, O_RDWR);
	for (i = 0; i < bits.nr_en && fd >= 0; i++)
		uet_unregister_bits(fd, (void *)bits.en[i].addr, bits.en[i].bit);
	perf_detach(&ring);
	for (i = 0; i < bits.nr_ev; i++) {
		struct bits_event *e = &bits.ev[i];

		uet_write_file(sys_path(0, e->sys, e->d->name, "enable"), "0", O_TRUNC);
		uet_write_file(sys_path(1, e->sys, e->d->name, "enable"), "0", O_TRUNC);
	}
	for (i = 0; i < BITS_FDS; i++)
		if (bits.fd[i] >= 0)
			close_data(bits.fd[i]);
	for (i = 0; i < bits.nr_ev; i++) {
		struct bits_event *e = &bits.ev[i];

		if (!e->multi && fd >= 0)
			uet_delete(fd, e->d->name);
		if (!wait_gone(e->sys, e->d->name, SETTLE_MS))
			ksft_print_msg("could not delete %s/%s at the end\n", e->sys, e->d->name);
	}
	if (fd >= 0)
		close(fd);
	bits_reset();
}

static void bits_setup(void)
{
	int mfd = memfd_create("fuzz_test_words", 0);

	if (mfd < 0 || ftruncate(mfd, (WORD_PAGES + 2) * page_size))
		ksft_exit_fail_msg("memfd: %s\n", strerror(errno));
	words = mmap(NULL, (WORD_PAGES + 2) * page_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, mfd, 0);
	close(mfd);
	if (words == MAP_FAILED ||
	    mprotect(words + WORD_PAGES * page_size, page_size, PROT_READ) ||
	    mprotect(words + (WORD_PAGES + 1) * page_size, page_size, PROT_NONE))
		ksft_exit_fail_msg("word pages: %s\n", strerror(errno));
	words_shadow = malloc(WORD_PAGES * page_size);
	if (!words_shadow)
		ksft_exit_fail_msg("out of memory\n");
	bits_reset();
}

/* Races: munmap(), mremap(), fork() and signals against the enable bit ------------ */

static double now(void);

#define RACE_FILL	(RACE_SPARES + RACE_SLOTS * RACE_FORKS)	/* pages filled, then moved */

/* The scenario's threads, pages and files; the model is race in fuzz_model.h */
static struct {
	int active;
	int fd;			/* user_events_data, holds both events */
	int memfd;		/* RACE_MEMFD pages, each mapped over a word once */
	unsigned char *region;	/* slots, pages to fill and move, graves */
	int owned[RACE_SLOTS + RACE_FILL + RACE_GRAVES];	/* pages of it still ours */
	int mapper_on, storm_on;
	pthread_t mapper, storm;
	pthread_barrier_t start, done;	/* a change of a page against a call of the test */
	int req_slot, req_how;	/* that change */
	unsigned int req_spin;	/* the mapper's head start, in spins */
	unsigned int spin;	/* spins that take about as long as DIAG_IOCSREG */
	pid_t main_tid, child;
	int stop;		/* __atomic: the threads end */
	unsigned long seq;	/* __atomic: tickets */
	unsigned long long mrng, srng;	/* the threads' random streams */
	int spares, memfds, graves, fills;	/* used so far */
	char err[160];		/* what went wrong in the mapper thread */
	int consumer[2][2];	/* [event][top, instance] attached */
	int signals;		/* __atomic: SIGUSR1 taken by the test's thread */
	struct sigaction old_sa;
	unsigned char *fill_buf;
} rc = { .fd = -1, .memfd = -1 };

static const char * const race_desc[2] = { "fuzz_race_a u32 a", "fuzz_race_b u64 b; u8 c" };
static const char * const race_name[2] = { "fuzz_race_a", "fuzz_race_b" };
/* the events' first enablers, in .bss: they keep the events while the test races */
static uint64_t race_anchor[2];

static unsigned long race_ticket(void)
{
	return __atomic_fetch_add(&rc.seq, 1, __ATOMIC_SEQ_CST);
}

/* The threads' own streams: what each does is the same for a (seed, iteration) */
static unsigned long long trnd(unsigned long long *state)
{
	*state += 0x9e3779b97f4a7c15ULL;
	return mix64(*state);
}

static unsigned char *race_page(int i)
{
	return rc.region + (long)i * page_size;
}

/* A page of random bytes from @rng */
static void race_bytes(unsigned char *p, unsigned long long *rng)
{
	int k;

	for (k = 0; k < page_size; k += 8) {
		uint64_t v = trnd(rng);

		memcpy(p + k, &v, 8);
	}
}

/* Page @i of the region: a fresh page of random bytes, also into @shadow */
static int race_fill(int i, unsigned long long *rng, unsigned char *shadow)
{
	unsigned char *p = race_page(i);

	if (mmap(p, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != p)
		return -1;
	race_bytes(shadow, rng);
	memcpy(p, shadow, page_size);
	return 0;
}

static void race_set_err(const char *what, int s)
{
	if (!rc.err[0])
		snprintf(rc.err, sizeof(rc.err), "%s of slot %d: %s", what, s, strerror(errno));
}

/*
 * A fork() by the thread, against a DIAG_IOCSUNREG or DIAG_IOCSREG of the
 * test: the copy of the process's enablers meets one being unregistered
 * or registered (Linux 7.2-rc2 fixed a use-after-free in that copy). The
 * child exits at once: its copies of the enablers go with its memory.
 * Pages are not changed: the model's predictions hold as without it.
 */
static void race_thread_fork(void)
{
	int status;
	pid_t pid;

	pid = fork();
	if (!pid)
		_exit(0);
	if (pid < 0) {
		if (!rc.err[0])
			snprintf(rc.err, sizeof(rc.err), "fork(): %s", strerror(errno));
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if ((!WIFEXITED(status) || WEXITSTATUS(status)) && !rc.err[0])
		snprintf(rc.err, sizeof(rc.err), "its child of a fork(): status %#x", status);
	__atomic_add_fetch(&stats.race_thread_forks, 1, __ATOMIC_RELAXED);
}

/*
 * Over the word's page at slot @s (or where there was none), with the page's
 * gen odd meanwhile: @how 0 moves a filled page there, 1 maps a memfd page,
 * 2 unmaps it, 3 moves it away, 4 unmaps it and maps a memfd page; 5 forks
 * instead (race_thread_fork())
 */
static void race_map(int s, int how)
{
	struct race_slot *sl = &race.slot[s];
	unsigned char *shadow = rc.fill_buf;
	int was = sl->mapped, fixed = was ? MAP_FIXED : MAP_FIXED_NOREPLACE, g = -1, f = -1;
	unsigned long begin;
	off_t off = 0;

	if (how == 5) {
		race_thread_fork();
		return;
	}
	if ((how == 2 || how == 3) && !was)
		return;
	if (how == 0 && rc.spares < RACE_SPARES) {
		f = RACE_SLOTS + rc.spares++;
		if (race_fill(f, &rc.mrng, shadow)) {
			race_set_err("filling a page to move", s);
			return;
		}
		rc.owned[f] = 1;
	} else if (how == 0 || how == 1 || how == 4) {
		if (rc.memfds == RACE_MEMFD)
			return;
		how = how == 4 ? 4 : 1;
		off = (off_t)rc.memfds++ * page_size;
		race_bytes(shadow, &rc.mrng);
		if (pwrite(rc.memfd, shadow, page_size, off) != page_size) {
			race_set_err("pwrite", s);
			return;
		}
	} else if (how == 3) {
		if (rc.graves == RACE_GRAVES)
			how = 2;
		else
			g = rc.graves++;
	}
	__atomic_add_fetch(&sl->gen, 1, __ATOMIC_SEQ_CST);
	begin = race_ticket();
	if (how == 0) {
		/* onto a hole: claim it first, so as never to replace what is not ours */
		if (!was && mmap(sl->addr, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
				 MAP_FIXED_NOREPLACE, -1, 0) != sl->addr)
			race_set_err("mmap", s);
		else if (mremap(race_page(f), page_size, page_size,
				MREMAP_MAYMOVE | MREMAP_FIXED, sl->addr) != sl->addr)
			race_set_err("mremap over the word", s);
		else
			rc.owned[f] = 0;
	} else if (how == 1 || how == 4) {
		if (how == 4 && was && munmap(sl->addr, page_size))
			race_set_err("munmap", s);
		else if (mmap(sl->addr, page_size, PROT_READ | PROT_WRITE,
			      MAP_SHARED | (how == 4 ? MAP_FIXED_NOREPLACE : fixed),
			      rc.memfd, off) != sl->addr)
			race_set_err("mmap of the memfd", s);
	} else if (how == 2) {
		if (munmap(sl->addr, page_size))
			race_set_err("munmap", s);
	} else {
		unsigned char *to = race_page(RACE_SLOTS + RACE_FILL + g);

		if (mremap(sl->addr, page_size, page_size, MREMAP_MAYMOVE | MREMAP_FIXED,
			   to) != to) {
			race_set_err("mremap away", s);
		} else {
			/* nothing writes it from now on: it is not at the word's address */
			memcpy(race.grave_shadow[g], to, page_size);
			race.grave[g] = to;
		}
	}
	__atomic_store_n(&sl->mapped, how != 2 && how != 3, __ATOMIC_RELAXED);
	if (sl->mapped) {
		memcpy(sl->shadow, shadow, page_size);
		sl->begin = begin;
	}
	__atomic_add_fetch(&sl->gen, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&stats.race_remaps, 1, __ATOMIC_RELAXED);
}

static void race_spin(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * The mapper thread: one change of a page per call of the test it races,
 * both released together, each after a head start of its own (drawn by the
 * test, so that what happens is the same for a (seed, iteration) but for
 * the interleaving)
 */
static void *race_mapper(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&rc.start);
		if (__atomic_load_n(&rc.stop, __ATOMIC_ACQUIRE))
			return NULL;
		race_spin(rc.req_spin);
		if (!rc.err[0])
			race_map(rc.req_slot, rc.req_how);
		pthread_barrier_wait(&rc.done);
	}
}

/*
 * Start a change of slot @s's page (race_map() @how) against what the
 * caller does next, or nothing when @how is -1; race_end() after it
 */
static void race_begin(int s, int how)
{
	unsigned int mine = rnd_below(rc.spin), its = rnd_below(rc.spin);

	if (how < 0)
		return;
	rc.req_slot = s;
	rc.req_how = how;
	rc.req_spin = its;
	pthread_barrier_wait(&rc.start);
	race_spin(mine);
}

static void race_end(int how)
{
	if (how >= 0)
		pthread_barrier_wait(&rc.done);
}

/*
 * A change to race the next call, or -1 (none): mostly one, and mostly of
 * the kinds that show what the kernel may get wrong then (@unreg: a
 * DIAG_IOCSUNREG, whose window only a new page at once shows; else a
 * registration, whose window shows once the page is gone and another
 * comes later, a page there at once being one it may write); now and then
 * a fork() instead, whose copy of the enablers meets the call's
 */
static int race_how(int unreg)
{
	static const int reg_how[] = { 2, 2, 2, 3, 3, 0, 1, 4, 5, -1, -1 };
	static const int unreg_how[] = { 0, 0, 0, 1, 1, 4, 2, 3, 5, 5, -1, -1 };

	return unreg ? unreg_how[rnd_below(ARRAY_SIZE(unreg_how))] :
		       reg_how[rnd_below(ARRAY_SIZE(reg_how))];
}

static void race_on_usr1(int sig)
{
	(void)sig;
	__atomic_add_fetch(&rc.signals, 1, __ATOMIC_RELAXED);
}

/* The storm thread: SIGUSR1 to the test's thread, every few hundred µs */
static void *race_storm(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&rc.stop, __ATOMIC_ACQUIRE)) {
		syscall(SYS_tgkill, getpid(), rc.main_tid, SIGUSR1);
		usleep(20 + trnd(&rc.srng) % 400);
	}
	return NULL;
}

/*
 * Stop the threads (before a failure is reported, and at the end). Never
 * between race_begin() and race_end(): the mapper waits at the barrier.
 */
static void race_quiet(void)
{
	__atomic_store_n(&rc.stop, 1, __ATOMIC_RELEASE);
	if (rc.storm_on)
		pthread_join(rc.storm, NULL);
	if (rc.mapper_on) {
		pthread_barrier_wait(&rc.start);
		pthread_join(rc.mapper, NULL);
		pthread_barrier_destroy(&rc.start);
		pthread_barrier_destroy(&rc.done);
	}
	rc.storm_on = 0;
	rc.mapper_on = 0;
}

/* Attach or detach a consumer: enable in the top instance (@inst 0) or ours */
static int race_enable(int ev, int inst, int on)
{
	int ret;

	do
		ret = uet_write_file(sys_path(inst, USER_EVENTS_SYSTEM, race_name[ev], "enable"),
				     on ? "1" : "0", O_TRUNC);
	while (ret == -EINTR);
	if (!ret)
		rc.consumer[ev][inst] = on;
	return ret;
}

static void race_enable_done(int ev, int inst, int on, int ret)
{
	if (ret)
		fail("race", "%s %s%s: %s", on ? "enabling" : "disabling", race_name[ev],
		     inst ? " in the instance" : "", err_name(ret));
}

static void race_consumer(int ev, int inst, int on)
{
	race_enable_done(ev, inst, on, race_enable(ev, inst, on));
}

/*
 * DIAG_IOCSREG of a key of the words, on the event the key names: 0, or
 * EFAULT when the page was not there, or EADDRINUSE when the process has
 * that enabler and its page; nothing else, whatever the thread and the
 * signals did meanwhile (EINTR is none of the ABI's errors)
 */
static void race_register(void)
{
	int s = rnd_below(RACE_SLOTS), w = rnd_below(RACE_WORDS), b = rnd_below(RACE_BITS);
	int bit = race_bits[b], size = bit >= 32 || chance(50) ? 8 : 4, ev = (s + w) % 2;
	struct race_slot *sl = &race.slot[s];
	int mapped, ret, allowed, how = race_how(0);
	unsigned long g1, g2, end;

	race_begin(s, how);
	g1 = __atomic_load_n(&sl->gen, __ATOMIC_SEQ_CST);
	mapped = __atomic_load_n(&sl->mapped, __ATOMIC_RELAXED);
	race_ticket();
	ret = uet_register_bits(rc.fd, race_desc[ev], sl->addr + race.word_off[w], size, bit,
				0, NULL);
	end = race_ticket();
	g2 = __atomic_load_n(&sl->gen, __ATOMIC_SEQ_CST);
	race_end(how);
	stats.race_regs++;
	allowed = race_reg_allowed(s, w, b, g1, g2, mapped);
	if (!((ret == 0 && (allowed & RACE_OK)) || (ret == -EFAULT && (allowed & RACE_EFAULT)) ||
	      (ret == -EADDRINUSE && (allowed & RACE_INUSE)))) {
		race_quiet();
		set_ctx("DIAG_IOCSREG (enable bit) while a thread maps the word", race_desc[ev]);
		fail("race", "slot %d word %d bit %d (%d bytes), page %s%s: got %s, want%s%s%s",
		     s, w, bit, size, g1 != g2 || (g1 & 1) ? "changing" : "unchanged",
		     mapped ? "" : ", not mapped", err_name(ret),
		     allowed & RACE_OK ? " 0" : "", allowed & RACE_EFAULT ? " EFAULT" : "",
		     allowed & RACE_INUSE ? " EADDRINUSE" : "");
	}
	stats.race_regs_ok += !ret;
	stats.race_efault += ret == -EFAULT;
	race_reg_done(s, w, b, ret, g1, g2, mapped, end);
}

/* DIAG_IOCSUNREG of a key: 0 while the process has the enabler, its page gone or not */
static void race_unregister(int s, int w, int b, int how)
{
	int want = race_unreg(s, w, b), ret;

	race_begin(s, how);
	ret = uet_unregister_bits(rc.fd, race.slot[s].addr + race.word_off[w], race_bits[b]);
	race_end(how);
	stats.race_unregs++;
	stats.race_unregs_ok += !ret;
	if ((ret == 0 && (want & 1)) || (ret == -ENOENT && (want & 2)))
		return;
	race_quiet();
	set_ctx("DIAG_IOCSUNREG while a thread maps the word", "");
	fail("race", "slot %d word %d bit %d: got %s, want %s", s, w, race_bits[b],
	     err_name(ret), want == 1 ? "0" : want == 2 ? "ENOENT" : "0 or ENOENT");
}

/*
 * The pages: each word page as the thread filled it but for the bits of
 * enablers registered since (race_writable()), each page moved away as it
 * was. Everything the kernel wrote elsewhere went into memory the process
 * no longer had as the word.
 */
static void race_check(const char *when)
{
	static unsigned char mask[4096];
	long off;
	int s, g;

	for (s = 0; s < RACE_SLOTS; s++) {
		const struct race_slot *sl = &race.slot[s];

		if (sl->mapped)
			race_writable(s, mask, page_size);
		for (off = 0; sl->mapped && off < page_size; off++) {
			unsigned char got = __atomic_load_n(&sl->addr[off], __ATOMIC_RELAXED);
			unsigned char diff = (got ^ sl->shadow[off]) & ~mask[off];

			if (!diff)
				continue;
			race_quiet();
			set_ctx("check the pages mapped over the words", "");
			fail("race", "%s: byte %ld of the page mapped at slot %d is %#x, was %#x; "
			     "bits %#x written, no enabler registered since it was mapped", when,
			     off, s, got, sl->shadow[off], diff);
		}
	}
	for (g = 0; g < RACE_GRAVES; g++) {
		if (!race.grave[g])
			continue;
		off = first_diff(race.grave[g], race.grave_shadow[g], page_size);
		if (off < 0)
			continue;
		race_quiet();
		set_ctx("check the pages moved away from the words", "");
		fail("race", "%s: byte %ld of a word page mremap() moved away is %#x, was %#x",
		     when, off, race.grave[g][off], race.grave_shadow[g][off]);
	}
	stats.race_checks++;
}

/* Read or write one byte, through signals */
static int race_pipe_io(int fd, int wr)
{
	char c = 0;
	ssize_t n;

	do
		n = wr ? write(fd, &c, 1) : read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/*
 * The child of a fork() that raced the thread: a page of its own over
 * every word at once (its copies of the enablers, if it got any, must
 * hear of that), then those pages keep their bytes through two status
 * changes. Only what survives a fork of a threaded process: system
 * calls, no allocation.
 */
static __noreturn void race_child(int first, unsigned char (*shadow)[4096], int ready, int go)
{
	int s, i;

	for (s = 0; s < RACE_SLOTS; s++)
		if (mremap(race_page(first + s), page_size, page_size,
			   MREMAP_MAYMOVE | MREMAP_FIXED, race.slot[s].addr) != race.slot[s].addr)
			_exit(2);
	if (race_pipe_io(ready, 1))
		_exit(3);
	for (i = 0; i < 2; i++) {
		if (race_pipe_io(go, 0))
			_exit(3);
		for (s = 0; s < RACE_SLOTS; s++)
			if (memcmp(race.slot[s].addr, shadow[s], page_size))
				_exit(1);
	}
	_exit(0);
}

/* fork() while the thread maps, the signals come, and the child checks its pages */
static void race_fork(void)
{
	static unsigned char shadow[RACE_SLOTS][4096];
	int first = RACE_SLOTS + RACE_SPARES + rc.fills * RACE_SLOTS, s, ev = rnd_below(2);
	int ready[2], go[2], status, i, inst = chance(30), slot = rnd_below(RACE_SLOTS);
	int how = race_how(0);
	pid_t pid;

	if (page_size > 4096 || rc.fills == RACE_FORKS)
		return;
	rc.fills++;
	for (s = 0; s < RACE_SLOTS; s++) {
		if (race_fill(first + s, &rng_state, shadow[s]))
			fail("internal", "mmap: %s", strerror(errno));
		rc.owned[first + s] = 1;
	}
	if (pipe(ready) || pipe(go))
		fail("internal", "pipe: %s", strerror(errno));
	race_begin(slot, how);
	pid = fork();
	if (!pid)
		race_child(first, shadow, ready[1], go[0]);
	race_end(how);
	if (pid < 0)
		fail("internal", "fork: %s", strerror(errno));
	rc.child = pid;
	stats.race_forks++;
	close(ready[1]);
	close(go[0]);
	status = race_pipe_io(ready[0], 0);
	/* two status changes of an event: a bit would come or go */
	for (i = 0; !status && i < 2; i++) {
		race_consumer(ev, inst, !rc.consumer[ev][inst]);
		race_check("after a status change, a child alive");
		status = race_pipe_io(go[1], 1);
	}
	close(ready[0]);
	close(go[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rc.child = 0;
	for (s = 0; s < RACE_SLOTS; s++) {
		munmap(race_page(first + s), page_size);
		rc.owned[first + s] = 0;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		race_quiet();
		set_ctx("fork() while a thread maps the words", "");
		fail("race", "the child %s (status %#x)",
		     WIFEXITED(status) && WEXITSTATUS(status) == 1 ?
		     "found a bit written into a page it mapped over a word after the fork" :
		     "could not map its pages or talk", status);
	}
}

/* Unmap what is ours of the region: never an address something else took */
static void race_unmap_region(void)
{
	int i;

	for (i = 0; rc.region && i < RACE_SLOTS + RACE_FILL + RACE_GRAVES; i++) {
		int ours = i < RACE_SLOTS ? race.slot[i].mapped || rc.owned[i] : rc.owned[i];

		if (ours)
			munmap(race_page(i), page_size);
	}
	rc.region = NULL;
}

/* The scenario's pages: the words' own, the rest reserved PROT_NONE */
static void race_setup(void)
{
	int n = RACE_SLOTS + RACE_FILL + RACE_GRAVES, i;

	memset(rc.owned, 0, sizeof(rc.owned));
	rc.region = mmap(NULL, (long)n * page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (rc.region == MAP_FAILED) {
		rc.region = NULL;
		fail("internal", "mmap: %s", strerror(errno));
	}
	for (i = 0; i < n; i++)
		rc.owned[i] = 1;
	rc.memfd = memfd_create("fuzz_race", 0);
	if (rc.memfd < 0 || ftruncate(rc.memfd, (off_t)RACE_MEMFD * page_size))
		fail("internal", "memfd: %s", strerror(errno));
	for (i = 0; i < RACE_WORDS; i++)
		race.word_off[i] = (i * page_size / RACE_WORDS +
				    8 * rnd_below(page_size / RACE_WORDS / 8));
	for (i = 0; i < RACE_SLOTS; i++) {
		race.slot[i].addr = race_page(i);
		if (race_fill(i, &rng_state, race.slot[i].shadow))
			fail("internal", "mmap: %s", strerror(errno));
		race.slot[i].mapped = 1;
		race.slot[i].begin = race_ticket();
		rc.owned[i] = 0;
	}
}

/*
 * Everything goes: threads, consumers, enablers (each one the process has
 * unregisters with 0, whatever became of its page), fds; then the events,
 * created through the enable-bit ABI, go too. @check: the pages are checked
 * on the way (not after a failure).
 */
static void race_teardown(int check)
{
	int s, w, b, ev, i;

	race_quiet();
	if (rc.child > 0) {
		kill(rc.child, SIGKILL);
		waitpid(rc.child, NULL, 0);
		rc.child = 0;
	}
	if (check)
		race_check("after the race");
	for (ev = 0; ev < 2; ev++) {
		for (i = 0; i < 2; i++) {
			if (rc.consumer[ev][i] && check)
				race_consumer(ev, i, 0);
			else if (rc.consumer[ev][i])
				race_enable(ev, i, 0);
		}
	}
	memset(rc.consumer, 0, sizeof(rc.consumer));
	for (s = 0; s < RACE_SLOTS; s++) {
		for (w = 0; w < RACE_WORDS; w++) {
			for (b = 0; b < RACE_BITS; b++) {
				unsigned char *addr = race.slot[s].addr + race.word_off[w];

				/* and now and then one it does not have: ENOENT */
				if (check && (race.key[s][w][b].state != RK_NONE || chance(5)))
					race_unregister(s, w, b, -1);
				else if (!check)
					uet_unregister_bits(rc.fd, addr, race_bits[b]);
			}
		}
	}
	if (check)
		race_check("after DIAG_IOCSUNREG of every enabler");
	for (ev = 0; ev < 2; ev++) {
		int ret = uet_unregister_bits(rc.fd, &race_anchor[ev], 0);

		if (check)
			expect_err("DIAG_IOCSUNREG of an event's first enabler", ret, 0);
	}
	if (rc.fd >= 0)
		close_data(rc.fd);
	rc.fd = -1;
	if (rc.memfd >= 0)
		close(rc.memfd);
	rc.memfd = -1;
	race_unmap_region();
	/* the storm is over: none is pending (each came back to user space) */
	sigaction(SIGUSR1, &rc.old_sa, NULL);
	stats.race_signals += rc.signals;
	rc.signals = 0;
	rc.active = 0;
	for (ev = 0; ev < 2; ev++) {
		if (wait_gone(USER_EVENTS_SYSTEM, race_name[ev], check ? UE_WAIT_MS : SETTLE_MS))
			continue;
		if (check) {
			set_ctx("the end of a race scenario", race_name[ev]);
			fail("lifetime",
			     "%s still there after its last holder went (wait expired)",
			     race_name[ev]);
		}
		i = open_data();
		uet_delete(i, race_name[ev]);
		close_data(i);
	}
}

/* After a failure */
static void race_cleanup(void)
{
	if (rc.active)
		race_teardown(0);
}

/*
 * Spins that take about as long as a registration, for the head starts;
 * each measured for 50 ms at least: the guest's clock may tick coarsely
 */
static unsigned int race_calibrate(void)
{
	static uint64_t word;
	double t = now(), ioctl_s, spin_s;
	unsigned long long spins = 0;
	int calls = 0;

	do {
		if (uet_register_bits(rc.fd, race_desc[0], &word, 8, 1, 0, NULL) ||
		    uet_unregister_bits(rc.fd, &word, 1))
			fail("race", "registering a word in .bss: %s", strerror(errno));
		calls += 2;
	} while ((ioctl_s = now() - t) < 0.05);
	t = now();
	do {
		race_spin(10000);
		spins += 10000;
	} while ((spin_s = now() - t) < 0.05);
	return spins * (ioctl_s / calls / spin_s) + 1;
}

/*
 * munmap(), mremap() and fork() against the enable bit: the test registers,
 * unregisters, attaches consumers and forks while a thread changes the
 * pages of the words, and (mostly) another sends it SIGUSR1 without
 * SA_RESTART. Every errno is predicted or one of a documented few, every
 * page mapped over a word gets no bit but those registered since, and
 * everything goes at the end.
 */
static void race_scenario(void)
{
	struct sigaction sa = { .sa_handler = race_on_usr1 };	/* no SA_RESTART */
	static unsigned char shadows[RACE_SLOTS + 1 + RACE_GRAVES][4096];
	int n = rnd_range(10, 40), storm = chance(70), i, ev;

	if (page_size > 4096 || is_pre(race_name[0]) || is_pre(race_name[1]))
		return;
	memset(&race, 0, sizeof(race));
	for (i = 0; i < RACE_SLOTS; i++)
		race.slot[i].shadow = shadows[i];
	for (i = 0; i < RACE_GRAVES; i++)
		race.grave_shadow[i] = shadows[RACE_SLOTS + 1 + i];
	rc.fill_buf = shadows[RACE_SLOTS];
	rc.spares = 0;
	rc.memfds = 0;
	rc.graves = 0;
	rc.fills = 0;
	rc.err[0] = '\0';
	rc.stop = 0;
	rc.main_tid = gettid();
	rc.mrng = mix64(rng_state ^ 0x6d6170);
	rc.srng = mix64(rng_state ^ 0x7369);
	rc.active = 1;
	stats.race_scenarios++;
	sigaction(SIGUSR1, &sa, &rc.old_sa);
	race_setup();
	rc.fd = open_data();
	/* each event made by its first enabler, which stays to the end */
	for (ev = 0; ev < 2; ev++) {
		set_ctx("DIAG_IOCSREG (enable bit) of a race event", race_desc[ev]);
		expect_err("register", uet_register_bits(rc.fd, race_desc[ev], &race_anchor[ev],
							 8, 0, 0, NULL), 0);
		if (chance(50))
			race_consumer(ev, 0, 1);
	}
	if (!rc.spin)
		rc.spin = race_calibrate();
	pthread_barrier_init(&rc.start, NULL, 2);
	pthread_barrier_init(&rc.done, NULL, 2);
	if (pthread_create(&rc.mapper, NULL, race_mapper, NULL))
		fail("internal", "pthread_create");
	rc.mapper_on = 1;
	if (storm) {
		if (pthread_create(&rc.storm, NULL, race_storm, NULL))
			fail("internal", "pthread_create");
		rc.storm_on = 1;
	}
	for (i = 0; i < n; i++) {
		int r = rnd_below(100), s = rnd_below(RACE_SLOTS), w = rnd_below(RACE_WORDS);
		int b = rnd_below(RACE_BITS), e = rnd_below(2), inst = chance(30);
		int how = race_how(r >= 45 && r < 65);

		if (r < 45) {
			race_register();
		} else if (r < 65) {
			race_unregister(s, w, b, how);
		} else if (r < 90) {
			int on = !rc.consumer[e][inst], ret;

			/* the bits of every enabler written while a page changes */
			race_begin(s, how);
			ret = race_enable(e, inst, on);
			race_end(how);
			race_enable_done(e, inst, on, ret);
			race_check("after a status change");
		} else {
			race_fork();
		}
		if (rc.err[0]) {
			race_quiet();
			fail("internal", "the mapping thread: %s", rc.err);
		}
	}
	race_teardown(1);
}

/* The run --------------------------------------------------------------------- */

static void cleanup(void)
{
	char line[2 * TEXT_MAX], name[256];
	int i;

	race_cleanup();
	bits_cleanup();
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
			if (dyn_cmd(cmd))
				ksft_print_msg("could not delete %s at the end\n", e->name);
		}
		if (fd >= 0)
			close(fd);
		nr_live--;
	}
}

/* A group's command; failing the run unless it gives @want */
static void group_cmd(const char *cmd, int want)
{
	int ret = uet_write_file(TRACEFS "user_events_groups", cmd, O_APPEND);

	set_ctx("user_events_groups", cmd);
	if (ret != want)
		fail("groups", "'%s': %s, want %s", cmd, err_name(ret), err_name(want));
}

/*
 * A tenant group with a random limit: valid descriptions, some with the
 * name of a default-group event made first, registered through the group's
 * file are the group's own events (its system, not user_events) up to its
 * limit, then EMFILE; the default group's file cannot delete them, nor the
 * group's the default group's; removal is EBUSY until they are deleted,
 * then the group and its events are gone
 */
static void groups_scenario(void)
{
	int max = rnd_range(1, 6), n = rnd_range(1, 8), made = 0, i, j, ret, gfd, dfd;
	char group[32], cmd[2200], desc[TEXT_MAX], path[2200];
	static char names[8][256];
	static struct event_desc d;
	struct user_status_reg reg;
	struct live *shadow = NULL;

	stats.group_scenarios++;
	/* a new name each time: what a failed scenario left stays apart */
	snprintf(group, sizeof(group), "fz%llu", cur_iter % 1000000);
	snprintf(cmd, sizeof(cmd), "%s max=%d", group, max);
	group_cmd(cmd, 0);
	snprintf(path, sizeof(path), TRACEFS "user_groups/%s/user_events_data", group);
	gfd = open(path, O_RDWR);
	if (gfd < 0)
		fail("groups", "open %s: %s", path, strerror(errno));
	if (nr_iter_fds < (int)ARRAY_SIZE(iter_fds))
		iter_fds[nr_iter_fds++] = gfd;
	dfd = open_data();
	for (i = 0; i < n; i++) {
		do
			gen_desc(desc, sizeof(desc), NULL);
		while (oracle(desc, &d) != V_OK || strlen(d.canon + DYN_SKIP) > DESC_LIMIT);
		/* the first may have a default-group twin with the same name */
		if (!i && chance(50)) {
			set_ctx("DIAG_IOCSREG (default group twin)", desc);
			if (uet_register(dfd, desc, &reg))
				fail("groups", "registering a valid event: %s", desc);
			shadow = add_live(d.name, d.canon);
			shadow->sidx = reg.status_index;
			stats.group_same_name++;
		}
		for (j = 0; j < made && strcmp(names[j], d.name); j++)
			;
		set_ctx("DIAG_IOCSREG in a group", desc);
		ret = uet_register(gfd, desc, &reg);
		stats.group_regs++;
		if (j < made) {
			if (ret && ret != -EADDRINUSE)
				fail("groups", "a name again: %s", err_name(ret));
			continue;
		}
		if (made == max) {
			if (ret != -EMFILE)
				fail("groups", "past the limit %d: %s, want EMFILE", max,
				     err_name(ret));
			stats.group_full++;
			continue;
		}
		if (ret)
			fail("groups", "registering a valid event: %s", err_name(ret));
		snprintf(names[made++], sizeof(names[0]), "%s", d.name);
		snprintf(path, sizeof(path), TRACEFS "events/user_events_%s/%s", group, d.name);
		if (access(path, F_OK))
			fail("groups", "no %s", path);
		/* the default group's file does not reach it */
		if (!shadow || strcmp(shadow->name, d.name)) {
			ret = uet_delete(dfd, d.name);
			if (ret != -ENOENT)
				fail("groups", "default group deleting %s: %s, want ENOENT",
				     d.name, err_name(ret));
		}
	}
	/* nor the group's file the default group's twin: its own, held, is EBUSY */
	if (shadow) {
		int own = made && !strcmp(names[0], shadow->name);

		ret = uet_delete(gfd, shadow->name);
		if (ret != (own ? -EBUSY : -ENOENT))
			fail("groups", "the group's file deleting %s: %s", shadow->name,
			     err_name(ret));
	}
	snprintf(cmd, sizeof(cmd), "!%s", group);
	group_cmd(cmd, -EBUSY);
	close_data(gfd);
	close_data(dfd);
	if (made)
		group_cmd(cmd, -EBUSY);
	for (i = 0; i < made; i++) {
		snprintf(cmd, sizeof(cmd), "-:user_events_%s/%s", group, names[i]);
		ret = uet_write_file(UE_DYN, cmd, O_APPEND);
		if (ret)
			fail("groups", "'%s': %s", cmd, err_name(ret));
	}
	snprintf(cmd, sizeof(cmd), "!%s", group);
	group_cmd(cmd, 0);
	snprintf(path, sizeof(path), TRACEFS "events/user_events_%s", group);
	if (!access(path, F_OK))
		fail("groups", "%s is still there", path);
	/* the twin is still there, and goes only now */
	if (shadow)
		delete_live(shadow);
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
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void read_pre(void)
{
	char *all = uet_read_file(UE_DYN), *p, *nl, name[256];
	int cap = 0;

	if (!all)
		ksft_exit_skip("cannot read %s: %s\n", UE_DYN, strerror(errno));
	for (p = all; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (line_name(p, nl - p, name)) {
			if (nr_pre == cap) {
				cap = cap ? 2 * cap : 16;
				pre = realloc(pre, cap * sizeof(*pre));
				if (!pre)
					ksft_exit_fail_msg("out of memory\n");
			}
			snprintf(pre[nr_pre++], 256, "%s", name);
		}
		if (!*nl)
			break;
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
		} else {
			ksft_exit_fail_msg("usage: %s %s\n", argv[0], usage);
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
