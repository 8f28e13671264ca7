// SPDX-License-Identifier: GPL-2.0
/*
 * bits_stress_test: the enable-bit ABI under churn.
 *
 * Threads of this process and a process of its own register
 * and unregister enable bits of NBEV events (made through the enable-bit
 * ABI, so each deletes itself when nothing refers to it any more: with
 * tracing_on 0, so that no record in a buffer keeps one), write
 * them, and close and re-open their fds; a thread fork()s children that
 * exit at once, drop their copies of the enablers first, register one of
 * their own, or execve() a trivial program; a consumer thread attaches and
 * detaches ftrace and perf. Every BROUND_MS all pause and the checker
 * looks: each word is its fixed pattern with exactly the bits of the
 * enablers whose event has a consumer (waited for: a page that
 * fork() made copy-on-write is updated by a kernel worker), and an event
 * exists exactly while an fd, an enabler or a consumer refers to it. At the
 * end all is dropped: every word is its pattern and every event is gone.
 *
 * UE_BITS_STRESS_SECONDS (default 20) and UE_STRESS_SEED change the run.
 *
 * It is stress_test's counterpart for the enable-bit ABI.
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

#define NPERF		2	/* perf events per event at most */

#define LOAD(p)		__atomic_load_n(p, __ATOMIC_SEQ_CST)
#define STORE(p, v)	__atomic_store_n(p, v, __ATOMIC_SEQ_CST)
#define ADD(p, v)	__atomic_add_fetch(p, v, __ATOMIC_SEQ_CST)

#define NBEV		8	/* events stb_ev0 .. stb_ev7 */
#define NBTHREADS	3	/* registering threads */
#define NBWORKERS	(NBTHREADS + 1)	/* and the registering process */
#define NBPARTIES	(NBWORKERS + 3)	/* forker, consumer, checker */
#define NBSLOTS		8	/* enable bits of a worker */
#define BROUND_MS	1500
#define BMAX_ATTACHED	4	/* consumers at most: events must come and go */

/* Slot s is bit bslot_bit[s] of the 4-byte word (s < 4) or of the 8-byte one */
static const int bslot_bit[NBSLOTS] = { 0, 9, 21, 31, 0, 17, 40, 63 };

/* A worker's words; the bits no slot names keep their pattern */
struct bwords {
	__u64 w64;
	__u32 w32;
	__u32 guard;		/* named by no slot at all */
};

#define BPAT64		0xa5a5a5a5a5a5a5a5ULL
#define BPAT32		0x5a5a5a5aU
#define BGUARD		0x3c3c3c3cU

struct bworker {
	int id;
	unsigned int seed;
	struct bwords *words;
	int fd;			/* user_events_data, -1: closed */
	int widx[NBEV];		/* write index of each event on fd, -1: none */
	int slot[NBSLOTS];	/* event of the enabler at each slot, -1: none */
};

enum {
	B_OPS, B_CHECKS, B_REGS, B_REG_TAKEN, B_UNREGS, B_UNREG_NOENT, B_WRITES,
	B_WRITE_EBADF, B_REOPENS, B_FORKS, B_EXECS, B_CHILD_UNREGS, B_CHILD_REGS,
	B_ATTACHES, B_ATTACH_GONE, B_STALE_ID, B_LATE, NBCOUNT
};

static const char * const bcount_names[NBCOUNT] = {
	"operations", "consistency checks", "registrations", "  (address, bit) taken",
	"unregistrations", "  of them ENOENT", "writes", "  of them EBADF",
	"fd re-opens", "forked children", "  of them exec'd", "  unregistering copies",
	"  registering their own", "consumer attaches", "  to a gone event",
	"  stale tracepoint id", "words updated late",
};

/* Everything the parties share, across fork() */
struct bshared {
	pthread_barrier_t paused, resumed;
	int pause, stop, failed;
	char why[1024];
	long count[NBCOUNT];
	struct bworker w[NBWORKERS];
	struct bwords pwords;	/* the process worker's: the checker reads them */
	int ftrace[NBEV];	/* the consumer thread's */
	int perf[NBEV][NPERF];
	int ncpus;
};

