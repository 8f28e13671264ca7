// SPDX-License-Identifier: GPL-2.0
/*
 * stress_test: user events churned from every side at once, bounded in time
 * and operations. Threads of this process and forked processes (and their
 * short-lived children) register, write, delete, close and re-open; the
 * threads also share one fd, so registering (which grows the fd's array)
 * races with writes through it. Another thread attaches and detaches ftrace
 * (enable in the top instance and in one of its own, removed and re-created
 * now and then; hist triggers), perf and eBPF consumers; another creates and
 * deletes the same names through dynamic_events, sets filters and reads
 * trace and trace_pipe meanwhile.
 *
 * Every CHECK_EVERY operations everything pauses and what the kernel shows
 * must be what the test did: each status byte is the OR of the consumers
 * attached, the user_events_status listing and dynamic_events list exactly
 * the events that exist (with their index, flags and consumers), bytes of
 * free slots are 0, the event directories exist exactly for them. A delete
 * may fail with EBUSY only while something may hold the event and must
 * succeed when nothing can; ENOENT only for an event that is gone. Expected
 * errors are counted, anything else fails. At the end all is deleted and the
 * listing shows Active: 0. Splats and leaks are for the kernel log (vm-run).
 *
 * UE_STRESS_SECONDS (default 40) and UE_STRESS_SEED change the run.
 *
 * bits_stress_test does the same for the enable-bit ABI: enablers,
 * fork/exec/exit and consumers racing.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"
#include "ue_bpf.h"

#define NEV		20	/* event names st_ev0 .. st_ev19 */
#define NFD		2	/* private data fds of a worker */
#define NTHREADS	3	/* worker threads of this process */
#define NPROCS		2	/* worker processes */
#define NWORKERS	(NTHREADS + NPROCS)
#define NPARTIES	(NWORKERS + 3)	/* and consumers, dynamic_events, checker */
#define NPERF		2	/* perf events, and BPF ones, per event at most */
#define CHECK_EVERY	1000
#define MAX_OPS		500000
#define CHILD_OPS	16
#define INSTANCE	"instances/ue_stress/"

#define LOAD(p)		__atomic_load_n(p, __ATOMIC_SEQ_CST)
#define STORE(p, v)	__atomic_store_n(p, v, __ATOMIC_SEQ_CST)
#define ADD(p, v)	__atomic_add_fetch(p, v, __ATOMIC_SEQ_CST)

/* The fields of event x are kind x % 3; one event in four has BPF_ITER */
static const char * const fields[3] = {
	"u32 seq; u32 who", "u64 v; __rel_loc char[] s", "",
};

/* The same fields spelt differently: they match */
static const char * const fields_alt[3] = {
	"u32  seq;u32 who;", " u64 v ;  __rel_loc char[] s ;", "",
};

/* Other fields: EADDRINUSE while the event exists */
static const char * const fields_other[3] = { "u64 seq", "u32 v", "u8 x" };

static const char *flags_of(int x)
{
	return x % 4 == 1 ? "BPF_ITER" : "";
}

/* What the model knows of one event name */
struct ev_model {
	pthread_mutex_t lock;	/* held around creating and deleting it */
	int exists;		/* under lock */
	unsigned int index;	/* its status byte; 0: not known yet */
	/*
	 * fds holding it and consumers attached to it: lower bounds (raised
	 * after the kernel did it, lowered before) and upper bounds (the
	 * other way round), and how often an attach to it began
	 */
	int refs_lo, refs_hi;
	int cons_lo, cons_hi;
	int cons_gen;
	int deleted;		/* times it was deleted */
};

/* A user_events_data fd and what it registered */
struct ufd {
	int fd;			/* -1: closed */
	int count;		/* events registered on it */
	int widx[NEV];		/* write index of each event, -1: none */
};

struct worker {
	struct ufd fds[NFD];
	int child_held[NEV];	/* events a child's own fd held at its exit */
};

enum {
	C_OPS, C_CHECKS, C_WRITES, C_REGS, C_DELS, C_DEL_BUSY, C_DEL_NOENT,
	C_DYN_CREATES, C_DYN_DELS, C_DYN_BUSY, C_DYN_NOENT, C_ADDRINUSE,
	C_BAD_WRITES, C_ATTACHES, C_ATTACH_GONE, C_STALE_ID, C_INSTANCES,
	C_FORKS, C_COMMON_CLOSES, NCOUNT
};

static const char * const count_names[NCOUNT] = {
	"operations", "consistency checks", "writes", "registrations",
	"ioctl deletes", "  of them EBUSY", "  of them ENOENT",
	"dynamic_events creates", "dynamic_events deletes", "  of them EBUSY",
	"  of them ENOENT", "EADDRINUSE", "bad writes (refused)",
	"consumer attaches", "  attach to a gone event", "  stale tracepoint id",
	"instance re-creations", "forked children", "shared fd re-opens",
};

/* Everything the participants share, in memory shared across fork() */
struct shared {
	pthread_barrier_t paused, resumed;
	int pause;		/* everybody to the barrier */
	int stop;
	int failed;
	char why[1024];		/* the first failure */
	long count[NCOUNT];
	/* perf opens under way: they may hit another event (id reuse) */
	int perf_in_flight;
	int perf_gen;
	struct ev_model ev[NEV];
	struct worker w[NWORKERS];
	/* the fd the worker threads share: rwlock for close vs. use */
	pthread_rwlock_t common_lock;
	struct ufd common;
	/* the consumer thread's: what it has attached */
	int ftrace[NEV], inst[NEV], trig[NEV];
	int perf[NEV][NPERF], bpf[NEV][NPERF];
	void *ring[NEV][NPERF];
	int prog[NPERF];	/* one per slot: a program is attached once */
	/* the checker's: time to pause everybody, time checking */
	long long pause_ms, check_ms;
	int ncpus;
	int page_size;
	const unsigned char *page;
	int foreign;		/* events not ours when the test began */
};

static struct shared *sh;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ue_fail_once(&sh->failed, sh->why, sizeof(sh->why), fmt, ap);
	va_end(ap);
	STORE(&sh->pause, 1);
}

static void counted(int what)
{
	ADD(&sh->count[what], 1);
}

