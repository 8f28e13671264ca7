/* Drop the references an fd took; never the last: the event's own stays */
static void user_event_refs_drop(struct user_event_refs *refs)
{
	struct user_event **ue;

	if (!refs)
		return;
	for (ue = refs->events; ue < refs->events + refs->count; ue++)
		refcount_dec(&(*ue)->refs);
	kfree(refs);
}

static int user_events_release(struct inode *inode, struct file *file)
{
	struct user_event_fd *ufd = file->private_data;

	/* The fd is gone: nobody else can see its array any more */
	user_event_refs_drop(rcu_dereference_protected(ufd->refs, true));
	kfree(ufd);
	return 0;
}
