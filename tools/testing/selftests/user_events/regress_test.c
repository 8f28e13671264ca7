// SPDX-License-Identifier: GPL-2.0
/*
 * regress_test: one test per failure mode user_events implementations are
 * known to have had. Each test names the failure it guards against. Others
 * live beside the feature they belong to:
 *   - negative write index, loc fields outside the record, at its last byte,
 *     strings without NUL, max payload and one more: ftrace_test write_errors
 *   - 511/512-byte descriptions, bad ioctl arguments: ftrace_test ioctl_errors
 *   - a writable status page (mmap/mprotect PROT_WRITE): smoke_test, abi_test
 *   - delete while a consumer is attached: ftrace_test delete_rules
 *   - non-root and the tracefs files: abi_test unprivileged_access
 * Leaks are caught by the kmemleak scan that ends every `make check` boot.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <linux/fuse.h>
#include <linux/userfaultfd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"

/* Arm /proc/thread-self/fail-nth (@nth open): the @n-th fault fails, 0 disarms */
static int self_write_nth(int nth, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(nth, buf, len, 0) == len ? 1 : -1;
}

/* Wait for a child; its exit code, or -1 */
static int wait_child(void)
{
	int status;

	if (wait(&status) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Failure: a write index taken as a signed offset read out of bounds, or
 * one past the fd's array was accepted.
 */
TEST(write_index_extremes)
{
	static const int bad[] = { INT_MIN, -1, 1, 2, 1 << 16, INT_MAX };
	struct user_status_reg reg;
	int fd = open(UE_DATA, O_RDWR), i, rec[2];

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_idx u32 a", &reg));
	ASSERT_EQ(0, reg.write_index);
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		rec[0] = bad[i];
		rec[1] = 1;
		EXPECT_EQ(-1, write(fd, rec, sizeof(rec)));
		EXPECT_EQ(bad[i] < 0 ? EINVAL : ENOENT, errno) TH_LOG("index %d", bad[i]);
	}
	close(fd);
	fd = open(UE_DATA, O_RDWR);
	/* a fresh fd has no events at all */
	rec[0] = 0;
	EXPECT_EQ(-1, write(fd, rec, sizeof(rec)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, uet_delete(fd, "rg_idx"));
	close(fd);
}

/*
 * Failure: a print format built from user text, so that "%s%n" or "%p" in
 * a description was interpreted by the kernel's printf. Names and types
 * with '%' are refused; the error log quotes them literally.
 */
TEST(format_strings_refused_and_quoted)
{
	static const char * const descs[] = {
		"rg_%s%n u32 a",
		"rg_fmt u32 %s%n",
		"rg_fmt %p a",
		"rg_fmt struct %s%n a 4",
		"rg_fmt:%p u32 a",
		"rg_fmt u32 a; char[4] %p",
	};
	struct user_status_reg reg;
	char cmd[128], *log;
	int fd = open(UE_DATA, O_RDWR), i;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, fd);
	for (i = 0; i < (int)ARRAY_SIZE(descs); i++) {
		ASSERT_EQ(0, uet_write_file(TRACEFS "error_log", "", O_TRUNC));
		EXPECT_EQ(-EINVAL, uet_register(fd, descs[i], &reg)) TH_LOG("%s", descs[i]);
		snprintf(cmd, sizeof(cmd), "u:%s", descs[i]);
		EXPECT_EQ(-EINVAL, uet_write_file(UE_DYN, cmd, O_APPEND)) TH_LOG("%s", cmd);
		/* both commands quoted as typed, not formatted */
		log = uet_read_file(TRACEFS "error_log");
		ASSERT_NE(NULL, log);
		EXPECT_NE(NULL, strstr(log, cmd)) TH_LOG("%s", log);
		EXPECT_NE(NULL, strstr(log, "Command: rg_")) TH_LOG("%s", log);
		free(log);
	}
	EXPECT_FALSE(uet_event_exists("user_events", "rg_fmt"));
	close(fd);
}

/*
 * Failure: the reference count of an event registered on several fds went
 * wrong when they were closed in some order (leak, or underflow and a
 * use-after-free). Every order of three fds; then the event is deletable.
 */
TEST(many_fds_every_close_order)
{
	static const int orders[6][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
		{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
	};
	int fds[3], o, i, ctl = open(UE_DATA, O_RDWR);

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, ctl);
	for (o = 0; o < 6; o++) {
		/* twice on the same fd: still one reference */
		ASSERT_EQ(0, uet_fds_holding("rg_refs u64 a", fds, 3));
		for (i = 0; i < 3; i++) {
			EXPECT_EQ(-EBUSY, uet_delete(ctl, "rg_refs")) TH_LOG("order %d", o);
			close(fds[orders[o][i]]);
		}
		EXPECT_EQ(0, uet_delete(ctl, "rg_refs")) TH_LOG("order %d", o);
		EXPECT_FALSE(uet_event_exists("user_events", "rg_refs"));
	}
	close(ctl);
}

/*
 * Failure: a registration that failed half-way leaked its allocations or
 * left a half-made event behind. Every kind of refusal, many times; the set
 * of events does not change (kmemleak checks the memory at the end).
 */
TEST(failed_registrations_leave_nothing)
{
	static const char * const bad[] = {
		"",			/* no name */
		"9rg u32 a",		/* bad name */
		"rg_bad u33 a",		/* unknown type */
		"rg_bad long a",	/* long: refused */
		"rg_bad u32 a 4",	/* size on a non-struct */
		"rg_bad struct x a",	/* struct without size */
		"rg_bad struct x a 0",	/* size out of range */
		"rg_bad char[1025] a",	/* array too long */
		"rg_bad u32 a;;u32 b",	/* empty field */
		"rg_bad u32 a; u32 a",	/* duplicate field */
		"rg_bad __rel_loc u32 a",	/* loc of a scalar */
		"rg_taken u64 a",	/* exists with other fields */
	};
	struct user_status_reg reg;
	char big[600], cmd[128];
	int fd = open(UE_DATA, O_RDWR), before, i, round, ret;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_taken u32 a", &reg));
	before = uet_status_active();
	ASSERT_LT(0, before);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (round = 0; round < 50; round++) {
		for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
			ret = uet_register(fd, bad[i], &reg);
			EXPECT_EQ(i == (int)ARRAY_SIZE(bad) - 1 ? -EADDRINUSE : -EINVAL, ret)
				TH_LOG("\"%s\"", bad[i]);
			snprintf(cmd, sizeof(cmd), "u:%s", bad[i]);
			EXPECT_NE(0, uet_write_file(UE_DYN, cmd, O_APPEND));
		}
		EXPECT_EQ(-E2BIG, uet_register(fd, big, &reg));
		reg.size = sizeof(reg);
		reg.name_args = 16;
		EXPECT_EQ(-1, ioctl(fd, DIAG_IOCSREG, &reg));
		EXPECT_EQ(EFAULT, errno);
	}
	EXPECT_EQ(before, uet_status_active());
	EXPECT_FALSE(uet_event_exists("user_events", "rg_bad"));
	close(fd);
	EXPECT_EQ(0, uet_delete_named("rg_taken"));
}

/* Failure: an event without fields could not be written (empty payload) */
TEST(zero_field_event)
{
	struct user_status_reg reg;
	int fd = open(UE_DATA, O_RDWR), rec[2] = { 0, 5 };

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_empty", &reg));
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, uet_enable("", "rg_empty", 1));
	rec[0] = reg.write_index;
	EXPECT_EQ(4, write(fd, rec, 4));
	EXPECT_EQ(1, uet_trace_count("rg_empty:"));
	ASSERT_EQ(0, uet_enable("", "rg_empty", 0));
	close(fd);
	EXPECT_EQ(0, uet_delete_named("rg_empty"));
}

/*
 * Failure: a payload at perf's size limit made perf WARN, or one over the
 * limit was silently dropped. The largest payload goes to perf; one byte
 * more is E2BIG (the VM run fails on any WARNING in the kernel log).
 */
TEST(max_payload_with_perf)
{
	int fd = open(UE_DATA, O_RDWR), max = UE_PERF_MAX_PAYLOAD, perf;
	struct uet_ring ring;
	struct user_status_reg reg;
	char *buf;

	if (uet_skip(_metadata, UE_NEED_PERF))
		return;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_big u8 a", &reg));
	perf = uet_perf_open(uet_tracepoint_id("rg_big"), 0, -1, 1);
	ASSERT_LE(0, perf);
	ASSERT_EQ(0, uet_ring_map(&ring, perf, 8));
	buf = calloc(1, 4 + max + 1);
	ASSERT_NE(NULL, buf);
	memcpy(buf, &reg.write_index, 4);
	EXPECT_EQ(4 + max, write(fd, buf, 4 + max));
	EXPECT_EQ(-1, write(fd, buf, 4 + max + 1));
	EXPECT_EQ(E2BIG, errno);
	/* one sample: the header, the raw size and the record */
	EXPECT_LE((unsigned long long)(8 + 4 + 8 + max), ring.meta->data_head);
	EXPECT_GT((unsigned long long)(2 * (8 + 4 + 8 + max)), ring.meta->data_head);
	free(buf);
	uet_ring_unmap(&ring);
	close(perf);
	close(fd);
	EXPECT_EQ(0, uet_delete_named("rg_big"));
}

struct mid_write {
	int fd;
	__u32 idx;
	int stop;			/* __atomic */
	long writes, errors;
};

static void *keep_writing(void *arg)
{
	struct mid_write *m = arg;
	__u32 rec[2] = { m->idx, 0 };

	while (!__atomic_load_n(&m->stop, __ATOMIC_RELAXED)) {
		rec[1]++;
		if (write(m->fd, rec, sizeof(rec)) == sizeof(rec))
			m->writes++;
		else
			m->errors++;
	}
	return NULL;
}

/*
 * Failure: a delete racing a write freed the event under the writer. While
 * a thread writes (traced, then not), deletes are refused; once its fd is
 * closed the delete succeeds, and the writer never saw an error.
 */
TEST(delete_while_writing)
{
	struct mid_write m = { 0 };
	struct user_status_reg reg;
	pthread_t t;
	int ctl = open(UE_DATA, O_RDWR), i;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, ctl);
	m.fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, m.fd);
	ASSERT_EQ(0, uet_register(m.fd, "rg_race u32 n", &reg));
	m.idx = reg.write_index;
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, pthread_create(&t, NULL, keep_writing, &m));
	for (i = 0; i < 200; i++) {
		if (i == 50)
			ASSERT_EQ(0, uet_enable("", "rg_race", 1));
		if (i == 150)
			ASSERT_EQ(0, uet_enable("", "rg_race", 0));
		EXPECT_EQ(-EBUSY, uet_delete(ctl, "rg_race"));
		EXPECT_EQ(-EBUSY, uet_write_file(UE_DYN, "!u:rg_race", O_APPEND));
	}
	__atomic_store_n(&m.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	EXPECT_EQ(0, m.errors);
	/*
	 * the deletes raced writes that were traced: the writer never stops,
	 * so the 100 rounds of refused deletes while enabled saw some recorded
	 */
	EXPECT_LT(0, uet_trace_count("rg_race: n="));
	close(m.fd);
	EXPECT_EQ(0, uet_delete(ctl, "rg_race"));
	close(ctl);
}

/*
 * Failure: fork() copied an enabler whose word the child never got. With
 * MADV_DONTFORK the child has nothing at that address; whatever it maps
 * there later is not the word, and the kernel never sets a bit in it.
 */
TEST(dontfork_word_not_copied)
{
	long page = getpagesize();
	int fd = open(UE_DATA, O_RDWR), ready[2], go[2], status;
	__u32 *word;
	char c = 0;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_LE(0, fd);
	word = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, madvise(word, page, MADV_DONTFORK));
	ASSERT_EQ(0, uet_register_bits(fd, "rg_df u32 a", word, 4, 3, 0, NULL));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* the range is not ours: map a page of our own there */
		__u32 *mine = mmap(word, page, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (mine != word)
			_exit(2);
		*mine = 0;
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		/* the kernel writes it behind the compiler's back, if at all */
		_exit(__atomic_load_n(mine, __ATOMIC_RELAXED) ? 1 : 0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, uet_enable("", "rg_df", 1));
	/* the parent's word is set when enable returns (the page is there) */
	EXPECT_EQ(1u << 3, __atomic_load_n(word, __ATOMIC_RELAXED));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, uet_enable("", "rg_df", 0));
	EXPECT_EQ(0, __atomic_load_n(word, __ATOMIC_RELAXED));
	close(fd);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	munmap(word, page);
}

/*
 * Failure: a probe that is not ours called as ftrace's. When removing one
 * of several probes cannot allocate the smaller array, the tracepoint
 * leaves tp_stub_func in its place with the removed consumer's data: here
 * the trace_event_file of an instance, freed with the instance. The writer
 * must skip it (KASAN reports the use after free otherwise). The failure is
 * injected with /proc/thread-self/fail-nth and failslab.
 */
#define FAILSLAB "/sys/kernel/debug/failslab/"
#define STUB_INST TRACEFS "instances/rg_stub_i"

TEST(stub_probe_skipped)
{
	const unsigned char *page = uet_map_status();
	struct user_status_reg reg;
	int fd, en, nth, n, injected = 0;
	char got[16];
	__u32 rec[2];

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_NE(NULL, page);
	if (access("/proc/thread-self/fail-nth", W_OK) || access(FAILSLAB, F_OK))
		SKIP(return, "no fault injection (CONFIG_FAILSLAB, FAULT_INJECTION_DEBUG_FS)");
	/* GFP_KERNEL allocations too, quietly */
	ASSERT_EQ(0, uet_write_file(FAILSLAB "ignore-gfp-wait", "N", O_TRUNC));
	ASSERT_EQ(0, uet_write_file(FAILSLAB "verbose", "0", O_TRUNC));

	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_stub u32 a", &reg));
	rmdir(STUB_INST);
	ASSERT_EQ(0, mkdir(STUB_INST, 0755));
	ASSERT_EQ(0, uet_enable("", "rg_stub", 1));
	en = open(STUB_INST "/events/user_events/rg_stub/enable", O_WRONLY);
	ASSERT_LE(0, en);
	nth = open("/proc/thread-self/fail-nth", O_RDWR);
	ASSERT_LE(0, nth);
	/*
	 * Disable the instance's probe with the n-th allocation failing, for
	 * n = 1, 2, ... until a disable succeeds although an allocation
	 * failed: the probe array's, which the tracepoint does without.
	 */
	for (n = 1; n <= 20 && !injected; n++) {
		ASSERT_EQ(1, write(en, "1", 1));
		ASSERT_EQ(1, self_write_nth(nth, n));
		if (write(en, "0", 1) == 1) {
			ASSERT_LT(0, pread(nth, got, sizeof(got) - 1, 0));
			injected = atoi(got) == 0;
		}
		/* a fault not yet injected must not hit later calls */
		self_write_nth(nth, 0);
	}
	close(nth);
	close(en);
	ASSERT_TRUE(injected);
	EXPECT_EQ(EVENT_STATUS_FTRACE, page[reg.status_index]);
	/* the instance and its trace_event_file go; the stub stays */
	ASSERT_EQ(0, rmdir(STUB_INST));
	ASSERT_EQ(0, uet_clear_trace());
	rec[0] = reg.write_index;
	rec[1] = 77;
	EXPECT_EQ(8, write(fd, rec, sizeof(rec)));
	EXPECT_EQ(1, uet_trace_count("rg_stub: a=77"));
	ASSERT_EQ(0, uet_enable("", "rg_stub", 0));
	EXPECT_EQ(0, page[reg.status_index]);
	close(fd);
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(fd, "rg_stub"));
	munmap((void *)page, getpagesize());
	close(fd);
}

/*
 * Failure: a status mapping that could be made executable. Neither
 * PROT_EXEC at mmap() nor a later mprotect() is allowed.
 */
TEST(status_page_never_executable)
{
	long page = getpagesize();
	int fd = open(UE_STATUS, O_RDONLY);
	void *p;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_LE(0, fd);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0));
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, page, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	/* still readable */
	EXPECT_EQ(0, mprotect(p, page, PROT_READ));
	EXPECT_EQ(0, __atomic_load_n((unsigned char *)p, __ATOMIC_RELAXED));
	munmap(p, page);
	close(fd);
}

/*
 * Failure: enablers per process without bound: kernel memory, and a
 * status change walks them all under event_mutex. 8192 per process, in all
 * its threads; one more is ENOSPC, and one unregistered makes room again.
 */
#define MAX_ENABLERS 8192

/* The first half of enablers_bounded's enablers, from a thread of its own */
struct rg_half {
	int fd, ret, n;
	__u32 *words;
};

static void *rg_register_half(void *arg)
{
	struct rg_half *h = arg;
	int i;

	for (i = 0; i < h->n && !h->ret; i++)
		h->ret = uet_register_bits(h->fd, "rg_cap u32 a", &h->words[i], 4, 0, 0, NULL);
	return NULL;
}

/* Tests that take longer than the harness's default 30 s under TCG */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

TEST_F_TIMEOUT(slow, enablers_bounded, 300)
{
	int fd = open(UE_DATA, O_RDWR), i, ret = 0, go[2];
	struct rg_half half;
	__u32 *words;
	pthread_t th;
	char c = 0;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_LE(0, fd);
	/* another process, forked before ours has enablers to copy */
	ASSERT_EQ(0, pipe(go));
	if (fork() == 0) {
		__u32 w = 0;
		int cfd = open(UE_DATA, O_RDWR);

		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(uet_register_bits(cfd, "rg_cap u32 a", &w, 4, 0, 0, NULL) ? 1 : 0);
	}
	words = calloc(MAX_ENABLERS + 1, sizeof(*words));
	ASSERT_NE(NULL, words);
	/* half from another thread: the bound is the process's */
	half = (struct rg_half){ .fd = fd, .n = MAX_ENABLERS / 2, .words = words };
	ASSERT_EQ(0, pthread_create(&th, NULL, rg_register_half, &half));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, half.ret);
	for (i = MAX_ENABLERS / 2; i < MAX_ENABLERS && !ret; i++)
		ret = uet_register_bits(fd, "rg_cap u32 a", &words[i], 4, 0, 0, NULL);
	ASSERT_EQ(0, ret) TH_LOG("enabler %d", i);
	EXPECT_EQ(-ENOSPC, uet_register_bits(fd, "rg_cap u32 a", &words[MAX_ENABLERS],
					     4, 0, 0, NULL));
	/* another bit of a word that has one is one more enabler too */
	EXPECT_EQ(-ENOSPC, uet_register_bits(fd, "rg_cap u32 a", &words[0], 4, 1, 0, NULL));
	ASSERT_EQ(0, uet_unregister_bits(fd, &words[5], 0));
	EXPECT_EQ(0, uet_register_bits(fd, "rg_cap u32 a", &words[MAX_ENABLERS],
				       4, 0, 0, NULL));
	/* the cap is the process's: the event still takes other processes */
	ASSERT_EQ(1, write(go[1], &c, 1));
	EXPECT_EQ(0, wait_child());
	close(go[0]);
	close(go[1]);
	close(fd);
	free(words);
}

