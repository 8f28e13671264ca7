/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user_events kselftests: tracefs files, registering
 * and deleting events, reading what ftrace recorded.
 */
#ifndef UE_HELPERS_H
#define UE_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/user_events.h>

#define TRACEFS "/sys/kernel/tracing/"
#define UE_STATUS TRACEFS "user_events_status"
#define UE_DATA TRACEFS "user_events_data"
#define UE_DYN TRACEFS "dynamic_events"
#define UE_MAX_PAYLOAD (getpagesize() - 40)

/* Register @desc on @fd; returns 0 or -errno */
static inline int ue_register(int fd, const char *desc, struct user_reg *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->name_args = (unsigned long)desc;
	return ioctl(fd, DIAG_IOCSREG, reg) ? -errno : 0;
}

static inline int ue_delete(int fd, const char *name)
{
	return ioctl(fd, DIAG_IOCSDEL, name) ? -errno : 0;
}

/* Write @text to a tracefs file in one write(); returns 0 or -errno */
static inline int ue_write_file(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The whole file as a malloc()ed string, NULL on error */
static inline char *ue_read_file(const char *path)
{
	size_t len = 0, size = 4096;
	char *buf = malloc(size);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, size - len - 1)) > 0) {
		len += n;
		if (len + 1 == size) {
			size *= 2;
			buf = realloc(buf, size);
			if (!buf)
				break;
		}
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The tracepoint id of user event @name (for perf_event_open), or -1 */
static inline int ue_tracepoint_id(const char *name)
{
	char path[256], *text;
	int id;

	snprintf(path, sizeof(path), TRACEFS "events/user_events/%s/id", name);
	text = ue_read_file(path);
	id = text ? atoi(text) : -1;
	free(text);
	return id;
}

/* 1/0 into events/user_events/@name/enable of @instance ("" or "instances/x/") */
static inline int ue_enable(const char *instance, const char *name, int on)
{
	char path[512];

	snprintf(path, sizeof(path), TRACEFS "%sevents/user_events/%s/enable",
		 instance, name);
	return ue_write_file(path, on ? "1" : "0", O_TRUNC);
}

static inline int ue_clear_trace(void)
{
	return ue_write_file(TRACEFS "trace", "", O_TRUNC);
}

/* How many lines of trace contain @needle */
static inline int ue_trace_count(const char *needle)
{
	char *trace = ue_read_file(TRACEFS "trace"), *p;
	int n = 0;

	for (p = trace; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	free(trace);
	return n;
}

/* The line of events/user_events/@name/format about @what, or "" */
static inline void ue_format_line(const char *name, const char *what,
				  char *out, size_t size)
{
	char path[512], *fmt, *p, *end;

	snprintf(path, sizeof(path), TRACEFS "events/user_events/%s/format", name);
	fmt = ue_read_file(path);
	out[0] = '\0';
	p = fmt ? strstr(fmt, what) : NULL;
	if (p) {
		while (p > fmt && p[-1] != '\n')
			p--;
		end = strchr(p, '\n');
		snprintf(out, size, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	}
	free(fmt);
}

/* Helpers of stress_test and lost_test ---------------------------------- */

#include <linux/perf_event.h>
#include <sys/syscall.h>

/* The status page, mapped read-only, or NULL */
static inline const unsigned char *ue_map_status(void)
{
	int fd = open(UE_STATUS, O_RDONLY);
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * A perf event on tracepoint @id for task @pid (0: the caller, -1: all) on
 * @cpu (-1: all), sampling every write with PERF_SAMPLE_RAW when @raw (the
 * count read() returns is followed by the lost samples); an fd or -1
 */
static inline int ue_perf_open(int id, int pid, int cpu, int raw)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pe),
		.config = id,
		.sample_period = 1,
		.sample_type = raw ? PERF_SAMPLE_RAW : 0,
		.read_format = PERF_FORMAT_LOST,
		.wakeup_events = 1,
	};

	return syscall(__NR_perf_event_open, &pe, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

#endif /* UE_HELPERS_H */
