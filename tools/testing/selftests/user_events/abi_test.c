// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test: the status page shared across processes, the 4095-event limit
 * and slot reuse, references held by fds and dropped on close (across
 * fork), access for a non-root user an admin let in, and the listing.
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"

/* A child that mapped the page on its own sees the byte the parent flips */
TEST(status_page_shared)
{
	int fd = open(UE_DATA, O_RDWR), ready[2], status;
	struct user_status_reg reg;
	pid_t pid;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "abi_shared u32 a", &reg));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		const unsigned char *page = uet_map_status();

		if (!page || page[reg.status_index])
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		if (!ue_wait_for(UE_WAIT_MS, page[reg.status_index],
				 "the child's status byte of abi_shared to be set"))
			_exit(3);
		_exit(page[reg.status_index] == EVENT_STATUS_FTRACE ? 0 : 4);
	}
	ASSERT_EQ(1, read(ready[0], &status, 1));
	ASSERT_EQ(0, uet_enable("", "abi_shared", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, uet_enable("", "abi_shared", 0));
	close(fd);
	EXPECT_EQ(0, uet_delete_named("abi_shared"));
}

TEST(mprotect_private_refused)
{
	int fd = open(UE_STATUS, O_RDONLY);
	void *p;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, fd);
	p = mmap(NULL, getpagesize(), PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, getpagesize(), PROT_READ | PROT_WRITE));
	munmap(p, getpagesize());
	EXPECT_EQ(MAP_FAILED, mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd,
				   getpagesize()));
	close(fd);
}

/*
 * 4095 registrations and deletions: under TCG, on a busy host, longer than
 * the harness's default 30 s
 */
FIXTURE(many) {
};

FIXTURE_SETUP(many)
{
}

FIXTURE_TEARDOWN(many)
{
}

/*
 * Page size - 1 events at once; the next gets EMFILE; an event of the
 * enable-bit ABI, which takes no status byte, is still made; freed slots
 * are reused
 */
TEST_F_TIMEOUT(many, limit_and_reuse, 300)
{
	int max = getpagesize() - 1, i, n, fd = open(UE_DATA, O_RDWR);
	const unsigned char *page = uet_map_status();
	struct user_status_reg reg;
	unsigned int freed = 0;
	static __u32 word;
	char name[32];

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, page);
	for (n = 0; n < max; n++) {
		snprintf(name, sizeof(name), "abi_l%d", n);
		if (uet_register(fd, name, &reg))
			break;
		if (n == 100)
			freed = reg.status_index;
	}
	EXPECT_EQ(max, n);
	EXPECT_EQ(-EMFILE, uet_register(fd, "abi_one_more", &reg));
	EXPECT_EQ(0, uet_register_bits(fd, "abi_bits_more u32 a", &word, 4, 0, 0, NULL));
	EXPECT_TRUE(uet_event_exists("user_events", "abi_bits_more"));
	/* not through the status page: no byte to give it */
	EXPECT_EQ(-EMFILE, uet_register(fd, "abi_bits_more u32 a", &reg));
	EXPECT_EQ(0, uet_unregister_bits(fd, &word, 0));
	close(fd);
	/* its last reference gone: deleted with the close */
	EXPECT_FALSE(uet_event_exists("user_events", "abi_bits_more"));
	/* the slot of abi_l100 goes to the next event, and reads 0 */
	ASSERT_EQ(0, uet_enable("", "abi_l100", 1));
	EXPECT_EQ(EVENT_STATUS_FTRACE, page[freed]);
	ASSERT_EQ(0, uet_enable("", "abi_l100", 0));
	EXPECT_EQ(0, uet_delete_named("abi_l100"));
	fd = open(UE_DATA, O_RDWR);
	EXPECT_EQ(0, uet_register(fd, "abi_one_more", &reg));
	EXPECT_EQ(freed, reg.status_index);
	EXPECT_EQ(0, page[reg.status_index]);
	close(fd);
	EXPECT_EQ(0, uet_delete_named("abi_one_more"));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "abi_l%d", i);
		if (i != 100)
			EXPECT_EQ(0, uet_delete_named(name));
	}
}

/* Every fd that registered holds the event, a forked child's copy too */
TEST(references_follow_fds)
{
	int fds[10], i, status, hold[2];
	pid_t pid;
	char c;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_EQ(0, uet_fds_holding("abi_refs u32 a", fds, 10));
	for (i = 0; i < 9; i++) {
		EXPECT_EQ(-EBUSY, uet_delete_named("abi_refs"));
		close(fds[i]);
	}
	ASSERT_EQ(0, pipe(hold));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* hold the last fd until the parent closes its end of the pipe */
		close(hold[1]);
		_exit(read(hold[0], &c, 1) == 0 ? 0 : 1);
	}
	close(hold[0]);
	close(fds[9]);
	EXPECT_EQ(-EBUSY, uet_delete_named("abi_refs"));
	close(hold[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, uet_delete_named("abi_refs"));
}