static struct bshared *bsh;
static struct bwords *bpriv;	/* the threads' words: private, copied by fork() */

static void bfail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ue_fail_once(&bsh->failed, bsh->why, sizeof(bsh->why), fmt, ap);
	va_end(ap);
}

static void bcounted(int what)
{
	ADD(&bsh->count[what], 1);
}

/* The word of slot @s of @w, and its size */
static void *bslot_addr(struct bworker *w, int s, int *size)
{
	*size = s < 4 ? 4 : 8;
	return s < 4 ? (void *)&w->words->w32 : (void *)&w->words->w64;
}

/* The first of the four slots of the word of @size */
static int bfirst_slot(int size)
{
	return size == 4 ? 0 : 4;
}

/* The pattern of a word: the bits of its slots clear */
static __u64 bbase(int size)
{
	__u64 v = size == 4 ? BPAT32 : BPAT64;
	int s;

	for (s = bfirst_slot(size); s < bfirst_slot(size) + 4; s++)
		v &= ~(1ULL << bslot_bit[s]);
	return v;
}

static __u64 bread(const void *addr, int size)
{
	return size == 4 ? LOAD((__u32 *)addr) : LOAD((__u64 *)addr);
}

/* Whether the word at @addr reads @want; what it read in *@v */
static bool bread_is(const void *addr, int size, __u64 want, __u64 *v)
{
	*v = bread(addr, size);
	return *v == want;
}

static void bdesc(char *buf, size_t size, int x)
{
	snprintf(buf, size, "stb_ev%d u32 v", x);
}

static void bname(char *buf, size_t size, int x)
{
	snprintf(buf, size, "stb_ev%d", x);
}

static void bopen(struct bworker *w)
{
	int x;

	w->fd = open(UE_DATA, O_RDWR | O_CLOEXEC);
	if (w->fd < 0)
		bfail("open %s: %s", UE_DATA, strerror(errno));
	for (x = 0; x < NBEV; x++)
		w->widx[x] = -1;
}

/* Register event @x at slot @s: EADDRINUSE if the slot is taken */
static void breg(struct bworker *w, int s, int x)
{
	char desc[32];
	__u32 idx = 0;
	void *addr;
	int size, r;

	bdesc(desc, sizeof(desc), x);
	addr = bslot_addr(w, s, &size);
	r = uet_register_bits(w->fd, desc, addr, size, bslot_bit[s], 0, &idx);
	if (w->slot[s] >= 0) {
		if (r != -EADDRINUSE)
			bfail("worker %d: '%s' at taken slot %d: %s", w->id, desc, s,
			      r ? strerror(-r) : "accepted");
		else
			bcounted(B_REG_TAKEN);
		return;
	}
	if (r) {
		bfail("worker %d: '%s' at slot %d: %s", w->id, desc, s, strerror(-r));
		return;
	}
	/* the same event on the same fd: the same write index */
	if (w->widx[x] >= 0 && idx != (__u32)w->widx[x])
		bfail("worker %d: '%s' again: write index %u, was %d", w->id, desc, idx,
		      w->widx[x]);
	w->widx[x] = idx;
	w->slot[s] = x;
	bcounted(B_REGS);
}

/* Unregister slot @s: ENOENT if it is free */
static void bunreg(struct bworker *w, int s)
{
	void *addr;
	int size, r;

	addr = bslot_addr(w, s, &size);
	r = uet_unregister_bits(w->fd, addr, bslot_bit[s]);
	if (w->slot[s] < 0) {
		if (r != -ENOENT)
			bfail("worker %d: unregister free slot %d: %s", w->id, s,
			      r ? strerror(-r) : "accepted");
		else
			bcounted(B_UNREG_NOENT);
		return;
	}
	if (r)
		bfail("worker %d: unregister slot %d: %s", w->id, s, strerror(-r));
	w->slot[s] = -1;
	bcounted(B_UNREGS);
}

