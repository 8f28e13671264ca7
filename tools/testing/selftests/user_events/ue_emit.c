// SPDX-License-Identifier: GPL-2.0
/*
 * ue_emit: register a user event and write records to it, for tests that
 * drive real consumers (perf, trace-cmd, bpftrace) from a shell script.
 *
 *   ue_emit [-n COUNT] [-w] [-t SECONDS] [-s] [-I FIELD] [-x]
 *           'NAME[:FLAGS] TYPE FIELD[; TYPE FIELD...]' [FIELD=VALUE ...]
 *
 * The description is parsed here as well, so that each FIELD=VALUE lands
 * where the kernel expects it: integers in their size (negative values for
 * any type), char[N] as text padded with NULs, __data_loc/__rel_loc char[]
 * as NUL-terminated text after the fixed fields, byte fields (unsigned
 * char[N], struct, loc arrays of bytes) as text or as 0x-prefixed hex, loc
 * arrays of wider integers as comma-separated numbers. Fields without a
 * value are zero (strings empty).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <linux/user_events.h>

#define TRACEFS "/sys/kernel/tracing/"
#define MAX_FIELDS 64
#define MAX_RECORD 65536
/* the kernel writes the status page behind our back */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum kind {
	K_INT,		/* u8 ... s64, char, short, int and unsigned forms */
	K_CHARS,	/* char[N]: text */
	K_BYTES,	/* unsigned char[N], struct T name N: bytes */
	K_LOC,		/* __data_loc / __rel_loc TYPE[] */
};

struct field {
	char name[256];
	enum kind kind;
	unsigned int size;	/* bytes in the fixed part */
	unsigned int elem;	/* element size of a K_LOC array */
	int is_signed;
	int is_char;		/* element is char: a NUL-terminated string */
	int rel;		/* __rel_loc */
	unsigned int offset;	/* in the payload */
	const char *value;	/* from the command line, or NULL */
};

static const struct {
	const char *name;
	unsigned int size;
	int is_signed;
} types[] = {
	{ "u8", 1, 0 }, { "s8", 1, 1 }, { "u16", 2, 0 }, { "s16", 2, 1 },
	{ "u32", 4, 0 }, { "s32", 4, 1 }, { "u64", 8, 0 }, { "s64", 8, 1 },
	{ "char", 1, 1 }, { "short", 2, 1 }, { "int", 4, 1 },
	{ "unsigned char", 1, 0 }, { "unsigned short", 2, 0 },
	{ "unsigned int", 4, 0 },
};

static struct field fields[MAX_FIELDS];
static int nr_fields;

static void usage(void)
{
	fprintf(stderr,
		"Usage: ue_emit [-n COUNT] [-w] [-t SECONDS] [-s] [-I FIELD] [-x]\n"
		"               'NAME[:FLAGS] TYPE FIELD[; ...]' [FIELD=VALUE ...]\n"
		"  -n COUNT    records to write (default 1; 0 only registers)\n"
		"  -w          wait until the status byte is non-zero before writing\n"
		"  -t SECONDS  give up waiting after this long (default 30)\n"
		"  -s          print \"status=N\" (the status byte) after registering\n"
		"              and, with -n, \"status=N\" again after writing\n"
		"  -I FIELD    add 1 to integer FIELD after each record\n"
		"  -x          delete the event before exiting\n"
		"VALUE: integers in C notation (negative ones too); text for char[N]\n"
		"and char strings; 0xHEX or text for byte fields; n,n,... for\n"
		"__data_loc/__rel_loc arrays of wider integers\n");
	exit(2);
}

static int find_type(const char *name, unsigned int *size, int *is_signed)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		if (!strcmp(types[i].name, name)) {
			*size = types[i].size;
			*is_signed = types[i].is_signed;
			return 0;
		}
	}
	return -1;
}

