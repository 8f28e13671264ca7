// SPDX-License-Identifier: GPL-2.0
/*
 * bits_test: the enable-bit ABI (struct user_reg, DIAG_IOCSUNREG) that
 * Linux 6.4+ clients speak. The kernel keeps one bit of a word in the
 * registering process set while the event has a consumer (ftrace, perf, a
 * BPF program) and clear otherwise, touching nothing else: 4- and 8-byte
 * words, several events in one word, pages absent, swapped out or
 * copy-on-write when a consumer comes, fork(), execve() and exit, munmap()
 * and mprotect() of the word. Then unregistering, every registration error,
 * both ABIs on one event, which events delete themselves and when,
 * USER_EVENT_REG_MULTI_FORMAT, EBADF writes and kernel.user_events_max.
 *
 * Where the kernel may update a word from a worker (the page was not
 * present and writable), the test waits for it (ue_wait_for(): a bound of
 * UE_WAIT_MS times USER_EVENTS_TIMEOUT_SCALE); everywhere else the word
 * must be right when the call that changed it returns.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"
#include "ue_bpf.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define QUIET_MS	300	/* a word that must not change is watched for (scaled) */
#define PATTERN		0xa5c3f00f5a3c0ff0ULL	/* bits a test puts around its bit */
#define EXEC_WAIT	"--bits-exec-wait"	/* argv[1] of the execve() case */
#define MULTI		USER_EVENTS_MULTI_SYSTEM
#define MAX_SYSCTL	"/proc/sys/kernel/user_events_max"

/* Small helpers ------------------------------------------------------------ */

/* The @size-byte word at @addr, read once */
static __u64 word(const void *addr, int size)
{
	if (size == 4)
		return __atomic_load_n((const __u32 *)addr, __ATOMIC_RELAXED);
	return __atomic_load_n((const __u64 *)addr, __ATOMIC_RELAXED);
}

/* Set bit @bit of the word to @on with a plain store (nothing attached) */
static void put_bit(void *addr, int size, int bit, int on)
{
	__u64 v = word(addr, size) & ~(1ULL << bit);

	v |= (__u64)!!on << bit;
	if (size == 4)
		__atomic_store_n((__u32 *)addr, v, __ATOMIC_RELAXED);
	else
		__atomic_store_n((__u64 *)addr, v, __ATOMIC_RELAXED);
}

/* Wait for the word to read @want (a worker may write it late); the last value read */
static __u64 wait_word(const void *addr, int size, __u64 want)
{
	__u64 v;

	ue_wait_for(UE_WAIT_MS, (v = word(addr, size)) == want,
		    "the %d-byte word at %p to read %#llx (it reads %#llx)", size, addr,
		    (unsigned long long)want, (unsigned long long)v);
	return v;
}

/* The word after QUIET_MS (scaled): a late write from a worker would show */
static __u64 quiet_word(const void *addr, int size)
{
	ue_sleep_ms(QUIET_MS);
	return word(addr, size);
}

/* Is the page of @addr in memory? mincore() looks without faulting it in */
static int resident(const void *addr)
{
	unsigned long psz = getpagesize();
	unsigned char vec = 0;

	if (mincore((void *)((unsigned long)addr & ~(psz - 1)), psz, &vec))
		return -1;
	return vec & 1;
}

/* Wait for the kernel to bring the page of @addr in; resident() then */
static int wait_resident(const void *addr)
{
	ue_wait_for(UE_WAIT_MS, resident(addr) == 1,
		    "the page of %p to be brought in (mincore())", addr);
	return resident(addr);
}

/* Write event @widx with a u32 payload @v: the byte count or -errno */
static int emit(int fd, __u32 widx, __u32 v)
{
	__u32 rec[2] = { widx, v };

	return write(fd, rec, sizeof(rec)) < 0 ? -errno : (int)sizeof(rec);
}

/* Names of events/user_events_multi/@name.* in @out; how many there are */
static int multi_dirs(const char *name, char (*out)[64], int max)
{
	DIR *d = opendir(TRACEFS "events/" MULTI);
	size_t len = strlen(name);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, name, len) || de->d_name[len] != '.')
			continue;
		if (n < max)
			snprintf(out[n], sizeof(out[n]), "%.63s", de->d_name);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * How many user events exist: the directories of both systems, and of
 * their "_retired" systems (events deleted while a buffer held their
 * records, which count against kernel.user_events_max until they go)
 */
static int count_user_events(void)
{
	static const char * const dirs[] = {
		TRACEFS "events/user_events", TRACEFS "events/" MULTI,
		TRACEFS "events/user_events_retired", TRACEFS "events/" MULTI "_retired",
	};
	char path[512];
	struct dirent *de;
	struct stat st;
	int i, n = 0;
	DIR *d;

	for (i = 0; i < (int)ARRAY_SIZE(dirs); i++) {
		d = opendir(dirs[i]);
		while (d && (de = readdir(d))) {
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			if (de->d_name[0] != '.' && !stat(path, &st) && S_ISDIR(st.st_mode))
				n++;
		}
		if (d)
			closedir(d);
	}
	return n;
}

/* A BPF program for tracepoints: r0 = 1; exit */
static int bpf_prog(void)
{
	struct bpf_insn insns[] = { MOV_IMM(0, 1), EXIT() };

	return uet_bpf_load(insns, ARRAY_SIZE(insns));
}

/* What a test holds, so that teardown drops it whatever happened ----------- */

#define MAX_EN		16
#define MAX_NAMES	8
#define MAX_FDS		8

struct env {
	int fd;				/* user_events_data */
	char *page;			/* a private page for enable words */
	int nen;			/* enablers registered */
	struct { void *addr; int bit; } en[MAX_EN];
	int nnames;			/* events: disabled and deleted at the end */
	char names[MAX_NAMES][64];
	int fds[MAX_FDS];		/* perf events, more data fds: closed */
	int prog;			/* the BPF program, or -1 */
	pid_t peer;			/* a peer process: killed */
};

static void env_setup(struct __test_metadata *_metadata, struct env *e)
{
	int i;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < MAX_FDS; i++)
		e->fds[i] = -1;
	e->prog = -1;
	e->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, e->fd) TH_LOG("open %s: %s", UE_DATA, strerror(errno));
	e->page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, e->page);
}

static void env_teardown(struct env *e)
{
	char dirs[4][64];
	int i, j, n, fd;

	if (e->peer > 0) {
		kill(e->peer, SIGKILL);
		waitpid(e->peer, NULL, 0);
	}
	for (i = 0; i < MAX_FDS; i++)
		if (e->fds[i] >= 0)
			close(e->fds[i]);
	if (e->prog >= 0)
		close(e->prog);
	for (i = 0; i < e->nnames; i++) {
		uet_enable("", e->names[i], 0);
		n = multi_dirs(e->names[i], dirs, 4);
		for (j = 0; j < n && j < 4; j++)
			uet_enable_in(MULTI, dirs[j], 0);
	}
	for (i = 0; i < e->nen; i++)
		uet_unregister_bits(e->fd, e->en[i].addr, e->en[i].bit);
	close(e->fd);
	/* what stays by itself: status-page, dynamic_events, PERSIST events */
	fd = open(UE_DATA, O_RDWR);
	for (i = 0; i < e->nnames; i++)
		uet_delete(fd, e->names[i]);
	close(fd);
	munmap(e->page, getpagesize());
}

/* Remember the event of @desc ("name[:flags] fields") for teardown */
static void track(struct env *e, const char *desc)
{
	size_t len = strcspn(desc, " :");
	int i;

	for (i = 0; i < e->nnames; i++)
		if (strlen(e->names[i]) == len && !strncmp(e->names[i], desc, len))
			return;
	if (e->nnames < MAX_NAMES && len < sizeof(e->names[0]))
		snprintf(e->names[e->nnames++], sizeof(e->names[0]), "%.*s", (int)len, desc);
}

static void keep_en(struct env *e, void *addr, int bit)
{
	if (e->nen < MAX_EN) {
		e->en[e->nen].addr = addr;
		e->en[e->nen++].bit = bit;
	}
}

/* An fd closed at teardown; @fd itself */
static int keep_fd(struct env *e, int fd)
{
	int i;

	for (i = 0; fd >= 0 && i < MAX_FDS; i++) {
		if (e->fds[i] < 0) {
			e->fds[i] = fd;
			break;
		}
	}
	return fd;
}

static void drop_fd(struct env *e, int fd)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (e->fds[i] == fd)
			e->fds[i] = -1;
	close(fd);
}

/* Register through the enable-bit ABI on @fd; remembered for teardown */
static int reg_on(struct env *e, int fd, const char *desc, void *addr, int size,
		  int bit, int flags, __u32 *widx)
{
	int r = uet_register_bits(fd, desc, addr, size, bit, flags, widx);

	track(e, desc);
	if (!r)
		keep_en(e, addr, bit);
	return r;
}

static int reg(struct env *e, const char *desc, void *addr, int size, int bit,
	       __u32 *widx)
{
	return reg_on(e, e->fd, desc, addr, size, bit, 0, widx);
}

/* Consumers ---------------------------------------------------------------- */

enum { FTRACE, PERF, BPF };

/*
 * A perf event of this task on @system/@name, running the BPF program when
 * @bpf: its fd, or -errno
 */
static int perf_on(struct env *e, const char *system, const char *name, int bpf)
{
	int id = uet_event_id(system, name), fd, err;

	if (id < 0)
		return -ENOENT;
	fd = uet_perf_open(id, 0, -1, 0);
	if (fd < 0)
		return -errno;
	if (bpf) {
		if (e->prog < 0)
			e->prog = bpf_prog();
		if (e->prog < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, e->prog) ||
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
			err = -errno;
			close(fd);
			return err;
		}
	}
	return keep_fd(e, fd);
}

/* Attach consumer @kind to user_events/@name: a handle for off(), or -errno */
static int on(struct env *e, int kind, const char *name)
{
	if (kind == FTRACE)
		return uet_enable("", name, 1);
	return perf_on(e, "user_events", name, kind == BPF);
}

static int off(struct env *e, int kind, const char *name, int handle)
{
	if (kind == FTRACE)
		return uet_enable("", name, 0);
	drop_fd(e, handle);
	return 0;
}

/* A peer process that runs the parent's commands ------------------------ */

/* What a peer works on (its copy, made by fork()) */
struct peer_ctx {
	int fd;				/* user_events_data, inherited */
	void *addr;			/* an 8-byte word */
	const char *desc;		/* what P_REG registers */
	const unsigned char *page;	/* P_SP_REG: the status page */
	struct user_status_reg sp;	/* and its status-page registration */
};

enum {
	P_WAIT,		/* wait for the word to read arg: the last value read */
	P_QUIET,	/* the word after QUIET_MS (scaled) */
	P_READ,		/* the word, read once */
	P_REG,		/* register desc at (addr, bit arg): 0 or -errno */
	P_UNREG,	/* unregister (addr, bit arg) */
	P_EXEC,		/* execve() this program, which waits to be killed */
	P_EXIT,		/* exit */
	P_SP_REG,	/* register desc through the status page: its index */
	P_SP_STATUS,	/* the status byte */
	P_SP_WRITE,	/* write the status-page event with payload arg */
};

#define PEER_GONE LLONG_MIN	/* the peer closed its pipe: exec'd or exited */