/*
 * Failure: a fork() that met a signal gave the child no enablers. The
 * child's copy needs an mmu notifier, whose registration gives up with
 * -EINTR while the forking task has a signal pending, and a fork cannot
 * fail that late: the child's bits stayed as the parent's were at fork,
 * whatever consumers came and went. Another process sends one signal per
 * fork, at a random moment of it (a signal pending when a fork starts
 * restarts it: one per fork cannot starve it); every child's bit follows
 * the enable and the disable.
 */
#define FORKS 60

static void on_alarm(int sig)
{
	(void)sig;
}

/* Wait for bit @mask of @word to be @want; 1 when it is */
static int wait_bit(__u32 *word, __u32 mask, int want)
{
	return ue_wait_for(UE_WAIT_MS, !!(__atomic_load_n(word, __ATOMIC_RELAXED) & mask) == want,
			   "process %d: bit %#x of its word to be %d", getpid(), mask, want);
}

/*
 * Wait, in steps of @pause_us (the pinger keeps close to the forks), for
 * the int at @p to be above @floor; its value, or 0 when the wait expired
 */
static int wait_above(int *p, int floor, unsigned int pause_us, const char *what)
{
	struct ue_wait w;
	int v;

	ue_wait_start(&w, UE_WAIT_MS);
	while ((v = __atomic_load_n(p, __ATOMIC_ACQUIRE)) <= floor) {
		if (ue_wait_over(&w)) {
			ue_wait_expired(&w, "the pinger: %s (%d, above %d)", what, v, floor);
			return 0;
		}
		usleep(pause_us);
	}
	return v;
}

/* What the test and its pinger share */
struct fork_pings {
	int spread_us;		/* a signal comes within this of a fork's start */
	int started;		/* forks started */
};

TEST_F_TIMEOUT(slow, fork_with_signals_keeps_bits, 300)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	int fd = open(UE_DATA, O_RDWR), i, bad = 0, status, on[2], off[2], back[2];
	pid_t pids[FORKS], pinger, parent = getpid();
	struct fork_pings *fp;
	static __u32 word;
	long long t;
	char c = 0;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register_bits(fd, "rg_forksig u32 a", &word, 4, 2, 0, NULL));
	/* one byte each from on, then from off: no child takes another's */
	ASSERT_EQ(0, pipe(on));
	ASSERT_EQ(0, pipe(off));
	ASSERT_EQ(0, pipe(back));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	fp = mmap(NULL, sizeof(*fp), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fp);
	t = ue_now_us();
	pinger = fork();
	if (pinger == 0) {
		unsigned int seed = getpid();
		int r, spread;

		spread = wait_above(&fp->spread_us, 0, 100, "the time of a fork");
		if (!spread)
			_exit(1);
		for (r = 0; r < FORKS; r++) {
			if (!wait_above(&fp->started, r, 50, "forks started"))
				_exit(1);
			usleep(rand_r(&seed) % spread);
			kill(parent, SIGALRM);
		}
		_exit(0);
	}
	ASSERT_LE(0, pinger);
	/* twice as long as a fork of this process takes here */
	__atomic_store_n(&fp->spread_us, (int)(2 * (ue_now_us() - t)) + 1, __ATOMIC_RELEASE);
	for (i = 0; i < FORKS; i++) {
		__atomic_store_n(&fp->started, i + 1, __ATOMIC_RELEASE);
		pids[i] = fork();
		if (pids[i] == 0) {
			int set, clear;

			/* enabled: set; then disabled: clear */
			if (read(on[0], &c, 1) != 1)
				_exit(2);
			set = wait_bit(&word, 1 << 2, 1);
			if (write(back[1], &c, 1) != 1 || read(off[0], &c, 1) != 1)
				_exit(2);
			clear = wait_bit(&word, 1 << 2, 0);
			_exit(set && clear ? 0 : 1);
		}
		ASSERT_LE(0, pids[i]);
	}
	ASSERT_EQ(pinger, waitpid(pinger, &status, 0));
	EXPECT_EQ(0, status) TH_LOG("the pinger");
	ASSERT_EQ(0, uet_enable("", "rg_forksig", 1));
	for (i = 0; i < FORKS; i++)
		ASSERT_EQ(1, write(on[1], &c, 1));
	for (i = 0; i < FORKS; i++)
		if (read(back[0], &c, 1) != 1)
			break;
	ASSERT_EQ(0, uet_enable("", "rg_forksig", 0));
	for (i = 0; i < FORKS; i++)
		ASSERT_EQ(1, write(off[1], &c, 1));
	for (i = 0; i < FORKS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d children whose bit did not follow", bad, FORKS);
	munmap(fp, sizeof(*fp));
	close(on[0]);
	close(on[1]);
	close(off[0]);
	close(off[1]);
	close(back[0]);
	close(back[1]);
	close(fd);
}

/*
 * A thread and the test started together, each after a random spin, so that
 * the thread's munmap()/mremap() lands anywhere in the test's system call;
 * maybe a second thread too, without a head start
 */
struct race {
	pthread_barrier_t start, done;
	void (*fn)(struct race *r);	/* the thread's side, once per round */
	void (*fn2)(struct race *r);	/* the second thread's, or NULL */
	const char *aux;		/* an event the second thread toggles */
	char *addr;			/* the word's page */
	char *spare;			/* a page to move over it (mremap) */
	int memfd;			/* or a page of this to map there */
	long page;
	int round;
	unsigned int spin;		/* spins of the longest head start */
	unsigned int seed;
	pthread_t tid, tid2;
	pid_t main_tid;			/* the test's thread, for tgkill() */
	int signals;			/* SIGUSR1 to it too, sometimes */
	int stop;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;

	for (;;) {
		pthread_barrier_wait(&r->start);
		if (r->stop)
			return NULL;
		ue_spin(rand_r(&r->seed) % r->spin);
		r->fn(r);
		pthread_barrier_wait(&r->done);
	}
}

static void *race_thread2(void *arg)
{
	struct race *r = arg;

	for (;;) {
		pthread_barrier_wait(&r->start);
		if (r->stop)
			return NULL;
		r->fn2(r);
		pthread_barrier_wait(&r->done);
	}
}

static int race_start(struct race *r, void (*fn)(struct race *r))
{
	int n = r->fn2 ? 3 : 2;

	r->fn = fn;
	r->page = getpagesize();
	r->seed = getpid();
	r->main_tid = gettid();
	pthread_barrier_init(&r->start, NULL, n);
	pthread_barrier_init(&r->done, NULL, n);
	if (r->fn2 && pthread_create(&r->tid2, NULL, race_thread2, r))
		return -1;
	return pthread_create(&r->tid, NULL, race_thread, r);
}

/* One round: the thread's side runs while the caller runs its own */
static void race_go(struct race *r)
{
	pthread_barrier_wait(&r->start);
	ue_spin(rand_r(&r->seed) % r->spin);
}

static void race_wait(struct race *r)
{
	pthread_barrier_wait(&r->done);
	r->round++;
}

static void race_stop(struct race *r)
{
	r->stop = 1;
	pthread_barrier_wait(&r->start);
	pthread_join(r->tid, NULL);
	if (r->fn2)
		pthread_join(r->tid2, NULL);
	pthread_barrier_destroy(&r->start);
	pthread_barrier_destroy(&r->done);
}

/* A fresh private page at @addr, every byte @c */
static int map_filled(char *addr, long page, int c)
{
	if (mmap(addr, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != addr)
		return -1;
	memset(addr, c, page);
	return 0;
}

/* The first byte of @p that is not @c (read as the kernel may write it), or -1 */
static long not_filled(const char *p, long len, int c)
{
	long i;

	for (i = 0; i < len; i++)
		if ((unsigned char)__atomic_load_n(&p[i], __ATOMIC_RELAXED) != (unsigned char)c)
			return i;
	return -1;
}

/*
 * An event made through the status page on a new fd in *@ctl: it stays
 * after its writers' enablers go. 0, or -1 with errno.
 */
static int status_event(const char *desc, int *ctl)
{
	struct user_status_reg reg;

	*ctl = open(UE_DATA, O_RDWR);
	if (*ctl < 0)
		return -1;
	return uet_register(*ctl, desc, &reg) ? -1 : 0;
}

/* An event made through the status page (it stays), enabled in ftrace */
static int race_event(const char *desc, const char *name, int *ctl)
{
	if (status_event(desc, ctl))
		return -1;
	return uet_enable("", name, 1);
}

static void race_event_end(const char *name, int ctl)
{
	uet_enable("", name, 0);
	close(ctl);
	ctl = open(UE_DATA, O_RDWR);
	uet_delete(ctl, name);
	close(ctl);
}

#define RACE_BIT	1	/* the bit of the word */

/*
 * What a page mapped after the munmap() holds in round @i: the bit set in
 * odd rounds, where a clear would show, clear in even ones, where a set would
 */
static int fill_of(int i)
{
	return i & 1 ? 0x5a : 0xa5;
}

/*
 * The page at @addr still holds @c everywhere (after @what): 1, or 0 with
 * the first difference logged for the first bad round
 */
static int still_filled(struct __test_metadata *_metadata, const char *addr, long page,
			int c, int round, int bad_rounds, const char *what)
{
	long bad = not_filled(addr, page, c);

	if (bad < 0)
		return 1;
	if (!bad_rounds)
		TH_LOG("round %d, %s: byte %ld of the page mapped after the munmap is %#x, was %#x",
		       round, what, bad, (unsigned char)addr[bad], c);
	return 0;
}

static void unmap_word(struct race *r)
{
	munmap(r->addr, r->page);
}

/*
 * Another event's consumer comes or goes: the kernel holds event_mutex
 * while it attaches it, and a registration waits for it meanwhile
 */
static void toggle_aux(struct race *r)
{
	uet_enable("", r->aux, r->round & 1);
}

/*
 * Failure: the word faulted in before the enabler was linked. An munmap()
 * by another thread in between went unseen, and whatever the process mapped
 * at that address later got the bit. The event has a consumer all along;
 * a thread munmaps the word's page while the test registers a bit there,
 * and a third attaches or detaches another event's consumer at that moment
 * (the kernel holds event_mutex meanwhile, and a registration that waits
 * for it in its middle widens the window). Either the registration fails
 * with EFAULT (the word was gone when the kernel looked) and there is
 * nothing to unregister, or it succeeds and the kernel never writes the
 * address again: a page mapped there afterwards keeps its bytes through a
 * disable, an enable and the DIAG_IOCSUNREG of the enabler, which stays
 * until then. A race: a round that misses the window passes. On the
 * kernel before the fix, 18 to 56 of the 250 rounds wrote into the new
 * page in each of 8 runs.
 */
#define RACE_ROUNDS	250

TEST_F_TIMEOUT(slow, munmap_during_register, 300)
{
	int fd = open(UE_DATA, O_RDWR), ctl, ctl2, ret, i, c, ok = 0, efault = 0, bad = 0, good;
	struct race r = { .fn2 = toggle_aux, .aux = "rg_mreg_aux" };
	long long t = ue_now_us();

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, race_event("rg_mreg u32 a", "rg_mreg", &ctl));
	ASSERT_EQ(0, race_event("rg_mreg_aux u32 a", "rg_mreg_aux", &ctl2));
	r.addr = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.addr);
	r.spin = uet_spins_per_reg(fd, "rg_mreg u32 a", r.addr, 4, 0);
	ASSERT_LT(0, r.spin);
	ASSERT_EQ(0, race_start(&r, unmap_word));
	for (i = 0; i < RACE_ROUNDS; i++) {
		ASSERT_EQ(0, map_filled(r.addr, r.page, 0));
		race_go(&r);
		ret = uet_register_bits(fd, "rg_mreg u32 a", r.addr, 4, RACE_BIT, 0, NULL);
		race_wait(&r);
		EXPECT_TRUE(!ret || ret == -EFAULT) TH_LOG("round %d: %d", i, ret);
		ok += !ret;
		efault += ret == -EFAULT;
		/* another page at the address, then status changes for it to miss */
		c = fill_of(i);
		ASSERT_EQ(0, map_filled(r.addr, r.page, c));
		ASSERT_EQ(0, uet_enable("", "rg_mreg", 0));
		good = still_filled(_metadata, r.addr, r.page, c, i, bad, "disabled");
		ASSERT_EQ(0, uet_enable("", "rg_mreg", 1));
		good = good && still_filled(_metadata, r.addr, r.page, c, i, bad, "enabled");
		/* registered: still there; refused: nothing to drop */
		EXPECT_EQ(ret ? -ENOENT : 0, uet_unregister_bits(fd, r.addr, RACE_BIT))
			TH_LOG("round %d: registration %d", i, ret);
		good = good && still_filled(_metadata, r.addr, r.page, c, i, bad,
					    "DIAG_IOCSUNREG");
		bad += !good;
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d rounds wrote into the new page", bad, i);
	TH_LOG("%d rounds in %lld ms (head starts up to %u spins): %d registered, %d EFAULT",
	       i, (ue_now_us() - t) / 1000, r.spin, ok, efault);
	race_stop(&r);
	munmap(r.addr, r.page);
	close(fd);
	race_event_end("rg_mreg", ctl);
	race_event_end("rg_mreg_aux", ctl2);
}

/*
 * What the thread maps over the word, all 0xff, by round: a populated page
 * moved there (mremap), a page of the memfd mapped over it, or the same
 * after an munmap() of its own
 */
static void replace_word(struct race *r)
{
	if (r->round % 3 == 0) {
		mremap(r->spare, r->page, r->page, MREMAP_MAYMOVE | MREMAP_FIXED, r->addr);
		return;
	}
	if (r->round % 3 == 2)
		munmap(r->addr, r->page);
	mmap(r->addr, r->page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r->memfd, 0);
}

/* The thread's page for round @r->round, all 0xff; 0 or -1 */
static int spare_page(struct race *r)
{
	static unsigned char ff[4096 * 16];

	if (r->round % 3 == 0) {
		r->spare = mmap(NULL, r->page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r->spare == MAP_FAILED)
			return -1;
		memset(r->spare, 0xff, r->page);
		return 0;
	}
	memset(ff, 0xff, sizeof(ff));
	return pwrite(r->memfd, ff, r->page, 0) == r->page ? 0 : -1;
}

#define UNREG_ROUNDS	300
#define READER_MB	8

/*
 * The rounds of munmap_during_unregister in that order: 20 of 300, a page
 * moved over the word or a memfd page mapped over it (an munmap() first
 * leaves nothing for the old kernel to write into)
 */
static int in_order_round(int i)
{
	return i % 30 == 4 || i % 30 == 9;
}

/*
 * The order of munmap_during_unregister's window, forced: a thread holds
 * the mmap_lock for reading (MADV_POPULATE_WRITE of READER_MB), the one
 * that replaces the word waits behind it for writing, and only then does
 * the test unregister, whose read of the lock waits behind that writer.
 */
struct ordered {
	struct race *r;
	char *mem;
	pid_t tid;		/* __atomic: the thread's, once it runs */
	int done;		/* __atomic */
};