/* A write goes through, or gets EBADF while nothing is attached */
static void bwrite(struct bworker *w, int x)
{
	__u32 rec[2] = { w->widx[x], x };

	if (w->widx[x] < 0)
		return;
	if (write(w->fd, rec, sizeof(rec)) == sizeof(rec))
		bcounted(B_WRITES);
	else if (errno == EBADF)
		bcounted(B_WRITE_EBADF);
	else
		bfail("worker %d: write stb_ev%d: %s", w->id, x, strerror(errno));
}

/* A random slot, taken (@taken) or free if there is one (7 times in 8) */
static int bpick_slot(struct bworker *w, int taken)
{
	int s = rand_r(&w->seed) % NBSLOTS, i, used;

	if (rand_r(&w->seed) % 8 == 0)
		return s;
	for (i = 0; i < NBSLOTS; i++, s = (s + 1) % NBSLOTS) {
		used = w->slot[s] >= 0;
		if (used == taken)
			break;
	}
	return s;
}

static void bworker_op(void *arg)
{
	struct bworker *w = arg;
	int r = rand_r(&w->seed) % 100, x = rand_r(&w->seed) % NBEV;

	if (w->fd < 0)
		bopen(w);
	if (w->fd < 0)
		return;
	if (r < 40) {
		breg(w, bpick_slot(w, 0), x);
	} else if (r < 75) {
		bunreg(w, bpick_slot(w, 1));
	} else if (r < 92) {
		bwrite(w, x);
	} else {
		close(w->fd);
		bopen(w);
		bcounted(B_REOPENS);
	}
}

static void bworker_cleanup(struct bworker *w)
{
	int s;

	if (w->fd < 0)
		bopen(w);
	for (s = 0; s < NBSLOTS; s++)
		if (w->slot[s] >= 0)
			bunreg(w, s);
	close(w->fd);
	w->fd = -1;
}

/* The loop of every party but the checker: @op until stopped */
static void brun(void (*op)(void *), void *arg)
{
	for (;;) {
		if (LOAD(&bsh->pause)) {
			pthread_barrier_wait(&bsh->paused);
			pthread_barrier_wait(&bsh->resumed);
			if (LOAD(&bsh->stop))
				return;
			continue;
		}
		op(arg);
		ADD(&bsh->count[B_OPS], 1);
	}
}

static void *bworker_thread(void *arg)
{
	brun(bworker_op, arg);
	bworker_cleanup(arg);
	return NULL;
}

/*
 * A forked child (exit status 0, or 3 when execve() failed; others name a
 * failure): it exits (@what 0), drops copies of the parent's enablers
 * first, whose bits then stay clear in its memory (1), execs (2), or
 * registers an enabler of its own (3). Only async-signal-safe calls here.
 */
static void bchild(int what, unsigned int seed)
{
	struct bworker *w = &bsh->w[rand_r(&seed) % NBTHREADS];
	int s = rand_r(&seed) % NBSLOTS, fd, r, size, n;
	struct ue_wait wait;
	char desc[32];
	void *addr;

	if (what == 0)
		_exit(0);
	if (what == 2) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(3);
	}
	fd = open(UE_DATA, O_RDWR);
	if (fd < 0)
		_exit(10);
	if (what == 3) {
		bdesc(desc, sizeof(desc), rand_r(&seed) % NBEV);
		addr = bslot_addr(w, s, &size);
		r = uet_register_bits(fd, desc, addr, size, bslot_bit[s], 0, NULL);
		/* the slot may be the parent's, and so inherited */
		_exit(r && r != -EADDRINUSE ? 11 : 0);
	}
	for (n = 0; n < 3; n++, s = (s + 3) % NBSLOTS) {
		addr = bslot_addr(w, s, &size);
		r = uet_unregister_bits(fd, addr, bslot_bit[s]);
		/* the parent may have had none there at fork() */
		if (r == -ENOENT)
			continue;
		if (r)
			_exit(12);
		/* gone from this process: cleared, and no consumer sets it */
		ue_wait_start(&wait, UE_WAIT_MS);
		while (bread(addr, size) & 1ULL << bslot_bit[s])
			if (!ue_wait_next(&wait))
				_exit(13);	/* no stdio here: bfork_op() says it */
	}
	_exit(0);
}

