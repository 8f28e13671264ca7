// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_desc.c: fuzz_test's fuzzer of descriptions and payloads.
 *
 * Each iteration generates event descriptions from the grammar of the ABI
 * (names, flags, every field type, arrays, __data_loc/__rel_loc, struct with
 * sizes, separators), mutates some of them (bytes, lengths around the
 * 512-byte limit, separators, numbers at their limits, white space) and
 * registers them through DIAG_IOCSREG or the u: command of dynamic_events.
 *
 * A reference parser written from the rules user_events.rst documents,
 * the finer ones included (sizes are decimal or 0x hex, no sign,
 * no leading 0 in either; only space, tab and newline separate words; names
 * are ASCII; no event called "enable" or "filter", no field called
 * "common_*"; the canonical form obeys the 511-byte limit too) predicts each
 * outcome: accepted with a known canonical form and layout, EINVAL or E2BIG.
 * Every accepted description must show up in
 * dynamic_events in a canonical form that parses back to itself and that,
 * registered again after a delete, makes the same event: the same line and
 * the same format file. Accepted events then get random and boundary payloads
 * through write() and writev() (split iovecs, pages not present, unreadable
 * memory, loc fields pointing anywhere) with ftrace and perf attached or not;
 * every write accepted while a consumer listened must be in the trace and in
 * the perf buffer, byte for byte. Errors other than the documented ones fail.
 *
 * Now and then a tenant group with a random limit gets valid descriptions
 * through its own file: its events up to the limit, then EMFILE; neither
 * group's file reaches the other's events; the group goes once they do.
 *
 * The reference parser is fuzz_model.h.
 */
#include "fuzz_test.h"

/*
 * The name of a "u:" line of dynamic_events, into @name: a default-group
 * event's "name"; another system's event ("u:SYSTEM/name") keeps the
 * system in it, so it is never taken for one of the default group
 */
int line_name(const char *line, int len, char *name)
{
	int n = 0;

	if (len < 3 || strncmp(line, "u:", 2))
		return 0;
	line += 2;
	len -= 2;
	while (n < len && n < 255 && line[n] != ':' && line[n] != ' ')
		n++;
	copy_word(name, 256, line, n);
	return 1;
}

/* dynamic_events, read whole; a failure to read it fails the run */
static char *read_dyn(void)
{
	char *all = uet_read_file(UE_DYN);

	if (!all)
		fail("tracefs", "cannot read dynamic_events: %s", strerror(errno));
	return all;
}

/* The dynamic_events line of @name into @out (without '\n'), or 0 */
int dyn_line(const char *name, char *out, size_t size)
{
	char *all = read_dyn(), lname[256];
	const char *p = all, *l;
	int found = 0, len;

	while ((l = next_line(&p, &len))) {
		if (line_name(l, len, lname) && !strcmp(lname, name)) {
			snprintf(out, size, "%.*s", len, l);
			found++;
		}
	}
	free(all);
	if (found > 1)
		fail("listing", "dynamic_events shows %s %d times", name, found);
	return found;
}

int is_live(const char *name)
{
	int i;

	for (i = 0; i < nr_live; i++)
		if (!strcmp(live[i].name, name))
			return i;
	return -1;
}

int is_pre(const char *name)
{
	int i;

	for (i = 0; i < nr_pre; i++)
		if (!strcmp(pre[i], name))
			return 1;
	return 0;
}

struct live *add_live(const char *name, const char *line)
{
	struct live *e;

	if (nr_live == MAX_LIVE)
		fail("internal", "too many live events");
	e = &live[nr_live++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->line, sizeof(e->line), "%s", line);
	e->widx = -1;
	return e;
}

static void drop_live(struct live *e)
{
	int i = e - live;

	memmove(&live[i], &live[i + 1], (nr_live - i - 1) * sizeof(*e));
	nr_live--;
}

/*
 * The "u:" lines of dynamic_events whose events are neither ours nor were
 * there before: what a registration just created. Returns how many; the
 * first goes to @line.
 */
int dyn_new_lines(char *line, size_t size)
{
	char *all = read_dyn(), name[256];
	const char *p = all, *l;
	int n = 0, len;

	while ((l = next_line(&p, &len))) {
		if (line_name(l, len, name) && is_live(name) < 0 && !is_pre(name) && !n++)
			snprintf(line, size, "%.*s", len, l);
	}
	free(all);
	return n;
}

/* The user_events_status line of @name: its index and what follows it */
int status_line(const char *name, unsigned int *idx, char *tail, size_t size)
{
	char *all = uet_read_file(UE_STATUS);
	const char *p = all, *l, *nl, *c;
	size_t nlen = strlen(name);
	int found = 0, len;

	if (!all)
		fail("tracefs", "cannot read user_events_status: %s", strerror(errno));
	while ((l = next_line(&p, &len))) {
		nl = l + len;
		c = memchr(l, ':', len);
		if (c && is_digit(*l) && !strncmp(c + 1, name, nlen) &&
		    (c[1 + nlen] == ':' || c[1 + nlen] == ' ' || c + 1 + nlen == nl)) {
			*idx = strtoul(l, NULL, 10);
			snprintf(tail, size, "%.*s", (int)(nl - c - 1 - nlen), c + 1 + nlen);
			found++;
		}
	}
	free(all);
	return found;
}

/* events/@sys/@name/@file, of the top buffer or of our instance */
char *sys_path(int inst, const char *sys, const char *name, const char *file)
{
	static char path[600];

	snprintf(path, sizeof(path), TRACEFS "%sevents/%s/%s%s%s",
		 inst ? INSTANCE : "", sys, name, *file ? "/" : "", file);
	return path;
}

/* events/user_events/@name/@file, of the top buffer or of our instance */
char *inst_path(int inst, const char *name, const char *file)
{
	return sys_path(inst, USER_EVENTS_SYSTEM, name, file);
}

static char *event_path(const char *name, const char *file)
{
	return inst_path(0, name, file);
}

int open_data(void)
{
	int fd = open(UE_DATA, O_RDWR);

	if (fd < 0)
		fail("tracefs", "open user_events_data: %s", strerror(errno));
	if (nr_iter_fds < (int)ARRAY_SIZE(iter_fds))
		iter_fds[nr_iter_fds++] = fd;
	return fd;
}

void close_data(int fd)
{
	int i;

	for (i = 0; i < nr_iter_fds; i++) {
		if (iter_fds[i] == fd) {
			iter_fds[i] = iter_fds[--nr_iter_fds];
			break;
		}
	}
	close(fd);
}

/* Registering and deleting ------------------------------------------------ */

/* @desc through DIAG_IOCSREG, sometimes ending right before a PROT_NONE page */
static int reg_ioctl(int fd, const char *desc, struct user_status_reg *reg)
{
	size_t len = strlen(desc) + 1;

	if (len <= (size_t)page_size && chance(10)) {
		char *at = (char *)guard + page_size - len;

		memcpy(at, desc, len);
		return uet_register(fd, at, reg);
	}
	return uet_register(fd, desc, reg);
}

static int reg_dyn(const char *desc)
{
	static char cmd[TEXT_MAX + 8];

	snprintf(cmd, sizeof(cmd), "u:%s", desc);
	return uet_dyn_cmd(cmd);
}

/* dynamic_events splits lines at '\n' and drops what follows '#' */
static int dyn_safe(const char *desc)
{
	/* nor "GROUP/name", which dynamic_events takes for a tenant group's */
	return !strchr(desc, '\n') && !strchr(desc, '#') &&
	       desc[strcspn(desc, "/: \t")] != '/';
}

/* The fields part of a canonical line: after "u:name[:flags] " */
const char *line_fields(const char *line)
{
	const char *sp = strchr(line, ' ');

	return sp ? sp + 1 : "";
}

/* Check that @name is gone from dynamic_events, the listing and events/ */
void check_gone(const char *name)
{
	char line[2 * TEXT_MAX], tail[256];
	unsigned int idx;
	struct stat st;

	if (dyn_line(name, line, sizeof(line)))
		fail("delete", "%s is still in dynamic_events after a delete", name);
	if (status_line(name, &idx, tail, sizeof(tail)))
		fail("delete", "%s is still in user_events_status after a delete", name);
	/* "enable" and "filter" are also files of the system's directory */
	if (!stat(event_path(name, ""), &st) && S_ISDIR(st.st_mode))
		fail("delete", "events/user_events/%s is still there after a delete", name);
}

/* Delete @e one of the five ways; returns 0 or -errno */
static int delete_any(struct live *e, int *method)
{
	char cmd[3 * TEXT_MAX];
	int fd, ret, m = rnd_below(5);

	if (method)
		*method = m;
	switch (m) {
	case 0:
		set_ctx("DIAG_IOCSDEL", e->name);
		fd = open_data();
		ret = uet_delete(fd, e->name);
		close_data(fd);
		return ret;
	case 1:
		snprintf(cmd, sizeof(cmd), "-:%s", e->name);
		break;
	case 2:
		snprintf(cmd, sizeof(cmd), "-:user_events/%s", e->name);
		break;
	case 3:
		/* the line dynamic_events shows, written back, or with the system */
		if (chance(50))
			snprintf(cmd, sizeof(cmd), "!%s", e->line);
		else
			snprintf(cmd, sizeof(cmd), "!u:user_events/%s", e->line + DYN_SKIP);
		break;
	default:
		if (chance(50) && *line_fields(e->line))
			snprintf(cmd, sizeof(cmd), "!u:%s %s", e->name, line_fields(e->line));
		else
			snprintf(cmd, sizeof(cmd), "!u:%s", e->name);
		break;
	}
	set_ctx("dynamic_events delete", cmd);
	return uet_dyn_cmd(cmd);
}

void delete_live(struct live *e)
{
	int ret = delete_any(e, NULL);

	if (ret)
		fail("delete", "deleting %s (nothing holds it): %s", e->name, err_name(ret));
	stats.deletes++;
	check_gone(e->name);
	drop_live(e);
}

/* Generating descriptions --------------------------------------------------- */