static void *populate_thread(void *arg)
{
	struct ordered *o = arg;

	__atomic_store_n(&o->tid, gettid(), __ATOMIC_RELEASE);
	madvise(o->mem, READER_MB << 20, MADV_POPULATE_WRITE);
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *replace_thread(void *arg)
{
	struct ordered *o = arg;

	__atomic_store_n(&o->tid, gettid(), __ATOMIC_RELEASE);
	replace_word(o->r);
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Field @field (3: the state, and on) of /proc/self/task/@tid/stat, "" if none */
static void task_stat(pid_t tid, int field, char *out, size_t size)
{
	char path[64], buf[512], *p;
	int fd, n, i;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* after the command's ")", field 3 (the state) on */
	p = strrchr(buf, ')');
	for (i = 2; p && i < field; i++)
		p = strchr(p + 1, ' ');
	if (p)
		snprintf(out, size, "%.*s", (int)strcspn(p + 1, " "), p + 1);
}

/*
 * Wait up to 5 s (scaled) for @o's thread to start, then for @ready of it;
 * 1 if so. Not a failure when it does not come: the round is not one in
 * the order forced, and the test says how many were.
 */
static int wait_task(struct ordered *o, int (*ready)(pid_t tid))
{
	struct ue_wait w;
	pid_t tid;

	ue_wait_start(&w, 5000);
	while (!ue_wait_over(&w)) {
		tid = __atomic_load_n(&o->tid, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&o->done, __ATOMIC_ACQUIRE))
			return 0;
		if (tid && ready(tid))
			return 1;
		usleep(100);
	}
	return 0;
}

/* It faulted pages in: it holds the mmap_lock, for reading */
static int populating(pid_t tid)
{
	char v[32];

	task_stat(tid, 10, v, sizeof(v));
	return atol(v) > 0;
}

/* It sleeps (uninterruptibly): waiting for the mmap_lock */
static int blocked(pid_t tid)
{
	char v[32];

	task_stat(tid, 3, v, sizeof(v));
	return v[0] == 'D';
}

/*
 * One round of munmap_during_unregister in that order; the unregistration's
 * result in *@ret. Returns 1 when the order held (the replacement waited
 * for the lock when the unregistration began), 0 when the reader was done
 * too soon, -1 without a thread.
 */
static int ordered_unregister(struct race *r, char *mem, int fd, int *ret)
{
	struct ordered reader = { .r = r, .mem = mem }, writer = { .r = r };
	pthread_t rt, wt;
	int held = 0;

	if (pthread_create(&rt, NULL, populate_thread, &reader))
		return -1;
	if (wait_task(&reader, populating) &&
	    !pthread_create(&wt, NULL, replace_thread, &writer)) {
		held = wait_task(&writer, blocked) &&
		       !__atomic_load_n(&reader.done, __ATOMIC_ACQUIRE);
		*ret = uet_unregister_bits(fd, r->addr, RACE_BIT);
		pthread_join(wt, NULL);
	} else {
		*ret = uet_unregister_bits(fd, r->addr, RACE_BIT);
		replace_word(r);
	}
	pthread_join(rt, NULL);
	madvise(mem, READER_MB << 20, MADV_DONTNEED);
	return held;
}

/*
 * Failure: DIAG_IOCSUNREG took the enabler off the process's list and
 * looked whether its range was unmapped, then cleared the bit later, after
 * fault-in could have let go of the mmap_lock: an munmap() and a new
 * mapping at the address in between went unseen, and the new page lost a
 * bit. The event has a consumer, the word its bit; a thread maps a page of
 * 0xff bytes over the word (mremap() of a populated page, or mmap() of a
 * memfd page with or without an munmap() first) while the test
 * unregisters. The unregistration succeeds (the enabler was there), and
 * the page at the address is all 0xff afterwards, and after a status
 * change once the enabler is gone. A race, but 20 rounds force the order
 * of the window (ordered_unregister()): on the kernel before the fix,
 * every one of those that held it (19 of 20) wrote into the new page, and
 * 4 to 29 of the 280 others did, in each of 4 runs.
 */
TEST_F_TIMEOUT(slow, munmap_during_unregister, 300)
{
	int fd = open(UE_DATA, O_RDWR), ctl, ret, i, bad = 0, good, bad_how[3] = { 0 };
	int ordered = 0, bad_ordered = 0, in_order;
	struct race r = { 0 };
	long long t = ue_now_us();
	char *mem;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, race_event("rg_munreg u32 a", "rg_munreg", &ctl));
	r.addr = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.addr);
	r.memfd = memfd_create("rg_munreg", 0);
	ASSERT_LE(0, r.memfd);
	ASSERT_EQ(0, ftruncate(r.memfd, getpagesize()));
	mem = mmap(NULL, READER_MB << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	r.spin = uet_spins_per_reg(fd, "rg_munreg u32 a", r.addr, 4, 0);
	ASSERT_LT(0, r.spin);
	ASSERT_EQ(0, race_start(&r, replace_word));
	for (i = 0; i < UNREG_ROUNDS; i++) {
		ASSERT_EQ(0, map_filled(r.addr, r.page, 0));
		ASSERT_EQ(0, uet_register_bits(fd, "rg_munreg u32 a", r.addr, 4, RACE_BIT,
					       0, NULL));
		ASSERT_EQ(1u << RACE_BIT, __atomic_load_n((__u32 *)r.addr, __ATOMIC_RELAXED));
		ASSERT_EQ(0, spare_page(&r));
		in_order = 0;
		if (in_order_round(i)) {
			in_order = ordered_unregister(&r, mem, fd, &ret);
			ASSERT_LE(0, in_order);
			ordered += in_order;
			r.round++;
		} else {
			race_go(&r);
			ret = uet_unregister_bits(fd, r.addr, RACE_BIT);
			race_wait(&r);
		}
		EXPECT_EQ(0, ret) TH_LOG("round %d", i);
		good = still_filled(_metadata, r.addr, r.page, 0xff, i, bad, "DIAG_IOCSUNREG");
		EXPECT_EQ(-ENOENT, uet_unregister_bits(fd, r.addr, RACE_BIT));
		/* the enabler is gone: a status change writes nothing (every 4th round) */
		if (!(i % 4)) {
			ASSERT_EQ(0, uet_enable("", "rg_munreg", 0));
			ASSERT_EQ(0, uet_enable("", "rg_munreg", 1));
			good = good && still_filled(_metadata, r.addr, r.page, 0xff, i, bad,
						    "a status change");
		}
		bad += !good;
		bad_how[i % 3] += !good;
		bad_ordered += !good && in_order;
		munmap(r.addr, r.page);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d rounds wrote into the new page; after mremap() %d; "
				 "after mmap() %d, after munmap() and mmap() %d; in order %d of %d",
				 bad, i, bad_how[0], bad_how[1], bad_how[2], bad_ordered, ordered);
	TH_LOG("%d rounds in %lld ms (head starts up to %u spins), %d of %d in the order forced",
	       i, (ue_now_us() - t) / 1000, r.spin, ordered, 2 * i / 30);
	munmap(mem, READER_MB << 20);
	race_stop(&r);
	close(r.memfd);
	close(fd);
	race_event_end("rg_munreg", ctl);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A populated page of fill_of(round) moved over the word; SIGUSR1 too, at times */
static void move_over_word(struct race *r)
{
	int sig = r->signals && rand_r(&r->seed) % 2;

	if (sig && rand_r(&r->seed) % 2)
		syscall(SYS_tgkill, getpid(), r->main_tid, SIGUSR1);
	mremap(r->spare, r->page, r->page, MREMAP_MAYMOVE | MREMAP_FIXED, r->addr);
	if (sig)
		syscall(SYS_tgkill, getpid(), r->main_tid, SIGUSR1);
}

/*
 * The child of fork_during_munmap: what is at @addr is the word (the fork
 * came first) or the page of @c bytes the parent's thread moved there. The
 * latter is not the word: it stays as it is. Over the word the child maps
 * a page of its own, which is not the word either. The parent changes the
 * event's status twice, a byte on @go after each; exit 1 when a bit came.
 */
static int fork_child(char *addr, long page, int c, int ready, int go)
{
	char got = not_filled(addr, page, c) < 0 ? 'm' : 'w';
	int i;

	if (got == 'w') {
		c = 0xa5;
		if (map_filled(addr, page, c))
			return 2;
	}
	if (write(ready, &got, 1) != 1)
		return 3;
	for (i = 0; i < 2; i++)
		if (read(go, &got, 1) != 1 || not_filled(addr, page, c) >= 0)
			return 1;
	return 0;
}

/*
 * Failure: a fork() racing an munmap() of the word gave the child an
 * enabler for memory it does not have as the word, or left the child's
 * copy unwatched. A thread moves a page of known bytes over the parent's
 * word (sometimes with SIGUSR1 to the forking thread, which makes the kernel
 * watch the child's memory from a worker) while the test forks. The child
 * has the word or that page: the page keeps its bytes through a disable
 * and an enable; over the word the child maps a page of its own at once,
 * which keeps its bytes too. So does the parent's new page, and its
 * enabler stays until DIAG_IOCSUNREG. A race: a round that misses the
 * window passes. The kernel before the fix passes it too (its fork()
 * skipped the enablers the parent's munmap() had marked, and a child was
 * watched before it ran): it guards that order.
 */
#define FORK_ROUNDS	100

TEST_F_TIMEOUT(slow, fork_during_munmap, 300)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	int fd = open(UE_DATA, O_RDWR), ctl, i, c, bad = 0, good, status, word = 0;
	int ready[2], go[2];
	struct race r = { .signals = 1 };
	long long t = ue_now_us();
	char got;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, race_event("rg_mfork u32 a", "rg_mfork", &ctl));
	r.addr = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r.addr);
	/* a fork takes longer than a registration: twice the ioctl's */
	r.spin = 2 * uet_spins_per_reg(fd, "rg_mfork u32 a", r.addr, 4, 0);
	ASSERT_LT(0, r.spin);
	ASSERT_EQ(0, race_start(&r, move_over_word));
	for (i = 0; i < FORK_ROUNDS; i++) {
		c = fill_of(i);
		ASSERT_EQ(0, map_filled(r.addr, r.page, 0));
		ASSERT_EQ(0, uet_register_bits(fd, "rg_mfork u32 a", r.addr, 4, RACE_BIT,
					       0, NULL));
		r.spare = mmap(NULL, r.page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, r.spare);
		memset(r.spare, c, r.page);
		race_go(&r);
		pid = fork();
		if (pid == 0)
			_exit(fork_child(r.addr, r.page, c, ready[1], go[0]));
		race_wait(&r);
		ASSERT_LE(0, pid);
		ASSERT_EQ(1, read(ready[0], &got, 1));
		word += got == 'w';
		ASSERT_EQ(0, uet_enable("", "rg_mfork", 0));
		good = still_filled(_metadata, r.addr, r.page, c, i, bad, "disabled");
		ASSERT_EQ(1, write(go[1], &got, 1));
		ASSERT_EQ(0, uet_enable("", "rg_mfork", 1));
		good = good && still_filled(_metadata, r.addr, r.page, c, i, bad, "enabled");
		ASSERT_EQ(1, write(go[1], &got, 1));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("round %d: the child (%s) exited with %#x", i,
			       got == 'w' ? "had the word" : "had the new page", status);
		EXPECT_EQ(0, uet_unregister_bits(fd, r.addr, RACE_BIT)) TH_LOG("round %d", i);
		good = good && still_filled(_metadata, r.addr, r.page, c, i, bad,
					    "DIAG_IOCSUNREG");
		bad += !good;
		munmap(r.addr, r.page);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d rounds wrote into the parent's new page", bad, i);
	TH_LOG("%d rounds in %lld ms (head starts up to %u spins): the child had the word in %d",
	       i, (ue_now_us() - t) / 1000, r.spin, word);
	race_stop(&r);
	signal(SIGUSR1, SIG_DFL);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	close(fd);
	race_event_end("rg_mfork", ctl);
}

/*
 * Failure: kernel memory that a registration makes the kernel allocate,
 * not charged to the caller: a process in a memory-limited cgroup could
 * grow kernel memory past its limit through user_events. A child in a
 * cgroup whose memory.max is 8 MiB registers events until refused: the
 * kernel stops it at its limit (ENOMEM, or the cgroup's OOM killer) long
 * before user_events_max, and the host still registers afterwards.
 */
#define CG_ROOT "/tmp/rg_cgroup"
#define CG CG_ROOT "/rg_ue"

/* cgroup2 at CG_ROOT with the memory controller for its children; NULL, or why not */
static const char *rg_cg_mount(void)
{
	mkdir(CG_ROOT, 0755);
	if (mount("none", CG_ROOT, "cgroup2", 0, NULL) && errno != EBUSY)
		return "no cgroup2 (CONFIG_CGROUPS, CONFIG_MEMCG)";
	if (uet_write_file(CG_ROOT "/cgroup.subtree_control", "+memory", O_TRUNC)) {
		umount(CG_ROOT);
		return "no memory controller (CONFIG_MEMCG)";
	}
	return NULL;
}

TEST_F_TIMEOUT(slow, memcg_charged, 600)
{
	int p[2], n = -1, err = 0, status, fd;
	/* the child's count of registrations, read after it is gone */
	int *done;
	const char *why;
	char *events;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	why = rg_cg_mount();
	if (why)
		SKIP(return, "%s", why);
	rmdir(CG);
	ASSERT_EQ(0, mkdir(CG, 0755));
	ASSERT_EQ(0, uet_write_file(CG "/memory.max", "8M", O_TRUNC));
	done = mmap(NULL, sizeof(*done), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, done);
	*done = 0;
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char desc[128], me[16];
		static __u32 word;
		int cfd, i, ret = 0;

		snprintf(me, sizeof(me), "%d", getpid());
		if (uet_write_file(CG "/cgroup.procs", me, O_TRUNC))
			_exit(2);
		cfd = open(UE_DATA, O_RDWR);
		/* enable-bit events: no status-page slot, up to user_events_max */
		for (i = 0; i < 40000 && !ret; i++) {
			snprintf(desc, sizeof(desc),
				 "rg_mem_%d u64 a; u64 b; u64 c; u64 d; char[64] e", i);
			ret = uet_register_bits(cfd, desc, &word, 4, 0, 0, NULL);
			if (!ret)
				ret = uet_unregister_bits(cfd, &word, 0) ? -1 : 0;
			if (!ret)
				__atomic_store_n(done, i + 1, __ATOMIC_RELAXED);
		}
		if (write(p[1], &i, sizeof(i)) != sizeof(i) ||
		    write(p[1], &ret, sizeof(ret)) != sizeof(ret))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &n, sizeof(n)) == sizeof(n))
		ASSERT_EQ(sizeof(err), read(p[0], &err, sizeof(err)));
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	events = uet_read_file(CG "/memory.events");
	ASSERT_NE(NULL, events);
	TH_LOG("child: %d events registered, last %d, status 0x%x; %s", *done, err,
	       status, events);
	/* stopped by its limit: refused with ENOMEM, or killed by the OOM killer */
	EXPECT_TRUE((WIFEXITED(status) && err == -ENOMEM) ||
		    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
	EXPECT_EQ(NULL, strstr(events, "max 0\n"));
	free(events);
	/* some events, but stopped well before user_events_max (32768) */
	EXPECT_LT(100, *done);
	EXPECT_GT(30000, *done);
	munmap(done, sizeof(*done));
	/* nothing of it outlives the child: the host registers as before */
	fd = open(UE_DATA, O_RDWR);
	{
		__u32 w = 0;

		EXPECT_EQ(0, uet_register_bits(fd, "rg_mem_host u32 a", &w, 4, 0, 0, NULL));
	}
	close(fd);
	rmdir(CG);
	umount(CG_ROOT);
	rmdir(CG_ROOT);
}

/* Windows held open by the test ----------------------------------------- */

/* Wait up to ue_scale_ms(@base_ms) for @fd to be readable; 1 if it is */
static int rg_wait_readable(int fd, long base_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long long end = ue_now_us() + ue_scale_ms(base_ms) * 1000LL, left;
	int n;

	/* polled once at least: a wait of 0 says whether it is readable now */
	do {
		left = end - ue_now_us();
		n = poll(&p, 1, left > 0 ? (int)(left / 1000) + 1 : 0);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return 0;
	} while (end - ue_now_us() > 0);
	return 0;
}

/* Wait up to ue_scale_ms(@base_ms) for child @pid to exit; its status or -1 */
static int rg_wait_pid(pid_t pid, long base_ms)
{
	long long end = ue_now_us() + ue_scale_ms(base_ms) * 1000LL;
	int status;

	do {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return status;
		if (got < 0)
			return -1;
		usleep(1000);
	} while (ue_now_us() < end);
	return -1;
}

/* Where task @pid is in the kernel (/proc/PID/stack), into the test's log */
static void rg_log_stack(struct __test_metadata *_metadata, const char *who, pid_t pid)
{
	char path[64], *text;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	text = uet_read_file(path);
	TH_LOG("%s (%d) is at:\n%s", who, pid, text ? text : "(unknown)");
	free(text);
}

/*
 * A file system of one file, "text", of RG_FUSE_PAGES pages of x86 NOPs,
 * served by a thread of the test through /dev/fuse: its reads wait for the
 * test when it says so. A READ at hold_off (page 1 unless the test says
 * otherwise) while armed is not answered until rg_fuse_release(): what
 * reads it (uprobes copying the probed instruction as it installs the
 * first breakpoint) waits meanwhile. While eio is set, READs at hold_off
 * fail with EIO, the held one too.
 */
#define RG_FUSE_DIR	"/tmp/rg_fuse"
#define RG_FUSE_FILE	RG_FUSE_DIR "/text"
#define RG_FUSE_PAGES	2
#define RG_FUSE_NODE	2	/* the file's node id; the root's is 1 */

struct rg_fuse {
	int fd;			/* /dev/fuse */
	long page;
	pthread_t thread;
	pthread_mutex_t reply_lock;	/* replies come from two threads */
	int armed;		/* __atomic */
	__u64 hold_off;		/* __atomic: the READ to hold when armed */
	int eio;		/* __atomic */
	int held[2];		/* a pipe: a byte when a READ is held */
	__u64 held_unique;
	__u64 held_off;
	__u32 held_size;
	int running;
};

static int rg_fuse_reply(struct rg_fuse *f, __u64 unique, int err, const void *body,
			 size_t len)
{
	struct fuse_out_header h = {
		.len = sizeof(h) + (err ? 0 : len),
		.error = err,
		.unique = unique,
	};
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)body, err ? 0 : len } };
	ssize_t n;

	pthread_mutex_lock(&f->reply_lock);
	n = writev(f->fd, iov, 2);
	pthread_mutex_unlock(&f->reply_lock);
	return n == (ssize_t)h.len ? 0 : -1;
}

static void rg_fuse_attr(struct rg_fuse *f, __u64 node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->blksize = 4096;
	if (node == 1) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0755;
		a->nlink = 1;
		a->size = RG_FUSE_PAGES * f->page;
		a->blocks = a->size / 512;
	}
}

/* The bytes of a read of @size at @off (NOPs), clipped to the file's end */
static int rg_fuse_read_reply(struct rg_fuse *f, __u64 unique, __u64 off, __u32 size)
{
	static unsigned char nops[RG_FUSE_PAGES * 65536];
	__u64 end = RG_FUSE_PAGES * f->page;

	memset(nops, 0x90, sizeof(nops));
	if (off >= end)
		size = 0;
	else if (size > end - off)
		size = end - off;
	return rg_fuse_reply(f, unique, 0, nops, size);
}

