/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LTTng-UST tracepoint provider of ue_bench_peers: one event of a
 * byte sequence (the payload), as a user of LTTng-UST would declare it.
 * payload is enabled in the bench's session, idle never is.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ue_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ue_bench_tp.h"

#if !defined(UE_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define UE_BENCH_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT_CLASS(ue_bench, bytes,
	LTTNG_UST_TP_ARGS(const char *, buf, unsigned int, len),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_sequence(char, d, buf, unsigned int, len)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(ue_bench, bytes, ue_bench, payload,
	LTTNG_UST_TP_ARGS(const char *, buf, unsigned int, len))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(ue_bench, bytes, ue_bench, idle,
	LTTNG_UST_TP_ARGS(const char *, buf, unsigned int, len))

#endif /* UE_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