static __s64 peer_op(struct peer_ctx *c, int op, __u64 arg)
{
	static const char * const argv[] = { "bits_test", EXEC_WAIT, NULL };
	int r;

	switch (op) {
	case P_WAIT:
		return wait_word(c->addr, 8, arg);
	case P_QUIET:
		return quiet_word(c->addr, 8);
	case P_READ:
		return word(c->addr, 8);
	case P_REG:
		return uet_register_bits(c->fd, c->desc, c->addr, 8, arg, 0, NULL);
	case P_UNREG:
		return uet_unregister_bits(c->fd, c->addr, arg);
	case P_EXEC:
		execv("/proc/self/exe", (char * const *)argv);
		return -errno;
	case P_EXIT:
		_exit(0);
	case P_SP_REG:
		c->page = uet_map_status();
		c->fd = open(UE_DATA, O_RDWR);
		if (!c->page || c->fd < 0)
			return -errno;
		r = uet_register(c->fd, c->desc, &c->sp);
		return r ? r : (__s64)c->sp.status_index;
	case P_SP_STATUS:
		return c->page[c->sp.status_index];
	case P_SP_WRITE:
		return emit(c->fd, c->sp.write_index, arg);
	}
	return -EINVAL;
}

struct peer {
	pid_t pid;
	int cmd, reply;		/* the parent's ends of the two pipes */
};

struct peer_msg {
	int op;
	__u64 arg;
};

/* fork() a peer working on @c; 0 or -1. Its pipes close when it execs. */
static int peer_start(struct env *e, struct peer *p, struct peer_ctx *c)
{
	int to[2], from[2];
	struct peer_msg m;
	__s64 r;

	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (!p->pid) {
		close(to[1]);
		close(from[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (read(to[0], &m, sizeof(m)) == sizeof(m)) {
			r = peer_op(c, m.op, m.arg);
			if (write(from[1], &r, sizeof(r)) != sizeof(r))
				break;
		}
		_exit(0);
	}
	e->peer = p->pid;
	close(to[0]);
	close(from[1]);
	p->cmd = to[1];
	p->reply = from[0];
	return 0;
}

/* Run @op in the peer: its answer, or PEER_GONE */
static __s64 peer_do(struct peer *p, int op, __u64 arg)
{
	struct peer_msg m = { .op = op, .arg = arg };
	__s64 r;

	if (write(p->cmd, &m, sizeof(m)) != sizeof(m) ||
	    read(p->reply, &r, sizeof(r)) != sizeof(r))
		return PEER_GONE;
	return r;
}

/* End the peer (with @sig if not 0): its wait status */
static int peer_stop(struct env *e, struct peer *p, int sig)
{
	int status = -1;

	close(p->cmd);
	close(p->reply);
	if (sig)
		kill(p->pid, sig);
	waitpid(p->pid, &status, 0);
	e->peer = 0;
	return status;
}

/* Fixtures ------------------------------------------------------------------ */

FIXTURE(bits) {
	struct env e;
};

FIXTURE_SETUP(bits)
{
	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;

	env_setup(_metadata, &self->e);
}

FIXTURE_TEARDOWN(bits)
{
	env_teardown(&self->e);
}

/* The bit and its consumers ----------------------------------------------- */

FIXTURE(consumer) {
	struct env e;
};

FIXTURE_VARIANT(consumer) {
	int kind;
};

FIXTURE_VARIANT_ADD(consumer, ftrace) { .kind = FTRACE };
FIXTURE_VARIANT_ADD(consumer, perf) { .kind = PERF };
FIXTURE_VARIANT_ADD(consumer, bpf) { .kind = BPF };

FIXTURE_SETUP(consumer)
{
	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;

	env_setup(_metadata, &self->e);
}

FIXTURE_TEARDOWN(consumer)
{
	env_teardown(&self->e);
}

/*
 * The bit is set when the attach returns and clear when the detach does;
 * an enabler registered while attached is set when the ioctl returns.
 * Writes go through only while attached.
 */
TEST_F(consumer, bit_follows)
{
	__u64 *w = (__u64 *)self->e.page, *late = w + 1;
	__u64 clear = PATTERN & ~(1ULL << 13), set = clear | 1ULL << 13;
	__u32 idx, idx2;
	int i, h;

	*w = set;
	ASSERT_EQ(0, reg(&self->e, "bits_cons u32 v", w, 8, 13, &idx));
	/* nothing attached: the ioctl returns with the bit clear */
	EXPECT_EQ(clear, *w);
	EXPECT_EQ(-EBADF, emit(self->e.fd, idx, 1));
	for (i = 0; i < 2; i++) {
		h = on(&self->e, variant->kind, "bits_cons");
		ASSERT_LE(0, h) TH_LOG("attach: %s", strerror(-h));
		EXPECT_EQ(set, *w);
		*late = 0;
		ASSERT_EQ(0, reg(&self->e, "bits_cons u32 v", late, 8, 0, &idx2));
		EXPECT_EQ(1, *late);
		/* the same event on the same fd: the same write index */
		EXPECT_EQ(idx, idx2);
		EXPECT_EQ(8, emit(self->e.fd, idx, 2));
		ASSERT_EQ(0, off(&self->e, variant->kind, "bits_cons", h));
		EXPECT_EQ(clear, *w);
		EXPECT_EQ(0, *late);
		EXPECT_EQ(-EBADF, emit(self->e.fd, idx, 3));
		ASSERT_EQ(0, uet_unregister_bits(self->e.fd, late, 0));
	}
}

/* Word sizes and bits --------------------------------------------------- */

FIXTURE(word) {
	struct env e;
};

FIXTURE_VARIANT(word) {
	int size;
	int bit;
	int offset;	/* of the word in the page */
};

FIXTURE_VARIANT_ADD(word, u32_bit0) { .size = 4, .bit = 0, .offset = 64 };
FIXTURE_VARIANT_ADD(word, u32_bit31) { .size = 4, .bit = 31, .offset = 68 };
FIXTURE_VARIANT_ADD(word, u64_bit0) { .size = 8, .bit = 0, .offset = 64 };
FIXTURE_VARIANT_ADD(word, u64_bit63) { .size = 8, .bit = 63, .offset = 72 };

FIXTURE_SETUP(word)
{
	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;

	env_setup(_metadata, &self->e);
}

FIXTURE_TEARDOWN(word)
{
	env_teardown(&self->e);
}

/* Only the bit changes: every other bit of the page keeps its value */
TEST_F(word, only_its_bit)
{
	static const unsigned char fills[] = { 0x00, 0xff, 0xa5 };
	long psz = getpagesize();
	char *p = self->e.page, *ref = malloc(psz);
	void *w = p + variant->offset, *rw = ref + variant->offset;
	int i;

	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, reg(&self->e, "bits_word u32 v", w, variant->size, variant->bit, NULL));
	for (i = 0; i < (int)sizeof(fills); i++) {
		memset(p, fills[i], psz);
		put_bit(w, variant->size, variant->bit, 0);
		memcpy(ref, p, psz);
		ASSERT_EQ(0, uet_enable("", "bits_word", 1));
		put_bit(rw, variant->size, variant->bit, 1);
		EXPECT_EQ(0, memcmp(ref, p, psz))
			TH_LOG("fill %#x, enabled: word %#llx", fills[i],
			       (unsigned long long)word(w, variant->size));
		ASSERT_EQ(0, uet_enable("", "bits_word", 0));
		put_bit(rw, variant->size, variant->bit, 0);
		EXPECT_EQ(0, memcmp(ref, p, psz))
			TH_LOG("fill %#x, disabled: word %#llx", fills[i],
			       (unsigned long long)word(w, variant->size));
	}
	free(ref);
}

/*
 * Several events in one word (one of them twice): each bit follows its own
 * event's consumers, the other bits of the word stay as they were
 */
TEST_F(bits, several_events_one_word)
{
	static const char * const names[3] = { "bits_sh0", "bits_sh1", "bits_sh2" };
	static const char * const descs[3] = {
		"bits_sh0 u32 v", "bits_sh1 u32 v", "bits_sh2 u64 v",
	};
	/* event 0 has bits 1 and 20, event 1 bit 7, event 2 bit 30 */
	static const __u32 mask[3] = { 1U << 1 | 1U << 20, 1U << 7, 1U << 30 };
	static const int kind[3] = { FTRACE, PERF, BPF };
	/* which event's consumer comes (or goes, if it is there) at each step */
	static const int steps[] = { 0, 1, 2, 0, 1, 0, 2, 1, 1, 0 };
	__u32 *w = (__u32 *)self->e.page, base, want;
	int h[3] = { -1, -1, -1 }, s, x;

	memset(self->e.page, 0x5a, 16);
	base = *w & ~(mask[0] | mask[1] | mask[2]);
	*w = base;
	ASSERT_EQ(0, reg(&self->e, descs[0], w, 4, 1, NULL));
	ASSERT_EQ(0, reg(&self->e, descs[0], w, 4, 20, NULL));
	ASSERT_EQ(0, reg(&self->e, descs[1], w, 4, 7, NULL));
	ASSERT_EQ(0, reg(&self->e, descs[2], w, 4, 30, NULL));
	ASSERT_EQ(base, *w);
	for (s = 0; s < (int)ARRAY_SIZE(steps); s++) {
		x = steps[s];
		if (h[x] < 0) {
			h[x] = on(&self->e, kind[x], names[x]);
			ASSERT_LE(0, h[x]) TH_LOG("step %d: %s", s, strerror(-h[x]));
		} else {
			ASSERT_EQ(0, off(&self->e, kind[x], names[x], h[x]));
			h[x] = -1;
		}
		want = base;
		for (x = 0; x < 3; x++)
			if (h[x] >= 0)
				want |= mask[x];
		EXPECT_EQ(want, *w) TH_LOG("step %d", s);
		/* the word after it is another word */
		EXPECT_EQ(0x5a5a5a5a, w[1]);
	}
}

/* Pages not present and writable when a consumer comes -------------------- */

/*
 * The page is absent (MADV_DONTNEED after registering) when ftrace enables
 * the event: the kernel faults it in and sets the bit shortly after.
 */
TEST_F(bits, absent_page)
{
	long psz = getpagesize();
	char *m = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__u64 *w = (__u64 *)(m + 128);

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, reg(&self->e, "bits_absent u32 v", w, 8, 5, NULL));
	ASSERT_EQ(0, madvise(m, psz, MADV_DONTNEED));
	ASSERT_EQ(0, resident(m));
	ASSERT_EQ(0, uet_enable("", "bits_absent", 1));
	/* not touched here: the kernel brought the page in */
	EXPECT_EQ(1, wait_resident(m));
	EXPECT_EQ(1ULL << 5, wait_word(w, 8, 1ULL << 5));
	/* present now: cleared when the disable returns */
	ASSERT_EQ(0, uet_enable("", "bits_absent", 0));
	EXPECT_EQ(0, *w);
	munmap(m, psz);
}

/*
 * The page is copy-on-write in both processes after fork(): each sees its
 * own bit set after the enable, and cleared after the disable
 */
TEST_F(bits, fork_then_enable)
{
	__u64 *w = (__u64 *)(self->e.page + 128);
	__u64 clear = PATTERN & ~(1ULL << 4), set = clear | 1ULL << 4;
	struct peer_ctx c = { .fd = self->e.fd, .addr = w };
	struct peer p;
	int i;

	*w = clear;
	ASSERT_EQ(0, reg(&self->e, "bits_fork u32 v", w, 8, 4, NULL));
	ASSERT_EQ(0, peer_start(&self->e, &p, &c));
	/* neither process writes the page from here on */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, uet_enable("", "bits_fork", 1));
		EXPECT_EQ(set, wait_word(w, 8, set)) TH_LOG("parent, round %d", i);
		EXPECT_EQ(set, peer_do(&p, P_WAIT, set)) TH_LOG("child, round %d", i);
		ASSERT_EQ(0, uet_enable("", "bits_fork", 0));
		EXPECT_EQ(clear, wait_word(w, 8, clear)) TH_LOG("parent, round %d", i);
		EXPECT_EQ(clear, peer_do(&p, P_WAIT, clear)) TH_LOG("child, round %d", i);
	}
	EXPECT_EQ(0, peer_stop(&self->e, &p, 0));
}

