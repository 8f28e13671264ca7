// SPDX-License-Identifier: GPL-2.0
/*
 * smoke_test: the files of our user_events exist and the status page is the
 * one the ABI describes: one zeroed page, shared and read-only. A kernel
 * running upstream's user_events (a different ABI) fails here.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "ue_helpers.h"

#define TRACEFS "/sys/kernel/tracing/"
#define STATUS_FILE TRACEFS "user_events_status"
#define DATA_FILE TRACEFS "user_events_data"
#define GROUPS_FILE TRACEFS "user_events_groups"

FIXTURE(status) {
	int fd;		/* user_events_status, O_RDWR as a writer opens it */
	long page;	/* the page size */
};

FIXTURE_SETUP(status)
{
	if (uet_skip(_metadata, 0))
		return;

	self->page = sysconf(_SC_PAGESIZE);
	self->fd = open(STATUS_FILE, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", STATUS_FILE, strerror(errno));
}

FIXTURE_TEARDOWN(status)
{
	EXPECT_EQ(0, close(self->fd));
}

/*
 * Both files, and the groups' control file, exist as regular files of mode
 * 0640, root:root
 */
TEST(files_mode_0640)
{
	static const char * const files[] = { STATUS_FILE, DATA_FILE, GROUPS_FILE };
	struct stat st;
	int i;

	if (uet_skip(_metadata, 0))
		return;

	for (i = 0; i < (int)ARRAY_SIZE(files); i++) {
		ASSERT_EQ(0, stat(files[i], &st)) TH_LOG("%s: %s", files[i], strerror(errno));
		EXPECT_TRUE(S_ISREG(st.st_mode));
		EXPECT_EQ(0640, st.st_mode & 07777) TH_LOG("%s has mode %o", files[i],
							   st.st_mode & 07777);
		EXPECT_EQ(0, st.st_uid);
		EXPECT_EQ(0, st.st_gid);
	}
}

/* One shared read-only page that reads as zeros (nothing registered yet) */
TEST_F(status, maps_one_zeroed_page)
{
	unsigned char *p;
	long i, nonzero = 0;

	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	/* Byte 0 is never handed out; the rest is zero until an event is used */
	for (i = 0; i < self->page; i++)
		nonzero += p[i] != 0;
	EXPECT_EQ(0, nonzero);
	EXPECT_EQ(0, munmap(p, self->page));
}

/* A writable mapping, shared or private, is EPERM (the fd is open for writing) */
TEST_F(status, write_mapping_refused)
{
	void *p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);

	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	if (p != MAP_FAILED)
		munmap(p, self->page);
	p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	if (p != MAP_FAILED)
		munmap(p, self->page);
}

/* A read-only mapping cannot be made writable later: EACCES */
TEST_F(status, mprotect_write_refused)
{
	void *p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd, 0);

	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, self->page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(0, munmap(p, self->page));
}

/* Two pages, or a page at offset one page: EINVAL */
TEST_F(status, second_page_refused)
{
	void *p = mmap(NULL, 2 * self->page, PROT_READ, MAP_SHARED, self->fd, 0);

	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	if (p != MAP_FAILED)
		munmap(p, 2 * self->page);
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd, self->page);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	if (p != MAP_FAILED)
		munmap(p, self->page);
}

/* The text listing ends with the number of slots: one per status byte */
TEST_F(status, listing_ends_with_max)
{
	char buf[8192], want[32];
	ssize_t n, len = 0;

	while ((n = read(self->fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	ASSERT_EQ(0, n);
	buf[len] = '\0';
	snprintf(want, sizeof(want), "\nMax: %ld\n", self->page);
	ASSERT_LE((ssize_t)strlen(want), len);
	EXPECT_STREQ(want, buf + len - strlen(want)) TH_LOG("listing: '%s'", buf);
}

UE_HARNESS_MAIN