static void *rg_fuse_serve(void *arg)
{
	static char buf[FUSE_MIN_READ_BUFFER + 128 * 1024];
	struct rg_fuse *f = arg;
	struct fuse_in_header *in = (void *)buf;
	void *req = in + 1;

	for (;;) {
		ssize_t n = read(f->fd, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* ENODEV once unmounted */
		if (n < (ssize_t)sizeof(*in))
			return NULL;
		switch (in->opcode) {
		case FUSE_INIT: {
			const struct fuse_init_in *i = req;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = i->max_readahead,
				.max_background = 4,
				.congestion_threshold = 2,
				.max_write = 4096,
				.time_gran = 1,
			};

			rg_fuse_reply(f, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out e = {
				.nodeid = RG_FUSE_NODE,
				.generation = 1,
				.entry_valid = 3600,
				.attr_valid = 3600,
			};

			if (in->nodeid != 1 || strcmp(req, "text")) {
				rg_fuse_reply(f, in->unique, -ENOENT, NULL, 0);
				break;
			}
			rg_fuse_attr(f, RG_FUSE_NODE, &e.attr);
			rg_fuse_reply(f, in->unique, 0, &e, sizeof(e));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out a = { .attr_valid = 3600 };

			rg_fuse_attr(f, in->nodeid, &a.attr);
			rg_fuse_reply(f, in->unique, 0, &a, sizeof(a));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			rg_fuse_reply(f, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			const struct fuse_read_in *r = req;
			char c = 0;

			if (__atomic_load_n(&f->armed, __ATOMIC_ACQUIRE) &&
			    r->offset == __atomic_load_n(&f->hold_off, __ATOMIC_RELAXED)) {
				/* answered by rg_fuse_release() */
				__atomic_store_n(&f->armed, 0, __ATOMIC_RELAXED);
				f->held_unique = in->unique;
				f->held_off = r->offset;
				f->held_size = r->size;
				if (write(f->held[1], &c, 1) == 1)
					break;
			}
			if (__atomic_load_n(&f->eio, __ATOMIC_ACQUIRE) &&
			    r->offset == __atomic_load_n(&f->hold_off, __ATOMIC_RELAXED))
				rg_fuse_reply(f, in->unique, -EIO, NULL, 0);
			else
				rg_fuse_read_reply(f, in->unique, r->offset, r->size);
			break;
		}
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			rg_fuse_reply(f, in->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		default:
			/* not needed here (access(), xattrs...): refused */
			rg_fuse_reply(f, in->unique, -EOPNOTSUPP, NULL, 0);
		}
	}
}

/* Mount it at RG_FUSE_DIR and serve it; 0, or a reason it cannot be */
static const char *rg_fuse_start(struct rg_fuse *f)
{
	char opts[128];

	memset(f, 0, sizeof(*f));
	f->page = getpagesize();
	f->hold_off = f->page;
	pthread_mutex_init(&f->reply_lock, NULL);
	if (pipe(f->held))
		return "pipe";
	f->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (f->fd < 0)
		return "no /dev/fuse (CONFIG_FUSE_FS)";
	mkdir(RG_FUSE_DIR, 0755);
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", f->fd);
	if (mount("rg_fuse", RG_FUSE_DIR, "fuse", MS_NOSUID | MS_NODEV, opts))
		return "mount of a FUSE file system failed";
	if (pthread_create(&f->thread, NULL, rg_fuse_serve, f))
		return "pthread_create";
	f->running = 1;
	return NULL;
}

/*
 * Mount and serve it for a test: 0, or 1 when the test is to end (skipped
 * without FUSE, failed if it cannot be mounted)
 */
static int rg_fuse_begin(struct __test_metadata *_metadata, struct rg_fuse *f)
{
	const char *why = rg_fuse_start(f);

	if (why && f->fd < 0)
		SKIP(return 1, "%s", why);
	EXPECT_EQ(NULL, why) TH_LOG("%s: %s", why, strerror(errno));
	return !!why;
}

/* Answer the READ held, which the test saw come (a byte on f->held) */
static int rg_fuse_release(struct rg_fuse *f)
{
	if (__atomic_load_n(&f->eio, __ATOMIC_ACQUIRE))
		return rg_fuse_reply(f, f->held_unique, -EIO, NULL, 0);
	return rg_fuse_read_reply(f, f->held_unique, f->held_off, f->held_size);
}

static void rg_fuse_stop(struct rg_fuse *f)
{
	if (umount2(RG_FUSE_DIR, 0))
		umount2(RG_FUSE_DIR, MNT_DETACH);
	if (f->running)
		pthread_join(f->thread, NULL);
	close(f->fd);
	close(f->held[0]);
	close(f->held[1]);
	rmdir(RG_FUSE_DIR);
}

/* A process that waits for a byte on @cmd, then does what it says */
struct rg_proc {
	pid_t pid;
	int cmd, reply;		/* the parent's ends */
};

/*
 * Fork one: it maps @len bytes of @fd (on @f) at @off for reading and execution
 * (where a uprobe can be), runs @setup (0 or an exit code), says 'r' and
 * then, per byte read: 'x' exits, 'b' answers with the first byte of the
 * page at @off (0xcc once a breakpoint is there)
 */
static int rg_proc_start(struct rg_proc *p, struct rg_fuse *f, int fd, long len, long off,
			 int (*setup)(void))
{
	int to[2], from[2];
	char c;

	if (pipe(to) || pipe(from))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (!p->pid) {
		unsigned char *m = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
		int ret = m == MAP_FAILED ? 20 : setup ? setup() : 0;

		/* the server's alone: the file system goes with the test */
		close(f->fd);
		close(to[1]);
		close(from[0]);
		if (ret)
			_exit(ret);
		c = 'r';
		if (write(from[1], &c, 1) != 1)
			_exit(21);
		while (read(to[0], &c, 1) == 1) {
			if (c == 'x')
				_exit(0);
			c = __atomic_load_n(m + (off ? 0 : getpagesize()), __ATOMIC_RELAXED);
			if (write(from[1], &c, 1) != 1)
				_exit(21);
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	p->cmd = to[1];
	p->reply = from[0];
	/* its 'r', or its exit */
	if (!rg_wait_readable(p->reply, 30000) || read(p->reply, &c, 1) != 1 || c != 'r')
		return -1;
	return 0;
}

/* Send @c; for 'b', the byte it answers (or -1) */
static int rg_proc_say(struct rg_proc *p, char c)
{
	unsigned char got;

	if (write(p->cmd, &c, 1) != 1)
		return -1;
	if (c != 'b')
		return 0;
	if (!rg_wait_readable(p->reply, 30000) || read(p->reply, &got, 1) != 1)
		return -1;
	return got;
}

static void rg_proc_end(struct rg_proc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	close(p->cmd);
	close(p->reply);
}

/* The exiting process's enable bit, in its copy of this .bss */
static __u32 rg_exit_word;

/* What the process that exits in exit_during_uprobe_enable registers */
static int rg_exit_setup(void)
{
	int fd = open(UE_DATA, O_RDWR), ret;

	if (fd < 0)
		return 22;
	ret = uet_register_bits(fd, "rg_exitup_ev u32 a", &rg_exit_word, 4, 0, 0, NULL);
	/*
	 * Only the enabler keeps the event from now on; and the exit closes
	 * no fd of user_events_data, whose release waits for event_mutex
	 */
	close(fd);
	return ret ? 22 : 0;
}

#define RG_UPROBE	"rg_exitup"
#define RG_UPROBE_EN	TRACEFS "events/uprobes/" RG_UPROBE "/enable"

/*
 * Failure: the exit of a process that used the enable-bit ABI, while an
 * administrator enabled a uprobe on a file it mapped, hung tracing. The
 * release of its memory, by whoever drops the last reference, dropped its
 * enablers under event_mutex: here uprobes' register_for_each_vma(), which
 * holds each memory that maps the file (mmget()) from the start of its walk
 * until it is done with that one, and runs under event_mutex (the enable's)
 * and dup_mmap_sem. Taking event_mutex again there is a self-deadlock:
 * the enable never returns, and every later fork() waits on dup_mmap_sem.
 *
 * The window is held open, not raced: the file is served by the test
 * (FUSE). Two processes map it, T from offset 0 and B from page 1 (where
 * the probe is), so that uprobes' walk (which takes the mappings in the
 * order of their offsets, and does the last one first) does B first and T
 * last. At B it copies the probed instruction from the file: a READ the
 * test holds. When that READ comes, every memory is held, so T exits (its
 * enable bit registered) and is waited for: its memory lives on, held by
 * the walk alone, and its event with it. Then the READ is answered: the
 * walk installs B's breakpoint, then T's, and drops T's memory, the last
 * reference: its release runs in the enabling task, under event_mutex.
 * The enable must return (0), B must have its breakpoint, and T's event,
 * created through the enable-bit ABI and held by nothing else, must go.
 *
 * On the kernel before the fix: lockdep's "possible recursive locking
 * detected" (event_mutex, user_event_mm_notifier_release() from mmput() in
 * register_for_each_vma()), and the enable never returned.
 *
 * The other path of the issue, a reader of trace printing user stack
 * traces (trace_user_stack_print() drops a task's memory under
 * trace_event_sem), has no point at which a test could hold it: the same
 * release, which now takes no sleeping lock, serves both.
 */
TEST_F_TIMEOUT(slow, exit_during_uprobe_enable, 300)
{
	char probe[128], held = 0;
	struct rg_proc t = { 0 }, b = { 0 };
	struct rg_fuse f;
	int file, res[2], status, ret = -1;
	pid_t en;

	if (uet_skip(_metadata, 0))
		return;
	if (access(TRACEFS "uprobe_events", W_OK))
		SKIP(return, "no uprobe_events (CONFIG_UPROBE_EVENTS)");
	if (rg_fuse_begin(_metadata, &f))
		return;
	file = open(RG_FUSE_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, file) TH_LOG("open %s: %s", RG_FUSE_FILE, strerror(errno));
	snprintf(probe, sizeof(probe), "p:uprobes/%s %s:0x%lx", RG_UPROBE, RG_FUSE_FILE,
		 f.page);
	/* one a failed run left behind */
	uet_write_file(TRACEFS "uprobe_events", "-:uprobes/" RG_UPROBE, O_APPEND);
	ASSERT_EQ(0, uet_write_file(TRACEFS "uprobe_events", probe, O_APPEND));

	/* T maps the file from 0 and registers its bit; B maps page 1 */
	ASSERT_EQ(0, rg_proc_start(&t, &f, file, RG_FUSE_PAGES * f.page, 0, rg_exit_setup));
	ASSERT_EQ(0, rg_proc_start(&b, &f, file, f.page, f.page, NULL));
	ASSERT_TRUE(uet_event_exists("user_events", "rg_exitup_ev"));

	__atomic_store_n(&f.armed, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pipe(res));
	/* the enable, in a process of its own: it may never return */
	en = fork();
	ASSERT_LE(0, en);
	if (!en) {
		close(f.fd);
		ret = uet_write_file(RG_UPROBE_EN, "1", O_TRUNC);
		_exit(write(res[1], &ret, sizeof(ret)) == sizeof(ret) ? 0 : 1);
	}
	close(res[1]);
	ASSERT_TRUE(rg_wait_readable(f.held[0], 60000))
		TH_LOG("wait expired: the READ of the probed page (the enable %s)",
		       rg_wait_readable(res[0], 0) ? "returned" : "did not start it");
	ASSERT_EQ(1, read(f.held[0], &held, 1));
	/* the walk holds T's memory: T exits, and is waited for */
	ASSERT_EQ(0, rg_proc_say(&t, 'x'));
	status = rg_wait_pid(t.pid, 60000);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("T: status %#x", status);
		rg_log_stack(_metadata, "T", t.pid);
		rg_log_stack(_metadata, "the enable", en);
	}
	t.pid = 0;
	/* its memory lives on, and its enabler with it: the window is open */
	EXPECT_TRUE(uet_event_exists("user_events", "rg_exitup_ev"));
	EXPECT_FALSE(rg_wait_readable(res[0], 0)) TH_LOG("the enable returned already");

	ASSERT_EQ(0, rg_fuse_release(&f));
	ASSERT_TRUE(rg_wait_readable(res[0], 120000)) {
		TH_LOG("wait expired: the uprobe enable to return (the exit hung tracing)");
		rg_log_stack(_metadata, "the enable", en);
	}
	ASSERT_EQ(sizeof(ret), read(res[0], &ret, sizeof(ret)));
	EXPECT_EQ(0, ret) TH_LOG("enabling the uprobe: %s", strerror(-ret));
	status = rg_wait_pid(en, 60000);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* the walk did B first: its breakpoint is there */
	EXPECT_EQ(0xcc, rg_proc_say(&b, 'b'));
	/* T's event went with its memory, a moment later */
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_exitup_ev", UE_WAIT_MS))
		TH_LOG("wait expired: T's event to go with its memory");

	EXPECT_EQ(0, uet_write_file(RG_UPROBE_EN, "0", O_TRUNC));
	rg_proc_end(&b);
	rg_proc_end(&t);
	EXPECT_EQ(0, uet_write_file(TRACEFS "uprobe_events", "-:uprobes/" RG_UPROBE,
				    O_APPEND));
	close(file);
	close(res[0]);
	rg_fuse_stop(&f);
}

/* A userfaultfd that handles faults from the kernel too (root), or -1 */
static int rg_uffd(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	/* a blocking userfaultfd polls as always ready (EPOLLERR) */
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The tests that answer the kernel's faults themselves: a userfaultfd each
 * (self->uffd), or skipped where the kernel has none. The test closes it,
 * or its exit does.
 */
FIXTURE(uffd) {
	int uffd;
};

FIXTURE_SETUP(uffd)
{
	self->uffd = rg_uffd();
	if (self->uffd < 0)
		SKIP(return, "no userfaultfd (CONFIG_USERFAULTFD): %s", strerror(errno));
}

FIXTURE_TEARDOWN(uffd) {}

/* Register [@addr, +@len) of @uffd in @mode (UFFDIO_REGISTER_MODE_*); 0 or -1 */
static int rg_uffd_register(int uffd, void *addr, long len, __u64 mode)
{
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)addr, .len = len },
		.mode = mode,
	};

	return ioctl(uffd, UFFDIO_REGISTER, &reg) ? -1 : 0;
}

/* Write-protect [@addr, +@len) through @uffd (@on), or take it off (wakes) */
static int rg_uffd_wp(int uffd, void *addr, long len, int on)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (unsigned long)addr, .len = len },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) ? -1 : 0;
}

/*
 * The next fault @uffd reports, within ue_scale_ms(@base_ms): 0 with its
 * message in *@msg, or -1
 */
static int rg_uffd_fault(int uffd, struct uffd_msg *msg, long base_ms)
{
	long long end = ue_now_us() + ue_scale_ms(base_ms) * 1000LL;
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	long long left;
	ssize_t n;

	/* nonblocking (rg_uffd()): a fault may be woken before it is read */
	while ((left = end - ue_now_us()) > 0) {
		if (poll(&p, 1, (int)(left / 1000) + 1) < 0 && errno != EINTR)
			return -1;
		n = read(uffd, msg, sizeof(*msg));
		if (n == sizeof(*msg))
			return msg->event == UFFD_EVENT_PAGEFAULT ? 0 : -1;
		if (n >= 0 || errno != EAGAIN)
			return -1;
	}
	return -1;
}

/* Perf events counting tracepoint @id, one per CPU; how many, or -1 */
static int rg_perf_cpus(int id, int *fds, int max)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n;

	for (n = 0; n < cpus && n < max; n++) {
		fds[n] = uet_perf_open(id, -1, n, 0);
		if (fds[n] < 0)
			return -1;
	}
	return n;
}

/* What they counted, all together */
static long long rg_perf_count(const int *fds, int n)
{
	long long sum = 0;
	__u64 v[2];
	int i;

	for (i = 0; i < n; i++)
		if (read(fds[i], v, sizeof(v)) == sizeof(v))
			sum += v[0];
	return sum;
}

static void rg_perf_close(const int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

struct rg_writer {
	int fd;
	const void *buf;
	size_t len;
	ssize_t ret;
	int err;
};

static void *rg_write_thread(void *arg)
{
	struct rg_writer *w = arg;

	w->ret = write(w->fd, w->buf, w->len);
	w->err = errno;
	return NULL;
}

#define RG_PW_INST	"instances/rg_pw/"
#define RG_PW_TRACE	TRACEFS RG_PW_INST "trace"
/* more than perf takes (8180), less than 16 KiB sub-buffers do (16344) */
#define RG_PW_LEN	12000

/*
 * Failure: a perf event attached between the check of a write's size
 * against the consumers and the call of their probes got a record larger
 * than perf takes: perf_trace_buf_alloc() WARNs ("perf buffer not large
 * enough"), which panics a panic_on_warn machine, and the write was taken
 * though perf could not have it (so much for "recorded by all or by none").
 *
 * The window is held open: the write's payload runs into a page that is
 * not there, registered with a userfaultfd. The event's one consumer,
 * ftrace in an instance with 16 KiB sub-buffers, takes the payload; its
 * copy (page faults disabled, as in a tracepoint) finds the page missing,
 * and the write is tried again once the kernel faulted the pages in: that
 * fault waits for the test. Meanwhile perf events attach, on every CPU.
 * The write must then fail with E2BIG, recorded by nobody. Then, perf
 * attached, a write of perf's largest payload goes to both, and a larger
 * one is refused, until perf detaches.
 *
 * On the kernel before the fix: "WARNING: ... perf_trace_buf_alloc" in
 * the kernel log, and the write returned 12004 (ftrace had it, perf not).
 */
TEST_F_TIMEOUT(uffd, perf_attach_during_write, 300)
{
	static char fill[65536];
	int fd = open(UE_DATA, O_RDWR), uffd, perf[64], np, id;
	struct rg_writer w = { .fd = fd };
	struct uffdio_copy copy = { 0 };
	long page = getpagesize(), max;
	struct user_status_reg reg;
	struct uffd_msg msg;
	pthread_t th;
	char *buf;

	if (uet_skip(_metadata, UE_NEED_PERF))
		return;
	uffd = self->uffd;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_pw u8 a", &reg));
	id = uet_tracepoint_id("rg_pw");
	ASSERT_LT(0, id);
	rmdir(TRACEFS RG_PW_INST);
	ASSERT_EQ(0, mkdir(TRACEFS RG_PW_INST, 0755));
	ASSERT_EQ(0, uet_write_file(TRACEFS RG_PW_INST "buffer_subbuf_size_kb", "16", O_TRUNC));
	max = uet_ftrace_max_payload(RG_PW_INST);
	ASSERT_LE(RG_PW_LEN, max);
	ASSERT_EQ(0, uet_enable(RG_PW_INST, "rg_pw", 1));

	/* [index][payload] from 4 bytes before page 1 into page 3, which is missing */
	buf = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_GE(4 * page, page + RG_PW_LEN);
	ASSERT_LT(3 * page, page + RG_PW_LEN);
	memset(fill, 0x5a, sizeof(fill));
	memcpy(buf, fill, 3 * page);
	memcpy(buf + page - 4, &reg.write_index, 4);
	ASSERT_EQ(0, rg_uffd_register(uffd, buf + 3 * page, page, UFFDIO_REGISTER_MODE_MISSING));
	w.buf = buf + page - 4;
	w.len = 4 + RG_PW_LEN;
	ASSERT_EQ(0, pthread_create(&th, NULL, rg_write_thread, &w));
	/* the writer's second try, faulting the pages in, waits for us */
	ASSERT_EQ(0, rg_uffd_fault(uffd, &msg, 60000))
		TH_LOG("wait expired: the write's fault on its missing page");
	EXPECT_EQ((unsigned long)(buf + 3 * page), msg.arg.pagefault.address & ~(page - 1));
	EXPECT_EQ(0, uet_count_in(RG_PW_TRACE, " rg_pw:"));
	np = rg_perf_cpus(id, perf, 64);
	ASSERT_LT(0, np) TH_LOG("perf_event_open: %s", strerror(errno));
	copy.dst = (unsigned long)(buf + 3 * page);
	copy.src = (unsigned long)fill;
	copy.len = page;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_COPY, &copy));
	pthread_join(th, NULL);
	EXPECT_EQ(-1, w.ret) TH_LOG("the write returned %zd", w.ret);
	EXPECT_EQ(E2BIG, w.err);
	EXPECT_EQ(0, rg_perf_count(perf, np));
	EXPECT_EQ(0, uet_count_in(RG_PW_TRACE, " rg_pw:"));

	/* perf's largest payload: both get it; one more byte, nobody */
	EXPECT_EQ(4 + UE_PERF_MAX_PAYLOAD, write(fd, w.buf, 4 + UE_PERF_MAX_PAYLOAD));
	EXPECT_EQ(-1, write(fd, w.buf, 4 + UE_PERF_MAX_PAYLOAD + 1));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(-1, write(fd, w.buf, w.len));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(1, rg_perf_count(perf, np));
	EXPECT_EQ(1, uet_count_in(RG_PW_TRACE, " rg_pw:"));
	rg_perf_close(perf, np);
	/* perf gone: ftrace takes the larger one */
	EXPECT_EQ(w.len, write(fd, w.buf, w.len));
	EXPECT_EQ(2, uet_count_in(RG_PW_TRACE, " rg_pw:"));

	EXPECT_EQ(0, uet_enable(RG_PW_INST, "rg_pw", 0));
	EXPECT_EQ(0, rmdir(TRACEFS RG_PW_INST));
	munmap(buf, 4 * page);
	close(uffd);
	close(fd);
	EXPECT_EQ(0, uet_delete_named("rg_pw"));
}

