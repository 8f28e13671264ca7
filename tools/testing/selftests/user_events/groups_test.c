// SPDX-License-Identifier: GPL-2.0
/*
 * Tenant groups: made and removed through user_events_groups, each with its
 * own user_events_data and user_events_status under user_groups/NAME/ and
 * events of its own system (user_events_NAME). What a group's files reach
 * is that group's events only: every spoof, squat, delete, listing and
 * limit below is tried from inside a group and must leave the rest as it
 * was.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"

#define UE_GROUPS TRACEFS "user_events_groups"
#define UE_GROUP_DIR TRACEFS "user_groups/"

/* One command to user_events_groups, in one write(); 0 or -errno */
static int grp_cmd(const char *cmd)
{
	return uet_write_file(UE_GROUPS, cmd, O_APPEND);
}

/* user_groups/@g/@file */
static const char *grp_path(const char *g, const char *file)
{
	static char path[4][256];
	static int n;
	char *p = path[n++ % 4];

	snprintf(p, sizeof(path[0]), UE_GROUP_DIR "%s/%s", g, file);
	return p;
}

static int grp_open(const char *g)
{
	return open(grp_path(g, "user_events_data"), O_RDWR);
}

/* Whether the text of @path contains @needle (-1: unreadable) */
static int file_has(const char *path, const char *needle)
{
	char *text = uet_read_file(path);
	int has;

	if (!text)
		return -1;
	has = !!strstr(text, needle);
	free(text);
	return has;
}

/* Write a u32 payload through write index @widx; 0 or -errno */
static int write_u32(int fd, int widx, __u32 v)
{
	struct iovec io[2] = {
		{ &widx, sizeof(widx) },
		{ &v, sizeof(v) },
	};

	return writev(fd, io, 2) < 0 ? -errno : 0;
}

/*
 * With @system/@name enabled, @v1 written through (@fd1, @w1), then @v2
 * through (@fd2, @w2); 0 or -errno
 */
static int write_two(const char *system, const char *name, int fd1, int w1,
		     __u32 v1, int fd2, int w2, __u32 v2)
{
	int ret = uet_enable_in(system, name, 1);

	if (!ret)
		ret = write_u32(fd1, w1, v1) ?: write_u32(fd2, w2, v2);
	uet_enable_in(system, name, 0);
	return ret;
}

/* The groups of every test: removed again, with the events left in them */
static const char *const fixture_groups[] = {
	"gta", "gtb", "gtc", "gtl", "gtx", "gtr",
};

static const char *const fixture_events[] = {
	"gsame", "giso", "gdyn", "gpass", "gst", "gbit", "gl1", "gl2", "gl3", "gx",
	"gcli", "gwa", "gwb", "gwc", "gwd", "gwe", "gwf", "gwg", "gdel", "gother",
	"gr1", "gr2", "gr3", "gbad",
};

/* The events of other dynamic event types that dynamic_events_lines makes */
static const char *const other_type_events[] = {
	"synthetic/gwa", "synthetic/gwb", "synthetic/gwc", "synthetic/gwd",
	"synthetic/gwe", "synthetic/gwf", "synthetic/gwg",
	"gta/gwa", "gta/gwb", "gta/gwc", "gta/gwd", "gta/gwe", "gta/gwf", "gta/gwg",
};

/*
 * Where the line "u:[SYSTEM/]NAME[:FLAGS] [FIELDS]" of dynamic_events
 * names an event @name or @name.<id>: a pointer to "[SYSTEM/]NAME" in it,
 * its length in *@len; else NULL
 */
static const char *dyn_line_event(const char *line, const char *name, size_t *len)
{
	const char *ev = line + 2, *base, *slash;
	size_t n = strlen(name);

	if (strncmp(line, "u:", 2))
		return NULL;
	*len = strcspn(ev, ":\n ");
	slash = memchr(ev, '/', *len);
	base = slash ? slash + 1 : ev;
	if ((size_t)(ev + *len - base) < n || strncmp(base, name, n) ||
	    (base + n != ev + *len && base[n] != '.'))
		return NULL;
	return ev;
}

/* The line of dynamic_events that shows @name (or @name.<id>), malloc()ed */
static char *dyn_line(const char *name)
{
	char *all = uet_read_file(UE_DYN), *line, *save = NULL, *found = NULL;
	size_t len;

	for (line = all ? strtok_r(all, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save))
		if (dyn_line_event(line, name, &len))
			found = strdup(line);
	free(all);
	return found;
}

/*
 * "-:SYSTEM/NAME" for the event of @line, found by dyn_line(@name), into
 * @cmd: the default group's line has no system, user_events is its system
 */
static void dyn_delete_cmd(char *cmd, size_t size, const char *line, const char *name)
{
	size_t len;
	const char *ev = dyn_line_event(line, name, &len);

	snprintf(cmd, size, "-:%s%.*s", memchr(ev, '/', len) ? "" : "user_events/",
		 (int)len, ev);
}

/* Delete every user event @name or @name.<id>, by its system and name */
static void dyn_delete_named(const char *name)
{
	char *line, cmd[600];
	int tries;

	for (tries = 0; tries < 8 && (line = dyn_line(name)); tries++) {
		dyn_delete_cmd(cmd, sizeof(cmd), line, name);
		uet_dyn_cmd(cmd);
		free(line);
	}
}

static void cleanup_groups(void)
{
	char cmd[128];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(fixture_events); i++)
		dyn_delete_named(fixture_events[i]);
	for (i = 0; i < ARRAY_SIZE(other_type_events); i++) {
		snprintf(cmd, sizeof(cmd), "-:%s", other_type_events[i]);
		uet_dyn_cmd(cmd);
	}
	for (i = 0; i < ARRAY_SIZE(fixture_groups); i++) {
		/* a test that failed may have left one enabled */
		snprintf(cmd, sizeof(cmd), "user_events_%s", fixture_groups[i]);
		for (j = 0; j < ARRAY_SIZE(fixture_events); j++)
			uet_enable_in(cmd, fixture_events[j], 0);
		snprintf(cmd, sizeof(cmd), "!%s", fixture_groups[i]);
		grp_cmd(cmd);
	}
}

FIXTURE(grp) {
	int a, b, def;
};

FIXTURE_SETUP(grp)
{
	cleanup_groups();
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, grp_cmd("gta"));
	ASSERT_EQ(0, grp_cmd("gtb max=16"));
	self->a = grp_open("gta");
	self->b = grp_open("gtb");
	self->def = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->a);
	ASSERT_LE(0, self->b);
	ASSERT_LE(0, self->def);
}

FIXTURE_TEARDOWN(grp)
{
	close(self->a);
	close(self->b);
	close(self->def);
	cleanup_groups();
}

/*
 * A group is made with its directory and files, listed, and removed whole;
 * the control file takes a command per line
 */
TEST_F(grp, create_and_remove)
{
	struct stat st;

	ASSERT_EQ(0, grp_cmd("gtc max=5"));
	EXPECT_EQ(0, stat(grp_path("gtc", "user_events_data"), &st));
	EXPECT_EQ(0, stat(grp_path("gtc", "user_events_status"), &st));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtc max=5 events=0\n"));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gta max=1024 events=0\n"));
	ASSERT_EQ(0, grp_cmd("!gtc"));
	EXPECT_EQ(-1, stat(UE_GROUP_DIR "gtc", &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, file_has(UE_GROUPS, "gtc"));
	/* and made again under the same name */
	ASSERT_EQ(0, grp_cmd("gtc"));
	EXPECT_EQ(0, stat(grp_path("gtc", "user_events_data"), &st));
	/* one command per line: several in one write */
	ASSERT_EQ(0, grp_cmd("!gtc\ngtx max=3\n"));
	EXPECT_EQ(0, file_has(UE_GROUPS, "gtc "));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtx max=3 events=0\n"));
}