static const char * const name_pool[] = {
	"enable", "filter", "id", "format", "trigger", "hist", "common_pid",
	"common_type", "common_flags", "user_events", "u", "a", "_", "BPF_ITER",
	"struct", "unsigned", "char", "long", "__data_loc", "__rel_loc", "REC",
	"dynamic_events", "x", "ftrace", "perf", "print", "fmt", "s", "n",
};

static const char * const flag_pool[] = {
	"BPF_ITER", "BPF_ITER", "NEW_THING", "X", "flag_2", "bpf_iter", "0", "_",
};

static void gen_ident(char *out, int event)
{
	static const char first[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
	static const char rest[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
	int len, i, r = rnd_below(100);

	if (r < 12) {
		snprintf(out, 256, "%s", pick(name_pool, ARRAY_SIZE(name_pool)));
		return;
	}
	if (r < 75)
		len = rnd_range(1, 12);
	else if (r < 92)
		len = rnd_range(13, 64);
	else if (r < 97)
		len = rnd_range(65, 254);
	else
		len = 255;
	out[0] = first[rnd_below(sizeof(first) - 1)];
	for (i = 1; i < len; i++)
		out[i] = rest[rnd_below(sizeof(rest) - 1)];
	out[len] = '\0';
	/* mostly short, so that more fields fit in the description */
	if (len > 40 && chance(event ? 50 : 40))
		out[rnd_range(1, 40)] = '\0';
}

const char *sep_ws(void)
{
	static const char * const seps[] = {
		" ", " ", " ", " ", " ", " ", " ", " ", "  ", "\t", " \t ", "\n",
	};

	return pick(seps, ARRAY_SIZE(seps));
}

const char *sep_field(int packed)
{
	static const char * const seps[] = {
		"; ", "; ", "; ", ";", ";", " ;", " ; ", ";\t", ";  ", "\t;\n",
	};

	return packed ? ";" : pick(seps, ARRAY_SIZE(seps));
}

/* N as decimal or hex, sometimes with leading zeros (refused: rule 9) */
static void render_number(char *out, size_t size, int n)
{
	int r = rnd_below(100);

	if (r < 60)
		snprintf(out, size, "%d", n);
	else if (r < 82)
		snprintf(out, size, "0x%x", n);
	else if (r < 88)
		snprintf(out, size, "0X%X", n);
	else if (r < 95)
		snprintf(out, size, "0x%0*x", rnd_range(1, 40), n);
	else
		snprintf(out, size, "%0*d", rnd_range(1, 12), n);
}

static int gen_size(void)
{
	static const int sizes[] = {
		1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 64, 100, 255, 256, 511, 512,
		1000, 1023, 1024,
	};

	if (chance(60))
		return sizes[rnd_below(ARRAY_SIZE(sizes))];
	return chance(70) ? rnd_range(1, 64) : rnd_range(1, 1024);
}

static const char * const bad_fields[] = {
	"long x", "unsigned long x", "u32[4] x", "char[0] x", "char[1025] x",
	"struct foo x", "u32 x 4", "__data_loc char[4] x", "__rel_loc char x",
	"u128 x", "char[] x", "x", "unsigned x", "signed char x", "char[4 x",
	"char[0x] x", "char[-1] x", "struct foo x 0", "struct foo x 1025",
	"struct 9foo x 8", "u32 9x", "u32 a-b", "__data_loc __rel_loc char[] x",
	"__rel_loc struct foo x 8", "char[4][2] x", "char[1]x x", "u32 %s%n%p",
	"struct %s%n x 4", "u64 x[]", "unsigned unsigned int x",
	"char[4294967297] x", "char[0x100000400] x", "__data_loc char[]",
};

/* One field as words, with a name not in @names */
static void gen_field(char *out, size_t size, char names[][256], int nr, int packed)
{
	char fname[256], type[64], num[64], sname[256];
	const char *ws = packed ? " " : sep_ws();
	int r = rnd_below(100), i;

again:
	gen_ident(fname, 0);
	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], fname))
			goto again;
	snprintf(names[nr], 256, "%s", fname);
	if (packed)
		r = rnd_below(45);
	if (r < 45) {
		const char *t = base_types[rnd_below(ARRAY_SIZE(base_types))].name;

		if (!strncmp(t, "unsigned ", 9))
			snprintf(out, size, "unsigned%s%s%s%s", ws, t + 9, sep_ws(), fname);
		else
			snprintf(out, size, "%s%s%s", t, ws, fname);
	} else if (r < 60) {
		render_number(num, sizeof(num), gen_size());
		snprintf(out, size, "%s[%s]%s%s", chance(60) ? "char" : "unsigned char",
			 num, ws, fname);
	} else if (r < 80) {
		const char *loc = chance(50) ? "__rel_loc" : "__data_loc";
		const char *t = chance(50) ? "char" :
			base_types[rnd_below(ARRAY_SIZE(base_types))].name;

		snprintf(type, sizeof(type), "%s[]", t);
		snprintf(out, size, "%s%s%s%s%s", loc, ws, type, sep_ws(), fname);
	} else if (r < 94) {
		gen_ident(sname, 0);
		render_number(num, sizeof(num), gen_size());
		snprintf(out, size, "struct%s%s%s%s%s%s", ws, sname, sep_ws(), fname,
			 sep_ws(), num);
	} else {
		snprintf(out, size, "%s", pick(bad_fields, ARRAY_SIZE(bad_fields)));
	}
}

static int gen_field_count(void)
{
	int r = rnd_below(100);

	if (r < 15)
		return 0;
	if (r < 75)
		return rnd_range(1, 4);
	if (r < 95)
		return rnd_range(5, 20);
	return rnd_range(21, 60);
}

/* A description from the grammar; @name forces the event name */
void gen_desc(char *out, size_t size, const char *name)
{
	static char names[MAX_FIELDS][256];
	char ename[256], field[800];
	int nr = gen_field_count(), packed = chance(5), i, o;

	if (packed)
		nr = rnd_range(20, 110);
	if (name) {
		snprintf(ename, sizeof(ename), "%s", name);
	} else {
		do
			gen_ident(ename, 1);
		while (is_live(ename) >= 0 || is_pre(ename));
	}
	o = snprintf(out, size, "%s%s", chance(8) ? sep_ws() : "", ename);
	if (chance(15)) {
		int n = rnd_range(1, 3);

		for (i = 0; i < n; i++) {
			const char *flag = pick(flag_pool, ARRAY_SIZE(flag_pool));

			o += snprintf(out + o, size - o, "%c%s", i ? ',' : ':',
				      chance(80) ? flag : "ANY_flag");
		}
	}
	for (i = 0; i < nr && o < (int)size - 1; i++) {
		gen_field(field, sizeof(field), names, i, packed);
		o += snprintf(out + o, size - o, "%s%s", i ? sep_field(packed) : sep_ws(),
			      field);
		if (packed && o > DESC_LIMIT - 8)
			break;
	}
	if (nr && o < (int)size - 4 && chance(15))
		o += snprintf(out + o, size - o, "%s;", chance(50) ? "" : " ");
	if (o < (int)size - 4 && chance(8))
		snprintf(out + o, size - o, "%s", sep_ws());
}

/* Mutations ------------------------------------------------------------------ */

static const char * const tokens[] = {
	" ", ";", ":", ",", "[", "]", "[]", "0x", "-1", "unsigned ", "long ",
	"struct ", "__data_loc ", "__rel_loc ", "char", "%s%n%p", "\t", "\n", "#",
	"1024", "1025", "0", "u64 ", "  ;  ", "\v", "\r", "\xa0", "\xe9", "\xff",
	"\x01", "u:", "!", "-", "/", "BPF_ITER", "[1024]", "[1025]", "[0x400]",
	"; u8 zz", ";;", "  ", "=", "\"", "\\", "'", "*", "..", "a",
};

static const char * const numbers[] = {
	"0", "1", "2", "1023", "1024", "1025", "0x400", "0x401", "0X400", "0x3ff",
	"0x0", "0x", "4294967295", "4294967296", "4294968320",
	"18446744073709551616", "-1", "-0", "+1", "+1024", "010", "08", "0001",
	"00000000000000000000000001", "0x00000000000000000000000010",
	"0x000000000000000000000000000000000400", "99999999999999999999999",
	"1e3", "0b1", "65535", "65536", "0xffffffff", " 1", "1 ",
};

static void insert_at(char *s, size_t size, int at, const char *what, int wlen)
{
	int len = strlen(s);

	if (len + wlen >= (int)size)
		wlen = size - 1 - len;
	if (wlen <= 0)
		return;
	memmove(s + at + wlen, s + at, len - at + 1);
	memcpy(s + at, what, wlen);
}

static void delete_range(char *s, int at, int n)
{
	int len = strlen(s);

	if (at + n > len)
		n = len - at;
	memmove(s + at, s + at + n, len - at - n + 1);
}

/* Replace a run of digits (and hex letters after 0x) with a limit value */
static void mutate_number(char *s, size_t size)
{
	int len = strlen(s), starts[64], n = 0, i, at, end;
	const char *num = pick(numbers, ARRAY_SIZE(numbers));

	for (i = 0; i < len && n < 64; i++)
		if (is_digit(s[i]) && (i == 0 || !is_word_char((unsigned char)s[i - 1])))
			starts[n++] = i;
	if (!n) {
		insert_at(s, size, rnd_below(len + 1), num, strlen(num));
		return;
	}
	at = starts[rnd_below(n)];
	for (end = at; end < len && is_word_char((unsigned char)s[end]); end++)
		;
	delete_range(s, at, end - at);
	insert_at(s, size, at, num, strlen(num));
}

/* Make @s exactly @target bytes long, mostly with white space or a long name */
static void pad_to(char *s, size_t size, int target)
{
	int len = strlen(s), how = rnd_below(4);

	if (target >= (int)size)
		target = size - 1;
	if (len > target) {
		s[target] = '\0';
		return;
	}
	while (len < target) {
		char c = how == 0 ? ' ' : how == 1 ? '\t' : 'z';
		int at;

		if (how == 3) {
			/* more fields, packed, then spaces */
			if (target - len > 8) {
				char f[32];

				snprintf(f, sizeof(f), ";u8 p%d", len);
				insert_at(s, size, len, f, strlen(f));
				len = strlen(s);
				continue;
			}
			c = ' ';
		}
		if (c == 'z') {
			/* grow the last word: a name, mostly */
			at = len;
			while (at > 0 && is_ws((unsigned char)s[at - 1]))
				at--;
		} else {
			at = chance(70) ? len : (int)rnd_below(len + 1);
		}
		insert_at(s, size, at, &c, 1);
		len++;
	}
}

