// SPDX-License-Identifier: GPL-2.0
/*
 * lib_test: libuserevents (tools/lib/user_events) against the kernel:
 * registration through the library, ue_enabled() following "enable",
 * fixed and __rel_loc/__data_loc fields laid out by the writer and decoded
 * in trace, the one-shot ue_write(), errors and their messages, threads,
 * fork, and a process of uid 65534 given access to the two files only.
 *
 * The library is compiled into this test from its source. Each TEST runs
 * in its own process, so each starts with the library's state fresh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../lib/user_events/user_events.c"
#include "../kselftest_harness.h"

#define TRACEFS "/sys/kernel/tracing"

/* Write @text to tracefs file @rel; 0 or -errno */
static int lt_write(const char *rel, const char *text, int flags)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), TRACEFS "/%s", rel);
	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int lt_enable(const char *name, int on)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "events/user_events/%s/enable", name);
	return lt_write(rel, on ? "1" : "0", O_TRUNC);
}

static char lt_trace_buf[1 << 16];

/* Does trace hold a line with @needle? */
static int lt_in_trace(const char *needle)
{
	char *buf = lt_trace_buf;
	int fd = open(TRACEFS "/trace", O_RDONLY);
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
 * Undo a test: drop this process's registrations (close the library's
 * file), disable and delete the events
 */
static void lt_cleanup(const char * const *names, int n)
{
	int fd, i;

	if (ue_data_fd() >= 0)
		close(ue_data_fd());
	fd = open(TRACEFS "/user_events_data", O_RDWR);
	for (i = 0; i < n; i++) {
		lt_enable(names[i], 0);
		if (fd >= 0)
			ioctl(fd, DIAG_IOCSDEL, names[i]);
	}
	if (fd >= 0)
		close(fd);
}

UE_DEFINE_EVENT(lt_basic, "lib_test_basic", "u32 count; __rel_loc char[] msg");
UE_DEFINE_EVENT(lt_types, "lib_test_types",
		"u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; u64 g; s64 h; char[6] i; "
		"unsigned char[4] j; struct lt_pair k 2; __rel_loc char[] l; "
		"__data_loc char[] m; __rel_loc unsigned char[] n");

/* ue_register_all() finds the UE_DEFINE_EVENT() events; enable flips them */
TEST(register_all_and_enable)
{
	static const char * const names[] = { "lib_test_basic", "lib_test_types" };
	struct ue_writer w;

	ASSERT_EQ(0, lt_write("trace", "", O_TRUNC));
	EXPECT_FALSE(ue_enabled(&lt_basic));
	ASSERT_EQ(0, ue_register_all()) TH_LOG("%s", ue_strerror(errno));
	EXPECT_EQ(1, lt_basic.registered);
	EXPECT_EQ(1, lt_types.registered);
	EXPECT_LT(0, lt_basic.status_index);
	EXPECT_NE(lt_basic.status_index, lt_types.status_index);
	EXPECT_EQ(ue_status_page() + lt_basic.status_index, lt_basic.status);
	EXPECT_FALSE(ue_enabled(&lt_basic));

	ASSERT_EQ(0, lt_enable("lib_test_basic", 1));
	EXPECT_TRUE(ue_enabled(&lt_basic));
	EXPECT_EQ(EVENT_STATUS_FTRACE, *lt_basic.status);
	EXPECT_FALSE(ue_enabled(&lt_types));

	ue_write_begin(&w, &lt_basic);
	ue_add_u32(&w, 7);
	ue_add_str(&w, "hello");
	EXPECT_EQ(4 + 4 + 6, ue_write_end(&w));
	EXPECT_TRUE(lt_in_trace("lib_test_basic: count=7 msg=hello"));

	ASSERT_EQ(0, lt_enable("lib_test_basic", 0));
	EXPECT_FALSE(ue_enabled(&lt_basic));
	lt_cleanup(names, 2);
}

/* Every field type through the writer, decoded by the kernel */
TEST(writer_all_types)
{
	static const char * const names[] = { "lib_test_types" };
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

	ASSERT_EQ(0, lt_write("trace", "", O_TRUNC));
	ASSERT_EQ(0, ue_event_register(&lt_types)) TH_LOG("%s", ue_strerror(errno));
	ASSERT_EQ(0, lt_enable("lib_test_types", 1));
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
	lt_cleanup(names, 1);
}

/* ue_write() with the caller's iovecs; lazy registration on first write */
TEST(one_shot_write_registers)
{
	static const char * const names[] = { "lib_test_oneshot" };
	struct ue_event ev = UE_EVENT("lib_test_oneshot", "u32 v; __rel_loc char[] s");
	const char *s = "oneshot";
	uint32_t v = 99, loc = (uint32_t)(strlen(s) + 1) << 16;
	struct iovec iov[] = {
		{ &v, sizeof(v) }, { &loc, sizeof(loc) },
		{ (void *)s, strlen(s) + 1 },
	};

	ASSERT_EQ(0, lt_write("trace", "", O_TRUNC));
	/* nothing attached: the write registers the event and records nothing */
	EXPECT_EQ(16, ue_write(&ev, iov, 3)) TH_LOG("%s", ue_strerror(errno));
	EXPECT_EQ(1, ev.registered);
	ASSERT_EQ(0, lt_enable("lib_test_oneshot", 1));
	EXPECT_TRUE(ue_enabled(&ev));
	EXPECT_EQ(16, ue_write(&ev, iov, 3));
	EXPECT_TRUE(lt_in_trace("lib_test_oneshot: v=99 s=oneshot"));
	EXPECT_EQ(-EINVAL, ue_write(&ev, iov, UE_MAX_IOV + 1));
	lt_cleanup(names, 1);
}

