// SPDX-License-Identifier: GPL-2.0
/*
 * lib_test: libuserevents (tools/lib/user_events) against the kernel:
 * registration through the library, ue_enabled() following "enable",
 * fixed and __rel_loc/__data_loc fields laid out by the writer and decoded
 * in trace, the one-shot ue_write(), errors and their messages, threads,
 * fork, unregistering, and a process of uid 65534 given access to the
 * files only: each through both ABIs, the enable bit and the status page.
 * Then the enable-bit ABI alone: the bit follows ftrace and perf, a
 * consumer that leaves before the write (EBADF: "not recorded"), both ABIs
 * on one event in one process, fork() and the inherited bit, and how long
 * the events it creates live. Batches: records of the writer, of iovecs
 * and of the caller's payload in the caller's buffer, flushed explicitly or
 * when full, a refused record's error, the fallback of a kernel without.
 *
 * The test links the library, built from its source, and calls it through
 * user_events.h as a user does. Each TEST runs in its own process, so each
 * starts with the library's state fresh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

/* The library (ue_*), as its users call it, beside the tests' helpers (uet_*) */
#include "user_events.h"
#include "../kselftest_harness.h"
#include "ue_helpers.h"

static char lt_trace_buf[1 << 16];

/* Does trace hold a line with @needle? */
static int lt_in_trace(const char *needle)
{
	char *buf = lt_trace_buf;
	int fd = open(TRACEFS "trace", O_RDONLY);
	ssize_t n, len = 0;

	if (fd < 0)
		return 0;
	while (len < (ssize_t)sizeof(lt_trace_buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(lt_trace_buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return !!strstr(buf, needle);
}

/* Does trace hold a line with @needle and every string of @parts? */
static int lt_in_trace_line(const char *needle, const char * const *parts, int n)
{
	char *line, *end;
	int i;

	if (!lt_in_trace(needle))
		return 0;
	/* lt_in_trace() left the trace in its buffer */
	line = strstr(lt_trace_buf, needle);
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	for (i = 0; i < n; i++)
		if (!strstr(line, parts[i]))
			return 0;
	return 1;
}

/*
 * Wait for ue_enabled(@ev) to be @want: after fork() the page is
 * copy-on-write, and the kernel updates the bit from a worker
 */
static int lt_wait_enabled(const struct ue_event *ev, int want)
{
	return ue_wait_for(UE_WAIT_MS, !!ue_enabled(ev) == want,
			   "ue_enabled() of \"%s\" to be %d", ev->desc, want);
}

/* Wait for events/user_events/@name to go; 1 when it went */
static int lt_wait_gone(const char *name)
{
	return ue_wait_for(UE_WAIT_MS, !uet_event_exists("user_events", name),
			   "events/user_events/%s to go", name);
}

/* Is user_events_status mapped in this process? */
static int lt_maps_status(void)
{
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");
	int found = 0;

	while (maps && !found && fgets(line, sizeof(line), maps))
		found = !!strstr(line, "user_events_status");
	if (maps)
		fclose(maps);
	return found;
}

/* The name of @ev: its description up to the flags or the fields */
static void lt_name(const struct ue_event *ev, char *name, size_t size)
{
	snprintf(name, size, "%.*s", (int)strcspn(ev->desc, ": "), ev->desc);
}

/*
 * Undo a test: disable the events, drop this process's registrations
 * (unregister them, close the library's file) and delete the events
 */
static void lt_cleanup(struct ue_event * const *evs, int n)
{
	char name[256];
	int fd, i;

	for (i = 0; i < n; i++) {
		lt_name(evs[i], name, sizeof(name));
		uet_enable("", name, 0);
		ue_event_unregister(evs[i]);
	}
	if (ue_data_fd() >= 0)
		close(ue_data_fd());
	fd = open(TRACEFS "user_events_data", O_RDWR);
	for (i = 0; fd >= 0 && i < n; i++) {
		lt_name(evs[i], name, sizeof(name));
		ioctl(fd, DIAG_IOCSDEL, name);
	}
	if (fd >= 0)
		close(fd);
}

UE_DEFINE_EVENT(lt_basic, "lib_test_basic", "u32 count; __rel_loc char[] msg");
UE_DEFINE_EVENT(lt_types, "lib_test_types",
		"u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; u64 g; s64 h; char[6] i; "
		"unsigned char[4] j; struct lt_pair k 2; __rel_loc char[] l; "
		"__data_loc char[] m; __rel_loc unsigned char[] n");

/* The tests of what holds for either ABI run once with each */
FIXTURE(lib) {
};

FIXTURE_VARIANT(lib) {
	int abi;	/* what ue_set_abi() chooses before the test */
};

FIXTURE_VARIANT_ADD(lib, bits) {
	.abi = UE_ABI_BITS,
};

FIXTURE_VARIANT_ADD(lib, status) {
	.abi = UE_ABI_STATUS,
};

FIXTURE_SETUP(lib)
{
	if (uet_skip(_metadata, 0))
		return;

	ASSERT_EQ(0, ue_set_abi(variant->abi));
	ASSERT_EQ(0, uet_clear_trace());
}

FIXTURE_TEARDOWN(lib)
{
}

/* ue_register_all() finds the UE_DEFINE_EVENT() events; enable flips them */
TEST_F(lib, register_all_and_enable)
{
	struct ue_event * const evs[] = { &lt_basic, &lt_types };
	struct ue_writer w;

	EXPECT_FALSE(ue_enabled(&lt_basic));
	ASSERT_EQ(0, ue_register_all()) TH_LOG("%s", ue_strerror(errno));
	EXPECT_EQ(1, lt_basic.registered);
	EXPECT_EQ(1, lt_types.registered);
	EXPECT_NE(lt_basic.status, lt_types.status);
	if (variant->abi == UE_ABI_STATUS) {
		EXPECT_LT(0, lt_basic.status_index);
		EXPECT_NE(lt_basic.status_index, lt_types.status_index);
		EXPECT_EQ(ue_status_page() + lt_basic.status_index, lt_basic.status);
	} else {
		/* the enable-bit ABI needs no status page at all */
		EXPECT_EQ(0, lt_basic.status_index);
		EXPECT_FALSE(lt_maps_status());
	}
	EXPECT_FALSE(ue_enabled(&lt_basic));

	ASSERT_EQ(0, uet_enable("", "lib_test_basic", 1));
	EXPECT_TRUE(ue_enabled(&lt_basic));
	if (variant->abi == UE_ABI_STATUS)
		EXPECT_EQ(EVENT_STATUS_FTRACE, *lt_basic.status);
	EXPECT_FALSE(ue_enabled(&lt_types));

	ue_write_begin(&w, &lt_basic);
	ue_add_u32(&w, 7);
	ue_add_str(&w, "hello");
	EXPECT_EQ(4 + 4 + 6, ue_write_end(&w));
	EXPECT_TRUE(lt_in_trace("lib_test_basic: count=7 msg=hello"));

	ASSERT_EQ(0, uet_enable("", "lib_test_basic", 0));
	EXPECT_FALSE(ue_enabled(&lt_basic));
	lt_cleanup(evs, 2);
}

/* Every field type through the writer, decoded by the kernel */
TEST_F(lib, writer_all_types)
{
	struct ue_event * const evs[] = { &lt_types };
	static const unsigned char j[4] = { 0xde, 0xad, 0xbe, 0xef };
	static const unsigned char k[2] = { 0x12, 0x34 };
	static const unsigned char n[3] = { 1, 2, 0xff };
	static const char * const want[] = {
		" e=4000000000 f=-2000000000 g=18000000000000000000 ",
		" h=-9000000000000000000 i=abc j=deadbeef k=1234 ",
		" l=rel_string m=data_string n=0102ff",
	};
	struct ue_writer w;
	ssize_t ret;

	ASSERT_EQ(0, ue_event_register(&lt_types)) TH_LOG("%s", ue_strerror(errno));
	ASSERT_EQ(0, uet_enable("", "lib_test_types", 1));
	ASSERT_TRUE(ue_enabled(&lt_types));
	ue_write_begin(&w, &lt_types);
	ue_add_u8(&w, 200);
	ue_add_s8(&w, -100);
	ue_add_u16(&w, 60000);
	ue_add_s16(&w, -30000);
	ue_add_u32(&w, 4000000000U);
	ue_add_s32(&w, -2000000000);
	ue_add_u64(&w, 18000000000000000000ULL);
	ue_add_s64(&w, -9000000000000000000LL);
	ue_add_chars(&w, "abc", 6);
	ue_add_bytes(&w, j, sizeof(j));
	ue_add_bytes(&w, k, sizeof(k));
	ue_add_str(&w, "rel_string");
	ue_add_data_loc_str(&w, "data_string");
	ue_add_array(&w, n, sizeof(n));
	ret = ue_write_end(&w);
	EXPECT_LT(0, ret) TH_LOG("%s", ue_strerror(ret));
	EXPECT_TRUE(lt_in_trace_line("lib_test_types: a=200 b=-100 c=60000 d=-30000 ",
				     want, ARRAY_SIZE(want)));
	lt_cleanup(evs, 1);
}

/*
 * ue_write() with the caller's iovecs; lazy registration on first write.
 * With nothing attached the status page takes the write and records
 * nothing, the enable-bit ABI refuses it, which the library reports as 0
 */
TEST_F(lib, one_shot_write_registers)
{
	struct ue_event ev = UE_EVENT("lib_test_oneshot", "u32 v; __rel_loc char[] s");
	struct ue_event * const evs[] = { &ev };
	const char *s = "oneshot";
	uint32_t v = 99, loc = (uint32_t)(strlen(s) + 1) << 16;
	struct iovec iov[] = {
		{ &v, sizeof(v) }, { &loc, sizeof(loc) },
		{ (void *)s, strlen(s) + 1 },
	};

	EXPECT_EQ(variant->abi == UE_ABI_STATUS ? 16 : 0, ue_write(&ev, iov, 3))
		TH_LOG("%s", ue_strerror(errno));
	EXPECT_EQ(1, ev.registered);
	ASSERT_EQ(0, uet_enable("", "lib_test_oneshot", 1));
	EXPECT_TRUE(ue_enabled(&ev));
	EXPECT_EQ(16, ue_write(&ev, iov, 3));
	EXPECT_TRUE(lt_in_trace("lib_test_oneshot: v=99 s=oneshot"));
	EXPECT_EQ(-EINVAL, ue_write(&ev, iov, UE_MAX_IOV + 1));
	lt_cleanup(evs, 1);
}

/* Kernel errors come back as -errno with errno set, and are explained */
TEST_F(lib, errors)
{
	struct ue_event a = UE_EVENT("lib_test_err", "u32 x");
	struct ue_event b = UE_EVENT("lib_test_err", "u64 x");
	struct ue_event bad = UE_EVENT("1bad", "u32 x");
	struct ue_event * const evs[] = { &a };
	struct ue_event big;
	char desc[700];

	ASSERT_EQ(0, ue_event_register(&a));
	errno = 0;
	EXPECT_EQ(-EADDRINUSE, ue_event_register(&b));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(0, b.registered);
	EXPECT_FALSE(ue_enabled(&b));
	EXPECT_TRUE(!!strstr(ue_strerror(errno), "other fields"));
	EXPECT_EQ(-EINVAL, ue_event_register(&bad));
	memset(desc, 'a', sizeof(desc) - 1);
	desc[sizeof(desc) - 1] = '\0';
	ue_event_init(&big, desc);
	EXPECT_EQ(-E2BIG, ue_event_register(&big));
	/* our own registration holds the event */
	EXPECT_EQ(-EBUSY, ue_delete_event("lib_test_err"));
	EXPECT_EQ(-ENOENT, ue_delete_event("lib_test_no_such_event"));
	lt_cleanup(evs, 1);
}

/* How many lines of trace hold @needle */
static int lt_trace_count(const char *needle)
{
	const char *p = lt_trace_buf;
	int n = 0;

	lt_in_trace(needle);
	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/*
 * A batch: records laid out by the writer (copied and referenced fields),
 * from iovecs and from the caller's payload, flushed explicitly and when
 * the buffer is full; each record a line of trace, in order. A record of
 * an event nobody listens to is skipped without an error.
 */
TEST_F(lib, batch_records)
{
	struct ue_event fixed = UE_EVENT("lib_test_bfix", "u32 a; u32 b");
	struct ue_event * const evs[] = { &lt_basic, &fixed };
	unsigned char buf[64];
	struct ue_batch b;
	struct ue_writer w;
	uint32_t ab[2] = { 5, 6 };
	struct iovec iov = { ab, sizeof(ab) };
	char want[64];
	int i;

	EXPECT_EQ(-EINVAL, ue_batch_init(&b, buf, UE_BATCH_MIN - 1));
	EXPECT_EQ(-EINVAL, ue_batch_init(&b, NULL, sizeof(buf)));
	ASSERT_EQ(0, ue_batch_init(&b, buf, sizeof(buf)));
	ASSERT_EQ(0, ue_event_register(&lt_basic));
	ASSERT_EQ(0, ue_event_register(&fixed));
	ASSERT_EQ(0, uet_enable("", "lib_test_basic", 1));
	ASSERT_EQ(0, uet_enable("", "lib_test_bfix", 1));

	ue_write_begin(&w, &lt_basic);
	ue_add_u32(&w, 1);
	ue_add_str(&w, "first");
	ASSERT_EQ(0, ue_batch_add_writer(&b, &w));
	ASSERT_EQ(0, ue_batch_add(&b, &fixed, &iov, 1));
	ab[0] = 7;
	ASSERT_EQ(0, ue_batch_add_record(&b, &fixed, ab, sizeof(ab)));
	EXPECT_EQ(3, b.nr);
	/* nothing written before the flush */
	EXPECT_FALSE(lt_in_trace("lib_test_basic: count=1 msg=first"));
	EXPECT_EQ(0, ue_batch_flush(&b));
	EXPECT_EQ(0, b.nr);
	EXPECT_TRUE(lt_in_trace("lib_test_basic: count=1 msg=first"));
	EXPECT_EQ(1, lt_trace_count("lib_test_bfix: a=5 b=6\n"));
	EXPECT_EQ(1, lt_trace_count("lib_test_bfix: a=7 b=6\n"));

	/* 20 records of 12 bytes in 64: the adds flush the full buffer */
	for (i = 0; i < 20; i++) {
		ab[0] = 100 + i;
		ASSERT_EQ(0, ue_batch_add_record(&b, &fixed, ab, sizeof(ab)));
	}
	EXPECT_LT(0, lt_trace_count("lib_test_bfix: a=100 b=6\n"));
	EXPECT_EQ(0, ue_batch_flush(&b));
	for (i = 0; i < 20; i++) {
		snprintf(want, sizeof(want), "lib_test_bfix: a=%d b=6\n", 100 + i);
		EXPECT_EQ(1, lt_trace_count(want)) TH_LOG("%s", want);
	}

	/* a record larger than the buffer is written alone */
	ue_write_begin(&w, &lt_basic);
	ue_add_u32(&w, 2);
	ue_add_str(&w, "a string longer than the whole batch buffer of 64 bytes");
	EXPECT_EQ(0, ue_batch_add_writer(&b, &w));
	EXPECT_TRUE(lt_in_trace("lib_test_basic: count=2 msg=a string longer"));

	/* nobody listening to lib_test_basic: skipped, no error, either ABI */
	ASSERT_EQ(0, uet_enable("", "lib_test_basic", 0));
	ASSERT_EQ(0, uet_clear_trace());
	ue_write_begin(&w, &lt_basic);
	ue_add_u32(&w, 3);
	ue_add_str(&w, "nobody");
	ASSERT_EQ(0, ue_batch_add_writer(&b, &w));
	ab[0] = 8;
	ASSERT_EQ(0, ue_batch_add_record(&b, &fixed, ab, sizeof(ab)));
	EXPECT_EQ(0, ue_batch_flush(&b));
	EXPECT_FALSE(lt_in_trace("count=3"));
	EXPECT_EQ(1, lt_trace_count("lib_test_bfix: a=8 b=6\n"));
	lt_cleanup(evs, 2);
}

/*
 * A record the kernel refuses (a __data_loc past the record: EFAULT) is
 * dropped and its error returned by the flush; the records after it are
 * written. A writer's error is the add's. Without batches in the kernel
 * (the library's fallback, forced) the records go one by one.
 */
TEST_F(lib, batch_errors)
{
	struct ue_event ev = UE_EVENT("lib_test_berr", "u32 a; __data_loc char[] s");
	struct ue_event * const evs[] = { &ev };
	struct { uint32_t a, loc; char s[4]; } good = { 1, 16 | 4 << 16, "abc" },
		bad = { 2, 16 | 9 << 16, "abc" };
	unsigned char buf[256];
	struct ue_batch b;
	struct ue_writer w;

	ASSERT_EQ(0, ue_batch_init(&b, buf, sizeof(buf)));
	ASSERT_EQ(0, ue_event_register(&ev));
	ASSERT_EQ(0, uet_enable("", "lib_test_berr", 1));
	ASSERT_EQ(0, ue_batch_add_record(&b, &ev, &good, sizeof(good)));
	ASSERT_EQ(0, ue_batch_add_record(&b, &ev, &bad, sizeof(bad)));
	good.a = 3;
	ASSERT_EQ(0, ue_batch_add_record(&b, &ev, &good, sizeof(good)));
	EXPECT_EQ(-EFAULT, ue_batch_flush(&b));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, lt_trace_count("lib_test_berr: a=1 s=abc\n"));
	EXPECT_EQ(0, lt_trace_count("a=2"));
	EXPECT_EQ(1, lt_trace_count("lib_test_berr: a=3 s=abc\n"));
	/* the error was reported once */
	EXPECT_EQ(0, ue_batch_flush(&b));

	/* a writer past its limits: the add's error, nothing added */
	ue_write_begin(&w, &ev);
	ue_add_u32(&w, 4);
	ue_add_data_loc_array(&w, buf, 70000);
	EXPECT_EQ(-E2BIG, ue_batch_add_writer(&b, &w));
	EXPECT_EQ(0, b.nr);

	/* the fallback of a kernel without batches: each record alone */
	ASSERT_EQ(0, setenv("USER_EVENTS_BATCH", "off", 1));
	ASSERT_EQ(0, ue_batch_init(&b, buf, sizeof(buf)));
	ASSERT_EQ(0, unsetenv("USER_EVENTS_BATCH"));
	good.a = 5;
	ASSERT_EQ(0, ue_batch_add_record(&b, &ev, &good, sizeof(good)));
	ASSERT_EQ(0, ue_batch_add_record(&b, &ev, &bad, sizeof(bad)));
	good.a = 6;
	ASSERT_EQ(0, ue_batch_add_record(&b, &ev, &good, sizeof(good)));
	EXPECT_EQ(-EFAULT, ue_batch_flush(&b));
	EXPECT_EQ(1, lt_trace_count("lib_test_berr: a=5 s=abc\n"));
	EXPECT_EQ(1, lt_trace_count("lib_test_berr: a=6 s=abc\n"));
	lt_cleanup(evs, 1);
}

/* Registering from many threads at once gives one registration */
static void *lt_thread(void *arg)
{
	return (void *)(long)ue_event_register(arg);
}

TEST_F(lib, threads)
{
	struct ue_event ev = UE_EVENT("lib_test_threads", "u32 x");
	struct ue_event again = UE_EVENT("lib_test_threads", "u32 x");
	struct ue_event * const evs[] = { &ev, &again };
	pthread_t th[8];
	void *ret;
	int i;

	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, lt_thread, &ev));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, pthread_join(th[i], &ret));
		EXPECT_EQ(0, (long)ret);
	}
	EXPECT_EQ(1, ev.registered);
	/* a second struct of the same event: same write index on our fd */
	ASSERT_EQ(0, ue_event_register(&again));
	EXPECT_EQ(ev.write_index, again.write_index);
	EXPECT_EQ(ev.status_index, again.status_index);
	/* through the enable bit each struct has its own word, both updated */
	if (variant->abi == UE_ABI_BITS)
		EXPECT_NE(ev.status, again.status);
	ASSERT_EQ(0, uet_enable("", "lib_test_threads", 1));
	EXPECT_TRUE(ue_enabled(&ev));
	EXPECT_TRUE(ue_enabled(&again));
	lt_cleanup(evs, 2);
}