void mutate(char *s, size_t size)
{
	static const int lengths[] = { 510, 511, 512, 513, 255, 256, 1000 };
	int n = rnd_range(1, 3), len, at;
	char c;

	while (n--) {
		len = strlen(s);
		at = rnd_below(len + 1);
		switch (rnd_below(12)) {
		case 0:		/* flip a byte */
			if (len) {
				c = (char)rnd_range(1, 255);
				s[rnd_below(len)] = c;
			}
			break;
		case 1:		/* insert a byte */
			c = chance(50) ? (char)rnd_range(1, 255) :
				" ;:,[]_\t\nx0"[rnd_below(12)];
			insert_at(s, size, at, &c, 1);
			break;
		case 2:
		case 3: {	/* insert a token */
			const char *t = pick(tokens, ARRAY_SIZE(tokens));

			insert_at(s, size, at, t, strlen(t));
			break;
		}
		case 4:		/* delete a range */
			delete_range(s, at, rnd_range(1, 8));
			break;
		case 5:		/* duplicate a range */
			if (len) {
				int from = rnd_below(len), cnt = rnd_range(1, 40);
				char tmp[64];

				if (from + cnt > len)
					cnt = len - from;
				memcpy(tmp, s + from, cnt);
				insert_at(s, size, at, tmp, cnt);
			}
			break;
		case 6:
		case 7:		/* a number at its limits */
			mutate_number(s, size);
			break;
		case 8:		/* a length around the limits */
			pad_to(s, size, chance(80) ? lengths[rnd_below(ARRAY_SIZE(lengths))] :
			       rnd_range(0, 700));
			break;
		case 9: {	/* swap separators */
			static const char seps[] = " ;:,\t\n";
			int i;

			for (i = 0; i < len; i++)
				if (strchr(seps, s[i]) && chance(30))
					s[i] = seps[rnd_below(sizeof(seps) - 1)];
			break;
		}
		case 10:	/* truncate */
			s[at] = '\0';
			break;
		default: {	/* white space in odd places and of odd kinds */
			static const char spaces[] = " \t\n\v\f\r";
			int i;

			for (i = 0; i < len; i++)
				if (s[i] == ' ' && chance(25))
					s[i] = spaces[rnd_below(sizeof(spaces) - 1)];
			if (chance(30))
				insert_at(s, size, at, "   ", rnd_range(1, 3));
			break;
		}
		}
	}
}

/* Checking an event that exists ---------------------------------------------- */

static void field_format(const struct field *f, char *out, size_t size)
{
	char type[300], name[300];

	switch (f->kind) {
	case K_INT:
		snprintf(type, sizeof(type), "%s", f->base);
		snprintf(name, sizeof(name), "%s", f->name);
		break;
	case K_CHARS:
	case K_BYTES:
		snprintf(type, sizeof(type), "%s", f->base);
		snprintf(name, sizeof(name), "%s[%d]", f->name, f->size);
		break;
	case K_STRUCT:
		snprintf(type, sizeof(type), "struct %s", f->stype);
		snprintf(name, sizeof(name), "%s", f->name);
		break;
	default:
		/* ftrace splits "[]" off __rel_loc types, not off __data_loc ones */
		if (f->rel) {
			snprintf(type, sizeof(type), "__rel_loc %s", f->base);
			snprintf(name, sizeof(name), "%s[]", f->name);
		} else {
			snprintf(type, sizeof(type), "__data_loc %s[]", f->base);
			snprintf(name, sizeof(name), "%s", f->name);
		}
		break;
	}
	snprintf(out, size, "\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;", type,
		 name, f->offset, f->size, f->is_signed);
}

/*
 * Check events/user_events/NAME/format against @d; returns it without its
 * ID line (malloc()ed), for comparing two incarnations.
 */
char *check_format_sys(const struct event_desc *d, const char *sys)
{
	char *fmt = uet_read_file(sys_path(0, sys, d->name, "format")), *p, *nl, *out;
	char want[800], head[300];
	int i, line = 0, field = -1, o = 0;

	if (!fmt)
		fail("format", "cannot read the format of %s: %s", d->name, strerror(errno));
	out = malloc(strlen(fmt) + 1);
	if (!out)
		ksft_exit_fail_msg("out of memory\n");
	snprintf(head, sizeof(head), "name: %s", d->name);
	for (p = fmt; p && *p; p = nl ? nl + 1 : NULL, line++) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (line == 0 && strcmp(p, head))
			fail("format", "format of %s starts with '%s'", d->name, p);
		if (strncmp(p, "ID: ", 4))
			o += sprintf(out + o, "%s\n", p);
		if (field < 0 && !*p && line > 3) {
			field = 0;
		} else if (field >= 0 && field < d->nr) {
			field_format(&d->f[field], want, sizeof(want));
			if (strcmp(p, want))
				fail("format", "field %d of %s: format shows '%s', want '%s'",
				     field, d->name, p, want);
			field++;
		} else if (field == d->nr) {
			if (*p)
				fail("format", "format of %s: '%s' after its %d fields",
				     d->name, p, d->nr);
			field++;
		} else if (field == d->nr + 1) {
			if (strncmp(p, "print fmt: \"", 12))
				fail("format", "format of %s: '%s' where print fmt belongs",
				     d->name, p);
			for (i = 0; i < d->nr; i++) {
				snprintf(want, sizeof(want), "%s=", d->f[i].name);
				if (!strstr(p, want))
					fail("format", "print fmt of %s lacks %s", d->name, want);
			}
			field++;
		}
	}
	free(fmt);
	if (field != d->nr + 2)
		fail("format", "format of %s is incomplete (%d of %d fields)", d->name,
		     field < 0 ? 0 : field, d->nr);
	return out;
}

static char *check_format(const struct event_desc *d)
{
	return check_format_sys(d, USER_EVENTS_SYSTEM);
}

/* events/user_events/enable and filter stay files, whatever events are called */
static void check_system_files(const char *name)
{
	static const char * const files[] = { "enable", "filter" };
	char path[300];
	struct stat st;
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), TRACEFS "events/user_events/%s", files[i]);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			char names[600];
			int j, o = 0;

			for (j = 0; j < nr_live && o < (int)sizeof(names) - 1; j++)
				o += snprintf(names + o, sizeof(names) - o, " %.40s", live[j].name);
			fail("system files", "checking %s: events/user_events/%s is %s; "
			     "events:%s", name, files[i],
			     stat(path, &st) ? strerror(errno) : "not a file", names);
		}
	}
}

/*
 * Check a live event: dynamic_events shows its line, which parses back to
 * itself; its format matches; the status listing shows it. Returns the
 * format text (without ID).
 */
static char *check_event(struct live *e, struct event_desc *d)
{
	char line[2 * TEXT_MAX], tail[TEXT_MAX], want[TEXT_MAX + 2];
	unsigned int idx;
	enum verdict v;

	set_ctx("check the listing of", e->line);
	if (!dyn_line(e->name, line, sizeof(line)))
		fail("listing", "%s is not in dynamic_events", e->name);
	if (strcmp(line, e->line))
		fail("listing", "dynamic_events shows '%s', was '%s'", line, e->line);
	if (strlen(line + DYN_SKIP) > DESC_LIMIT)
		fail("round trip", "canonical form over the limit (%zu > %d bytes): '%s'",
		     strlen(line + DYN_SKIP), DESC_LIMIT, line);
	/* "either" names pass, as long as the parse is complete */
	v = oracle(line + DYN_SKIP, d);
	if (v != V_OK && v != V_ANY)
		fail("canonical", "the canonical line '%s' is not valid to the ABI (%s)",
		     line, verdict_names[v]);
	if (strcmp(d->canon, line))
		fail("canonical", "the canonical line '%s' is not canonical: '%s'", line,
		     d->canon);
	if (status_line(e->name, &idx, tail, sizeof(tail)) != 1)
		fail("listing", "user_events_status does not show %s once", e->name);
	snprintf(want, sizeof(want), "%s%s", d->has_flags ? ":" : "",
		 d->has_flags ? d->flags : "");
	if (strcmp(tail, want))
		fail("listing", "user_events_status shows %s with '%s', want '%s'",
		     e->name, tail, want);
	if (e->sidx && idx != e->sidx)
		fail("listing", "user_events_status shows %s at %u, registered at %u",
		     e->name, idx, e->sidx);
	e->sidx = idx;
	check_system_files(e->name);
	if (status_page[idx])
		fail("status", "status byte %u of %s is %#x with nothing attached", idx,
		     e->name, status_page[idx]);
	return check_format(d);
}

/* Payloads ----------------------------------------------------------------- */

enum { LOC_VALID, LOC_EITHER, LOC_BAD };

static const char nice_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+=/%";

static void put_le(unsigned char *p, unsigned long long v, int size)
{
	int i;

	for (i = 0; i < size; i++)
		p[i] = v >> (8 * i);
}

static unsigned long long get_le(const unsigned char *p, int size)
{
	unsigned long long v = 0;
	int i;

	for (i = 0; i < size; i++)
		v |= (unsigned long long)p[i] << (8 * i);
	return v;
}

void fill_random(unsigned char *p, int len)
{
	while (len-- > 0)
		*p++ = rnd();
}

static void fill_nice(unsigned char *p, int len)
{
	while (len-- > 0)
		*p++ = nice_chars[rnd_below(sizeof(nice_chars) - 1)];
}

static int loc_start(const struct field *f, const unsigned char *pl, int *len)
{
	unsigned int v = get_le(pl + f->offset - 8, 4);

	*len = v >> 16;
	return (v & 0xffff) + (f->rel ? f->offset + 4 : 0);
}

