// SPDX-License-Identifier: GPL-2.0
/*
 * ue_emit: register a user event and write records to it, for tests that
 * drive real consumers (perf, trace-cmd, bpftrace) from a shell script.
 *
 *   ue_emit [-n COUNT] [-w] [-t SECONDS] [-s] [-I FIELD] [-x] [-D DIR]
 *           'NAME[:FLAGS] TYPE FIELD[; TYPE FIELD...]' [FIELD=VALUE ...]
 *
 * The description is parsed and each FIELD=VALUE laid out where the kernel
 * expects it by the user_events command's encoder (tools/tracing/user_events/
 * encode.c, `user_events emit` takes the same values): integers in their
 * size (negative values for any type), char[N] as text, byte fields
 * (unsigned char[N], struct, loc arrays of bytes) as hex, __data_loc/
 * __rel_loc char[] as NUL-terminated text after the fixed fields, loc arrays
 * of wider integers as comma-separated numbers. Fields without a value are
 * zero (strings empty).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <linux/user_events.h>

#include "encode.h"
#define UE_TIMING_ONLY
#include "ue_helpers.h"	/* the waits, scaled by USER_EVENTS_TIMEOUT_SCALE */

#define TRACEFS "/sys/kernel/tracing/"
/* -b: a bit of the word's first byte, whatever the byte order */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FIRST_BYTE_BIT 24
#else
#define FIRST_BYTE_BIT 0
#endif

/* the kernel writes the status page behind our back */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* @file of @dir (the top of tracefs or a group's), or -1 when it cannot be opened */
static int open_in(const char *dir, const char *file, int flags)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, flags);
	if (fd < 0)
		fprintf(stderr, "ue_emit: %s: %s\n", path, strerror(errno));
	return fd;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: ue_emit [-n COUNT] [-w] [-f FILE] [-t SECONDS] [-s] [-I FIELD] [-x] [-b]\n"
		"               [-M] [-D DIR]\n"
		"               'NAME[:FLAGS] TYPE FIELD[; ...]' [FIELD=VALUE ...]\n"
		"  -n COUNT    records to write (default 1; 0 only registers)\n"
		"  -w          wait until the status byte is non-zero before writing\n"
		"  -f FILE     and then until FILE exists (a consumer that attaches\n"
		"              before it records, as perf record does, creates it)\n"
		"  -t SECONDS  give up waiting after this long times\n"
		"              USER_EVENTS_TIMEOUT_SCALE (default 600: it only\n"
		"              bounds a hang)\n"
		"  -s          print \"status=N\" (the status byte) after registering\n"
		"              and, with -n, \"status=N\" again after writing\n"
		"  -I FIELD    add 1 to integer FIELD after each record\n"
		"  -x          delete the event before exiting\n"
		"  -b          register through the enable-bit ABI (a bit of a word)\n"
		"              instead of the status page: without -x, the event is\n"
		"              deleted automatically once nothing refers to it\n"
		"  -M          -b with USER_EVENT_REG_MULTI_FORMAT: an event of its own\n"
		"              in the multi-format system, named NAME.ID\n"
		"  -D DIR      user_events_data and user_events_status of DIR (a\n"
		"              group's directory) instead of the top of tracefs\n"
		"VALUE: integers in C notation (negative ones too); text for char[N]\n"
		"and char strings; 0xHEX or de:ad for byte fields; n,n,... for\n"
		"__data_loc/__rel_loc arrays of wider integers\n");
	exit(2);
}

/*
 * The FIELD=VALUE of -I's @field among @assign (@n of them, room for one
 * more): its index, or a new "FIELD=0" at the end when it has none yet
 */
static int inc_slot(const struct uec_desc *d, const char *field,
		    const char **assign, int *n)
{
	size_t len = strlen(field);
	static char zero[UEC_MAX_NAME + 3];
	int i;

	for (i = 0; i < d->nr_fields; i++)
		if (!strcmp(d->fields[i].name, field))
			break;
	if (i == d->nr_fields || d->fields[i].kind != UEC_INT)
		return -1;
	for (i = 0; i < *n; i++)
		if (!strncmp(assign[i], field, len) && assign[i][len] == '=')
			return i;
	snprintf(zero, sizeof(zero), "%s=0", field);
	assign[*n] = zero;
	return (*n)++;
}