static unsigned int bfork_seed;

static void bfork_op(void *arg)
{
	int what = rand_r(&bfork_seed) % 4, status;
	unsigned int seed = rand_r(&bfork_seed);
	pid_t pid = fork();

	if (pid < 0) {
		bfail("fork: %s", strerror(errno));
		return;
	}
	if (!pid)
		bchild(what, seed);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    (WEXITSTATUS(status) && WEXITSTATUS(status) != 3)) {
		bfail("child %d (%d) ended with status %#x%s", pid, what, status,
		      WIFEXITED(status) && WEXITSTATUS(status) == 13 ?
		      ": wait expired for the bit of a dropped enabler to clear" : "");
		return;
	}
	bcounted(B_FORKS);
	if (what == 1)
		bcounted(B_CHILD_UNREGS);
	if (what == 2 && !WEXITSTATUS(status))
		bcounted(B_EXECS);
	if (what == 3)
		bcounted(B_CHILD_REGS);
}

static void *bforker_thread(void *arg)
{
	brun(bfork_op, NULL);
	return NULL;
}

/* Consumers -------------------------------------------------------------- */

static int battached(int x)
{
	int k;

	for (k = 0; k < NPERF; k++)
		if (bsh->perf[x][k] >= 0)
			return 1;
	return bsh->ftrace[x];
}

/* Consumer @k of event @x: ftrace's enable (k == NPERF) or a perf event */
static int bcons_on(int x, int k)
{
	return k == NPERF ? bsh->ftrace[x] : bsh->perf[x][k] >= 0;
}

static void bcons_toggle(int x, int k, unsigned int *seed)
{
	char name[32];
	int id, id2, p, r, err;

	bname(name, sizeof(name), x);
	if (k == NPERF) {
		r = uet_enable("", name, !bsh->ftrace[x]);
		if (bsh->ftrace[x] && r)
			bfail("disable %s: %s", name, strerror(-r));
		if (bsh->ftrace[x]) {
			bsh->ftrace[x] = 0;
		} else if (!r) {
			bsh->ftrace[x] = 1;
			bcounted(B_ATTACHES);
		} else if (r == -ENOENT || r == -ENODEV) {
			bcounted(B_ATTACH_GONE);
		} else {
			bfail("enable %s: %s", name, strerror(-r));
		}
		return;
	}
	if (bsh->perf[x][k] >= 0) {
		close(bsh->perf[x][k]);
		bsh->perf[x][k] = -1;
		return;
	}
	id = uet_tracepoint_id(name);
	if (id < 0) {
		bcounted(B_ATTACH_GONE);
		return;
	}
	p = uet_perf_open(id, -1, rand_r(seed) % bsh->ncpus, 0);
	err = errno;
	/*
	 * The event may have gone meanwhile, its id to another event or (the
	 * lowest free id is taken) to the same name made again: perf found no
	 * event with that id then (EINVAL)
	 */
	id2 = uet_tracepoint_id(name);
	if (id2 != id) {
		bcounted(B_STALE_ID);
		if (p >= 0)
			close(p);
	} else if (p < 0 && (err == EINVAL || err == ENOENT || err == ENODEV)) {
		bcounted(B_ATTACH_GONE);
	} else if (p < 0) {
		bfail("perf_event_open %s (id %d): %s", name, id, strerror(err));
	} else {
		bsh->perf[x][k] = p;
		bcounted(B_ATTACHES);
	}
}

static unsigned int bcons_seed;

static void bconsumer_op(void *arg)
{
	int x = rand_r(&bcons_seed) % NBEV, k = rand_r(&bcons_seed) % (NPERF + 1);
	int on = 0, n, i;

	for (i = 0; i < NBEV * (NPERF + 1); i++)
		on += bcons_on(i / (NPERF + 1), i % (NPERF + 1));
	if (!bcons_on(x, k) && on >= BMAX_ATTACHED) {
		/* detach a random one instead */
		n = rand_r(&bcons_seed) % on;
		for (i = 0; i < NBEV * (NPERF + 1); i++) {
			x = i / (NPERF + 1);
			k = i % (NPERF + 1);
			if (bcons_on(x, k) && !n--)
				break;
		}
	}
	bcons_toggle(x, k, &bcons_seed);
	usleep(rand_r(&bcons_seed) % 2000);
}

