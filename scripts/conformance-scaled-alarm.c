// SPDX-License-Identifier: GPL-2.0
/*
 * scaled_alarm.so: see scripts/build-conformance. The base tree's kselftest
 * harness bounds each case of its tests with alarm(timeout). Preloaded,
 * alarm() of a non-zero time asks for that time times
 * USER_EVENTS_TIMEOUT_SCALE, as UE_HARNESS_MAIN does for our own tests
 * (tools/testing/selftests/user_events/ue_util.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "../tools/testing/selftests/user_events/ue_util.h"

unsigned int alarm(unsigned int seconds)
{
	unsigned int (*real_alarm)(unsigned int) = dlsym(RTLD_NEXT, "alarm");

	return real_alarm(seconds ? ue_scale_s(seconds) : 0);
}
