/*
 * user_events: trace events created and written by user processes.
 *
 * A process maps the one status page of user_events_status, registers its
 * events with DIAG_IOCSREG on user_events_data and, when the event's status
 * byte is not zero, writes [write index][payload] to the same file. Each user
 * event is an ordinary trace event of the "user_events" system; the payload
 * becomes the record after the common header, untouched.
 * See Documentation/trace/user_events.rst.
 */