/* Each bad command gets its errno and changes nothing */
TEST_F(grp, bad_commands)
{
	char *before = uet_read_file(UE_GROUPS), *after;
	struct user_status_reg r;

	ASSERT_NE(NULL, before);
	/* the default group has an event: a limit must not wrap past it */
	ASSERT_EQ(0, uet_register(self->def, "giso u32 x", &r));
	EXPECT_EQ(-EINVAL, grp_cmd("multi"));
	EXPECT_EQ(-EINVAL, grp_cmd("a_b"));
	EXPECT_EQ(-EINVAL, grp_cmd("a-b"));
	EXPECT_EQ(-EINVAL, grp_cmd("a/b"));
	EXPECT_EQ(-EINVAL, grp_cmd("abcdefghijklmnopqrstuvwxyz0123456"));
	EXPECT_EQ(-EINVAL, grp_cmd("gtc max=0"));
	EXPECT_EQ(-EINVAL, grp_cmd("gtc max=abc"));
	EXPECT_EQ(-EINVAL, grp_cmd("gtc other=1"));
	EXPECT_EQ(-EINVAL, grp_cmd("!gta max=3"));
	EXPECT_EQ(-ENOENT, grp_cmd("!nosuch"));
	EXPECT_EQ(-EEXIST, grp_cmd("gta"));
	/* more than kernel.user_events_max leaves the default group */
	EXPECT_EQ(-ENOSPC, grp_cmd("gtc max=4000000000"));
	/* a limit that would wrap what is set aside */
	EXPECT_EQ(-ENOSPC, grp_cmd("gtc max=4294967295"));
	EXPECT_EQ(-EINVAL, grp_cmd("gtc max=4294967296"));
	after = uet_read_file(UE_GROUPS);
	ASSERT_NE(NULL, after);
	EXPECT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * Write @cmd to user_events_groups through @fd (-1: a file opened here),
 * in a child that keeps only the capabilities @caps (1ULL << CAP_*) or,
 * with @userns, has them all in a user namespace of its own only; 0,
 * -errno of the write, or 1000+ for a step of the set-up that failed
 */
static int grp_cmd_with(int fd, const char *cmd, __u64 caps, int userns)
{
	int status, err;
	pid_t pid = fork();

	if (pid < 0)
		return 1000;
	if (!pid) {
		if (userns ? unshare(CLONE_NEWUSER) : uet_caps_only(caps))
			_exit(201);
		if (fd < 0)
			fd = open(UE_GROUPS, O_WRONLY | O_APPEND);
		if (fd < 0)
			_exit(202);
		err = write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) ? 0 : errno;
		_exit(err > 0 && err < 200 ? err : err ? 203 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1001;
	status = WEXITSTATUS(status);
	return status > 200 ? 1000 + status - 200 : -status;
}

/*
 * Making and removing groups takes CAP_PERFMON or CAP_SYS_ADMIN in the
 * writer, in the initial user namespace: either alone is enough
 */
TEST_F(grp, needs_capability)
{
	int fd = open(UE_GROUPS, O_WRONLY | O_APPEND), status;
	pid_t pid;

	ASSERT_LE(0, fd);
	/* root with neither, and a user namespace's root: refused */
	EXPECT_EQ(-EPERM, grp_cmd_with(fd, "gtc", 1ULL << CAP_DAC_OVERRIDE, 0));
	EXPECT_EQ(-EPERM, grp_cmd_with(fd, "gtc", 0, 1));
	EXPECT_EQ(0, file_has(UE_GROUPS, "gtc "));
	/* each alone, in the writer and the opener */
	EXPECT_EQ(0, grp_cmd_with(-1, "gtc", 1ULL << CAP_PERFMON, 0));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtc "));
	EXPECT_EQ(0, grp_cmd_with(-1, "!gtc", 1ULL << CAP_SYS_ADMIN, 0));
	EXPECT_EQ(0, file_has(UE_GROUPS, "gtc "));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* an fd root opened, written by a process without capabilities */
		if (setresuid(65534, 65534, 65534))
			_exit(100);
		if (write(fd, "gtc", 3) >= 0)
			_exit(101);
		if (write(fd, "!gta", 4) >= 0)
			_exit(102);
		_exit(errno == EPERM ? 0 : 103);
	}
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, file_has(UE_GROUPS, "gtc"));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gta "));
}

/*
 * And in the opener: an fd of user_events_groups that uid 65534 opened (the
 * file's mode widened) makes and removes nothing when a process with
 * CAP_PERFMON writes it, as when a privileged program is handed such an fd
 * as its standard output. The same process makes a group through an fd it
 * opened itself.
 */
TEST_F(grp, opener_needs_capability)
{
	struct stat top, file;
	int status = -1;
	pid_t pid;

	ASSERT_EQ(0, stat(TRACEFS, &top));
	ASSERT_EQ(0, stat(UE_GROUPS, &file));
	ASSERT_EQ(0, chmod(TRACEFS, 0755));
	ASSERT_EQ(0, chmod(UE_GROUPS, 0666));
	pid = fork();
	if (!pid) {
		int fd, own;

		/* the effective capabilities go with the effective uid 0 */
		if (seteuid(65534))
			_exit(100);
		fd = open(UE_GROUPS, O_WRONLY | O_APPEND);
		if (fd < 0)
			_exit(101);
		if (seteuid(0))
			_exit(102);
		if (write(fd, "gtc", 3) >= 0 || errno != EPERM)
			_exit(103);
		if (write(fd, "!gta", 4) >= 0 || errno != EPERM)
			_exit(104);
		own = open(UE_GROUPS, O_WRONLY | O_APPEND);
		if (own < 0 || write(own, "gtx", 3) != 3)
			_exit(105);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	chmod(UE_GROUPS, file.st_mode & 07777);
	chmod(TRACEFS, top.st_mode & 07777);
	ASSERT_LT(0, pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("step %d failed", WEXITSTATUS(status) - 100);
	EXPECT_EQ(0, file_has(UE_GROUPS, "gtc "));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gta "));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtx "));
}

/*
 * A group's name is ASCII letters and digits: any other byte in it (the
 * kernel's isalnum() takes Latin-1 letters such as 0xe9) is refused with
 * EINVAL, and no group nor directory is made
 */
TEST_F(grp, ascii_names_only)
{
	char *before = uet_read_file(UE_GROUPS), *after, name[8], cmd[16];
	struct stat st;
	int c, ret;

	ASSERT_NE(NULL, before);
	for (c = 1; c < 256; c++) {
		/* a line break ends a command, '#' starts a comment */
		if ((c < 128 && isalnum(c)) || c == '\n' || c == '#')
			continue;
		snprintf(name, sizeof(name), "gt%cz", c);
		ret = grp_cmd(name);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("byte %#x", c);
		EXPECT_NE(0, stat(grp_path(name, "user_events_data"), &st))
			TH_LOG("byte %#x made a directory", c);
		if (!ret) {
			snprintf(cmd, sizeof(cmd), "!%s", name);
			grp_cmd(cmd);
		}
	}
	/* the same command with ASCII letters is fine */
	EXPECT_EQ(0, grp_cmd("gtcz"));
	EXPECT_EQ(0, grp_cmd("!gtcz"));
	after = uet_read_file(UE_GROUPS);
	ASSERT_NE(NULL, after);
	EXPECT_STREQ(before, after);
	free(before);
	free(after);
}

/*
 * One name in two groups and the default, with other fields each: three
 * events, each with the usual files of a trace event
 */