static void *bconsumer_thread(void *arg)
{
	int x, k;

	brun(bconsumer_op, NULL);
	for (x = 0; x < NBEV; x++)
		for (k = 0; k <= NPERF; k++)
			if (bcons_on(x, k))
				bcons_toggle(x, k, &bcons_seed);
	return NULL;
}

/* The check -------------------------------------------------------------- */

/* Does an fd, an enabler or a consumer refer to @x? */
/* Whether event @name exists exactly when @held; what was seen in *@there */
static bool bexists_is(const char *name, int held, int *there)
{
	*there = uet_event_exists("user_events", name);
	return *there == held;
}

static int bheld(int x)
{
	int i, s;

	if (battached(x))
		return 1;
	for (i = 0; i < NBWORKERS; i++) {
		if (bsh->w[i].fd >= 0 && bsh->w[i].widx[x] >= 0)
			return 1;
		for (s = 0; s < NBSLOTS; s++)
			if (bsh->w[i].slot[s] == x)
				return 1;
	}
	return 0;
}

/* The word of @w of @size: its pattern and the bits of attached events */
static void bcheck_word(struct bworker *w, int size)
{
	void *addr = size == 4 ? (void *)&w->words->w32 : (void *)&w->words->w64;
	__u64 want = bbase(size), v;
	int s;

	for (s = bfirst_slot(size); s < bfirst_slot(size) + 4; s++)
		if (w->slot[s] >= 0 && battached(w->slot[s]))
			want |= 1ULL << bslot_bit[s];
	v = bread(addr, size);
	if (v != want)
		bcounted(B_LATE);
	if (!ue_wait_for(UE_WAIT_MS, bread_is(addr, size, want, &v),
			 "worker %d's %d-byte word to read %#llx", w->id, size,
			 (unsigned long long)want))
		bfail("worker %d, %d-byte word: %#llx, %#llx expected (slots %d %d %d %d)",
		      w->id, size, (unsigned long long)v, (unsigned long long)want,
		      w->slot[bfirst_slot(size)], w->slot[bfirst_slot(size) + 1],
		      w->slot[bfirst_slot(size) + 2], w->slot[bfirst_slot(size) + 3]);
	if (LOAD(&w->words->guard) != BGUARD)
		bfail("worker %d: the word no slot names is %#x", w->id, w->words->guard);
}

static void bcheck(void)
{
	char name[32];
	int i, x, held, there;

	bcounted(B_CHECKS);
	for (i = 0; i < NBWORKERS; i++) {
		bcheck_word(&bsh->w[i], 4);
		bcheck_word(&bsh->w[i], 8);
	}
	/* unreferenced events go; after a detach they may take a moment */
	for (x = 0; x < NBEV; x++) {
		bname(name, sizeof(name), x);
		held = bheld(x);
		if (!ue_wait_for(UE_WAIT_MS, bexists_is(name, held, &there),
				 "%s to %s", name, held ? "exist" : "go"))
			bfail("%s: exists %d, but fds, enablers or consumers hold it: %d",
			      name, there, held);
	}
}

static void bdelete_leftovers(void)
{
	int x;
	char name[32];

	for (x = 0; x < NBEV; x++) {
		bname(name, sizeof(name), x);
		uet_enable("", name, 0);
		uet_delete_named(name);
	}
}

FIXTURE(bits_stress) {
	pid_t pid;
};