/* What user_events.rst ("Writing") says of the loc fields of a record of @plen bytes */
static int loc_class(const struct event_desc *d, const unsigned char *pl, int plen)
{
	int i, cls = LOC_VALID, size = 8 + plen;

	for (i = 0; i < d->nr; i++) {
		const struct field *f = &d->f[i];
		int start, len;

		if (f->kind < K_LOC_STR)
			continue;
		start = loc_start(f, pl, &len);
		if (start + len > size)
			return LOC_BAD;
		if (start < 8) {
			/* into the common header: not the writer's bytes */
			cls = LOC_EITHER;
		} else if (f->kind == K_LOC_STR) {
			if (!len)
				cls = LOC_EITHER;
			else if (pl[start + len - 1 - 8])
				return LOC_BAD;
		} else if (len % f->elem) {
			cls = LOC_EITHER;
		}
	}
	return cls;
}

static void set_loc(const struct field *f, unsigned char *pl, int start, int len)
{
	unsigned int off = f->rel ? start - (f->offset + 4) : start;

	put_le(pl + f->offset - 8, ((unsigned int)len << 16) | (off & 0xffff), 4);
}

/* A loc field pointing somewhere interesting */
static void loc_edge(const struct event_desc *d, unsigned char *pl, int plen)
{
	int locs[MAX_FIELDS], n = 0, i, size = 8 + plen, start, len;
	const struct field *f;

	for (i = 0; i < d->nr; i++)
		if (d->f[i].kind >= K_LOC_STR)
			locs[n++] = i;
	if (!n)
		return;
	f = &d->f[locs[rnd_below(n)]];
	start = loc_start(f, pl, &len);
	switch (rnd_below(10)) {
	case 0:		/* empty, at the very end */
		set_loc(f, pl, size, 0);
		break;
	case 1:		/* the last byte, NUL or not */
		if (plen > d->min_size) {
			pl[plen - 1] = chance(50) ? 0 : 'x';
			set_loc(f, pl, size - 1, 1);
		}
		break;
	case 2:		/* far too long */
		set_loc(f, pl, start, 0xffff);
		break;
	case 3:		/* into the common header */
		if (!f->rel)
			put_le(pl + f->offset - 8, (4u << 16) | rnd_below(8), 4);
		break;
	case 4:		/* past the end */
		set_loc(f, pl, size + rnd_range(1, 4), 0);
		break;
	case 5:		/* no NUL */
		if (len && start >= 8 && start + len <= size)
			pl[start + len - 1 - 8] = 'x';
		break;
	case 6:		/* a length not a multiple of the element */
		set_loc(f, pl, start, len + 1);
		break;
	case 7:		/* one byte over the end */
		if (start <= size)
			set_loc(f, pl, start, size - start + 1);
		break;
	case 8:		/* at another loc field's data */
		if (n > 1) {
			int s2, l2;

			s2 = loc_start(&d->f[locs[rnd_below(n)]], pl, &l2);
			set_loc(f, pl, s2, l2);
		}
		break;
	default:
		put_le(pl + f->offset - 8, rnd(), 4);
		break;
	}
}

/* 0, 1, -1, the smallest and the largest signed, or anything */
static unsigned long long int_value(int size)
{
	unsigned long long sign = 1ULL << (8 * size - 1);

	switch (rnd_below(6)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return ~0ULL;
	case 3:
		return sign;
	case 4:
		return sign - 1;
	}
	return rnd();
}