TEST_F(grp, same_name_other_fields)
{
	static const char * const files[] = { "enable", "filter", "trigger", "hist", "format" };
	struct user_status_reg ra, rb, rd;
	char path[256];
	int i;

	ASSERT_EQ(0, uet_register(self->a, "gsame u32 a", &ra));
	ASSERT_EQ(0, uet_register(self->b, "gsame u32 b", &rb));
	ASSERT_EQ(0, uet_register(self->def, "gsame u64 c", &rd));
	EXPECT_TRUE(uet_event_exists("user_events_gta", "gsame"));
	EXPECT_TRUE(uet_event_exists("user_events_gtb", "gsame"));
	EXPECT_TRUE(uet_event_exists("user_events", "gsame"));
	for (i = 0; i < (int)ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), TRACEFS "events/user_events_gta/gsame/%s", files[i]);
		EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s: %s", path, strerror(errno));
	}
	EXPECT_EQ(1, file_has(TRACEFS "events/user_events_gta/gsame/format", "u32 a;"));
	EXPECT_EQ(1, file_has(TRACEFS "events/user_events_gtb/gsame/format", "u32 b;"));
	/* traced apart: only gta's is enabled */
	ASSERT_EQ(0, write_two("user_events_gta", "gsame", self->a, ra.write_index, 7,
			       self->b, rb.write_index, 9));
	EXPECT_EQ(1, uet_trace_count("gsame: a=7"));
	EXPECT_EQ(0, uet_trace_count("b=9"));
	/* each listing shows its own */
	EXPECT_EQ(1, file_has(grp_path("gta", "user_events_status"), ":gsame\n"));
	EXPECT_EQ(1, file_has(UE_DYN, "u:user_events_gta/gsame u32 a\n"));
	EXPECT_EQ(1, file_has(UE_DYN, "u:user_events_gtb/gsame u32 b\n"));
	EXPECT_EQ(1, file_has(UE_DYN, "u:gsame u64 c\n"));
}

/*
 * Through a group's file, the default group's event cannot be deleted,
 * squatted (the name is free in the group), listed, nor its enabler
 * unregistered; its status byte and enable bits are not the group's
 */
TEST_F(grp, isolated_from_default)
{
	const unsigned char *page;
	struct user_status_reg rd, ra;
	__u32 word = 0, gword = 0;
	int sfd;

	ASSERT_EQ(0, uet_register(self->def, "giso u32 x", &rd));
	ASSERT_EQ(0, uet_register_bits(self->def, "giso u32 x", &word, 4, 3, 0, NULL));
	EXPECT_EQ(-ENOENT, uet_delete(self->a, "giso"));
	EXPECT_TRUE(uet_event_exists("user_events", "giso"));
	EXPECT_EQ(-ENOENT, uet_unregister_bits(self->a, &word, 3));
	EXPECT_EQ(0, file_has(grp_path("gta", "user_events_status"), "giso"));
	/* the name with other fields is the group's own event */
	ASSERT_EQ(0, uet_register(self->a, "giso u64 y", &ra));
	ASSERT_EQ(0, uet_register_bits(self->a, "giso u64 y", &gword, 4, 3, 0, NULL));
	sfd = open(grp_path("gta", "user_events_status"), O_RDONLY);
	ASSERT_LE(0, sfd);
	page = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, sfd, 0);
	close(sfd);
	ASSERT_NE(MAP_FAILED, page);
	ASSERT_EQ(0, uet_enable("", "giso", 1));
	EXPECT_EQ(1u << 3, word);
	EXPECT_EQ(0, page[ra.status_index]);
	EXPECT_EQ(0, gword);
	ASSERT_EQ(0, uet_enable("", "giso", 0));
	EXPECT_EQ(0, word);
	/* and the other way round */
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "giso", 1));
	EXPECT_EQ(1u << 3, gword);
	EXPECT_EQ(EVENT_STATUS_FTRACE, page[ra.status_index]);
	EXPECT_EQ(0, word);
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "giso", 0));
	EXPECT_EQ(0, gword);
	munmap((void *)page, getpagesize());
	EXPECT_EQ(0, uet_unregister_bits(self->def, &word, 3));
	EXPECT_EQ(0, uet_unregister_bits(self->a, &gword, 3));
}

/* Nor another group's; the top-level user_events_status lists neither */
TEST_F(grp, isolated_between_groups)
{
	struct user_status_reg r;
	int fd = grp_open("gta");

	/* registered and left: only a deletion can remove it */
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "giso u32 x", &r));
	close(fd);
	EXPECT_EQ(-ENOENT, uet_delete(self->b, "giso"));
	EXPECT_EQ(-ENOENT, uet_delete(self->def, "giso"));
	EXPECT_TRUE(uet_event_exists("user_events_gta", "giso"));
	EXPECT_EQ(0, file_has(grp_path("gtb", "user_events_status"), "giso"));
	EXPECT_EQ(1, file_has(grp_path("gta", "user_events_status"), ":giso\n"));
	/* the top-level listing is the default group's */
	EXPECT_EQ(0, file_has(UE_STATUS, "giso"));
	EXPECT_FALSE(uet_event_exists("user_events_gtb", "giso"));
	/* the group's own deletion works */
	ASSERT_EQ(0, uet_delete(self->a, "giso"));
	EXPECT_FALSE(uet_event_exists("user_events_gta", "giso"));
}

/*
 * Spoofing: a group registers the default group's event with its very
 * fields and writes; the default group's event, enabled, records nothing
 */
TEST_F(grp, spoof_same_fields)
{
	struct user_status_reg rd, ra;

	ASSERT_EQ(0, uet_register(self->def, "giso u32 x", &rd));
	ASSERT_EQ(0, uet_register(self->a, "giso u32 x", &ra));
	EXPECT_TRUE(uet_event_exists("user_events_gta", "giso"));
	ASSERT_EQ(0, write_two("user_events", "giso", self->a, ra.write_index, 13,
			       self->def, rd.write_index, 14));
	EXPECT_EQ(0, uet_trace_count("giso: x=13"));
	EXPECT_EQ(1, uet_trace_count("giso: x=14"));
}

/*
 * How many events the default group has: the directories of its systems
 * and of their "_retired" systems (deleted events whose records a buffer
 * holds count until they go)
 */
static int default_group_events(void)
{
	static const char * const systems[] = {
		"user_events", "user_events_multi", "user_events_retired",
		"user_events_multi_retired",
	};
	char path[512];
	struct dirent *de;
	struct stat st;
	int i, n = 0;
	DIR *d;

	for (i = 0; i < (int)ARRAY_SIZE(systems); i++) {
		snprintf(path, sizeof(path), TRACEFS "events/%s", systems[i]);
		d = opendir(path);
		while (d && (de = readdir(d))) {
			snprintf(path, sizeof(path), TRACEFS "events/%s/%s", systems[i],
				 de->d_name);
			if (de->d_name[0] != '.' && !stat(path, &st) && S_ISDIR(st.st_mode))
				n++;
		}
		if (d)
			closedir(d);
	}
	return n;
}

/* What the groups' limits set aside: the sum of max= of user_events_groups */
static long groups_set_aside(void)
{
	char *text = uet_read_file(UE_GROUPS), *p;
	long sum = 0;

	for (p = text; p && (p = strstr(p, " max=")); p += 5)
		sum += atol(p + 5);
	free(text);
	return sum;
}

#define UE_MAX_SYSCTL "/proc/sys/kernel/user_events_max"

/*
 * A group's limit stops it, and nobody else; the default group has what
 * kernel.user_events_max leaves of the groups' limits
 */
TEST_F(grp, limit)
{
	struct user_status_reg r;
	char *saved, text[32];
	int fd;

	ASSERT_EQ(0, grp_cmd("gtl max=2"));
	fd = grp_open("gtl");
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, uet_register(fd, "gl1 u32 x", &r));
	EXPECT_EQ(0, uet_register(fd, "gl2 u32 x", &r));
	EXPECT_EQ(-EMFILE, uet_register(fd, "gl3 u32 x", &r));
	EXPECT_FALSE(uet_event_exists("user_events_gtl", "gl3"));
	/* an existing event of the group still registers */
	EXPECT_EQ(0, uet_register(fd, "gl1 u32 x", &r));
	EXPECT_EQ(0, uet_register(self->a, "gl3 u32 x", &r));
	EXPECT_EQ(0, uet_register(self->def, "gl3 u32 x", &r));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtl max=2 events=2\n"));
	close(fd);

	/* room for one more event of the default group, beside the limits */
	saved = uet_read_file(UE_MAX_SYSCTL);
	ASSERT_NE(NULL, saved);
	ASSERT_EQ(0, uet_reclaim_retired());
	snprintf(text, sizeof(text), "%ld", default_group_events() + groups_set_aside() + 1);
	ASSERT_EQ(0, uet_write_file(UE_MAX_SYSCTL, text, O_TRUNC));
	EXPECT_EQ(0, uet_register(self->def, "gl1 u32 x", &r));
	EXPECT_EQ(-EMFILE, uet_register(self->def, "gl2 u32 x", &r));
	EXPECT_FALSE(uet_event_exists("user_events", "gl2"));
	/* while a group, below its limit, still makes events */
	EXPECT_EQ(0, uet_register(self->a, "gl2 u32 x", &r));
	EXPECT_EQ(0, uet_write_file(UE_MAX_SYSCTL, saved, O_TRUNC));
	free(saved);
}

