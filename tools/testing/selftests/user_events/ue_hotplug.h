/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ue_hotplug.h: CPU hotplug behind a fuzzer's back (fuzz_test,
 * batch_fuzz_test).
 *
 * ue_hotplug_start(seed) starts a thread that, until ue_hotplug_stop(), at
 * random times takes a random non-boot CPU offline, or brings one that is
 * offline online again, through /sys/devices/system/cpu/cpuN/online: the
 * CPUs online at the start and the possible ones that never were (vm-run
 * --offline-cpus) alike. What it chooses (which CPU, how long it waits)
 * comes from a random stream of its own seeded from the run's seed: a run
 * makes the same choices again, though not at the same moments of the
 * fuzzing. EBUSY or EAGAIN from the online file is counted and the CPU
 * chosen again later; any other error ends the thread and fails the run.
 *
 * ue_hotplug_stop() puts every CPU back as it was at the start (the online
 * ones online, the offline ones offline), prints what was done and whether
 * every CPU came back, and returns the run's failures: 0 or 1; a run that
 * exits before it calls it at exit. ue_hotplug_counts has the counts
 * meanwhile.
 *
 * A machine without a CPU to take offline, or a user who may not, runs
 * without hotplug (said at the start).
 */
#ifndef UE_HOTPLUG_H
#define UE_HOTPLUG_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "ue_util.h"

#define UE_HP_CPUS	"/sys/devices/system/cpu/"
#define UE_HP_MAX	256	/* CPUs it handles: 1..UE_HP_MAX-1 */
/* The pause before each choice: 0 to this many ms, drawn from the stream */
#define UE_HP_PAUSE_MS	300

/* What the thread did (__atomic: read while it runs) */
struct ue_hotplug_counts {
	unsigned long long offline;	/* CPUs taken offline */
	unsigned long long online;	/* CPUs brought online */
	unsigned long long first_up;	/* CPUs offline at the start brought up */
	unsigned long long busy;	/* EBUSY or EAGAIN: chosen again later */
	int cpus;			/* the CPUs it takes offline and online */
};

static struct ue_hotplug_counts ue_hotplug_counts;

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int running, stopping, atexit_set;
	unsigned long long rng;
	int nr, cpu[UE_HP_MAX];
	char at_start[UE_HP_MAX], now[UE_HP_MAX], been_up[UE_HP_MAX];
	char online_at_start[256];
	int failed;		/* __atomic: an error the run fails for */
	char why[256];
} ue_hp = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void ue_hp_atexit(void);

/* splitmix64, a stream of its own */
static unsigned long long ue_hp_rnd(void)
{
	unsigned long long z = (ue_hp.rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A sysfs file's first line, without its '\n', in @buf; -errno */
static int ue_hp_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		ret = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

/* CPU @cpu online (@on) or offline: 0 or -errno */
static int ue_hp_set(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), UE_HP_CPUS "cpu%d/online", cpu);
	return uet_write_file(path, on ? "1" : "0", 0);
}

/* CPU @i online (@on) or offline, in *@ret; false while it is busy */
static bool ue_hp_try(int i, int on, int *ret)
{
	*ret = ue_hp_set(ue_hp.cpu[i], on);
	return *ret != -EBUSY && *ret != -EAGAIN;
}

/* The thread's choice @i done: counted and remembered */
static void ue_hp_done(int i, int on)
{
	ue_hp.now[i] = on;
	if (!on) {
		__atomic_add_fetch(&ue_hotplug_counts.offline, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&ue_hotplug_counts.online, 1, __ATOMIC_RELAXED);
	if (!ue_hp.at_start[i] && !ue_hp.been_up[i])
		__atomic_add_fetch(&ue_hotplug_counts.first_up, 1, __ATOMIC_RELAXED);
	ue_hp.been_up[i] = 1;
}

static void ue_hp_fail(int i, int on, int err)
{
	snprintf(ue_hp.why, sizeof(ue_hp.why), "echo %d > " UE_HP_CPUS "cpu%d/online: %s",
		 on, ue_hp.cpu[i], strerror(-err));
	__atomic_store_n(&ue_hp.failed, 1, __ATOMIC_RELEASE);
	/* now, not only at the end: the run may not get there */
	dprintf(STDERR_FILENO, "# FAIL [cpu hotplug]: %s\n", ue_hp.why);
}

static void *ue_hp_thread(void *arg)
{
	struct timespec until;
	unsigned long long r;
	int i, on, ret, stop;

	(void)arg;
	for (;;) {
		/* both drawn whatever happens next: the choices replay */
		r = ue_hp_rnd();
		i = (r >> 32) % ue_hp.nr;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)((r & 0xffffffff) % (UE_HP_PAUSE_MS + 1)) * 1000000;
		until.tv_sec += until.tv_nsec / 1000000000;
		until.tv_nsec %= 1000000000;

		pthread_mutex_lock(&ue_hp.lock);
		while (!ue_hp.stopping &&
		       pthread_cond_timedwait(&ue_hp.cond, &ue_hp.lock, &until) != ETIMEDOUT)
			;
		stop = ue_hp.stopping;
		pthread_mutex_unlock(&ue_hp.lock);
		if (stop)
			break;

		on = !ue_hp.now[i];
		ret = ue_hp_set(ue_hp.cpu[i], on);
		if (!ret) {
			ue_hp_done(i, on);
		} else if (ret == -EBUSY || ret == -EAGAIN) {
			__atomic_add_fetch(&ue_hotplug_counts.busy, 1, __ATOMIC_RELAXED);
		} else {
			ue_hp_fail(i, on, ret);
			break;
		}
	}
	return NULL;
}

