/*
 * event_mutex protects the event table, the status indexes, the consumer
 * counts and the growth of the per-fd arrays: every user_events state change
 * also adds, removes or (un)registers a trace event, which needs it anyway.
 */