struct rg_unreg {
	int fd;
	void *addr;
	int bit;
	int ret;
};

static void *rg_unreg_thread(void *arg)
{
	struct rg_unreg *u = arg;

	u->ret = uet_unregister_bits(u->fd, u->addr, u->bit);
	return NULL;
}

/* Wait up to ue_scale_ms(@base_ms) for bit @bit of @word to be @want; 1 if so */
static int rg_wait_bit(const __u32 *word, int bit, int want, long base_ms)
{
	long long end = ue_now_us() + ue_scale_ms(base_ms) * 1000LL;

	do {
		if (!!(__atomic_load_n(word, __ATOMIC_RELAXED) & (1u << bit)) == want)
			return 1;
		usleep(1000);
	} while (ue_now_us() < end);
	return 0;
}

/*
 * The child of fork_during_unregister: its copy of the word has the bit
 * (2 if not); after the parent's disable (a byte on @go) the bit clears
 * (1 if not), after its enable it sets again (3 if not). A byte on @ready
 * after each.
 */
static int rg_funreg_child(const __u32 *word, int ready, int go)
{
	char c = 0;

	if (!(__atomic_load_n(word, __ATOMIC_RELAXED) & (1u << 3)))
		return 2;
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		return 4;
	if (!rg_wait_bit(word, 3, 0, 30000))
		return 1;
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		return 4;
	return rg_wait_bit(word, 3, 1, 30000) ? 0 : 3;
}

/*
 * The fork/unregister race upstream fixed in Linux 7.2-rc2 (a
 * use-after-free in its copy of the enablers, "refcount_t: addition on
 * 0"): one thread forks while another unregisters the enabler being
 * copied. Here fork() copies the enablers under the parent's lock, which
 * the unregistration takes to unlink one, so nothing is freed under the
 * copy (KASAN checks). But the copy skipped an enabler being unregistered:
 * the child's copy of the word, made before the parent cleared its bit,
 * kept the bit set, and nothing ever cleared it. The child must have an
 * enabler of its own for it, as after a fork before the unregistration.
 *
 * The window is held open: the word's page is write-protected through a
 * userfaultfd, so the unregistration's clear of the bit (the event is
 * enabled) waits for the test, the enabler marked as being unregistered.
 * The test forks then. The child's bit is set; after a disable it clears,
 * after an enable it sets again. Then the unregistration completes: 0, the
 * parent's bit clear and its enabler gone; the child exits with its copy.
 *
 * On the kernel before the fix: the child's bit stayed set after the
 * disable (its exit status 1).
 */
TEST_F_TIMEOUT(uffd, fork_during_unregister, 300)
{
	int fd = open(UE_DATA, O_RDWR), ctl, uffd, ready[2], go[2], status;
	struct rg_unreg u = { .fd = fd, .bit = 3 };
	long page = getpagesize();
	struct uffd_msg msg;
	__u32 *word;
	pthread_t th;
	char c = 0;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	uffd = self->uffd;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, status_event("rg_funreg u32 a", &ctl));
	ASSERT_EQ(0, uet_enable("", "rg_funreg", 1));
	word = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, word);
	*word = 0;
	ASSERT_EQ(0, uet_register_bits(fd, "rg_funreg u32 a", word, 4, 3, 0, NULL));
	ASSERT_EQ(1u << 3, __atomic_load_n(word, __ATOMIC_RELAXED));
	ASSERT_EQ(0, rg_uffd_register(uffd, word, page, UFFDIO_REGISTER_MODE_WP))
		TH_LOG("UFFDIO_REGISTER (write-protect): %s", strerror(errno));
	ASSERT_EQ(0, rg_uffd_wp(uffd, word, page, 1));

	u.addr = word;
	ASSERT_EQ(0, pthread_create(&th, NULL, rg_unreg_thread, &u));
	ASSERT_EQ(0, rg_uffd_fault(uffd, &msg, 60000))
		TH_LOG("wait expired: DIAG_IOCSUNREG's write of the word");
	EXPECT_TRUE(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP);
	EXPECT_EQ(1u << 3, __atomic_load_n(word, __ATOMIC_RELAXED));

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(rg_funreg_child(word, ready[1], go[0]));
	ASSERT_TRUE(rg_wait_readable(ready[0], 60000));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, uet_enable("", "rg_funreg", 0));
	ASSERT_EQ(1, write(go[1], &c, 1));
	if (rg_wait_readable(ready[0], 60000) && read(ready[0], &c, 1) == 1) {
		ASSERT_EQ(0, uet_enable("", "rg_funreg", 1));
		ASSERT_EQ(1, write(go[1], &c, 1));
	}
	status = rg_wait_pid(pid, 120000);
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("child: status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child: %s", WEXITSTATUS(status) == 1 ?
		       "its bit stayed set after the disable: no enabler of its own" :
		       WEXITSTATUS(status) == 2 ? "its copy of the word had no bit" :
		       WEXITSTATUS(status) == 3 ? "its bit did not come back" : "pipes");

	/* the unregistration goes on: write-protection off, the fault woken */
	ASSERT_EQ(0, rg_uffd_wp(uffd, word, page, 0));
	pthread_join(th, NULL);
	EXPECT_EQ(0, u.ret);
	EXPECT_EQ(0, __atomic_load_n(word, __ATOMIC_RELAXED));
	EXPECT_EQ(-ENOENT, uet_unregister_bits(fd, word, 3));

	EXPECT_EQ(0, uet_enable("", "rg_funreg", 0));
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	munmap(word, page);
	close(uffd);
	close(fd);
	close(ctl);
	EXPECT_EQ(0, uet_delete_named("rg_funreg"));
}

/* uet_enable() of @name to @on from a thread: a byte on @done after */
struct rg_enabling {
	const char *name;
	int on, ret, done;
};

static void *rg_enable_thread(void *arg)
{
	struct rg_enabling *en = arg;
	char c = 0;

	en->ret = uet_enable("", en->name, en->on);
	if (write(en->done, &c, 1) != 1)
		en->ret = -EPIPE;
	return NULL;
}

/*
 * Failure: an enable or disable that waits for a process's page (its
 * userfaultfd, a file): the tracer's echo into "enable" hangs, event_mutex
 * held; or a kernel worker that waits on it, which a process could hold
 * for as long as it liked. Word A is in anonymous memory a userfaultfd
 * write-protects, word B in a private memfd mapping whose private copy
 * the test drops (MADV_DONTNEED) before each change, so that no page is
 * there. The enable and the disable (from a thread) must return with the
 * userfaultfd unanswered; B's bit follows from the worker, which faults
 * the file's page in, in the process's copy (the file reads 0); the
 * userfaultfd is sent no fault (the worker does not wait on it), and A's
 * bit follows once the test lifts the write protection. An enable and a
 * disable (and an enable again) while A is held leave the bits as the
 * last one says: the worker writes the state of the moment it writes,
 * never a stale one.
 */
TEST_F_TIMEOUT(uffd, enable_waits_for_no_fault, 300)
{
	int fd = open(UE_DATA, O_RDWR), ctl, uffd, mfd, done[2], step, back;
	struct rg_enabling en = { .name = "rg_nowait" };
	long page = getpagesize();
	__u32 *a, *b, fword = 1;
	struct uffd_msg msg;
	pthread_t th;
	char c;

	if (uet_skip(_metadata, 0))
		return;
	uffd = self->uffd;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, status_event("rg_nowait u32 a", &ctl));
	ASSERT_EQ(0, pipe(done));
	en.done = done[1];

	a = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	*a = 0;
	ASSERT_EQ(0, uet_register_bits(fd, "rg_nowait u32 a", a, 4, 1, 0, NULL));
	ASSERT_EQ(0, rg_uffd_register(uffd, a, page, UFFDIO_REGISTER_MODE_WP))
		TH_LOG("UFFDIO_REGISTER (write-protect): %s", strerror(errno));
	mfd = memfd_create("rg_nowait", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, page));
	b = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, mfd, 0);
	ASSERT_NE(MAP_FAILED, b);
	ASSERT_EQ(0, __atomic_load_n(b, __ATOMIC_RELAXED));
	ASSERT_EQ(0, uet_register_bits(fd, "rg_nowait u32 a", b, 4, 2, 0, NULL));

	for (step = 1; step >= 0; step--) {
		ASSERT_EQ(0, madvise(b, page, MADV_DONTNEED));
		ASSERT_EQ(0, rg_uffd_wp(uffd, a, page, 1));
		en.on = step;
		ASSERT_EQ(0, pthread_create(&th, NULL, rg_enable_thread, &en));
		back = rg_wait_readable(done[0], 60000);
		if (!back)	/* answer the fault, or the thread never returns */
			rg_uffd_wp(uffd, a, page, 0);
		pthread_join(th, NULL);
		ASSERT_TRUE(back) TH_LOG("wait expired: the %s to return",
					 step ? "enable" : "disable");
		ASSERT_EQ(1, read(done[0], &c, 1));
		ASSERT_EQ(0, en.ret)
			TH_LOG("%s: %s", step ? "enable" : "disable", strerror(-en.ret));
		EXPECT_TRUE(rg_wait_bit(b, 2, step, 30000))
			TH_LOG("wait expired: word B's bit to be %d", step);
		/* the process's copy changed, never the file */
		ASSERT_EQ(sizeof(fword), pread(mfd, &fword, sizeof(fword), 0));
		EXPECT_EQ(0, fword);
		/*
		 * No worker waits on the userfaultfd: it is sent no fault (a
		 * kernel that waited sends the worker's at once)
		 */
		back = rg_uffd_fault(uffd, &msg, 1000);
		EXPECT_NE(0, back)
			TH_LOG("a kernel worker waits on the userfaultfd (%s fault at %llx)",
			       msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP ?
			       "write-protect" : "missing",
			       (unsigned long long)msg.arg.pagefault.address);
		/* A's page is write-protected: its bit is as it was */
		EXPECT_EQ(!step, !!(__atomic_load_n(a, __ATOMIC_RELAXED) & (1u << 1)));
		/* and follows once it is not */
		ASSERT_EQ(0, rg_uffd_wp(uffd, a, page, 0));
		EXPECT_TRUE(rg_wait_bit(a, 1, step, 30000))
			TH_LOG("wait expired: word A's bit to be %d", step);
	}

	/* changes in a row while the worker waits: the last one wins */
	for (step = 2; step <= 3; step++) {
		int k, want = step == 3;

		ASSERT_EQ(0, rg_uffd_wp(uffd, a, page, 1));
		for (k = 0; k < step; k++) {
			en.on = !(k % 2);
			ASSERT_EQ(0, pthread_create(&th, NULL, rg_enable_thread, &en));
			back = rg_wait_readable(done[0], 60000);
			if (!back)
				rg_uffd_wp(uffd, a, page, 0);
			pthread_join(th, NULL);
			ASSERT_TRUE(back) TH_LOG("wait expired: change %d of %d to return",
						 k + 1, step);
			ASSERT_EQ(1, read(done[0], &c, 1));
			ASSERT_EQ(0, en.ret);
		}
		EXPECT_EQ(0, __atomic_load_n(a, __ATOMIC_RELAXED) & (1u << 1));
		ASSERT_EQ(0, rg_uffd_wp(uffd, a, page, 0));
		EXPECT_TRUE(rg_wait_bit(a, 1, want, 30000))
			TH_LOG("wait expired: word A's bit to be %d", want);
		EXPECT_TRUE(rg_wait_bit(b, 2, want, 30000))
			TH_LOG("wait expired: word B's bit to be %d", want);
		/* and stays: no late write of an earlier state */
		ue_sleep_ms(300);
		EXPECT_EQ(want, !!(__atomic_load_n(a, __ATOMIC_RELAXED) & (1u << 1)));
		EXPECT_EQ(want, !!(__atomic_load_n(b, __ATOMIC_RELAXED) & (1u << 2)));
		if (want) {
			ASSERT_EQ(0, uet_enable("", "rg_nowait", 0));
			EXPECT_TRUE(rg_wait_bit(a, 1, 0, 30000));
		}
	}

	EXPECT_EQ(0, uet_unregister_bits(fd, a, 1));
	EXPECT_EQ(0, uet_unregister_bits(fd, b, 2));
	close(done[0]);
	close(done[1]);
	munmap(a, page);
	munmap(b, page);
	close(mfd);
	close(uffd);
	close(fd);
	close(ctl);
	EXPECT_EQ(0, uet_delete_named("rg_nowait"));
}

/* Deleting events whose records a buffer holds -------------------------- */

#define RG_INST "instances/rg_inst/"

/* A record of "u32 n; __rel_loc char[] s": @n, and "ab" */
static int write_n_ab(int fd, int widx, __u32 n)
{
	struct {
		int idx;
		__u32 n, loc;
		char s[3];
	} rec = { widx, n, 3 << 16, "ab" };
	/* not the padding after s */
	size_t len = offsetof(typeof(rec), s) + sizeof(rec.s);

	return write(fd, &rec, len) == (ssize_t)len ? 0 : -errno;
}

/*
 * Failure: deleting an event emptied the buffer of every
 * instance it had been enabled in, the kernel's records and everyone's.
 * Enabled in instance rg_inst only: 3 records, two trace_marker lines
 * there and one at the top, then deleted through dynamic_events: both
 * buffers keep everything, the event's records decoded with their fields,
 * its format in the instance's events/user_events_retired/; the name
 * registers again at once with other fields, both decoded. Once the
 * instance's buffer is cleared, the retired event goes, its format too.
 */
TEST(delete_keeps_instance_records)
{
	struct { int idx; __u32 m; } rec;
	struct user_status_reg reg;
	char path[512], line[64];
	int fd, id, i;

	if (uet_skip(_metadata, 0))
		return;
	uet_write_file(UE_DYN, "-:rg_inst", O_APPEND);
	rmdir(TRACEFS RG_INST);
	ASSERT_EQ(0, mkdir(TRACEFS RG_INST, 0755));
	ASSERT_EQ(0, uet_clear_trace());
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_inst u32 n; __rel_loc char[] s", &reg));
	id = uet_tracepoint_id("rg_inst");
	ASSERT_LT(0, id);
	ASSERT_EQ(0, uet_enable(RG_INST, "rg_inst", 1));
	for (i = 1; i <= 3; i++)
		ASSERT_EQ(0, write_n_ab(fd, reg.write_index, i));
	ASSERT_EQ(0, uet_enable(RG_INST, "rg_inst", 0));
	ASSERT_EQ(0, uet_write_file(TRACEFS RG_INST "trace_marker", "rg_imark1", 0));
	ASSERT_EQ(0, uet_write_file(TRACEFS RG_INST "trace_marker", "rg_imark2", 0));
	ASSERT_EQ(0, uet_write_file(TRACEFS "trace_marker", "rg_tmark", 0));
	close(fd);

	ASSERT_EQ(0, uet_write_file(UE_DYN, "-:rg_inst", O_APPEND));
	EXPECT_EQ(1, uet_instance_trace_count(RG_INST, "tracing_mark_write: rg_imark1\n"));
	EXPECT_EQ(1, uet_instance_trace_count(RG_INST, "tracing_mark_write: rg_imark2\n"));
	EXPECT_EQ(1, uet_trace_count("tracing_mark_write: rg_tmark\n"));
	for (i = 1; i <= 3; i++) {
		snprintf(line, sizeof(line), "rg_inst: n=%d s=ab\n", i);
		EXPECT_EQ(1, uet_instance_trace_count(RG_INST, line)) TH_LOG("no '%s'", line);
	}
	EXPECT_FALSE(uet_event_exists("user_events", "rg_inst"));
	uet_retired_dir(RG_INST, "user_events", "rg_inst", id, path, sizeof(path));
	EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s", path);
	/* its system's directory has a system's files; the event's, its format only */
	EXPECT_EQ(0, access(TRACEFS RG_INST "events/user_events_retired/enable", F_OK));
	EXPECT_EQ(0, access(TRACEFS RG_INST "events/user_events_retired/filter", F_OK));

	/* the name again, other fields, a new type; both decoded */
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_inst u32 m", &reg));
	EXPECT_NE(id, uet_tracepoint_id("rg_inst"));
	ASSERT_EQ(0, uet_enable(RG_INST, "rg_inst", 1));
	rec.idx = reg.write_index;
	rec.m = 7;
	EXPECT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
	ASSERT_EQ(0, uet_enable(RG_INST, "rg_inst", 0));
	close(fd);
	EXPECT_EQ(1, uet_instance_trace_count(RG_INST, "rg_inst: m=7\n"));
	EXPECT_EQ(1, uet_instance_trace_count(RG_INST, "rg_inst: n=2 s=ab\n"));

	/* the instance's buffer cleared: the retired event goes */
	ASSERT_EQ(0, uet_write_file(TRACEFS RG_INST "trace", "", O_TRUNC));
	EXPECT_EQ(0, uet_reclaim_retired());
	EXPECT_EQ(-1, access(path, F_OK));
	uet_retired_dir("", "user_events", "rg_inst", id, path, sizeof(path));
	EXPECT_EQ(-1, access(path, F_OK));
	EXPECT_EQ(0, uet_write_file(UE_DYN, "-:rg_inst", O_APPEND));
	EXPECT_EQ(0, rmdir(TRACEFS RG_INST));
}

