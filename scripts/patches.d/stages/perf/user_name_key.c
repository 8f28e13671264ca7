/* The key of the event of @g named @name in user_event_table */
static u32 user_name_key(struct user_event_group *g, const char *name)
{
	return full_name_hash(g, name, strlen(name));
}
