// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * test_strerror: the messages of ue_strerror() explain the errors a writer
 * meets and say what to do.
 */
#include <errno.h>

#include "user_events.h"
#include "test_util.h"

int main(void)
{
	const char *s;

	printf("TAP version 13\n");
	s = ue_strerror(-EACCES);
	CHECK(strstr(s, "user_events_status") && strstr(s, "user_events_data") &&
	      strstr(s, "administrator"), "EACCES names both files and who to ask");
	CHECK(!strcmp(ue_strerror(EACCES), s), "positive and negative errno agree");
	CHECK(!!strstr(ue_strerror(-EADDRINUSE), "other fields"),
	      "EADDRINUSE: the name exists with other fields");
	CHECK(!!strstr(ue_strerror(-E2BIG), "511"),
	      "E2BIG: gives the description limit");
	CHECK(!!strstr(ue_strerror(-EINVAL), "error_log"),
	      "EINVAL: points at error_log");
	CHECK(!!strstr(ue_strerror(-EMFILE), "delete"),
	      "EMFILE: says to delete events");
	CHECK(!!strstr(ue_strerror(-EBUSY), "consumer"),
	      "EBUSY: a writer or a consumer holds the event");
	CHECK(!!strstr(ue_strerror(-ENOENT), "CONFIG_USER_EVENTS"),
	      "ENOENT: mentions the kernel option");
	CHECK(!!strstr(ue_strerror(-EFAULT), "__rel_loc"),
	      "EFAULT: bad loc fields");
	CHECK(!!strstr(ue_strerror(-EPERM), "CAP_PERFMON"),
	      "EPERM: a persistent event needs CAP_PERFMON");
	CHECK(!!strstr(ue_strerror(-EBADF), "nobody listens"),
	      "EBADF: the enable-bit ABI refuses writes while nobody listens");
	CHECK(!!strstr(ue_strerror(-EINVAL), "USER_EVENTS_ABI"),
	      "EINVAL: says how to try the other ABI");
	CHECK(!strcmp(ue_strerror(-ENOSPC), strerror(ENOSPC)),
	      "other errors: strerror()");
	CHECK(!strcmp(ue_strerror(0), "Success"), "0 is success");
	return t_done("test_strerror");
}