/* Run @fn as uid/gid 65534 in a child; returns its exit code */
static int as_nobody(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(100);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int nobody_is_refused(void)
{
	if (open(UE_DATA, O_RDWR) >= 0 || errno != EACCES)
		return 1;
	if (open(UE_STATUS, O_RDONLY) >= 0 || errno != EACCES)
		return 2;
	return 0;
}

static int nobody_uses_events(void)
{
	const unsigned char *page = uet_map_status();
	int fd = open(UE_DATA, O_RDWR), payload[2];
	struct user_status_reg reg;

	if (!page || fd < 0)
		return 1;
	if (uet_register(fd, "abi_nobody u32 a", &reg))
		return 2;
	payload[0] = reg.write_index;
	payload[1] = 77;
	if (page[reg.status_index] != EVENT_STATUS_FTRACE)
		return 3;
	if (write(fd, payload, sizeof(payload)) != sizeof(payload))
		return 4;
	if (uet_write_file(UE_DYN, "u:abi_nobody2 u32 a", O_APPEND) != -EACCES)
		return 5;
	if (uet_write_file(TRACEFS "events/user_events/abi_nobody/enable", "0",
			   O_TRUNC) != -EACCES)
		return 6;
	/* attached: busy for everyone; a fresh event of its own it may delete */
	if (uet_delete(fd, "abi_nobody") != -EBUSY)
		return 7;
	if (uet_register(fd, "abi_nobody3 u8 b", &reg))
		return 8;
	close(fd);
	return uet_delete_named("abi_nobody3") ? 9 : 0;
}

TEST(unprivileged_access)
{
	struct stat root, status, data;
	int fd;

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_EQ(0, stat(TRACEFS, &root));
	ASSERT_EQ(0, stat(UE_STATUS, &status));
	ASSERT_EQ(0, stat(UE_DATA, &data));
	EXPECT_EQ(0, as_nobody(nobody_is_refused));

	/* what an admin does to let a service in; the event is enabled first */
	fd = open(UE_DATA, O_RDWR);
	ASSERT_EQ(0, uet_write_file(UE_DYN, "u:abi_nobody u32 a", O_APPEND));
	ASSERT_EQ(0, uet_enable("", "abi_nobody", 1));
	ASSERT_EQ(0, uet_clear_trace());
	ASSERT_EQ(0, chmod(TRACEFS, 0755));
	ASSERT_EQ(0, chmod(UE_STATUS, 0666));
	ASSERT_EQ(0, chmod(UE_DATA, 0666));
	EXPECT_EQ(0, as_nobody(nobody_uses_events));
	EXPECT_EQ(1, uet_trace_count("abi_nobody: a=77\n"));
	chmod(TRACEFS, root.st_mode & 07777);
	chmod(UE_STATUS, status.st_mode & 07777);
	chmod(UE_DATA, data.st_mode & 07777);
	uet_enable("", "abi_nobody", 0);
	uet_delete(fd, "abi_nobody");
	close(fd);
	EXPECT_EQ(0, access(TRACEFS "events/user_events/abi_nobody", F_OK) ? 0 : 1);
}

/*
 * The read() listing, exactly: one line per event, then the totals. The
 * flags shown are those of the registration that created the event: the
 * same event registered with other flags keeps them.
 */
TEST(listing)
{
	struct user_status_reg a, b, c;
	char want[256], *all;
	int fd = open(UE_DATA, O_RDWR);

	if (uet_skip(_metadata, 0))
		return;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uet_register(fd, "abi_list:BPF_ITER,LATER u32 a", &a));
	ASSERT_EQ(0, uet_register(fd, "abi_list:OTHER u32 a", &c));
	EXPECT_EQ(a.status_index, c.status_index);
	ASSERT_EQ(0, uet_register(fd, "abi_list u32 a", &c));
	EXPECT_EQ(a.status_index, c.status_index);
	ASSERT_EQ(0, uet_register(fd, "abi_list2", &b));
	ASSERT_EQ(0, uet_register(fd, "abi_list2:NEW", &c));
	EXPECT_EQ(b.status_index, c.status_index);
	ASSERT_EQ(0, uet_enable("", "abi_list2", 1));
	snprintf(want, sizeof(want),
		 "%u:abi_list:BPF_ITER,LATER\n%u:abi_list2 # Used by ftrace\n\nActive: 2\nBusy: 1\nMax: %d\n",
		 a.status_index, b.status_index, getpagesize());
	all = uet_read_file(UE_STATUS);
	EXPECT_STREQ(want, all);
	free(all);
	uet_enable("", "abi_list2", 0);
	close(fd);
	EXPECT_EQ(0, uet_delete_named("abi_list"));
	EXPECT_EQ(0, uet_delete_named("abi_list2"));
	snprintf(want, sizeof(want), "\nActive: 0\nBusy: 0\nMax: %d\n", getpagesize());
	all = uet_read_file(UE_STATUS);
	EXPECT_STREQ(want, all);
	free(all);
}

UE_HARNESS_MAIN
