/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal TAP producer for the host unit tests of libuserevents.
 */
#ifndef _UE_TEST_UTIL_H
#define _UE_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_count, t_failed;

#define CHECK(cond, ...) do {						\
	t_count++;							\
	if (cond) {							\
		printf("ok %d ", t_count);				\
	} else {							\
		t_failed++;						\
		printf("not ok %d ", t_count);				\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

/* Print the plan at the end, exit 0 when every check passed */
static inline int t_done(const char *name)
{
	printf("1..%d\n# %s: %d passed, %d failed\n", t_count, name,
	       t_count - t_failed, t_failed);
	return t_failed ? 1 : 0;
}

#endif /* _UE_TEST_UTIL_H */
