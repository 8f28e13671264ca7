// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: create, list, delete and write Linux user_events from the
 * command line, on top of libuserevents. Run "user_events --help".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/user_events.h>

#include "user_events.h"
#include "encode.h"

/* Exit codes: see usage() */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,
	EXIT_KERNEL = 2,
	EXIT_ACCESS = 3,
	EXIT_NOEVENT = 4,
};

#define PROG "user_events"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* register -f: the longest line, its newline and NUL included */
#define REGISTER_LINE_MAX 4096

static const char usage_text[] =
"Usage: " PROG " [--abi=bits|status] COMMAND [ARGS]\n"
"\n"
"Commands:\n"
"  status                    list the events of the status page with their\n"
"                            status bytes decoded (an event registered only\n"
"                            through the enable-bit ABI has no status byte)\n"
"  register 'NAME[:FLAGS] [FIELDS]'\n"
"                            create the event (or check that it exists with\n"
"                            these fields); it stays until deleted\n"
"  register -f FILE          the same for each line of FILE (- for standard\n"
"                            input; blank lines and # comments skipped): what\n"
"                            a collector needs before it starts recording\n"
"                            (events created later miss its copy of the\n"
"                            formats); a line that fails is named, the rest\n"
"                            are still registered, the status is the first\n"
"                            failure's\n"
"  delete NAME               delete the event\n"
"  emit [-n COUNT] EVENT [FIELD=VALUE ...] [-- EVENT [FIELD=VALUE ...] ...]\n"
"                            write the event once (COUNT times); EVENT is a\n"
"                            name, whose fields are read from tracefs, or a\n"
"                            whole description 'NAME FIELDS'; fields not given\n"
"                            are 0 or empty. Several events, separated by --\n"
"                            (at most 64), go in one write, a batch (COUNT\n"
"                            times each, in batches of up to 1 MiB), in order\n"
"  format NAME               print the event's description and its fields\n"
"  help, --help, -h          this text\n"
"\n"
"Options:\n"
"  --abi=bits|status         how register and emit register the event; status,\n"
"                            delete and format work on every event, whoever\n"
"                            created it\n"
"    bits    the enable-bit ABI of Linux 6.4+, the default of emit (as of\n"
"            libuserevents: USER_EVENTS_ABI=status in the environment\n"
"            changes it); needs user_events_data only. An event that emit\n"
"            creates this way is deleted again when it exits: register it\n"
"            first. register --abi=bits registers the event persistent\n"
"            (USER_EVENT_REG_PERSIST), which needs CAP_PERFMON, also to\n"
"            delete it; status does not list it.\n"
"    status  the status page, the default of register, whose point is an\n"
"            event that outlives the command: it stays until deleted, any\n"
"            user with access to user_events_data and user_events_status\n"
"            may create it, and status lists it.\n"
"  Either way, emit while nothing is attached records nothing and exits 0.\n"
"\n"
"FIELDS are 'type name' pairs separated by ';': u8 s8 u16 s16 u32 s32 u64 s64\n"
"char short int, unsigned char/short/int, char[N], unsigned char[N],\n"
"__rel_loc char[] (a string), __data_loc char[], __rel_loc TYPE[] (an array),\n"
"struct TYPE NAME SIZE; N and SIZE are 1 to 1024, decimal or 0x hex, without\n"
"leading zeros. See Documentation/trace/user_events.rst.\n"
"\n"
"VALUES: integers in C notation (-5, 0x1f, 017); text for char[N] and\n"
"strings; hex bytes for unsigned char[N], struct and byte arrays (0xdeadbeef\n"
"or de:ad:be:ef); comma-separated integers for other arrays (1,2,3).\n"
"\n"
"Examples:\n"
"  " PROG " register 'job_done u32 id; s32 rc; __rel_loc char[] name'\n"
"  echo 1 > /sys/kernel/tracing/events/user_events/job_done/enable\n"
"  " PROG " emit job_done id=42 rc=-1 name=backup\n"
"  " PROG " emit job_done id=1 -- job_done id=2 rc=3   # one write\n"
"  " PROG " --abi=status emit 'ping u64 seq' seq=7   # registers ping if needed\n"
"  " PROG " status\n"
"  " PROG " format job_done\n"
"  " PROG " delete job_done\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  bad arguments, description or FIELD=VALUE\n"
"  2  the kernel refused the request; the message names the errno\n"
"     (EADDRINUSE, EBUSY, EINVAL, ENOENT, E2BIG, EMFILE, EPERM, ...)\n"
"  3  user_events cannot be used: user_events_data (or, for the status\n"
"     page, user_events_status) cannot be opened (EACCES: ask for access\n"
"     to them; ENOENT: no tracefs or a kernel without CONFIG_USER_EVENTS)\n"
"  4  no such event (emit, format), or its format cannot be read: give\n"
"     the whole description instead\n"
"\n"
"Environment: USER_EVENTS_TRACEFS, the tracefs directory to use\n"
"(default /sys/kernel/tracing); USER_EVENTS_ABI, emit's default ABI.\n";

