// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_race.c: fuzz_test's race scenario of the enable bit.
 *
 * Now and then (one iteration in 25): the test registers,
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
 */
#include "fuzz_test.h"

/* Races of the enable-bit ABI ---------------------------------------------------- */

/*
 * While the test registers, unregisters, attaches and detaches consumers
 * and forks, with signals coming, a thread of its own moves pages over the
 * words (mremap()), maps pages of a memfd over them, unmaps them or moves
 * them away. What the kernel may write, then: a bit of a page only for an
 * enabler whose registration returned after that page's mapping began (one
 * that returned before named the page that was there then, which went).
 * Every other bit of a page stays as the thread filled it, and a page moved
 * away stays as it was when it moved. A ticket (one counter for both
 * threads) orders the registrations' returns and the mappings' starts; a
 * generation per page, odd while the thread changes it, tells a system call
 * of the test that met no change of the page, whose errno the model then
 * predicts exactly.
 */
#define RACE_SLOTS	4	/* pages of words, at fixed addresses */
#define RACE_WORDS	2	/* words of a page the registrations name */
#define RACE_BITS	4	/* bits of a word they name: race_bits[] */
#define RACE_REGS	256	/* successful registrations of a scenario, at most */
#define RACE_SPARES	32	/* pages the thread fills and moves over a word */
#define RACE_MEMFD	32	/* memfd pages it maps over a word, each once */
#define RACE_GRAVES	16	/* pages it moves a word to, each once */
#define RACE_FORKS	3	/* children of a scenario, at most */

static const int race_bits[RACE_BITS] = { 0, 5, 31, 33 };

enum race_key_state { RK_NONE, RK_HELD, RK_MAYBE };

/* What a registration may return: 0, EFAULT, EADDRINUSE */
#define RACE_OK		0x1
#define RACE_EFAULT	0x2
#define RACE_INUSE	0x4

struct race_slot {
	unsigned char *addr;
	unsigned char *shadow;	/* what the page holds, but for the bits of enablers */
	int mapped;		/* a page of ours is there */
	unsigned long begin;	/* the ticket taken as its mapping began */
	unsigned long gen;	/* __atomic; odd while the thread changes the page */
};

/* An (address, bit) the test registers: whether the process has an enabler there */
struct race_key {
	int state;		/* enum race_key_state */
	unsigned long gen;	/* the page's gen when it was registered, odd if unknown */
};

/* A registration that returned 0: it may write its bit in a page mapped before that */
struct race_reg {
	int slot, word, bit;
	unsigned long end;	/* the ticket taken when it returned */
};

static struct {
	struct race_slot slot[RACE_SLOTS];
	int word_off[RACE_WORDS];	/* in the page, 8-aligned */
	struct race_key key[RACE_SLOTS][RACE_WORDS][RACE_BITS];
	struct race_reg reg[RACE_REGS];
	int nr_reg;
	unsigned char *grave[RACE_GRAVES];	/* where the thread moved a word, or NULL */
	unsigned char *grave_shadow[RACE_GRAVES];	/* as it was when it moved */
} race;

/*
 * A registration of key (@s, @w, @b): the page's gen before and after it
 * (@g1, @g2) and whether it was mapped; what it may return
 */
static int race_reg_allowed(int s, int w, int b, unsigned long g1, unsigned long g2,
			    int mapped)
{
	const struct race_key *k = &race.key[s][w][b];
	int stable = g1 == g2 && !(g1 & 1);

	if (k->state == RK_NONE)
		return !stable ? RACE_OK | RACE_EFAULT : mapped ? RACE_OK : RACE_EFAULT;
	/* the page of the enabler it has is there: that one is in use */
	if (k->state == RK_HELD && stable && mapped && k->gen == g1)
		return RACE_INUSE;
	/* else it may have gone with its page, and a new one replace it */
	return RACE_OK | RACE_EFAULT | RACE_INUSE;
}

/* After that registration returned @ret (0 or -errno), at ticket @end */
static void race_reg_done(int s, int w, int b, int ret, unsigned long g1,
			  unsigned long g2, int mapped, unsigned long end)
{
	struct race_key *k = &race.key[s][w][b];

	if (ret == -EFAULT) {
		/* an enabler whose page went may have gone with the refusal */
		if (k->state == RK_HELD)
			k->state = RK_MAYBE;
		return;
	}
	if (ret == -EADDRINUSE && k->state == RK_MAYBE) {
		/* it has one, on a page the model does not know */
		k->state = RK_HELD;
		k->gen = 1;
	}
	if (ret)
		return;
	k->state = RK_HELD;
	k->gen = g1 == g2 && !(g1 & 1) && mapped ? g1 : 1;
	if (race.nr_reg == RACE_REGS)
		fail("internal", "too many registrations in a race scenario");
	race.reg[race.nr_reg++] = (struct race_reg){ s, w, b, end };
}

/* DIAG_IOCSUNREG of the key may return 0 (1), ENOENT (2), either (3); then none */
static int race_unreg(int s, int w, int b)
{
	int state = race.key[s][w][b].state;

	race.key[s][w][b].state = RK_NONE;
	return state == RK_HELD ? 1 : state == RK_NONE ? 2 : 3;
}

/* Into @mask (a page): the bits of slot @s's page that enablers may write */
static void race_writable(int s, unsigned char *mask, int size)
{
	const struct race_slot *sl = &race.slot[s];
	int i;

	memset(mask, 0, size);
	for (i = 0; i < race.nr_reg; i++) {
		const struct race_reg *r = &race.reg[i];

		if (r->slot == s && r->end > sl->begin)
			mask[race.word_off[r->word] + race_bits[r->bit] / 8] |=
				1 << (race_bits[r->bit] % 8);
	}
}

/* Races: munmap(), mremap(), fork() and signals against the enable bit ------------ */

#define RACE_FILL	(RACE_SPARES + RACE_SLOTS * RACE_FORKS)	/* pages filled, then moved */

/* The scenario's threads, pages and files; the model is race, above */
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
		ue_spin(rc.req_spin);
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
	ue_spin(mine);
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
void race_quiet(void)
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
		if (uet_gone_within(USER_EVENTS_SYSTEM, race_name[ev],
				    check ? UE_WAIT_MS : SETTLE_MS))
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
void race_cleanup(void)
{
	if (rc.active)
		race_teardown(0);
}

/* Spins that take about as long as a registration, for the head starts */
static unsigned int race_calibrate(void)
{
	static uint64_t word;
	unsigned int pair = uet_spins_per_reg(rc.fd, race_desc[0], &word, 8, 1);

	if (!pair)
		fail("race", "registering a word in .bss: %s", strerror(errno));
	/* a registration, or an unregistration: half a pair */
	return (pair - 1) / 2 + 1;
}

/*
 * munmap(), mremap() and fork() against the enable bit: the test registers,
 * unregisters, attaches consumers and forks while a thread changes the
 * pages of the words, and (mostly) another sends it SIGUSR1 without
 * SA_RESTART. Every errno is predicted or one of a documented few, every
 * page mapped over a word gets no bit but those registered since, and
 * everything goes at the end.
 */
void race_scenario(void)
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