/* "st_evX[:FLAGS] fields", spelt as @how says (0: canonical) */
static void desc_of(char *buf, size_t size, int x, int how)
{
	const char *f = how == 2 ? fields_other[x % 3] :
			how == 1 ? fields_alt[x % 3] : fields[x % 3];

	snprintf(buf, size, "st_ev%d%s%s%s%s", x, *flags_of(x) ? ":" : "",
		 flags_of(x), *f ? " " : "", f);
}

static void name_of(char *buf, size_t size, int x)
{
	snprintf(buf, size, "st_ev%d", x);
}

static int ufd_open(struct ufd *u)
{
	int i;

	u->fd = open(UE_DATA, O_RDWR | O_CLOEXEC);
	u->count = 0;
	for (i = 0; i < NEV; i++)
		u->widx[i] = -1;
	if (u->fd < 0)
		fail("open %s: %s", UE_DATA, strerror(errno));
	return u->fd;
}

/* Close @u: its references go, bounds lowered around the kernel's drop */
static void ufd_close(struct ufd *u)
{
	int x;

	if (u->fd < 0)
		return;
	for (x = 0; x < NEV; x++)
		if (u->widx[x] >= 0)
			ADD(&sh->ev[x].refs_lo, -1);
	if (close(u->fd))
		fail("close: %s", strerror(errno));
	for (x = 0; x < NEV; x++) {
		if (u->widx[x] >= 0)
			ADD(&sh->ev[x].refs_hi, -1);
		u->widx[x] = -1;
	}
	u->fd = -1;
	u->count = 0;
}

/* Register event @x on @u; @common: @u is shared by threads */
static void do_register(struct ufd *u, int x, unsigned int *seed, int common)
{
	struct ev_model *e = &sh->ev[x];
	struct user_status_reg reg;
	char desc[128];
	int r, had;

	desc_of(desc, sizeof(desc), x, rand_r(seed) % 2);
	pthread_mutex_lock(&e->lock);
	r = uet_register(u->fd, desc, &reg);
	if (r) {
		fail("register '%s': %s", desc, strerror(-r));
		goto out;
	}
	counted(C_REGS);
	if (!reg.status_index || reg.status_index >= (unsigned int)sh->page_size)
		fail("register '%s': status index %u", desc, reg.status_index);
	if (e->exists && e->index && e->index != reg.status_index)
		fail("register '%s': status index %u, was %u", desc,
		     reg.status_index, e->index);
	e->exists = 1;
	e->index = reg.status_index;
	had = LOAD(&u->widx[x]);
	if (had >= 0) {
		if (reg.write_index != (unsigned int)had)
			fail("register '%s' again on an fd: write index %u, was %d",
			     desc, reg.write_index, had);
		goto out;
	}
	/* dense per fd; on the shared fd others register at the same time */
	if (common ? reg.write_index >= NEV : reg.write_index != (unsigned int)u->count)
		fail("register '%s': write index %u, %d events on the fd", desc,
		     reg.write_index, u->count);
	ADD(&e->refs_lo, 1);
	ADD(&e->refs_hi, 1);
	ADD(&u->count, 1);
	STORE(&u->widx[x], reg.write_index);
out:
	pthread_mutex_unlock(&e->lock);
}

/* Register @x with other fields: EADDRINUSE if it exists */
static void do_register_other(int fd, int x)
{
	struct ev_model *e = &sh->ev[x];
	struct user_status_reg reg;
	char desc[128];
	int r;

	desc_of(desc, sizeof(desc), x, 2);
	pthread_mutex_lock(&e->lock);
	if (e->exists) {
		r = uet_register(fd, desc, &reg);
		if (r != -EADDRINUSE)
			fail("register '%s' over other fields: %s", desc, strerror(-r));
		else
			counted(C_ADDRINUSE);
	}
	pthread_mutex_unlock(&e->lock);
}

struct busy_snap {
	int refs_hi, cons_hi, cons_gen, perf_in_flight, perf_gen;
};

static void busy_snap(struct ev_model *e, struct busy_snap *s)
{
	s->refs_hi = LOAD(&e->refs_hi);
	s->cons_hi = LOAD(&e->cons_hi);
	s->cons_gen = LOAD(&e->cons_gen);
	s->perf_in_flight = LOAD(&sh->perf_in_flight);
	s->perf_gen = LOAD(&sh->perf_gen);
}

/*
 * The outcome @r of deleting @x (under its lock, @s taken before): 0 only
 * when nothing can hold it, EBUSY only when something may, ENOENT only when
 * it is gone
 */
static void delete_outcome(int x, int r, struct busy_snap *s, const char *how,
			   int busy_count, int noent_count)
{
	struct ev_model *e = &sh->ev[x];
	struct busy_snap t;

	switch (r) {
	case 0:
		if (!e->exists || LOAD(&e->refs_lo) || LOAD(&e->cons_lo))
			fail("%s st_ev%d succeeded: exists %d, fds >= %d, consumers >= %d",
			     how, x, e->exists, LOAD(&e->refs_lo), LOAD(&e->cons_lo));
		e->exists = 0;
		e->index = 0;
		ADD(&e->deleted, 1);
		break;
	case -EBUSY:
		counted(busy_count);
		busy_snap(e, &t);
		/* an attach or perf open that began meanwhile may explain it */
		if (!e->exists ||
		    (!s->refs_hi && !s->cons_hi && !t.cons_hi && !s->perf_in_flight &&
		     !t.perf_in_flight && s->cons_gen == t.cons_gen &&
		     s->perf_gen == t.perf_gen))
			fail("%s st_ev%d: EBUSY but exists %d, no fd or consumer holds it",
			     how, x, e->exists);
		break;
	case -ENOENT:
		counted(noent_count);
		if (e->exists)
			fail("%s st_ev%d: ENOENT but it exists", how, x);
		break;
	default:
		fail("%s st_ev%d: %s", how, x, strerror(-r));
	}
}

static void do_delete(int fd, int x)
{
	struct ev_model *e = &sh->ev[x];
	struct busy_snap s;
	char name[32];
	int r;

	name_of(name, sizeof(name), x);
	pthread_mutex_lock(&e->lock);
	busy_snap(e, &s);
	r = uet_delete(fd, name);
	counted(C_DELS);
	delete_outcome(x, r, &s, "DIAG_IOCSDEL", C_DEL_BUSY, C_DEL_NOENT);
	pthread_mutex_unlock(&e->lock);
}

