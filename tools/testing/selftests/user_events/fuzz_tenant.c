// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer of a tenant group's own trace buffer: a group made with a
 * random buffer_kb, its events written by one process while others read
 * its trace_pipe and trace_pipe_raw, and random operations on its files
 * (sizes within and past the bound, enables, filters good, mutated and
 * naming kernel functions, triggers, tracing_on, clearing, clocks); then
 * the group removed while the readers still block in their reads, which
 * must end, also one that spliced pages into a pipe it keeps until after;
 * files kept by O_PATH fds cannot be opened again (ENOENT). What is
 * refused must be refused with its errno: a size past the bound EFBIG and
 * unchanged, any trigger and a filter with .function EPERM. CPUs go
 * offline and online meanwhile (ue_hotplug.h).
 */

#include "fuzz_test.h"

/* The children of a scenario, killed by tenant_cleanup() after a failure */
static pid_t kids[4];
static char tgroup[32];
static char tnames[4][256];
static int nr_tnames;

/* A file of the scenario's group */
static char *tpath(const char *file)
{
	static char path[2][1400];
	static int i;

	i = !i;
	snprintf(path[i], sizeof(path[i]), TRACEFS "user_groups/%s/%s", tgroup, file);
	return path[i];
}

/* The directory of one of its events in its buffer, and a file in it */
static char *tevent(int n, const char *file)
{
	char f[1200];

	snprintf(f, sizeof(f), "events/user_events_%s/%s/%s", tgroup, tnames[n], file);
	return tpath(f);
}

static long read_num(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* Kill what is left of a scenario and remove its group */
void tenant_cleanup(void)
{
	char cmd[1200];
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(kids); i++) {
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
		kids[i] = 0;
	}
	if (!tgroup[0])
		return;
	uet_write_file(tpath("events/enable"), "0", O_TRUNC);
	for (i = 0; i < nr_tnames; i++) {
		snprintf(cmd, sizeof(cmd), "-:user_events_%s/%s", tgroup, tnames[i]);
		uet_write_file(UE_DYN, cmd, O_APPEND);
	}
	nr_tnames = 0;
	snprintf(cmd, sizeof(cmd), "!%s", tgroup);
	if (uet_write_file(TRACEFS "user_events_groups", cmd, O_APPEND))
		ksft_print_msg("could not remove group %s at the end\n", tgroup);
	tgroup[0] = '\0';
}

/*
 * A reader of @file until the end of file: exits 0 then, 1 on an error, 3
 * if the file was gone before it opened it. Without @gfd, whose
 * registrations would keep the group's events.
 */
static pid_t start_reader(const char *file, int gfd)
{
	pid_t pid = fork();
	char buf[8192];
	ssize_t n;
	int fd;

	if (pid)
		return pid;
	close(gfd);
	fd = open(file, O_RDONLY);
	/* the group was removed before it could start: nothing read */
	if (fd < 0 && errno == ENOENT)
		_exit(3);
	if (fd < 0)
		_exit(2);
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
	_exit(n < 0 ? 1 : 0);
}

/*
 * A reader that splices pages of @file into a pipe it keeps, then reads
 * until the end of file and exits: the pipe lets go of its pages after
 * the group is removed. Exits 0 then, 1 on an error, 3 if it held no page.
 */
static pid_t start_splicer(const char *file, int gfd)
{
	pid_t pid = fork();
	char buf[8192];
	int fd, p[2], queued = 0;
	ssize_t n;

	if (pid)
		return pid;
	close(gfd);
	fd = open(file, O_RDONLY);
	/* a machine with one CPU has no cpu1, or the group went first */
	if (fd < 0 && errno == ENOENT)
		_exit(3);
	if (fd < 0 || pipe(p))
		_exit(2);
	for (;;) {
		n = splice(fd, NULL, p[1], NULL, 1 << 20, SPLICE_F_NONBLOCK);
		/* the end before a page, or a CPU never online: nothing held */
		if (n == 0 || (n < 0 && errno == ENODEV))
			_exit(3);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			_exit(1);
		if (n < 0 && (ioctl(p[0], FIONREAD, &queued) || queued))
			break;
		if (n < 0)
			usleep(1000);
	}
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
	_exit(n < 0 ? 1 : 0);
}

/* A writer of records of every event, until killed */
static pid_t start_writer(int fd, int nr)
{
	pid_t pid = fork();
	unsigned char buf[8] = { 0 };
	cpu_set_t cpus;
	int idx = 0;

	if (pid)
		return pid;
	/* on the splicer's CPU when it is online: pages for it to hold */
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	for (;;) {
		memcpy(buf, &idx, sizeof(idx));
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) && errno != EFAULT)
			_exit(1);
		idx = (idx + 1) % nr;
	}
}