#define RG_RP "instances/rg_rp/"

/* Read @count bytes of trace_pipe of CPU 0 of instance rg_rp; 0 or -errno */
static int rp_read_pipe(size_t count)
{
	int fd = open(TRACEFS RG_RP "per_cpu/cpu0/trace_pipe", O_RDONLY | O_NONBLOCK);
	char buf[64];
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, count);
	close(fd);
	return n == (ssize_t)count ? 0 : n < 0 ? -errno : -EIO;
}

/*
 * This task on CPU 0 (its CPUs before in *@saved), and instance rg_rp
 * made anew, of two sub-buffers a CPU, overwritten when full, with no
 * event rg_rp; 0 or -1
 */
static int rp_start(cpu_set_t *saved)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_getaffinity(0, sizeof(*saved), saved) ||
	    sched_setaffinity(0, sizeof(cpus), &cpus))
		return -1;
	uet_write_file(UE_DYN, "-:rg_rp", O_APPEND);
	rmdir(TRACEFS RG_RP);
	if (mkdir(TRACEFS RG_RP, 0755))
		return -1;
	return uet_write_file(TRACEFS RG_RP "buffer_size_kb", "8", O_TRUNC) ? -1 : 0;
}

/* @count markers "@prefix%08d" into rg_rp; 0 or -1 */
static int rp_markers(const char *prefix, int count)
{
	int fd = open(TRACEFS RG_RP "trace_marker", O_WRONLY), i, len, ret = 0;
	char line[64];

	if (fd < 0)
		return -1;
	for (i = 0; i < count && !ret; i++) {
		len = snprintf(line, sizeof(line), "%s%08d", prefix, i);
		ret = write(fd, line, len) == len ? 0 : -1;
	}
	close(fd);
	return ret;
}

/*
 * Event rg_rp made, @count records "n=0".."n=@count-1" of it written
 * into rg_rp, then disabled there: its type id, or -1
 */
static int rp_records(int count)
{
	int fd = open(UE_DATA, O_RDWR), id = -1, i;
	struct user_status_reg reg;

	if (fd < 0)
		return -1;
	if (uet_register(fd, "rg_rp u32 n", &reg) ||
	    uet_enable(RG_RP, "rg_rp", 1))
		goto out;
	for (i = 0; i < count; i++) {
		struct { int idx; __u32 n; } rec = { reg.write_index, i };

		if (write(fd, &rec, sizeof(rec)) != sizeof(rec))
			goto out;
	}
	if (!uet_enable(RG_RP, "rg_rp", 0))
		id = uet_tracepoint_id("rg_rp");
out:
	close(fd);
	return id;
}

/*
 * Failure: the check that no buffer holds a retired event's records took
 * the head page's time stamp for the oldest record's (as Linux 6.12's
 * ring_buffer_oldest_event_ts() did). A consuming read that stops inside
 * a page leaves the rest of it unread on the reader page, which the writer
 * never overwrites, while the head moves on past newer records: the event
 * would go, its type freed for reuse, with its records still in trace. On
 * CPU 0: 20 records in a small instance, one of them read from trace_pipe,
 * the event deleted, the buffer wrapped many times over by markers (the
 * first of which fill the reader page): the 19 stay decoded and the event
 * retired, until the buffer is cleared.
 */
TEST(retired_on_reader_page)
{
	char path[512], line[64];
	cpu_set_t saved;
	int id, i;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_EQ(0, rp_start(&saved));
	id = rp_records(20);
	ASSERT_LT(0, id);
	/* one record read: its page is the reader page, 19 left unread on it */
	ASSERT_EQ(0, rp_read_pipe(1));
	EXPECT_EQ(19, uet_instance_trace_count(RG_RP, "rg_rp: n="));
	ASSERT_EQ(0, uet_write_file(UE_DYN, "-:rg_rp", O_APPEND));
	ASSERT_EQ(0, rp_markers("rg_rp_fill_", 3000));
	/* wrapped: the markers after the reader page's were overwritten */
	EXPECT_EQ(0, uet_instance_trace_count(RG_RP, "rg_rp_fill_00001000\n"));
	EXPECT_EQ(1, uet_instance_trace_count(RG_RP, "rg_rp_fill_00002999\n"));
	EXPECT_EQ(0, uet_reclaim_retired());
	uet_retired_dir(RG_RP, "user_events", "rg_rp", id, path, sizeof(path));
	EXPECT_EQ(0, access(path, F_OK));
	for (i = 1; i < 20; i++) {
		snprintf(line, sizeof(line), "rg_rp: n=%d\n", i);
		EXPECT_EQ(1, uet_instance_trace_count(RG_RP, line)) TH_LOG("no '%s'", line);
	}
	/* the buffer cleared: the event goes */
	ASSERT_EQ(0, uet_write_file(TRACEFS RG_RP "trace", "", O_TRUNC));
	EXPECT_EQ(0, uet_reclaim_retired());
	EXPECT_EQ(-1, access(path, F_OK));
	EXPECT_EQ(0, rmdir(TRACEFS RG_RP));
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(saved), &saved));
}

#define RG_GO "instances/rg_go/"

/* How retired_goes_with_its_buffer lets go of the records */
enum { RG_GO_RMDIR, RG_GO_CLOCK, RG_GO_PIPE, RG_GO_OVERWRITE, RG_GO_WAYS };

/*
 * A retired event goes, its type id freed, once no buffer holds its
 * records, whichever way they left: its instance removed, the buffer
 * cleared by a change of trace_clock, read out through trace_pipe, or
 * overwritten (a small buffer wrapped by newer records). Before that, the
 * kernel's own reclaim keeps it. On CPU 0 in an instance of two
 * sub-buffers a CPU: 20 records, then deleted through dynamic_events.
 */
TEST(retired_goes_with_its_buffer)
{
	static const char * const ways[RG_GO_WAYS] = {
		"instance removed", "trace_clock changed", "read out", "overwritten",
	};
	struct user_status_reg reg;
	char path[512], line[64], *text;
	cpu_set_t cpus, saved;
	int fd, id, i, way;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(saved), &saved));
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	for (way = 0; way < RG_GO_WAYS; way++) {
		uet_write_file(UE_DYN, "-:rg_go", O_APPEND);
		rmdir(TRACEFS RG_GO);
		ASSERT_EQ(0, mkdir(TRACEFS RG_GO, 0755));
		ASSERT_EQ(0, uet_write_file(TRACEFS RG_GO "buffer_size_kb", "8", O_TRUNC));
		fd = open(UE_DATA, O_RDWR);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, uet_register(fd, "rg_go u32 n", &reg));
		id = uet_tracepoint_id("rg_go");
		ASSERT_LT(0, id);
		ASSERT_EQ(0, uet_enable(RG_GO, "rg_go", 1));
		for (i = 0; i < 20; i++) {
			struct { int idx; __u32 n; } rec = { reg.write_index, i };

			ASSERT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
		}
		ASSERT_EQ(0, uet_enable(RG_GO, "rg_go", 0));
		close(fd);
		ASSERT_EQ(0, uet_write_file(UE_DYN, "-:rg_go", O_APPEND));
		uet_retired_dir("", "user_events", "rg_go", id, path, sizeof(path));
		ASSERT_EQ(0, access(path, F_OK)) TH_LOG("%s: %s", ways[way], path);
		EXPECT_EQ(0, uet_reclaim_retired());
		EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s: gone too early", ways[way]);

		switch (way) {
		case RG_GO_RMDIR:
			ASSERT_EQ(0, rmdir(TRACEFS RG_GO));
			break;
		case RG_GO_CLOCK:
			text = uet_read_file(TRACEFS RG_GO "trace_clock");
			ASSERT_NE(NULL, text);
			EXPECT_NE(NULL, strstr(text, "[local]")) TH_LOG("%s", text);
			free(text);
			ASSERT_EQ(0, uet_write_file(TRACEFS RG_GO "trace_clock", "global",
						    O_TRUNC));
			break;
		case RG_GO_PIPE:
			text = uet_read_fd(open(TRACEFS RG_GO "trace_pipe",
						O_RDONLY | O_NONBLOCK));
			ASSERT_NE(NULL, text);
			EXPECT_NE(NULL, strstr(text, "rg_go: n=19\n")) TH_LOG("%s", text);
			free(text);
			break;
		case RG_GO_OVERWRITE:
			fd = open(TRACEFS RG_GO "trace_marker", O_WRONLY);
			ASSERT_LE(0, fd);
			for (i = 0; i < 3000; i++) {
				snprintf(line, sizeof(line), "rg_go_fill_%08d", i);
				ASSERT_EQ(strlen(line), write(fd, line, strlen(line)));
			}
			close(fd);
			EXPECT_EQ(0, uet_instance_trace_count(RG_GO, "rg_go: n="));
			break;
		}
		if (way != RG_GO_RMDIR)
			EXPECT_EQ(0, uet_instance_trace_count(RG_GO, "rg_go: n="));
		EXPECT_EQ(0, uet_reclaim_retired());
		EXPECT_EQ(-1, access(path, F_OK)) TH_LOG("%s: still there", ways[way]);
		rmdir(TRACEFS RG_GO);
	}
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(saved), &saved));
}

/*
 * Failure: a retired event stayed for good once a consuming read had left
 * records of other events on a CPU's reader page, which no overwrite
 * reaches: its check took any record older than the retirement for one of
 * its own, while tracing ran on. Now the records are looked at: once the
 * event's own are overwritten, it goes, whatever else the reader page
 * keeps. On CPU 0 of an instance of two sub-buffers a CPU.
 */
TEST(retired_after_a_partial_read)
{
	cpu_set_t saved;
	char path[512];
	int fd, id;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_EQ(0, rp_start(&saved));
	/* two markers, one of them read: the other stays on the reader page */
	fd = open(TRACEFS RG_RP "trace_marker", O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "old-1", 5));
	ASSERT_EQ(5, write(fd, "old-2", 5));
	close(fd);
	ASSERT_EQ(0, rp_read_pipe(1));
	/* the writer off the reader page: more than a sub-buffer of markers */
	ASSERT_EQ(0, rp_markers("rg_rp_pre_", 300));
	id = rp_records(3);
	ASSERT_LT(0, id);
	ASSERT_EQ(0, uet_write_file(UE_DYN, "-:rg_rp", O_APPEND));
	uet_retired_dir(RG_RP, "user_events", "rg_rp", id, path, sizeof(path));
	EXPECT_EQ(0, uet_reclaim_retired());
	EXPECT_EQ(0, access(path, F_OK));
	/* tracing runs on: the event's records overwritten, not the reader page's */
	ASSERT_EQ(0, rp_markers("rg_rp_fill_", 3000));
	EXPECT_EQ(0, uet_instance_trace_count(RG_RP, "rg_rp: n="));
	EXPECT_EQ(1, uet_instance_trace_count(RG_RP, "old-2\n"));
	EXPECT_EQ(0, uet_reclaim_retired());
	EXPECT_EQ(-1, access(path, F_OK));
	EXPECT_EQ(0, rmdir(TRACEFS RG_RP));
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(saved), &saved));
}

#define RG_OW "instances/rg_ow/"

/* Markers into instance rg_ow from CPU @cpu until @stop; @writes counts */
struct rg_hammer {
	int cpu;
	int stop;	/* __atomic */
	long writes;	/* __atomic */
};

static void *rg_hammer_thread(void *arg)
{
	struct rg_hammer *h = arg;
	cpu_set_t cpus;
	int fd;

	CPU_ZERO(&cpus);
	CPU_SET(h->cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		return NULL;
	fd = open(TRACEFS RG_OW "trace_marker", O_WRONLY);
	if (fd < 0)
		return NULL;
	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED))
		if (write(fd, "rg_ow_hammer_0123456789abcdef", 29) == 29)
			__atomic_fetch_add(&h->writes, 1, __ATOMIC_RELAXED);
	close(fd);
	return NULL;
}

/*
 * Failure: the look at a buffer for a retired event's records took the
 * iterator's end for the buffer's. A writer that overwrites the page the
 * iterator is on sends it back to that page's start, where it finds the
 * newest records and the end, the pages after it never read: the event
 * went, its type freed, while its records were still in the buffer
 * ("Unknown type" in trace). The instance's CPU 1 part is full of markers,
 * the event's records among the newest; the event is deleted; then, in
 * rounds, a thread on CPU 1 overwrites the buffer while this one, on CPU
 * 0, has the kernel look (uet_reclaim_retired()), which the vCPUs' turns
 * interleave with the writer's. Whenever the event is gone, its records
 * must be gone too. Each round's writes overwrite less than the buffer
 * holds before the event's records, and the event must go once they are
 * overwritten and the writer stops.
 */
TEST_F_TIMEOUT(slow, retired_while_overwritten, 600)
{
	struct rg_hammer h = { .cpu = 1 };
	struct user_status_reg reg;
	char path[512], line[64];
	cpu_set_t cpus, saved;
	int fd, id, i, round, unknown = 0, gone;
	long fill;
	pthread_t th;

	if (uet_skip(_metadata, 0))
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs CPUs 0 and 1 online");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(saved), &saved));
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	uet_write_file(UE_DYN, "-:rg_ow", O_APPEND);
	rmdir(TRACEFS RG_OW);
	ASSERT_EQ(0, mkdir(TRACEFS RG_OW, 0755));
	ASSERT_EQ(0, uet_write_file(TRACEFS RG_OW "buffer_size_kb", "512", O_TRUNC));
	/* CPU 1's part full: markers until one is overwritten */
	fd = open(TRACEFS RG_OW "trace_marker", O_WRONLY);
	ASSERT_LE(0, fd);
	for (fill = 0; fill < 1000000; fill++) {
		snprintf(line, sizeof(line), "rg_ow_fill_%08ld", fill);
		ASSERT_EQ(strlen(line), write(fd, line, strlen(line)));
		if (!(fill % 256) && uet_instance_trace_count(RG_OW, "rg_ow_fill_00000000\n") == 0)
			break;
	}
	close(fd);
	ASSERT_GT(1000000, fill);
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_ow u32 n", &reg));
	id = uet_tracepoint_id("rg_ow");
	ASSERT_EQ(0, uet_enable(RG_OW, "rg_ow", 1));
	for (i = 0; i < 3; i++) {
		struct { int idx; __u32 n; } rec = { reg.write_index, i };

		ASSERT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
	}
	ASSERT_EQ(0, uet_enable(RG_OW, "rg_ow", 0));
	close(fd);
	ASSERT_EQ(0, uet_write_file(UE_DYN, "-:rg_ow", O_APPEND));
	uet_retired_dir(RG_OW, "user_events", "rg_ow", id, path, sizeof(path));
	ASSERT_EQ(0, access(path, F_OK));

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	/* rounds of an eighth of the buffer, until the event's records are overwritten */
	for (round = 0; round < 12 && !unknown; round++) {
		h.stop = 0;
		h.writes = 0;
		ASSERT_EQ(0, pthread_create(&th, NULL, rg_hammer_thread, &h));
		while (__atomic_load_n(&h.writes, __ATOMIC_RELAXED) < fill / 8 &&
		       !access(path, F_OK))
			uet_reclaim_retired();
		__atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
		pthread_join(th, NULL);
		gone = access(path, F_OK) != 0;
		if (gone) {
			/* its type is free: a record left prints as unknown */
			unknown = uet_instance_trace_count(RG_OW, "Unknown type");
			break;
		}
	}
	EXPECT_EQ(0, unknown)
		TH_LOG("round %d: the event went with its records in the buffer", round);
	/* overwritten many times over, written no more: it goes */
	EXPECT_EQ(0, uet_instance_trace_count(RG_OW, "rg_ow: n="));
	EXPECT_EQ(0, uet_reclaim_retired());
	EXPECT_EQ(-1, access(path, F_OK));
	EXPECT_EQ(0, rmdir(TRACEFS RG_OW));
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(saved), &saved));
}

/*
 * Failure: a fault of an enable word handed to the worker found the
 * process's memory gone (it exited first) and was freed while its enabler
 * still pointed at it; dropping the process's enablers then wrote into the
 * freed fault (KASAN). Each round a process whose word needs the worker (a
 * shared page, zapped) enables its own event and exits at once; the guest's
 * kernel log must stay clean.
 */
