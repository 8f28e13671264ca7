// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * test_abi: the library's two ABIs without a kernel. This file defines
 * ioctl(), write() and writev(), which the library linked into it calls instead of
 * the C library's: a fake user_events_data that records what the library
 * asks and answers as the kernel does. tracefs is a temporary directory
 * (USER_EVENTS_TRACEFS) with plain files.
 *
 * Checked: the default ABI and how a program or its environment chooses;
 * that the enable-bit ABI needs no user_events_status; what each ABI's
 * registration passes; ue_enabled() following the bit the "kernel" sets;
 * flags; unregistering and reusing the word; no second registration after
 * fork(); EBADF of an enable-bit write reported as "not recorded"; small
 * records handed over with one write() of their bytes, large ones and large
 * __rel_loc data with writev() of the caller's memory; user_events_data
 * opened once for all of it (this file's open() counts).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/user_events.h>

#include "user_events.h"
#include "test_util.h"

/* The fake kernel: what the library asked last, and what to answer */
static struct {
	int calls;			/* ioctl() calls */
	int err;			/* errno of the next ioctl(), 0: none */
	int write_err;			/* errno of write()/writev(), 0: none */
	char call;			/* the last write: 'w' write(), 'v' writev() */
	int nr_iov;			/* its iovecs (writev()) */
	size_t len;			/* its bytes */
	const void *buf;		/* write()'s buffer */
	unsigned char bytes[4096];	/* and their first 4096 */
	const void *iov_base[8];	/* where its first iovecs pointed */
	unsigned int next;		/* the last index handed out */
	uint32_t size;			/* size of the last DIAG_IOCSREG */
	struct user_status_reg status;	/* the last 24-byte registration */
	struct user_reg bits;		/* the last 28-byte registration */
	struct user_unreg unreg;	/* the last DIAG_IOCSUNREG */
	int data_opens;			/* open() of a user_events_data */
	int writes;			/* write() calls on user_events_data */
} k;

/* open(), which the library calls too: counts the opens of user_events_data */
int open(const char *path, int flags, ...)
{
	size_t len = strlen(path), name = strlen("/user_events_data");
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if (len >= name && !strcmp(path + len - name, "/user_events_data"))
		k.data_opens++;
	return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	(void)fd;
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	k.calls++;
	if (req == DIAG_IOCSUNREG)
		memcpy(&k.unreg, arg, sizeof(k.unreg));
	else if (req == DIAG_IOCSREG)
		memcpy(&k.size, arg, sizeof(k.size));
	if (req == DIAG_IOCSREG && k.size == sizeof(k.status))
		memcpy(&k.status, arg, sizeof(k.status));
	else if (req == DIAG_IOCSREG)
		memcpy(&k.bits, arg, sizeof(k.bits));
	if (k.err) {
		errno = k.err;
		k.err = 0;
		return -1;
	}
	if (req == DIAG_IOCSUNREG) {
		/* the kernel clears the bit */
		__atomic_and_fetch((uint32_t *)(uintptr_t)k.unreg.disable_addr,
				   ~(1U << k.unreg.disable_bit), __ATOMIC_RELAXED);
		return 0;
	}
	if (req != DIAG_IOCSREG) {
		errno = ENOTTY;
		return -1;
	}
	k.next++;
	if (k.size == sizeof(k.status)) {
		k.status.status_index = k.next;
		k.status.write_index = k.next;
		memcpy(arg, &k.status, sizeof(k.status));
	} else {
		k.bits.write_index = k.next;
		memcpy(arg, &k.bits, sizeof(k.bits));
	}
	return 0;
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	size_t len = 0;
	int i;

	if (fd != ue_data_fd())
		return syscall(SYS_writev, fd, iov, n);
	k.call = 'v';
	k.nr_iov = n;
	for (i = 0; i < n; i++) {
		if (i < 8)
			k.iov_base[i] = iov[i].iov_base;
		if (len + iov[i].iov_len <= sizeof(k.bytes))
			memcpy(k.bytes + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	k.len = len;
	if (k.write_err) {
		errno = k.write_err;
		return -1;
	}
	return len;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	if (fd != ue_data_fd())
		return syscall(SYS_write, fd, buf, len);
	k.call = 'w';
	k.writes++;
	k.nr_iov = 0;
	k.len = len;
	k.buf = buf;
	memcpy(k.bytes, buf, len < sizeof(k.bytes) ? len : sizeof(k.bytes));
	if (k.write_err) {
		errno = k.write_err;
		return -1;
	}
	return len;
}

/* The kernel sets or clears the bit of the last enable-bit registration */
static void k_enable(int on)
{
	uint32_t *word = (uint32_t *)(uintptr_t)k.bits.enable_addr;

	if (on)
		__atomic_or_fetch(word, 1U << k.bits.enable_bit, __ATOMIC_RELAXED);
	else
		__atomic_and_fetch(word, ~(1U << k.bits.enable_bit), __ATOMIC_RELAXED);
}

/* The fake tracefs */
static char dir[32];

/* ue_get_abi() of a new process with USER_EVENTS_ABI=@env (NULL: unset) */
static int abi_in_child(const char *env, int set)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		if (env)
			setenv("USER_EVENTS_ABI", env, 1);
		if (set)
			ue_set_abi(set);
		_exit(ue_get_abi());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Runs first: the children must be the first to read the environment */
static void test_choice(void)
{
	CHECK(abi_in_child(NULL, 0) == UE_ABI_BITS,
	      "the default is the enable-bit ABI");
	CHECK(abi_in_child("status", 0) == UE_ABI_STATUS,
	      "USER_EVENTS_ABI=status chooses the status page");
	CHECK(abi_in_child("bits", 0) == UE_ABI_BITS, "USER_EVENTS_ABI=bits");
	CHECK(abi_in_child("Status", 0) == UE_ABI_BITS,
	      "another USER_EVENTS_ABI value leaves the default");
	CHECK(abi_in_child("status", UE_ABI_BITS) == UE_ABI_BITS,
	      "ue_set_abi() wins over the environment");
	errno = 0;
	CHECK(ue_set_abi(0) == -EINVAL && errno == EINVAL && ue_set_abi(3) == -EINVAL,
	      "ue_set_abi() of another value: -EINVAL");
	CHECK(ue_get_abi() == UE_ABI_BITS, "... and the ABI is unchanged");
}

/* The enable-bit ABI opens user_events_data only; the status page both */
static void test_files(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/user_events_data", dir);
	fd = open(path, O_CREAT | O_RDWR, 0600);
	close(fd);
	CHECK(ue_open() == 0 && ue_data_fd() >= 0,
	      "enable-bit ABI: ue_open() without user_events_status");
	errno = 0;
	CHECK(!ue_status_page() && errno == ENOENT,
	      "ue_status_page(): NULL and ENOENT without the file");
	ue_set_abi(UE_ABI_STATUS);
	CHECK(ue_open() == -ENOENT, "status page: ue_open() needs user_events_status");
	snprintf(path, sizeof(path), "%s/user_events_status", dir);
	fd = open(path, O_CREAT | O_RDWR, 0600);
	CHECK(fd >= 0 && !ftruncate(fd, getpagesize()) && ue_open() == 0 &&
	      ue_status_page(), "status page: ue_open() maps it once it exists");
	close(fd);
	ue_set_abi(UE_ABI_BITS);
}

static void test_bits(void)
{
	static struct ue_event many[1100];
	struct ue_event ev = UE_EVENT("t_bits", "u32 a");
	struct ue_event other = UE_EVENT("t_other", "u32 a");
	uint64_t addr;
	int calls, i, ok;

	k.calls = 0;
	CHECK(ue_event_register(&ev) == 0 && k.calls == 1, "register: one ioctl");
	CHECK(k.size == 28 && k.bits.size == 28 && k.bits.enable_size == 4 &&
	      k.bits.enable_bit < 32 && !(k.bits.enable_addr % 4) && !k.bits.flags &&
	      k.bits.name_args == (uintptr_t)ev.desc,
	      "register: a 28-byte struct user_reg, a 4-byte aligned word");
	CHECK(ev.registered && ev.write_index == (int)k.bits.write_index &&
	      !ev.status_index && ev.status != &ue_disabled_byte,
	      "register: write index kept, no status index");
	CHECK(!ue_enabled(&ev), "disabled while the bit is clear");
	k_enable(1);
	CHECK(ue_enabled(&ev), "enabled once the kernel sets the bit");
	k_enable(0);
	CHECK(!ue_enabled(&ev), "disabled again once it clears it");
	addr = k.bits.enable_addr;
	calls = k.calls;
	CHECK(ue_event_register(&ev) == 0 && k.calls == calls,
	      "registering again asks nothing");
	CHECK(ue_event_register(&other) == 0 && k.bits.enable_addr != addr,
	      "another event, another word");

	calls = k.calls;
	k_enable(1);
	CHECK(ue_event_unregister(&ev) == 0 && k.calls == calls + 1 &&
	      k.unreg.size == 16 && k.unreg.disable_addr == addr &&
	      k.unreg.disable_bit == k.bits.enable_bit && !k.unreg.__reserved &&
	      !k.unreg.__reserved2, "unregister: DIAG_IOCSUNREG of the word and bit");
	CHECK(!ev.registered && ev.status == &ue_disabled_byte &&
	      ev.write_index == -1 && !ue_enabled(&ev), "unregister: the event is reset");
	/* stale bits left in the word must not show in the next event */
	*(uint32_t *)(uintptr_t)addr = ~0U;
	CHECK(ue_event_register(&ev) == 0 && k.bits.enable_addr == addr &&
	      !ue_enabled(&ev), "the word is reused, cleared");

	k.err = EADDRINUSE;
	errno = 0;
	ue_event_init(&other, "t_fail u32 a");
	CHECK(ue_event_register(&other) == -EADDRINUSE && errno == EADDRINUSE &&
	      !other.registered && !ue_enabled(&other), "a refused registration");
	addr = k.bits.enable_addr;
	ue_event_init(&other, "t_after u32 a");
	CHECK(ue_event_register(&other) == 0 && k.bits.enable_addr == addr,
	      "... gives its word to the next one");

	ok = 1;
	for (i = 0; i < 1100 && ok; i++) {
		ue_event_init(&many[i], "t_many u8 x");
		ok = !ue_event_register(&many[i]) && !(k.bits.enable_addr % 4) &&
		     (!i || many[i].status != many[i - 1].status);
	}
	for (i = 0; i < 1100 && ok; i++)
		ok = many[i].status != ev.status && many[i].status != other.status;
	CHECK(ok, "1100 events: 1100 distinct aligned words");
}

static void test_flags(void)
{
	struct ue_event a = UE_EVENT("t_persist", "u32 a");
	struct ue_event b = UE_EVENT("t_multi", "u32 a");
	int calls;

	CHECK(ue_event_register_flags(&a, USER_EVENT_REG_PERSIST) == 0 &&
	      k.bits.flags == USER_EVENT_REG_PERSIST, "flags reach the kernel");
	CHECK(ue_event_register_flags(&b, 1U << 16) == -EINVAL && !b.registered,
	      "flags beyond 16 bits: -EINVAL");
	ue_set_abi(UE_ABI_STATUS);
	calls = k.calls;
	CHECK(ue_event_register_flags(&b, USER_EVENT_REG_MULTI_FORMAT) == -EINVAL &&
	      k.calls == calls, "status page: MULTI_FORMAT refused, nothing asked");
	CHECK(ue_event_register_flags(&b, USER_EVENT_REG_PERSIST) == 0 &&
	      k.size == 24 && b.status_index, "status page: PERSIST is what it does");
	ue_set_abi(UE_ABI_BITS);
}

static void test_status(void)
{
	struct ue_event ev = UE_EVENT("t_status", "u32 a");
	struct ue_event bits = UE_EVENT("t_side", "u32 a");
	unsigned char *page;
	char path[64];
	int fd, calls;

	CHECK(ue_event_register(&bits) == 0 && !bits.status_index, "a bits event first");
	ue_set_abi(UE_ABI_STATUS);
	CHECK(ue_event_register(&ev) == 0 && k.size == 24 && k.status.size == 24 &&
	      k.status.name_args == (uintptr_t)ev.desc,
	      "status page: a 24-byte struct user_status_reg");
	CHECK(ev.status_index == k.status.status_index &&
	      ev.status == ue_status_page() + ev.status_index,
	      "status page: the event reads its byte of the page");
	snprintf(path, sizeof(path), "%s/user_events_status", dir);
	fd = open(path, O_RDWR);
	page = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (page == MAP_FAILED)
		page = NULL;
	if (page)
		page[ev.status_index] = EVENT_STATUS_FTRACE;
	CHECK(page && ue_enabled(&ev) && !ue_enabled(&bits),
	      "status page: enabled by its byte, the bits event by its bit");
	k_enable(1);
	CHECK(ue_enabled(&bits), "the bits event still follows its bit");
	k_enable(0);
	calls = k.calls;
	CHECK(ue_event_unregister(&ev) == 0 && k.calls == calls && !ev.registered &&
	      ev.status == &ue_disabled_byte,
	      "status page: unregister resets the event, asks nothing");
	if (page)
		munmap(page, getpagesize());
	ue_set_abi(UE_ABI_BITS);
}

/* The child has the parent's enable bits: nothing to register again */
static void test_fork(void)
{
	struct ue_event ev = UE_EVENT("t_fork", "u32 a");
	const unsigned char *status;
	uint64_t addr;
	int st = -1;
	pid_t pid;

	ue_event_register(&ev);
	addr = k.bits.enable_addr;
	status = ev.status;
	pid = fork();
	if (!pid) {
		k.calls = 0;
		if (ue_event_register(&ev) || k.calls || ev.status != status)
			_exit(1);
		if (ue_event_unregister(&ev) || k.calls != 1 ||
		    k.unreg.disable_addr != addr)
			_exit(2);
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		st = WEXITSTATUS(st);
	CHECK(st == 0, "fork: the child registers nothing again and unregisters its word (step %d)",
	      st);
	CHECK(ev.registered && ev.status == status, "fork: the parent's event is as it was");
}

static void test_write(void)
{
	struct ue_event bits = UE_EVENT("t_wbits", "u32 a");
	struct ue_event st = UE_EVENT("t_wstatus", "u32 a");
	uint32_t v = 1;
	struct iovec iov = { &v, sizeof(v) };
	struct ue_writer w;

	ue_event_register(&bits);
	ue_set_abi(UE_ABI_STATUS);
	ue_event_register(&st);
	ue_set_abi(UE_ABI_BITS);
	CHECK(ue_write(&bits, &iov, 1) == 4 && ue_write(&st, &iov, 1) == 4,
	      "a write: the payload bytes");
	k.write_err = EBADF;
	CHECK(ue_write(&bits, &iov, 1) == 0, "enable-bit ABI: EBADF is 'not recorded', 0");
	ue_write_begin(&w, &bits);
	ue_add_u32(&w, 1);
	CHECK(ue_write_end(&w) == 0, "... from ue_write_end() too");
	errno = 0;
	CHECK(ue_write(&st, &iov, 1) == -EBADF && errno == EBADF,
	      "status page: EBADF is an error");
	k.write_err = EINVAL;
	CHECK(ue_write(&bits, &iov, 1) == -EINVAL, "enable-bit ABI: other errors stay errors");
	k.write_err = 0;
}

/* Which call hands a record over, and the bytes it hands over */
static void test_one_write(void)
{
	struct ue_event ev = UE_EVENT("t_one", "u64 id; char[56] text");
	/* n = 7, then s: 3 bytes right after its loc word, then "hi" */
	static const unsigned char small[] = { 7, 0, 0, 0, 0, 0, 3, 0, 'h', 'i', 0 };
	static char big[2000], text[56] = "a 64-byte record";
	uint64_t id = 42;
	struct iovec iov[2] = { { &id, sizeof(id) }, { text, sizeof(text) } };
	struct iovec large = { big, 600 };
	unsigned char rec[68];
	struct ue_writer w;
	int ok;

	memset(big, 'x', sizeof(big) - 1);
	ue_event_register(&ev);
	/* 64 bytes in two iovecs: one write() of the index and the payload */
	ok = ue_write(&ev, iov, 2) == 64 && k.call == 'w' && k.len == 68 &&
	     !memcmp(k.bytes, &ev.write_index, 4) && !memcmp(k.bytes + 4, &id, 8) &&
	     !memcmp(k.bytes + 12, text, sizeof(text));
	CHECK(ok, "64 bytes: one write() of index and payload (call %c, %zu bytes)",
	      k.call, k.len);
	/* 508 payload bytes fill the 512-byte copy; one more goes as iovecs */
	large.iov_len = 508;
	CHECK(ue_write(&ev, &large, 1) == 508 && k.call == 'w' && k.len == 512,
	      "a 512-byte record: write() (call %c)", k.call);
	large.iov_len = 509;
	ok = ue_write(&ev, &large, 1) == 509 && k.call == 'v' && k.len == 513 &&
	     k.iov_base[1] == big && !memcmp(k.bytes + 4, big, 509);
	CHECK(ok, "a 513-byte record: writev() of the caller's memory (call %c)", k.call);
	/* fixed fields through the writer: its own buffer, written as it is */
	ue_write_begin(&w, &ev);
	ue_add_u64(&w, id);
	ue_add_chars(&w, text, sizeof(text));
	ok = ue_write_end(&w) == 64 && k.call == 'w' && k.len == 68 &&
	     k.buf == w.scratch && !memcmp(k.bytes, &ev.write_index, 4) &&
	     !memcmp(k.bytes + 4, &id, 8) && !memcmp(k.bytes + 12, text, sizeof(text));
	CHECK(ok, "fixed fields: one write() of the writer's buffer (call %c, %zu bytes)",
	      k.call, k.len);
	/*
	 * a large __rel_loc string is not copied: the writer's buffer (index,
	 * n, the loc word), then the string
	 */
	ue_event_init(&ev, "t_one2 u32 n; __rel_loc char[] s");
	ue_event_register(&ev);
	ue_write_begin(&w, &ev);
	ue_add_u32(&w, 7);
	ue_add_str(&w, big);
	ok = ue_write_end(&w) == 4 + 4 + (ssize_t)sizeof(big) && k.call == 'v' &&
	     k.nr_iov == 2 && k.iov_base[1] == big;
	CHECK(ok, "a 2000-byte __rel_loc string: writev(), not copied (call %c, %d iovecs)",
	      k.call, k.nr_iov);
	/* a small one is, and the bytes are the same */
	ue_write_begin(&w, &ev);
	ue_add_u32(&w, 7);
	ue_add_str(&w, "hi");
	ok = ue_write_end(&w) == 11 && k.call == 'w' && k.len == 15 &&
	     !memcmp(k.bytes + 4, small, sizeof(small));
	CHECK(ok, "a small __rel_loc string: one write() of the laid-out bytes (call %c)",
	      k.call);
	/* a record laid out by the caller: its index filled in, written as it is */
	ue_event_init(&ev, "t_rec u64 id; char[56] text");
	memset(rec, 0xee, sizeof(rec));
	memcpy(rec + 4, &id, 8);
	memcpy(rec + 12, text, sizeof(text));
	ok = ue_write_record(&ev, rec, sizeof(rec)) == 64 && ev.registered &&
	     k.call == 'w' && k.buf == rec && k.len == 68 &&
	     !memcmp(rec, &ev.write_index, 4) && !memcmp(k.bytes + 12, text, sizeof(text));
	CHECK(ok, "ue_write_record(): registers, fills in the index, one write() (call %c)",
	      k.call);
	k.call = 0;
	CHECK(ue_write_record(&ev, rec, 3) == -EINVAL && errno == EINVAL && !k.call,
	      "ue_write_record(): a record shorter than the index is refused, nothing written");
	/* checked before the event is registered: bad input registers nothing */
	ue_event_init(&ev, "t_rec_short u32 n");
	CHECK(ue_write_record(&ev, rec, 3) == -EINVAL && !ev.registered && !k.call,
	      "ue_write_record(): a short record of a new event: EINVAL, not registered");
	/* errors of write() are those of writev() */
	k.write_err = ENOENT;
	CHECK(ue_write(&ev, iov, 2) == -ENOENT && errno == ENOENT && k.call == 'w',
	      "write(): an error is returned as from writev()");
	k.write_err = 0;
}

/*
 * A kernel without batches refuses DIAG_IOCSBATCH (ENOTTY, as this fake
 * does every request it does not know): a flush writes each record alone
 * to user_events_data, as a write of it would be, and asks once
 */
static void test_batch_fallback(void)
{
	struct ue_event ev = UE_EVENT("t_bat", "u32 n");
	unsigned char buf[64];
	struct ue_batch b;
	int calls, writes, ok;
	uint32_t n;

	ue_event_register(&ev);
	CHECK(!ue_batch_init(&b, buf, sizeof(buf)), "a batch of 64 bytes");
	for (n = 1; n <= 3; n++)
		ue_batch_add_record(&b, &ev, &n, sizeof(n));
	calls = k.calls;
	writes = k.writes;
	ok = !ue_batch_flush(&b) && k.calls == calls + 1 && k.writes == writes + 3 &&
	     k.len == 8 && !memcmp(k.bytes, &ev.write_index, 4) &&
	     !memcmp(k.bytes + 4, &(uint32_t){ 3 }, 4);
	CHECK(ok, "ENOTTY: one ioctl, then each record alone (%d ioctls, %d writes)",
	      k.calls - calls, k.writes - writes);
	n = 4;
	ue_batch_add_record(&b, &ev, &n, sizeof(n));
	calls = k.calls;
	CHECK(!ue_batch_flush(&b) && k.calls == calls && k.len == 8,
	      "the next flush asks no more (%d ioctls)", k.calls - calls);
}

int main(void)
{
	char path[64];

	printf("TAP version 13\n");
	unsetenv("USER_EVENTS_ABI");
	snprintf(dir, sizeof(dir), "/tmp/test_abi.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("USER_EVENTS_TRACEFS", dir, 1);
	test_choice();
	test_files();
	test_bits();
	test_flags();
	test_status();
	test_fork();
	test_write();
	test_one_write();
	test_batch_fallback();
	/* test_files() made the file (one open), the library opened it once */
	CHECK(k.data_opens == 2, "user_events_data opened once by the library (%d opens)",
	      k.data_opens - 1);
	snprintf(path, sizeof(path), "%s/user_events_data", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/user_events_status", dir);
	unlink(path);
	rmdir(dir);
	return t_done("test_abi");
}