/* One "TYPE NAME" or "struct T NAME SIZE" of the description */
static int parse_field(char *text, struct field *f)
{
	char *w[6], *tok, *bracket, type[64];
	int n = 0, i = 0;
	unsigned long v;
	char *end;

	while ((tok = strsep(&text, " \t\n"))) {
		if (!*tok)
			continue;
		if (n == 6)
			return -1;
		w[n++] = tok;
	}
	memset(f, 0, sizeof(*f));
	if (n >= 4 && !strcmp(w[0], "struct")) {
		v = strtoul(w[3], &end, 0);
		if (n != 4 || *end || !v || v > MAX_RECORD)
			return -1;
		f->kind = K_BYTES;
		f->size = v;
		snprintf(f->name, sizeof(f->name), "%s", w[2]);
		return 0;
	}
	if (n && (!strcmp(w[0], "__data_loc") || !strcmp(w[0], "__rel_loc"))) {
		f->kind = K_LOC;
		f->rel = !strcmp(w[0], "__rel_loc");
		i++;
	}
	if (n - i == 3 && !strcmp(w[i], "unsigned")) {
		snprintf(type, sizeof(type), "unsigned %s", w[i + 1]);
		i += 2;
	} else if (n - i == 2) {
		snprintf(type, sizeof(type), "%s", w[i]);
		i++;
	} else {
		return -1;
	}
	snprintf(f->name, sizeof(f->name), "%s", w[i]);
	bracket = strchr(type, '[');
	if (bracket)
		*bracket++ = '\0';
	if (find_type(type, &f->elem, &f->is_signed))
		return -1;
	f->is_char = !strcmp(type, "char");
	if (f->kind == K_LOC) {
		if (!bracket || strcmp(bracket, "]"))
			return -1;
		f->size = 4;
	} else if (bracket) {
		v = strtoul(bracket, &end, 0);
		if (!v || v > MAX_RECORD || strcmp(end, "]"))
			return -1;
		f->kind = f->is_char ? K_CHARS : K_BYTES;
		f->size = v;
	} else {
		f->kind = K_INT;
		f->size = f->elem;
	}
	return 0;
}

/* "name[:flags] fields": fill fields[], return the fixed payload size */
static int parse_desc(const char *desc, unsigned int *fixed)
{
	char *copy = strdup(desc), *list, *field;
	unsigned int off = 0;

	if (!copy)
		return -1;
	list = strpbrk(copy, " \t");
	nr_fields = 0;
	while (list && (field = strsep(&list, ";"))) {
		if (strspn(field, " \t\n") == strlen(field))
			continue;
		if (nr_fields == MAX_FIELDS ||
		    parse_field(field, &fields[nr_fields])) {
			fprintf(stderr, "ue_emit: cannot parse field '%s'\n", field);
			free(copy);
			return -1;
		}
		fields[nr_fields].offset = off;
		off += fields[nr_fields++].size;
	}
	free(copy);
	*fixed = off;
	return 0;
}

static struct field *find_field(const char *name, size_t len)
{
	int i;

