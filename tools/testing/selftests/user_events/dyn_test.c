// SPDX-License-Identifier: GPL-2.0
/*
 * dyn_test: the u: command of dynamic_events. Every field type is accepted
 * and shown back in canonical form; every malformed description is refused
 * with EINVAL and creates nothing; deletion matches fields; error_log puts
 * its caret under the offending word.
 */
#include "../kselftest_harness.h"
#include "ue_helpers.h"
#include "desc_cases.h"

/* Is "u:<name>" (alone or followed by a space or ':') in dynamic_events? */
static int dyn_has(const char *name)
{
	char *all = uet_read_file(UE_DYN), want[300], *p;
	int found = 0;

	snprintf(want, sizeof(want), "u:%s", name);
	for (p = all; p && (p = strstr(p, want)); p++) {
		char next = p[strlen(want)];

		if ((p == all || p[-1] == '\n') &&
		    (next == ' ' || next == '\n' || next == ':'))
			found = 1;
	}
	free(all);
	return found;
}

FIXTURE(dyn) {
	int unused;
};

FIXTURE_VARIANT(dyn) {
	struct ue_desc_case c;
};

/* A variant per case of desc_cases.h, named by its id */
static void __attribute__((constructor(KSELFTEST_PRIO_TEST))) dyn_add_cases(void)
{
	static struct __fixture_variant_metadata v[ARRAY_SIZE(ue_desc_cases)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ue_desc_cases); i++) {
		v[i].name = ue_desc_cases[i].id;
		v[i].data = &ue_desc_cases[i];
		__register_fixture_variant(&_dyn_fixture_object, &v[i]);
	}
}

FIXTURE_SETUP(dyn)
{
	if (uet_skip(_metadata, 0))
		return;

	uet_write_file(UE_DYN, "-:dyn_t", O_APPEND);
}

FIXTURE_TEARDOWN(dyn)
{
	uet_write_file(UE_DYN, "-:dyn_t", O_APPEND);
}

TEST_F(dyn, create)
{
	const struct ue_desc_case *c = &variant->c;
	char cmd[600], want[600], *all;

	snprintf(cmd, sizeof(cmd), "u:%s", c->desc);
	EXPECT_EQ(c->canonical ? 0 : -EINVAL, uet_write_file(UE_DYN, cmd, O_APPEND));
	all = uet_read_file(UE_DYN);
	ASSERT_NE(NULL, all);
	if (!c->canonical) {
		EXPECT_EQ(0, dyn_has("dyn_t")) TH_LOG("dynamic_events: %s", all);
	} else {
		snprintf(want, sizeof(want), "u:%s\n", c->canonical);
		EXPECT_NE(NULL, strstr(all, want)) TH_LOG("want '%s' in '%s'", want, all);
		EXPECT_EQ(0, access(TRACEFS "events/user_events/dyn_t/format", R_OK));
	}
	free(all);
}

/*
 * Event names and struct type names: 255 characters, not 256 (field names:
 * desc_cases.h)
 */
TEST(name_lengths)
{
	char cmd[600];
	int len;

	if (uet_skip(_metadata, 0))
		return;

	memset(cmd, 'n', sizeof(cmd));
	memcpy(cmd, "u:", 2);
	snprintf(cmd + 2 + 255, sizeof(cmd) - 257, " u32 a");
	EXPECT_EQ(0, uet_write_file(UE_DYN, cmd, O_APPEND));
	cmd[2 + 255] = '\0';
	EXPECT_EQ(1, dyn_has(cmd + 2));
	cmd[0] = '-';
	EXPECT_EQ(0, uet_write_file(UE_DYN, cmd, O_APPEND));
	memset(cmd, 'n', sizeof(cmd));
	memcpy(cmd, "u:", 2);
	snprintf(cmd + 2 + 256, sizeof(cmd) - 258, " u32 a");
	EXPECT_EQ(-EINVAL, uet_write_file(UE_DYN, cmd, O_APPEND));

	for (len = 255; len <= 256; len++) {
		snprintf(cmd, sizeof(cmd), "u:dyn_t struct %0*d a 4", len, 0);
		memset(cmd + strlen("u:dyn_t struct "), 't', len);
		EXPECT_EQ(len == 255 ? 0 : -EINVAL, uet_write_file(UE_DYN, cmd, O_APPEND))
			TH_LOG("a struct type name of %d characters", len);
		EXPECT_EQ(len == 255, dyn_has("dyn_t"));
		uet_write_file(UE_DYN, "-:dyn_t", O_APPEND);
	}
}