/* A forked child writes with the parent's registration, not registering again */
TEST_F(lib, fork_child_writes)
{
	struct ue_event ev = UE_EVENT("lib_test_fork", "s32 pid");
	struct ue_event * const evs[] = { &ev };
	struct ue_writer w;
	char line[64];
	int status;
	pid_t pid;

	ASSERT_EQ(0, ue_event_register(&ev));
	ASSERT_EQ(0, uet_enable("", "lib_test_fork", 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		const unsigned char *byte = ev.status;

		if (!ue_enabled(&ev))
			_exit(2);
		if (ue_event_register(&ev) || ev.status != byte)
			_exit(3);
		ue_write_begin(&w, &ev);
		ue_add_s32(&w, getpid());
		_exit(ue_write_end(&w) == 4 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child failed at step %d",
						 WEXITSTATUS(status));
	snprintf(line, sizeof(line), "lib_test_fork: pid=%d", pid);
	EXPECT_TRUE(lt_in_trace(line));
	lt_cleanup(evs, 1);
}

/*
 * Unregistering: through the enable bit, the kernel stops writing the word
 * (and clears the bit) though the event stays enabled; through the status
 * page the registration stays on the file. Either way it registers again.
 */
TEST_F(lib, unregister)
{
	struct ue_event ev = UE_EVENT("lib_test_unreg", "u32 x");
	struct ue_event * const evs[] = { &ev };
	const unsigned char *byte;
	int index;

	ASSERT_EQ(0, ue_event_register(&ev));
	ASSERT_EQ(0, uet_enable("", "lib_test_unreg", 1));
	ASSERT_TRUE(ue_enabled(&ev));
	byte = ev.status;
	index = ev.write_index;
	EXPECT_EQ(0, ue_event_unregister(&ev)) TH_LOG("%s", ue_strerror(errno));
	EXPECT_EQ(0, ev.registered);
	EXPECT_EQ(-1, ev.write_index);
	EXPECT_EQ(&ue_disabled_byte, ev.status);
	EXPECT_FALSE(ue_enabled(&ev));
	/* the word stays the library's: the kernel no longer writes it */
	if (variant->abi == UE_ABI_BITS) {
		EXPECT_EQ(0, __atomic_load_n(byte, __ATOMIC_RELAXED));
		ASSERT_EQ(0, uet_enable("", "lib_test_unreg", 0));
		ASSERT_EQ(0, uet_enable("", "lib_test_unreg", 1));
		EXPECT_EQ(0, __atomic_load_n(byte, __ATOMIC_RELAXED));
	}
	ASSERT_EQ(0, ue_event_register(&ev));
	EXPECT_TRUE(ue_enabled(&ev));
	/* same fd, same ABI, same event: same index */
	EXPECT_EQ(index, ev.write_index);
	lt_cleanup(evs, 1);
}

/*
 * A process of uid 65534 with access to the files its ABI needs (and search
 * access to tracefs) registers, sees the status and writes: the enable-bit
 * ABI needs user_events_data only. Modes restored after.
 */
TEST_F(lib, nonroot)
{
	struct stat st_status, st_data, st_dir;
	struct ue_event ev = UE_EVENT("lib_test_nonroot", "u32 uid; __rel_loc char[] who");
	struct ue_event fresh = UE_EVENT("lib_test_nonroot_new", "u8 x");
	struct ue_event * const evs[] = { &ev, &fresh };
	struct ue_writer w;
	int status;
	pid_t pid;

	if (geteuid())
		SKIP(return, "must be run as root");
	ASSERT_EQ(0, stat(TRACEFS, &st_dir));
	ASSERT_EQ(0, stat(TRACEFS "user_events_status", &st_status));
	ASSERT_EQ(0, stat(TRACEFS "user_events_data", &st_data));
	ASSERT_EQ(0, st_status.st_mode & 0004) TH_LOG("user_events_status is world-readable");
	ASSERT_EQ(0, uet_write_file(UE_DYN, "u:lib_test_nonroot u32 uid; __rel_loc char[] who",
				    O_APPEND));
	ASSERT_EQ(0, uet_enable("", "lib_test_nonroot", 1));
	if (variant->abi == UE_ABI_STATUS)
		ASSERT_EQ(0, chmod(TRACEFS "user_events_status", 0666));
	ASSERT_EQ(0, chmod(TRACEFS "user_events_data", 0666));
	ASSERT_EQ(0, chmod(TRACEFS, st_dir.st_mode | 0055));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (ue_event_register(&ev) || ue_event_register(&fresh))
			_exit(11);
		if (!ue_enabled(&ev))
			_exit(12);
		ue_write_begin(&w, &ev);
		ue_add_u32(&w, getuid());
		ue_add_str(&w, "nobody");
		if (ue_write_end(&w) <= 0)
			_exit(13);
		/* an event created through the enable bit lasts while we hold it */
		_exit(access(TRACEFS "events/user_events/lib_test_nonroot_new/enable",
			     F_OK) ? 14 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	EXPECT_EQ(0, chmod(TRACEFS "user_events_status", st_status.st_mode & 07777));
	EXPECT_EQ(0, chmod(TRACEFS "user_events_data", st_data.st_mode & 07777));
	EXPECT_EQ(0, chmod(TRACEFS, st_dir.st_mode & 07777));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child failed at step %d",
						 WEXITSTATUS(status));
	EXPECT_TRUE(lt_in_trace("lib_test_nonroot: uid=65534 who=nobody"));
	/* the status page's stays after the child */
	if (variant->abi == UE_ABI_STATUS)
		EXPECT_EQ(0, access(TRACEFS "events/user_events/lib_test_nonroot_new/enable",
				    F_OK));
	lt_cleanup(evs, 2);
}

/* Without access, the library says what to do */
TEST_F(lib, no_access_message)
{
	struct stat st;
	int status;
	pid_t pid;

	if (geteuid())
		SKIP(return, "must be run as root");
	ASSERT_EQ(0, stat(TRACEFS "user_events_data", &st));
	ASSERT_EQ(0, st.st_mode & 0006) TH_LOG("user_events_data is world-accessible");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (ue_open() != -EACCES || errno != EACCES)
			_exit(11);
		_exit(strstr(ue_strerror(errno), "user_events_data") ? 0 : 12);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Enable-bit ABI: the bit follows every consumer, ftrace and perf, and the
 * kernel sets that bit of the library's word and no other
 */
TEST(bits_follow_consumers)
{
	static const unsigned char enabled_word[4] = { 1, 0, 0, 0 };
	struct ue_event ev = UE_EVENT("lib_test_bits", "u32 x");
	struct ue_event * const evs[] = { &ev };
	int perf;

	if (uet_skip(_metadata, UE_NEED_PERF))
		return;

	ASSERT_EQ(0, ue_set_abi(UE_ABI_BITS));
	ASSERT_EQ(0, ue_event_register(&ev)) TH_LOG("%s", ue_strerror(errno));
	ASSERT_EQ(0, ev.status_index);
	EXPECT_FALSE(ue_enabled(&ev));
	ASSERT_EQ(0, uet_enable("", "lib_test_bits", 1));
	EXPECT_TRUE(ue_enabled(&ev));
	/* the kernel's bit is bit 0 of the byte status points at, the word's first */
	EXPECT_EQ(0, memcmp(ev.status, enabled_word, sizeof(enabled_word)));
	ASSERT_EQ(0, uet_enable("", "lib_test_bits", 0));
	EXPECT_FALSE(ue_enabled(&ev));
	EXPECT_EQ(0, *(const uint32_t *)ev.status);

	perf = uet_perf_open(uet_tracepoint_id("lib_test_bits"), 0, -1, 0);
	ASSERT_LE(0, perf) TH_LOG("perf_event_open: %s", strerror(errno));
	EXPECT_TRUE(ue_enabled(&ev));
	ASSERT_EQ(0, uet_enable("", "lib_test_bits", 1));
	close(perf);
	/* ftrace still listens */
	EXPECT_TRUE(ue_enabled(&ev));
	ASSERT_EQ(0, uet_enable("", "lib_test_bits", 0));
	EXPECT_FALSE(ue_enabled(&ev));
	lt_cleanup(evs, 1);
}

/*
 * Enable-bit ABI: the consumer leaves between ue_enabled() and the write.
 * The kernel refuses the write (EBADF); the library says "not recorded".
 */
TEST(bits_consumer_left_before_write)
{
	struct ue_event ev = UE_EVENT("lib_test_race", "u32 x");
	struct ue_event * const evs[] = { &ev };
	uint32_t x = 5;
	struct iovec iov[2] = { { &x, sizeof(x) } };
	struct ue_writer w;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_EQ(0, ue_set_abi(UE_ABI_BITS));
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, ue_event_register(&ev));
	ASSERT_EQ(0, uet_enable("", "lib_test_race", 1));
	ASSERT_TRUE(ue_enabled(&ev));
	ASSERT_EQ(0, uet_enable("", "lib_test_race", 0));

	ue_write_begin(&w, &ev);
	ue_add_u32(&w, 5);
	EXPECT_EQ(0, ue_write_end(&w)) TH_LOG("%s", ue_strerror(errno));
	EXPECT_EQ(0, ue_write(&ev, iov, 1));
	/* what the library saw: the kernel's EBADF */
	iov[1] = iov[0];
	iov[0].iov_base = &ev.write_index;
	iov[0].iov_len = sizeof(ev.write_index);
	EXPECT_EQ(-1, writev(ue_data_fd(), iov, 2));
	EXPECT_EQ(EBADF, errno);
	EXPECT_FALSE(lt_in_trace("lib_test_race:"));
	lt_cleanup(evs, 1);
}

/* One record of @ev's "u32 via": what ue_write_end() returns */
static int write_via(struct ue_event *ev, __u32 via)
{
	struct ue_writer w;

	ue_write_begin(&w, ev);
	ue_add_u32(&w, via);
	return ue_write_end(&w);
}

/*
 * Both ABIs in one process, on one event: two write indexes on the one
 * file, each follows the consumers, each write reaches trace
 */
TEST(both_abis_side_by_side)
{
	struct ue_event bits = UE_EVENT("lib_test_both", "u32 via");
	struct ue_event page = UE_EVENT("lib_test_both", "u32 via");
	struct ue_event * const evs[] = { &bits, &page };

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, ue_set_abi(UE_ABI_BITS));
	ASSERT_EQ(0, ue_event_register(&bits));
	ASSERT_EQ(0, ue_set_abi(UE_ABI_STATUS));
	ASSERT_EQ(0, ue_event_register(&page));
	EXPECT_EQ(0, bits.status_index);
	EXPECT_LT(0, page.status_index);
	EXPECT_NE(bits.write_index, page.write_index);

	/* nothing attached: the status page accepts, the enable bit refuses */
	EXPECT_EQ(0, write_via(&bits, 1));
	EXPECT_EQ(4, write_via(&page, 2));

	ASSERT_EQ(0, uet_enable("", "lib_test_both", 1));
	EXPECT_TRUE(ue_enabled(&bits));
	EXPECT_TRUE(ue_enabled(&page));
	EXPECT_EQ(4, write_via(&bits, 1));
	EXPECT_EQ(4, write_via(&page, 2));
	EXPECT_TRUE(lt_in_trace("lib_test_both: via=1"));
	EXPECT_TRUE(lt_in_trace("lib_test_both: via=2"));
	ASSERT_EQ(0, uet_enable("", "lib_test_both", 0));
	EXPECT_FALSE(ue_enabled(&bits));
	EXPECT_FALSE(ue_enabled(&page));
	lt_cleanup(evs, 2);
}

/*
 * Enable-bit ABI and fork(): the child inherits the enable bit, which then
 * follows the consumers in both processes; the library registers nothing
 * again in the child, and the child's unregister drops only the child's.
 */
TEST(bits_fork_inherits)
{
	struct ue_event ev = UE_EVENT("lib_test_bfork", "s32 pid");
	struct ue_event * const evs[] = { &ev };
	struct ue_writer w;
	int go[2], status;
	char line[64], c;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_EQ(0, ue_set_abi(UE_ABI_BITS));
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, ue_event_register(&ev));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		const unsigned char *byte = ev.status;

		if (read(go[0], &c, 1) != 1)
			_exit(10);
		if (!lt_wait_enabled(&ev, 1))
			_exit(11);
		/* a second registration would be EADDRINUSE or a second word */
		if (ue_event_register(&ev) || ev.status != byte)
			_exit(12);
		ue_write_begin(&w, &ev);
		ue_add_s32(&w, getpid());
		if (ue_write_end(&w) != 4)
			_exit(13);
		/* ENOENT if the child had no enable bit of its own there */
		_exit(ue_event_unregister(&ev) ? 14 : 0);
	}
	ASSERT_EQ(0, uet_enable("", "lib_test_bfork", 1));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child failed at step %d",
						 WEXITSTATUS(status));
	snprintf(line, sizeof(line), "lib_test_bfork: pid=%d", pid);
	EXPECT_TRUE(lt_in_trace(line));
	/* the parent's bit still follows the event */
	EXPECT_TRUE(lt_wait_enabled(&ev, 1));
	ASSERT_EQ(0, uet_enable("", "lib_test_bfork", 0));
	EXPECT_TRUE(lt_wait_enabled(&ev, 0));
	close(go[0]);
	close(go[1]);
	lt_cleanup(evs, 1);
}

