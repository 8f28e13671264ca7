// SPDX-License-Identifier: GPL-2.0
/*
 * soak_test: the long runs, out of `make check` (which keeps to minutes):
 * `make soak` builds this and runs it in the test kernel.
 */
#include "../kselftest_harness.h"
#include "ue_helpers.h"

/*
 * Failure: trace event type ids leaked with each deleted event (new events
 * failed after 65,535), or a recycled id made old records decode with a new
 * event's format. One name, 65,536 incarnations with alternating formats;
 * some traced, so that records of old incarnations are in the buffer: each
 * of those is retired by its deletion and keeps its type, its records
 * decoded with its own format to the end.
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
	struct user_status_reg reg;
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
	/* every traced incarnation's record, decoded with its own format */
	trace = uet_read_file(TRACEFS "trace");
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(65536 / 4096 + 1, uet_trace_count("rg_cycle:")) TH_LOG("%s", trace);
	for (i = 0; i < 65536; i += 4096) {
		snprintf(line, sizeof(line), "rg_cycle: n=%d\n", i);
		EXPECT_NE(NULL, strstr(trace, line)) TH_LOG("no '%s'", line);
	}
	snprintf(line, sizeof(line), "rg_cycle: s=s65535\n");
	EXPECT_NE(NULL, strstr(trace, line)) TH_LOG("%s", trace);
	free(trace);
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(fd, "rg_cycle"));
	close(fd);
	/* cleared, the retired incarnations go and the name registers again */
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(0, uet_reclaim_retired());
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_register(fd, "rg_cycle u64 n", &reg));
	close(fd);
	EXPECT_EQ(0, uet_write_file(UE_DYN, "-:rg_cycle", O_APPEND));
}

/*
 * Trace event type ids (the u16 type of every record) are one pool of
 * 65,535 less the kernel's own events, shared by every dynamic event:
 * kprobes, uprobes, synthetic events, eprobes and user events of every
 * group. A group's limit is set aside from kernel.user_events_max, not
 * from that pool. Shown here: with the pool empty, a tenant below its limit
 * gets ENOSPC through both ABIs and dynamic_events, with nothing made and
 * the reason in error_log; a synthetic event cannot be made either (the
 * pool is shared); events that exist still register and record. A deleted
 * event whose record the buffer holds is retired and keeps its id: ENOSPC
 * still, until the buffer is cleared and the registration removes it.
 * Once one id is free again, the tenant's group registers and records.
 * The pool is emptied by user events of filler groups, the cheapest
 * events to make and delete (no search by name), with
 * kernel.user_events_max raised past the pool as an administrator may.
 * Minutes under TCG: out of make check.
 */
#define TID_FILLERS	17	/* 17 x 4095 status bytes: more than the pool */
#define TID_PER_GROUP	4095

static int tid_cmd(const char *file, const char *cmd)
{
	return uet_write_file(file, cmd, O_APPEND);
}

static int tid_has(const char *path, const char *needle)
{
	char *text = uet_read_file(path);
	int has = text && strstr(text, needle);

	free(text);
	return has;
}

static int tid_open(int g)
{
	char path[128];

	if (g < 0)
		snprintf(path, sizeof(path), TRACEFS "user_groups/tid/user_events_data");
	else
		snprintf(path, sizeof(path), TRACEFS "user_groups/tf%d/user_events_data", g);
	return open(path, O_RDWR);
}

/*
 * Delete filler events @n-1 down to @first (the newest first: each found
 * at once)
 */
static int tid_unfill(int n, int first)
{
	char name[32];
	int k, fd = -1, g = -1, bad = 0;

	for (k = n - 1; k >= first; k--) {
		if (k / TID_PER_GROUP != g) {
			if (fd >= 0)
				close(fd);
			g = k / TID_PER_GROUP;
			fd = tid_open(g);
		}
		snprintf(name, sizeof(name), "f%d", k % TID_PER_GROUP);
		bad += uet_delete(fd, name) != 0;
	}
	if (fd >= 0)
		close(fd);
	return bad;
}