/* A write to a file of the group: what the kernel said, as -errno or 0 */
static int twrite(const char *file, const char *val, int flags)
{
	return uet_write_file(file, val, flags);
}

static void want(const char *what, int got, int wanted)
{
	if (got != wanted)
		fail("tenant", "%s: %s, want %s", what, err_name(got), err_name(wanted));
}

/* One random operation on the group's files */
static void tenant_op(int kb)
{
	static const char * const clocks[] = { "local", "global", "mono", "counter" };
	static const char * const triggers[] = {
		"stacktrace", "snapshot", "traceoff", "hist:keys=common_pid",
		"enable_event:sched:sched_switch",
	};
	char val[256], old[64];
	int n = nr_tnames ? rnd_below(nr_tnames) : 0, size;

	switch (rnd_below(9)) {
	case 0:		/* within the bound, or past it */
		size = rnd_range(1, kb + 8);
		snprintf(val, sizeof(val), "%d", size);
		snprintf(old, sizeof(old), "%ld", read_num(tpath("buffer_size_kb")));
		if (!strcmp(old, "-1"))
			fail("tenant", "cannot read buffer_size_kb: %s", strerror(errno));
		set_ctx("tenant buffer_size_kb", val);
		if (size > kb) {
			want("a size past the bound", twrite(tpath("buffer_size_kb"), val,
							     O_TRUNC), -EFBIG);
			snprintf(val, sizeof(val), "%ld", read_num(tpath("buffer_size_kb")));
			if (strcmp(val, old))
				fail("tenant", "size %s after a refused resize, was %s", val, old);
		} else {
			want("a size within the bound", twrite(tpath("buffer_size_kb"), val,
							       O_TRUNC), 0);
		}
		break;
	case 1:
		if (nr_tnames)
			twrite(tevent(n, "enable"), chance(70) ? "1" : "0", O_TRUNC);
		break;
	case 2:
		twrite(tpath("events/enable"), chance(70) ? "1" : "0", O_TRUNC);
		break;
	case 3:		/* a filter: good, mutated, or naming a kernel function */
		if (!nr_tnames)
			break;
		if (chance(30)) {
			char *before = uet_read_file(tevent(n, "filter")), *after;

			set_ctx("tenant filter with .function", "");
			want("a filter naming a kernel function",
			     twrite(tevent(n, "filter"), "common_pid.function == schedule",
				    O_TRUNC), -EPERM);
			after = uet_read_file(tevent(n, "filter"));
			if (!before || !after || strcmp(before, after))
				fail("tenant", "a refused filter changed '%s' into '%s'",
				     before ?: "?", after ?: "?");
			free(before);
			free(after);
		} else {
			snprintf(val, sizeof(val), "common_pid %s %d", chance(50) ? "!=" : ">",
				 rnd_range(0, 100000));
			if (chance(40))
				mutate(val, sizeof(val));
			set_ctx("tenant filter", val);
			twrite(tevent(n, "filter"), val, O_TRUNC);
		}
		break;
	case 4:		/* any trigger */
		if (!nr_tnames)
			break;
		set_ctx("tenant trigger", "");
		want("a trigger", twrite(tevent(n, "trigger"),
					 triggers[rnd_below(ARRAY_SIZE(triggers))], O_TRUNC),
		     -EPERM);
		break;
	case 5:
		twrite(tpath("tracing_on"), chance(80) ? "1" : "0", O_TRUNC);
		break;
	case 6:		/* clear it, or read it whole */
		if (chance(50)) {
			twrite(tpath("trace"), "", O_TRUNC);
		} else {
			int fd = open(tpath("trace"), O_RDONLY);
			char buf[4096];

			while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
				;
			if (fd >= 0)
				close(fd);
		}
		break;
	case 7:
		twrite(tpath("trace_clock"), clocks[rnd_below(ARRAY_SIZE(clocks))], O_TRUNC);
		break;
	case 8:		/* another system's events are not there to enable */
		set_ctx("tenant set_event of another system", "");
		want("set_event of another system",
		     twrite(tpath("set_event"), "sched:sched_switch", O_APPEND), -EINVAL);
		break;
	}
}

/*
 * A group with a buffer under load, then removed under its blocked
 * readers: they must end, and the group and its events be gone
 */
