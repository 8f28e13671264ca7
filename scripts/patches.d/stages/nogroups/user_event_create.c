static int user_event_create(const char *raw_command)
{
	struct user_event *ue;
	bool created = false;

	if (!str_has_prefix(raw_command, USER_EVENTS_PREFIX))
		return -ECANCELED;
	/* the feature is off: its set-up failed at boot */
	if (!user_init_group.status_bytes)
		return -ENODEV;
	guard(mutex)(&event_mutex);
	ue = user_event_find_or_create(&user_init_group, raw_command,
				       strlen(USER_EVENTS_PREFIX),
				       UE_GET_SLOT | UE_GET_KEEP, &created);
	return PTR_ERR_OR_ZERO(ue);
}