/* --abi, 0 when not given */
static int opt_abi;

static void usage(FILE *out)
{
	fputs(usage_text, out);
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" },
	{ EIO, "EIO" }, { E2BIG, "E2BIG" }, { EBADF, "EBADF" },
	{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
	{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { EMFILE, "EMFILE" },
	{ ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" },
	{ EADDRINUSE, "EADDRINUSE" },
	{ EOPNOTSUPP, "EOPNOTSUPP" },
};

static const char *errno_name(int err)
{
	static char buf[32];
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* Report a failed library call and give the exit code for it */
static int report(const char *what, int err)
{
	fprintf(stderr, PROG ": %s: %s: %s\n", what, errno_name(err),
		ue_strerror(err));
	return EXIT_KERNEL;
}

/* Open what ABI @abi needs (0: the library's choice), or report why not */
static int open_files(int abi)
{
	int err;

	if (abi)
		ue_set_abi(abi);
	err = ue_open();
	if (!err)
		return EXIT_OK;
	fprintf(stderr, PROG ": cannot use %s/user_events_data%s: %s: %s\n",
		ue_tracefs(),
		ue_get_abi() == UE_ABI_STATUS ? " and user_events_status" : "",
		errno_name(err), ue_strerror(err));
	return EXIT_ACCESS;
}

/* A tracefs file as a malloc()ed string, NULL (errno set) on error */
static char *read_tracefs(const char *rel)
{
	char path[512], *buf = NULL, *bigger;
	size_t len = 0, size = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", ue_tracefs(), rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	do {
		if (len + 1 >= size) {
			size = size ? 2 * size : 8192;
			bigger = realloc(buf, size);
			if (!bigger) {
				n = -1;
				break;
			}
			buf = bigger;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n > 0)
			len += n;
	} while (n > 0);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* After EINVAL from the kernel: its explanation, if error_log is readable */
static void show_error_log(void)
{
	char *log = read_tracefs("error_log"), *last = NULL, *p;

	if (!log)
		return;
	/* the last entry: a "[time] user_events: ..." line and its detail */
	for (p = log; (p = strstr(p, "user_events: ")); p++) {
		while (p > log && p[-1] != '\n')
			p--;
		last = p;
		p = strchr(p, '\n');
		if (!p)
			break;
	}
	if (last)
		fprintf(stderr, PROG ": error_log says:\n%s", last);
	free(log);
}

/* The bits of a status byte by name: "ftrace,perf", "-" for none */
static const char *consumers(unsigned char b, char *buf)
{
	static const char * const bits[8] = {
		[EVENT_BIT_FTRACE] = "ftrace", [EVENT_BIT_PERF] = "perf",
		[EVENT_BIT_OTHER] = "other",
	};
	size_t len = 0;
	int i;

	buf[0] = '-';
	buf[1] = '\0';
	for (i = 0; i < 8; i++) {
		if (!(b & (1 << i)))
			continue;
		if (bits[i])
			len += sprintf(buf + len, "%s%s", len ? "," : "", bits[i]);
		else
			len += sprintf(buf + len, "%sbit%d", len ? "," : "", i);
	}
	return buf;
}

static int cmd_status(int argc, char **argv)
{
	const unsigned char *page;
	char *text, *line, *rest, *hash, names[64];
	unsigned long idx;
	unsigned char b;

	(void)argc;
	(void)argv;
	page = ue_status_page();
	if (!page) {
		fprintf(stderr, PROG ": cannot use %s/user_events_status: %s: %s\n",
			ue_tracefs(), errno_name(errno), ue_strerror(errno));
		return EXIT_ACCESS;
	}
	text = read_tracefs("user_events_status");
	if (!text)
		return report("reading user_events_status", -errno);
	printf("%-5s %-6s %-17s %s\n", "INDEX", "STATUS", "CONSUMERS", "EVENT");
	rest = text;
	while ((line = strsep(&rest, "\n"))) {
		char *colon = strchr(line, ':');

		if (!colon || line[0] < '0' || line[0] > '9') {
			/* the totals, after an empty line */
			if (*line)
				printf("%s\n", line);
			else if (rest && *rest)
				printf("\n");
			continue;
		}
		idx = strtoul(line, NULL, 10);
		hash = strstr(line, " # ");
		if (hash)
			*hash = '\0';
		b = idx < (unsigned long)sysconf(_SC_PAGESIZE) ? page[idx] : 0;
		printf("%-5lu 0x%02x   %-17s %s\n", idx, b, consumers(b, names),
		       colon + 1);
	}
	free(text);
	return EXIT_OK;
}

/*
 * The event must outlive the command: the status page's events do; the
 * enable-bit ABI's only with USER_EVENT_REG_PERSIST
 */
/* Register one description (a persistent event either way); 0 or EXIT_* */
static int register_one(int abi, const char *desc)
{
	struct ue_event ev;
	int name_len, ret;

	ue_event_init(&ev, desc);
	ret = ue_event_register_flags(&ev, USER_EVENT_REG_PERSIST);
	if (ret) {
		report("register", ret);
		if (ret == -EINVAL)
			show_error_log();
		if (ret == -EPERM && abi == UE_ABI_BITS)
			fprintf(stderr, PROG ": --abi=status registers without CAP_PERFMON\n");
		return EXIT_KERNEL;
	}
	name_len = strcspn(desc, ": \t");
	if (abi == UE_ABI_STATUS)
		printf("%.*s: status index %u\n", name_len, desc, ev.status_index);
	else
		printf("%.*s: persistent, enable-bit ABI\n", name_len, desc);
	return EXIT_OK;
}

/*
 * register -f FILE: one description per line of FILE ("-": standard
 * input), blank lines and lines starting with # skipped. Every line is
 * tried; the status is the first failure's, and the lines that failed are
 * named. Events registered stay whatever the others did.
 */
static int register_file(int abi, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int ret = EXIT_OK, r, lineno = 0;
	char line[REGISTER_LINE_MAX];
	size_t len;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		len = strlen(line);
		if (len && line[len - 1] != '\n' && !feof(f)) {
			fprintf(stderr, PROG ": %s:%d: longer than %d characters\n",
				path, lineno, REGISTER_LINE_MAX - 2);
			if (!ret)
				ret = EXIT_USAGE;
			while (fgets(line, sizeof(line), f) && !strchr(line, '\n'))
				;
			continue;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == ' ' ||
			       line[len - 1] == '\t'))
			line[--len] = '\0';
		len = strspn(line, " \t");
		if (!line[len] || line[len] == '#')
			continue;
		r = register_one(abi, line + len);
		if (r) {
			fprintf(stderr, PROG ": %s:%d: not registered\n", path, lineno);
			if (!ret)
				ret = r;
		}
	}
	if (f != stdin)
		fclose(f);
	return ret;
}

static int cmd_register(int argc, char **argv)
{
	int abi = opt_abi ? opt_abi : UE_ABI_STATUS, ret;

	if (argc == 3 && strcmp(argv[1], "-f") && strcmp(argv[1], "--file")) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((argc != 2 && argc != 3) ||
	    (argc == 2 && (!strcmp(argv[1], "-f") || !strcmp(argv[1], "--file")))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ret = open_files(abi);
	if (ret)
		return ret;
	if (argc == 3)
		return register_file(abi, argv[2]);
	return register_one(abi, argv[1]);
}

/* Deleting needs user_events_data only, whatever created the event */
static int cmd_delete(int argc, char **argv)
{
	int ret;

	(void)argc;
	ret = open_files(UE_ABI_BITS);
	if (ret)
		return ret;
	ret = ue_delete_event(argv[1]);
	return ret ? report("delete", ret) : EXIT_OK;
}

/*
 * The description of @event: @event itself when it has fields or flags,
 * else from dynamic_events or the event's format file
 */
static int lookup(const char *event, struct uec_desc *d)
{
	char err[512], rel[512], *text;
	int ret;

	if (strpbrk(event, " \t:")) {
		ret = uec_parse_desc(event, d, err, sizeof(err));
		if (ret)
			fprintf(stderr, PROG ": %s\n", err);
		return ret ? EXIT_USAGE : EXIT_OK;
	}
	text = read_tracefs("dynamic_events");
	if (text) {
		ret = uec_desc_from_dynamic_events(text, event, d, err, sizeof(err));
		free(text);
		if (!ret)
			return EXIT_OK;
	}
	snprintf(rel, sizeof(rel), "events/user_events/%s/format", event);
	text = read_tracefs(rel);
	if (!text) {
		fprintf(stderr, PROG ": no event %s (%s/%s: %s)\n", event,
			ue_tracefs(), rel, strerror(errno));
		fprintf(stderr, PROG ": give the whole description 'NAME FIELDS' instead\n");
		return EXIT_NOEVENT;
	}
	ret = uec_desc_from_format(text, d, err, sizeof(err));
	free(text);
	if (ret) {
		fprintf(stderr, PROG ": %s: %s\n", rel, err);
		return EXIT_NOEVENT;
	}
	return EXIT_OK;
}

/* Most events of one emit */
#define EMIT_MAX_EVENTS 64

/* One event of an emit: registered, its record encoded */
struct emit_event {
	struct uec_desc *d;
	struct ue_event ev;
	unsigned char *rec;
	int len;
};

/* Look up, encode and register EVENT (@argv[0]) with its @argc values */
static int emit_prepare(struct emit_event *e, int argc, char **argv)
{
	char err[512];
	int ret;

	e->d = calloc(1, sizeof(*e->d));
	e->rec = malloc(UEC_MAX_RECORD);
	if (!e->d || !e->rec) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_KERNEL;
	}
	ret = lookup(argv[0], e->d);
	if (ret)
		return ret;
	e->len = uec_encode(e->d, (const char * const *)argv + 1, argc - 1,
			    e->rec, UEC_MAX_RECORD, err, sizeof(err));
	if (e->len < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return EXIT_USAGE;
	}
	ue_event_init(&e->ev, e->d->text);
	ret = ue_event_register(&e->ev);
	if (ret) {
		report("register", ret);
		if (ret == -EINVAL)
			show_error_log();
		return EXIT_KERNEL;
	}
	return EXIT_OK;
}

/* COUNT times each of the @nr events, in batches */
static int emit_batches(struct emit_event *evs, int nr, long count)
{
	static unsigned char buf[USER_EVENTS_BATCH_MAX];
	struct ue_batch b;
	long i;
	int k, ret;

	ret = ue_batch_init(&b, buf, sizeof(buf));
	for (i = 0; !ret && i < count; i++)
		for (k = 0; !ret && k < nr; k++)
			ret = ue_batch_add_record(&b, &evs[k].ev, evs[k].rec,
						  evs[k].len);
	if (!ret)
		ret = ue_batch_flush(&b);
	return ret ? report("write", ret) : EXIT_OK;
}

static int cmd_emit(int argc, char **argv)
{
	static struct emit_event evs[EMIT_MAX_EVENTS];
	struct iovec iov;
	long count = 1, i;
	int nr = 0, ret, opt, end;
	char *endp;
	ssize_t n;

	optind = 1;
	while ((opt = getopt(argc, argv, "+n:")) != -1) {
		switch (opt) {
		case 'n':
			count = strtol(optarg, &endp, 0);
			if (*endp || count < 0) {
				fprintf(stderr, PROG ": bad count '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ret = open_files(opt_abi);
	if (ret)
		return ret;
	/* EVENT [FIELD=VALUE ...], separated by -- */
	for (i = optind; i < argc; i = end + 1) {
		for (end = i; end < argc && strcmp(argv[end], "--"); end++)
			;
		if (end == i || nr == EMIT_MAX_EVENTS) {
			fprintf(stderr, PROG ": %s\n", end == i ?
				"an empty event between --" : "more than 64 events");
			return EXIT_USAGE;
		}
		ret = emit_prepare(&evs[nr++], end - i, argv + i);
		if (ret)
			return ret;
	}
	if (nr > 1)
		return emit_batches(evs, nr, count);
	iov.iov_base = evs[0].rec;
	iov.iov_len = evs[0].len;
	/* with the enable-bit ABI, 0 while nothing is attached: not recorded */
	for (i = 0; i < count; i++) {
		n = ue_write(&evs[0].ev, &iov, 1);
		if (n < 0)
			return report("write", n);
	}
	return EXIT_OK;
}

static int cmd_format(int argc, char **argv)
{
	static struct uec_desc d;
	const struct uec_field *f;
	int ret, i;

	(void)argc;
	if (strpbrk(argv[1], " \t:")) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ret = lookup(argv[1], &d);
	if (ret)
		return ret;
	printf("%s\n", d.text);
	printf("%-20s %-24s %6s %6s  %s\n", "FIELD", "TYPE", "OFFSET", "SIZE", "VALUE");
	for (i = 0; i < d.nr_fields; i++) {
		f = &d.fields[i];
		printf("%-20s %-24s %6u %6u  %s\n", f->name, f->type,
		       f->offset + UEC_HEADER, f->size, uec_value_hint(f));
	}
	printf("payload: %u bytes of fixed fields\n", d.fixed);
	return EXIT_OK;
}

/* --abi=bits|status (or --abi bits|status), -h, --help; the command's index */
static int parse_options(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "abi", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			if (!strcmp(optarg, "bits")) {
				opt_abi = UE_ABI_BITS;
			} else if (!strcmp(optarg, "status")) {
				opt_abi = UE_ABI_STATUS;
			} else {
				fprintf(stderr, PROG ": --abi is bits or status, not '%s'\n",
					optarg);
				return -EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return -EXIT_OK;
		default:
			usage(stderr);
			return -EXIT_USAGE;
		}
	}
	return optind;
}

int main(int argc, char **argv)
{
	/* @args: the words a command takes, its name included (0: it checks them) */
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
		int args;
	} cmds[] = {
		{ "status", cmd_status, 1 },
		{ "register", cmd_register, 0 },
		{ "delete", cmd_delete, 2 },
		{ "emit", cmd_emit, 0 },
		{ "format", cmd_format, 2 },
	};
	int first = parse_options(argc, argv);
	size_t i;

	if (first <= 0)
		return -first;
	argc -= first;
	argv += first;
	if (argc < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[0], cmds[i].name))
			continue;
		if (cmds[i].args && argc != cmds[i].args) {
			usage(stderr);
			return EXIT_USAGE;
		}
		return cmds[i].fn(argc, argv);
	}
	fprintf(stderr, PROG ": unknown command '%s' (try --help)\n", argv[0]);
	return EXIT_USAGE;
}