/* 511 description bytes are fine (512 with the NUL); 512 are not */
TEST(description_limit)
{
	char cmd[600];
	int len;

	if (uet_skip(_metadata, 0))
		return;

	for (len = 510; len <= 513; len++) {
		int pad = len - (int)strlen("dyn_t char[1] a");

		snprintf(cmd, sizeof(cmd), "u:dyn_t char[1]%*s a", pad, "");
		ASSERT_EQ(len, (int)strlen(cmd + 2));
		EXPECT_EQ(len < 512 ? 0 : -E2BIG, uet_write_file(UE_DYN, cmd, O_APPEND))
			TH_LOG("description of %d bytes", len);
		uet_write_file(UE_DYN, "-:dyn_t", O_APPEND);
	}
}

/*
 * "enable" and "filter" are files of events/user_events/: events of those
 * names would hide them (or be hidden), so they are refused.
 */
TEST(system_file_names)
{
	static const char * const names[] = { "enable", "filter" };
	char cmd[64];
	int i;

	if (uet_skip(_metadata, 0))
		return;

	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "u:%s u32 a", names[i]);
		EXPECT_EQ(-EINVAL, uet_write_file(UE_DYN, cmd, O_APPEND)) TH_LOG("%s", cmd);
		EXPECT_EQ(0, dyn_has(names[i]));
	}
	snprintf(cmd, sizeof(cmd), TRACEFS "events/user_events/enable");
	EXPECT_EQ(0, uet_write_file(UE_DYN, "u:dyn_t u32 a", O_APPEND));
	EXPECT_EQ(0, access(cmd, W_OK)) TH_LOG("system enable file");
	uet_write_file(UE_DYN, "-:dyn_t", O_APPEND);
}

/*
 * Found by fuzz_test: the canonical form adds "; " between fields, so a
 * compact 500-byte description could show as more than 511 bytes and
 * neither register again nor match a "!u:" delete. The limit applies to the
 * canonical form too: what dynamic_events shows always registers again.
 */