int main(int argc, char **argv)
{
	int count = 1, wait = 0, show = 0, del = 0, timeout = 600, inc = -1, bits = 0;
	int multi = 0;
	/* -b: the word whose bit the kernel keeps set while anyone listens */
	static __u32 word;
	const char *desc, *inc_field = NULL, **assign, *go_file = NULL;
	static unsigned char rec[UEC_MAX_RECORD];
	const unsigned char *status;
	static struct uec_desc d;
	int opt, fd, sfd, i, n, len;
	struct user_status_reg reg;
	struct iovec iov[2];
	char err[512], name[256];
	const char *dir = TRACEFS;
	unsigned int idx;

	while ((opt = getopt(argc, argv, "n:wf:t:sI:xbMD:")) != -1) {
		switch (opt) {
		case 'n':
			count = atoi(optarg);
			break;
		case 'w':
			wait = 1;
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		case 's':
			show = 1;
			break;
		case 'I':
			inc_field = optarg;
			break;
		case 'x':
			del = 1;
			break;
		case 'b':
			bits = 1;
			break;
		case 'M':
			bits = 1;
			multi = 1;
			break;
		case 'f':
			go_file = optarg;
			break;
		case 'D':
			dir = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || count < 0)
		usage();
	desc = argv[optind++];
	n = argc - optind;
	assign = calloc(n + 1, sizeof(*assign));
	if (!assign)
		return 1;
	memcpy(assign, &argv[optind], n * sizeof(*assign));
	if (uec_parse_desc(desc, &d, err, sizeof(err))) {
		fprintf(stderr, "ue_emit: %s\n", err);
		return 2;
	}
	if (inc_field) {
		inc = inc_slot(&d, inc_field, assign, &n);
		if (inc < 0) {
			fprintf(stderr, "ue_emit: -I needs an integer field\n");
			return 2;
		}
	}
	/* every value checked before the event is registered */
	len = uec_encode(&d, assign, n, rec, sizeof(rec), err, sizeof(err));
	if (len < 0) {
		fprintf(stderr, "ue_emit: %s\n", err);
		return 2;
	}

	sfd = open_in(dir, "user_events_status", O_RDONLY);
	if (sfd < 0)
		return 1;
	status = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, sfd, 0);
	close(sfd);
	if (status == MAP_FAILED) {
		perror("ue_emit: mmap status page");
		return 1;
	}
	fd = open_in(dir, "user_events_data", O_RDWR);
	if (fd < 0)
		return 1;
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.name_args = (unsigned long)desc;
	if (bits) {
		struct user_reg breg = {
			.size = sizeof(breg),
			.enable_size = sizeof(word),
			.enable_bit = FIRST_BYTE_BIT,
			.flags = multi ? USER_EVENT_REG_MULTI_FORMAT : 0,
			.enable_addr = (unsigned long)&word,
			.name_args = (unsigned long)desc,
		};

		if (ioctl(fd, DIAG_IOCSREG, &breg)) {
			perror("ue_emit: DIAG_IOCSREG");
			return 1;
		}
		reg.write_index = breg.write_index;
		status = (const unsigned char *)&word;
		idx = 0;
	} else {
		if (ioctl(fd, DIAG_IOCSREG, &reg)) {
			perror("ue_emit: DIAG_IOCSREG");
			return 1;
		}
		idx = reg.status_index;
	}
	if (show)
		printf("status=%u\n", READ_ONCE(status[idx]));
	fflush(stdout);

	if (wait && count &&
	    !ue_wait_for(timeout * 1000L, READ_ONCE(status[idx]),
			 "ue_emit: a consumer of %s (its status %s non-zero)", d.name,
			 bits ? "bit" : "byte"))
		return 1;
	if (go_file && count &&
	    !ue_wait_for(timeout * 1000L, !access(go_file, F_OK), "ue_emit: %s to exist",
			 go_file))
		return 1;

	for (i = 0; i < count; i++) {
		len = uec_encode(&d, assign, n, rec, sizeof(rec), err, sizeof(err));
		if (len < 0) {
			fprintf(stderr, "ue_emit: %s\n", err);
			return 2;
		}
		iov[0].iov_base = &reg.write_index;
		iov[0].iov_len = sizeof(reg.write_index);
		iov[1].iov_base = rec;
		iov[1].iov_len = len;
		if (writev(fd, iov, 2) != (ssize_t)(len + sizeof(reg.write_index))) {
			perror("ue_emit: writev");
			return 1;
		}
		if (inc >= 0) {
			static char next[UEC_MAX_NAME + 24];
			const char *v = strchr(assign[inc], '=') + 1;

			snprintf(next, sizeof(next), "%s=%lld", inc_field,
				 *v == '-' ? strtoll(v, NULL, 0) + 1 :
				 (long long)(strtoull(v, NULL, 0) + 1));
			assign[inc] = next;
		}
	}
	if (show && count)
		printf("status=%u\n", READ_ONCE(status[idx]));

	close(fd);
	if (del) {
		snprintf(name, sizeof(name), "%s", d.name);
		fd = open_in(dir, "user_events_data", O_RDWR);
		if (fd < 0 || ioctl(fd, DIAG_IOCSDEL, name)) {
			perror("ue_emit: DIAG_IOCSDEL");
			return 1;
		}
		close(fd);
	}
	free(assign);
	return 0;
}