/*
 * Write event @x through write index @widx of @fd: the payload its fields
 * want, in one write() or split over iovecs. Returns 0 or -errno.
 */
static int do_write(int fd, int widx, int x, unsigned int *seed)
{
	unsigned char buf[64];
	struct iovec io[3];
	unsigned int seq = rand_r(seed);
	int len = 4, cut1, cut2;
	ssize_t r;

	memcpy(buf, &widx, 4);
	switch (x % 3) {
	case 0:
		memcpy(buf + 4, &seq, 4);
		memcpy(buf + 8, &x, 4);
		len += 8;
		break;
	case 1: {
		__u64 v = seq;
		__u32 loc = 3 << 16;	/* right after the loc field */

		memcpy(buf + 4, &v, 8);
		memcpy(buf + 12, &loc, 4);
		memcpy(buf + 16, "hi", 3);
		len += 15;
		break;
	}
	default:
		/* no fields; extra bytes are fine */
		len += rand_r(seed) % 9;
		memset(buf + 4, 0x5a, 8);
	}
	if (rand_r(seed) % 2) {
		r = write(fd, buf, len);
	} else {
		cut1 = rand_r(seed) % (len + 1);
		cut2 = cut1 + rand_r(seed) % (len - cut1 + 1);
		io[0] = (struct iovec){ buf, cut1 };
		io[1] = (struct iovec){ buf + cut1, cut2 - cut1 };
		io[2] = (struct iovec){ buf + cut2, len - cut2 };
		r = writev(fd, io, 3);
	}
	if (r < 0)
		return -errno;
	if (r != len)
		fail("write of st_ev%d: %zd of %d bytes", x, r, len);
	counted(C_WRITES);
	return 0;
}

/* A random event registered on @u, or -1 */
static int pick_registered(struct ufd *u, unsigned int *seed)
{
	int x, i, start = rand_r(seed) % NEV;

	for (i = 0; i < NEV; i++) {
		x = (start + i) % NEV;
		if (LOAD(&u->widx[x]) >= 0)
			return x;
	}
	return -1;
}

static void write_one(struct ufd *u, unsigned int *seed)
{
	int x = pick_registered(u, seed), r;

	if (x < 0)
		return;
	r = do_write(u->fd, LOAD(&u->widx[x]), x, seed);
	if (r)
		fail("write st_ev%d (write index %d): %s", x, u->widx[x], strerror(-r));
}

/* Writes that must be refused, on a private fd (its count is exact) */
static void bad_write(struct ufd *u, unsigned int *seed)
{
	static __thread unsigned char big[4 + UE_MAX_PAYLOAD + 1];
	int x = pick_registered(u, seed), want = 0, len = 0, idx;
	ssize_t r;

	if (x < 0)
		return;
	idx = u->widx[x];
	switch (rand_r(seed) % 4) {
	case 0:
		idx = -1 - rand_r(seed) % 3;
		len = 12;
		want = EINVAL;
		break;
	case 1:
		idx = u->count + rand_r(seed) % 4;
		len = 20;
		want = ENOENT;
		break;
	case 2:
		/* one byte short of the fixed fields (none for kind 2) */
		if (x % 3 == 2)
			return;
		len = 4 + (x % 3 == 0 ? 7 : 11);
		want = EINVAL;
		break;
	default:
		/* over what any consumer, or none, takes */
		len = 4 + UE_MAX_PAYLOAD + 1;
		want = E2BIG;
	}
	memset(big, 0, len);
	memcpy(big, &idx, 4);
	r = write(u->fd, big, len);
	if (r != -1 || errno != want)
		fail("bad write (st_ev%d, index %d, %d bytes): %zd, %s instead of %s",
		     x, idx, len, r, r < 0 ? strerror(errno) : "-", strerror(want));
	else
		counted(C_BAD_WRITES);
}

struct ctx {
	int id;			/* worker number */
	int proc;		/* a process rather than a thread */
	unsigned int seed;
	struct worker *w;
};

static struct ufd *pick_fd(struct ctx *c)
{
	struct ufd *u = &c->w->fds[rand_r(&c->seed) % NFD];

	if (u->fd < 0)
		ufd_open(u);
	return u->fd < 0 ? NULL : u;
}

/* The worker threads' shared fd: register and write race with each other */
static void common_op(struct ctx *c)
{
	struct ufd *u = &sh->common;
	int r = rand_r(&c->seed) % 20;

	if (r < 3) {
		pthread_rwlock_wrlock(&sh->common_lock);
		ufd_close(u);
		ufd_open(u);
		counted(C_COMMON_CLOSES);
		pthread_rwlock_unlock(&sh->common_lock);
		return;
	}
	pthread_rwlock_rdlock(&sh->common_lock);
	if (u->fd >= 0) {
		if (r < 8)
			do_register(u, rand_r(&c->seed) % NEV, &c->seed, 1);
		else
			write_one(u, &c->seed);
	}
	pthread_rwlock_unlock(&sh->common_lock);
}

/* A child of a worker process: uses the fds it inherited and one of its own */
static void child_run(struct ctx *c)
{
	struct worker *w = c->w;
	struct ufd own = { .fd = -1 };
	int i, x;

	c->seed = c->seed * 7 + getpid();
	for (i = 0; i < CHILD_OPS && !LOAD(&sh->failed); i++) {
		struct ufd *u = &w->fds[rand_r(&c->seed) % NFD];

		switch (rand_r(&c->seed) % 5) {
		case 0:
		case 1:
			if (u->fd >= 0)
				write_one(u, &c->seed);
			break;
		case 2:
			/* the parent's fd gets it: the model is in shared memory */
			if (u->fd >= 0)
				do_register(u, rand_r(&c->seed) % NEV, &c->seed, 0);
			break;
		case 3:
			if (own.fd < 0 && ufd_open(&own) < 0)
				break;
			do_register(&own, rand_r(&c->seed) % NEV, &c->seed, 0);
			write_one(&own, &c->seed);
			break;
		default:
			if (own.fd >= 0 || ufd_open(&own) >= 0)
				do_delete(own.fd, rand_r(&c->seed) % NEV);
		}
	}
	/* exit closes the own fd: the parent lowers the upper bounds */
	for (x = 0; x < NEV; x++) {
		if (own.fd >= 0 && own.widx[x] >= 0) {
			w->child_held[x] = 1;
			ADD(&sh->ev[x].refs_lo, -1);
		}
	}
	_exit(0);
}

