// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * example: a program instrumented with libuserevents.
 *
 * It registers three events and writes them once a second for COUNT seconds
 * (default 10), the third eight times a second in one batch. Watch them with
 *
 *	echo 1 > /sys/kernel/tracing/events/user_events/example_tick/enable
 *	cat /sys/kernel/tracing/trace_pipe
 *
 * It uses the library's default ABI, the enable bit of Linux 6.4+: the
 * events exist while it runs. Run it with USER_EVENTS_ABI=status to use
 * the status page, where they stay after it exits until deleted.
 *
 * Build: cc example.c $(pkg-config --cflags --libs libuserevents)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "user_events.h"

/* Fixed fields, then a string: count=1 name=example */
UE_DEFINE_EVENT(tick, "example_tick", "u32 count; s64 delta; __rel_loc char[] name");
/* A fixed-size text field and a byte array */
UE_DEFINE_EVENT(blob, "example_blob", "char[16] tag; __rel_loc unsigned char[] data");
/* Many small events: 8 a second, written in one system call (a batch) */
UE_DEFINE_EVENT(sample, "example_sample", "u32 second; u32 n; u64 value");

int main(int argc, char **argv)
{
	static const unsigned char data[] = { 0xde, 0xad, 0xbe, 0xef };
	int count = argc > 1 ? atoi(argv[1]) : 10;
	/* the batch's buffer is ours: room for the 8 samples of a second */
	unsigned char batch_buf[256];
	struct ue_batch batch;
	struct ue_writer w;
	ssize_t ret;
	int i, n;

	/* optional: find missing permissions now rather than at the first write */
	if (ue_register_all() < 0) {
		fprintf(stderr, "example: cannot register events: %s\n",
			ue_strerror(errno));
		return 1;
	}
	if (ue_get_abi() == UE_ABI_STATUS)
		printf("example: example_tick is status byte %u, example_blob %u\n",
		       tick.status_index, blob.status_index);
	else
		printf("example: example_tick and example_blob use the enable-bit ABI\n");

	ue_batch_init(&batch, batch_buf, sizeof(batch_buf));
	for (i = 1; i <= count; i++) {
		/* nothing below runs while nobody listens */
		if (ue_enabled(&tick)) {
			ue_write_begin(&w, &tick);
			ue_add_u32(&w, i);
			ue_add_s64(&w, -i);
			ue_add_str(&w, "example");
			ret = ue_write_end(&w);
			if (ret < 0)
				fprintf(stderr, "example: %s\n", ue_strerror(ret));
		}
		if (ue_enabled(&blob)) {
			ue_write_begin(&w, &blob);
			ue_add_chars(&w, "tag", 16);
			ue_add_array(&w, data, sizeof(data));
			ret = ue_write_end(&w);
			if (ret < 0)
				fprintf(stderr, "example: %s\n", ue_strerror(ret));
		}
		/* each sample its own event, the eight in one write */
		for (n = 0; n < 8 && ue_enabled(&sample); n++) {
			ue_write_begin(&w, &sample);
			ue_add_u32(&w, i);
			ue_add_u32(&w, n);
			ue_add_u64(&w, (uint64_t)i * 1000 + n);
			ret = ue_batch_add_writer(&batch, &w);
			if (ret < 0)
				fprintf(stderr, "example: %s\n", ue_strerror(ret));
		}
		ret = ue_batch_flush(&batch);
		if (ret < 0)
			fprintf(stderr, "example: %s\n", ue_strerror(ret));
		if (i < count)
			sleep(1);
	}
	return 0;
}