FIXTURE_SETUP(bits_stress)
{
	pthread_barrierattr_t ba;
	int i, x, k;

	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF | UE_NEED_HIST))
		return;
	bsh = mmap(NULL, sizeof(*bsh), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bsh);
	bpriv = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bpriv);
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&bsh->paused, &ba, NBPARTIES);
	pthread_barrier_init(&bsh->resumed, &ba, NBPARTIES);
	for (x = 0; x < NBEV; x++)
		for (k = 0; k < NPERF; k++)
			bsh->perf[x][k] = -1;
	for (i = 0; i < NBWORKERS; i++) {
		struct bworker *w = &bsh->w[i];

		w->id = i;
		w->fd = -1;
		w->words = i < NBTHREADS ? &bpriv[i] : &bsh->pwords;
		w->words->w32 = bbase(4);
		w->words->w64 = bbase(8);
		w->words->guard = BGUARD;
		memset(w->slot, 0xff, sizeof(w->slot));
		memset(w->widx, 0xff, sizeof(w->widx));
	}
	bsh->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	bdelete_leftovers();
	/*
	 * ftrace attaches, but its buffer keeps no record: an event that
	 * recorded into a buffer is not deleted automatically, and lifetimes
	 * are what this test follows
	 */
	ASSERT_EQ(0, uet_write_file(TRACEFS "tracing_on", "0", O_TRUNC));
}

FIXTURE_TEARDOWN(bits_stress)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	EXPECT_EQ(0, uet_write_file(TRACEFS "tracing_on", "1", O_TRUNC));
	bdelete_leftovers();
	munmap(bpriv, getpagesize());
	munmap(bsh, sizeof(*bsh));
}

TEST_F_TIMEOUT(bits_stress, churn, 180)
{
	pthread_t th[NBTHREADS + 2];
	unsigned int seed = ue_env_number("UE_STRESS_SEED", time(NULL));
	int seconds = ue_env_number("UE_BITS_STRESS_SECONDS", 20), i, status;
	long long start = ue_now_ms(), end;
	char name[32];

	TH_LOG("seed %u, %d s, %d CPUs", seed, seconds, bsh->ncpus);
	ASSERT_EQ(0, access("/bin/true", X_OK)) TH_LOG("the children exec /bin/true");
	end = start + seconds * 1000LL;

	/* the process first: it inherits no enabler */
	bsh->w[NBTHREADS].seed = seed + 1000;
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (!self->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		brun(bworker_op, &bsh->w[NBTHREADS]);
		bworker_cleanup(&bsh->w[NBTHREADS]);
		_exit(0);
	}
	for (i = 0; i < NBTHREADS; i++) {
		bsh->w[i].seed = seed + i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, bworker_thread, &bsh->w[i]));
	}
	bfork_seed = seed ^ 0x5555;
	bcons_seed = seed ^ 0xaaaa;
	ASSERT_EQ(0, pthread_create(&th[NBTHREADS], NULL, bforker_thread, NULL));
	ASSERT_EQ(0, pthread_create(&th[NBTHREADS + 1], NULL, bconsumer_thread, NULL));

	for (;;) {
		long long round = ue_now_ms() + BROUND_MS;

		while (ue_now_ms() < round && !LOAD(&bsh->failed))
			usleep(10000);
		STORE(&bsh->pause, 1);
		pthread_barrier_wait(&bsh->paused);
		if (!bsh->failed)
			bcheck();
		if (bsh->failed || ue_now_ms() >= end)
			STORE(&bsh->stop, 1);
		STORE(&bsh->pause, 0);
		pthread_barrier_wait(&bsh->resumed);
		if (bsh->stop)
			break;
	}
	for (i = 0; i < NBTHREADS + 2; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(self->pid, waitpid(self->pid, &status, 0));
	EXPECT_EQ(0, status);
	self->pid = 0;

	/* everything dropped: the patterns alone, and no event left */
	if (!bsh->failed)
		bcheck();
	for (i = 0; i < NBEV; i++) {
		bname(name, sizeof(name), i);
		EXPECT_FALSE(uet_event_exists("user_events", name)) TH_LOG("%s is left", name);
	}
	for (i = 0; i < NBCOUNT; i++)
		TH_LOG("%-26s %ld", bcount_names[i], bsh->count[i]);
	TH_LOG("%lld ms", ue_now_ms() - start);
	EXPECT_EQ(0, bsh->failed) TH_LOG("%s", bsh->why);
}

UE_HARNESS_MAIN
