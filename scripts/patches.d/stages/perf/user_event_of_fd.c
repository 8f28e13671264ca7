static struct user_event *user_event_of_fd(struct file *file, int idx)
{
	struct user_event_fd *ufd = file->private_data;
	struct user_event_refs *refs;
	struct user_event *ue = NULL;

	/* The fd holds a reference on each of its events until release */
	rcu_read_lock_sched();
	refs = rcu_dereference_sched(ufd->refs);
	/*
	 * Pairs with the release in user_event_fd_add(): counted slots are
	 * set. A negative index is out of range too.
	 */
	if (refs && (unsigned int)idx < (unsigned int)smp_load_acquire(&refs->count))
		ue = refs->events[idx];
	rcu_read_unlock_sched();
	return ue;
}