TEST_F_TIMEOUT(slow, exit_with_enable_fault_queued, 300)
{
	int round, status;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	for (round = 0; round < 100; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			__u32 *w = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			int fd = open(UE_DATA, O_RDWR);

			if (w == MAP_FAILED || fd < 0 ||
			    uet_register_bits(fd, "rg_fq u32 v", w, 4, 0, 0, NULL))
				_exit(1);
			/* the word's page not present: only the worker faults it */
			madvise(w, getpagesize(), MADV_DONTNEED);
			_exit(uet_enable("", "rg_fq", 1) ? 2 : 0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("round %d", round);
		ASSERT_EQ(0, uet_enable("", "rg_fq", 0));
	}
	/* the event of the exited processes goes once nothing holds it */
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_fq", UE_WAIT_MS));
}

/*
 * Failure: an enable word in a shared mapping of a file whose pages its
 * file system makes writable (->page_mkwrite(): FUSE asks its daemon, a
 * frozen file system waits): the kernel's fault for the bit, taken for a
 * tracer, waits for whatever the file system waits for. Such a word is
 * refused with EFAULT, and the event the registration would have made is
 * not left behind; the same file mapped privately, and a shared memfd,
 * take enable words as before.
 */
TEST_F_TIMEOUT(slow, enable_word_in_shared_file_refused, 300)
{
	long page = getpagesize();
	int fd, file, mfd;
	struct rg_fuse f;
	__u32 *w;

	if (uet_skip(_metadata, 0))
		return;
	if (rg_fuse_begin(_metadata, &f))
		return;
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	file = open(RG_FUSE_FILE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, file) TH_LOG("open %s: %s", RG_FUSE_FILE, strerror(errno));

	w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
	ASSERT_NE(MAP_FAILED, w) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(-EFAULT, uet_register_bits(fd, "rg_shfile u32 a", w, 4, 0, 0, NULL));
	EXPECT_EQ(-1, access(TRACEFS "events/user_events/rg_shfile", F_OK));
	munmap(w, page);

	w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, file, 0);
	ASSERT_NE(MAP_FAILED, w);
	EXPECT_EQ(0, uet_register_bits(fd, "rg_shfile u32 a", w, 4, 0, 0, NULL));
	EXPECT_EQ(0, uet_unregister_bits(fd, w, 0));
	munmap(w, page);

	mfd = memfd_create("rg_shfile", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, page));
	w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, w);
	EXPECT_EQ(0, uet_register_bits(fd, "rg_shfile u32 a", w, 4, 0, 0, NULL));
	EXPECT_EQ(0, uet_unregister_bits(fd, w, 0));
	munmap(w, page);
	close(mfd);
	close(file);
	close(fd);
	rg_fuse_stop(&f);
	/* nothing holds the enable-bit event any more: it goes */
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_shfile", UE_WAIT_MS));
}

/*
 * The process P of tracer_never_waits_for_mmap_lock, forked: it registers
 * bit 0 of w[0] for rg_mml_a (unless @unregistered), starts its four
 * threads (a thread made later would wait for the mmap_lock for its
 * stack), says its result, then per byte read on @cmd: 's' maps pages 1
 * and 0 of the FUSE file and lets the first thread read page 1 through
 * /proc/self/mem; 'w' lets the second ask for the mmap_lock for writing;
 * 'r' lets the third register bit 0 of w[1] for rg_mml_b; 'z' lets the
 * fourth read page 0 as the first read page 1; each thread first says its
 * tid. 'j' joins the third and says the registration's result; 'q' says
 * w[0] and w[1]; 'g' says how many SIGUSR1s P handled; 'x' exits.
 */
struct rg_mml {
	int cmd, reply;		/* P's ends */
	int go[4][2];		/* a byte lets thread i go */
	int fd;			/* user_events_data */
	int file;		/* the FUSE file */
	int unregistered;	/* no registration before the threads' */
	long page;
	__u32 *w;		/* a page of P's own: w[0], w[1] */
	char *m;		/* page 1 of the file */
	char *m0;		/* page 0 of the file */
	char *x;		/* a page for mprotect() */
	int reg;		/* rg_mml_b's registration */
};

static int rg_mml_signals;	/* __atomic */

static void rg_mml_on_signal(int sig)
{
	__atomic_add_fetch(&rg_mml_signals, 1, __ATOMIC_RELAXED);
}

static void rg_mml_tell(struct rg_mml *p, int v)
{
	if (write(p->reply, &v, sizeof(v)) != sizeof(v))
		_exit(30);
}

/* Wait to be let go (thread @i), then say the thread's tid */
static void rg_mml_wait_go(struct rg_mml *p, int i)
{
	char c;

	if (read(p->go[i][0], &c, 1) != 1)
		_exit(36);
	rg_mml_tell(p, syscall(SYS_gettid));
}

/* Read *@m (mapped by then) through /proc/self/mem once thread @i is let go */
static void rg_mml_read_page(struct rg_mml *p, int i, char **m)
{
	int mem = open("/proc/self/mem", O_RDONLY);
	char c;

	rg_mml_wait_go(p, i);
	/* faults the page in with P's mmap_lock held, and no retry */
	if (pread(mem, &c, 1, (off_t)(unsigned long)*m) != 1)
		_exit(31);
	close(mem);
}

static void *rg_mml_read(void *arg)
{
	struct rg_mml *p = arg;

	rg_mml_read_page(p, 0, &p->m);
	return NULL;
}

static void *rg_mml_read0(void *arg)
{
	struct rg_mml *p = arg;

	rg_mml_read_page(p, 3, &p->m0);
	return NULL;
}

static void *rg_mml_write(void *arg)
{
	struct rg_mml *p = arg;

	rg_mml_wait_go(p, 1);
	if (mprotect(p->x, p->page, PROT_READ))
		_exit(32);
	return NULL;
}

static void *rg_mml_register(void *arg)
{
	struct rg_mml *p = arg;

	rg_mml_wait_go(p, 2);
	p->reg = uet_register_bits(p->fd, "rg_mml_b u32 v", &p->w[1], 4, 0, 0, NULL);
	return NULL;
}

static void rg_mml_run(struct rg_mml *p)
{
	void *(*fn[4])(void *) = { rg_mml_read, rg_mml_write, rg_mml_register, rg_mml_read0 };
	struct sigaction sa = { .sa_handler = rg_mml_on_signal };
	pthread_t th[4];
	char c;
	int i;

	p->fd = open(UE_DATA, O_RDWR);
	p->w = mmap(NULL, p->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p->x = mmap(NULL, p->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->fd < 0 || p->w == MAP_FAILED || p->x == MAP_FAILED)
		_exit(33);
	if (sigaction(SIGUSR1, &sa, NULL))
		_exit(38);
	for (i = 0; i < 4; i++)
		if (pipe(p->go[i]) || pthread_create(&th[i], NULL, fn[i], p))
			_exit(35);
	rg_mml_tell(p, p->unregistered ? 0 :
		    uet_register_bits(p->fd, "rg_mml_a u32 v", &p->w[0], 4, 0, 0, NULL));
	while (read(p->cmd, &c, 1) == 1) {
		switch (c) {
		case 's':
			/* a page each: no read-around brings the other in with it */
			p->m = mmap(NULL, p->page, PROT_READ, MAP_SHARED, p->file, p->page);
			p->m0 = mmap(NULL, p->page, PROT_READ, MAP_SHARED, p->file, 0);
			if (p->m == MAP_FAILED || madvise(p->m, p->page, MADV_RANDOM) ||
			    p->m0 == MAP_FAILED || madvise(p->m0, p->page, MADV_RANDOM))
				_exit(34);
			i = 0;
			break;
		case 'w':
			i = 1;
			break;
		case 'r':
			i = 2;
			break;
		case 'z':
			i = 3;
			break;
		case 'j':
			pthread_join(th[2], NULL);
			rg_mml_tell(p, p->reg);
			continue;
		case 'q':
			rg_mml_tell(p, __atomic_load_n(&p->w[0], __ATOMIC_RELAXED));
			rg_mml_tell(p, __atomic_load_n(&p->w[1], __ATOMIC_RELAXED));
			continue;
		case 'g':
			rg_mml_tell(p, __atomic_load_n(&rg_mml_signals, __ATOMIC_RELAXED));
			continue;
		default:
			_exit(0);
		}
		if (write(p->go[i][1], &c, 1) != 1)
			_exit(37);
	}
	_exit(0);
}

/* Say @c to P and read @n ints of its answer into @v; 0, or -1 if P is gone */
static int rg_mml_ask(int cmd, int reply, char c, int *v, int n)
{
	if (write(cmd, &c, 1) != 1)
		return -1;
	while (n-- > 0)
		if (!rg_wait_readable(reply, 60000) || read(reply, v++, sizeof(*v)) != sizeof(*v))
			return -1;
	return 0;
}

/* Wait for thread @tid of @pid to sleep uninterruptibly (a lock, a page) */
static int rg_mml_waits(pid_t pid, int tid)
{
	char path[64], *stat;
	int d;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	ue_wait_for(60000, (stat = uet_read_file(path),
			    d = stat && strrchr(stat, ')') && strrchr(stat, ')')[2] == 'D',
			    free(stat), d),
		    "thread %d of %d to wait in the kernel (state D)", tid, pid);
	return d;
}

/* Write @val to rg_mml_a's enable from a process of its own: 1 if it returned */
static int rg_mml_enable(struct __test_metadata *_metadata, struct rg_fuse *f,
			 const char *val)
{
	int res[2], ret = -1, back;
	pid_t en;

	if (pipe(res))
		return 0;
	en = fork();
	if (!en) {
		close(f->fd);
		ret = uet_enable("", "rg_mml_a", val[0] == '1');
		_exit(write(res[1], &ret, sizeof(ret)) == sizeof(ret) ? 0 : 1);
	}
	close(res[1]);
	back = rg_wait_readable(res[0], 60000);
	if (!back)
		rg_log_stack(_metadata, "the tracer", en);
	else if (read(res[0], &ret, sizeof(ret)) != sizeof(ret) || ret)
		TH_LOG("the write of %s to the enable file: %d", val, ret);
	close(res[0]);
	/* reaped once it returns, at the latest as the READ is answered */
	if (back)
		rg_wait_pid(en, 60000);
	return back && !ret;
}

/*
 * Open the FUSE file and fork P (rg_mml_run()); the test's ends: @to[1],
 * @from[0]. P's pid once it said its first result (in *@first), or -1
 */
static pid_t rg_mml_start(struct rg_mml *p, struct rg_fuse *f, int to[2], int from[2],
			  int *first)
{
	pid_t pid;

	p->page = f->page;
	p->file = open(RG_FUSE_FILE, O_RDONLY | O_CLOEXEC);
	if (p->file < 0 || pipe(to))
		return -1;
	if (pipe(from))
		return -1;
	pid = fork();
	if (!pid) {
		close(f->fd);
		close(to[1]);
		close(from[0]);
		p->cmd = to[0];
		p->reply = from[1];
		rg_mml_run(p);
	}
	close(to[0]);
	close(from[1]);
	if (pid < 0 || !rg_wait_readable(from[0], 60000) ||
	    read(from[0], first, sizeof(*first)) != sizeof(*first))
		return -1;
	return pid;
}

/* Let P's first thread read page 1, and hold that READ: 0, or -1 */
static int rg_mml_hold(struct rg_fuse *f, int cmd, int reply)
{
	char held;
	int tid;

	__atomic_store_n(&f->armed, 1, __ATOMIC_RELEASE);
	if (rg_mml_ask(cmd, reply, 's', &tid, 1) || !rg_wait_readable(f->held[0], 60000))
		return -1;
	return read(f->held[0], &held, 1) == 1 ? 0 : -1;
}

/*
 * Failure: a tracer waited for the mmap_lock of the process whose bit its
 * attach or detach updates, as long as that process liked, under
 * event_mutex: every tracer of the machine with it. A thread of process P
 * reads page 1 of the FUSE file through /proc/self/mem, which faults it in
 * with P's mmap_lock held and no retry; the test holds that READ. A second
 * thread of P then asks for the lock for writing (mprotect()), so that no
 * reader gets it either. Meanwhile the test, as a tracer, enables P's
 * event: the write to the enable file must return, its bit left to later
 * (before the fix, the attach waited for the lock in the tracer, and then
 * its way back to user space did). Then a third thread of P registers a
 * new bit, whose word is checked and faulted in under P's own lock: it
 * waits, but must not hold event_mutex meanwhile, so that the test's
 * second write to the enable file returns too (before the fix, the check
 * ran under event_mutex). Once the READ is answered, the registration
 * succeeds, the bit left to later is set (and rg_mml_b's clear), and a
 * disable clears it at once.
 */
TEST_F_TIMEOUT(slow, tracer_never_waits_for_mmap_lock, 300)
{
	int to[2], from[2], tid, v[2] = { -1, -1 }, status;
	struct rg_mml p = { 0 };
	struct rg_fuse f;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	if (rg_fuse_begin(_metadata, &f))
		return;
	pid = rg_mml_start(&p, &f, to, from, v);
	ASSERT_LE(0, pid) TH_LOG("starting P: %s", strerror(errno));
	ASSERT_EQ(0, v[0]) TH_LOG("P's registration: %s", strerror(-v[0]));

	/* P's reader holds its mmap_lock, waiting for the READ the test holds */
	ASSERT_EQ(0, rg_mml_hold(&f, to[1], from[0]))
		TH_LOG("wait expired: P's read of the file's page 1");
	ASSERT_EQ(0, rg_mml_ask(to[1], from[0], 'w', &tid, 1));
	ASSERT_TRUE(rg_mml_waits(pid, tid));

	EXPECT_TRUE(rg_mml_enable(_metadata, &f, "1"))
		TH_LOG("wait expired: the enable waited for P's mmap_lock");
	ASSERT_EQ(0, rg_mml_ask(to[1], from[0], 'r', &tid, 1));
	ASSERT_TRUE(rg_mml_waits(pid, tid));
	/* takes event_mutex, as any change of an event's enable does */
	EXPECT_TRUE(rg_mml_enable(_metadata, &f, "1"))
		TH_LOG("wait expired: the enable waited behind P's registration");

	ASSERT_EQ(0, rg_fuse_release(&f));
	ASSERT_EQ(0, rg_mml_ask(to[1], from[0], 'j', v, 1));
	EXPECT_EQ(0, v[0]) TH_LOG("P's second registration: %s", strerror(-v[0]));
	/* the write left to later lands: set, and rg_mml_b's clear */
	ue_wait_for(UE_WAIT_MS, !rg_mml_ask(to[1], from[0], 'q', v, 2) && v[0] == 1 && !v[1],
		    "P's bits to read 1 and 0 (they read %#x and %#x)", v[0], v[1]);
	EXPECT_EQ(1, v[0]);
	EXPECT_EQ(0, v[1]);
	/* nothing is left to later now: the disable clears the bit at once */
	ASSERT_EQ(0, uet_enable("", "rg_mml_a", 0));
	ASSERT_EQ(0, rg_mml_ask(to[1], from[0], 'q', v, 2));
	EXPECT_EQ(0, v[0]);

	ASSERT_EQ(1, write(to[1], "x", 1));
	status = rg_wait_pid(pid, 60000);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("P: %#x", status);
	close(to[1]);
	close(from[0]);
	close(p.file);
	rg_fuse_stop(&f);
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_mml_a", UE_WAIT_MS));
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_mml_b", UE_WAIT_MS));
}

/*
 * Failure: a signal that came as a process's first registration made its
 * mmu notifier (mm_take_all_locks() gives up while one is pending) made
 * the registration hand the notifier to a worker, which waited for the
 * process's mmap_lock for as long as any of its threads held it (one
 * worker of the machine's per registration), the registering thread
 * waiting with it, its signal unhandled. Process P, which has no enable
 * bit yet: a thread reads page 1 of the FUSE file through /proc/self/mem,
 * holding P's mmap_lock while the test holds that READ; a second thread
 * registers, and waits for the lock for writing; the test sends it
 * SIGUSR1 meanwhile; a third thread reads page 0 the same way, queued
 * behind it. The test answers the first READ and holds the second, which
 * the third thread's hold of the lock waits for: the registration must
 * succeed and P handle the signal meanwhile (the notifier is made with
 * signals held off, the signal handled on the way out).
 */
TEST_F_TIMEOUT(slow, first_registration_handles_a_signal_at_once, 300)
{
	int to[2], from[2], tid, v[2] = { -1, -1 }, status, handled;
	struct rg_mml p = { .unregistered = 1 };
	struct rg_fuse f;
	char held;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	if (rg_fuse_begin(_metadata, &f))
		return;
	pid = rg_mml_start(&p, &f, to, from, v);
	ASSERT_LE(0, pid) TH_LOG("starting P: %s", strerror(errno));
	ASSERT_EQ(0, rg_mml_hold(&f, to[1], from[0]))
		TH_LOG("wait expired: P's read of the file's page 1");
	/* the registration waits for the lock for writing, then the signal */
	ASSERT_EQ(0, rg_mml_ask(to[1], from[0], 'r', &tid, 1));
	ASSERT_TRUE(rg_mml_waits(pid, tid));
	ASSERT_EQ(0, syscall(SYS_tgkill, pid, tid, SIGUSR1));
	/* the third reader, queued behind it */
	__atomic_store_n(&f.hold_off, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&f.armed, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, rg_mml_ask(to[1], from[0], 'z', &tid, 1));
	ASSERT_TRUE(rg_mml_waits(pid, tid));

	ASSERT_EQ(0, rg_fuse_release(&f));
	ASSERT_TRUE(rg_wait_readable(f.held[0], 60000))
		TH_LOG("wait expired: P's read of the file's page 0");
	ASSERT_EQ(1, read(f.held[0], &held, 1));
	/* the lock is the third reader's, as long as the test likes */
	handled = ue_wait_for(UE_WAIT_MS,
			      !rg_mml_ask(to[1], from[0], 'g', v, 1) && v[0] == 1,
			      "P to handle the signal (handled: %d)", v[0]);
	EXPECT_TRUE(handled) TH_LOG("the registration waited with the signal pending");
	/* and the registration is done: asked after the READ else */
	if (!handled)
		ASSERT_EQ(0, rg_fuse_release(&f));
	ASSERT_EQ(0, rg_mml_ask(to[1], from[0], 'j', v, 1));
	EXPECT_EQ(0, v[0]) TH_LOG("P's registration: %s", strerror(-v[0]));
	if (handled)
		ASSERT_EQ(0, rg_fuse_release(&f));
	ASSERT_EQ(1, write(to[1], "x", 1));
	status = rg_wait_pid(pid, 60000);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("P: %#x", status);
	close(to[1]);
	close(from[0]);
	close(p.file);
	rg_fuse_stop(&f);
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_mml_b", UE_WAIT_MS));
}

static int rg_storm_alarms;	/* __atomic */

static void rg_storm_on_alarm(int sig)
{
	__atomic_add_fetch(&rg_storm_alarms, 1, __ATOMIC_RELAXED);
}

/* RG_STORM_PAGES mappings of a page each, and a SIGALRM every millisecond */
#define RG_STORM_PAGES	16384

/*
 * Failure: a process whose first registration is interrupted by a signal
 * each time it makes its mmu notifier (mm_take_all_locks() walks every
 * mapping, and gives up when a signal is pending) never gets its bit,
 * the call restarted again and again, if its signals come more often than
 * its mappings can be walked: a profiling timer does that. A child with
 * RG_STORM_PAGES mappings (every other page made writable, so that none
 * merge, some written) and an interval timer that sends it SIGALRM every
 * millisecond registers its first bit once the alarms come: the
 * registration succeeds.
 */
TEST_F_TIMEOUT(slow, first_registration_under_a_signal_storm, 300)
{
	int res[2], v[1] = { -1 }, status, back;
	long page = getpagesize();
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct sigaction sa = { .sa_handler = rg_storm_on_alarm };
		struct itimerval every = { { 0, 1000 }, { 0, 1000 } }, off = { 0 };
		int fd = open(UE_DATA, O_RDWR), k;
		char *area = mmap(NULL, RG_STORM_PAGES * page, PROT_READ,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		__u32 *word = mmap(NULL, page, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (fd < 0 || area == MAP_FAILED || word == MAP_FAILED ||
		    sigaction(SIGALRM, &sa, NULL))
			_exit(2);
		/*
		 * some written to, each then with an anon_vma that the walk
		 * locks too (lockdep counts 2047 of a kind at most)
		 */
		for (k = 0; k < RG_STORM_PAGES; k += 2) {
			if (mprotect(area + k * page, page, PROT_READ | PROT_WRITE))
				_exit(3);
			if (!(k % 32))
				area[k * page] = 1;
		}
		if (setitimer(ITIMER_REAL, &every, NULL))
			_exit(4);
		/* the storm is on before the registration starts */
		if (!ue_wait_for(UE_WAIT_MS,
				 __atomic_load_n(&rg_storm_alarms, __ATOMIC_RELAXED) >= 2,
				 "the interval timer's first alarms"))
			_exit(6);
		v[0] = uet_register_bits(fd, "rg_storm u32 v", word, 4, 0, 0, NULL);
		setitimer(ITIMER_REAL, &off, NULL);
		_exit(write(res[1], v, sizeof(v)) == sizeof(v) ? 0 : 5);
	}
	close(res[1]);
	back = rg_wait_readable(res[0], UE_WAIT_MS);
	EXPECT_TRUE(back) TH_LOG("wait expired: the registration under a storm of signals");
	if (back) {
		ASSERT_EQ(sizeof(v), read(res[0], v, sizeof(v)));
		EXPECT_EQ(0, v[0]) TH_LOG("the registration: %s", strerror(-v[0]));
	} else {
		kill(pid, SIGKILL);
	}
	status = rg_wait_pid(pid, 60000);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("child: %#x", status);
	close(res[0]);
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_storm", UE_WAIT_MS));
}

struct rg_fkr {
	int fd;			/* user_events_data */
	__u32 *w;		/* the word: page 1 of the FUSE file, private */
	int ret;		/* the registration's */
	int unreg[2];		/* a pipe: the unregistration's result */
};

static void *rg_fkr_register(void *arg)
{
	struct rg_fkr *r = arg;

	r->ret = uet_register_bits(r->fd, "rg_fkr u32 v", r->w, 4, 0, 0, NULL);
	return NULL;
}

static void *rg_fkr_unregister(void *arg)
{
	struct rg_fkr *r = arg;
	int ret = uet_unregister_bits(r->fd, r->w, 0);

	if (write(r->unreg[1], &ret, sizeof(ret)) != sizeof(ret))
		_exit(40);
	return NULL;
}

/*
 * Failure: a fork() while a thread registered an enable bit copied the
 * new enabler into the child before the registration had checked its
 * word, and the child kept the copy when the registration then failed:
 * the child's word was kept up to date for a bit its parent was told it
 * does not have. Thread R registers bit 0 of a word in a private mapping
 * of page 1 of the FUSE file: faulting it in reads the page, whose READ
 * the test holds (the fault waits without the mmap_lock). The test forks
 * meanwhile, then answers the READ with EIO: R's registration fails with
 * EFAULT. The child, asked after, has no copy of the bit: DIAG_IOCSUNREG
 * of it fails with ENOENT. Nor does another thread of the test's find it
 * while R waits: its DIAG_IOCSUNREG fails with ENOENT at once, rather
 * than clear a bit in a word nobody checked (it would wait for the page).
 */
TEST_F_TIMEOUT(slow, fork_during_registration_copies_no_unchecked_bit, 300)
{
	int res[2], go[2], ret = -1, file, status, back;
	struct rg_fkr r = { .ret = 1 };
	struct rg_fuse f;
	pthread_t th, un;
	char held;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	if (rg_fuse_begin(_metadata, &f))
		return;
	file = open(RG_FUSE_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, file) TH_LOG("open %s: %s", RG_FUSE_FILE, strerror(errno));
	r.w = mmap(NULL, f.page, PROT_READ | PROT_WRITE, MAP_PRIVATE, file, f.page);
	ASSERT_NE(MAP_FAILED, r.w);
	/* page 1 alone: read when the registration faults it in */
	ASSERT_EQ(0, madvise(r.w, f.page, MADV_RANDOM));
	r.fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, pipe(res));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(r.unreg));

	__atomic_store_n(&f.eio, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&f.armed, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_create(&th, NULL, rg_fkr_register, &r));
	ASSERT_TRUE(rg_wait_readable(f.held[0], 60000))
		TH_LOG("wait expired: the registration's READ of the word's page");
	ASSERT_EQ(1, read(f.held[0], &held, 1));
	/* R waits in the registration, its enabler made, its word unchecked */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char c;

		close(f.fd);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		ret = uet_unregister_bits(r.fd, r.w, 0);
		_exit(write(res[1], &ret, sizeof(ret)) == sizeof(ret) ? 0 : 3);
	}
	ASSERT_EQ(0, pthread_create(&un, NULL, rg_fkr_unregister, &r));
	back = rg_wait_readable(r.unreg[0], 60000);
	EXPECT_TRUE(back) TH_LOG("wait expired: the unregistration waited for the word");
	ASSERT_EQ(0, rg_fuse_release(&f));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EFAULT, r.ret);
	ASSERT_EQ(0, pthread_join(un, NULL));
	ASSERT_EQ(sizeof(ret), read(r.unreg[0], &ret, sizeof(ret)));
	EXPECT_EQ(-ENOENT, ret) TH_LOG("the unregistration found the unchecked bit");

	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_TRUE(rg_wait_readable(res[0], 60000));
	ASSERT_EQ(sizeof(ret), read(res[0], &ret, sizeof(ret)));
	EXPECT_EQ(-ENOENT, ret) TH_LOG("the child has a copy of the refused bit");
	status = rg_wait_pid(pid, 60000);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("child: %#x", status);
	/* and the parent has none */
	EXPECT_EQ(-ENOENT, uet_unregister_bits(r.fd, r.w, 0));

	__atomic_store_n(&f.eio, 0, __ATOMIC_RELEASE);
	close(r.fd);
	munmap(r.w, f.page);
	close(file);
	close(res[0]);
	close(res[1]);
	close(go[0]);
	close(go[1]);
	close(r.unreg[0]);
	close(r.unreg[1]);
	rg_fuse_stop(&f);
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_fkr", UE_WAIT_MS));
}