TEST(canonical_limit)
{
	char cmd[700], line[700], *all, *p, *nl;
	int n, len;

	if (uet_skip(_metadata, 0))
		return;

	/* raw 6n + 5 bytes, canonical 7n + 4: 72 fields fit, 73 to 84 do not */
	for (n = 60; n <= 90; n++) {
		int i, o = snprintf(cmd, sizeof(cmd), "u:dyn_c ");

		for (i = 0; i < n; i++)
			o += snprintf(cmd + o, sizeof(cmd) - o, "%su8 %c%c", i ? ";" : "",
				      'a' + i / 26, 'a' + i % 26);
		len = o - 2 + n - 1;	/* the canonical form: one more byte a ';' */
		if (o - 2 > 511)
			break;
		EXPECT_EQ(len > 511 ? -E2BIG : 0, uet_write_file(UE_DYN, cmd, O_APPEND))
			TH_LOG("%d fields, %d raw, %d canonical bytes", n, o - 2, len);
		if (len > 511) {
			EXPECT_EQ(0, dyn_has("dyn_c"));
			continue;
		}
		all = uet_read_file(UE_DYN);
		ASSERT_NE(NULL, all);
		p = strstr(all, "u:dyn_c ");
		ASSERT_NE(NULL, p);
		nl = strchr(p, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		free(all);
		EXPECT_EQ(len, (int)strlen(line) - 2);
		/* the shown line registers again, and deletes with its fields */
		EXPECT_EQ(0, uet_write_file(UE_DYN, line, O_APPEND));
		memmove(line + 1, line, strlen(line) + 1);
		line[0] = '!';
		EXPECT_EQ(0, uet_write_file(UE_DYN, line, O_APPEND)) TH_LOG("%s", line);
		EXPECT_EQ(0, dyn_has("dyn_c"));
	}
	EXPECT_EQ(85, n);
	uet_write_file(UE_DYN, "-:dyn_c", O_APPEND);
}

/*
 * !u:name[:flags] fields deletes only when the flags and fields given match;
 * -:name and -:system/name
 */
TEST(delete_matching)
{
	if (uet_skip(_metadata, 0))
		return;

	/* made (unless NULL: still there), then a delete that matches or not */
	static const struct { const char *make, *del; int match; } steps[] = {
		{ "u:dyn_d u32 a; char[4] b", "!u:dyn_d u32 a", 0 },
		{ NULL, "!u:dyn_d u32  a;char[4] b;", 1 },
		{ "u:dyn_d:BPF_ITER u32 a", "!u:dyn_d:OTHER u32 a", 0 },
		{ NULL, "!u:dyn_d:BPF_ITER,OTHER u32 a", 0 },
		{ NULL, "!u:dyn_d:BPF_ITER u32 a", 1 },
		{ "u:dyn_d:BPF_ITER u32 a", "!u:dyn_d u32 a", 1 },
		{ "u:dyn_d u32 a", "!u:dyn_d:BPF_ITER u32 a", 0 },
		{ NULL, "!u:dyn_d", 1 },
		{ "u:dyn_d u32 a", "!u:dyn_d", 1 },
		{ "u:dyn_d u32 a", "-:kprobes/dyn_d", 0 },
		{ NULL, "-:user_events/dyn_d", 1 },
		{ "u:dyn_d u32 a", "-:dyn_d", 1 },
	};
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(steps); i++) {
		if (steps[i].make)
			ASSERT_EQ(0, uet_write_file(UE_DYN, steps[i].make, O_APPEND));
		EXPECT_EQ(!steps[i].match, !!uet_write_file(UE_DYN, steps[i].del, O_APPEND))
			TH_LOG("%s", steps[i].del);
		EXPECT_EQ(!steps[i].match, dyn_has("dyn_d")) TH_LOG("after %s", steps[i].del);
	}
	EXPECT_NE(0, access(TRACEFS "events/user_events/dyn_d", F_OK));
}

/* Same fields again: fine; other fields: EADDRINUSE */
TEST(recreate)
{
	if (uet_skip(_metadata, 0))
		return;

	EXPECT_EQ(0, uet_write_file(UE_DYN, "u:dyn_r u32 a", O_APPEND));
	EXPECT_EQ(0, uet_write_file(UE_DYN, "u:dyn_r u32 a;", O_APPEND));
	EXPECT_EQ(-EADDRINUSE, uet_write_file(UE_DYN, "u:dyn_r u64 a", O_APPEND));
	EXPECT_EQ(0, uet_write_file(UE_DYN, "-:dyn_r", O_APPEND));
}

/*
 * The caret of the last error_log entry sits under @word of @cmd, a line of
 * dynamic_events ("u:...") or, when @ioctl, a description for DIAG_IOCSREG;
 * its message contains @msg unless NULL. 0, or what was wrong.
 */