/* Both ABIs in a group: the group's status byte and an enable bit follow */
TEST_F(grp, both_abis)
{
	const unsigned char *page;
	struct user_status_reg r;
	__u32 word = 0, widx = 0;
	int sfd;

	ASSERT_EQ(0, uet_register(self->a, "gst u32 x", &r));
	ASSERT_EQ(0, uet_register_bits(self->a, "gst u32 x", &word, 4, 5, 0, &widx));
	sfd = open(grp_path("gta", "user_events_status"), O_RDONLY);
	ASSERT_LE(0, sfd);
	page = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, sfd, 0);
	close(sfd);
	ASSERT_NE(MAP_FAILED, page);
	EXPECT_EQ(0, page[r.status_index]);
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gst", 1));
	EXPECT_EQ(1, page[r.status_index]);
	EXPECT_EQ(1u << 5, word);
	EXPECT_EQ(0, write_u32(self->a, widx, 42));
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gst", 0));
	EXPECT_EQ(0, page[r.status_index]);
	EXPECT_EQ(0, word);
	EXPECT_EQ(1, uet_trace_count("gst: x=42"));
	munmap((void *)page, getpagesize());
	EXPECT_EQ(0, uet_unregister_bits(self->a, &word, 5));
}

/*
 * Removal is refused while the group is in use: files, mappings, events;
 * not for an event an exited process's enabler alone held
 */
TEST_F(grp, busy_while_used)
{
	struct user_status_reg r;
	int fd, status;
	void *page;
	pid_t pid;

	ASSERT_EQ(0, grp_cmd("gtx"));
	fd = grp_open("gtx");
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, grp_cmd("!gtx"));
	close(fd);
	fd = open(grp_path("gtx", "user_events_status"), O_RDONLY);
	ASSERT_LE(0, fd);
	page = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, page);
	EXPECT_EQ(-EBUSY, grp_cmd("!gtx"));
	munmap(page, getpagesize());
	fd = grp_open("gtx");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "gx u32 x", &r));
	close(fd);
	/* a status-page event stays until deleted, and keeps the group */
	EXPECT_EQ(-EBUSY, grp_cmd("!gtx"));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtx max=1024 events=1\n"));
	ASSERT_EQ(0, uet_dyn_cmd("-:user_events_gtx/gx"));
	/*
	 * an enable-bit event of a process that exited and was waited for:
	 * the removal finds it as the exit left it, gone with its enabler
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		static __u32 word;

		fd = grp_open("gtx");
		_exit(fd < 0 || uet_register_bits(fd, "gx u32 x", &word, 4, 0, 0, NULL));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, grp_cmd("!gtx"));
	EXPECT_FALSE(uet_event_exists("user_events_gtx", "gx"));
}

/*
 * A file of a removed group opens no more, through a directory fd or a
 * bind mount of the group's directory
 */
TEST_F(grp, removed_group_gone)
{
	char bind[] = "/tmp/ue_gbindXXXXXX", path[64];
	struct stat st;
	int dir;

	ASSERT_EQ(0, grp_cmd("gtx"));
	dir = open(UE_GROUP_DIR "gtx", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dir);
	ASSERT_NE(NULL, mkdtemp(bind));
	ASSERT_EQ(0, mount(UE_GROUP_DIR "gtx", bind, NULL, MS_BIND, NULL))
		TH_LOG("bind mount: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/user_events_data", bind);
	EXPECT_EQ(0, access(path, F_OK));
	ASSERT_EQ(0, grp_cmd("!gtx"));
	EXPECT_EQ(-1, openat(dir, "user_events_data", O_RDWR));
	EXPECT_EQ(-1, fstatat(dir, "user_events_status", &st, 0));
	EXPECT_EQ(-1, open(path, O_RDWR));
	/* a group of the same name made again is a new directory */
	ASSERT_EQ(0, grp_cmd("gtx"));
	EXPECT_EQ(-1, openat(dir, "user_events_data", O_RDWR));
	EXPECT_EQ(-1, open(path, O_RDWR));
	close(dir);
	EXPECT_EQ(0, umount2(bind, MNT_DETACH));
	rmdir(bind);
}

/*
 * dynamic_events addresses a group's event by its system,
 * user_events_GROUP/name; the group's name alone is no system of ours
 */
TEST_F(grp, dynamic_events_group_form)
{
	ASSERT_EQ(0, uet_dyn_cmd("u:user_events_gta/gdyn u32 x"));
	EXPECT_TRUE(uet_event_exists("user_events_gta", "gdyn"));
	EXPECT_FALSE(uet_event_exists("user_events", "gdyn"));
	EXPECT_EQ(1, file_has(UE_DYN, "u:user_events_gta/gdyn u32 x\n"));
	EXPECT_EQ(1, file_has(grp_path("gta", "user_events_status"), ":gdyn\n"));
	/* the default group's name is another event */
	EXPECT_EQ(-ENOENT, uet_dyn_cmd("-:gdyn"));
	EXPECT_EQ(-ENOENT, uet_dyn_cmd("-:user_events/gdyn"));
	EXPECT_EQ(-ENOENT, uet_dyn_cmd("-:user_events_gtb/gdyn"));
	EXPECT_EQ(-ENOENT, uet_dyn_cmd("-:gta/gdyn"));
	EXPECT_EQ(-ENOENT, uet_dyn_cmd("!u:gta/gdyn u32 x"));
	EXPECT_EQ(-ENOENT, uet_dyn_cmd("u:user_events_nosuch/gdyn u32 x"));
	EXPECT_EQ(-EINVAL, uet_dyn_cmd("u:gtb/gdyn u32 x"));
	EXPECT_EQ(-EINVAL, uet_dyn_cmd("u:user_events_gta_multi/gdyn u32 x"));
	EXPECT_FALSE(uet_event_exists("user_events_gtb", "gdyn"));
	EXPECT_TRUE(uet_event_exists("user_events_gta", "gdyn"));
	EXPECT_EQ(0, uet_dyn_cmd("!u:user_events_gta/gdyn u32 x"));
	EXPECT_FALSE(uet_event_exists("user_events_gta", "gdyn"));
	ASSERT_EQ(0, uet_dyn_cmd("u:user_events_gta/gdyn u32 x"));
	EXPECT_EQ(0, uet_dyn_cmd("-:user_events_gta/gdyn"));
	EXPECT_FALSE(uet_event_exists("user_events_gta", "gdyn"));
}

/*
 * Events of other dynamic event types named @name where a system-less or
 * group-named command could reach them: a synthetic event @name, and a
 * uprobe @name (on this program) in a system named like the group gta;
 * 0 or -errno
 */
static int make_other_types(const char *name)
{
	char cmd[4400], exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret;

	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	snprintf(cmd, sizeof(cmd), "s:%s u64 v", name);
	ret = uet_dyn_cmd(cmd);
	if (ret)
		return ret;
	snprintf(cmd, sizeof(cmd), "p:gta/%s %s:0x0", name, exe);
	return uet_dyn_cmd(cmd);
}

/* How many of make_other_types()'s two events exist */
static int other_types_left(const char *name)
{
	return uet_event_exists("synthetic", name) + uet_event_exists("gta", name);
}