/*
 * Failure: a registration whose struct user_reg could not take its write
 * index (a read-only page) failed with EFAULT, but after it had written
 * the bit: the caller was told it has no bit, and the word said the event
 * was enabled (and a fork() meanwhile gave the child a copy). With the
 * event enabled, a registration of w[0] with its struct in a read-only
 * page fails with EFAULT, w[0] stays clear, and there is nothing to
 * unregister; nor did it keep the address: registered again, with the
 * struct writable, w[0] is set.
 */
TEST(register_read_only_index_leaves_nothing)
{
	long page = getpagesize();
	char desc[] = "rg_roidx u32 v";
	struct user_reg *reg;
	__u32 *w;
	int fd;

	if (uet_skip(_metadata, 0))
		return;
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_NE(MAP_FAILED, reg);
	/* the event, enabled: w[1]'s bit says so */
	ASSERT_EQ(0, uet_register_bits(fd, desc, &w[1], 4, 0, 0, NULL));
	ASSERT_EQ(0, uet_enable("", "rg_roidx", 1));
	ASSERT_TRUE(rg_wait_bit(&w[1], 0, 1, 30000));

	reg->size = sizeof(*reg);
	reg->enable_bit = 0;
	reg->enable_size = sizeof(w[0]);
	reg->enable_addr = (__u64)(unsigned long)&w[0];
	reg->name_args = (__u64)(unsigned long)desc;
	ASSERT_EQ(0, mprotect(reg, page, PROT_READ));
	EXPECT_EQ(-1, ioctl(fd, DIAG_IOCSREG, reg));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, __atomic_load_n(&w[0], __ATOMIC_RELAXED)) TH_LOG("the refused bit was set");
	EXPECT_EQ(-ENOENT, uet_unregister_bits(fd, &w[0], 0));
	ASSERT_EQ(0, mprotect(reg, page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, ioctl(fd, DIAG_IOCSREG, reg)) TH_LOG("again: %s", strerror(errno));
	EXPECT_TRUE(rg_wait_bit(&w[0], 0, 1, 30000));
	EXPECT_EQ(0, uet_unregister_bits(fd, &w[0], 0));

	EXPECT_EQ(0, uet_enable("", "rg_roidx", 0));
	EXPECT_EQ(0, uet_unregister_bits(fd, &w[1], 0));
	close(fd);
	munmap(reg, page);
	munmap(w, page);
	EXPECT_TRUE(uet_wait_gone("user_events", "rg_roidx", UE_WAIT_MS));
}

/* Bytes of @key in memory.stat of cgroup @cg; -1 if it cannot be read */
static long long rg_cg_stat(const char *cg, const char *key)
{
	char path[128], *text, *at;
	long long v = -1;
	size_t len = strlen(key);

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	text = uet_read_file(path);
	for (at = text; at && *at; at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL)
		if (!strncmp(at, key, len) && at[len] == ' ') {
			v = atoll(at + len + 1);
			break;
		}
	free(text);
	return v;
}

#define RG_FCG_W	CG_ROOT "/rg_w"
#define RG_FCG_T	CG_ROOT "/rg_t"
/* at least what one queued fault takes, on any configuration */
#define RG_FCG_MIN	96

/*
 * Failure: the kernel memory of a queued enable-bit fault, allocated as a
 * tracer enables an event, charged to nobody: a process's enablers (8192
 * a process) made kernel memory outside its memory cgroup each time an
 * event was enabled. A child in cgroup rg_w registers RG_FCG_N enablers
 * (a quarter of what a process may have: enough for their faults to show
 * in its slab, few enough to register quickly) on one page, which its
 * userfaultfd then write-protects: their faults stay queued. The test, in
 * cgroup rg_t, enables the event: rg_w's slab grows by at least the
 * faults' size, rg_t's by less, and rg_w's drops again once the child
 * exited.
 */
#define RG_FCG_N	2048
TEST_F_TIMEOUT(slow, enable_faults_charged_to_the_writer, 300)
{
	int to[2], from[2], n = 0, status;
	long long w0, t0, w1 = -1, t1, min;
	char c = 0, me[16], home[256], *text;
	const char *why;
	int ctl;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;
	text = uet_read_file("/proc/cmdline");
	if (text && strstr(text, "cgroup.memory=nokmem")) {
		free(text);
		SKIP(return, "kernel memory not accounted (cgroup.memory=nokmem)");
	}
	free(text);
	/* the cgroup to come back to: "0::/PATH" */
	text = uet_read_file("/proc/self/cgroup");
	/* empty while no cgroup2 was ever mounted: the root */
	snprintf(home, sizeof(home), "%s%.*s/cgroup.procs", CG_ROOT,
		 text && !strncmp(text, "0::", 3) ? (int)strcspn(text + 3, "\n") : 0,
		 text && !strncmp(text, "0::", 3) ? text + 3 : "");
	free(text);
	why = rg_cg_mount();
	if (why)
		SKIP(return, "%s", why);
	rmdir(RG_FCG_W);
	rmdir(RG_FCG_T);
	ASSERT_EQ(0, mkdir(RG_FCG_W, 0755));
	ASSERT_EQ(0, mkdir(RG_FCG_T, 0755));
	ASSERT_EQ(0, status_event("rg_fcg u32 a", &ctl));
	ASSERT_EQ(0, pipe(to));
	ASSERT_EQ(0, pipe(from));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		long page = getpagesize();
		int fd, uffd, k;
		__u32 *word;

		snprintf(me, sizeof(me), "%d", getpid());
		if (uet_write_file(RG_FCG_W "/cgroup.procs", me, O_TRUNC))
			_exit(2);
		fd = open(UE_DATA, O_RDWR);
		uffd = rg_uffd();
		word = mmap(NULL, page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fd < 0 || uffd < 0 || word == MAP_FAILED)
			_exit(3);
		memset(word, 0, page);
		for (k = 0; k < RG_FCG_N; k++)
			if (uet_register_bits(fd, "rg_fcg u32 a", word + k / 32, 4,
					      k % 32, 0, NULL))
				break;
		if (rg_uffd_register(uffd, word, page, UFFDIO_REGISTER_MODE_WP) ||
		    rg_uffd_wp(uffd, word, page, 1))
			_exit(4);
		/* how many, then wait to be told to exit */
		if (write(from[1], &k, sizeof(k)) != sizeof(k) ||
		    read(to[0], &c, 1) != 1)
			_exit(5);
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	snprintf(me, sizeof(me), "%d", getpid());
	ASSERT_EQ(0, uet_write_file(RG_FCG_T "/cgroup.procs", me, O_TRUNC));
	ASSERT_EQ(sizeof(n), read(from[0], &n, sizeof(n)));
	/* every one of them */
	EXPECT_EQ(RG_FCG_N, n);
	min = (long long)n * RG_FCG_MIN;
	w0 = rg_cg_stat(RG_FCG_W, "slab_unreclaimable");
	t0 = rg_cg_stat(RG_FCG_T, "slab_unreclaimable");
	ASSERT_LE(0, w0);
	ASSERT_LE(0, t0);

	ASSERT_EQ(0, uet_enable("", "rg_fcg", 1));
	/* the stats are exact once flushed (every 2 s at least) */
	EXPECT_TRUE(ue_wait_for(UE_WAIT_MS,
				(w1 = rg_cg_stat(RG_FCG_W, "slab_unreclaimable")) - w0 >= min,
				"rg_w's slab to grow by %lld bytes", min))
		TH_LOG("%d enablers: rg_w's slab %lld -> %lld", n, w0, w1);
	t1 = rg_cg_stat(RG_FCG_T, "slab_unreclaimable");
	EXPECT_GT(min, t1 - t0) TH_LOG("rg_t's slab %lld -> %lld", t0, t1);

	ASSERT_EQ(1, write(to[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child: status %#x", status);
	/* its faults go with its memory */
	EXPECT_TRUE(ue_wait_for(UE_WAIT_MS,
				rg_cg_stat(RG_FCG_W, "slab_unreclaimable") - w0 < min,
				"rg_w's slab to drop back"));
	EXPECT_EQ(0, uet_enable("", "rg_fcg", 0));
	ASSERT_EQ(0, uet_write_file(home, me, O_TRUNC)) TH_LOG("back to %s", home);
	close(to[1]);
	close(from[0]);
	close(ctl);
	/*
	 * the child's enablers go with its memory, which the worker writing
	 * one of its bits may have held past its exit, a moment longer
	 */
	EXPECT_TRUE(ue_wait_for(UE_WAIT_MS, !uet_delete_named("rg_fcg"),
				"rg_fcg to be deleted"));
	EXPECT_EQ(0, rmdir(RG_FCG_W));
	EXPECT_EQ(0, rmdir(RG_FCG_T));
	umount(CG_ROOT);
	rmdir(CG_ROOT);
}

/*
 * Failure (of an order the registration could take): an enable-bit
 * registration at an address and bit whose enabler is stale (its range
 * unmapped, then mapped again) replaces that enabler, which may hold the
 * last reference on the very event being registered, its fd closed: the
 * event must stay, the new registration's, and not be freed under it
 * (KASAN). Registered on one fd at A, that fd closed, A unmapped and
 * mapped again, then registered the same on another fd at A: the bit
 * follows an enable, and a write on the new fd is recorded.
 */
TEST(register_over_a_stale_enabler)
{
	long page = getpagesize();
	struct { int idx; __u32 n; } rec = { 0, 7 };
	__u32 *a, *b, widx = 0;
	int fd;

	if (uet_skip(_metadata, 0))
		return;
	a = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register_bits(fd, "rg_stale u32 n", a, 4, 0, 0, NULL));
	close(fd);
	ASSERT_EQ(0, munmap(a, page));
	b = mmap(a, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ(a, b);
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register_bits(fd, "rg_stale u32 n", b, 4, 0, 0, &widx));
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, uet_enable("", "rg_stale", 1));
	EXPECT_TRUE(rg_wait_bit(b, 0, 1, 30000));
	rec.idx = widx;
	EXPECT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
	EXPECT_EQ(1, uet_trace_count("rg_stale: n=7"));
	EXPECT_EQ(0, uet_enable("", "rg_stale", 0));
	EXPECT_EQ(0, uet_unregister_bits(fd, b, 0));
	close(fd);
	munmap(b, page);
	/* its record is in trace: deleted, it is retired */
	EXPECT_EQ(0, uet_delete_named("rg_stale"));
	EXPECT_EQ(0, uet_clear_trace());
}

UE_HARNESS_MAIN
