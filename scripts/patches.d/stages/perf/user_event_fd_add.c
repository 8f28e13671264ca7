/*
 * The fd's write index for @ue, taking a reference when it is new. Only an
 * event that existed before (@created false) can already be in the array.
 */
static int user_event_fd_add(struct user_event_fd *ufd, struct user_event *ue,
			     bool created)
{
	struct user_event_refs *old, *refs;
	int i, count;

	lockdep_assert_held(&event_mutex);
	old = rcu_dereference_protected(ufd->refs, lockdep_is_held(&event_mutex));
	count = old ? old->count : 0;
	for (i = 0; !created && i < count; i++)
		if (old->events[i] == ue)
			return i;
	refs = old;
	if (!old || count == old->size) {
		int size = old ? 2 * old->size : 8;

		refs = kmalloc(struct_size(refs, events, size), GFP_KERNEL_ACCOUNT);
		if (!refs)
			return -ENOMEM;
		refs->size = size;
		refs->count = count;
		if (old)
			memcpy(refs->events, old->events, count * sizeof(*old->events));
	}
	refs->events[count] = ue;
	refcount_inc(&ue->refs);
	/* writers that see the new count see the new slot */
	smp_store_release(&refs->count, count + 1);
	if (refs != old) {
		rcu_assign_pointer(ufd->refs, refs);
		if (old)
			kfree_rcu(old, rcu);
	}
	return count;
}