/*
 * Private anonymous memory that fork() left copy-on-write in both processes
 * has its bits right when the enable and the disable return, no worker
 * waited for: the kernel takes the write fault that gives each process its
 * page. Also once the child is gone and the parent's page is still
 * write-protected (Linux 6.12's abi_test forks reads it at once).
 */
TEST_F(bits, fork_cow_page_at_once)
{
	/* enable and disable, with the child there and once it is gone */
	static const struct { int shared, on; } step[] = {
		{ 1, 1 }, { 0, 0 }, { 0, 1 }, { 1, 0 },
	};
	long psz = getpagesize();
	char *m = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__u64 *w = (__u64 *)(m + 64);
	__u64 clear = PATTERN & ~(1ULL << 6), set = clear | 1ULL << 6;
	struct peer_ctx c = { .fd = self->e.fd, .addr = w };
	struct peer p;
	size_t i;

	ASSERT_NE(MAP_FAILED, m);
	*w = clear;
	ASSERT_EQ(0, reg(&self->e, "bits_cow u32 v", w, 8, 6, NULL));
	for (i = 0; i < ARRAY_SIZE(step); i++) {
		/* neither process writes the page from here on */
		ASSERT_EQ(0, peer_start(&self->e, &p, &c));
		if (!step[i].shared)
			EXPECT_EQ(0, peer_stop(&self->e, &p, 0));
		ASSERT_EQ(0, uet_enable("", "bits_cow", step[i].on));
		EXPECT_EQ(step[i].on ? set : clear, word(w, 8)) TH_LOG("step %zu", i);
		if (!step[i].shared)
			continue;
		EXPECT_EQ(step[i].on ? set : clear, peer_do(&p, P_READ, 0)) TH_LOG("step %zu", i);
		EXPECT_EQ(0, peer_stop(&self->e, &p, 0));
	}
	munmap(m, psz);
}

/*
 * The child's enablers are its own copies: the inherited one is taken
 * (EADDRINUSE), dropping it in the child leaves the parent's, and one the
 * child adds is not the parent's
 */
TEST_F(bits, fork_child_owns_copies)
{
	__u64 *w = (__u64 *)(self->e.page + 128);
	__u64 clear = PATTERN & ~(3ULL << 4), set = clear | 1ULL << 4;
	__u64 child_set = clear | 1ULL << 5;
	struct peer_ctx c = { .fd = self->e.fd, .addr = w, .desc = "bits_fork2 u32 v" };
	struct peer p;

	*w = clear;
	ASSERT_EQ(0, reg(&self->e, "bits_fork2 u32 v", w, 8, 4, NULL));
	ASSERT_EQ(0, peer_start(&self->e, &p, &c));
	EXPECT_EQ(-EADDRINUSE, peer_do(&p, P_REG, 4));
	EXPECT_EQ(0, peer_do(&p, P_REG, 5));
	EXPECT_EQ(0, peer_do(&p, P_UNREG, 4));
	ASSERT_EQ(0, uet_enable("", "bits_fork2", 1));
	EXPECT_EQ(set, wait_word(w, 8, set));
	EXPECT_EQ(child_set, peer_do(&p, P_WAIT, child_set));
	/* neither writes the other's bit, late either */
	EXPECT_EQ(child_set, peer_do(&p, P_QUIET, 0));
	EXPECT_EQ(set, quiet_word(w, 8));
	ASSERT_EQ(0, uet_enable("", "bits_fork2", 0));
	EXPECT_EQ(clear, wait_word(w, 8, clear));
	EXPECT_EQ(clear, peer_do(&p, P_WAIT, clear));
	/* the child's bit 5 is not the parent's to drop */
	EXPECT_EQ(-ENOENT, uet_unregister_bits(self->e.fd, w, 5));
	EXPECT_EQ(0, peer_stop(&self->e, &p, 0));
}

/*
 * After the peer's execve() (@exec) or exit, the word its enabler named
 * (shared with this process) is never written again, whatever it holds
 */
static void check_dropped(struct __test_metadata *_metadata, struct env *e, int exec)
{
	__u64 *shared = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	__u64 *ctl = (__u64 *)e->page, fill;
	struct peer_ctx c = { .fd = e->fd, .addr = shared, .desc = "bits_gone u32 v" };
	struct peer p;
	int i;

	ASSERT_NE(MAP_FAILED, shared);
	/* this process holds the event, and its bit shows the toggles happen */
	ASSERT_EQ(0, reg(e, "bits_gone u32 v", ctl, 8, 0, NULL));
	*shared = 0;
	ASSERT_EQ(0, peer_start(e, &p, &c));
	ASSERT_EQ(0, peer_do(&p, P_REG, 3));
	ASSERT_EQ(0, uet_enable("", "bits_gone", 1));
	EXPECT_EQ(1ULL << 3, wait_word(shared, 8, 1ULL << 3));
	ASSERT_EQ(0, uet_enable("", "bits_gone", 0));
	EXPECT_EQ(0, wait_word(shared, 8, 0));

	ASSERT_EQ(PEER_GONE, peer_do(&p, exec ? P_EXEC : P_EXIT, 0))
		TH_LOG("%s failed", exec ? "execve" : "exit");
	if (!exec)
		EXPECT_EQ(0, peer_stop(e, &p, 0));
	for (i = 0; i < 2; i++) {
		fill = i ? ~0ULL : 0;
		*shared = fill;
		ASSERT_EQ(0, uet_enable("", "bits_gone", 1));
		EXPECT_EQ(1, *ctl);
		EXPECT_EQ(fill, quiet_word(shared, 8));
		ASSERT_EQ(0, uet_enable("", "bits_gone", 0));
		EXPECT_EQ(0, *ctl);
		EXPECT_EQ(fill, quiet_word(shared, 8));
	}
	if (exec)
		EXPECT_EQ(SIGKILL, WTERMSIG(peer_stop(e, &p, SIGKILL)));
	munmap(shared, getpagesize());
}

TEST_F(bits, execve_drops_enablers)
{
	check_dropped(_metadata, &self->e, 1);
}

TEST_F(bits, exit_drops_enablers)
{
	check_dropped(_metadata, &self->e, 0);
}

struct thread_reg {
	int fd;
	void *addr;
	int ret;
};

static void *register_and_exit(void *arg)
{
	struct thread_reg *t = arg;

	t->ret = uet_register_bits(t->fd, "bits_thread u32 v", t->addr, 8, 2, 0, NULL);
	return NULL;
}

/* An enabler is the process's: it outlives the thread that registered it */
TEST_F(bits, thread_exit_keeps_enabler)
{
	__u64 *w = (__u64 *)self->e.page;
	struct thread_reg t = { .fd = self->e.fd, .addr = w };
	pthread_t th;

	track(&self->e, "bits_thread");
	ASSERT_EQ(0, pthread_create(&th, NULL, register_and_exit, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, t.ret);
	keep_en(&self->e, w, 2);
	ASSERT_EQ(0, uet_enable("", "bits_thread", 1));
	EXPECT_EQ(1ULL << 2, *w);
	EXPECT_EQ(0, uet_unregister_bits(self->e.fd, w, 2));
	EXPECT_EQ(0, *w);
}

struct fork_thread {
	__u64 *w;
	int go[2];
	pid_t pid;
};

/* Forks when told: a child whose copy of the word must get bit 6 */
static void *fork_when_told(void *arg)
{
	struct fork_thread *f = arg;
	char c;

	f->pid = -1;
	if (read(f->go[0], &c, 1) != 1)
		return NULL;
	f->pid = fork();
	if (!f->pid)
		_exit(wait_word(f->w, 8, 1ULL << 6) == 1ULL << 6 ? 0 : 1);
	return NULL;
}

/*
 * The enablers are the memory's: a thread that was there before the
 * registration, and never registered, forks a child that has them
 */
TEST_F(bits, fork_from_other_thread)
{
	__u64 *w = (__u64 *)(self->e.page + 256);
	struct fork_thread f = { .w = w };
	pthread_t th;
	int status;

	*w = 0;
	ASSERT_EQ(0, pipe(f.go));
	ASSERT_EQ(0, pthread_create(&th, NULL, fork_when_told, &f));
	ASSERT_EQ(0, reg(&self->e, "bits_thfork u32 v", w, 8, 6, NULL));
	ASSERT_EQ(1, write(f.go[1], "g", 1));
	ASSERT_EQ(0, pthread_join(th, NULL));
	close(f.go[0]);
	close(f.go[1]);
	ASSERT_LT(0, f.pid);
	ASSERT_EQ(0, uet_enable("", "bits_thfork", 1));
	ASSERT_EQ(f.pid, waitpid(f.pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(1ULL << 6, *w);
	ASSERT_EQ(0, uet_enable("", "bits_thfork", 0));
	EXPECT_EQ(0, *w);
}

/*
 * A vfork() child shares its parent's memory, and with it the memory's
 * enablers: its unregister removes the parent's, and the bit it registers
 * stays with the memory after its exit
 */
TEST_F(bits, vfork_child_shares_bits)
{
	__u64 *w = (__u64 *)self->e.page;
	struct user_unreg unreg = {
		.size = sizeof(unreg),
		.disable_bit = 4,
		.disable_addr = (unsigned long)w,
	};
	struct user_reg r = {
		.size = sizeof(r),
		.enable_bit = 5,
		.enable_size = 8,
		.enable_addr = (unsigned long)w,
		.name_args = (unsigned long)"bits_vfork2 u32 v",
	};
	int status;
	pid_t pid;

	ASSERT_EQ(0, reg(&self->e, "bits_vfork u32 v", w, 8, 4, NULL));
	track(&self->e, "bits_vfork2");
	pid = vfork();
	if (!pid)
		_exit(ioctl(self->e.fd, DIAG_IOCSREG, &r) ? 1 :
		      ioctl(self->e.fd, DIAG_IOCSUNREG, &unreg) ? 2 : 0);
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	keep_en(&self->e, w, 5);
	/* bit 4 is not the memory's any more: never written */
	ASSERT_EQ(0, uet_enable("", "bits_vfork", 1));
	EXPECT_EQ(0, *w);
	/* the child's bit 5 follows its event */
	ASSERT_EQ(0, uet_enable("", "bits_vfork2", 1));
	EXPECT_EQ(1ULL << 5, *w);
	ASSERT_EQ(0, uet_enable("", "bits_vfork2", 0));
	EXPECT_EQ(0, *w);
}

/* munmap() and mprotect(PROT_READ) of the word ------------------------- */

/*
 * A read-only word is not written: the bit set before mprotect() stays set
 * after the disable, the one of another event stays clear after its
 * enable, and a new registration there is refused
 */
TEST_F(bits, mprotect_read_only_not_written)
{
	long psz = getpagesize();
	char *m = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__u64 *w = (__u64 *)m, *ctl = (__u64 *)self->e.page, frozen;

	ASSERT_NE(MAP_FAILED, m);
	*w = PATTERN & ~(7ULL << 6);
	ASSERT_EQ(0, reg(&self->e, "bits_ro u32 v", w, 8, 6, NULL));
	ASSERT_EQ(0, reg(&self->e, "bits_ro2 u32 v", w, 8, 8, NULL));
	/* a writable control word: shows the consumers come and go */
	ASSERT_EQ(0, reg(&self->e, "bits_ro2 u32 v", ctl, 8, 0, NULL));
	ASSERT_EQ(0, uet_enable("", "bits_ro", 1));
	frozen = *w;
	ASSERT_EQ((PATTERN & ~(7ULL << 6)) | 1ULL << 6, frozen);
	ASSERT_EQ(0, mprotect(m, psz, PROT_READ));
	ASSERT_EQ(0, uet_enable("", "bits_ro", 0));
	EXPECT_EQ(frozen, *w);
	ASSERT_EQ(0, uet_enable("", "bits_ro2", 1));
	EXPECT_EQ(1, *ctl);
	EXPECT_EQ(frozen, quiet_word(w, 8));
	ASSERT_EQ(0, uet_enable("", "bits_ro2", 0));
	EXPECT_EQ(0, *ctl);
	EXPECT_EQ(-EFAULT, reg(&self->e, "bits_ro u32 v", w, 8, 7, NULL));
	EXPECT_EQ(frozen, quiet_word(w, 8));
	munmap(m, psz);
}

/*
 * A word the kernel can never write, in a shared mapping of a memfd past
 * the file's end (a store there is SIGBUS), is refused with EFAULT and
 * nothing is left registered: DIAG_IOCSUNREG finds nothing. Once the file
 * covers the word, the same registration is taken and the bit follows
 * its consumer.
 */
TEST_F(bits, word_past_end_of_file)
{
	long psz = getpagesize();
	int mfd = memfd_create("bits_eof", 0);
	__u64 *w;

	ASSERT_LE(0, mfd);
	w = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, w);
	EXPECT_EQ(-EFAULT, reg(&self->e, "bits_eof u32 v", w, 8, 3, NULL));
	EXPECT_EQ(-ENOENT, uet_unregister_bits(self->e.fd, w, 3));
	ASSERT_EQ(0, ftruncate(mfd, psz));
	ASSERT_EQ(0, reg(&self->e, "bits_eof u32 v", w, 8, 3, NULL));
	ASSERT_EQ(0, uet_enable("", "bits_eof", 1));
	EXPECT_EQ(1ULL << 3, *w);
	ASSERT_EQ(0, uet_enable("", "bits_eof", 0));
	EXPECT_EQ(0, *w);
	EXPECT_EQ(0, uet_unregister_bits(self->e.fd, w, 3));
	munmap(w, psz);
	close(mfd);
}

/*
 * Register bit 9 of a word in a fresh mapping and a control bit 0 in the
 * env page, enable, then munmap() the word's page: its address
 */
static __u64 *unmapped_word(struct __test_metadata *_metadata, struct env *e)
{
	long psz = getpagesize();
	__u64 *w = mmap(NULL, psz, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, w);
	ASSERT_EQ(0, reg(e, "bits_unmap u32 v", w, 8, 9, NULL));
	ASSERT_EQ(0, reg(e, "bits_unmap u32 v", e->page, 8, 0, NULL));
	ASSERT_EQ(0, uet_enable("", "bits_unmap", 1));
	ASSERT_EQ(1ULL << 9, *w);
	ASSERT_EQ(0, munmap(w, psz));
	return w;
}

/*
 * After munmap() of the word the consumers come and go without a fault or
 * a splat (the run fails on any); the control bit shows they did
 */
TEST_F(bits, munmap_then_toggle)
{
	__u64 *ctl = (__u64 *)self->e.page;
	int i;

	unmapped_word(_metadata, &self->e);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, uet_enable("", "bits_unmap", 0));
		EXPECT_EQ(0, *ctl);
		ASSERT_EQ(0, uet_enable("", "bits_unmap", 1));
		EXPECT_EQ(1, *ctl);
	}
}

