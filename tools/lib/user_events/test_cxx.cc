// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The header from C++: built with g++ -std=c++11 -pedantic -Werror (the
 * Makefile), so that UE_EVENT(), UE_DEFINE_EVENT() and the inline writer
 * compile as C++ without a warning; the events they make start as the C
 * ones do, and a write goes through the library (here, without a tracefs,
 * to its error).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "user_events.h"
#include "test_util.h"

UE_DEFINE_EVENT(defined_ev, "cxx_defined", "u32 n; char[8] s");
static struct ue_event plain_ev = UE_EVENT("cxx_plain", "u64 v");

int main(void)
{
	struct ue_event *evs[] = { &defined_ev, &plain_ev };
	struct ue_writer w;
	unsigned int i;
	ssize_t ret;

	CHECK(!strcmp(defined_ev.desc, "cxx_defined u32 n; char[8] s"),
	      "UE_DEFINE_EVENT() joins name and fields: %s", defined_ev.desc);
	CHECK(!strcmp(plain_ev.desc, "cxx_plain u64 v"),
	      "UE_EVENT() joins name and fields: %s", plain_ev.desc);
	for (i = 0; i < 2; i++) {
		CHECK(evs[i]->status == &ue_disabled_byte && !ue_enabled(evs[i]),
		      "%s: disabled until registered", evs[i]->desc);
		CHECK(evs[i]->write_index == -1 && !evs[i]->status_index &&
		      !evs[i]->registered, "%s: no index, not registered",
		      evs[i]->desc);
	}
	/* the inline writer, as C++ sees it; no tracefs there: an error */
	setenv("USER_EVENTS_TRACEFS", "/nonexistent-user_events-test", 1);
	ue_write_begin(&w, &defined_ev);
	ue_add_u32(&w, 7);
	ue_add_chars(&w, "abc", 8);
	ret = ue_write_end(&w);
	CHECK(ret == -ENOENT, "no user_events_data: the write returns -ENOENT (%zd)", ret);
	return t_done("test_cxx");
}