/* Kernel errors come back as -errno with errno set, and are explained */
TEST(errors)
{
	static const char * const names[] = { "lib_test_err" };
	struct ue_event a = UE_EVENT("lib_test_err", "u32 x");
	struct ue_event b = UE_EVENT("lib_test_err", "u64 x");
	struct ue_event bad = UE_EVENT("1bad", "u32 x");
	struct ue_event big;
	char desc[700];

	ASSERT_EQ(0, ue_event_register(&a));
	errno = 0;
	EXPECT_EQ(-EADDRINUSE, ue_event_register(&b));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(0, b.registered);
	EXPECT_TRUE(!!strstr(ue_strerror(errno), "other fields"));
	EXPECT_EQ(-EINVAL, ue_event_register(&bad));
	memset(desc, 'a', sizeof(desc) - 1);
	desc[sizeof(desc) - 1] = '\0';
	ue_event_init(&big, desc);
	EXPECT_EQ(-E2BIG, ue_event_register(&big));
	/* our own fd holds the event */
	EXPECT_EQ(-EBUSY, ue_delete_event("lib_test_err"));
	EXPECT_EQ(-ENOENT, ue_delete_event("lib_test_no_such_event"));
	lt_cleanup(names, 1);
}

/* Registering from many threads at once gives one registration */
static void *lt_thread(void *arg)
{
	return (void *)(long)ue_event_register(arg);
}

TEST(threads)
{
	static const char * const names[] = { "lib_test_threads" };
	struct ue_event ev = UE_EVENT("lib_test_threads", "u32 x");
	struct ue_event again = UE_EVENT("lib_test_threads", "u32 x");
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
	lt_cleanup(names, 1);
}

/* A forked child writes with the parent's registration */
TEST(fork_child_writes)
{
	static const char * const names[] = { "lib_test_fork" };
	struct ue_event ev = UE_EVENT("lib_test_fork", "s32 pid");
	struct ue_writer w;
	char line[64];
	int status;
	pid_t pid;

	ASSERT_EQ(0, lt_write("trace", "", O_TRUNC));
	ASSERT_EQ(0, ue_event_register(&ev));
	ASSERT_EQ(0, lt_enable("lib_test_fork", 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (!ue_enabled(&ev))
			_exit(2);
		ue_write_begin(&w, &ev);
		ue_add_s32(&w, getpid());
		_exit(ue_write_end(&w) == 4 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	snprintf(line, sizeof(line), "lib_test_fork: pid=%d", pid);
	EXPECT_TRUE(lt_in_trace(line));
	lt_cleanup(names, 1);
}

/*
 * A process of uid 65534 with access to the two files (and search access to
 * tracefs) registers, sees the status and writes; modes restored after
 */
TEST(nonroot)
{
	static const char * const names[] = { "lib_test_nonroot", "lib_test_nonroot_new" };
	struct stat st_status, st_data, st_dir;
	struct ue_event ev = UE_EVENT("lib_test_nonroot", "u32 uid; __rel_loc char[] who");
	struct ue_event fresh = UE_EVENT("lib_test_nonroot_new", "u8 x");
	struct ue_writer w;
	int status;
	pid_t pid;

	if (geteuid())
		SKIP(return, "must be run as root");
	ASSERT_EQ(0, stat(TRACEFS, &st_dir));
	ASSERT_EQ(0, stat(TRACEFS "/user_events_status", &st_status));
	ASSERT_EQ(0, stat(TRACEFS "/user_events_data", &st_data));
	ASSERT_EQ(0, lt_write("trace", "", O_TRUNC));
	ASSERT_EQ(0, lt_write("dynamic_events",
			      "u:lib_test_nonroot u32 uid; __rel_loc char[] who", O_APPEND));
	ASSERT_EQ(0, lt_enable("lib_test_nonroot", 1));
	ASSERT_EQ(0, chmod(TRACEFS "/user_events_status", 0666));
	ASSERT_EQ(0, chmod(TRACEFS "/user_events_data", 0666));
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
		_exit(ue_write_end(&w) > 0 ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	EXPECT_EQ(0, chmod(TRACEFS "/user_events_status", st_status.st_mode & 07777));
	EXPECT_EQ(0, chmod(TRACEFS "/user_events_data", st_data.st_mode & 07777));
	EXPECT_EQ(0, chmod(TRACEFS, st_dir.st_mode & 07777));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child failed at step %d",
						 WEXITSTATUS(status));
	EXPECT_TRUE(lt_in_trace("lib_test_nonroot: uid=65534 who=nobody"));
	EXPECT_EQ(0, access(TRACEFS "/events/user_events/lib_test_nonroot_new/enable",
			    F_OK));
	lt_cleanup(names, 2);
}

/* Without access, the library says what to do */
TEST(no_access_message)
{
	struct stat st;
	int status;
	pid_t pid;

	if (geteuid())
		SKIP(return, "must be run as root");
	ASSERT_EQ(0, stat(TRACEFS "/user_events_data", &st));
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

TEST_HARNESS_MAIN
