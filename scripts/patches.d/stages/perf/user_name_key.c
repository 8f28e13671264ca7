/* The key of the event named @name in user_event_table */
static u32 user_name_key(const char *name)
{
	return full_name_hash(NULL, name, strlen(name));
}
