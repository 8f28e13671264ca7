// SPDX-License-Identifier: GPL-2.0
/*
 * plain_fmt.so: see scripts/build-conformance. Serves tracefs event format
 * files with the %hhd/%hhu/%hd/%hu of their print fmt line written %d/%u,
 * so that upstream's print_fmt case shows whether our format differs from
 * what it expects by those length modifiers only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int is_format(const char *path)
{
	size_t n = strlen(path);

	return strstr(path, "/events/") && n > 7 && !strcmp(path + n - 7, "/format");
}

/* The rewritten copy of PATH in a memfd, or -1 with errno set */
static int plain_copy(const char *path)
{
	int (*real_open)(const char *, int, ...) = dlsym(RTLD_NEXT, "open");
	size_t len = 0, cap = 65536, o = 0, i, h;
	char *in, *out;
	int fd, mfd, in_fmt = 0;
	ssize_t r;

	fd = real_open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	in = malloc(cap);
	out = malloc(cap);
	if (!in || !out)
		abort();
	while ((r = read(fd, in + len, cap - len)) > 0)
		len += r;
	close(fd);
	if (r < 0 || len == cap)
		abort();
	for (i = 0; i < len; i++) {
		if (i == 0 || in[i - 1] == '\n')
			in_fmt = len - i >= 10 && !memcmp(in + i, "print fmt:", 10);
		out[o++] = in[i];
		if (!in_fmt || in[i] != '%')
			continue;
		for (h = 0; h < 2 && i + 1 + h < len && in[i + 1 + h] == 'h'; h++)
			;
		if (h && i + 1 + h < len && (in[i + 1 + h] == 'd' || in[i + 1 + h] == 'u'))
			i += h;
	}
	mfd = memfd_create("format", 0);
	if (mfd < 0 || write(mfd, out, o) != (ssize_t)o || lseek(mfd, 0, SEEK_SET))
		abort();
	free(in);
	free(out);
	return mfd;
}

static int plain_open(const char *path, int flags, mode_t mode, const char *sym)
{
	int (*real)(const char *, int, ...) = dlsym(RTLD_NEXT, sym);

	if (is_format(path) && (flags & O_ACCMODE) == O_RDONLY)
		return plain_copy(path);
	return real(path, flags, mode);
}

/* open() and open64(): a mode comes only with O_CREAT or O_TMPFILE */
#define PLAIN_OPEN(sym)							\
int sym(const char *path, int flags, ...)				\
{									\
	mode_t mode;							\
	va_list ap;							\
									\
	va_start(ap, flags);						\
	mode = flags & (O_CREAT | O_TMPFILE) ? va_arg(ap, mode_t) : 0;	\
	va_end(ap);							\
	return plain_open(path, flags, mode, #sym);			\
}

PLAIN_OPEN(open)
PLAIN_OPEN(open64)

static FILE *plain_fopen(const char *path, const char *mode, const char *sym)
{
	FILE *(*real)(const char *, const char *) = dlsym(RTLD_NEXT, sym);
	int fd;

	if (!is_format(path) || mode[0] != 'r' || strchr(mode, '+'))
		return real(path, mode);
	fd = plain_copy(path);
	return fd < 0 ? NULL : fdopen(fd, mode);
}

FILE *fopen(const char *path, const char *mode)
{
	return plain_fopen(path, mode, "fopen");
}

FILE *fopen64(const char *path, const char *mode)
{
	return plain_fopen(path, mode, "fopen64");
}