/*
 * What is mapped at the address after munmap() is not the word that was
 * named: neither the clear (bit 9 is set in 0x13..) nor the set (clear in
 * 0x11..) reaches it
 */
TEST_F(bits, munmap_then_remap_untouched)
{
	long psz = getpagesize();
	__u64 *w = unmapped_word(_metadata, &self->e), *ctl = (__u64 *)self->e.page;
	char *m = mmap(w, psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	ASSERT_EQ((void *)w, m);
	memset(m, 0x13, psz);
	ASSERT_EQ(0, uet_enable("", "bits_unmap", 0));
	EXPECT_EQ(0, *ctl);
	EXPECT_EQ(0x1313131313131313ULL, quiet_word(w, 8)) TH_LOG("written by the disable");
	memset(m, 0x11, psz);
	ASSERT_EQ(0, uet_enable("", "bits_unmap", 1));
	EXPECT_EQ(1, *ctl);
	EXPECT_EQ(0x1111111111111111ULL, quiet_word(w, 8)) TH_LOG("written by the enable");
	munmap(m, psz);
}

/* DIAG_IOCSUNREG ------------------------------------------------------------ */

/* DIAG_IOCSUNREG with a raw struct of @size bytes; 0 or -errno */
static int unreg_raw(int fd, void *addr, int bit, int size, int res, int res2)
{
	union {
		struct user_unreg u;
		char bytes[64];
	} arg;

	memset(&arg, 0, sizeof(arg));
	arg.u.size = size;
	arg.u.disable_bit = bit;
	arg.u.__reserved = res;
	arg.u.__reserved2 = res2;
	arg.u.disable_addr = (unsigned long)addr;
	return ioctl(fd, DIAG_IOCSUNREG, &arg) ? -errno : 0;
}

/*
 * DIAG_IOCSUNREG with a struct of @size bytes in a page-sized buffer, its
 * byte @tail (past 16; 0: none) non-zero; 0 or -errno
 */
static int unreg_big(int fd, void *addr, int bit, __u32 size, int tail)
{
	static union {
		struct user_unreg u;
		char bytes[8192];
	} arg;

	memset(&arg, 0, sizeof(arg));
	arg.u.size = size;
	arg.u.disable_bit = bit;
	arg.u.disable_addr = (unsigned long)addr;
	if (tail)
		arg.bytes[tail] = 1;
	return ioctl(fd, DIAG_IOCSUNREG, &arg) ? -errno : 0;
}

/*
 * Unregistering clears the bit (and only it) and the bit no longer
 * follows the event; refused forms leave the enabler as it was. A larger
 * struct is taken with its bytes past 16 zero, up to a page (E2BIG).
 */
TEST_F(bits, unregister)
{
	__u64 *w = (__u64 *)self->e.page, clear = PATTERN & ~(1ULL << 11);
	int size = sizeof(struct user_unreg);

	*w = clear;
	ASSERT_EQ(0, reg(&self->e, "bits_unreg u32 v", w, 8, 11, NULL));
	ASSERT_EQ(0, uet_enable("", "bits_unreg", 1));
	ASSERT_EQ(clear | 1ULL << 11, *w);

	EXPECT_EQ(16, size);
	EXPECT_EQ(-EINVAL, unreg_raw(self->e.fd, w, 11, size, 1, 0));
	EXPECT_EQ(-EINVAL, unreg_raw(self->e.fd, w, 11, size, 0, 1));
	EXPECT_EQ(-EINVAL, unreg_raw(self->e.fd, w, 11, size, 0, 0x8000));
	EXPECT_EQ(-EINVAL, unreg_raw(self->e.fd, w, 11, 0, 0, 0));
	EXPECT_EQ(-EINVAL, unreg_raw(self->e.fd, w, 11, 8, 0, 0));
	EXPECT_EQ(-EINVAL, unreg_raw(self->e.fd, w, 11, 15, 0, 0));
	EXPECT_EQ(-ENOENT, uet_unregister_bits(self->e.fd, w, 12));
	EXPECT_EQ(-ENOENT, uet_unregister_bits(self->e.fd, w + 1, 11));
	EXPECT_EQ(-ENOENT, uet_unregister_bits(self->e.fd, (char *)w + 4, 11));
	EXPECT_EQ(-E2BIG, unreg_big(self->e.fd, w, 11, 17, 16));
	EXPECT_EQ(-E2BIG, unreg_big(self->e.fd, w, 11, 4096, 4095));
	EXPECT_EQ(-E2BIG, unreg_big(self->e.fd, w, 11, 4097, 0));
	/* all refused: the enabler is still there */
	EXPECT_EQ(clear | 1ULL << 11, *w);
	ASSERT_EQ(0, uet_enable("", "bits_unreg", 0));
	ASSERT_EQ(clear, *w);
	ASSERT_EQ(0, uet_enable("", "bits_unreg", 1));
	ASSERT_EQ(clear | 1ULL << 11, *w);

	EXPECT_EQ(0, unreg_big(self->e.fd, w, 11, 4096, 0));
	EXPECT_EQ(clear, *w);
	ASSERT_EQ(0, uet_enable("", "bits_unreg", 0));
	ASSERT_EQ(0, uet_enable("", "bits_unreg", 1));
	EXPECT_EQ(clear, quiet_word(w, 8));
	EXPECT_EQ(-ENOENT, uet_unregister_bits(self->e.fd, w, 11));
}

/* Registration: what DIAG_IOCSREG accepts and refuses ------------------ */

enum { AT_WORD, AT_PLUS1, AT_PLUS2, AT_PLUS4, AT_UNMAPPED, AT_READONLY };

FIXTURE(reg) {
	struct env e;
	char *ro;	/* a read-only page of 0xff */
	char *gone;	/* an address with nothing mapped */
};

FIXTURE_VARIANT(reg) {
	const char *desc;	/* the description; NULL: "bits_reg u32 v" */
	int long_desc;		/* or "bits_reg u8 a;" padded to this many bytes */
	__u32 size;		/* .size */
	int tail;		/* a non-zero byte at this offset past 28; 0: none */
	int enable_size;
	int bit;
	int at;			/* AT_*: enable_addr */
	int flags;
	int err;		/* the errno expected, 0: success */
};

/* .size, tail, .enable_size, .enable_bit, enable_addr, .flags: errno expected */
#define REG(sz, tl, es, b, a, fl, e) \
	{ .size = sz, .tail = tl, .enable_size = es, .bit = b, .at = a, .flags = fl, .err = e }

FIXTURE_VARIANT_ADD(reg, size28) REG(28, 0, 8, 0, AT_WORD, 0, 0);
FIXTURE_VARIANT_ADD(reg, size29) REG(29, 0, 8, 0, AT_WORD, 0, 0);
FIXTURE_VARIANT_ADD(reg, size32_zero_tail) REG(32, 0, 8, 0, AT_WORD, 0, 0);
FIXTURE_VARIANT_ADD(reg, size4096_zero_tail) REG(4096, 0, 8, 0, AT_WORD, 0, 0);
FIXTURE_VARIANT_ADD(reg, size4097) REG(4097, 0, 8, 0, AT_WORD, 0, E2BIG);
FIXTURE_VARIANT_ADD(reg, size29_tail) REG(29, 28, 8, 0, AT_WORD, 0, E2BIG);
FIXTURE_VARIANT_ADD(reg, size4096_tail) REG(4096, 4095, 8, 0, AT_WORD, 0, E2BIG);
FIXTURE_VARIANT_ADD(reg, size0) REG(0, 0, 8, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, size16) REG(16, 0, 8, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, size23) REG(23, 0, 8, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, size25) REG(25, 0, 8, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, size26) REG(26, 0, 8, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, size27) REG(27, 0, 8, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, enable_size0) REG(28, 0, 0, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, enable_size1) REG(28, 0, 1, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, enable_size2) REG(28, 0, 2, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, enable_size3) REG(28, 0, 3, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, enable_size5) REG(28, 0, 5, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, enable_size16) REG(28, 0, 16, 0, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, u32_bit31) REG(28, 0, 4, 31, AT_PLUS4, 0, 0);
FIXTURE_VARIANT_ADD(reg, u32_bit32) REG(28, 0, 4, 32, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, u64_bit63) REG(28, 0, 8, 63, AT_WORD, 0, 0);
FIXTURE_VARIANT_ADD(reg, u64_bit64) REG(28, 0, 8, 64, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, u64_bit255) REG(28, 0, 8, 255, AT_WORD, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, u64_misaligned4) REG(28, 0, 8, 0, AT_PLUS4, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, u64_misaligned1) REG(28, 0, 8, 0, AT_PLUS1, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, u32_misaligned2) REG(28, 0, 4, 0, AT_PLUS2, 0, EINVAL);
FIXTURE_VARIANT_ADD(reg, unmapped) REG(28, 0, 8, 0, AT_UNMAPPED, 0, EFAULT);
FIXTURE_VARIANT_ADD(reg, read_only) REG(28, 0, 8, 0, AT_READONLY, 0, EFAULT);
FIXTURE_VARIANT_ADD(reg, flag_bit2) REG(28, 0, 8, 0, AT_WORD, USER_EVENT_REG_MAX, EINVAL);
FIXTURE_VARIANT_ADD(reg, flag_bit15) REG(28, 0, 8, 0, AT_WORD, 1 << 15, EINVAL);
FIXTURE_VARIANT_ADD(reg, flags_multi_bit3)
	REG(28, 0, 8, 0, AT_WORD, USER_EVENT_REG_MULTI_FORMAT | 1 << 3, EINVAL);
/* the description's grammar and limits, as through the status page */
FIXTURE_VARIANT_ADD(reg, desc_no_field_name) {
	.desc = "bits_reg u32", .size = 28, .enable_size = 8, .err = EINVAL };
FIXTURE_VARIANT_ADD(reg, desc_long_type) {
	.desc = "bits_reg long v", .size = 28, .enable_size = 8, .err = EINVAL };
FIXTURE_VARIANT_ADD(reg, desc_vtab) {
	.desc = "bits_reg u32\vv", .size = 28, .enable_size = 8, .err = EINVAL };
FIXTURE_VARIANT_ADD(reg, desc_newline) {
	.desc = "bits_reg\nu32\nv", .size = 28, .enable_size = 8, .err = 0 };
FIXTURE_VARIANT_ADD(reg, desc_511_bytes) {
	.long_desc = 511, .size = 28, .enable_size = 8, .err = 0 };
FIXTURE_VARIANT_ADD(reg, desc_512_bytes) {
	.long_desc = 512, .size = 28, .enable_size = 8, .err = E2BIG };

FIXTURE_SETUP(reg)
{
	long psz = getpagesize();

	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;

	env_setup(_metadata, &self->e);
	self->ro = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->ro);
	memset(self->ro, 0xff, psz);
	ASSERT_EQ(0, mprotect(self->ro, psz, PROT_READ));
	self->gone = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->gone);
	ASSERT_EQ(0, munmap(self->gone, psz));
}