/*
 * Register @desc in group gta (@group) or the default group, through an fd
 * closed again: an event that stays, idle, until deleted. With @multi,
 * multi-format (and persistent, since the enable-bit ABI makes those).
 */
static int register_kept(int group, const char *desc, int multi)
{
	int fd = group ? grp_open("gta") : open(UE_DATA, O_RDWR), ret;
	struct user_status_reg r;
	static __u32 word;

	if (fd < 0)
		return -errno;
	if (!multi) {
		ret = uet_register(fd, desc, &r);
	} else {
		ret = uet_register_bits(fd, desc, &word, 4, 0, USER_EVENT_REG_MULTI_FORMAT |
					USER_EVENT_REG_PERSIST, NULL);
		ret = ret ?: uet_unregister_bits(fd, &word, 0);
	}
	close(fd);
	return ret;
}

/* Delete make_other_types()'s events of @name, those that are left */
static void delete_other_types(const char *name)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "-:synthetic/%s", name);
	uet_dyn_cmd(cmd);
	snprintf(cmd, sizeof(cmd), "-:gta/%s", name);
	uet_dyn_cmd(cmd);
}

/*
 * The lines dynamic_events shows for user events, written back. The default
 * group's events show as "u:name[:flags] fields", the form of Linux 6.4 and
 * later (an ABI); a tenant group's and multi-format events with their
 * system, "u:user_events_gta/name" and "u:user_events[_gta]_multi/name.<id>".
 * After "!", a line with a system deletes that event and nothing else: not
 * a synthetic event of the same name, nor a uprobe of that name in a system
 * named like the group; so does "!u:user_events/" and the rest of a default
 * group's line. That line as shown deletes its event too (and, as "-:name"
 * does for every type, any other type's event of that name whose match
 * takes it). Written back as it is, a line makes the same event again (a
 * multi-format event is made by DIAG_IOCSREG alone: EINVAL). The group's
 * name is not a system of user_events: -:gta/name is the uprobe's.
 */
TEST_F(grp, dynamic_events_lines)
{
	/*
	 * @left: how many of the other types' two events a default group's
	 * line written back after "!" leaves: the synthetic event goes
	 * whatever the fields (not with flags, which its name would have to
	 * carry), the uprobe only when no fields are given
	 */
	static const struct {
		const char *name, *desc, *system;
		int group, multi, left;
	} c[] = {
		{ "gwa", "gwa u32 a; char[4] b", NULL, 0, 0, 1 },
		{ "gwb", "gwb", NULL, 0, 0, 0 },
		{ "gwc", "gwc:BPF_ITER u32 a", NULL, 0, 0, 2 },
		{ "gwd", "gwd u32 a", "user_events_gta", 1, 0 },
		{ "gwe", "gwe", "user_events_gta", 1, 0 },
		{ "gwf", "gwf u32 a", "user_events_multi", 0, 1 },
		{ "gwg", "gwg u64 b", "user_events_gta_multi", 1, 1 },
	};
	char cmd[700], want[128], *line, *again;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		ASSERT_EQ(0, register_kept(c[i].group, c[i].desc, c[i].multi))
			TH_LOG("%s", c[i].desc);
		line = dyn_line(c[i].name);
		ASSERT_NE(NULL, line) TH_LOG("%s is not in dynamic_events", c[i].name);
		if (c[i].system)
			snprintf(want, sizeof(want), "u:%s/%s", c[i].system, c[i].name);
		else
			snprintf(want, sizeof(want), "u:%s", c[i].name);
		n = strlen(want);
		EXPECT_TRUE(!strncmp(line, want, n) &&
			    (c[i].system || !line[n] || line[n] == ' ' || line[n] == ':'))
			TH_LOG("'%s' does not start with '%s'", line, want);
		ASSERT_EQ(0, make_other_types(c[i].name));

		if (!c[i].system) {
			/* with its system, the default group's line deletes ours alone */
			snprintf(cmd, sizeof(cmd), "!u:user_events/%s", line + 2);
			EXPECT_EQ(0, uet_dyn_cmd(cmd)) TH_LOG("%s", cmd);
			again = dyn_line(c[i].name);
			EXPECT_EQ(NULL, again) TH_LOG("%s left '%s'", cmd, again);
			free(again);
			EXPECT_EQ(2, other_types_left(c[i].name))
				TH_LOG("%s deleted another type's", cmd);
			ASSERT_EQ(0, register_kept(c[i].group, c[i].desc, c[i].multi));
		}

		/* the line as a deletion */
		snprintf(cmd, sizeof(cmd), "!%s", line);
		EXPECT_EQ(0, uet_dyn_cmd(cmd)) TH_LOG("%s", cmd);
		again = dyn_line(c[i].name);
		EXPECT_EQ(NULL, again) TH_LOG("%s left '%s'", cmd, again);
		free(again);
		if (c[i].system) {
			EXPECT_EQ(2, other_types_left(c[i].name))
				TH_LOG("%s deleted another type's", cmd);
		} else {
			/* as -:NAME does for every type: others of the name go too */
			EXPECT_EQ(c[i].left, other_types_left(c[i].name))
				TH_LOG("%s: another type's events", cmd);
			delete_other_types(c[i].name);
			ASSERT_EQ(0, make_other_types(c[i].name));
		}

		/* the line as a creation */
		if (!c[i].multi) {
			EXPECT_EQ(0, uet_dyn_cmd(line)) TH_LOG("%s", line);
		} else {
			EXPECT_EQ(-EINVAL, uet_dyn_cmd(line)) TH_LOG("%s", line);
			EXPECT_EQ(NULL, dyn_line(c[i].name));
			ASSERT_EQ(0, register_kept(c[i].group, c[i].desc, c[i].multi));
		}
		again = dyn_line(c[i].name);
		EXPECT_NE(NULL, again);
		if (again && !c[i].multi)
			EXPECT_STREQ(line, again);

		/* -:name of the other types' system deletes theirs alone */
		if (c[i].group) {
			snprintf(cmd, sizeof(cmd), "-:gta/%s", c[i].name);
			EXPECT_EQ(0, uet_dyn_cmd(cmd));
			EXPECT_FALSE(uet_event_exists("gta", c[i].name));
			free(again);
			again = dyn_line(c[i].name);
			EXPECT_NE(NULL, again) TH_LOG("%s deleted the user event", cmd);
		}

		/* -:SYSTEM/NAME, user_events the default group's system */
		if (again) {
			dyn_delete_cmd(cmd, sizeof(cmd), again, c[i].name);
			EXPECT_EQ(0, uet_dyn_cmd(cmd)) TH_LOG("%s", cmd);
			free(again);
			again = dyn_line(c[i].name);
			EXPECT_EQ(NULL, again) TH_LOG("%s left '%s'", cmd, again);
			free(again);
		}
		EXPECT_EQ(c[i].group ? 1 : 2, other_types_left(c[i].name))
			TH_LOG("%s deleted another type's", cmd);

		/* -:NAME without a system: every type's event of that name */
		if (!c[i].system) {
			ASSERT_EQ(0, register_kept(c[i].group, c[i].desc, c[i].multi));
			snprintf(cmd, sizeof(cmd), "-:%s", c[i].name);
			EXPECT_EQ(0, uet_dyn_cmd(cmd)) TH_LOG("%s", cmd);
			again = dyn_line(c[i].name);
			EXPECT_EQ(NULL, again) TH_LOG("%s left '%s'", cmd, again);
			free(again);
			EXPECT_EQ(0, other_types_left(c[i].name)) TH_LOG("%s", cmd);
		}
		free(line);
	}
}

/*
 * A group's data fd passed over a Unix socket to a process that has no
 * tracefs and no privilege: it registers and writes in that group, and
 * reaches no other group: the default group's events of the same name and
 * fields (not enabled) and of another (idle, which a delete through the
 * default group's files would remove) are not its own
 */
