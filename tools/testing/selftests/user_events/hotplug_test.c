// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug_test: user_events on machines whose possible CPUs are not all
 * online (SMT off, maxcpus=, a VM's hotplug slots), with CPUs going offline
 * and coming online while events are retired, enabled and written.
 *
 * A retired event (deleted while an ftrace buffer holds its records) goes
 * once no buffer holds them. A CPU offline at the retirement has no clock
 * to read there: it goes once that CPU's part of the buffer is empty or has
 * let go of what it held, whether the CPU comes online later or not. The
 * kernel is asked to remove what it can at once (uet_reclaim_retired()),
 * so each check is a state, not a wait.
 *
 * Runs in any VM with a CPU other than 0 that can go offline; make check
 * also runs it where a possible CPU was never online (vm-run
 * --offline-cpus), which the tests then use as well.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"

#define CPU_DIR "/sys/devices/system/cpu/"
#define MAX_CPUS 64

/* The last CPU of a "0-2,4" list, or -1 */
static int cpu_list_last(const char *path)
{
	char *text = uet_read_file(path), *p;
	int last = -1;

	if (!text)
		return -1;
	for (p = text; *p; p++)
		if ((*p >= '0' && *p <= '9') && (p == text || p[-1] < '0' || p[-1] > '9'))
			last = atoi(p);
	free(text);
	return last;
}

static int cpu_online(int cpu)
{
	char path[128], *text;
	int on;

	if (!cpu)
		return 1;
	snprintf(path, sizeof(path), CPU_DIR "cpu%d/online", cpu);
	text = uet_read_file(path);
	on = text ? atoi(text) : -1;
	free(text);
	return on;
}

/* Take @cpu offline or bring it online; 0 once it is so, else -errno */
static int cpu_set(int cpu, int on)
{
	char path[128];
	int ret = 0;

	snprintf(path, sizeof(path), CPU_DIR "cpu%d/online", cpu);
	/* the kernel may be busy with another CPU's hotplug: EBUSY, try again */
	ue_wait_for(UE_WAIT_MS, cpu_online(cpu) == on ||
		    ((ret = uet_write_file(path, on ? "1" : "0", O_TRUNC)) != -EBUSY &&
		     ret != -EAGAIN),
		    "cpu%d online=%d", cpu, on);
	return cpu_online(cpu) == on ? 0 : ret ? ret : -EIO;
}

/* Run the calling thread on @cpu alone, or (-1) on any */
static int pin(int cpu)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	else
		for (i = 0; i < MAX_CPUS; i++)
			CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Consume what the part of the buffer of @cpu holds, through its
 * trace_pipe: how many of its lines contain @needle, or -errno
 */
static int drain_cpu(int cpu, const char *needle)
{
	char path[128], *text, *p;
	int fd, n = 0;

	snprintf(path, sizeof(path), TRACEFS "per_cpu/cpu%d/trace_pipe", cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	text = uet_read_fd(fd);
	close(fd);
	for (p = text; p && (p = strstr(p, needle)); p++)
		n++;
	free(text);
	return n;
}

/* Entries of @cpu's part of the buffer, from per_cpu/cpuN/stats */
static long cpu_entries(int cpu)
{
	char path[128], *text, *p;
	long n = -1;

	snprintf(path, sizeof(path), TRACEFS "per_cpu/cpu%d/stats", cpu);
	text = uet_read_file(path);
	p = text ? strstr(text, "entries: ") : NULL;
	if (p)
		n = atol(p + 9);
	free(text);
	return n;
}

FIXTURE(hotplug) {
	int nr;			/* possible CPUs */
	int was_on[MAX_CPUS];	/* online at the start */
	int cpu;		/* the CPU the tests take offline and online */
	int never;		/* a possible CPU offline at the start, or -1 */
	int fd;
	char *grace;
};

FIXTURE_SETUP(hotplug)
{
	int i;

	self->fd = -1;
	if (uet_skip(_metadata, 0))
		return;
	self->nr = cpu_list_last(CPU_DIR "possible") + 1;
	ASSERT_LE(2, self->nr) TH_LOG("one possible CPU: no CPU can go offline");
	ASSERT_GE(MAX_CPUS, self->nr);
	self->never = -1;
	for (i = 0; i < self->nr; i++) {
		self->was_on[i] = cpu_online(i);
		ASSERT_LE(0, self->was_on[i]) TH_LOG("cpu%d has no online file", i);
		if (!self->was_on[i])
			self->never = i;
	}
	/* an online CPU that can go: the last one but 0 */
	for (self->cpu = self->nr - 1; self->cpu > 0; self->cpu--)
		if (self->was_on[self->cpu])
			break;
	ASSERT_LT(0, self->cpu) TH_LOG("no CPU but 0 is online");
	self->grace = uet_read_file("/proc/sys/kernel/user_events_retired_grace");
	ASSERT_NE(NULL, self->grace);
	self->fd = open(UE_DATA, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, uet_clear_trace());
}

FIXTURE_TEARDOWN(hotplug)
{
	int i;

	if (self->fd < 0)
		return;
	pin(-1);
	close(self->fd);
	uet_delete_named("hp_bit");
	uet_delete_named("hp_bat");
	for (i = 1; i < self->nr; i++)
		EXPECT_EQ(0, cpu_set(i, self->was_on[i])) TH_LOG("cpu%d not restored", i);
	uet_write_file("/proc/sys/kernel/user_events_retired_grace", self->grace, O_TRUNC);
	free(self->grace);
	uet_clear_trace();
}

/* Register @name (u32 v) on @fd, enabled, and write @n records on @cpu */
static int record_on(int fd, const char *name, int cpu, __u32 first, int n)
{
	struct user_status_reg reg;
	char desc[64];
	struct { __u32 idx, v; } rec;
	int i, ret;

	snprintf(desc, sizeof(desc), "%s u32 v", name);
	ret = uet_register(fd, desc, &reg);
	if (!ret)
		ret = uet_enable("", name, 1);
	if (!ret)
		ret = pin(cpu) ? -errno : 0;
	rec.idx = reg.write_index;
	for (i = 0; !ret && i < n; i++) {
		rec.v = first + i;
		if (write(fd, &rec, sizeof(rec)) != sizeof(rec))
			ret = -errno;
	}
	pin(-1);
	if (!ret)
		ret = uet_enable("", name, 0);
	return ret;
}

/*
 * Delete @name through a new fd (the test's fd holds it: closed first) and
 * say where its retired format is: the event is retired, not gone
 */
static int retire(int *fd, const char *name, char *dir, size_t size)
{
	int id = uet_event_id("user_events", name), ret;

	close(*fd);
	*fd = open(UE_DATA, O_RDWR);
	if (*fd < 0 || id < 0)
		return -EIO;
	ret = uet_delete(*fd, name);
	uet_retired_dir("", "user_events", name, id, dir, size);
	if (!ret && access(dir, F_OK))
		ret = -ENOENT;
	return ret;
}

/* Is the retired event of @dir gone, once the kernel was asked to remove what it can? */
static bool retired_gone(const char *dir)
{
	return !uet_reclaim_retired() && access(dir, F_OK) && errno == ENOENT;
}

/*
 * A possible CPU offline at the retirement, its part of the buffer empty:
 * the event goes once the rest of the buffer is cleared, as with every
 * CPU online (a CPU offline had no clock to read, and once kept the event
 * for good). Then the CPU comes online, records there, and the same holds
 * for the next event.
 */
TEST_F(hotplug, retired_with_a_cpu_offline)
{
	char dir[256];

	ASSERT_EQ(0, cpu_set(self->cpu, 0));
	ASSERT_EQ(0, record_on(self->fd, "hp_off", 0, 1, 3));
	ASSERT_EQ(0, retire(&self->fd, "hp_off", dir, sizeof(dir)));
	EXPECT_EQ(3, uet_trace_count("hp_off: v="));
	/* the buffer holds them: the event stays, decoded */
	EXPECT_FALSE(retired_gone(dir));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_TRUE(retired_gone(dir));

	/* online again: records there, on CPU 0, retired, cleared: gone */
	ASSERT_EQ(0, cpu_set(self->cpu, 1));
	ASSERT_EQ(0, record_on(self->fd, "hp_back", self->cpu, 1, 2));
	ASSERT_EQ(0, record_on(self->fd, "hp_back", 0, 3, 1));
	ASSERT_EQ(0, retire(&self->fd, "hp_back", dir, sizeof(dir)));
	EXPECT_EQ(3, uet_trace_count("hp_back: v="));
	EXPECT_FALSE(retired_gone(dir));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_TRUE(retired_gone(dir));
}

/*
 * The same through the worker and the grace, as a user sees it: with the
 * grace at 0, a retired event whose buffer was cleared goes within seconds
 * while a possible CPU is offline.
 */
TEST_F(hotplug, retired_goes_by_itself)
{
	char dir[256];

	ASSERT_EQ(0, cpu_set(self->cpu, 0));
	ASSERT_EQ(0, record_on(self->fd, "hp_self", 0, 1, 3));
	ASSERT_EQ(0, retire(&self->fd, "hp_self", dir, sizeof(dir)));
	ASSERT_EQ(0, uet_write_file("/proc/sys/kernel/user_events_retired_grace",
				    "0", O_TRUNC));
	ASSERT_EQ(0, uet_clear_trace());
	/* the worker checks every second */
	EXPECT_TRUE(uet_wait_absent(dir, 20));
}

/*
 * Records on a CPU that goes offline before the deletion: offline at the
 * retirement, its part of the buffer holds them, and a clear of the buffer
 * leaves them (the core clears online CPUs only; trace no longer shows
 * them, but trace_pipe gives them): the event stays. They are read from
 * that CPU's trace_pipe, decoded with the retired event's fields; then it
 * goes.
 */
TEST_F(hotplug, retired_records_on_an_offline_cpu)
{
	char dir[256];

	ASSERT_EQ(0, record_on(self->fd, "hp_gone", self->cpu, 1, 2));
	ASSERT_EQ(2, cpu_entries(self->cpu));
	ASSERT_EQ(0, cpu_set(self->cpu, 0));
	ASSERT_EQ(0, retire(&self->fd, "hp_gone", dir, sizeof(dir)));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(2, cpu_entries(self->cpu));
	EXPECT_FALSE(retired_gone(dir));
	EXPECT_EQ(2, drain_cpu(self->cpu, "hp_gone: v="));
	EXPECT_EQ(0, cpu_entries(self->cpu));
	EXPECT_TRUE(retired_gone(dir));
}

/*
 * Records on a CPU that goes offline after the retirement, and comes back:
 * the event stays while that CPU's part of the buffer holds them (a clear
 * leaves an offline CPU's), and goes once a clear with it online empties it.
 */
TEST_F(hotplug, retired_then_cpu_offline_and_back)
{
	char dir[256];

	ASSERT_EQ(0, record_on(self->fd, "hp_late", self->cpu, 1, 2));
	ASSERT_EQ(0, retire(&self->fd, "hp_late", dir, sizeof(dir)));
	ASSERT_EQ(0, cpu_set(self->cpu, 0));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(2, cpu_entries(self->cpu));
	EXPECT_FALSE(retired_gone(dir));
	ASSERT_EQ(0, cpu_set(self->cpu, 1));
	EXPECT_FALSE(retired_gone(dir));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_TRUE(retired_gone(dir));
}

/*
 * A possible CPU that was never online (make check's VM with
 * --offline-cpus): retirements go while it is offline, it comes online
 * and records, and goes offline with the record unread, for the first
 * time: that event stays until the record is read.
 */
TEST_F(hotplug, never_online_cpu)
{
	char dir[256];

	if (self->never < 0)
		SKIP(return, "every possible CPU is online: no CPU was never online");
	ASSERT_EQ(0, record_on(self->fd, "hp_nv0", 0, 1, 1));
	ASSERT_EQ(0, retire(&self->fd, "hp_nv0", dir, sizeof(dir)));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_TRUE(retired_gone(dir));

	ASSERT_EQ(0, cpu_set(self->never, 1));
	ASSERT_EQ(0, record_on(self->fd, "hp_nv1", self->never, 7, 1));
	EXPECT_EQ(1, cpu_entries(self->never));
	ASSERT_EQ(0, cpu_set(self->never, 0));
	ASSERT_EQ(0, retire(&self->fd, "hp_nv1", dir, sizeof(dir)));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_EQ(1, cpu_entries(self->never));
	EXPECT_FALSE(retired_gone(dir));
	EXPECT_EQ(1, drain_cpu(self->never, "hp_nv1: v=7"));
	EXPECT_TRUE(retired_gone(dir));
}

/* The trace clock in use, from trace_clock ("local [global] counter"), in @buf */
static int trace_clock_now(char *buf, size_t size)
{
	char *text = uet_read_file(TRACEFS "trace_clock"), *a, *b;
	int ret = -EIO;

	a = text ? strchr(text, '[') : NULL;
	b = a ? strchr(a, ']') : NULL;
	if (b && (size_t)(b - a) <= size) {
		memcpy(buf, a + 1, b - a - 1);
		buf[b - a - 1] = 0;
		ret = 0;
	}
	free(text);
	return ret;
}

/*
 * A CPU offline while the trace clock changes keeps its records of the old
 * clock (the core resets the online CPUs only), and records written there
 * later, under the new clock, come behind them: the oldest record's time
 * says nothing of the others. An event recorded there, then retired, stays
 * until its records are read, decoded.
 */
TEST_F(hotplug, retired_behind_records_of_another_clock)
{
	char clock[32], dir[256], marker[64];
	int fd;

	ASSERT_EQ(0, trace_clock_now(clock, sizeof(clock)));
	ASSERT_EQ(0, pin(self->cpu));
	fd = open(TRACEFS "trace_marker", O_WRONLY);
	ASSERT_LE(0, fd);
	snprintf(marker, sizeof(marker), "hp-clock-%s", clock);
	EXPECT_EQ((ssize_t)strlen(marker), write(fd, marker, strlen(marker)));
	close(fd);
	pin(-1);
	ASSERT_EQ(0, cpu_set(self->cpu, 0));
	ASSERT_EQ(0, uet_write_file(TRACEFS "trace_clock",
				    strcmp(clock, "counter") ? "counter" : "local",
				    O_TRUNC));
	ASSERT_EQ(0, cpu_set(self->cpu, 1));
	ASSERT_EQ(0, record_on(self->fd, "hp_clk", self->cpu, 1, 3));
	ASSERT_EQ(0, retire(&self->fd, "hp_clk", dir, sizeof(dir)));
	EXPECT_FALSE(retired_gone(dir));
	EXPECT_EQ(3, drain_cpu(self->cpu, "hp_clk: v="));
	EXPECT_TRUE(retired_gone(dir));
	EXPECT_EQ(0, uet_write_file(TRACEFS "trace_clock", clock, O_TRUNC));
}

/*
 * The snapshot buffer swaps with the buffer: a retired event stays while a
 * snapshot is allocated, and while the snapshot buffer holds any record
 * (freeing it clears the parts of the online CPUs only), for the next
 * snapshot swaps them back, still decoded. Records on a CPU offline all
 * along show it; once every part is cleared, the event goes.
 */
TEST_F(hotplug, retired_kept_by_snapshot)
{
	const char *snap = TRACEFS "snapshot";
	char dir[256];

	if (access(snap, F_OK))
		SKIP(return, "no snapshot file: a kernel without CONFIG_TRACER_SNAPSHOT");
	ASSERT_EQ(0, record_on(self->fd, "hp_snap", self->cpu, 1, 2));
	ASSERT_EQ(0, cpu_set(self->cpu, 0));
	/* allocated, and swapped with the buffer: the records are in it */
	ASSERT_EQ(0, uet_write_file(snap, "1", O_TRUNC));
	ASSERT_EQ(0, retire(&self->fd, "hp_snap", dir, sizeof(dir)));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_FALSE(retired_gone(dir));
	/* freed: the offline CPU's part keeps them */
	ASSERT_EQ(0, uet_write_file(snap, "0", O_TRUNC));
	EXPECT_FALSE(retired_gone(dir));
	/* and the next snapshot swaps them back into the buffer */
	ASSERT_EQ(0, uet_write_file(snap, "1", O_TRUNC));
	ASSERT_EQ(0, uet_write_file(snap, "0", O_TRUNC));
	EXPECT_FALSE(retired_gone(dir));
	EXPECT_EQ(2, drain_cpu(self->cpu, "hp_snap: v="));
	/* every part cleared, the offline CPU's too (online for it) */
	ASSERT_EQ(0, cpu_set(self->cpu, 1));
	ASSERT_EQ(0, uet_write_file(snap, "1", O_TRUNC));
	ASSERT_EQ(0, uet_write_file(snap, "0", O_TRUNC));
	ASSERT_EQ(0, uet_clear_trace());
	EXPECT_TRUE(retired_gone(dir));
}

/*
 * The enable bit follows consumers while a CPU is offline and after it
 * comes back, and records written on that CPU before and after reach the
 * buffer.
 */
TEST_F(hotplug, enable_bit_across_hotplug)
{
	struct { __u32 idx, v; } rec;
	__u32 word = 0;
	__u32 idx = 0;
	int i;

	ASSERT_EQ(0, uet_register_bits(self->fd, "hp_bit u32 v", &word, 4, 0, 0, &idx));
	ASSERT_EQ(0, cpu_set(self->cpu, 0));
	ASSERT_EQ(0, uet_enable("", "hp_bit", 1));
	EXPECT_EQ(1u, word);
	ASSERT_EQ(0, cpu_set(self->cpu, 1));
	ASSERT_EQ(0, pin(self->cpu));
	rec.idx = idx;
	for (i = 0; i < 3; i++) {
		rec.v = 10 + i;
		EXPECT_EQ(sizeof(rec), write(self->fd, &rec, sizeof(rec)));
	}
	pin(-1);
	ASSERT_EQ(0, cpu_set(self->cpu, 0));
	ASSERT_EQ(0, uet_enable("", "hp_bit", 0));
	EXPECT_EQ(0u, word);
	EXPECT_EQ(3, uet_trace_count("hp_bit: v=1"));
	rec.v = 99;
	EXPECT_EQ(-1, write(self->fd, &rec, sizeof(rec)));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(0, uet_unregister_bits(self->fd, &word, 0));
}

/* A writer of batches on the CPU the test takes offline and brings back */
struct batch_writer {
	int bfd;
	__u32 idx;
	int cpu;
	int stop;	/* set by the test: __atomic */
	int batches;	/* written so far: __atomic */
	int failed;
};

#define BW_RECS		16
#define BW_MAX		4096	/* batches: what the buffer keeps whole */

static void *batch_writer(void *arg)
{
	struct batch_writer *w = arg;
	unsigned char buf[BW_RECS * 12];
	__u32 size = 8, v;
	int i;

	pin(w->cpu);
	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED) && w->batches < BW_MAX) {
		for (i = 0; i < BW_RECS; i++) {
			v = w->batches * BW_RECS + i;
			memcpy(buf + i * 12, &size, 4);
			memcpy(buf + i * 12 + 4, &w->idx, 4);
			memcpy(buf + i * 12 + 8, &v, 4);
		}
		if (write(w->bfd, buf, sizeof(buf)) != sizeof(buf))
			w->failed++;
		__atomic_store_n(&w->batches, w->batches + 1, __ATOMIC_RELAXED);
		/* a pace the buffer keeps up with, whatever the machine */
		usleep(1000);
	}
	return NULL;
}