FIXTURE_TEARDOWN(reg)
{
	env_teardown(&self->e);
	munmap(self->ro, getpagesize());
}

/*
 * One registration as the variant says: refused with its errno and nothing
 * left behind (no event, the word as it was), or accepted with the bit
 * cleared (nothing attached yet), the tail untouched, the bit following
 * ftrace and the other bits kept
 */
TEST_F(reg, outcome)
{
	static union {
		char buf[8192];
		struct user_reg r;
	} arg;
	struct user_reg *r = &arg.r;
	char *buf = arg.buf, *p = self->e.page, ref[256], desc[600];
	void *at[] = { p + 64, p + 65, p + 66, p + 68, self->gone, self->ro };
	char *addr = at[variant->at], *raddr;
	int size = variant->enable_size == 4 ? 4 : 8, bit = variant->bit % 64, err, i;

	memset(&arg, 0, sizeof(arg));
	r->size = variant->size;
	r->enable_bit = variant->bit;
	r->enable_size = variant->enable_size;
	r->flags = variant->flags;
	r->enable_addr = (unsigned long)addr;
	r->name_args = (unsigned long)(variant->desc ?: "bits_reg u32 v");
	if (variant->long_desc) {
		memset(desc, 0, sizeof(desc));
		memset(desc, ' ', variant->long_desc);
		memcpy(desc, "bits_reg u8 a;", 14);
		r->name_args = (unsigned long)desc;
	}
	r->write_index = 0xdeadbeef;
	if (variant->tail)
		buf[variant->tail] = 1;
	/* the bit set: a registration that goes through clears it */
	memset(p, 0x5a, sizeof(ref));
	if (variant->at <= AT_PLUS4 && (unsigned long)addr % size == 0)
		put_bit(addr, size, bit, 1);
	memcpy(ref, p, sizeof(ref));
	track(&self->e, "bits_reg");

	err = ioctl(self->e.fd, DIAG_IOCSREG, buf) ? errno : 0;
	ASSERT_EQ(variant->err, err) TH_LOG("DIAG_IOCSREG: %s", strerror(err));
	if (err) {
		EXPECT_FALSE(uet_event_exists("user_events", "bits_reg"));
		EXPECT_EQ(0, multi_dirs("bits_reg", NULL, 0));
		EXPECT_EQ(0, memcmp(ref, p, sizeof(ref)));
		EXPECT_EQ(~0ULL, *(__u64 *)self->ro);
		return;
	}
	keep_en(&self->e, addr, bit);
	raddr = ref + (addr - p);
	EXPECT_TRUE(uet_event_exists("user_events", "bits_reg"));
	/* the first event of this fd; write_index at offset 24, nothing past 28 */
	EXPECT_EQ(0, r->write_index);
	for (i = 28; i < (int)variant->size; i++)
		ASSERT_EQ(0, buf[i]) TH_LOG("byte %d of the struct written", i);
	put_bit(raddr, size, bit, 0);
	EXPECT_EQ(0, memcmp(ref, p, sizeof(ref)));
	ASSERT_EQ(0, uet_enable("", "bits_reg", 1));
	put_bit(raddr, size, bit, 1);
	EXPECT_EQ(0, memcmp(ref, p, sizeof(ref)))
		TH_LOG("enabled: word %#llx", (unsigned long long)word(addr, size));
	ASSERT_EQ(0, uet_enable("", "bits_reg", 0));
	put_bit(raddr, size, bit, 0);
	EXPECT_EQ(0, memcmp(ref, p, sizeof(ref)))
		TH_LOG("disabled: word %#llx", (unsigned long long)word(addr, size));
}

/*
 * The same (address, bit) twice in one process, from any fd or for any
 * event, is EADDRINUSE and leaves nothing behind; other bits are free
 */
TEST_F(bits, duplicate_enabler)
{
	__u64 *w = (__u64 *)self->e.page;
	int fd2 = keep_fd(&self->e, open(UE_DATA, O_RDWR));

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, reg(&self->e, "bits_dup u32 v", w, 8, 3, NULL));
	EXPECT_EQ(-EADDRINUSE, reg(&self->e, "bits_dup u32 v", w, 8, 3, NULL));
	EXPECT_EQ(-EADDRINUSE, reg_on(&self->e, fd2, "bits_dup u32 v", w, 8, 3, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, reg(&self->e, "bits_dup u32 v", w, 4, 3, NULL));
	EXPECT_EQ(-EADDRINUSE, reg(&self->e, "bits_dup2 u32 v", w, 8, 3, NULL));
	EXPECT_FALSE(uet_event_exists("user_events", "bits_dup2"));
	/* the same name with other fields */
	EXPECT_EQ(-EADDRINUSE, reg(&self->e, "bits_dup u64 v", w, 8, 5, NULL));
	EXPECT_EQ(0, *w);
	ASSERT_EQ(0, reg(&self->e, "bits_dup u32 v", w, 8, 4, NULL));
	ASSERT_EQ(0, uet_enable("", "bits_dup", 1));
	EXPECT_EQ(1ULL << 3 | 1ULL << 4, *w);
	ASSERT_EQ(0, uet_enable("", "bits_dup", 0));
	EXPECT_EQ(0, *w);
}

/* Both ABIs on one event -------------------------------------------------- */

/*
 * A status-page process and an enable-bit process on one event: ftrace
 * sets the status byte and the bit, both writes reach trace; after the
 * disable both are clear, the bit index gets EBADF and the status-page
 * index is accepted (and records nothing)
 */
TEST_F(bits, both_abis_two_processes)
{
	__u64 *w = (__u64 *)self->e.page;
	struct peer_ctx c = { .desc = "bits_both u32 v" };
	struct peer p;
	__s64 idx;
	__u32 widx;

	track(&self->e, "bits_both");
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, peer_start(&self->e, &p, &c));
	idx = peer_do(&p, P_SP_REG, 0);
	ASSERT_LT(0, idx) TH_LOG("status-page registration: %lld", (long long)idx);
	ASSERT_EQ(0, reg(&self->e, "bits_both u32 v", w, 8, 2, &widx));
	EXPECT_EQ(0, peer_do(&p, P_SP_STATUS, 0));
	EXPECT_EQ(0, *w);

	ASSERT_EQ(0, uet_enable("", "bits_both", 1));
	EXPECT_EQ(1ULL << 2, *w);
	EXPECT_EQ(EVENT_STATUS_FTRACE, peer_do(&p, P_SP_STATUS, 0));
	EXPECT_EQ(8, emit(self->e.fd, widx, 1));
	EXPECT_EQ(8, peer_do(&p, P_SP_WRITE, 2));
	EXPECT_EQ(1, uet_trace_count("bits_both: v=1\n"));
	EXPECT_EQ(1, uet_trace_count("bits_both: v=2\n"));

	ASSERT_EQ(0, uet_enable("", "bits_both", 0));
	EXPECT_EQ(0, *w);
	EXPECT_EQ(0, peer_do(&p, P_SP_STATUS, 0));
	EXPECT_EQ(-EBADF, emit(self->e.fd, widx, 3));
	EXPECT_EQ(8, peer_do(&p, P_SP_WRITE, 4));
	EXPECT_EQ(0, uet_trace_count("bits_both: v=3\n"));
	EXPECT_EQ(0, uet_trace_count("bits_both: v=4\n"));
	EXPECT_EQ(0, peer_stop(&self->e, &p, 0));
}

/* One fd, one event, both ABIs: two write indexes, each with its own rule */
TEST_F(bits, both_abis_one_fd)
{
	__u64 *w = (__u64 *)self->e.page;
	struct user_status_reg sp, sp2;
	__u32 bit_idx, bit_idx2;

	ASSERT_EQ(0, uet_clear_trace());
	track(&self->e, "bits_one");
	ASSERT_EQ(0, uet_register(self->e.fd, "bits_one u32 v", &sp));
	ASSERT_EQ(0, reg(&self->e, "bits_one u32 v", w, 8, 0, &bit_idx));
	EXPECT_NE(sp.write_index, bit_idx);
	/* again through each: the same index each */
	ASSERT_EQ(0, uet_register(self->e.fd, "bits_one u32 v", &sp2));
	ASSERT_EQ(0, reg(&self->e, "bits_one u32 v", w, 8, 1, &bit_idx2));
	EXPECT_EQ(sp.write_index, sp2.write_index);
	EXPECT_EQ(bit_idx, bit_idx2);

	EXPECT_EQ(-EBADF, emit(self->e.fd, bit_idx, 1));
	EXPECT_EQ(8, emit(self->e.fd, sp.write_index, 2));
	ASSERT_EQ(0, uet_enable("", "bits_one", 1));
	EXPECT_EQ(8, emit(self->e.fd, bit_idx, 3));
	EXPECT_EQ(8, emit(self->e.fd, sp.write_index, 4));
	ASSERT_EQ(0, uet_enable("", "bits_one", 0));
	EXPECT_EQ(0, uet_trace_count("bits_one: v=1\n"));
	EXPECT_EQ(0, uet_trace_count("bits_one: v=2\n"));
	EXPECT_EQ(1, uet_trace_count("bits_one: v=3\n"));
	EXPECT_EQ(1, uet_trace_count("bits_one: v=4\n"));
}

