// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_bits.c: fuzz_test's scenarios of the enable-bit ABI.
 *
 * The enable-bit ABI ("The enable bit" in user_events.rst): registrations
 * through struct user_reg with sizes, tails, enable_size, enable_bit,
 * alignment, flags and addresses (a word, unmapped, read-only, the struct or
 * the description running into PROT_NONE) valid or not, DIAG_IOCSUNREG with
 * good and bad arguments, the status-page ABI on the same events, consumers
 * attached to pages the kernel must fault in, writes (EBADF while nothing
 * listens), fds closed and enablers dropped in random order, a child without
 * CAP_PERFMON. A model of the process's enablers, of the words (every other
 * bit of memory around them must stay as it was) and of each event's
 * references predicts each errno, each word and when each event goes.
 */
#include "fuzz_test.h"

/* The enable-bit ABI -------------------------------------------------------- */

/*
 * Registrations through struct user_reg with every field valid or not,
 * DIAG_IOCSUNREG with good and bad arguments, the status-page ABI on the
 * same events, consumers coming and going and fds closing, in random order.
 * A model of the process's enablers, of every word the kernel may touch (a
 * shadow copy of the memory, random bits and all, so that a write to any
 * other bit shows) and of each event's references predicts the errno of
 * each call, the words after it and when an event goes.
 */

#define BITS_EVENTS	16
#define BITS_NEW_MAX	10		/* events a scenario creates, at most */
#define BITS_ENABLERS	40
#define BITS_FDS	4
#define WRITER		(BITS_FDS - 1)	/* the fd of the write phase, one event */
#define WORD_PAGES	2		/* memfd pages of words; then RO, PROT_NONE */
#define MEM_SLOTS	16		/* 8-byte slots used in them */
#define BSS_SLOTS	8
#define REG_BUF		(3 * 4096)

struct bits_event {
	struct event_desc *d;	/* d->name: its name under events/ */
	char sys[32];		/* user_events or user_events_multi */
	char reg_name[256];	/* the name descriptions give it */
	int multi, persist, stays, gone, has_sidx;
	unsigned int sidx;
	int fds;		/* bit i: bits.fd[i] registered it */
	int ftrace, inst, perf;	/* consumers attached */
};

struct enabler {
	unsigned long addr;
	int bit, size, ev;
};

static struct {
	struct bits_event ev[BITS_EVENTS];
	int nr_ev, created;
	struct enabler en[BITS_ENABLERS];
	int nr_en;
	int fd[BITS_FDS];
	int widx[BITS_FDS][BITS_EVENTS][2];	/* [fd][event][bits ABI?], -1 */
	int zapped;		/* word pages dropped since the last check */
	int active;
} bits;

static unsigned char *words;		/* WORD_PAGES of a memfd, RO, PROT_NONE */
static unsigned char *words_shadow;
static uint64_t bss_words[BSS_SLOTS], bss_shadow[BSS_SLOTS];

/* The model's words ------------------------------------------------------------- */

static int ev_consumers(const struct bits_event *e)
{
	return e->ftrace + e->inst + e->perf;
}

static int ev_enablers(int ev)
{
	int i, n = 0;

	for (i = 0; i < bits.nr_en; i++)
		n += bits.en[i].ev == ev;
	return n;
}

static int ev_refs(int ev)
{
	const struct bits_event *e = &bits.ev[ev];

	return __builtin_popcount(e->fds) + ev_enablers(ev) + ev_consumers(e);
}

/* The shadow byte of the memory bit (@addr, @bit) names, little endian */
static unsigned char *shadow_byte(unsigned long addr, int bit)
{
	unsigned long a = addr + bit / 8, w = (unsigned long)words;
	unsigned long b = (unsigned long)bss_words;

	if (a >= w && a < w + WORD_PAGES * page_size)
		return words_shadow + (a - w);
	if (a >= b && a < b + sizeof(bss_words))
		return (unsigned char *)bss_shadow + (a - b);
	fail("internal", "no shadow for %#lx bit %d", addr, bit);
}

static void shadow_set(unsigned long addr, int bit, int on)
{
	unsigned char *p = shadow_byte(addr, bit);

	if (on)
		*p |= 1 << (bit % 8);
	else
		*p &= ~(1 << (bit % 8));
}

/* The bits of @ev's enablers follow its consumers */
static void shadow_event(int ev)
{
	int i, on = ev_consumers(&bits.ev[ev]) > 0;

	for (i = 0; i < bits.nr_en; i++)
		if (bits.en[i].ev == ev)
			shadow_set(bits.en[i].addr, bits.en[i].bit, on);
}

/* Does an enabler name the memory bit of (@addr, @bit)? */
static int bit_taken(unsigned long addr, int bit)
{
	int i;

	for (i = 0; i < bits.nr_en; i++)
		if (bits.en[i].addr + bits.en[i].bit / 8 == addr + bit / 8 &&
		    bits.en[i].bit % 8 == bit % 8)
			return 1;
	return 0;
}

static int find_enabler(unsigned long addr, int bit)
{
	int i;

	for (i = 0; i < bits.nr_en; i++)
		if (bits.en[i].addr == addr && bits.en[i].bit == bit)
			return i;
	return -1;
}

static void add_enabler(unsigned long addr, int bit, int size, int ev)
{
	struct enabler *en;

	if (bits.nr_en == BITS_ENABLERS)
		fail("internal", "too many enablers");
	en = &bits.en[bits.nr_en++];
	en->addr = addr;
	en->bit = bit;
	en->size = size;
	en->ev = ev;
	shadow_set(addr, bit, ev_consumers(&bits.ev[ev]) > 0);
}

/* The kernel clears the bit of an enabler it drops */
static void drop_enabler(int i)
{
	shadow_set(bits.en[i].addr, bits.en[i].bit, 0);
	bits.en[i] = bits.en[--bits.nr_en];
}

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
	return uet_event_exists(e->sys, e->d->name);
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
	if (!uet_gone_within(e->sys, e->d->name, async ? UE_WAIT_MS : 0))
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

	respace_fields(p, out, size, o);
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
	if (uet_gone_within(USER_EVENTS_SYSTEM, want->name, persist ? SETTLE_MS : UE_WAIT_MS))
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
	if (!uet_gone_within(USER_EVENTS_SYSTEM, want.name, UE_WAIT_MS))
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
void bits_scenario(void)
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
void bits_cleanup(void)
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
		if (!uet_gone_within(e->sys, e->d->name, SETTLE_MS))
			ksft_print_msg("could not delete %s/%s at the end\n", e->sys, e->d->name);
	}
	if (fd >= 0)
		close(fd);
	bits_reset();
}

void bits_setup(void)
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