TEST_F_TIMEOUT(long_run, type_ids_exhausted, 1800)
{
	char *max_before = uet_read_file("/proc/sys/kernel/user_events_max");
	char cmd[128], name[32];
	struct user_status_reg r, r2;
	int g, k, fd, ret = 0, n = 0, f;
	__u32 word = 0;
	struct { __u32 idx; __u32 v; } rec;

	ASSERT_NE(NULL, max_before);
	ASSERT_EQ(0, uet_write_file("/proc/sys/kernel/user_events_max", "200000", O_TRUNC));
	ASSERT_EQ(0, uet_write_file(TRACEFS "error_log", "", O_TRUNC));
	ASSERT_EQ(0, tid_cmd(TRACEFS "user_events_groups", "tid max=16"));
	for (g = 0; g < TID_FILLERS; g++) {
		snprintf(cmd, sizeof(cmd), "tf%d max=%d", g, TID_PER_GROUP);
		ASSERT_EQ(0, tid_cmd(TRACEFS "user_events_groups", cmd));
	}

	/* fill: each registration takes one id, until there is none */
	for (g = 0; g < TID_FILLERS && !ret; g++) {
		fd = tid_open(g);
		ASSERT_LE(0, fd);
		for (k = 0; k < TID_PER_GROUP; k++) {
			snprintf(name, sizeof(name), "f%d", k);
			ret = uet_register(fd, name, &r);
			if (ret)
				break;
			n++;
		}
		close(fd);
	}
	TH_LOG("%d user events took every free type id", n);
	EXPECT_EQ(-ENOSPC, ret) TH_LOG("the filler stopped at %d with %d", n, ret);
	/* the kernel's own events take fewer than 10,000 of the 65,535 */
	EXPECT_LT(55000, n);

	/* the tenant, 0 of its 16: ENOSPC in every way, nothing made */
	fd = tid_open(-1);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOSPC, uet_register(fd, "tx u32 v", &r));
	EXPECT_EQ(-ENOSPC, uet_register_bits(fd, "tx u32 v", &word, 4, 0, 0, NULL));
	EXPECT_EQ(-ENOSPC, tid_cmd(UE_DYN, "u:user_events_tid/tx u32 v"));
	EXPECT_FALSE(uet_event_exists("user_events_tid", "tx"));
	EXPECT_EQ(1, tid_has(TRACEFS "user_events_groups", "tid max=16 events=0\n"));
	EXPECT_EQ(0, tid_has(TRACEFS "user_groups/tid/user_events_status", "tx"));
	EXPECT_EQ(0, tid_has(UE_DYN, "/tx "));
	EXPECT_EQ(1, tid_has(TRACEFS "error_log", "No trace event type id left"));
	/* the pool is every dynamic event's: a synthetic event fails too */
	EXPECT_NE(0, tid_cmd(UE_DYN, "s:tid_synth u64 v"));
	EXPECT_FALSE(uet_event_exists("synthetic", "tid_synth"));

	/* an event that exists registers again and records: tf0's f0 */
	ASSERT_EQ(0, uet_clear_trace());
	f = tid_open(0);
	ASSERT_LE(0, f);
	EXPECT_EQ(0, uet_register(f, "f0", &r2));
	ASSERT_EQ(0, uet_enable_in("user_events_tf0", "f0", 1));
	EXPECT_EQ(4, write(f, &r2.write_index, 4));
	ASSERT_EQ(0, uet_enable_in("user_events_tf0", "f0", 0));
	EXPECT_EQ(1, uet_trace_count(": f0:"));
	close(f);
	/* deleted, its record in the buffer: retired, its id still taken */
	f = tid_open(0);
	ASSERT_LE(0, f);
	EXPECT_EQ(0, uet_delete(f, "f0"));
	close(f);
	EXPECT_EQ(-ENOSPC, uet_register(fd, "tw u32 v", &r2));
	EXPECT_FALSE(uet_event_exists("user_events_tid", "tw"));
	/* the buffer cleared: the registration removes it and takes its id */
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(0, uet_register(fd, "tw u32 v", &r2));
	EXPECT_EQ(-ENOSPC, uet_register(fd, "ty u32 v", &r2));

	/* one id free again: the tenant's group registers and records */
	snprintf(name, sizeof(name), "f%d", (n - 1) % TID_PER_GROUP);
	g = tid_open((n - 1) / TID_PER_GROUP);
	ASSERT_LE(0, g);
	EXPECT_EQ(0, uet_delete(g, name));
	close(g);
	n--;
	EXPECT_EQ(0, uet_register(fd, "tx u32 v", &r));
	/* that was the only one */
	EXPECT_EQ(-ENOSPC, uet_register(fd, "ty u32 v", &r2));
	EXPECT_EQ(0, uet_register_bits(fd, "tx u32 v", &word, 4, 0, 0, NULL));
	EXPECT_EQ(1, tid_has(TRACEFS "user_events_groups", "tid max=16 events=2\n"));
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, uet_enable_in("user_events_tid", "tx", 1));
	EXPECT_EQ(1u, word);
	rec.idx = r.write_index;
	rec.v = 7;
	EXPECT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
	ASSERT_EQ(0, uet_enable_in("user_events_tid", "tx", 0));
	EXPECT_EQ(1, uet_trace_count("tx: v=7"));
	EXPECT_EQ(0, uet_unregister_bits(fd, &word, 0));
	close(fd);
	EXPECT_EQ(0, tid_cmd(UE_DYN, "-:user_events_tid/tx"));
	EXPECT_EQ(0, tid_cmd(UE_DYN, "-:user_events_tid/tw"));
	/* f0 of tf0 went above */
	EXPECT_EQ(0, tid_unfill(n, 1));

	EXPECT_EQ(0, tid_cmd(TRACEFS "user_events_groups", "!tid"));
	for (g = 0; g < TID_FILLERS; g++) {
		snprintf(cmd, sizeof(cmd), "!tf%d", g);
		EXPECT_EQ(0, tid_cmd(TRACEFS "user_events_groups", cmd));
	}
	EXPECT_EQ(0, uet_write_file("/proc/sys/kernel/user_events_max", max_before, O_TRUNC));
	free(max_before);
}

UE_HARNESS_MAIN