static void fork_child(struct ctx *c)
{
	int status, x;
	pid_t pid;

	memset(c->w->child_held, 0, sizeof(c->w->child_held));
	pid = fork();
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		child_run(c);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fail("child %d ended with status %#x", pid, status);
	for (x = 0; x < NEV; x++)
		if (c->w->child_held[x])
			ADD(&sh->ev[x].refs_hi, -1);
	counted(C_FORKS);
	c->seed += pid;
}

/* Delete @x, as its owner would: after closing the own fds holding it */
static void delete_own(struct ctx *c, int x)
{
	struct ufd *u;
	int i;

	for (i = 0; i < NFD; i++) {
		u = &c->w->fds[i];
		if (u->fd >= 0 && u->widx[x] >= 0)
			ufd_close(u);
	}
	u = pick_fd(c);
	if (u)
		do_delete(u->fd, x);
}

static void worker_op(struct ctx *c)
{
	int r = rand_r(&c->seed) % 100;
	struct ufd *u = pick_fd(c);

	if (!u)
		return;
	if (r < 35) {
		if (pick_registered(u, &c->seed) < 0)
			do_register(u, rand_r(&c->seed) % NEV, &c->seed, 0);
		else
			write_one(u, &c->seed);
	} else if (r < 40) {
		bad_write(u, &c->seed);
	} else if (r < 50) {
		do_register(u, rand_r(&c->seed) % NEV, &c->seed, 0);
	} else if (r < 52) {
		do_register_other(u->fd, rand_r(&c->seed) % NEV);
	} else if (r < 58) {
		do_delete(u->fd, rand_r(&c->seed) % NEV);
	} else if (r < 64) {
		delete_own(c, rand_r(&c->seed) % NEV);
	} else if (r < 76) {
		ufd_close(u);
	} else if (r < 78) {
		free(uet_read_file(UE_STATUS));
	} else if (c->proc) {
		if (r < 82)
			fork_child(c);
		else
			write_one(u, &c->seed);
	} else {
		common_op(c);
	}
}

/*
 * The loop of every participant: @op until stopped; to the barriers when
 * a check is due, where the checker (@check) looks while all others wait.
 */
static void run_loop(void (*op)(void *), void *arg, int (*check)(void))
{
	long n;

	for (;;) {
		if (LOAD(&sh->pause)) {
			long long t0 = ue_now_ms(), t1;

			pthread_barrier_wait(&sh->paused);
			t1 = ue_now_ms();
			if (check && check())
				STORE(&sh->stop, 1);
			if (check) {
				sh->pause_ms += t1 - t0;
				sh->check_ms += ue_now_ms() - t1;
			}
			if (check)
				STORE(&sh->pause, 0);
			pthread_barrier_wait(&sh->resumed);
			if (LOAD(&sh->stop))
				return;
			continue;
		}
		op(arg);
		if (check)
			continue;
		n = ADD(&sh->count[C_OPS], 1);
		if (n % CHECK_EVERY == 0 || n >= MAX_OPS)
			STORE(&sh->pause, 1);
	}
}

static void worker_op_v(void *arg)
{
	worker_op(arg);
}

static void worker_cleanup(struct ctx *c)
{
	int i;

	for (i = 0; i < NFD; i++)
		ufd_close(&c->w->fds[i]);
}

static void *worker_thread(void *arg)
{
	struct ctx *c = arg;

	run_loop(worker_op_v, c, NULL);
	worker_cleanup(c);
	return NULL;
}

/* Consumers ---------------------------------------------------------------- */

static int bpf_tiny_prog(void)
{
	/* r0 = 1; exit: the perf samples go on */
	struct bpf_insn insns[] = { MOV_IMM(0, 1), EXIT() };

	return uet_bpf_load(insns, ARRAY_SIZE(insns));
}

static void attach_begin(int x)
{
	ADD(&sh->ev[x].cons_gen, 1);
	ADD(&sh->ev[x].cons_hi, 1);
}

static void attach_end(int x, int ok)
{
	counted(C_ATTACHES);
	if (ok)
		ADD(&sh->ev[x].cons_lo, 1);
	else
		ADD(&sh->ev[x].cons_hi, -1);
}

static void detach_begin(int x)
{
	ADD(&sh->ev[x].cons_lo, -1);
}

static void detach_end(int x)
{
	ADD(&sh->ev[x].cons_hi, -1);
}

/* An enable file: fails only because the event is gone */
static void toggle_enable(int x, const char *instance, int *on)
{
	char name[32];
	int r;

	name_of(name, sizeof(name), x);
	if (*on) {
		detach_begin(x);
		r = uet_enable(instance, name, 0);
		if (r)
			fail("disable %s in '%s': %s", name, instance, strerror(-r));
		*on = 0;
		detach_end(x);
		return;
	}
	attach_begin(x);
	r = uet_enable(instance, name, 1);
	attach_end(x, !r);
	if (!r)
		*on = 1;
	else if (r == -ENOENT || r == -ENODEV)
		counted(C_ATTACH_GONE);
	else
		fail("enable %s in '%s': %s", name, instance, strerror(-r));
}

/* A hist trigger: an ftrace consumer too */
static void toggle_trigger(int x, int *on)
{
	char path[128];
	int r;

	snprintf(path, sizeof(path), TRACEFS "events/user_events/st_ev%d/trigger", x);
	if (*on) {
		detach_begin(x);
		r = uet_write_file(path, "!hist:keys=common_pid", O_APPEND);
		if (r)
			fail("remove the trigger of st_ev%d: %s", x, strerror(-r));
		*on = 0;
		detach_end(x);
		return;
	}
	attach_begin(x);
	r = uet_write_file(path, "hist:keys=common_pid", O_APPEND);
	attach_end(x, !r);
	if (!r)
		*on = 1;
	else if (r == -ENOENT || r == -ENODEV)
		counted(C_ATTACH_GONE);
	else
		fail("hist trigger on st_ev%d: %s", x, strerror(-r));
}