static int written(struct batch_writer *w)
{
	return __atomic_load_n(&w->batches, __ATOMIC_RELAXED);
}

/* How many times each "hp_bat: v=N" is in trace, N below @n, in @seen */
static int count_values(int *seen, int n)
{
	char *trace = uet_read_file(TRACEFS "trace"), *p;
	int total = 0, v;

	if (!trace)
		return -1;
	for (p = trace; (p = strstr(p, "hp_bat: v=")); p++) {
		v = atoi(p + 10);
		if (v >= 0 && v < n)
			seen[v]++;
		total++;
	}
	free(trace);
	return total;
}

/*
 * Batches written on a CPU while it goes offline (the writer moves to
 * another) and comes back: every batch is taken whole, every record
 * recorded once.
 */
TEST_F(hotplug, batches_across_hotplug)
{
	struct batch_writer w = { .cpu = self->cpu };
	char *size_kb = uet_read_file(TRACEFS "buffer_size_kb");
	struct user_status_reg reg;
	int i, bad = 0, start, n, *seen;
	pthread_t t;

	ASSERT_NE(NULL, size_kb);
	ASSERT_EQ(0, uet_register(self->fd, "hp_bat u32 v", &reg));
	w.idx = reg.write_index;
	w.bfd = ioctl(self->fd, DIAG_IOCSBATCH, 0);
	ASSERT_LE(0, w.bfd);
	/* BW_MAX batches on one CPU, with room to spare */
	ASSERT_EQ(0, uet_write_file(TRACEFS "buffer_size_kb", "4096", O_TRUNC));
	ASSERT_EQ(0, uet_enable("", "hp_bat", 1));
	ASSERT_EQ(0, pthread_create(&t, NULL, batch_writer, &w));
	for (i = 0; i < 2; i++) {
		start = written(&w);
		EXPECT_TRUE(ue_wait_for(UE_WAIT_MS, written(&w) > start + 2,
					"batches before hotplug %d", i));
		EXPECT_EQ(0, cpu_set(self->cpu, 0));
		start = written(&w);
		EXPECT_TRUE(ue_wait_for(UE_WAIT_MS, written(&w) > start + 2,
					"batches while offline %d", i));
		EXPECT_EQ(0, cpu_set(self->cpu, 1));
	}
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	ASSERT_EQ(0, uet_enable("", "hp_bat", 0));
	EXPECT_EQ(0, w.failed);
	EXPECT_GT(BW_MAX, w.batches) TH_LOG("the writer ran out before the hotplugs ended");
	n = w.batches * BW_RECS;
	seen = calloc(n, sizeof(*seen));
	ASSERT_NE(NULL, seen);
	EXPECT_EQ(n, count_values(seen, n));
	for (i = 0; i < n; i++)
		if (seen[i] != 1 && bad++ < 5)
			TH_LOG("record %d: %d times", i, seen[i]);
	EXPECT_EQ(0, bad);
	free(seen);
	close(w.bfd);
	uet_write_file(TRACEFS "buffer_size_kb", size_kb, O_TRUNC);
	free(size_kb);
}

UE_HARNESS_MAIN
