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
#include <pthread.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"

/*
 * Failure: a write index taken as a signed offset read out of bounds, or
 * one past the fd's array was accepted.
 */
TEST(write_index_extremes)
{
	static const int bad[] = { INT_MIN, -1, 1, 2, 1 << 16, INT_MAX };
	struct user_reg reg;
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
	struct user_reg reg;
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
	struct user_reg reg;
	int fds[3], o, i, ctl = open(UE_DATA, O_RDWR);

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, ctl);
	for (o = 0; o < 6; o++) {
		for (i = 0; i < 3; i++) {
			fds[i] = open(UE_DATA, O_RDWR);
			ASSERT_LE(0, fds[i]);
			/* twice on the same fd: still one reference */
			ASSERT_EQ(0, uet_register(fds[i], "rg_refs u64 a", &reg));
			ASSERT_EQ(0, uet_register(fds[i], "rg_refs u64 a", &reg));
		}
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
	struct user_reg reg;
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
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(fd, "rg_taken"));
	close(fd);
}

/* Failure: an event without fields could not be written (empty payload) */
TEST(zero_field_event)
{
	struct user_reg reg;
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
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(fd, "rg_empty"));
	close(fd);
}

/*
 * Failure: a payload at perf's size limit made perf WARN, or one over the
 * limit was silently dropped. The largest payload goes to perf; one byte
 * more is E2BIG (the VM run fails on any WARNING in the kernel log).
 */
TEST(max_payload_with_perf)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pe),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
	};
	int fd = open(UE_DATA, O_RDWR), max = UE_PERF_MAX_PAYLOAD, perf;
	struct perf_event_mmap_page *meta;
	struct user_reg reg;
	char *buf;

	if (uet_skip(_metadata, UE_NEED_PERF))
		return;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "rg_big u8 a", &reg));
	pe.config = uet_tracepoint_id("rg_big");
	perf = syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
	ASSERT_LE(0, perf);
	meta = mmap(NULL, 9 * getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, perf, 0);
	ASSERT_NE(MAP_FAILED, meta);
	buf = calloc(1, 4 + max + 1);
	ASSERT_NE(NULL, buf);
	memcpy(buf, &reg.write_index, 4);
	EXPECT_EQ(4 + max, write(fd, buf, 4 + max));
	EXPECT_EQ(-1, write(fd, buf, 4 + max + 1));
	EXPECT_EQ(E2BIG, errno);
	/* one sample: the header, the raw size and the record */
	EXPECT_LE((unsigned long long)(8 + 4 + 8 + max), meta->data_head);
	EXPECT_GT((unsigned long long)(2 * (8 + 4 + 8 + max)), meta->data_head);
	free(buf);
	munmap(meta, 9 * getpagesize());
	close(perf);
	close(fd);
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(fd, "rg_big"));
	close(fd);
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
	struct user_reg reg;
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
 * Failure: trace event type ids leaked with each deleted event (new events
 * failed after 65,535), or a recycled id made old records decode with a new
 * event's format. One name, 65,536 incarnations with alternating formats;
 * some traced, so that records of old incarnations were in the buffer.
 */
FIXTURE(long_run) {};

FIXTURE_SETUP(long_run)
{
	if (uet_skip(_metadata, 0))
		return;
}

FIXTURE_TEARDOWN(long_run) {}

TEST_F_TIMEOUT(long_run, recreate_65536_times, 900)
{
	struct user_reg reg;
	struct { __u32 idx; char v[8]; } rec;
	char line[64], *trace;
	int fd, i;

	ASSERT_EQ(0, uet_clear_trace());
	for (i = 0; i < 65536; i++) {
		int odd = i & 1, trace_it = !(i % 4096) || i == 65535;

		fd = open(UE_DATA, O_RDWR);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, uet_register(fd, odd ? "rg_cycle char[8] s" : "rg_cycle u64 n",
					  &reg)) TH_LOG("incarnation %d", i);
		if (trace_it) {
			ASSERT_EQ(0, uet_enable("", "rg_cycle", 1));
			rec.idx = reg.write_index;
			memset(rec.v, 0, sizeof(rec.v));
			if (odd)
				snprintf(rec.v, sizeof(rec.v), "s%d", i);
			else
				memcpy(rec.v, &(unsigned long long){ i }, 8);
			ASSERT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
			ASSERT_EQ(0, uet_enable("", "rg_cycle", 0));
			/* in the buffer now, decoded with this incarnation's format */
			if (odd)
				snprintf(line, sizeof(line), "rg_cycle: s=s%d\n", i);
			else
				snprintf(line, sizeof(line), "rg_cycle: n=%d\n", i);
			trace = uet_read_file(TRACEFS "trace");
			ASSERT_NE(NULL, trace);
			ASSERT_NE(NULL, strstr(trace, line)) TH_LOG("%d: %s", i, trace);
			free(trace);
		}
		close(fd);
		if (i == 65535)
			break;
		fd = open(UE_DATA, O_RDWR);
		ASSERT_EQ(0, uet_delete(fd, "rg_cycle")) TH_LOG("incarnation %d", i);
		close(fd);
	}
	/* only the last incarnation's record is left, decoded with its format */
	trace = uet_read_file(TRACEFS "trace");
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(1, uet_trace_count("rg_cycle:")) TH_LOG("%s", trace);
	snprintf(line, sizeof(line), "rg_cycle: s=s65535\n");
	EXPECT_NE(NULL, strstr(trace, line)) TH_LOG("%s", trace);
	free(trace);
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(fd, "rg_cycle"));
	close(fd);
}

TEST_HARNESS_MAIN