/* EBADF while nothing is attached, whichever consumer comes and goes */
TEST_F(bits, ebadf_until_attached)
{
	__u64 *w = (__u64 *)self->e.page;
	__u32 idx, rec[2];
	struct iovec iov[2] = { { &idx, 4 }, { &rec[1], 4 } };
	int p;

	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, reg(&self->e, "bits_ebadf u32 v", w, 8, 0, &idx));
	rec[1] = 5;
	EXPECT_EQ(-EBADF, emit(self->e.fd, idx, 5));
	EXPECT_EQ(-1, writev(self->e.fd, iov, 2));
	EXPECT_EQ(EBADF, errno);
	ASSERT_EQ(0, uet_enable("", "bits_ebadf", 1));
	EXPECT_EQ(8, emit(self->e.fd, idx, 6));
	EXPECT_EQ(8, writev(self->e.fd, iov, 2));
	ASSERT_EQ(0, uet_enable("", "bits_ebadf", 0));
	EXPECT_EQ(-EBADF, emit(self->e.fd, idx, 7));
	p = perf_on(&self->e, "user_events", "bits_ebadf", 0);
	ASSERT_LE(0, p);
	EXPECT_EQ(8, emit(self->e.fd, idx, 8));
	drop_fd(&self->e, p);
	EXPECT_EQ(-EBADF, emit(self->e.fd, idx, 9));
	EXPECT_EQ(1, uet_trace_count("bits_ebadf: v=5\n"));
	EXPECT_EQ(1, uet_trace_count("bits_ebadf: v=6\n"));
	EXPECT_EQ(0, uet_trace_count("bits_ebadf: v=7\n"));
}

/* Event lifetime ------------------------------------------------------------ */

/*
 * An event made through the enable-bit ABI goes when its last fd and
 * enabler do, before the call that dropped the last one returns: closing
 * last, or unregistering last (through another fd)
 */
TEST_F(bits, auto_delete_when_unreferenced)
{
	__u64 *w = (__u64 *)self->e.page;
	int fd2, last;

	for (last = 0; last < 2; last++) {
		fd2 = open(UE_DATA, O_RDWR);
		ASSERT_LE(0, fd2);
		ASSERT_EQ(0, uet_register_bits(fd2, "bits_auto u32 v", w, 8, 0, 0, NULL));
		track(&self->e, "bits_auto");
		ASSERT_TRUE(uet_event_exists("user_events", "bits_auto"));
		if (last == 0) {
			/* the fd goes last */
			ASSERT_EQ(0, uet_unregister_bits(self->e.fd, w, 0));
			EXPECT_TRUE(uet_event_exists("user_events", "bits_auto"));
			close(fd2);
		} else {
			/* the enabler goes last */
			close(fd2);
			EXPECT_TRUE(uet_event_exists("user_events", "bits_auto"));
			ASSERT_EQ(0, uet_unregister_bits(self->e.fd, w, 0));
		}
		EXPECT_FALSE(uet_event_exists("user_events", "bits_auto"))
			TH_LOG("still there after the %s", last ? "unregister" : "close");
	}
}

/* Consumers hold it too; it goes shortly after the last one detaches */
TEST_F(bits, auto_delete_after_last_consumer)
{
	__u64 *w = (__u64 *)self->e.page;
	int fd2 = open(UE_DATA, O_RDWR), p;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, uet_register_bits(fd2, "bits_autoc u32 v", w, 8, 0, 0, NULL));
	track(&self->e, "bits_autoc");
	ASSERT_EQ(0, uet_enable("", "bits_autoc", 1));
	p = perf_on(&self->e, "user_events", "bits_autoc", 0);
	ASSERT_LE(0, p);
	ASSERT_EQ(0, uet_unregister_bits(fd2, w, 0));
	close(fd2);
	EXPECT_TRUE(uet_event_exists("user_events", "bits_autoc"));
	ASSERT_EQ(0, uet_enable("", "bits_autoc", 0));
	ue_sleep_ms(QUIET_MS);
	EXPECT_TRUE(uet_event_exists("user_events", "bits_autoc")) TH_LOG("perf still holds it");
	drop_fd(&self->e, p);
	EXPECT_TRUE(uet_wait_gone("user_events", "bits_autoc", UE_WAIT_MS));
}

/*
 * What holds its trace event holds it too, and tells it nothing when it
 * lets go: an eprobe on it (enabled and disabled first, or never), an
 * enable_event trigger naming it. It goes shortly after that goes.
 */
TEST_F(bits, auto_delete_after_holder)
{
	static const char * const holds[][3] = {
		{ "e:eprobes/bits_autoh_p user_events.bits_autoh", "eprobes/bits_autoh_p",
		  "-:eprobes/bits_autoh_p" },
		{ "e:eprobes/bits_autoh_p user_events.bits_autoh", NULL,
		  "-:eprobes/bits_autoh_p" },
		{ "enable_event:user_events:bits_autoh", NULL,
		  "!enable_event:user_events:bits_autoh" },
	};
	const char *trig = TRACEFS "events/user_events/bits_autoh_src/trigger";
	__u64 *w = (__u64 *)self->e.page;
	char path[256];
	int i, fd2;

	ASSERT_EQ(0, uet_write_file(UE_DYN, "u:bits_autoh_src u32 v", O_APPEND));
	track(&self->e, "bits_autoh_src");
	for (i = 0; i < 3; i++) {
		const char *file = i < 2 ? UE_DYN : trig;

		fd2 = open(UE_DATA, O_RDWR);
		ASSERT_LE(0, fd2);
		ASSERT_EQ(0, uet_register_bits(fd2, "bits_autoh u32 v", w, 8, 0, 0, NULL));
		track(&self->e, "bits_autoh");
		ASSERT_EQ(0, uet_write_file(file, holds[i][0], O_APPEND)) TH_LOG("%s", holds[i][0]);
		if (holds[i][1]) {
			snprintf(path, sizeof(path), TRACEFS "events/%s/enable", holds[i][1]);
			ASSERT_EQ(0, uet_write_file(path, "1", O_TRUNC));
			ASSERT_EQ(0, uet_write_file(path, "0", O_TRUNC));
		}
		ASSERT_EQ(0, uet_unregister_bits(fd2, w, 0));
		close(fd2);
		ue_sleep_ms(QUIET_MS);
		EXPECT_TRUE(uet_event_exists("user_events", "bits_autoh"))
			TH_LOG("%s does not hold it", holds[i][0]);
		ASSERT_EQ(0, uet_write_file(file, holds[i][2], O_APPEND));
		EXPECT_TRUE(uet_wait_gone("user_events", "bits_autoh", UE_WAIT_MS))
			TH_LOG("%s went, and the event stays", holds[i][0]);
	}
}

