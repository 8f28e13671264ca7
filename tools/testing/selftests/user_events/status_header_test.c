// SPDX-License-Identifier: GPL-2.0
/*
 * status_header_test: a program written against the status-page header,
 * where the 24-byte registration is struct user_reg and has a status_index,
 * builds and runs here unchanged but for USER_EVENTS_STATUS_ABI defined
 * before the include. It registers an event through the status page and
 * watches its status byte while ftrace attaches and detaches, writing one
 * event in between. Without the macro, struct user_reg is the 28-byte one
 * of Linux 6.4+, which has no status_index: this file does not compile.
 */
#define USER_EVENTS_STATUS_ABI
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/user_events.h>

#include "../kselftest_harness.h"
#define UE_TIMING_ONLY	/* the rest of ue_helpers.h takes the 6.4+ struct user_reg */
#include "ue_helpers.h"

/* The macro made struct user_reg the status page's, 24 bytes */
static_assert(__builtin_types_compatible_p(struct user_reg,
					   struct user_status_reg),
	      "struct user_reg is struct user_status_reg");
static_assert(sizeof(struct user_reg) == 24, "struct user_reg: 24 bytes");
static_assert(offsetof(struct user_reg, status_index) == 16,
	      "status_index at 16");

#define TRACEFS "/sys/kernel/tracing/"
#define NAME "status_header"
#define ENABLE TRACEFS "events/user_events/" NAME "/enable"

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -errno;
	close(fd);
	return ret;
}

/* How many times @needle is in the trace */
static int trace_count(const char *needle)
{
	static char buf[1 << 16];
	int fd = open(TRACEFS "trace", O_RDONLY), n = 0;
	ssize_t len = 0, r;
	char *p;

	if (fd < 0)
		return -1;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += r;
	close(fd);
	buf[len] = '\0';
	for (p = buf; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Delete the event through a fd that holds no reference to it */
static int delete_event(void)
{
	int fd = open(TRACEFS "user_events_data", O_RDWR), ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, DIAG_IOCSDEL, NAME) ? -errno : 0;
	close(fd);
	return ret;
}

TEST(status_page_as_struct_user_reg)
{
	struct user_reg reg = { .size = sizeof(reg) };
	long page_size = sysconf(_SC_PAGESIZE);
	const unsigned char *page;
	__u32 value = 4242;
	struct iovec io[] = {
		{ &reg.write_index, sizeof(reg.write_index) },
		{ &value, sizeof(value) },
	};
	int status_fd, fd;

	status_fd = open(TRACEFS "user_events_status", O_RDONLY);
	if (status_fd < 0)
		SKIP(return, "no user_events_status: %s", strerror(errno));
	page = mmap(NULL, page_size, PROT_READ, MAP_SHARED, status_fd, 0);
	ASSERT_NE(MAP_FAILED, page);
	fd = open(TRACEFS "user_events_data", O_RDWR);
	ASSERT_LE(0, fd);
	delete_event();		/* left by an earlier run, if any */

	reg.name_args = (unsigned long)NAME " u32 v";
	ASSERT_EQ(0, ioctl(fd, DIAG_IOCSREG, &reg));
	ASSERT_LT(0, reg.status_index);
	ASSERT_GT(page_size, reg.status_index);
	EXPECT_EQ(0, page[reg.status_index]);

	ASSERT_EQ(0, write_file(TRACEFS "trace", ""));
	ASSERT_EQ(0, write_file(ENABLE, "1"));
	EXPECT_EQ(EVENT_STATUS_FTRACE, page[reg.status_index]);
	EXPECT_EQ(8, writev(fd, io, 2));
	EXPECT_EQ(1, trace_count(NAME ": v=4242"));
	ASSERT_EQ(0, write_file(ENABLE, "0"));
	EXPECT_EQ(0, page[reg.status_index]);

	/* a status-page event stays until deleted, once no fd holds it */
	EXPECT_EQ(-EBUSY, delete_event());
	close(fd);
	EXPECT_EQ(0, access(ENABLE, F_OK));
	EXPECT_EQ(0, delete_event());
	EXPECT_NE(0, access(ENABLE, F_OK));
	munmap((void *)page, page_size);
	close(status_fd);
}

UE_HARNESS_MAIN