/*
 * A perf event (@prog < 0, its ring in @ring) or BPF program (@ring NULL)
 * on @x, on a random CPU; or off again
 */
static void toggle_perf(int x, int *fd, void **ring, int prog, unsigned int *seed)
{
	int id, id2, cpu = rand_r(seed) % sh->ncpus, p, err, gone, ok = 0;
	char name[32];

	if (*fd >= 0) {
		detach_begin(x);
		if (ring && *ring)
			munmap(*ring, 2 * sh->page_size);
		if (close(*fd))
			fail("close perf: %s", strerror(errno));
		if (ring)
			*ring = NULL;
		*fd = -1;
		detach_end(x);
		return;
	}
	name_of(name, sizeof(name), x);
	ADD(&sh->perf_gen, 1);
	ADD(&sh->perf_in_flight, 1);
	attach_begin(x);
	gone = LOAD(&sh->ev[x].deleted);
	id = uet_tracepoint_id(name);
	p = id < 0 ? -1 : uet_perf_open(id, -1, cpu, 1);
	err = p < 0 ? errno : 0;
	if (p >= 0 && prog >= 0 &&
	    (ioctl(p, PERF_EVENT_IOC_SET_BPF, prog) || ioctl(p, PERF_EVENT_IOC_ENABLE, 0))) {
		err = errno;
		close(p);
		p = -1;
	}
	/* the id may have gone to another event meanwhile */
	id2 = id >= 0 ? uet_tracepoint_id(name) : -1;
	if (id2 != id) {
		/* perf_event_open found no event, or another one */
		counted(C_STALE_ID);
		if (p >= 0)
			close(p);
		p = -1;
	} else if (id < 0) {
		counted(C_ATTACH_GONE);
	} else if (p < 0 && gone != LOAD(&sh->ev[x].deleted)) {
		/* deleted and created again with the same id meanwhile */
		counted(C_ATTACH_GONE);
	} else if (p < 0) {
		/* the event was there all the time: no reason to fail */
		fail("%s %s (id %d, CPU %d): %s", prog >= 0 ? "attach BPF to" :
		     "perf_event_open", name, id, cpu, strerror(err));
	} else {
		ok = 1;
	}
	if (ok && ring) {
		*ring = mmap(NULL, 2 * sh->page_size, PROT_READ | PROT_WRITE,
			     MAP_SHARED, p, 0);
		if (*ring == MAP_FAILED) {
			fail("mmap perf ring: %s", strerror(errno));
			*ring = NULL;
		}
	}
	*fd = p;
	attach_end(x, ok);
	ADD(&sh->perf_in_flight, -1);
}

/* rmdir the instance: every event enabled there is detached at once */
static void recreate_instance(void)
{
	int x, r;

	for (x = 0; x < NEV; x++)
		if (sh->inst[x])
			detach_begin(x);
	r = rmdir(TRACEFS INSTANCE) ? errno : 0;
	for (x = 0; x < NEV; x++) {
		if (!sh->inst[x])
			continue;
		if (r)
			ADD(&sh->ev[x].cons_lo, 1);
		else
			detach_end(x);
		if (!r)
			sh->inst[x] = 0;
	}
	/* EBUSY while the dynamic_events thread reads its trace */
	if (r == EBUSY)
		return;
	if (r)
		fail("rmdir %s: %s", INSTANCE, strerror(r));
	if (mkdir(TRACEFS INSTANCE, 0755))
		fail("mkdir %s: %s", INSTANCE, strerror(errno));
	counted(C_INSTANCES);
}

static unsigned int consumer_seed;

#define NKINDS	5

/*
 * Consumer slot @kind (0 ftrace, 1 instance, 2 hist trigger, 3 perf,
 * 4 BPF) @k of @x: on?
 */
static int slot_on(int kind, int x, int k)
{
	switch (kind) {
	case 0:
		return sh->ftrace[x];
	case 1:
		return sh->inst[x];
	case 2:
		return sh->trig[x];
	case 3:
		return sh->perf[x][k] >= 0;
	}
	return sh->bpf[x][k] >= 0;
}

static void toggle_slot(int kind, int x, int k, unsigned int *seed)
{
	switch (kind) {
	case 0:
		toggle_enable(x, "", &sh->ftrace[x]);
		break;
	case 1:
		toggle_enable(x, INSTANCE, &sh->inst[x]);
		break;
	case 2:
		toggle_trigger(x, &sh->trig[x]);
		break;
	case 3:
		toggle_perf(x, &sh->perf[x][k], &sh->ring[x][k], -1, seed);
		break;
	default:
		toggle_perf(x, &sh->bpf[x][k], NULL, sh->prog[k], seed);
	}
}

/* Consumers attached at most, so that most events can be deleted */
#define MAX_ATTACHED	8

static void consumer_op(void *arg)
{
	unsigned int *seed = &consumer_seed;
	int x = rand_r(seed) % NEV, k = rand_r(seed) % NPERF, r = rand_r(seed) % 100;
	int kind = r < 25 ? 0 : r < 37 ? 1 : r < 47 ? 2 : r < 71 ? 3 : 4, on = 0, i, n;

	for (i = 0; i < NKINDS * NEV * NPERF; i++)
		on += slot_on(i % NKINDS, i / NKINDS % NEV, i / (NKINDS * NEV));
	if (r >= 95) {
		if (r < 97) {
			recreate_instance();
			return;
		}
		/* a new program: the attached ones keep theirs */
		close(sh->prog[k]);
		sh->prog[k] = bpf_tiny_prog();
		if (sh->prog[k] < 0)
			fail("BPF_PROG_LOAD: %s", strerror(errno));
		return;
	}
	if (!slot_on(kind, x, k) && on >= MAX_ATTACHED) {
		/* detach a random one instead */
		n = rand_r(seed) % on;
		for (i = 0; i < NKINDS * NEV * NPERF; i++) {
			kind = i % NKINDS;
			x = i / NKINDS % NEV;
			k = i / (NKINDS * NEV);
			if (slot_on(kind, x, k) && !n--)
				break;
		}
	}
	toggle_slot(kind, x, k, seed);
}

