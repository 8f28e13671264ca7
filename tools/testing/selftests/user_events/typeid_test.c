// SPDX-License-Identifier: GPL-2.0
/*
 * typeid_test: the trace event type ids run out while retired events hold
 * some. Type ids (the u16 type of every record) are one pool of 65,535,
 * less the kernel's own events, shared by every dynamic event; a retired
 * event (deleted while a buffer holds its records) keeps its id until no
 * buffer holds them. A registration that finds no id left first removes
 * the retired events whose buffers are clean, of every group, as one at
 * kernel.user_events_max does, and fails with ENOSPC only if that frees
 * none.
 *
 * The pool is emptied by some 65,000 events of filler groups (kernel.
 * user_events_max raised past the pool, as an administrator may), which
 * takes minutes in an emulated machine, and any other program making an
 * event meanwhile would fail: the kselftest runner does not run this one
 * (the Makefile builds it only). Removing the events takes as long again;
 * run with USER_EVENTS_LAST_IN_VM=1 in its environment (as the last
 * program in a virtual machine about to end), it leaves them.
 */
#define _GNU_SOURCE
#include "../kselftest_harness.h"
#include "ue_helpers.h"

#define MAX_PATH	"/proc/sys/kernel/user_events_max"
#define FILLERS		17	/* groups of 4095 status bytes: more than the pool */
#define PER_GROUP	4095

static int tid_group_cmd(const char *cmd)
{
	return uet_write_file(TRACEFS "user_events_groups", cmd, O_APPEND);
}

static int tid_group_fd(int g)
{
	char path[128];

	snprintf(path, sizeof(path), TRACEFS "user_groups/tid%d/user_events_data", g);
	return open(path, O_RDWR);
}

FIXTURE(typeid) {
	char *max;		/* kernel.user_events_max before */
	int filled;		/* filler events registered */
	int fds[FILLERS];	/* each filler group's data fd, or -1 */
};

FIXTURE_SETUP(typeid)
{
	char cmd[64];
	int g;

	for (g = 0; g < FILLERS; g++)
		self->fds[g] = -1;
	self->max = NULL;
	if (uet_skip(_metadata, 0))
		return;
	self->max = uet_read_file(MAX_PATH);
	ASSERT_NE(NULL, self->max);
	ASSERT_EQ(0, uet_write_file(MAX_PATH, "200000", O_TRUNC));
	for (g = 0; g < FILLERS; g++) {
		snprintf(cmd, sizeof(cmd), "tid%d max=%d", g, PER_GROUP);
		ASSERT_EQ(0, tid_group_cmd(cmd));
		self->fds[g] = tid_group_fd(g);
		ASSERT_LE(0, self->fds[g]);
	}
}

FIXTURE_TEARDOWN(typeid)
{
	const char *last = getenv("USER_EVENTS_LAST_IN_VM");
	char name[32], cmd[64];
	int g, k;

	if (!self->max)
		return;
	/* the VM ends next: minutes of deletions for nobody */
	if (last && !strcmp(last, "1")) {
		TH_LOG("last in its VM: %d filler events left", self->filled);
		return;
	}
	/* the fd that registered an event holds it: delete through new ones */
	for (g = 0; g < FILLERS; g++) {
		if (self->fds[g] >= 0)
			close(self->fds[g]);
		self->fds[g] = tid_group_fd(g);
	}
	for (k = self->filled - 1; k >= 0; k--) {
		snprintf(name, sizeof(name), "f%d", k % PER_GROUP);
		EXPECT_EQ(0, uet_delete(self->fds[k / PER_GROUP], name));
	}
	for (g = 0; g < FILLERS; g++) {
		close(self->fds[g]);
		snprintf(cmd, sizeof(cmd), "!tid%d", g);
		EXPECT_EQ(0, tid_group_cmd(cmd));
	}
	EXPECT_EQ(0, uet_write_file(MAX_PATH, self->max, O_TRUNC));
	free(self->max);
}

/* Register filler events until the pool is empty: the error that stopped it */
static int fill(struct _test_data_typeid *self)
{
	struct user_status_reg reg;
	char name[32];
	int ret = 0;

	while (!ret && self->filled < FILLERS * PER_GROUP) {
		snprintf(name, sizeof(name), "f%d", self->filled % PER_GROUP);
		ret = uet_register(self->fds[self->filled / PER_GROUP], name, &reg);
		if (!ret)
			self->filled++;
	}
	return ret;
}

/*
 * With no id left: a retired event whose records a buffer holds keeps its
 * id (ENOSPC); once the buffer is cleared, the next registration takes it
 * at once (not after the grace), and the one after is ENOSPC again.
 */
/* the bound of the directory's settings file */
TEST_F_TIMEOUT(typeid, retired_ids_reclaimed, 2700)
{
	struct user_status_reg reg, rt;
	struct { __u32 idx, v; } rec;
	char dir[256];
	int fd, id;

	ASSERT_EQ(0, uet_clear_trace());
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	/* the event to retire, with a record in the buffer */
	ASSERT_EQ(0, uet_register(fd, "tid_rt u32 v", &rt));
	ASSERT_EQ(0, uet_enable("", "tid_rt", 1));
	rec.idx = rt.write_index;
	rec.v = 5;
	ASSERT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
	ASSERT_EQ(0, uet_enable("", "tid_rt", 0));
	id = uet_event_id("user_events", "tid_rt");
	ASSERT_LT(0, id);
	close(fd);

	EXPECT_EQ(-ENOSPC, fill(self)) TH_LOG("%d filler events", self->filled);
	TH_LOG("%d filler events took every free type id", self->filled);
	/* the kernel's own events take fewer than 10,000 of the 65,535 */
	EXPECT_LT(55000, self->filled);

	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_delete(fd, "tid_rt"));
	uet_retired_dir("", "user_events", "tid_rt", id, dir, sizeof(dir));
	EXPECT_EQ(0, access(dir, F_OK)) TH_LOG("%s", dir);
	EXPECT_EQ(1, uet_trace_count("tid_rt: v=5"));

	/* its record is in the buffer: it keeps its id */
	EXPECT_EQ(-ENOSPC, uet_register(fd, "tid_new u32 v", &reg));
	EXPECT_EQ(0, access(dir, F_OK));

	/* cleared: the registration takes it, at once */
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(0, uet_register(fd, "tid_new u32 v", &reg));
	EXPECT_NE(0, access(dir, F_OK));
	EXPECT_EQ(-ENOSPC, uet_register(fd, "tid_more u32 v", &reg));

	/* and records */
	ASSERT_EQ(0, uet_enable("", "tid_new", 1));
	rec.idx = reg.write_index;
	rec.v = 6;
	EXPECT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
	ASSERT_EQ(0, uet_enable("", "tid_new", 0));
	EXPECT_EQ(1, uet_trace_count("tid_new: v=6"));
	close(fd);
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_delete(fd, "tid_new"));
	close(fd);
	uet_clear_trace();
}

UE_HARNESS_MAIN