/* A payload that follows the layout, strings mostly printable */
static int payload_layout(const struct event_desc *d, unsigned char *pl, int cap)
{
	int order[MAX_FIELDS], n = 0, i, pos = d->min_size;

	for (i = 0; i < d->nr; i++) {
		const struct field *f = &d->f[i];
		unsigned char *p = pl + f->offset - 8;
		unsigned long long v;

		switch (f->kind) {
		case K_INT:
			v = int_value(f->size);
			put_le(p, v, f->size);
			break;
		case K_CHARS:
			memset(p, 0, f->size);
			if (chance(85))
				fill_nice(p, rnd_range(0, f->size));
			else
				fill_random(p, f->size);
			break;
		case K_BYTES:
		case K_STRUCT:
			fill_random(p, f->size);
			break;
		default:
			order[n++] = i;
			break;
		}
	}
	/* the loc fields' data after the fixed part, in random order */
	for (i = n - 1; i > 0; i--) {
		int j = rnd_below(i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		const struct field *f = &d->f[order[i]];
		int len, r = rnd_below(100);

		if (chance(10))
			pos += rnd_range(1, 8);
		if (f->kind == K_LOC_STR)
			len = 1 + (r < 70 ? rnd_range(0, 16) : r < 92 ? rnd_range(17, 200) :
				   rnd_range(201, 3000));
		else
			len = f->elem * (r < 80 ? rnd_range(0, 16) : rnd_range(17, 1000 / f->elem));
		if (pos + len > max_payload && chance(80))
			len = max_payload - pos;
		if (pos + len > cap)
			len = cap - pos;
		if (len < 0)
			len = 0;
		if (f->kind == K_LOC_STR && len) {
			if (chance(90))
				fill_nice(pl + pos, len - 1);
			else
				fill_random(pl + pos, len - 1);
			pl[pos + len - 1] = 0;
		} else {
			fill_random(pl + pos, len);
		}
		set_loc(f, pl, 8 + pos, len);
		pos += len;
	}
	if (chance(15) && pos + 16 < cap) {
		int junk = rnd_range(1, 16);

		fill_random(pl + pos, junk);
		pos += junk;
	}
	if (pos > cap)
		pos = cap;
	if (chance(25))
		loc_edge(d, pl, pos);
	return pos;
}

static int gen_payload(const struct event_desc *d, unsigned char *pl, int cap)
{
	int sizes[] = {
		0, d->min_size - 1, d->min_size, d->min_size + 1, max_payload - 1,
		max_payload, max_payload + 1, max_payload + 8, page_size, 2 * page_size,
		fits_all, fits_all + 1, 65535, 65536 + 7, rnd_range(0, fits_all),
	};
	int r = rnd_below(100), len, want;

	if (d->min_size > cap)
		return 0;
	if (r < 60)
		return payload_layout(d, pl, cap);
	if (r < 72) {
		len = rnd_range(0, d->min_size + 64);
		if (len > cap)
			len = cap;
		fill_random(pl, len);
		return len;
	}
	/* a size at a boundary, the layout's bytes first */
	len = payload_layout(d, pl, cap);
	want = sizes[rnd_below(ARRAY_SIZE(sizes))];
	if (want < 0)
		want = 0;
	if (want > cap)
		want = cap;
	if (want > len) {
		if (chance(50))
			memset(pl + len, 0, want - len);
		else
			fill_random(pl + len, want - len);
	}
	return want;
}

/* Does ftrace print this record as plain text we can predict? */
static int payload_nice(const struct event_desc *d, const unsigned char *pl, int plen)
{
	int i, j, start, len;

	if (loc_class(d, pl, plen) != LOC_VALID)
		return 0;
	for (i = 0; i < d->nr; i++) {
		const struct field *f = &d->f[i];
		const unsigned char *p;

		if (f->kind == K_CHARS) {
			p = pl + f->offset - 8;
			len = f->size;
		} else if (f->kind == K_LOC_STR) {
			start = loc_start(f, pl, &len);
			p = pl + start - 8;
		} else {
			continue;
		}
		for (j = 0; j < len && p[j]; j++)
			if (!strchr(nice_chars, p[j]))
				return 0;
	}
	return 1;
}

static int add_hex(char *out, int o, int size, const unsigned char *p, int len)
{
	int i;

	for (i = 0; i < len && o < size - 3; i++)
		o += sprintf(out + o, "%02x", p[i]);
	return o;
}

/* The trace line ftrace should print for a record, after "<ts>: " */
static void trace_text(const struct event_desc *d, const unsigned char *pl,
		       char *out, int size)
{
	int i, o = snprintf(out, size, "%s:", d->name), start, len;

	for (i = 0; i < d->nr && o < size - 64; i++) {
		const struct field *f = &d->f[i];
		const unsigned char *p = pl + f->offset - 8;
		unsigned long long v;

		o += snprintf(out + o, size - o, " %s=", f->name);
		switch (f->kind) {
		case K_INT:
			v = get_le(p, f->size);
			if (f->is_signed && f->size < 8 && (v >> (8 * f->size - 1)))
				v |= ~0ULL << (8 * f->size);
			o += snprintf(out + o, size - o, f->is_signed ? "%lld" : "%llu", v);
			break;
		case K_CHARS:
			o += snprintf(out + o, size - o, "%.*s",
				      (int)strnlen((const char *)p, f->size), p);
			break;
		case K_BYTES:
		case K_STRUCT:
			o = add_hex(out, o, size, p, f->size);
			break;
		case K_LOC_STR:
			start = loc_start(f, pl, &len);
			p = pl + start - 8;
			o += snprintf(out + o, size - o, "%.*s",
				      (int)strnlen((const char *)p, len), p);
			break;
		default:
			start = loc_start(f, pl, &len);
			o = add_hex(out, o, size, pl + start - 8, len);
			break;
		}
	}
}

/* Consumers -------------------------------------------------------------------- */

/* The one perf consumer, closed by cleanup() too */
struct uet_ring ring = { .fd = -1 };

int perf_attach_sys(const char *sys, const char *name, struct uet_ring *r)
{
	char *text = uet_read_file(sys_path(0, sys, name, "id"));
	int id = text ? atoi(text) : -1;

	free(text);
	if (id <= 0)
		fail("perf", "no tracepoint id for %s", name);
	r->fd = uet_perf_open(id, 0, -1, 1);
	if (r->fd < 0)
		fail("perf", "perf_event_open on %s: %s", name, strerror(errno));
	if (uet_ring_map(r, r->fd, PERF_PAGES))
		fail("perf", "mmap of the perf buffer: %s", strerror(errno));
	return id;
}

static int perf_attach(const char *name, struct uet_ring *r)
{
	return perf_attach_sys(USER_EVENTS_SYSTEM, name, r);
}

void perf_detach(struct uet_ring *r)
{
	if (r->fd < 0)
		return;
	uet_ring_unmap(r);
	close(r->fd);
	r->fd = -1;
}

void check_perf(struct uet_ring *r, int id, const struct records *want)
{
	__u64 head = uet_ring_head(r), pos = r->meta->data_tail;
	static unsigned char rec[PAYLOAD_BUF];
	int n = 0;

	stats.perf_checks++;
	if (head - pos > r->size)
		fail("perf", "the perf buffer wrapped (%llu bytes)",
		     (unsigned long long)(head - pos));
	while (pos < head) {
		struct perf_event_header *hdr = uet_ring_copy(r, &pos, rec, sizeof(rec));
		unsigned int raw_size, want_size;

		if (hdr->type != PERF_RECORD_SAMPLE)
			fail("perf", "perf record of type %u (lost samples?)", hdr->type);
		if (n >= want->n)
			fail("perf", "more perf samples than accepted writes (%d)", want->n);
		raw_size = get_le(rec + sizeof(*hdr), 4);
		want_size = ((8 + want->len[n] + 4 + 7) & ~7) - 4;
		if (raw_size != want_size)
			fail("perf", "sample %d: raw size %u, want %u", n, raw_size, want_size);
		if (get_le(rec + sizeof(*hdr) + 4, 2) != (unsigned int)id ||
		    (int)get_le(rec + sizeof(*hdr) + 8, 4) != getpid())
			fail("perf", "sample %d: header is not type %d, pid %d", n, id, getpid());
		if (memcmp(rec + sizeof(*hdr) + 4 + 8, want->buf + want->off[n], want->len[n]))
			fail("perf", "sample %d: the payload differs from the write", n);
		n++;
		stats.sampled++;
	}
	uet_ring_done(r, head);
	if (n != want->n)
		fail("perf", "%d perf samples for %d accepted writes", n, want->n);
}

/*
 * ftrace prints a record's line into a trace_seq of 8 KiB, header included
 * (TRACE_SEQ_BUFFER_SIZE, the same for every event), and cuts what does
 * not fit: a line of @len bytes that long, whose record text @got is the
 * start of the expected @exp, is that record
 */
#define TRACE_LINE_MAX	(8192 - 64)
static int cut_line(const char *got, int len, const char *exp)
{
	size_t n = strlen(got);

	if (len < TRACE_LINE_MAX || n >= strlen(exp) || strncmp(got, exp, n))
		return 0;
	stats.cut_lines++;
	return 1;
}

/*
 * The trace of the top buffer or of our instance has exactly the accepted
 * records, printed as predicted; or, with @subset (a filter or a trigger is
 * set), some of them.
 */
void check_trace(int inst, const struct event_desc *d, const struct records *want,
		 int subset)
{
	char *trace = uet_read_file(inst ? TRACEFS INSTANCE "trace" : TRACEFS "trace");
	char *p, *nl, *got[64], *exp[MAX_WRITES], needle[300];
	int n = 0, i, j, all_nice = 1, line_len[64];

	if (!trace)
		fail("trace", "cannot read trace: %s", strerror(errno));
	stats.trace_checks++;
	for (i = 0; i < want->n; i++)
		all_nice &= want->nice[i];
	snprintf(needle, sizeof(needle), ": %s:", d->name);
	for (p = trace; p && *p; p = nl ? nl + 1 : NULL) {
		char *at;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		at = *p != '#' ? strstr(p, needle) : NULL;
		if (at && n < (int)ARRAY_SIZE(got)) {
			line_len[n] = strlen(p);
			got[n++] = at + 2;
		}
	}
	if (!all_nice) {
		/* a record's text may have held a newline: nothing to count */
		free(trace);
		return;
	}
	if (subset ? n > want->n : n != want->n) {
		for (i = 0; opt.verbose && i < n; i++)
			ksft_print_msg("trace: %.300s\n", got[i]);
		free(trace);
		fail("trace", "%d records of %s in %strace for %d accepted writes", n,
		     d->name, inst ? "the instance's " : "", want->n);
	}
	for (i = 0; i < want->n; i++) {
		exp[i] = malloc(TRACE_TEXT);
		if (!exp[i])
			ksft_exit_fail_msg("out of memory\n");
		trace_text(d, want->buf + want->off[i], exp[i], TRACE_TEXT);
	}
	/* every record shown is one written, each written shown at most once */
	for (i = 0; i < n; i++) {
		for (j = 0; j < want->n; j++) {
			if (exp[j] && (!strcmp(got[i], exp[j]) ||
				       cut_line(got[i], line_len[i], exp[j]))) {
				free(exp[j]);
				exp[j] = NULL;
				break;
			}
		}
		if (j == want->n) {
			static char g[TRACE_TEXT];

			snprintf(g, sizeof(g), "%s", got[i]);
			for (j = 0; j < want->n; j++)
				free(exp[j]);
			free(trace);
			fail("trace", "%strace shows '%.400s', not one of the %d accepted writes",
			     inst ? "the instance's " : "", g, want->n);
		}
	}
	for (j = 0; j < want->n; j++)
		free(exp[j]);
	free(trace);
}

/* Writing ----------------------------------------------------------------------- */

enum {
	OUT_OK = 1, OUT_EINVAL = 2, OUT_E2BIG = 4, OUT_ENOENT = 8, OUT_EFAULT = 16,
	OUT_EBADF = 32,
};

static int outcome_bit(int ret)
{
	switch (ret) {
	case 0: return OUT_OK;
	case -EINVAL: return OUT_EINVAL;
	case -E2BIG: return OUT_E2BIG;
	case -ENOENT: return OUT_ENOENT;
	case -EFAULT: return OUT_EFAULT;
	case -EBADF: return OUT_EBADF;
	}
	return 0;
}

/*
 * One write of a payload for @d on @fd (write index @widx) with @consumers
 * attached; checks the outcome. An accepted write is added to @rec. With
 * @bits the index is of an enable-bit registration: with nothing attached
 * the write fails with EBADF where it would be taken ("The enable bit"); where it
 * is refused for another reason, either errno may come first.
 */
void do_write_abi(int fd, const struct event_desc *d, int widx, int consumers,
		  struct records *rec, int bits)
{
	static unsigned char wbuf[4 + PAYLOAD_BUF];
	struct iovec iov[16];
	int plen = gen_payload(d, wbuf + 4, PAYLOAD_BUF), total = 4 + plen;
	int idx = widx, r = rnd_below(100), allowed, nseg, i, pos, bad = 0, zap = 0;
	int cls, nice;
	ssize_t ret;

	if (r < 4)
		idx = chance(50) ? -1 - (int)rnd_below(1000) : INT_MIN;
	else if (r < 8)
		idx = chance(50) ? widx + 1 + (int)rnd_below(1000) : INT_MAX;
	else if (r < 10)
		total = rnd_below(4);
	memcpy(wbuf, &idx, 4);

	/* what the ABI allows */
	cls = total >= 4 + d->min_size ? loc_class(d, wbuf + 4, plen) : LOC_VALID;
	if (!total) {
		/* the VFS may answer an empty writev() itself */
		allowed = OUT_EINVAL | OUT_OK;
	} else if (total < 4 || idx < 0) {
		allowed = OUT_EINVAL;
	} else if (idx != widx) {
		allowed = OUT_ENOENT;
	} else if (plen < d->min_size && plen > max_payload) {
		allowed = OUT_EINVAL | OUT_E2BIG;
	} else if (plen < d->min_size) {
		allowed = OUT_EINVAL;
	} else if (plen > max_payload) {
		allowed = OUT_E2BIG;
	} else if (!consumers) {
		allowed = OUT_OK;
	} else {
		allowed = cls == LOC_VALID ? OUT_OK : cls == LOC_BAD ? OUT_EFAULT :
			  OUT_OK | OUT_EFAULT;
		/* over what every consumer takes: their limits (ftrace_test) decide */
		if (plen > fits_all)
			allowed |= OUT_E2BIG;
	}

	/* how the bytes are handed over */
	nseg = chance(45) ? 1 : rnd_range(2, ARRAY_SIZE(iov));
	if (nseg > total)
		nseg = total ? total : 1;
	zap = chance(15) && total <= MEM_PAGES * page_size;
	for (i = 0, pos = 0; i < nseg; i++) {
		int left = total - pos, len;

		len = i == nseg - 1 ? left : rnd_range(0, left);
		iov[i].iov_base = wbuf + pos;
		iov[i].iov_len = len;
		if (zap) {
			memcpy(mem + pos, wbuf + pos, len);
			iov[i].iov_base = mem + pos;
		}
		pos += len;
	}
	/* a payload segment nobody can read */
	if (chance(6) && nseg > 1 && iov[nseg - 1].iov_len &&
	    total - (int)iov[nseg - 1].iov_len >= 4 && (allowed & OUT_OK)) {
		int len = iov[nseg - 1].iov_len, readable = rnd_below(len);

		if (len <= page_size) {
			iov[nseg - 1].iov_base = guard + page_size - readable;
			memcpy(guard + page_size - readable, wbuf + total - len, readable);
		} else {
			iov[nseg - 1].iov_base = guard + page_size;
		}
		bad = 1;
		allowed = consumers ? OUT_EFAULT : OUT_OK | OUT_EFAULT;
		/* the limits of the consumers are checked before any copy */
		if (consumers && plen > fits_all)
			allowed |= OUT_E2BIG;
	}
	/* with nothing attached, an enable-bit index may be refused first */
	if (bits && !consumers && total >= 4 && idx == widx) {
		if (allowed & OUT_OK)
			allowed = (allowed & ~OUT_OK) | OUT_EBADF;
		else
			allowed |= OUT_EBADF;
	}
	if (zap)
		madvise(mem, MEM_PAGES * page_size, MADV_DONTNEED);

	set_ctx(nseg == 1 ? "write" : "writev", "");
	snprintf(ctx.text, sizeof(ctx.text), "index %d%s, %d bytes, %d segments%s%s, %s %#x: %s",
		 idx, bits ? " (enable-bit)" : "", total, nseg, zap ? ", pages zapped" : "",
		 bad ? ", last segment unreadable" : "", "consumers", consumers, d->canon);
	ctx.payload = wbuf + 4;
	ctx.payload_len = plen > 0 ? plen : 0;
	stats.writes++;
	if (nseg == 1 && chance(50))
		ret = write(fd, iov[0].iov_base, iov[0].iov_len);
	else
		ret = writev(fd, iov, nseg);
	if (opt.verbose)
		ksft_print_msg("%s -> %s\n", ctx.text, ret < 0 ? err_name(-errno) : "ok");
	if (ret < 0) {
		int err = errno;

		if (!errno_documented(err))
			fail("write errno", "write: undocumented error %s", err_name(-err));
		if (!(outcome_bit(-err) & allowed))
			fail("write", "write: %s, allowed %#x (loc class %d)", err_name(-err),
			     allowed, cls);
		return;
	}
	if (!(allowed & OUT_OK))
		fail("write", "write accepted (%zd), allowed %#x (loc class %d)", ret,
		     allowed, cls);
	if (ret != total)
		fail("write", "write returned %zd for %d bytes", ret, total);
	stats.writes_ok++;
	if (!consumers || bad || !total)
		return;
	nice = payload_nice(d, wbuf + 4, plen);
	if (rec->n < MAX_WRITES && rec->used + plen <= REC_BUF) {
		memcpy(rec->buf + rec->used, wbuf + 4, plen);
		rec->off[rec->n] = rec->used;
		rec->len[rec->n] = plen;
		rec->nice[rec->n++] = nice;
		rec->used += plen;
	} else {
		fail("internal", "record buffer full");
	}
}

static void do_write(int fd, const struct event_desc *d, int widx, int consumers,
		     struct records *rec)
{
	do_write_abi(fd, d, widx, consumers, rec, 0);
}

static void set_enable(int inst, const char *name, int on)
{
	int ret = uet_write_file(inst_path(inst, name, "enable"), on ? "1" : "0", O_TRUNC);

	if (ret)
		fail("ftrace", "%s ftrace on %s%s: %s", on ? "enabling" : "disabling", name,
		     inst ? " in the instance" : "", err_name(ret));
}

/* A filter on a random field, mostly well formed */
static void gen_filter(const struct event_desc *d, char *out, size_t size)
{
	static const char * const ops[] = { "==", "!=", "<", ">", "<=", ">=", "&" };
	static const char * const odd[] = {
		"common_pid > 0", "%s%n", "(", "0", "1", "x == 1", "common_pid == -1",
	};
	const struct field *f;
	char text[8] = "";

	if (!d->nr || chance(10)) {
		snprintf(out, size, "%s", pick(odd, ARRAY_SIZE(odd)));
		return;
	}
	f = &d->f[rnd_below(d->nr)];
	switch (f->kind) {
	case K_INT:
		snprintf(out, size, "%s %s %lld", f->name, pick(ops, ARRAY_SIZE(ops)),
			 (long long)int_value(f->size));
		break;
	case K_CHARS:
	case K_LOC_STR:
		fill_nice((unsigned char *)text, rnd_below(3));
		snprintf(out, size, "%s %s \"%s%s\"", f->name, chance(50) ? "==" : "~", text,
			 chance(50) ? "*" : "");
		break;
	default:
		snprintf(out, size, "%s == %d", f->name, (int)rnd_below(3));
		break;
	}
	if (chance(20))
		snprintf(out + strlen(out), size - strlen(out), " && common_pid != 0");
}

/* A hist trigger keyed on a random field */
static void gen_trigger(const struct event_desc *d, char *out, size_t size)
{
	static const char * const mods[] = { "", "", "", ".hex", ".log2", ".buckets=16" };
	const char *key = "common_pid", *mod = "";
	int i, o;

	if (d->nr && chance(85)) {
		const struct field *f = &d->f[rnd_below(d->nr)];

		key = f->name;
		if (f->kind == K_INT)
			mod = pick(mods, ARRAY_SIZE(mods));
	}
	o = snprintf(out, size, "hist:keys=%s%s", key, mod);
	for (i = 0; i < d->nr && chance(30); i++) {
		if (d->f[i].kind == K_INT) {
			o += snprintf(out + o, size - o, ":vals=%s", d->f[i].name);
			break;
		}
	}
	if (chance(20))
		o += snprintf(out + o, size - o, ":sort=hitcount");
	/* the smallest map: a full-size one costs half a second here */
	if (chance(85))
		o += snprintf(out + o, size - o, ":size=128");
	if (chance(15)) {
		char filter[600];

		gen_filter(d, filter, sizeof(filter));
		snprintf(out + o, size - o, " if %s", filter);
	}
}

static void expect_status(const struct live *e, int want, const char *when)
{
	if (status_page[e->sidx] != want)
		fail("status", "status byte of %s is %#x %s, want %#x", e->name,
		     status_page[e->sidx], when, want);
}

/* Writes to @e, with ftrace and perf attached or not */
static void payload_phase(struct live *e, const struct event_desc *d)
{
	static struct records rec;
	int fd = open_data(), ret, ftrace = chance(50), perf = chance(25), readback = 0;
	int id = -1, consumers = 0, nw = rnd_range(1, MAX_WRITES), i, inst = 0;
	int filtered = 0, triggered = 0;
	char filter[700], trigger[1400];
	struct user_status_reg reg;

	set_ctx("DIAG_IOCSREG (for writing)", e->line + DYN_SKIP);
	ret = uet_register(fd, e->line + DYN_SKIP, &reg);
	if (ret)
		fail("register", "registering the live event %s: %s", e->name, err_name(ret));
	if (reg.write_index != 0 || reg.status_index != e->sidx)
		fail("register", "write index %u, status index %u on a fresh fd, want 0, %u",
		     reg.write_index, reg.status_index, e->sidx);
	expect_status(e, 0, "before any consumer");
	if (ftrace) {
		readback = chance(70);
		if (readback)
			uet_clear_trace();
		set_enable(0, e->name, 1);
		consumers |= EVENT_STATUS_FTRACE;
		expect_status(e, consumers, "with ftrace");
		/* a second ftrace consumer: our instance */
		inst = chance(20);
		if (inst) {
			uet_write_file(TRACEFS INSTANCE "trace", "", O_TRUNC);
			set_enable(1, e->name, 1);
		}
		if (chance(20)) {
			gen_filter(d, filter, sizeof(filter));
			set_ctx("set the filter", filter);
			filtered = !uet_write_file(event_path(e->name, "filter"), filter, O_TRUNC);
		}
	}
	/* a hist trigger is a consumer of its own (and costly: not too often) */
	if (chance(6)) {
		gen_trigger(d, trigger, sizeof(trigger));
		set_ctx("set the trigger", trigger);
		triggered = !uet_write_file(event_path(e->name, "trigger"), trigger, O_APPEND);
		if (triggered) {
			consumers |= EVENT_STATUS_FTRACE;
			expect_status(e, consumers, "with a hist trigger");
		}
	}
	if (perf) {
		id = perf_attach(e->name, &ring);
		consumers |= EVENT_STATUS_PERF;
		expect_status(e, consumers, "with perf");
	}
	rec.n = 0;
	rec.used = 0;
	for (i = 0; i < nw; i++)
		do_write(fd, d, reg.write_index, consumers, &rec);
	stats.traced += ftrace ? rec.n : 0;
	set_ctx("check the records of", e->line);
	if (ftrace && readback)
		check_trace(0, d, &rec, filtered || triggered);
	if (inst)
		check_trace(1, d, &rec, 0);
	if (perf)
		check_perf(&ring, id, &rec);
	if (consumers && chance(15)) {
		close_data(fd);
		fd = -1;
		ret = delete_any(e, NULL);
		if (ret != -EBUSY)
			fail("delete", "deleting %s with consumers %#x: %s, want EBUSY",
			     e->name, consumers, err_name(ret));
	}
	if (triggered) {
		free(uet_read_file(event_path(e->name, "hist")));
		memmove(trigger + 1, trigger, strlen(trigger) + 1);
		trigger[0] = '!';
		set_ctx("remove the trigger", trigger);
		ret = uet_write_file(event_path(e->name, "trigger"), trigger, O_APPEND);
		if (ret)
			fail("trigger", "removing the trigger of %s: %s", e->name, err_name(ret));
	}
	if (filtered) {
		set_ctx("clear the filter", "0");
		ret = uet_write_file(event_path(e->name, "filter"), "0", O_TRUNC);
		if (ret)
			fail("filter", "clearing the filter of %s: %s", e->name, err_name(ret));
	}
	if (ftrace)
		set_enable(0, e->name, 0);
	if (inst)
		set_enable(1, e->name, 0);
	perf_detach(&ring);
	expect_status(e, 0, "after the consumers left");
	if (fd >= 0 && chance(20)) {
		ret = delete_any(e, NULL);
		if (ret != -EBUSY)
			fail("delete", "deleting %s while an fd holds it: %s, want EBUSY",
			     e->name, err_name(ret));
	}
	if (fd >= 0)
		close_data(fd);
}

/* One event, from registration to deletion -------------------------------------- */

/* Delete @e and make it again from its own line; it must come back the same */
static void round_trip(struct live *e, const char *fmt)
{
	struct event_desc *d = malloc(sizeof(*d));
	char line[2 * TEXT_MAX], *fmt2;
	struct user_status_reg reg;
	int ret, fd = -1;

	if (!d)
		ksft_exit_fail_msg("out of memory\n");
	ret = delete_any(e, NULL);
	if (ret)
		fail("delete", "deleting %s (nothing holds it): %s", e->name, err_name(ret));
	check_gone(e->name);
	if (chance(50)) {
		set_ctx("round trip through DIAG_IOCSREG", e->line + DYN_SKIP);
		fd = open_data();
		ret = uet_register(fd, e->line + DYN_SKIP, &reg);
		e->sidx = reg.status_index;
	} else {
		set_ctx("round trip through dynamic_events", e->line);
		ret = uet_dyn_cmd(e->line);
		e->sidx = 0;
	}
	if (ret) {
		drop_live(e);
		fail("round trip", "the line %s was shown for an accepted event; "
		     "registered again it fails with %s", e->line, err_name(ret));
	}
	if (!dyn_line(e->name, line, sizeof(line)) || strcmp(line, e->line))
		fail("round trip", "registered again from '%s' it shows as '%s'", e->line,
		     line);
	if (fd >= 0)
		close_data(fd);
	fmt2 = check_event(e, d);
	if (strcmp(fmt, fmt2))
		fail("round trip", "the format of %s changed:\n%s\nthen\n%s", e->name, fmt,
		     fmt2);
	stats.round_trips++;
	free(fmt2);
	free(d);
}

void process_live(struct live *e)
{
	struct event_desc *d = malloc(sizeof(*d));
	char *fmt;

	if (!d)
		ksft_exit_fail_msg("out of memory\n");
	fmt = check_event(e, d);
	round_trip(e, fmt);
	free(fmt);
	if (chance(70))
		payload_phase(e, d);
	if (chance(5)) {
		char cmd[TEXT_MAX];
		int ret;

		/* a delete whose fields do not match deletes nothing */
		snprintf(cmd, sizeof(cmd), "!u:%s u8 zz_not_a_field", e->name);
		set_ctx("dynamic_events delete", cmd);
		ret = uet_dyn_cmd(cmd);
		if (ret != -ENOENT)
			fail("delete", "%s: %s, want ENOENT", cmd, err_name(ret));
	}
	delete_live(e);
	free(d);
}

/*
 * Register @desc (through @fd's ioctl or dynamic_events) and check the
 * outcome against the ABI. @fd_count counts the events on @fd.
 */
void try_desc(const char *desc, int fd, int *fd_count)
{
	static struct event_desc want;
	char line[2 * TEXT_MAX];
	int via_dyn = chance(40) && dyn_safe(desc), ret, n, li;
	enum verdict v = oracle(desc, &want);
	struct user_status_reg reg = { 0 };
	struct live *e = NULL;

	stats.descs++;
	set_ctx(via_dyn ? "dynamic_events u:" : "DIAG_IOCSREG", desc);
	ret = via_dyn ? reg_dyn(desc) : reg_ioctl(fd, desc, &reg);
	if (opt.verbose)
		ksft_print_msg("%s '%s' -> %s (ABI: %s)\n", via_dyn ? "dyn" : "ioctl", desc,
			       err_name(ret), verdict_names[v]);
	if (ret && !errno_documented(-ret))
		fail("register errno", "undocumented error %s", err_name(ret));
	/* whatever got made is ours to delete, even when it should not exist */
	n = ret ? 0 : dyn_new_lines(line, sizeof(line));
	if (n == 1) {
		char name[256];

		line_name(line, strlen(line), name);
		e = add_live(name, line);
	}
	li = v == V_OK ? is_live(want.name) : -1;
	if (n == 1 && li == e - live)
		li = -1;
	switch (v) {
	case V_OK:
		if (li >= 0 && strcmp(line_fields(live[li].line), line_fields(want.canon)))
			expect_err("register: same name, other fields", ret, -EADDRINUSE);
		else
			expect_err("register: valid description", ret, 0);
		break;
	case V_EINVAL:
		expect_err("register: invalid description", ret, -EINVAL);
		break;
	case V_E2BIG:
		expect_err("register: description too long", ret, -E2BIG);
		break;
	default:
		if (ret && ret != -EINVAL && ret != -EADDRINUSE)
			fail("register", "either accepted or EINVAL, got %s", err_name(ret));
		stats.either++;
		break;
	}
	if (ret) {
		stats.rejected++;
		return;
	}
	stats.accepted++;
	if (n > 1)
		fail("register", "one registration made %d events", n);
	if (n == 1) {
		if (v == V_OK && strcmp(line, want.canon))
			fail("canonical", "dynamic_events shows '%s', the ABI says '%s'", line,
			     want.canon);
	} else {
		li = is_live(want.name);
		/* an "either" may name a live event in a way we do not parse */
		if (li < 0 && v != V_OK && nr_live)
			return;
		if (li < 0)
			fail("register", "accepted, but nothing new in dynamic_events");
		e = &live[li];
		if (!dyn_line(e->name, line, sizeof(line)) || strcmp(line, e->line))
			fail("register", "registering %s again changed its line to '%s'",
			     e->name, line);
		if (!via_dyn && e->sidx && reg.status_index != e->sidx)
			fail("register", "%s again: status index %u, was %u", e->name,
			     reg.status_index, e->sidx);
	}
	if (!via_dyn) {
		if (!e->sidx)
			e->sidx = reg.status_index;
		if (e->widx < 0)
			e->widx = (*fd_count)++;
		if ((int)reg.write_index != e->widx || reg.status_index != e->sidx)
			fail("register", "write index %u (want %d), status index %u (want %u)",
			     reg.write_index, e->widx, reg.status_index, e->sidx);
	}
}

/*
 * Canonical fields @p ("; " between fields, " " between words) after a
 * separator at @o of @out, spaced anew; returns where they end
 */
int respace_fields(const char *p, char *out, size_t size, int o)
{
	if (*p)
		o += snprintf(out + o, size - o, "%s", sep_ws());
	for (; *p && o < (int)size - 8; p++) {
		if (p[0] == ';' && p[1] == ' ') {
			o += snprintf(out + o, size - o, "%s", sep_field(0));
			p++;
		} else if (*p == ' ') {
			o += snprintf(out + o, size - o, "%s", sep_ws());
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return o;
}

/* The same fields as @line, spaced differently, maybe with other flags */
void respace(const char *line, char *out, size_t size)
{
	const char *p = line_fields(line);
	int o = snprintf(out, size, "%s", sep_ws());
	char name[256];

	line_name(line, strlen(line), name);
	o += snprintf(out + o, size - o, "%s%s", name, chance(30) ? ":NEW_FLAG" : "");
	o = respace_fields(p, out, size, o);
	if (*line_fields(line) && chance(30))
		snprintf(out + o, size - o, ";");
}

/* Edge cases of the ioctls and of dynamic_events ---------------------------------- */

void reg_edges(void)
{
	/* 24 is this struct, 28 to 4096 the enable-bit one, more is E2BIG */
	static const unsigned int sizes[] = { 0, 1, 16, 23, 25, 27, 4097, 0xffffffff };
	static const unsigned long long ptrs[] = {
		0, 1, 0xffffffff81000000ULL, 0x8000000000000000ULL, 0xffffffffffffffffULL,
	};
	char desc[TEXT_MAX], *at;
	struct user_status_reg reg;
	int fd = open_data(), ret, len;

	stats.edges++;
	gen_desc(desc, sizeof(desc), NULL);
	switch (rnd_below(8)) {
	case 0:		/* a size of neither struct */
		memset(&reg, 0, sizeof(reg));
		reg.size = sizes[rnd_below(ARRAY_SIZE(sizes))];
		reg.name_args = (unsigned long)desc;
		set_ctx("DIAG_IOCSREG with a bad size", desc);
		ret = ioctl(fd, DIAG_IOCSREG, &reg) ? -errno : 0;
		expect_err("DIAG_IOCSREG size", ret, reg.size > 4096 ? -E2BIG : -EINVAL);
		break;
	case 1:		/* a description nobody can read */
		memset(&reg, 0, sizeof(reg));
		reg.size = sizeof(reg);
		reg.name_args = chance(70) ? ptrs[rnd_below(ARRAY_SIZE(ptrs))] :
			(unsigned long)(guard + page_size);
		set_ctx("DIAG_IOCSREG with a bad pointer", "");
		ret = ioctl(fd, DIAG_IOCSREG, &reg) ? -errno : 0;
		expect_err("DIAG_IOCSREG pointer", ret, -EFAULT);
		break;
	case 2:		/* a description running into a PROT_NONE page */
		len = chance(50) ? rnd_range(1, 600) : 508 + (int)rnd_below(8);
		at = (char *)guard + page_size - len;
		memset(at, 'a', len);
		set_ctx("DIAG_IOCSREG, no NUL before PROT_NONE", "");
		snprintf(ctx.text, sizeof(ctx.text), "%d bytes of 'a'", len);
		ret = uet_register(fd, at, &reg);
		if (len < DESC_LIMIT + 1)
			expect_err("DIAG_IOCSREG unterminated", ret, -EFAULT);
		else if (len > DESC_LIMIT + 1)
			expect_err("DIAG_IOCSREG unterminated", ret, -E2BIG);
		else if (ret != -EFAULT && ret != -E2BIG)
			fail("DIAG_IOCSREG unterminated", "%s, want EFAULT or E2BIG",
			     err_name(ret));
		break;
	case 3:		/* the struct itself unreadable, past its size */
		set_ctx("DIAG_IOCSREG with a bad struct pointer", "");
		len = chance(50) ? 4 : 8;
		at = (char *)guard + page_size - len;
		memset(at, 0, len);
		*(unsigned int *)at = sizeof(reg);
		ret = ioctl(fd, DIAG_IOCSREG, chance(30) ? NULL : at) ? -errno : 0;
		expect_err("DIAG_IOCSREG struct pointer", ret, -EFAULT);
		break;
	case 4:		/* deleting through bad pointers and odd names */
		set_ctx("DIAG_IOCSDEL with a bad pointer", "");
		ret = ioctl(fd, DIAG_IOCSDEL, chance(50) ? NULL : guard + page_size) ?
			-errno : 0;
		expect_err("DIAG_IOCSDEL pointer", ret, -EFAULT);
		len = rnd_range(0, 300);
		at = (char *)guard + page_size - len - 1;
		memset(at, 'q', len);
		at[len] = '\0';
		set_ctx("DIAG_IOCSDEL of a name nobody has", at);
		ret = uet_delete(fd, at);
		if (ret != -ENOENT && ret != -EINVAL)
			fail("DIAG_IOCSDEL", "%s, want ENOENT or EINVAL", err_name(ret));
		break;
	case 5:		/* a name running into PROT_NONE */
		len = rnd_range(1, 300);
		at = (char *)guard + page_size - len;
		memset(at, 'q', len);
		set_ctx("DIAG_IOCSDEL, no NUL before PROT_NONE", "");
		ret = uet_delete(fd, at);
		if (ret != -EFAULT && ret != -EINVAL)
			fail("DIAG_IOCSDEL", "%s, want EFAULT or EINVAL", err_name(ret));
		break;
	case 6:		/* unknown ioctls */
		set_ctx("an unknown ioctl", "");
		ret = ioctl(fd, chance(50) ? _IO(DIAG_IOC_MAGIC, 2) :
			    _IOWR(DIAG_IOC_MAGIC, 0, char[10]), desc) ? -errno : 0;
		expect_err("unknown ioctl", ret, -ENOTTY);
		break;
	default:	/* writes to an fd that registered nothing */
		set_ctx("write on an fd without events", "");
		ret = chance(50) ? 0 : -1;
		ret = write(fd, &ret, sizeof(ret)) < 0 ? -errno : 0;
		if (ret != -ENOENT && ret != -EINVAL)
			fail("write", "write on an fd without events: %s", err_name(ret));
		break;
	}
	close_data(fd);
}

void dyn_edges(void)
{
	static const char * const cmds[] = {
		"u:", "u: ", "!u:", "-:", "-:user_events/", "-:/", "-:kprobes/fz_none",
		"-:fz_none_such", "!u:fz_none_such u32 a", "-:user_events/fz_none_such",
		"u::", "u:\t", "!u: ", "!u:fz_none_such;",
	};
	char cmd[700];
	int ret;

	stats.edges++;
	if (chance(70)) {
		snprintf(cmd, sizeof(cmd), "%s", pick(cmds, ARRAY_SIZE(cmds)));
	} else {
		int len = rnd_range(250, 600);

		memset(cmd, 'n', len);
		cmd[len] = '\0';
		memcpy(cmd, chance(50) ? "-:" : "u:", 2);
	}
	set_ctx("dynamic_events", cmd);
	ret = uet_dyn_cmd(cmd);
	if (!ret) {
		/* only "u:" + a long valid name creates something */
		char line[TEXT_MAX];

		if (dyn_new_lines(line, sizeof(line)) != 1 || strlen(cmd) > 2 + 255)
			fail("dynamic_events", "'%.40s...' accepted", cmd);
		add_live(cmd + 2, line);
		return;
	}
	if (ret != -EINVAL && ret != -ENOENT && ret != -E2BIG)
		fail("dynamic_events", "%s", err_name(ret));
}

/* Several fds hold one event; it can be deleted only once all are closed */
void refs_scenario(void)
{
	char desc[TEXT_MAX];
	static struct event_desc d;
	struct user_status_reg reg;
	int fds[4], n = rnd_range(2, 4), i, ret;
	struct live *e = NULL;
	pid_t child = -1;

	do
		gen_desc(desc, sizeof(desc), NULL);
	while (oracle(desc, &d) != V_OK || strlen(d.canon + DYN_SKIP) > DESC_LIMIT);
	for (i = 0; i < n; i++) {
		fds[i] = open_data();
		set_ctx("DIAG_IOCSREG on several fds", desc);
		ret = uet_register(fds[i], desc, &reg);
		if (ret)
			fail("refs", "registering a valid event on fd %d: %s", i,
			     err_name(ret));
		if (!i) {
			e = add_live(d.name, d.canon);
			e->sidx = reg.status_index;
		}
		if (reg.write_index || reg.status_index != e->sidx)
			fail("refs", "fd %d: write index %u, status index %u (want 0, %u)",
			     i, reg.write_index, reg.status_index, e->sidx);
	}
	if (chance(30)) {
		child = fork();
		if (child == 0) {
			/* holds copies of the fds until told to go */
			pause();
			_exit(0);
		}
	}
	for (i = n - 1; i > 0; i--) {
		int j = rnd_below(i + 1), t = fds[i];

		fds[i] = fds[j];
		fds[j] = t;
	}
	for (i = 0; i < n; i++) {
		ret = delete_any(e, NULL);
		if (ret != -EBUSY)
			fail("refs", "delete with %d fds open: %s, want EBUSY", n - i,
			     err_name(ret));
		close_data(fds[i]);
	}
	if (child > 0) {
		ret = delete_any(e, NULL);
		if (ret != -EBUSY)
			fail("refs", "delete while a child holds the fds: %s, want EBUSY",
			     err_name(ret));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	delete_live(e);
}

/* Many events on one fd: dense write indexes, all writable */
void many_events(void)
{
	static struct event_desc d;
	char desc[TEXT_MAX];
	struct user_status_reg reg;
	int fd = open_data(), n = rnd_range(8, 40), i, ret, idx;
	unsigned char buf[8];

	for (i = 0; i < n && nr_live < MAX_LIVE; i++) {
		struct live *e;

		do
			gen_desc(desc, sizeof(desc), NULL);
		while (oracle(desc, &d) != V_OK || d.min_size > 4 ||
		       strlen(d.canon + DYN_SKIP) > DESC_LIMIT);
		set_ctx("DIAG_IOCSREG of many events", desc);
		ret = uet_register(fd, desc, &reg);
		if (ret)
			fail("many", "registering event %d: %s", i, err_name(ret));
		if ((int)reg.write_index != i)
			fail("many", "event %d got write index %u", i, reg.write_index);
		e = add_live(d.name, d.canon);
		e->sidx = reg.status_index;
	}
	n = i;
	for (i = 0; i < 2 * n; i++) {
		idx = rnd_below(n);
		memcpy(buf, &idx, 4);
		memset(buf + 4, 0, 4);
		set_ctx("write to one of many events", "");
		if (write(fd, buf, 8) != 8)
			fail("many", "write to index %d: %s", idx, strerror(errno));
	}
	close_data(fd);
}

/* A group's command; failing the run unless it gives @want */
static void group_cmd(const char *cmd, int want)
{
	int ret = uet_write_file(TRACEFS "user_events_groups", cmd, O_APPEND);

	set_ctx("user_events_groups", cmd);
	if (ret != want)
		fail("groups", "'%s': %s, want %s", cmd, err_name(ret), err_name(want));
}

/*
 * A tenant group with a random limit: valid descriptions, some with the
 * name of a default-group event made first, registered through the group's
 * file are the group's own events (its system, not user_events) up to its
 * limit, then EMFILE; the default group's file cannot delete them, nor the
 * group's the default group's; removal is EBUSY until they are deleted,
 * then the group and its events are gone
 */
void groups_scenario(void)
{
	int max = rnd_range(1, 6), n = rnd_range(1, 8), made = 0, i, j, ret, gfd, dfd;
	char group[32], cmd[2200], desc[TEXT_MAX], path[2200];
	static char names[8][256];
	static struct event_desc d;
	struct user_status_reg reg;
	struct live *shadow = NULL;

	stats.group_scenarios++;
	/* a new name each time: what a failed scenario left stays apart */
	snprintf(group, sizeof(group), "fz%llu", cur_iter % 1000000);
	snprintf(cmd, sizeof(cmd), "%s max=%d", group, max);
	group_cmd(cmd, 0);
	snprintf(path, sizeof(path), TRACEFS "user_groups/%s/user_events_data", group);
	gfd = open(path, O_RDWR);
	if (gfd < 0)
		fail("groups", "open %s: %s", path, strerror(errno));
	if (nr_iter_fds < (int)ARRAY_SIZE(iter_fds))
		iter_fds[nr_iter_fds++] = gfd;
	dfd = open_data();
	for (i = 0; i < n; i++) {
		do
			gen_desc(desc, sizeof(desc), NULL);
		while (oracle(desc, &d) != V_OK || strlen(d.canon + DYN_SKIP) > DESC_LIMIT);
		/* the first may have a default-group twin with the same name */
		if (!i && chance(50)) {
			set_ctx("DIAG_IOCSREG (default group twin)", desc);
			if (uet_register(dfd, desc, &reg))
				fail("groups", "registering a valid event: %s", desc);
			shadow = add_live(d.name, d.canon);
			shadow->sidx = reg.status_index;
			stats.group_same_name++;
		}
		for (j = 0; j < made && strcmp(names[j], d.name); j++)
			;
		set_ctx("DIAG_IOCSREG in a group", desc);
		ret = uet_register(gfd, desc, &reg);
		stats.group_regs++;
		if (j < made) {
			if (ret && ret != -EADDRINUSE)
				fail("groups", "a name again: %s", err_name(ret));
			continue;
		}
		if (made == max) {
			if (ret != -EMFILE)
				fail("groups", "past the limit %d: %s, want EMFILE", max,
				     err_name(ret));
			stats.group_full++;
			continue;
		}
		if (ret)
			fail("groups", "registering a valid event: %s", err_name(ret));
		snprintf(names[made++], sizeof(names[0]), "%s", d.name);
		snprintf(path, sizeof(path), TRACEFS "events/user_events_%s/%s", group, d.name);
		if (access(path, F_OK))
			fail("groups", "no %s", path);
		/* the default group's file does not reach it */
		if (!shadow || strcmp(shadow->name, d.name)) {
			ret = uet_delete(dfd, d.name);
			if (ret != -ENOENT)
				fail("groups", "default group deleting %s: %s, want ENOENT",
				     d.name, err_name(ret));
		}
	}
	/* nor the group's file the default group's twin: its own, held, is EBUSY */
	if (shadow) {
		int own = made && !strcmp(names[0], shadow->name);

		ret = uet_delete(gfd, shadow->name);
		if (ret != (own ? -EBUSY : -ENOENT))
			fail("groups", "the group's file deleting %s: %s", shadow->name,
			     err_name(ret));
	}
	snprintf(cmd, sizeof(cmd), "!%s", group);
	group_cmd(cmd, -EBUSY);
	close_data(gfd);
	close_data(dfd);
	if (made)
		group_cmd(cmd, -EBUSY);
	for (i = 0; i < made; i++) {
		snprintf(cmd, sizeof(cmd), "-:user_events_%s/%s", group, names[i]);
		ret = uet_write_file(UE_DYN, cmd, O_APPEND);
		if (ret)
			fail("groups", "'%s': %s", cmd, err_name(ret));
	}
	snprintf(cmd, sizeof(cmd), "!%s", group);
	group_cmd(cmd, 0);
	snprintf(path, sizeof(path), TRACEFS "events/user_events_%s", group);
	if (!access(path, F_OK))
		fail("groups", "%s is still there", path);
	/* the twin is still there, and goes only now */
	if (shadow)
		delete_live(shadow);
}
