/*
 * The events of one set of files (user_events_data, user_events_status):
 * their system, their status page and the events that have a byte in it.
 * user_init_group is the files at the root of tracefs, whose events are
 * user_events:*, and the only one.
 */