static int caret_msg(const char *cmd, const char *word, bool ioctl, const char *msg)
{
	int want = (int)(strstr(cmd, word) - cmd), col, ret, fd;
	struct user_status_reg reg;
	char *log, *c, *line;

	uet_write_file(TRACEFS "error_log", "", O_TRUNC);
	if (ioctl) {
		fd = open(UE_DATA, O_RDWR);
		ret = fd < 0 ? -errno : uet_register(fd, cmd, &reg);
		if (fd >= 0)
			close(fd);
	} else {
		ret = uet_write_file(UE_DYN, cmd, O_APPEND);
	}
	if (ret != -EINVAL)
		return -1;
	log = uet_read_file(TRACEFS "error_log");
	c = log ? strstr(log, "  Command: ") : NULL;
	if (!c || (msg && !strstr(log, msg))) {
		free(log);
		return -2;
	}
	line = strchr(c, '\n') + 1;
	col = (int)(strchr(line, '^') - line) - (int)strlen("  Command: ");
	free(log);
	return col == want ? 0 : col;
}

static int caret_under(const char *cmd, const char *word)
{
	return caret_msg(cmd, word, false, NULL);
}

/* The message of a long field, as error_log shows it */
#define LONG_ERR "user_events: error: long differs between ABIs; use s32/s64/u32/u64"

/*
 * error_log has each error of a description with a caret under the
 * offending word, from dynamic_events and from the ioctl alike
 */
TEST(error_log_caret)
{
	if (uet_skip(_metadata, 0))
		return;

	EXPECT_EQ(0, caret_msg("u:dyn_e u32 a; long b", "long", false, LONG_ERR));
	EXPECT_EQ(0, caret_under("u:dyn_e u32 a; u128 b", "u128"));
	EXPECT_EQ(0, caret_under("u:9dyn_e u32 a", "9dyn_e"));
	EXPECT_EQ(0, caret_under("u:dyn_e u32 a 4", "4"));
	EXPECT_EQ(0, caret_under("u:dyn_e char[2000] s", "char[2000]"));
	EXPECT_EQ(0, caret_msg("dyn_e u32 a; long b", "long", true, LONG_ERR));
	EXPECT_EQ(0, caret_msg("dyn_e u32 a; u32 b 4", "4", true, NULL));
	EXPECT_EQ(0, uet_write_file(TRACEFS "error_log", "", O_TRUNC));
}

/*
 * "u:SYSTEM/name": the event's system, user_events here (a tenant group's,
 * user_events_GROUP, in groups_test), makes the event that "u:name" makes,
 * and dynamic_events shows it as "u:name". Any other system is refused
 * with EINVAL and the caret under it, a multi-format system too (such
 * events are made by DIAG_IOCSREG); a group that does not exist: ENOENT.
 */
TEST(system_forms)
{
	static const char * const bad[] = {
		"u:user_events_multi/dyn_s u32 a", "u:kprobes/dyn_s u32 a",
		"u:user_event/dyn_s u32 a", "u:user_eventsx/dyn_s u32 a",
		"u:user_events_/dyn_s u32 a", "u:/dyn_s u32 a",
		"u:user_events_a_multi/dyn_s u32 a",
	};
	char *log;
	int i;

	if (uet_skip(_metadata, 0))
		return;

	EXPECT_EQ(0, uet_write_file(UE_DYN, "u:user_events/dyn_s u32 a", O_APPEND));
	log = uet_read_file(UE_DYN);
	EXPECT_TRUE(log && strstr(log, "u:dyn_s u32 a\n")) TH_LOG("%s", log);
	EXPECT_FALSE(log && strstr(log, "u:user_events/dyn_s")) TH_LOG("%s", log);
	free(log);
	/* the same event, however it is named */
	EXPECT_EQ(0, uet_write_file(UE_DYN, "u:dyn_s u32 a", O_APPEND));
	EXPECT_EQ(-EADDRINUSE, uet_write_file(UE_DYN, "u:user_events/dyn_s u64 a", O_APPEND));
	EXPECT_EQ(0, uet_write_file(UE_DYN, "-:user_events/dyn_s", O_APPEND));
	EXPECT_EQ(0, dyn_has("dyn_s"));
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		uet_write_file(TRACEFS "error_log", "", O_TRUNC);
		EXPECT_EQ(-EINVAL, uet_write_file(UE_DYN, bad[i], O_APPEND)) TH_LOG("%s", bad[i]);
		EXPECT_EQ(0, dyn_has("dyn_s"));
		log = uet_read_file(TRACEFS "error_log");
		EXPECT_TRUE(log && strstr(log, "System not user_events nor user_events_<group>"))
			TH_LOG("%s: %s", bad[i], log);
		free(log);
	}
	EXPECT_EQ(0, caret_under("u:kprobes/dyn_s u32 a", "kprobes"));
	EXPECT_EQ(-ENOENT, uet_write_file(UE_DYN, "u:user_events_nosuchgrp/dyn_s u32 a",
					  O_APPEND));
	EXPECT_EQ(0, uet_write_file(TRACEFS "error_log", "", O_TRUNC));
}