TEST_F(grp, fd_passing)
{
	struct user_status_reg r, rd;
	int sv[2], status, fd;
	pid_t pid;

	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "gpass u32 x", &rd));
	ASSERT_EQ(0, uet_register(fd, "giso u32 x", &rd));
	close(fd);
	ASSERT_EQ(0, uet_register(self->a, "gpass u32 x", &r));
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gpass", 1));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char cbuf[CMSG_SPACE(sizeof(int))], c;
		struct iovec io = { &c, 1 };
		struct msghdr msg = {
			.msg_iov = &io, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct user_status_reg cr;
		int fd;

		close(sv[0]);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    umount2("/sys/kernel/tracing", MNT_DETACH))
			_exit(100);
		umount2("/sys/kernel/debug/tracing", MNT_DETACH);
		if (setresuid(65534, 65534, 65534))
			_exit(101);
		if (!access(UE_DATA, F_OK))
			_exit(102);
		if (recvmsg(sv[1], &msg, 0) != 1 || !CMSG_FIRSTHDR(&msg))
			_exit(103);
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(fd));
		if (uet_register(fd, "gpass u32 x", &cr))
			_exit(104);
		if (write_u32(fd, cr.write_index, 77))
			_exit(105);
		/* its own event is held by its fd; the default group's is unknown */
		if (uet_delete(fd, "gpass") != -EBUSY || uet_delete(fd, "giso") != -ENOENT)
			_exit(106);
		_exit(0);
	} else {
		char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, c = 'f';
		struct iovec io = { &c, 1 };
		struct msghdr msg = {
			.msg_iov = &io, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &self->a, sizeof(int));
		close(sv[1]);
		ASSERT_EQ(1, sendmsg(sv[0], &msg, 0));
		close(sv[0]);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gpass", 0));
	/* recorded by the group's event: the default group's is not enabled */
	EXPECT_EQ(1, uet_trace_count("gpass: x=77"));
	EXPECT_TRUE(uet_event_exists("user_events", "giso"));
	EXPECT_TRUE(uet_event_exists("user_events", "gpass"));
}

/*
 * Making and removing a group raced against opening its files, registering,
 * writing and deleting in it: every step fails only with the errno of the
 * state it met, and nothing is left behind
 */
TEST_F(grp, remove_races_registration)
{
	int i, status, bad = 0;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		for (i = 0; i < 300; i++) {
			int r = grp_cmd(i % 2 ? "!gtx" : "gtx");

			if (r && r != -EEXIST && r != -EBUSY && r != -ENOENT)
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < 300; i++) {
		struct user_status_reg r;
		int fd = grp_open("gtx"), ret;

		if (fd < 0) {
			bad += errno != ENOENT && errno != ENODEV;
			continue;
		}
		ret = uet_register(fd, "gx u32 x", &r);
		bad += ret != 0;
		if (!ret)
			bad += write_u32(fd, r.write_index, i) != 0;
		close(fd);
		ret = uet_dyn_cmd("-:user_events_gtx/gx");
		bad += ret && ret != -ENOENT && ret != -EBUSY;
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, bad);
	uet_dyn_cmd("-:user_events_gtx/gx");
	grp_cmd("!gtx");
	EXPECT_EQ(0, file_has(UE_GROUPS, "gtx"));
	EXPECT_FALSE(uet_event_exists("user_events_gtx", "gx"));
}

/* The user_events command next to this program: built with libuserevents */
static const char *cli_path(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	if (n <= 0)
		return "./user_events";
	path[n] = '\0';
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, 32, "user_events");
	return path;
}

/*
 * In a new mount namespace, the group's directory where tracefs was, and
 * the process an unprivileged uid: run the user_events command (argv) there,
 * its standard output into @out; its exit status, or 200+ for a step of
 * the set-up that failed
 */
/* Write @text to /proc/self/@file; 0 or -1 */
static int proc_self_write(const char *file, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	return uet_write_file(path, text, 0) ? -1 : 0;
}

/*
 * Become uid/gid 65534 outside: either plainly, or (@userns) as root of a
 * new user namespace that maps its 0 to 65534, as a rootless container is
 */
static int drop_to_nobody(int userns)
{
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return -1;
	if (!userns)
		return 0;
	/* an unprivileged process maps itself; /proc/self must stay its own */
	return prctl(PR_SET_DUMPABLE, 1) || unshare(CLONE_NEWUSER) ||
	       proc_self_write("setgroups", "deny") ||
	       proc_self_write("uid_map", "0 65534 1") ||
	       proc_self_write("gid_map", "0 65534 1") ||
	       setresgid(0, 0, 0) || setresuid(0, 0, 0);
}

static int run_in_container(const char *group, char *const argv[], char *out,
			    size_t size, int userns)
{
	char tmp[] = "/tmp/ue_grpXXXXXX";
	int pipefd[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char dir[256];

		snprintf(dir, sizeof(dir), UE_GROUP_DIR "%s", group);
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(200);
		if (!mkdtemp(tmp) || mount(dir, tmp, NULL, MS_BIND, NULL))
			_exit(201);
		if (umount2("/sys/kernel/tracing", MNT_DETACH) ||
		    mount(tmp, "/sys/kernel/tracing", NULL, MS_MOVE, NULL))
			_exit(202);
		umount2("/sys/kernel/debug/tracing", MNT_DETACH);
		if (drop_to_nobody(userns))
			_exit(203);
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execv(argv[0][0] == '/' ? argv[0] : cli_path(), argv);
		_exit(204);
	}
	close(pipefd[1]);
	while (len + 1 < (ssize_t)size &&
	       (n = read(pipefd[0], out + len, size - len - 1)) > 0)
		len += n;
	out[len] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	rmdir(tmp);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 300;
}

/* Give the group's directory and files to uid/gid @id */
static int chown_group(const char *g, int id)
{
	char dir[256];

	snprintf(dir, sizeof(dir), UE_GROUP_DIR "%s", g);
	return chown(dir, id, id) || chown(grp_path(g, "user_events_data"), id, id) ||
	       chown(grp_path(g, "user_events_status"), id, id) ? -errno : 0;
}

/*
 * A "container": the group's directory bind-mounted at /sys/kernel/tracing
 * of a new mount namespace, an unprivileged uid the group's files were
 * given to. The user_events command (libuserevents) works there unchanged,
 * on the group's events only; the host decodes what it wrote. With
 * @userns, inside a user namespace whose root is uid 65534 outside.
 */
static void container_cli(struct __test_metadata *_metadata, int userns)
{
	static char *const emit[] = { "user_events", "emit", "gcli u32 x", "x=5", NULL };
	static char *const status[] = { "user_events", "status", NULL };
	static char *const del[] = { "user_events", "delete", "giso", NULL };
	/* what a client that finds tracefs through /proc/mounts sees */
	static char *const mounts[] = {
		"/bin/grep", "-q", "^[^ ]* /sys/kernel/tracing tracefs ", "/proc/mounts", NULL
	};
	struct user_status_reg r;
	char out[4096];
	int fd;

	/* the host's event of another name, which the container must not see */
	fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "giso u32 x", &r));
	close(fd);
	ASSERT_EQ(0, uet_dyn_cmd("u:user_events_gta/gcli u32 x"));
	ASSERT_EQ(0, chown_group("gta", 65534));
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gcli", 1));
	EXPECT_EQ(0, run_in_container("gta", emit, out, sizeof(out), userns)) TH_LOG("%s", out);
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gcli", 0));
	EXPECT_EQ(1, uet_trace_count("gcli: x=5"));
	EXPECT_EQ(0, run_in_container("gta", status, out, sizeof(out), userns));
	EXPECT_NE(NULL, strstr(out, "gcli"));
	EXPECT_EQ(NULL, strstr(out, "giso")) TH_LOG("%s", out);
	EXPECT_EQ(0, run_in_container("gta", mounts, out, sizeof(out), userns));
	/* the host's event is not the container's to delete */
	EXPECT_NE(0, run_in_container("gta", del, out, sizeof(out), userns));
	EXPECT_TRUE(uet_event_exists("user_events", "giso"));
}