	for (i = 0; i < nr_fields; i++)
		if (strlen(fields[i].name) == len && !strncmp(fields[i].name, name, len))
			return &fields[i];
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int parse_int(const char *s, __u64 *v)
{
	char *end;

	errno = 0;
	if (*s == '-')
		*v = (__u64)strtoll(s, &end, 0);
	else
		*v = strtoull(s, &end, 0);
	return errno || !*s || *end ? -1 : 0;
}

/* Little-endian or not: the host's order, as a C program would write it */
static void put_int(unsigned char *p, unsigned int size, __u64 v)
{
	__u8 u8 = v;
	__u16 u16 = v;
	__u32 u32 = v;

	switch (size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/*
 * The bytes of a byte field's or loc array's value into @out (at most
 * @max): "0x..." as hex, a loc array of wider elements as "n,n,...",
 * anything else as its text. Returns the length or -1.
 */
static int value_bytes(const struct field *f, const char *s, unsigned char *out,
		       unsigned int max)
{
	unsigned int len = 0;
	__u64 v;
	char *copy, *tok, *rest;
	int hi, lo;

	if (f->kind == K_LOC && f->elem > 1) {
		copy = strdup(s);
		if (!copy)
			return -1;
		rest = copy;
		while (*s && (tok = strsep(&rest, ","))) {
			if (len + f->elem > max || parse_int(tok, &v)) {
				free(copy);
				return -1;
			}
			put_int(out + len, f->elem, v);
			len += f->elem;
		}
		free(copy);
		return len;
	}
	if (!strncmp(s, "0x", 2)) {
		for (s += 2; *s; s += 2) {
			hi = hexval(s[0]);
			lo = hi < 0 ? -1 : hexval(s[1]);
			if (lo < 0 || len == max)
				return -1;
			out[len++] = hi << 4 | lo;
		}
		return len;
	}
	len = strlen(s);
	if (len > max)
		return -1;
	memcpy(out, s, len);
	return len;
}

/* Lay out one record of all fields into @rec; returns its size or -1 */
static int build_record(unsigned char *rec, unsigned int fixed)
{
	unsigned int dyn = fixed, loc;
	struct field *f;
	__u64 v;
	int i, len;

	memset(rec, 0, MAX_RECORD);
	for (i = 0; i < nr_fields; i++) {
		f = &fields[i];
		switch (f->kind) {
		case K_INT:
			v = 0;
			if (f->value && parse_int(f->value, &v))
				goto bad;
			put_int(rec + f->offset, f->size, v);
			break;
		case K_CHARS:
			/* as much as fits; the rest stays NUL */
			if (f->value)
				memcpy(rec + f->offset, f->value,
				       strnlen(f->value, f->size));
			break;
		case K_BYTES:
			if (f->value &&
			    value_bytes(f, f->value, rec + f->offset, f->size) < 0)
				goto bad;
			break;
		case K_LOC:
			len = value_bytes(f, f->value ? f->value : "",
					  rec + dyn, MAX_RECORD - dyn - 1);
			if (len < 0)
				goto bad;
			if (f->is_char)
				rec[dyn + len++] = '\0';
			/* __data_loc counts from the record's start (8-byte header) */
			loc = f->rel ? dyn - (f->offset + 4) : dyn + 8;
			put_int(rec + f->offset, 4, (__u64)len << 16 | loc);
			dyn += len;
			break;
		}
	}
	return dyn;
bad:
	fprintf(stderr, "ue_emit: bad value for %s: '%s'\n", f->name,
		f->value ? f->value : "");
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *desc, *inc = NULL, *eq;
	int count = 1, wait = 0, show = 0, del = 0, timeout = 30;
	const unsigned char *status;
	struct field *incf = NULL;
	unsigned int fixed, idx;
	struct user_reg reg;
	unsigned char *rec;
	struct iovec iov[2];
	char name[256];
	int opt, fd, sfd, i, len;
	double start;

	while ((opt = getopt(argc, argv, "n:wt:sI:x")) != -1) {
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
			inc = optarg;
			break;
		case 'x':
			del = 1;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || count < 0)
		usage();
	desc = argv[optind++];
	if (parse_desc(desc, &fixed))
		return 2;
	for (; optind < argc; optind++) {
		struct field *f;

		eq = strchr(argv[optind], '=');
		f = eq ? find_field(argv[optind], eq - argv[optind]) : NULL;
		if (!f) {
			fprintf(stderr, "ue_emit: no such field: %s\n", argv[optind]);
			return 2;
		}
		f->value = eq + 1;
	}
	if (inc) {
		incf = find_field(inc, strlen(inc));
		if (!incf || incf->kind != K_INT) {
			fprintf(stderr, "ue_emit: -I needs an integer field\n");
			return 2;
		}
	}
	rec = malloc(MAX_RECORD);
	if (!rec)
		return 1;

	sfd = open(TRACEFS "user_events_status", O_RDONLY);
	if (sfd < 0) {
		perror("ue_emit: user_events_status");
		return 1;
	}
	status = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, sfd, 0);
	close(sfd);
	if (status == MAP_FAILED) {
		perror("ue_emit: mmap status page");
		return 1;
	}
	fd = open(TRACEFS "user_events_data", O_RDWR);
	if (fd < 0) {
		perror("ue_emit: user_events_data");
		return 1;
	}
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.name_args = (unsigned long)desc;
	if (ioctl(fd, DIAG_IOCSREG, &reg)) {
		perror("ue_emit: DIAG_IOCSREG");
		return 1;
	}
	idx = reg.status_index;
	if (show)
		printf("status=%u\n", READ_ONCE(status[idx]));
	fflush(stdout);

	if (wait && count) {
		start = now();
		while (!READ_ONCE(status[idx])) {
			if (now() - start > timeout) {
				fprintf(stderr, "ue_emit: nobody attached in %d s\n",
					timeout);
				return 1;
			}
			usleep(10000);
		}
	}

	for (i = 0; i < count; i++) {
		len = build_record(rec, fixed);
		if (len < 0)
			return 2;
		iov[0].iov_base = &reg.write_index;
		iov[0].iov_len = sizeof(reg.write_index);
		iov[1].iov_base = rec;
		iov[1].iov_len = len;
		if (writev(fd, iov, 2) != (ssize_t)(len + sizeof(reg.write_index))) {
			perror("ue_emit: writev");
			return 1;
		}
		if (incf) {
			static char next[32];
			__u64 v = 0;

			if (incf->value)
				parse_int(incf->value, &v);
			snprintf(next, sizeof(next), "%lld", (long long)(v + 1));
			incf->value = next;
		}
	}
	if (show && count)
		printf("status=%u\n", READ_ONCE(status[idx]));

	close(fd);
	if (del) {
		/* the event's name: up to the first ':' or blank */
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(desc, ": \t"), desc);
		fd = open(TRACEFS "user_events_data", O_RDWR);
		if (fd < 0 || ioctl(fd, DIAG_IOCSDEL, name)) {
			perror("ue_emit: DIAG_IOCSDEL");
			return 1;
		}
		close(fd);
	}
	return 0;
}