static void consumer_cleanup(void)
{
	unsigned int seed = 1;
	int x, k;

	for (x = 0; x < NEV; x++) {
		if (sh->ftrace[x])
			toggle_enable(x, "", &sh->ftrace[x]);
		if (sh->inst[x])
			toggle_enable(x, INSTANCE, &sh->inst[x]);
		if (sh->trig[x])
			toggle_trigger(x, &sh->trig[x]);
		for (k = 0; k < NPERF; k++) {
			if (sh->perf[x][k] >= 0)
				toggle_perf(x, &sh->perf[x][k], &sh->ring[x][k], -1, &seed);
			if (sh->bpf[x][k] >= 0)
				toggle_perf(x, &sh->bpf[x][k], NULL, 0, &seed);
		}
	}
}

static void *consumer_thread(void *arg)
{
	run_loop(consumer_op, NULL, NULL);
	consumer_cleanup();
	return NULL;
}

/* dynamic_events ---------------------------------------------------------- */

static unsigned int dyn_seed;

static void dyn_create(int x, int how)
{
	struct ev_model *e = &sh->ev[x];
	char cmd[160], desc[128];
	int r;

	desc_of(desc, sizeof(desc), x, how);
	snprintf(cmd, sizeof(cmd), "u:%s", desc);
	pthread_mutex_lock(&e->lock);
	if (how == 2 && !e->exists)
		goto out;
	r = uet_write_file(UE_DYN, cmd, O_APPEND);
	if (how == 2) {
		if (r != -EADDRINUSE)
			fail("'%s' over other fields: %s", cmd, strerror(-r));
		else
			counted(C_ADDRINUSE);
	} else if (r) {
		fail("'%s': %s", cmd, strerror(-r));
	} else {
		counted(C_DYN_CREATES);
		e->exists = 1;
	}
out:
	pthread_mutex_unlock(&e->lock);
}

static void dyn_delete(int x, int how)
{
	struct ev_model *e = &sh->ev[x];
	struct busy_snap s;
	char cmd[160], desc[128];
	int r;

	switch (how) {
	case 0:
		snprintf(cmd, sizeof(cmd), "-:st_ev%d", x);
		break;
	case 1:
		snprintf(cmd, sizeof(cmd), "-:user_events/st_ev%d", x);
		break;
	case 2:
		snprintf(cmd, sizeof(cmd), "!u:st_ev%d", x);
		break;
	default:
		/* with its fields, spelt the other way */
		snprintf(desc, sizeof(desc), "st_ev%d %s", x, fields_alt[x % 3]);
		snprintf(cmd, sizeof(cmd), "!u:%s", desc);
	}
	pthread_mutex_lock(&e->lock);
	busy_snap(e, &s);
	r = uet_write_file(UE_DYN, cmd, O_APPEND);
	counted(C_DYN_DELS);
	delete_outcome(x, r, &s, cmd, C_DYN_BUSY, C_DYN_NOENT);
	pthread_mutex_unlock(&e->lock);
}

/* Read up to 64 KiB of @path */
static void read_some(const char *path, int flags)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY | flags);

	/* the instance may be going or gone */
	if (fd < 0) {
		if (errno != ENOENT && errno != ENODEV)
			fail("open %s: %s", path, strerror(errno));
		return;
	}
	if (read(fd, buf, sizeof(buf)) < 0 && errno != EAGAIN && errno != ENODEV)
		fail("read %s: %s", path, strerror(errno));
	close(fd);
}

/* Set a filter on the fields of @x (@on) or clear it: not a consumer */
static void set_filter(int x, int on)
{
	static const char * const filters[3] = {
		"seq > 100 && who < 30", "s ~ \"h*\" || v == 3", "common_pid != 0",
	};
	char path[128];
	int r;

	snprintf(path, sizeof(path), TRACEFS "events/user_events/st_ev%d/filter", x);
	r = uet_write_file(path, on ? filters[x % 3] : "0", O_TRUNC);
	if (r && r != -ENOENT && r != -ENODEV)
		fail("filter '%s' on st_ev%d: %s", on ? filters[x % 3] : "0", x, strerror(-r));
}

static void dyn_op(void *arg)
{
	unsigned int *seed = &dyn_seed;
	int x = rand_r(seed) % NEV, r = rand_r(seed) % 100;
	char path[128];

	if (r < 40) {
		dyn_create(x, rand_r(seed) % 2);
	} else if (r < 45) {
		dyn_create(x, 2);
	} else if (r < 85) {
		dyn_delete(x, rand_r(seed) % 4);
	} else if (r < 86) {
		set_filter(x, r % 2);
	} else if (r < 88) {
		free(uet_read_file(UE_DYN));
	} else if (r < 92) {
		/* records of events coming and going, decoded and consumed */
		read_some(r < 90 ? TRACEFS "trace" : TRACEFS INSTANCE "trace", 0);
	} else if (r < 94) {
		read_some(r < 93 ? TRACEFS "trace_pipe" : TRACEFS INSTANCE "trace_pipe",
			  O_NONBLOCK);
	} else {
		snprintf(path, sizeof(path), TRACEFS "events/user_events/st_ev%d/format", x);
		free(uet_read_file(path));
	}
}

static void *dyn_thread(void *arg)
{
	run_loop(dyn_op, NULL, NULL);
	return NULL;
}

/* The consistency check ---------------------------------------------------- */

static int expected_status(int x)
{
	int k, perf = 0;

	for (k = 0; k < NPERF; k++)
		perf |= sh->perf[x][k] >= 0 || sh->bpf[x][k] >= 0;
	return (sh->ftrace[x] || sh->inst[x] || sh->trig[x] ? EVENT_STATUS_FTRACE : 0) |
	       (perf ? EVENT_STATUS_PERF : 0);
}

static const char *used_by(int status)
{
	switch (status) {
	case EVENT_STATUS_FTRACE:
		return " # Used by ftrace";
	case EVENT_STATUS_PERF:
		return " # Used by perf";
	case EVENT_STATUS_FTRACE | EVENT_STATUS_PERF:
		return " # Used by ftrace perf";
	}
	return "";
}

/* Status byte @status from a listing's " # Used by ..." */
static int status_of_used_by(const char *used)
{
	int s = 0;

	if (strstr(used, " ftrace"))
		s |= EVENT_STATUS_FTRACE;
	if (strstr(used, " perf"))
		s |= EVENT_STATUS_PERF;
	if (strstr(used, " other"))
		s |= EVENT_STATUS_OTHER;
	return s;
}