/*
 * Start the thread, its choices drawn from @seed; 0, or -1 when it could
 * not start (said): the run goes on without hotplug
 */
static int ue_hotplug_start(unsigned long long seed)
{
	char path[64], val[16];
	sigset_t all, old;
	int cpu, ret;

	memset(&ue_hotplug_counts, 0, sizeof(ue_hotplug_counts));
	ue_hp.nr = 0;
	ue_hp.stopping = 0;
	ue_hp.failed = 0;
	ret = ue_hp_read(UE_HP_CPUS "online", ue_hp.online_at_start,
			 sizeof(ue_hp.online_at_start));
	if (ret) {
		ksft_print_msg("cpu hotplug: none (%sonline: %s)\n", UE_HP_CPUS, strerror(-ret));
		return -1;
	}
	/* CPU 0, the boot CPU, stays; each other one with an online file we may write */
	for (cpu = 1; cpu < UE_HP_MAX; cpu++) {
		snprintf(path, sizeof(path), UE_HP_CPUS "cpu%d/online", cpu);
		if (access(path, W_OK) || ue_hp_read(path, val, sizeof(val)))
			continue;
		ue_hp.cpu[ue_hp.nr] = cpu;
		ue_hp.at_start[ue_hp.nr] = val[0] == '1';
		ue_hp.now[ue_hp.nr] = val[0] == '1';
		ue_hp.been_up[ue_hp.nr] = val[0] == '1';
		ue_hp.nr++;
	}
	ue_hotplug_counts.cpus = ue_hp.nr;
	if (!ue_hp.nr) {
		ksft_print_msg("cpu hotplug: none (no CPU but the boot CPU%s can go offline)\n",
			       geteuid() ? ", for this user," : "");
		return -1;
	}
	/* its own stream: the seed's, and not the one the fuzzer draws from */
	ue_hp.rng = seed ^ 0x686f74706c7567ULL;
	ue_hp_rnd();
	/* the run's signals are for its own threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&ue_hp.thread, NULL, ue_hp_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		ksft_print_msg("cpu hotplug: none (pthread_create: %s)\n", strerror(ret));
		return -1;
	}
	ue_hp.running = 1;
	if (!ue_hp.atexit_set && !atexit(ue_hp_atexit))
		ue_hp.atexit_set = 1;
	ksft_print_msg("cpu hotplug: %d CPUs taken offline and online at random times (seed %llu); "
		       "online at the start: %s\n", ue_hp.nr, seed, ue_hp.online_at_start);
	return 0;
}

/*
 * Stop the thread, put every CPU back as it was at the start and say what
 * was done; the run's failures: 1 when the thread failed or a CPU did not
 * come back, else 0
 */
static int ue_hotplug_stop(void)
{
	char online[256] = "";
	int i, ret = 0, failed, down = 0;

	if (!ue_hp.running)
		return 0;
	pthread_mutex_lock(&ue_hp.lock);
	ue_hp.stopping = 1;
	pthread_cond_signal(&ue_hp.cond);
	pthread_mutex_unlock(&ue_hp.lock);
	pthread_join(ue_hp.thread, NULL);
	ue_hp.running = 0;
	failed = __atomic_load_n(&ue_hp.failed, __ATOMIC_ACQUIRE);

	for (i = 0; i < ue_hp.nr; i++) {
		int on = ue_hp.at_start[i];

		if (ue_hp.now[i] == on)
			continue;
		/* EBUSY and EAGAIN pass: the CPU is tried again, a while at most */
		if (!ue_wait_for(UE_WAIT_MS, ue_hp_try(i, on, &ret), "cpu%d to go %s",
				 ue_hp.cpu[i], on ? "online" : "offline") || ret) {
			if (!failed)
				ue_hp_fail(i, on, ret ? ret : -ETIMEDOUT);
			failed = 1;
			continue;
		}
		ue_hp_done(i, on);
	}
	for (i = 0; i < ue_hp.nr; i++)
		down += !ue_hp.at_start[i];
	ksft_print_msg("cpu hotplug: %llu offline, %llu online, %llu EBUSY or EAGAIN; "
		       "of %d CPUs, %llu of the %d offline at the start brought up\n",
		       ue_hotplug_counts.offline, ue_hotplug_counts.online, ue_hotplug_counts.busy,
		       ue_hp.nr, ue_hotplug_counts.first_up, down);
	if (ue_hp_read(UE_HP_CPUS "online", online, sizeof(online)) ||
	    strcmp(online, ue_hp.online_at_start)) {
		ksft_print_msg("FAIL [cpu hotplug]: online now: %s, at the start: %s\n",
			       online, ue_hp.online_at_start);
		failed = 1;
	} else {
		ksft_print_msg("cpu hotplug: every CPU as at the start: online %s\n", online);
	}
	if (failed)
		ksft_print_msg("FAIL [cpu hotplug]: %s\n", ue_hp.why[0] ? ue_hp.why :
			       "a CPU did not come back");
	return failed;
}

/* A run that exits before ue_hotplug_stop() (a ksft_exit_*()) puts the CPUs back too */
static void ue_hp_atexit(void)
{
	ue_hotplug_stop();
}

#endif /* UE_HOTPLUG_H */
