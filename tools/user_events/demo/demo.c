// SPDX-License-Identifier: GPL-2.0
/*
 * demo: one user event from registration to decoded trace lines.
 *
 * Registers "demo u32 count; __rel_loc char[] msg", watches its status byte
 * flip when ftrace enables it, writes three events with writev() and shows
 * what the tracer recorded. Run as root in a kernel with our user_events.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/user_events.h>

#define TRACEFS "/sys/kernel/tracing/"
#define ENABLE TRACEFS "events/user_events/demo/enable"

static void die(const char *what)
{
	fprintf(stderr, "demo: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

/* One event: [write index][u32 count][__rel_loc msg][msg bytes] */
static void emit(int data_fd, int write_index, unsigned int count, const char *msg)
{
	/* msg follows the loc field directly: offset 0 from the loc's end */
	unsigned int loc = (unsigned int)(strlen(msg) + 1) << 16;
	struct iovec io[] = {
		{ &write_index, sizeof(write_index) },
		{ &count, sizeof(count) },
		{ &loc, sizeof(loc) },
		{ (void *)msg, strlen(msg) + 1 },
	};

	if (writev(data_fd, io, 4) < 0)
		die("writev");
}

int main(void)
{
	struct user_status_reg reg = { .size = sizeof(reg) };
	const char *desc = "demo u32 count; __rel_loc char[] msg";
	volatile unsigned char *status;
	char msg[32], line[512];
	unsigned int i;
	int status_fd, data_fd;
	FILE *trace;

	status_fd = open(TRACEFS "user_events_status", O_RDONLY);
	if (status_fd < 0)
		die("open user_events_status");
	status = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, status_fd, 0);
	if (status == MAP_FAILED)
		die("mmap the status page");
	printf("1. mapped the status page (one byte per event, shared by all processes)\n");

	data_fd = open(TRACEFS "user_events_data", O_RDWR);
	if (data_fd < 0)
		die("open user_events_data");
	reg.name_args = (unsigned long)desc;
	if (ioctl(data_fd, DIAG_IOCSREG, &reg) < 0)
		die("DIAG_IOCSREG");
	printf("2. registered '%s': status byte %u, write index %u\n", desc,
	       reg.status_index, reg.write_index);
	printf("3. nobody listens yet: status byte = %u\n", status[reg.status_index]);

	write_file(TRACEFS "trace", "");
	write_file(ENABLE, "1");
	printf("4. enabled events/user_events/demo: status byte = %u (bit 0: ftrace)\n",
	       status[reg.status_index]);

	for (i = 1; i <= 3; i++) {
		snprintf(msg, sizeof(msg), "hello %u", i);
		if (status[reg.status_index])
			emit(data_fd, reg.write_index, i, msg);
	}
	printf("5. wrote 3 events with writev()\n");

	write_file(ENABLE, "0");
	printf("6. disabled it again: status byte = %u\n", status[reg.status_index]);

	printf("7. what ftrace recorded (decoded from the event's format):\n");
	trace = fopen(TRACEFS "trace", "r");
	if (!trace)
		die("open trace");
	i = 0;
	while (fgets(line, sizeof(line), trace))
		if (strstr(line, " demo: ")) {
			fputs(line, stdout);
			i++;
		}
	fclose(trace);

	close(data_fd);	/* drops this fd's reference */
	data_fd = open(TRACEFS "user_events_data", O_RDWR);
	if (data_fd < 0 || ioctl(data_fd, DIAG_IOCSDEL, "demo") < 0)
		die("DIAG_IOCSDEL");
	printf("8. deleted the event\n");
	if (i != 3) {
		fprintf(stderr, "demo: expected 3 trace lines, saw %u\n", i);
		return 1;
	}
	return 0;
}