/* Our event number of @name ("st_evN"), or -1 */
static int our_event(const char *name)
{
	char *end;
	long x;

	if (strncmp(name, "st_ev", 5) || !name[5])
		return -1;
	x = strtol(name + 5, &end, 10);
	return *end || x < 0 || x >= NEV ? -1 : x;
}

/* Check the listing; returns the events it lists, -1 when it is wrong */
static int check_listing(int final)
{
	char *all = uet_read_file(UE_STATUS), *line, *save, *p;
	unsigned char *listed = calloc(sh->page_size, 1);
	int seen[NEV] = { 0 }, n = 0, busy = 0, x, i;
	long active = -1, nbusy = -1, max = -1;
	const char *totals = uet_status_totals(all, &active, &nbusy, &max);

	if (!all || !listed || !totals) {
		fail("read the totals of %s", UE_STATUS);
		goto out;
	}
	/* the event lines, one per line, end where the totals start */
	all[totals - all] = '\0';
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256], flags[128] = "", used[64] = "";
		unsigned int idx;
		int len, status;

		if (sscanf(line, "%u:%255[A-Za-z0-9_]%n", &idx, name, &len) != 2) {
			fail("listing line '%s'", line);
			goto out;
		}
		p = line + len;
		if (*p == ':') {
			len = strcspn(p + 1, " ");
			snprintf(flags, sizeof(flags), "%.*s", len, p + 1);
			p += 1 + len;
		}
		snprintf(used, sizeof(used), "%s", p);
		if (*used && strncmp(used, " # Used by ", 11)) {
			fail("listing line '%s'", line);
			goto out;
		}
		if (!idx || idx >= (unsigned int)sh->page_size || listed[idx]) {
			fail("listing: index %u twice or out of range", idx);
			goto out;
		}
		listed[idx] = 1;
		n++;
		busy += !!*used;
		status = status_of_used_by(used);
		if (sh->page[idx] != status)
			fail("'%s': status byte %#x", line, sh->page[idx]);
		x = our_event(name);
		if (x < 0)
			continue;
		seen[x]++;
		if (!sh->ev[x].exists)
			fail("listing has '%s', an event deleted", line);
		if (sh->ev[x].index && sh->ev[x].index != idx)
			fail("listing has '%s', index %u expected", line, sh->ev[x].index);
		sh->ev[x].index = idx;
		if (strcmp(flags, flags_of(x)))
			fail("listing has '%s', flags '%s' expected", line, flags_of(x));
		if (strcmp(used, used_by(expected_status(x))))
			fail("listing has '%s', consumers '%s' expected (ftrace %d, instance %d)",
			     line, used_by(expected_status(x)), sh->ftrace[x], sh->inst[x]);
	}
	for (x = 0; x < NEV; x++) {
		if (sh->ev[x].exists && seen[x] != 1)
			fail("st_ev%d exists but is listed %d times", x, seen[x]);
		if (!sh->ev[x].exists && expected_status(x))
			fail("st_ev%d: consumers attached to an event deleted", x);
	}
	if (active != n || nbusy != busy || max != sh->page_size)
		fail("listing totals Active %ld Busy %ld Max %ld; %d lines, %d busy",
		     active, nbusy, max, n, busy);
	/* every byte of a free slot is 0, index 0 too */
	for (i = 0; i < sh->page_size; i++)
		if (!listed[i] && sh->page[i])
			fail("status byte %d of a free slot is %#x", i, sh->page[i]);
	if (final && n != sh->foreign)
		fail("at the end %d events, %d at the start", n, sh->foreign);
out:
	free(listed);
	free(all);
	return LOAD(&sh->failed) ? -1 : n;
}

/* dynamic_events lists exactly our events, canonically */
static void check_dynamic_events(void)
{
	char *all = uet_read_file(UE_DYN), *line, *save, want[160];
	int seen[NEV] = { 0 }, x;

	if (!all) {
		fail("read %s", UE_DYN);
		return;
	}
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		if (strncmp(line, "u:", 2))
			continue;
		if (sscanf(line + 2, "%63[A-Za-z0-9_]", name) != 1)
			fail("dynamic_events line '%s'", line);
		x = our_event(name);
		if (x < 0)
			continue;
		seen[x]++;
		snprintf(want, sizeof(want), "u:");
		desc_of(want + 2, sizeof(want) - 2, x, 0);
		if (strcmp(line, want))
			fail("dynamic_events has '%s', '%s' expected", line, want);
	}
	for (x = 0; x < NEV; x++)
		if (seen[x] != sh->ev[x].exists)
			fail("st_ev%d: in dynamic_events %d times, exists %d", x, seen[x],
			     sh->ev[x].exists);
	free(all);
}

/* The write indexes of the shared fd are 0 .. count - 1 */
static void check_common_fd(void)
{
	int used[NEV] = { 0 }, x, n = 0;

	for (x = 0; x < NEV; x++) {
		if (sh->common.widx[x] < 0)
			continue;
		n++;
		if (sh->common.widx[x] >= NEV || used[sh->common.widx[x]]++)
			fail("shared fd: write index %d twice or too big", sh->common.widx[x]);
		if (sh->common.widx[x] >= sh->common.count)
			fail("shared fd: write index %d of %d events", sh->common.widx[x],
			     sh->common.count);
	}
	if (n != sh->common.count)
		fail("shared fd: %d events, count %d", n, sh->common.count);
}

static int check_all(int final)
{
	char path[128];
	int x;

	counted(C_CHECKS);
	check_listing(final);
	check_dynamic_events();
	check_common_fd();
	for (x = 0; x < NEV; x++) {
		struct ev_model *e = &sh->ev[x];

		snprintf(path, sizeof(path), TRACEFS "events/user_events/st_ev%d", x);
		if ((access(path, F_OK) == 0) != e->exists)
			fail("st_ev%d exists %d but its directory %s", x, e->exists,
			     e->exists ? "is missing" : "is there");
		/* all is quiet: the bounds meet */
		if (e->refs_lo != e->refs_hi || e->cons_lo != e->cons_hi)
			fail("st_ev%d: bounds differ at rest (refs %d/%d, consumers %d/%d)",
			     x, e->refs_lo, e->refs_hi, e->cons_lo, e->cons_hi);
	}
	return LOAD(&sh->failed);
}

