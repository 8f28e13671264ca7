/*
 * A deletion asked for (user_event_delete()) of an event whose records an
 * ftrace buffer may hold does not clear those buffers, as the removal of a
 * trace event does (trace_remove_event_call()): the event is retired. Its
 * name and status byte are free at once, and it is listed nowhere; its
 * trace event (call) goes, its type stays registered on fmt, so that trace
 * and trace_pipe print its records with its fields, and fmt is listed in
 * tracefs as a format only (TRACE_EVENT_FL_IGNORE_ENABLE, no reg: no
 * enable, filter, trigger or id file, nothing attaches to it), as
 * events/<system>_retired/<name>_<type>/format, for trace-cmd and the like.
 *
 * It goes, and its type with it, once no buffer holds records of it: for
 * each trace array it was enabled in (those whose buffers the core would
 * have cleared), the array is gone, or none of its buffer's records is as
 * old as the retirement: on each CPU, the buffer is empty or its oldest
 * unread record is younger than the time of the trace array's clock, read
 * on that CPU, when the event was retired (no record of it can be written
 * since: no fd holds it). A trace array with a snapshot buffer keeps it
 * (the snapshot may hold them, and swaps with the buffer). A worker
 * checks every USER_RETIRED_CHECK while there are retired events.
 *
 * A reader may still want the format of records it took out of a buffer
 * (trace-cmd extract reads the data, clears the buffer, then reads every
 * format): the event goes USER_RETIRED_GRACE after its buffers were found
 * free of its records. Its memory is charged to the deleter's memory
 * cgroup.
 */