/* USER_EVENT_REG_PERSIST: it stays unreferenced until DIAG_IOCSDEL */
TEST_F(bits, persist_stays_until_deleted)
{
	__u64 *w = (__u64 *)self->e.page;
	int fd2 = open(UE_DATA, O_RDWR);

	ASSERT_LE(0, fd2);
	track(&self->e, "bits_persist");
	ASSERT_EQ(0, uet_register_bits(fd2, "bits_persist u32 v", w, 8, 0,
				       USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, uet_unregister_bits(fd2, w, 0));
	close(fd2);
	ASSERT_EQ(0, uet_enable("", "bits_persist", 1));
	ASSERT_EQ(0, uet_enable("", "bits_persist", 0));
	ue_sleep_ms(QUIET_MS);
	EXPECT_TRUE(uet_event_exists("user_events", "bits_persist"));
	EXPECT_EQ(0, uet_delete(self->e.fd, "bits_persist"));
	EXPECT_FALSE(uet_event_exists("user_events", "bits_persist"));
}

/*
 * An enabler holds its event as an fd does: with the registering fd
 * closed, a delete is EBUSY until the enabler is unregistered
 */
TEST_F(bits, enabler_holds_event)
{
	__u64 *w = (__u64 *)self->e.page;
	int fd2 = open(UE_DATA, O_RDWR);

	ASSERT_LE(0, fd2);
	track(&self->e, "bits_held");
	ASSERT_EQ(0, uet_write_file(UE_DYN, "u:bits_held u32 v", O_APPEND));
	ASSERT_EQ(0, uet_register_bits(fd2, "bits_held u32 v", w, 8, 0, 0, NULL));
	close(fd2);
	EXPECT_EQ(-EBUSY, uet_delete_named("bits_held"));
	EXPECT_EQ(-EBUSY, uet_write_file(UE_DYN, "-:bits_held", O_APPEND));
	ASSERT_EQ(0, uet_unregister_bits(self->e.fd, w, 0));
	EXPECT_EQ(0, uet_delete_named("bits_held"));
}

/*
 * A child that registered an enable-bit event of its own and exited:
 * once it has been waited for, a delete, a registration of the name and
 * dynamic_events find the event as its exit left it, gone (it had
 * nothing else), without waiting for the kernel's worker
 */
TEST_F(bits, exited_process_event_gone)
{
	struct user_status_reg sp;
	int i, status, fd;
	pid_t pid;

	track(&self->e, "bits_exited");
	for (i = 0; i < 3; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			/* its own fd, closed by the exit */
			fd = open(UE_DATA, O_RDWR);
			_exit(fd < 0 || uet_register_bits(fd, "bits_exited u32 v", self->e.page,
							  8, 0, 0, NULL) ? 1 : 0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ(0, WEXITSTATUS(status));
		if (i == 0) {
			EXPECT_EQ(-ENOENT, uet_delete_named("bits_exited"));
		} else if (i == 1) {
			/* other fields: a new event, no EADDRINUSE */
			fd = open(UE_DATA, O_RDWR);
			ASSERT_LE(0, fd);
			EXPECT_EQ(0, uet_register(fd, "bits_exited u64 w", &sp));
			close(fd);
			EXPECT_EQ(0, uet_delete_named("bits_exited"));
		} else {
			EXPECT_EQ(0, uet_write_file(UE_DYN, "u:bits_exited u64 w", O_APPEND));
			EXPECT_EQ(0, uet_write_file(UE_DYN, "-:bits_exited", O_APPEND));
		}
	}
}

/*
 * Events made by dynamic_events or the status page stay when an enable-bit
 * registration of them is dropped; an auto-deleted event stays once the
 * status page or a PERSIST registration takes it, or dynamic_events
 * registers it: the status page's and dynamic_events' give it a status
 * byte, which the enable bit's event had not
 */
TEST_F(bits, other_creators_keep_events)
{
	__u64 *w = (__u64 *)self->e.page;
	static const char * const names[5] = {
		"bits_kdyn", "bits_ksp", "bits_ksp2", "bits_kpers", "bits_kdyn2",
	};
	struct user_status_reg sp;
	char desc[64], cmd[80], line[80];
	int fd2, i;

	for (i = 0; i < 5; i++) {
		snprintf(desc, sizeof(desc), "%s u32 v", names[i]);
		track(&self->e, desc);
		fd2 = open(UE_DATA, O_RDWR);
		ASSERT_LE(0, fd2);
		snprintf(cmd, sizeof(cmd), "u:%s", desc);
		snprintf(line, sizeof(line), ":%s\n", names[i]);
		if (i == 0)
			ASSERT_EQ(0, uet_write_file(UE_DYN, cmd, O_APPEND));
		if (i == 1)
			ASSERT_EQ(0, uet_register(fd2, desc, &sp));
		ASSERT_EQ(0, uet_register_bits(fd2, desc, w, 8, 0, 0, NULL));
		/* made by the enable bit: no status byte, not listed */
		if (i >= 2)
			EXPECT_EQ(0, uet_count_in(UE_STATUS, line)) TH_LOG("%s", names[i]);
		if (i == 2) {
			sp.status_index = 0;
			ASSERT_EQ(0, uet_register(fd2, desc, &sp));
			EXPECT_NE(0, sp.status_index);
		}
		if (i == 4)
			ASSERT_EQ(0, uet_write_file(UE_DYN, cmd, O_APPEND));
		if (i == 2 || i == 4)
			EXPECT_EQ(1, uet_count_in(UE_STATUS, line)) TH_LOG("%s", names[i]);
		if (i == 3)
			ASSERT_EQ(0, uet_register_bits(fd2, desc, w, 8, 1,
						       USER_EVENT_REG_PERSIST, NULL));
		ASSERT_EQ(0, uet_unregister_bits(fd2, w, 0));
		if (i == 3)
			ASSERT_EQ(0, uet_unregister_bits(fd2, w, 1));
		close(fd2);
		ue_sleep_ms(QUIET_MS);
		EXPECT_TRUE(uet_event_exists("user_events", names[i])) TH_LOG("%s", names[i]);
		EXPECT_EQ(0, uet_delete(self->e.fd, names[i])) TH_LOG("%s", names[i]);
	}
}

/* Unprivileged: PERSIST needs CAP_PERFMON ------------------------------- */

FIXTURE(nobody) {
	struct env e;
	struct stat st[2];	/* of TRACEFS and UE_DATA, restored */
};

FIXTURE_SETUP(nobody)
{
	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;

	env_setup(_metadata, &self->e);
	ASSERT_EQ(0, stat(TRACEFS, &self->st[0]));
	ASSERT_EQ(0, stat(UE_DATA, &self->st[1]));
}

FIXTURE_TEARDOWN(nobody)
{
	chmod(TRACEFS, self->st[0].st_mode & 07777);
	chmod(UE_DATA, self->st[1].st_mode & 07777);
	env_teardown(&self->e);
}

/* As uid 65534 (no capability): 0, or the number of the step that failed */
static int nobody_persist(void *w)
{
	int fd;

	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 1;
	fd = open(UE_DATA, O_RDWR);
	if (fd < 0)
		return 2;
	if (uet_register_bits(fd, "bits_nobody u32 v", w, 8, 0, USER_EVENT_REG_PERSIST,
			      NULL) != -EPERM)
		return 3;
	/* the file is open to it: the same without PERSIST goes through */
	if (uet_register_bits(fd, "bits_nobody u32 v", w, 8, 0, 0, NULL))
		return 4;
	if (uet_unregister_bits(fd, w, 0))
		return 5;
	/* deleting a PERSIST event needs CAP_PERFMON too */
	if (uet_delete(fd, "bits_pers_root") != -EPERM)
		return 6;
	close(fd);
	return 0;
}

TEST_F(nobody, persist_needs_cap_perfmon)
{
	__u64 *w = (__u64 *)self->e.page;
	int fd2 = open(UE_DATA, O_RDWR), status;
	pid_t pid;

	ASSERT_LE(0, fd2);
	track(&self->e, "bits_nobody");
	track(&self->e, "bits_pers_root");
	ASSERT_EQ(0, uet_register_bits(fd2, "bits_pers_root u32 v", w, 8, 1,
				       USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, uet_unregister_bits(fd2, w, 1));
	close(fd2);
	/* what an admin does to let a service in */
	ASSERT_EQ(0, chmod(TRACEFS, 0755));
	ASSERT_EQ(0, chmod(UE_DATA, 0666));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(nobody_persist(w));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("step %d failed", WEXITSTATUS(status));
	/* the refused registration left no PERSIST event behind */
	EXPECT_FALSE(uet_event_exists("user_events", "bits_nobody"));
	EXPECT_TRUE(uet_event_exists("user_events", "bits_pers_root"));
	EXPECT_EQ(0, uet_delete(self->e.fd, "bits_pers_root"));
}

/*
 * In a child that keeps only the capabilities @caps (uid 0 still): a PERSIST
 * registration of bits_capk, then its deletion; 0 when both give @want
 * (0 or -EPERM), else the step that did not
 */
static int persist_with_caps(void *w, __u64 caps, int want)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return 100;
	if (!pid) {
		if (uet_caps_only(caps))
			_exit(1);
		fd = open(UE_DATA, O_RDWR);
		if (fd < 0)
			_exit(2);
		if (uet_register_bits(fd, "bits_capk u32 v", w, 8, 0, USER_EVENT_REG_PERSIST,
				      NULL) != want)
			_exit(3);
		if (!want && uet_unregister_bits(fd, w, 0))
			_exit(4);
		close(fd);
		if (!want)
			_exit(uet_delete_named("bits_capk") ? 5 : 0);
		/* root made it: the child's delete is refused */
		_exit(uet_delete_named("bits_capk") != -EPERM ? 6 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 101;
	return WEXITSTATUS(status);
}

/*
 * CAP_PERFMON alone is enough for PERSIST and for deleting such an event
 * (CAP_SYS_ADMIN too, as wherever the kernel asks for CAP_PERFMON); root
 * without either gets EPERM for both
 */
TEST_F(nobody, persist_with_cap_perfmon_only)
{
	__u64 *w = (__u64 *)self->e.page;
	int fd2;

	track(&self->e, "bits_capk");
	EXPECT_EQ(0, persist_with_caps(w, 1ULL << CAP_PERFMON, 0));
	EXPECT_FALSE(uet_event_exists("user_events", "bits_capk"));
	EXPECT_EQ(0, persist_with_caps(w, 1ULL << CAP_SYS_ADMIN, 0));
	EXPECT_FALSE(uet_event_exists("user_events", "bits_capk"));
	fd2 = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, uet_register_bits(fd2, "bits_capk u32 v", w, 8, 1,
				       USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, uet_unregister_bits(fd2, w, 1));
	close(fd2);
	EXPECT_EQ(0, persist_with_caps(w, 1ULL << CAP_DAC_OVERRIDE, -EPERM));
	EXPECT_TRUE(uet_event_exists("user_events", "bits_capk"));
	EXPECT_EQ(0, uet_delete(self->e.fd, "bits_capk"));
}

/* USER_EVENT_REG_MULTI_FORMAT ----------------------------------------------- */

/* The line of trace with @needle contains @what */
static int trace_line_has(const char *needle, const char *what)
{
	char *trace = uet_read_file(TRACEFS "trace"), *p, *end;
	int ok = 0;

	p = trace ? strstr(trace, needle) : NULL;
	if (p) {
		end = strchr(p, '\n');
		while (p > trace && p[-1] != '\n')
			p--;
		if (end)
			*end = '\0';
		ok = !!strstr(p, what);
	}
	free(trace);
	return ok;
}

/*
 * Two formats under one name are two events user_events_multi/name.<id>;
 * the same format again is the same event; the name without the flag is
 * a third, in user_events. Writes land under the right one.
 */
TEST_F(bits, multi_format)
{
	char dirs[4][64], left[4][64], want[80];
	__u64 *w = (__u64 *)self->e.page, bits[2];
	__u64 bval = 0x123456789ULL;
	__u32 ia, ib, ia2;
	char rec_b[12];
	int i, a = -1, b = -1;

	ASSERT_EQ(0, uet_clear_trace());
	track(&self->e, "bits_mf");
	ASSERT_EQ(0, reg_on(&self->e, self->e.fd, "bits_mf u32 a", w, 8, 0,
			    USER_EVENT_REG_MULTI_FORMAT, &ia));
	ASSERT_EQ(0, reg_on(&self->e, self->e.fd, "bits_mf u64 b", w, 8, 1,
			    USER_EVENT_REG_MULTI_FORMAT, &ib));
	ASSERT_EQ(0, reg_on(&self->e, self->e.fd, "bits_mf u32 a", w, 8, 2,
			    USER_EVENT_REG_MULTI_FORMAT, &ia2));
	ASSERT_EQ(0, reg(&self->e, "bits_mf u32 a", w, 8, 3, NULL));
	EXPECT_EQ(ia, ia2);
	EXPECT_NE(ia, ib);
	ASSERT_EQ(2, multi_dirs("bits_mf", dirs, 4));
	EXPECT_TRUE(uet_event_exists("user_events", "bits_mf"));

	/* which registrations each directory's enable reaches */
	for (i = 0; i < 2; i++) {
		char *end;

		strtoull(dirs[i] + strlen("bits_mf."), &end, 16);
		EXPECT_TRUE(*end == '\0' && end > dirs[i] + strlen("bits_mf."))
			TH_LOG("%s: not name.<hex id>", dirs[i]);
		ASSERT_EQ(0, uet_enable_in(MULTI, dirs[i], 1));
		bits[i] = *w;
		ASSERT_EQ(0, uet_enable_in(MULTI, dirs[i], 0));
		EXPECT_EQ(0, *w);
		if (bits[i] == 5)
			a = i;
		else if (bits[i] == 2)
			b = i;
	}
	ASSERT_TRUE(a >= 0 && b >= 0)
		TH_LOG("bits set by %s: %#llx, by %s: %#llx", dirs[0],
		       (unsigned long long)bits[0], dirs[1], (unsigned long long)bits[1]);
	ASSERT_EQ(0, uet_enable("", "bits_mf", 1));
	EXPECT_EQ(8, *w);
	ASSERT_EQ(0, uet_enable("", "bits_mf", 0));

	ASSERT_EQ(0, uet_enable_in(MULTI, dirs[a], 1));
	ASSERT_EQ(0, uet_enable_in(MULTI, dirs[b], 1));
	EXPECT_EQ(8, emit(self->e.fd, ia, 7));
	memcpy(rec_b, &ib, 4);
	memcpy(rec_b + 4, &bval, 8);
	EXPECT_EQ(12, write(self->e.fd, rec_b, sizeof(rec_b)));
	snprintf(want, sizeof(want), "%s:", dirs[a]);
	EXPECT_TRUE(trace_line_has(" a=7\n", want)) TH_LOG("no '%s a=7' in trace", want);
	snprintf(want, sizeof(want), "%s:", dirs[b]);
	EXPECT_TRUE(trace_line_has(" b=4886718345\n", want))
		TH_LOG("no '%s b=4886718345' in trace", want);
	ASSERT_EQ(0, uet_enable_in(MULTI, dirs[a], 0));
	ASSERT_EQ(0, uet_enable_in(MULTI, dirs[b], 0));

	/*
	 * Made through this ABI: they go with the last reference, but for
	 * the two whose records are in the trace buffer, which stay until
	 * deleted on purpose
	 */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, uet_unregister_bits(self->e.fd, w, i));
	close(self->e.fd);
	self->e.fd = open(UE_DATA, O_RDWR);
	self->e.nen = 0;
	EXPECT_FALSE(uet_event_exists("user_events", "bits_mf"));
	ASSERT_EQ(2, multi_dirs("bits_mf", left, 4));
	/* still decoded, by the name of the event that wrote it */
	snprintf(want, sizeof(want), "%s:", dirs[a]);
	EXPECT_TRUE(trace_line_has(" a=7\n", want)) TH_LOG("no '%s a=7' in trace", want);
	/* deleted on purpose: retired, their format under user_events_multi_retired */
	for (i = 0; i < 2; i++) {
		char path[512];
		int id = uet_event_id(MULTI, left[i]);

		EXPECT_LT(0, id);
		EXPECT_EQ(0, uet_delete(self->e.fd, left[i])) TH_LOG("%s", left[i]);
		uet_retired_dir("", MULTI, left[i], id, path, sizeof(path) - 8);
		strcat(path, "/format");
		EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s: %s", path, strerror(errno));
	}
	EXPECT_EQ(0, multi_dirs("bits_mf", left, 4));
}

/* The longest name of an event (Documentation/trace/user_events.rst) */
#define LONGEST		255

/* How many multi-format events of the name of @len 'L's; the first in @full */
static int long_multi_name(size_t len, char *full, size_t size)
{
	DIR *d = opendir(TRACEFS "events/" MULTI);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d))) {
		size_t l = strspn(de->d_name, "L");

		if (l == len && de->d_name[l] == '.' && !n++)
			snprintf(full, size, "%s", de->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * A multi-format event of the longest name, 255 bytes, is name.<id>: its
 * whole name reaches it through DIAG_IOCSDEL and dynamic_events alike
 */
TEST_F(bits, multi_format_longest_name)
{
	char desc[300], full[2][300], line[400];
	__u64 *w = (__u64 *)self->e.page;
	__u32 idx;
	int i;

	for (i = 0; i < 2; i++) {
		/* two names of 255 bytes, told apart by their fields */
		memset(desc, 'L', LONGEST);
		snprintf(desc + LONGEST, sizeof(desc) - LONGEST, " u32 f%d", i);
		ASSERT_EQ(0, reg_on(&self->e, self->e.fd, desc, w, 8, i,
				    USER_EVENT_REG_MULTI_FORMAT | USER_EVENT_REG_PERSIST,
				    &idx));
		ASSERT_EQ(0, uet_unregister_bits(self->e.fd, w, i));
	}
	ASSERT_EQ(2, long_multi_name(LONGEST, full[0], sizeof(full[0])));
	/* persistent: they stay; the fd's references go with it */
	close(self->e.fd);
	self->e.fd = open(UE_DATA, O_RDWR);
	self->e.nen = 0;
	ASSERT_LE(0, self->e.fd);
	EXPECT_LT(LONGEST + 1, strlen(full[0]));
	EXPECT_EQ(0, uet_delete(self->e.fd, full[0])) TH_LOG("%s", full[0]);
	EXPECT_FALSE(uet_event_exists(MULTI, full[0]));
	ASSERT_EQ(1, long_multi_name(LONGEST, full[1], sizeof(full[1])));
	snprintf(line, sizeof(line), "-:" MULTI "/%s", full[1]);
	EXPECT_EQ(0, uet_write_file(UE_DYN, line, O_APPEND)) TH_LOG("%s", line);
	EXPECT_EQ(0, long_multi_name(LONGEST, full[1], sizeof(full[1])));
}

/* kernel.user_events_max ------------------------------------------------- */

FIXTURE(sysctl) {
	struct env e;
	char saved[32];
};

FIXTURE_SETUP(sysctl)
{
	char *text;

	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;

	env_setup(_metadata, &self->e);
	text = uet_read_file(MAX_SYSCTL);
	ASSERT_NE(NULL, text) TH_LOG("%s: %s", MAX_SYSCTL, strerror(errno));
	snprintf(self->saved, sizeof(self->saved), "%s", text);
	free(text);
	/*
	 * retired events whose records earlier tests left in the buffer: gone
	 * with them, or (in an instance) staying through the test, counted
	 */
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, uet_reclaim_retired());
}

FIXTURE_TEARDOWN(sysctl)
{
	EXPECT_EQ(0, uet_write_file(MAX_SYSCTL, self->saved, O_TRUNC));
	env_teardown(&self->e);
}

/*
 * 32768 by default; lowered to what exists + 2, the third new event is
 * EMFILE through either ABI and leaves nothing; existing events still
 * register; a freed place can be taken again
 */
TEST_F(sysctl, bounds_user_events)
{
	__u64 *w = (__u64 *)self->e.page;
	struct user_status_reg sp;
	char text[32];
	int fd2;

	EXPECT_STREQ("32768\n", self->saved);
	snprintf(text, sizeof(text), "%d", count_user_events() + 2);
	ASSERT_EQ(0, uet_write_file(MAX_SYSCTL, text, O_TRUNC));
	fd2 = keep_fd(&self->e, open(UE_DATA, O_RDWR));
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, reg(&self->e, "bits_max0 u32 v", w, 8, 0, NULL));
	ASSERT_EQ(0, reg_on(&self->e, fd2, "bits_max1 u32 v", w, 8, 1, 0, NULL));
	EXPECT_EQ(-EMFILE, reg(&self->e, "bits_max2 u32 v", w, 8, 2, NULL));
	EXPECT_FALSE(uet_event_exists("user_events", "bits_max2"));
	track(&self->e, "bits_max3");
	EXPECT_EQ(-EMFILE, uet_register(self->e.fd, "bits_max3 u32 v", &sp));
	EXPECT_FALSE(uet_event_exists("user_events", "bits_max3"));
	track(&self->e, "bits_max4");
	EXPECT_NE(0, uet_write_file(UE_DYN, "u:bits_max4 u32 v", O_APPEND));
	EXPECT_FALSE(uet_event_exists("user_events", "bits_max4"));
	/* no new event: fine */
	EXPECT_EQ(0, reg(&self->e, "bits_max0 u32 v", w, 8, 3, NULL));
	/* bits_max1 goes with its last reference: its place is free */
	ASSERT_EQ(0, uet_unregister_bits(self->e.fd, w, 1));
	drop_fd(&self->e, fd2);
	ASSERT_FALSE(uet_event_exists("user_events", "bits_max1"));
	EXPECT_EQ(0, reg(&self->e, "bits_max2 u32 v", w, 8, 2, NULL));
}

/*
 * A delete never fails for want of room: at kernel.user_events_max, an
 * event whose record the buffer holds is retired. The retired event counts
 * against the max: a new event is EMFILE while the buffer holds the record;
 * once it is cleared, the registration removes the retired event at once,
 * without the grace, and goes through.
 */
TEST_F(sysctl, retired_count_against_max)
{
	struct user_status_reg sp;
	char text[32], path[512];
	int fd2, id;

	fd2 = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd2);
	track(&self->e, "bits_ret");
	track(&self->e, "bits_ret2");
	ASSERT_EQ(0, uet_register(fd2, "bits_ret u32 v", &sp));
	ASSERT_EQ(0, uet_enable("", "bits_ret", 1));
	EXPECT_EQ(8, emit(fd2, sp.write_index, 1));
	ASSERT_EQ(0, uet_enable("", "bits_ret", 0));
	close(fd2);
	id = uet_event_id("user_events", "bits_ret");
	ASSERT_LT(0, id);
	snprintf(text, sizeof(text), "%d", count_user_events());
	ASSERT_EQ(0, uet_write_file(MAX_SYSCTL, text, O_TRUNC));
	ASSERT_EQ(0, uet_delete(self->e.fd, "bits_ret"));
	uet_retired_dir("", "user_events", "bits_ret", id, path, sizeof(path));
	ASSERT_EQ(0, access(path, F_OK));
	EXPECT_EQ(-EMFILE, uet_register(self->e.fd, "bits_ret2 u32 v", &sp));
	EXPECT_EQ(0, access(path, F_OK));
	EXPECT_EQ(1, uet_trace_count("bits_ret: v=1\n"));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(0, uet_register(self->e.fd, "bits_ret2 u32 v", &sp));
	EXPECT_EQ(-1, access(path, F_OK));
}