static long long deadline;

static int checker_check(void)
{
	check_all(0);
	return LOAD(&sh->failed) || ue_now_ms() >= deadline ||
	       LOAD(&sh->count[C_OPS]) >= MAX_OPS;
}

static void checker_op(void *arg)
{
	usleep(5000);
	if (ue_now_ms() >= deadline)
		STORE(&sh->pause, 1);
}

/* The test --------------------------------------------------------------- */

static void worker_process(int id, unsigned int seed)
{
	struct ctx c = { .id = id, .proc = 1, .seed = seed, .w = &sh->w[id] };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	run_loop(worker_op_v, &c, NULL);
	worker_cleanup(&c);
	_exit(0);
}

static void init_shared(void)
{
	pthread_mutexattr_t ma;
	pthread_barrierattr_t ba;
	int x, k, i;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&sh->paused, &ba, NPARTIES);
	pthread_barrier_init(&sh->resumed, &ba, NPARTIES);
	pthread_rwlock_init(&sh->common_lock, NULL);
	for (x = 0; x < NEV; x++) {
		pthread_mutex_init(&sh->ev[x].lock, &ma);
		for (k = 0; k < NPERF; k++) {
			sh->perf[x][k] = -1;
			sh->bpf[x][k] = -1;
		}
	}
	for (i = 0; i < NWORKERS; i++)
		for (k = 0; k < NFD; k++)
			sh->w[i].fds[k].fd = -1;
	sh->common.fd = -1;
	sh->page_size = getpagesize();
	sh->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/* Delete what a failed earlier run may have left */
static void delete_leftovers(void)
{
	int x;
	char name[32];

	uet_write_file(TRACEFS INSTANCE "events/enable", "0", O_TRUNC);
	rmdir(TRACEFS INSTANCE);
	for (x = 0; x < NEV; x++) {
		name_of(name, sizeof(name), x);
		uet_enable("", name, 0);
		uet_delete_named(name);
	}
}

FIXTURE(stress) {
	struct ctx threads[NTHREADS];
	pid_t pids[NPROCS];
};

FIXTURE_SETUP(stress)
{
	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF | UE_NEED_HIST))
		return;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	init_shared();
	sh->page = uet_map_status();
	ASSERT_NE(NULL, sh->page);
	delete_leftovers();
}

FIXTURE_TEARDOWN(stress)
{
	delete_leftovers();
	munmap((void *)sh->page, sh->page_size);
	munmap(sh, sizeof(*sh));
}

TEST_F_TIMEOUT(stress, churn, 300)
{
	pthread_t th[NTHREADS + 2];
	unsigned int seed = ue_env_number("UE_STRESS_SEED", time(NULL));
	int seconds = ue_env_number("UE_STRESS_SECONDS", 40), i, x, fd, r, status;
	long long start = ue_now_ms(), churned, ended;
	char name[32];

	TH_LOG("seed %u, %d s, at most %d operations, %d CPUs", seed, seconds,
	       MAX_OPS, sh->ncpus);

	sh->foreign = check_listing(0);
	ASSERT_LE(0, sh->foreign) TH_LOG("%s", sh->why);
	ASSERT_EQ(0, mkdir(TRACEFS INSTANCE, 0755));
	deadline = ue_now_ms() + seconds * 1000LL;

	/* the processes first: they inherit no fd of the threads */
	for (i = 0; i < NPROCS; i++) {
		self->pids[i] = fork();
		ASSERT_LE(0, self->pids[i]);
		if (!self->pids[i])
			worker_process(NTHREADS + i, seed + 1000 * (i + 1));
	}
	for (i = 0; i < NPERF; i++) {
		sh->prog[i] = bpf_tiny_prog();
		if (sh->prog[i] < 0)
			fail("BPF_PROG_LOAD: %s", strerror(errno));
	}
	consumer_seed = seed ^ 0x1234;
	dyn_seed = seed ^ 0x4321;
	ufd_open(&sh->common);
	for (i = 0; i < NTHREADS; i++) {
		self->threads[i] = (struct ctx){ .id = i, .seed = seed + i, .w = &sh->w[i] };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker_thread, &self->threads[i]));
	}
	ASSERT_EQ(0, pthread_create(&th[NTHREADS], NULL, consumer_thread, NULL));
	ASSERT_EQ(0, pthread_create(&th[NTHREADS + 1], NULL, dyn_thread, NULL));

	run_loop(checker_op, NULL, checker_check);
	churned = ue_now_ms();

	for (i = 0; i < NTHREADS + 2; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < NPROCS; i++) {
		EXPECT_EQ(self->pids[i], waitpid(self->pids[i], &status, 0));
		EXPECT_EQ(0, status);
	}
	ufd_close(&sh->common);
	for (i = 0; i < NPERF; i++)
		close(sh->prog[i]);
	/* nothing attached, no fd open: the model still holds */
	if (!sh->failed)
		check_all(0);

	/* delete everything: nothing holds any event now */
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	for (x = 0; x < NEV; x++) {
		name_of(name, sizeof(name), x);
		r = uet_delete(fd, name);
		EXPECT_EQ(sh->ev[x].exists ? 0 : -ENOENT, r)
			TH_LOG("delete %s (exists %d): %s", name, sh->ev[x].exists,
			       strerror(-r));
		sh->ev[x].exists = 0;
	}
	close(fd);
	EXPECT_EQ(0, rmdir(TRACEFS INSTANCE));
	if (!sh->failed)
		check_all(1);
	if (!sh->foreign) {
		char *all = uet_read_file(UE_STATUS), want[64];

		snprintf(want, sizeof(want), "\nActive: 0\nBusy: 0\nMax: %d\n", sh->page_size);
		EXPECT_STREQ(want, all);
		free(all);
	}
	ended = ue_now_ms();
	for (i = 0; i < NCOUNT; i++)
		TH_LOG("%-26s %ld", count_names[i], sh->count[i]);
	TH_LOG("%lld ms churning (%lld ms pausing, %lld ms checking), %lld ms at the end",
	       churned - start, sh->pause_ms, sh->check_ms, ended - churned);
	EXPECT_EQ(0, sh->failed) TH_LOG("%s", sh->why);
}

UE_HARNESS_MAIN
