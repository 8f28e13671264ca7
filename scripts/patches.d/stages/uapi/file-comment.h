/*
 * user_events: trace events created and written by user processes.
 *
 * A process maps the status page of the tracefs file user_events_status,
 * registers events with DIAG_IOCSREG on user_events_data, tests the byte
 * at status_index before each event and writes
 * [write_index][payload] with write() or writev() to the same fd.
 * See Documentation/trace/user_events.rst.
 */