TEST_F(grp, container_runs_cli)
{
	container_cli(_metadata, 0);
}

TEST_F(grp, container_user_namespace)
{
	container_cli(_metadata, 1);
}

/* Deleting an event whose records a buffer holds: retired ---------------- */

/* The text of trace_pipe, read until it is empty (its records are consumed) */
static char *read_trace_pipe(void)
{
	return uet_read_fd(open(TRACEFS "trace_pipe", O_RDONLY | O_NONBLOCK));
}

/*
 * The workflow seen to empty the host's whole buffer on deletion: a
 * tenant's status-page event recorded 3 records while the host enabled it,
 * the host wrote two trace_marker lines and recorded an event of its own,
 * then the tenant, in its "container", deleted its idle event through its
 * own files. Everything stays: the host's records, and the tenant's,
 * decoded with their fields (trace, trace_pipe, and the format under
 * user_events_gta_retired for trace-cmd); the event is listed nowhere and
 * its name registers again at once, with other fields and a new type, each
 * incarnation's records decoded with its own.
 */
TEST_F(grp, tenant_delete_keeps_records)
{
	static char *const reg_old[] = {
		"user_events", "register", "gdel u32 n; char[6] s", NULL
	};
	static char *const del[] = { "user_events", "delete", "gdel", NULL };
	static char *const reg_new[] = { "user_events", "register", "gdel u64 m", NULL };
	static char *const emit_new[] = {
		"user_events", "emit", "gdel u64 m", "m=9", NULL
	};
	char out[4096], path[512], line[64], *pipe_text;
	struct user_status_reg r;
	int old_id, new_id, i;

	ASSERT_EQ(0, chown_group("gta", 65534));
	ASSERT_EQ(0, run_in_container("gta", reg_old, out, sizeof(out), 0)) TH_LOG("%s", out);
	old_id = uet_event_id("user_events_gta", "gdel");
	ASSERT_LT(0, old_id);
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gdel", 1));
	for (i = 1; i <= 3; i++) {
		char *const emit_old[] = {
			"user_events", "emit", "gdel u32 n; char[6] s", line, "s=abc", NULL
		};

		snprintf(line, sizeof(line), "n=%d", i);
		EXPECT_EQ(0, run_in_container("gta", emit_old, out, sizeof(out), 0))
			TH_LOG("%s", out);
	}
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gdel", 0));
	/* the host's: two markers and an event of its own */
	ASSERT_EQ(0, uet_write_file(TRACEFS "trace_marker", "gmark1", 0));
	ASSERT_EQ(0, uet_write_file(TRACEFS "trace_marker", "gmark2", 0));
	ASSERT_EQ(0, uet_register(self->def, "gother u32 x", &r));
	ASSERT_EQ(0, uet_enable("", "gother", 1));
	ASSERT_EQ(0, write_u32(self->def, r.write_index, 5));
	ASSERT_EQ(0, uet_enable("", "gother", 0));

	ASSERT_EQ(0, run_in_container("gta", del, out, sizeof(out), 0)) TH_LOG("%s", out);
	EXPECT_EQ(1, uet_trace_count("tracing_mark_write: gmark1\n"));
	EXPECT_EQ(1, uet_trace_count("tracing_mark_write: gmark2\n"));
	EXPECT_EQ(1, uet_trace_count("gother: x=5\n"));
	for (i = 1; i <= 3; i++) {
		snprintf(line, sizeof(line), "gdel: n=%d s=abc\n", i);
		EXPECT_EQ(1, uet_trace_count(line)) TH_LOG("no '%s' in trace", line);
	}
	/* unlisted, its format kept apart, nothing to enable */
	EXPECT_FALSE(uet_event_exists("user_events_gta", "gdel"));
	EXPECT_EQ(0, file_has(grp_path("gta", "user_events_status"), "gdel"));
	EXPECT_EQ(0, file_has(UE_DYN, "user_events_gta/gdel"));
	uet_retired_dir("", "user_events_gta", "gdel", old_id, path, sizeof(path));
	strcat(path, "/format");
	EXPECT_EQ(1, file_has(path, "\tfield:u32 n;\toffset:8;\tsize:4;\tsigned:0;\n"))
		TH_LOG("%s", path);
	snprintf(line, sizeof(line), "\nID: %d\n", old_id);
	EXPECT_EQ(1, file_has(path, line));

	/* the name is free: another format, another type */
	ASSERT_EQ(0, run_in_container("gta", reg_new, out, sizeof(out), 0)) TH_LOG("%s", out);
	new_id = uet_event_id("user_events_gta", "gdel");
	EXPECT_LT(0, new_id);
	EXPECT_NE(old_id, new_id);
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gdel", 1));
	EXPECT_EQ(0, run_in_container("gta", emit_new, out, sizeof(out), 0)) TH_LOG("%s", out);
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gdel", 0));
	EXPECT_EQ(1, uet_trace_count("gdel: m=9\n"));
	EXPECT_EQ(1, uet_trace_count("gdel: n=1 s=abc\n"));
	/* trace_pipe decodes both too, as it consumes them */
	pipe_text = read_trace_pipe();
	ASSERT_NE(NULL, pipe_text);
	EXPECT_NE(NULL, strstr(pipe_text, "gdel: n=3 s=abc\n")) TH_LOG("%s", pipe_text);
	EXPECT_NE(NULL, strstr(pipe_text, "gdel: m=9\n"));
	EXPECT_NE(NULL, strstr(pipe_text, "tracing_mark_write: gmark2\n"));
	free(pipe_text);
}

/* Register @desc on a new fd of group @g, which is closed again; 0 or -errno */
static int grp_register_closed(const char *g, const char *desc)
{
	struct user_status_reg r;
	int fd = grp_open(g), ret;

	if (fd < 0)
		return -errno;
	ret = uet_register(fd, desc, &r);
	close(fd);
	return ret;
}

/* Record x=@v of the status-page event @name of group @g, enabled meanwhile */
static int grp_record(const char *g, const char *name, const char *desc, __u32 v)
{
	struct user_status_reg r;
	char system[64];
	int fd = grp_open(g), ret;

	if (fd < 0)
		return -errno;
	snprintf(system, sizeof(system), "user_events_%s", g);
	ret = uet_register(fd, desc, &r) ?: uet_enable_in(system, name, 1);
	if (!ret) {
		ret = write_u32(fd, r.write_index, v);
		uet_enable_in(system, name, 0);
	}
	close(fd);
	return ret;
}

#define UE_GRACE "/proc/sys/kernel/user_events_retired_grace"

/*
 * A retired event counts against its group's limit until no buffer holds
 * its records: at the limit, a new event (its freed name too) is EMFILE;
 * once the buffer is cleared, the group's next registration finds the room
 * at once (the kernel looks before refusing), and without one, the
 * kernel's own check removes it, after the grace (a second here)
 */