void tenant_scenario(void)
{
	int kb = rnd_range(1, 64), n = rnd_range(1, 4), ops = rnd_range(5, 40);
	static struct event_desc d;
	struct user_status_reg reg;
	char cmd[1200], desc[TEXT_MAX];
	int gfd, i, st, ret, tracked = 0, opath[2];

	stats.tenant_scenarios++;
	snprintf(tgroup, sizeof(tgroup), "fzt%llu", cur_iter % 1000000);
	snprintf(cmd, sizeof(cmd), "%s max=8 buffer_kb=%d", tgroup, kb);
	set_ctx("user_events_groups", cmd);
	ret = uet_write_file(TRACEFS "user_events_groups", cmd, O_APPEND);
	if (ret) {
		tgroup[0] = '\0';
		fail("tenant", "'%s': %s", cmd, err_name(ret));
	}
	gfd = open(tpath("user_events_data"), O_RDWR);
	if (gfd < 0)
		fail("tenant", "open the group's user_events_data: %s", strerror(errno));
	if (nr_iter_fds < (int)ARRAY_SIZE(iter_fds)) {
		iter_fds[nr_iter_fds++] = gfd;
		tracked = 1;
	}
	for (i = 0; i < n; i++) {
		do
			gen_desc(desc, sizeof(desc), NULL);
		while (oracle(desc, &d) != V_OK || d.min_size > 4 ||
		       strlen(d.canon + DYN_SKIP) > DESC_LIMIT);
		set_ctx("DIAG_IOCSREG in a group with a buffer", desc);
		ret = uet_register(gfd, desc, &reg);
		if (ret == -EADDRINUSE)
			continue;	/* a name it has, with other fields */
		if (ret)
			fail("tenant", "registering a valid event: %s", err_name(ret));
		if ((int)reg.write_index != nr_tnames)
			continue;	/* a name it has, the same fields */
		snprintf(tnames[nr_tnames++], sizeof(tnames[0]), "%s", d.name);
	}
	for (i = 0; i < nr_tnames; i++)
		twrite(tevent(i, "enable"), "1", O_TRUNC);

	kids[0] = start_reader(tpath("trace_pipe"), gfd);
	kids[1] = start_reader(tpath("per_cpu/cpu0/trace_pipe_raw"), gfd);
	kids[3] = start_splicer(tpath("per_cpu/cpu1/trace_pipe_raw"), gfd);
	kids[2] = start_writer(gfd, nr_tnames);
	for (i = 0; i < ops; i++) {
		tenant_op(kb);
		stats.tenant_ops++;
	}

	/* the writer goes (its fd kept the group), the readers stay */
	kill(kids[2], SIGKILL);
	waitpid(kids[2], &st, 0);
	kids[2] = 0;
	if (!WIFSIGNALED(st))
		fail("tenant", "the writer failed: status %#x", st);
	close_data(gfd);
	nr_iter_fds -= tracked;
	set_ctx("removing a group with a buffer", tgroup);
	want("turning its events off", twrite(tpath("events/enable"), "0", O_TRUNC), 0);
	for (i = 0; i < nr_tnames; i++) {
		snprintf(cmd, sizeof(cmd), "-:user_events_%s/%s", tgroup, tnames[i]);
		want("deleting its event", uet_write_file(UE_DYN, cmd, O_APPEND), 0);
	}
	nr_tnames = 0;
	/* what an O_PATH fd of a file keeps cannot be opened again after */
	opath[0] = open(tpath("trace"), O_PATH);
	opath[1] = open(tpath("events/enable"), O_PATH);
	snprintf(cmd, sizeof(cmd), "!%s", tgroup);
	want("removing it with readers blocked",
	     uet_write_file(TRACEFS "user_events_groups", cmd, O_APPEND), 0);
	tgroup[0] = '\0';
	for (i = 0; i < 2; i++) {
		char proc[64];
		int fd;

		if (opath[i] < 0)
			fail("tenant", "an O_PATH fd of a file of the group: %s", strerror(errno));
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", opath[i]);
		fd = open(proc, O_RDONLY);
		ret = fd < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
		close(opath[i]);
		want("opening a removed group's file again", ret, -ENOENT);
	}
	for (i = 0; i < (int)ARRAY_SIZE(kids); i++) {
		pid_t pid = kids[i];

		if (i == 2)
			continue;	/* the writer, gone */
		if (!ue_wait_for(10000, waitpid(pid, &st, WNOHANG) == pid,
				 "the reader of the removed group's buffer to end"))
			fail("tenant", "a reader did not end when its group was removed");
		kids[i] = 0;
		/* it never read, or the splicer held no page: the end came first */
		if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
			continue;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail("tenant", "a reader ended with status %#x, want end of file", st);
		if (i == 3)
			stats.tenant_spliced++;
	}
	stats.tenant_removed++;
}