/*
 * Enable-bit ABI: an event the program created goes once it is dropped
 * (unregistered, file closed); with USER_EVENT_REG_PERSIST it stays
 */
TEST(bits_persist_or_not)
{
	struct ue_event keep = UE_EVENT("lib_test_persist", "u32 x");
	struct ue_event drop = UE_EVENT("lib_test_transient", "u32 x");
	struct ue_event * const evs[] = { &keep };

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_EQ(0, ue_set_abi(UE_ABI_BITS));
	ASSERT_EQ(0, ue_event_register_flags(&keep, USER_EVENT_REG_PERSIST))
		TH_LOG("%s", ue_strerror(errno));
	ASSERT_EQ(0, ue_event_register(&drop));
	ASSERT_TRUE(uet_event_exists("user_events", "lib_test_transient"));
	EXPECT_EQ(0, ue_event_unregister(&keep));
	EXPECT_EQ(0, ue_event_unregister(&drop));
	close(ue_data_fd());
	EXPECT_TRUE(lt_wait_gone("lib_test_transient"));
	EXPECT_TRUE(uet_event_exists("user_events", "lib_test_persist"));
	lt_cleanup(evs, 1);
	EXPECT_TRUE(lt_wait_gone("lib_test_persist"));
}

UE_HARNESS_MAIN