TEST_F_TIMEOUT(grp, retired_counts_until_gone, 600)
{
	char path[512], *grace;
	int id;

	ASSERT_EQ(0, grp_cmd("gtr max=2"));
	ASSERT_EQ(0, grp_record("gtr", "gr1", "gr1 u32 x", 21));
	ASSERT_EQ(0, grp_register_closed("gtr", "gr2 u32 x"));
	id = uet_event_id("user_events_gtr", "gr1");
	ASSERT_LT(0, id);
	ASSERT_EQ(0, uet_dyn_cmd("-:user_events_gtr/gr1"));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtr max=2 events=2 retired=1\n"));
	uet_retired_dir("", "user_events_gtr", "gr1", id, path, sizeof(path));
	EXPECT_EQ(0, access(path, F_OK));
	EXPECT_EQ(-EMFILE, grp_register_closed("gtr", "gr3 u32 x"));
	EXPECT_EQ(-EMFILE, grp_register_closed("gtr", "gr1 u32 y"));
	EXPECT_EQ(1, uet_trace_count("gr1: x=21\n"));
	/* another group is not affected */
	EXPECT_EQ(0, grp_register_closed("gta", "gr3 u32 x"));

	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(0, grp_register_closed("gtr", "gr1 u32 y"));
	EXPECT_EQ(-1, access(path, F_OK));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtr max=2 events=2\n"));

	/* retired again, then left to the kernel's own check */
	ASSERT_EQ(0, grp_record("gtr", "gr1", "gr1 u32 y", 22));
	id = uet_event_id("user_events_gtr", "gr1");
	ASSERT_EQ(0, uet_dyn_cmd("-:user_events_gtr/gr1"));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtr max=2 events=2 retired=1\n"));
	uet_retired_dir("", "user_events_gtr", "gr1", id, path, sizeof(path));
	EXPECT_EQ(0, access(path, F_OK));
	ASSERT_EQ(0, uet_clear_trace());
	/* the grace for readers that took its records, then a check */
	grace = uet_read_file(UE_GRACE);
	ASSERT_NE(NULL, grace);
	ASSERT_EQ(0, uet_write_file(UE_GRACE, "1", O_TRUNC));
	EXPECT_TRUE(uet_wait_absent(path, 300)) TH_LOG("%s still there", path);
	EXPECT_EQ(0, uet_write_file(UE_GRACE, grace, O_TRUNC));
	free(grace);
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtr max=2 events=1\n"));
}

/*
 * At kernel.user_events_max, a registration first removes the retired
 * events of every group that no buffer holds records of, the grace or not
 */
TEST_F(grp, retired_of_every_group_at_max)
{
	char path[2][512], *grace;
	int id, i;

	/* the kernel's own check must not remove them first */
	grace = uet_read_file(UE_GRACE);
	ASSERT_NE(NULL, grace);
	ASSERT_EQ(0, uet_write_file(UE_GRACE, "86400", O_TRUNC));
	ASSERT_EQ(0, grp_cmd("gtr max=4"));
	ASSERT_EQ(0, grp_record("gtr", "gr1", "gr1 u32 x", 24));
	ASSERT_EQ(0, grp_record("gta", "gr2", "gr2 u32 x", 25));
	id = uet_event_id("user_events_gtr", "gr1");
	uet_retired_dir("", "user_events_gtr", "gr1", id, path[0], sizeof(path[0]));
	id = uet_event_id("user_events_gta", "gr2");
	uet_retired_dir("", "user_events_gta", "gr2", id, path[1], sizeof(path[1]));
	ASSERT_EQ(0, uet_dyn_cmd("-:user_events_gtr/gr1"));
	ASSERT_EQ(0, uet_dyn_cmd("-:user_events_gta/gr2"));
	ASSERT_EQ(0, uet_clear_trace());
	/* waiting for the grace */
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, access(path[i], F_OK)) TH_LOG("%s gone already", path[i]);
	/* a new event of the default group, refused at the max: both gone */
	EXPECT_EQ(0, uet_reclaim_retired());
	for (i = 0; i < 2; i++)
		EXPECT_EQ(-1, access(path[i], F_OK)) TH_LOG("%s still there", path[i]);
	EXPECT_EQ(0, uet_write_file(UE_GRACE, grace, O_TRUNC));
	free(grace);
}

/*
 * A group with only retired events can be removed: they stay, their
 * records decoded, until no buffer holds them
 */
TEST_F(grp, removed_group_keeps_retired)
{
	char path[512];
	int id;

	ASSERT_EQ(0, grp_cmd("gtr max=4"));
	ASSERT_EQ(0, grp_record("gtr", "gr2", "gr2 u32 x", 23));
	id = uet_event_id("user_events_gtr", "gr2");
	ASSERT_LT(0, id);
	ASSERT_EQ(0, uet_dyn_cmd("-:user_events_gtr/gr2"));
	ASSERT_EQ(0, grp_cmd("!gtr"));
	EXPECT_EQ(0, file_has(UE_GROUPS, "gtr"));
	EXPECT_EQ(1, uet_trace_count("gr2: x=23\n"));
	uet_retired_dir("", "user_events_gtr", "gr2", id, path, sizeof(path));
	EXPECT_EQ(0, access(path, F_OK));
	/* a new group of the name is a group of its own */
	ASSERT_EQ(0, grp_cmd("gtr max=1"));
	EXPECT_EQ(1, file_has(UE_GROUPS, "gtr max=1 events=0\n"));
	EXPECT_EQ(0, grp_register_closed("gtr", "gr2 u64 y"));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(0, uet_reclaim_retired());
	EXPECT_EQ(-1, access(path, F_OK));
}

/*
 * What cannot be done to a retired event, nor to one still in use, each
 * with its errno, leaving things as they were
 */
TEST_F(grp, retired_bad_input)
{
	char path[512], sub[600], name[300];
	struct user_status_reg r;
	int fd, id, pfd;

	EXPECT_EQ(-EINVAL, grp_cmd("retired"));
	/* in use: refused, nothing retired */
	fd = grp_open("gta");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "gbad u32 x", &r));
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gbad", 1));
	ASSERT_EQ(0, write_u32(fd, r.write_index, 31));
	id = uet_event_id("user_events_gta", "gbad");
	uet_retired_dir("", "user_events_gta", "gbad", id, path, sizeof(path));
	EXPECT_EQ(-EBUSY, uet_delete(self->a, "gbad"));
	ASSERT_EQ(0, uet_enable_in("user_events_gta", "gbad", 0));
	EXPECT_EQ(-EBUSY, uet_delete(self->a, "gbad"));
	EXPECT_EQ(-EBUSY, uet_dyn_cmd("-:user_events_gta/gbad"));
	EXPECT_TRUE(uet_event_exists("user_events_gta", "gbad"));
	EXPECT_EQ(-1, access(path, F_OK));
	close(fd);
	/* bad names and pointers */
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_EQ(-EINVAL, uet_delete(self->a, name));
	EXPECT_EQ(-EFAULT, uet_delete(self->a, (const char *)8));
	EXPECT_EQ(-ENOENT, uet_delete(self->a, ""));

	ASSERT_EQ(0, uet_delete(self->a, "gbad"));
	EXPECT_EQ(0, access(path, F_OK));
	/* the retired event is nobody's to delete, enable or open */
	EXPECT_EQ(-ENOENT, uet_delete(self->a, "gbad"));
	EXPECT_EQ(-ENOENT, uet_dyn_cmd("-:user_events_gta/gbad"));
	snprintf(sub, sizeof(sub), "-:user_events_gta_retired/gbad_%d", id);
	EXPECT_EQ(-ENOENT, uet_dyn_cmd(sub));
	snprintf(sub, sizeof(sub), "%s/enable", path);
	EXPECT_EQ(-1, access(sub, F_OK));
	snprintf(sub, sizeof(sub), "%s/filter", path);
	EXPECT_EQ(-1, access(sub, F_OK));
	snprintf(sub, sizeof(sub), "%s/trigger", path);
	EXPECT_EQ(-1, access(sub, F_OK));
	snprintf(sub, sizeof(sub), "%s/format", path);
	EXPECT_EQ(0, access(sub, F_OK));
	snprintf(sub, sizeof(sub), "user_events_gta_retired:gbad_%d", id);
	EXPECT_EQ(-EINVAL, uet_write_file(TRACEFS "set_event", sub, O_APPEND));
	/* as for any id no tracepoint has */
	pfd = uet_perf_open(id, -1, 0, 1);
	EXPECT_EQ(-1, pfd);
	EXPECT_EQ(EINVAL, errno);
	if (pfd >= 0)
		close(pfd);
	/* all as it was: the record decoded, the format there, the name free */
	EXPECT_EQ(1, uet_trace_count("gbad: x=31\n"));
	EXPECT_EQ(0, access(path, F_OK));
	EXPECT_EQ(0, grp_register_closed("gta", "gbad u32 x"));
	EXPECT_NE(id, uet_event_id("user_events_gta", "gbad"));
}

UE_HARNESS_MAIN