/* Swapped out: a zram swap device, set up and torn down here ------------ */

#define ZRAM		"/sys/block/zram0/"
#define ZRAM_DEV	"/dev/zram0"
#define SWAP_BYTES	(16 << 20)

FIXTURE(swap) {
	struct env e;
	int on;		/* swapon() done */
};

/* What mkswap writes: a version-1 header, no bad pages, the magic */
static int write_swap_header(const char *dev, long bytes)
{
	long psz = getpagesize();
	char *hdr = calloc(1, psz);
	__u32 *info = (__u32 *)(hdr + 1024);	/* version, last_page, nr_badpages */
	int fd = open(dev, O_WRONLY), ok;

	if (hdr) {
		info[0] = 1;
		info[1] = bytes / psz - 1;
		memcpy(hdr + psz - 10, "SWAPSPACE2", 10);
	}
	ok = hdr && fd >= 0 && pwrite(fd, hdr, psz, 0) == psz && !fsync(fd);
	if (fd >= 0)
		close(fd);
	free(hdr);
	return ok ? 0 : -1;
}

FIXTURE_SETUP(swap)
{
	char size[32];
	int err;

	if (uet_skip(_metadata, UE_NEED_PERF | UE_NEED_BPF))
		return;

	env_setup(_metadata, &self->e);
	if (access("/proc/swaps", F_OK))
		SKIP(return, "no /proc/swaps: the kernel lacks CONFIG_SWAP");
	if (access(ZRAM "disksize", W_OK))
		SKIP(return, "no %s: the kernel lacks CONFIG_ZRAM", ZRAM);
	/* left over by an earlier run */
	swapoff(ZRAM_DEV);
	uet_write_file(ZRAM "reset", "1", 0);
	snprintf(size, sizeof(size), "%d", SWAP_BYTES);
	ASSERT_EQ(0, uet_write_file(ZRAM "disksize", size, 0));
	ASSERT_EQ(0, write_swap_header(ZRAM_DEV, SWAP_BYTES));
	if (swapon(ZRAM_DEV, 0)) {
		err = errno;
		uet_write_file(ZRAM "reset", "1", 0);
		ASSERT_EQ(0, err) TH_LOG("swapon %s: %s", ZRAM_DEV, strerror(err));
	}
	self->on = 1;
}

FIXTURE_TEARDOWN(swap)
{
	env_teardown(&self->e);
	if (self->on) {
		EXPECT_EQ(0, swapoff(ZRAM_DEV)) TH_LOG("swapoff: %s", strerror(errno));
		uet_write_file(ZRAM "reset", "1", 0);
	}
}

/* MADV_PAGEOUT of the page of @m; whether mincore() says it left memory */
static int paged_out(char *m)
{
	madvise(m, getpagesize(), MADV_PAGEOUT);
	if (resident(m) == 0)
		return 1;
	/* it may wait in another CPU's LRU batch: drain them all */
	uet_write_file("/proc/sys/vm/drop_caches", "1", 0);
	return 0;
}

/* paged_out() until it is; 0 or -1 */
static int page_out(char *m)
{
	return ue_wait_for(UE_WAIT_MS, paged_out(m),
			   "MADV_PAGEOUT to take the page of %p out of memory", m) ? 0 : -1;
}

/*
 * The page is swapped out when ftrace enables the event, and again when it
 * disables it: the kernel brings it in and updates the bit, and the rest
 * of the page comes back as it was
 */
TEST_F_TIMEOUT(swap, swapped_out_page, 120)
{
	long psz = getpagesize();
	char *m = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ref = malloc(psz);
	__u64 *w = (__u64 *)(m + 256), *rw = (__u64 *)(ref + 256);

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_NE(NULL, ref);
	memset(m, 0x5a, psz);
	/* a page that nothing names can be swapped out here */
	if (page_out(m))
		SKIP(goto out, "MADV_PAGEOUT does not page out here");
	*w = PATTERN & ~(1ULL << 9);
	memcpy(ref, m, psz);
	ASSERT_EQ(0, reg(&self->e, "bits_swap u32 v", w, 8, 9, NULL));
	ASSERT_EQ(0, memcmp(ref, m, psz));

	/* an enabler does not pin the page */
	ASSERT_EQ(0, page_out(m)) TH_LOG("MADV_PAGEOUT left the registered page in memory");
	ASSERT_EQ(0, uet_enable("", "bits_swap", 1));
	/* not touched here: the kernel swapped it in */
	EXPECT_EQ(1, wait_resident(m));
	*rw |= 1ULL << 9;
	EXPECT_EQ(*rw, wait_word(w, 8, *rw));
	EXPECT_EQ(0, memcmp(ref, m, psz));

	ASSERT_EQ(0, page_out(m));
	ASSERT_EQ(0, uet_enable("", "bits_swap", 0));
	EXPECT_EQ(1, wait_resident(m));
	*rw &= ~(1ULL << 9);
	EXPECT_EQ(*rw, wait_word(w, 8, *rw));
	EXPECT_EQ(0, memcmp(ref, m, psz));
out:
	free(ref);
	munmap(m, psz);
}

int main(int argc, char **argv)
{
	/* what the execve() case runs: a process that waits to be killed */
	if (argc == 2 && !strcmp(argv[1], EXEC_WAIT)) {
		pause();
		return 0;
	}
	ue_scale_test_timeouts();
	return test_harness_run(argc, argv);
}
