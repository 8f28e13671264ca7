// SPDX-License-Identifier: GPL-2.0
/*
 * header64_test: a program written against the uapi header of Linux 6.4+,
 * where the 28-byte registration is struct user_reg, builds and runs here
 * as it is: nothing defined before the include. The layouts of the header
 * are checked at compile time against those of 6.12 (ue_layout.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/user_events.h>

#include "../kselftest_harness.h"
#define UE_TIMING_ONLY	/* the scaled timeouts only: the rest is the program's own */
#include "ue_helpers.h"
#include "ue_layout.h"

/* the kernel writes the word: read it from memory every time */
#define READ_ONCE_INT(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

#define ENABLE "/sys/kernel/tracing/events/user_events/header64/enable"

static int set_enable(const char *v)
{
	int fd = open(ENABLE, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, v, 1) == 1 ? 0 : -errno;
	close(fd);
	return ret;
}

TEST(enable_bit_as_struct_user_reg)
{
	struct user_reg reg = { .size = sizeof(reg) };
	struct user_unreg unreg = { .size = sizeof(unreg) };
	static int word;
	int fd;

	ASSERT_EQ(28, sizeof(reg));
	fd = open("/sys/kernel/tracing/user_events_data", O_RDWR);
	if (fd < 0)
		SKIP(return, "no user_events_data: %s", strerror(errno));
	reg.name_args = (unsigned long)"header64 u32 v";
	reg.enable_bit = 5;
	reg.enable_size = sizeof(word);
	reg.enable_addr = (unsigned long)&word;
	ASSERT_EQ(0, ioctl(fd, DIAG_IOCSREG, &reg));
	EXPECT_EQ(0, READ_ONCE_INT(word));
	ASSERT_EQ(0, set_enable("1"));
	EXPECT_EQ(1 << 5, READ_ONCE_INT(word));
	ASSERT_EQ(0, set_enable("0"));
	EXPECT_EQ(0, READ_ONCE_INT(word));
	unreg.disable_bit = 5;
	unreg.disable_addr = (unsigned long)&word;
	EXPECT_EQ(0, ioctl(fd, DIAG_IOCSUNREG, &unreg));
	close(fd);
	/* created through the enable bit, referred to by nothing: gone */
	EXPECT_NE(0, access(ENABLE, F_OK));
}

/* The header's names of the systems and of the dynamic_events command: 6.4's */
TEST(system_and_prefix_names)
{
	EXPECT_STREQ("user_events", USER_EVENTS_SYSTEM);
	EXPECT_STREQ("user_events_multi", USER_EVENTS_MULTI_SYSTEM);
	EXPECT_STREQ("u:", USER_EVENTS_PREFIX);
}

UE_HARNESS_MAIN
