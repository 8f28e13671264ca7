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

TEST_HARNESS_MAIN
