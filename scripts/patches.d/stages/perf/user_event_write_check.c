static int user_event_write_check(struct file *file, int idx, size_t len,
				  struct user_event **uep)
{
	struct user_event *ue;

	ue = user_event_of_fd(file, idx);
	if (unlikely(!ue))
		return idx < 0 ? -EINVAL : -ENOENT;
	if (len < ue->min_size)
		return -EINVAL;
	if (unlikely(len > USER_EVENT_FITS_ALL) && user_event_too_big(ue, len))
		return -E2BIG;
	/*
	 * Nobody listening: accepted, nothing recorded. Rare for a client
	 * that tests its byte before writing: the path laid out straight is
	 * the write that records.
	 */
	if (unlikely(!rcu_access_pointer(ue->tp.funcs)))
		return 1;
	*uep = ue;
	return 0;
}
