/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_test.h: what the files of fuzz_test share.
 *
 * fuzz_test.c runs the iterations (options, random streams, failures, the
 * report); each fuzzer is a file of its own, with its generator, its model
 * of what the kernel must do and its checks:
 *	fuzz_desc.c	descriptions and payloads (the grammar is fuzz_model.h),
 *			and tenant groups
 *	fuzz_bits.c	the enable-bit ABI against a model of the enablers
 *	fuzz_race.c	races of the enable bit with a thread changing its pages
 */
#ifndef FUZZ_TEST_H
#define FUZZ_TEST_H

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

#define INSTANCE "instances/fuzz_test/"

/* Records accepted while consumers listened, in write order */
struct records {
	unsigned char buf[REC_BUF];
	int off[MAX_WRITES], len[MAX_WRITES], nice[MAX_WRITES];
	int n, used;
};

/*
 * A window (times USER_EVENTS_TIMEOUT_SCALE) in which an event may go or
 * stay, both right: a wait for what must come is bounded by UE_WAIT_MS
 */
#define SETTLE_MS	2000

/* The run (fuzz_test.c) -------------------------------------------------- */

struct fuzz_opt {
	unsigned long long seed, start, iterations;
	double seconds;
	int keep_going, verbose, have_iterations, have_time;
};

/* What the failing operation was given, for the report */
struct fuzz_ctx {
	char op[64];
	char text[4 * TEXT_MAX];
	const unsigned char *payload;
	int payload_len;
};

struct fuzz_stats {
	unsigned long long descs, mutated, accepted, rejected, either, round_trips;
	unsigned long long writes, writes_ok, traced, sampled, trace_checks, cut_lines;
	unsigned long long perf_checks, deletes, edges;
	unsigned long long bits_scenarios, bits_regs, bits_regs_ok, bits_unregs;
	unsigned long long bits_unregs_ok, bits_gone, bits_word_checks, bits_unprivileged;
	unsigned long long race_scenarios, race_regs, race_regs_ok, race_efault, race_unregs;
	unsigned long long race_unregs_ok, race_remaps, race_forks, race_signals, race_checks;
	unsigned long long race_thread_forks;
	unsigned long long group_scenarios, group_regs, group_full, group_same_name;
	unsigned long long tenant_scenarios, tenant_ops, tenant_removed, tenant_spliced;
};

extern struct fuzz_opt opt;
extern struct fuzz_ctx ctx;
extern struct fuzz_stats stats;
extern unsigned long long rng_state, cur_iter;
extern int page_size;
extern int max_payload;
/* the largest payload every consumer records (ftrace, one-page sub-buffers) */
extern int fits_all;
extern const unsigned char *status_page;
extern unsigned char *guard;		/* a read-write page, then PROT_NONE */
extern unsigned char *mem;		/* memfd pages, zapped before some writes */
extern struct live live[MAX_LIVE];
extern int nr_live;
extern char (*pre)[256];	/* events that were there before us */
extern int nr_pre;
extern int iter_fds[16], nr_iter_fds;

unsigned long long mix64(unsigned long long z);
unsigned long long rnd(void);
unsigned int rnd_below(unsigned int n);
int rnd_range(int lo, int hi);
int chance(int percent);
const char *pick(const char * const *list, int n);
void set_ctx(const char *op, const char *text);
__noreturn __printf(2, 3) void fail(const char *kind, const char *fmt, ...);
int errno_documented(int err);
const char *err_name(int ret);
void expect_err(const char *what, int ret, int want);
long first_diff(const unsigned char *a, const unsigned char *b, long len);
const char *next_line(const char **p, int *len);

/* Descriptions and payloads (fuzz_desc.c) ---------------------------------- */

/* The one perf consumer, closed by cleanup() too */
extern struct uet_ring ring;

int line_name(const char *line, int len, char *name);
int dyn_line(const char *name, char *out, size_t size);
int is_live(const char *name);
int is_pre(const char *name);
struct live *add_live(const char *name, const char *line);
int dyn_new_lines(char *line, size_t size);
int status_line(const char *name, unsigned int *idx, char *tail, size_t size);
char *sys_path(int inst, const char *sys, const char *name, const char *file);
char *inst_path(int inst, const char *name, const char *file);
int open_data(void);
void close_data(int fd);
const char *line_fields(const char *line);
void check_gone(const char *name);
void delete_live(struct live *e);
void gen_desc(char *out, size_t size, const char *name);
const char *sep_ws(void);
const char *sep_field(int packed);
void mutate(char *s, size_t size);
char *check_format_sys(const struct event_desc *d, const char *sys);
void fill_random(unsigned char *p, int len);
int perf_attach_sys(const char *sys, const char *name, struct uet_ring *r);
void perf_detach(struct uet_ring *r);
void check_perf(struct uet_ring *r, int id, const struct records *want);
void check_trace(int inst, const struct event_desc *d, const struct records *want,
		 int subset);
void do_write_abi(int fd, const struct event_desc *d, int widx, int consumers,
		  struct records *rec, int bits);
void process_live(struct live *e);
void try_desc(const char *desc, int fd, int *fd_count);
int respace_fields(const char *p, char *out, size_t size, int o);
void respace(const char *line, char *out, size_t size);
void reg_edges(void);
void dyn_edges(void);
void refs_scenario(void);
void many_events(void);
void groups_scenario(void);

/* A tenant group's own trace buffer (fuzz_tenant.c) ------------------------- */

void tenant_cleanup(void);
void tenant_scenario(void);

/* The enable-bit ABI (fuzz_bits.c) ------------------------------------------ */

void bits_cleanup(void);
void bits_scenario(void);
void bits_setup(void);

/* Races of the enable bit (fuzz_race.c) ------------------------------------- */

void race_cleanup(void);
void race_scenario(void);
void race_quiet(void);

#endif /* FUZZ_TEST_H */