/*
 * The enable file of events/user_events/ enables the events that exist when
 * it is written; an event created after it stays disabled
 */
TEST(created_after_system_enable)
{
	char *on;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_EQ(0, uet_write_file(UE_DYN, "u:dyn_t u32 a", O_APPEND));
	ASSERT_EQ(0, uet_write_file(TRACEFS "events/user_events/enable", "1", O_TRUNC));
	on = uet_read_file(TRACEFS "events/user_events/dyn_t/enable");
	EXPECT_STREQ("1\n", on ?: "");
	free(on);
	EXPECT_EQ(0, uet_write_file(UE_DYN, "u:dyn_a u32 a", O_APPEND));
	on = uet_read_file(TRACEFS "events/user_events/dyn_a/enable");
	EXPECT_STREQ("0\n", on ?: "");
	free(on);
	EXPECT_EQ(0, uet_write_file(TRACEFS "events/user_events/enable", "0", O_TRUNC));
	EXPECT_EQ(0, uet_write_file(UE_DYN, "-:dyn_a", O_APPEND));
	EXPECT_EQ(0, uet_write_file(UE_DYN, "-:dyn_t", O_APPEND));
}

/*
 * An eprobe on a user event holds it as an fd does: deleting the event,
 * through DIAG_IOCSDEL or dynamic_events, is EBUSY while the eprobe is
 * there, and the event stays, registrable as before; once the eprobe goes,
 * the event can be deleted. (A kernel that deleted it under the eprobe
 * freed what the eprobe's removal then touched.)
 */
TEST(eprobe_holds_event)
{
	struct user_status_reg reg;
	int fd;

	if (uet_skip(_metadata, 0))
		return;
	uet_write_file(UE_DYN, "-:eprobes/dyn_ep_probe", O_APPEND);
	uet_write_file(UE_DYN, "-:dyn_ep", O_APPEND);
	ASSERT_EQ(0, uet_write_file(UE_DYN, "u:dyn_ep u32 a", O_APPEND));
	if (uet_write_file(UE_DYN, "e:eprobes/dyn_ep_probe user_events.dyn_ep",
			   O_APPEND)) {
		uet_write_file(UE_DYN, "-:dyn_ep", O_APPEND);
		SKIP(return, "no eprobes (CONFIG_EPROBE_EVENTS)");
	}
	EXPECT_EQ(-EBUSY, uet_delete_named("dyn_ep"));
	EXPECT_EQ(-EBUSY, uet_write_file(UE_DYN, "!u:dyn_ep", O_APPEND));
	EXPECT_EQ(-EBUSY, uet_write_file(UE_DYN, "-:user_events/dyn_ep", O_APPEND));
	EXPECT_TRUE(dyn_has("dyn_ep"));
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, uet_register(fd, "dyn_ep u32 a", &reg));
	close(fd);
	EXPECT_EQ(0, uet_write_file(UE_DYN, "-:eprobes/dyn_ep_probe", O_APPEND));
	EXPECT_EQ(0, uet_delete_named("dyn_ep"));
	EXPECT_FALSE(dyn_has("dyn_ep"));
}

UE_HARNESS_MAIN
