static ssize_t user_events_write_iter(struct kiocb *kiocb, struct iov_iter *i)
{
	size_t total = iov_iter_count(i), len;
	struct user_event *ue;
	int idx, ret;

	if (total < USER_EVENT_INDEX_SIZE)
		return -EINVAL;
	if (unlikely(user_event_read_index(i, &idx)))
		return -EFAULT;
	if (idx < 0)
		return -EINVAL;
	ue = user_event_of_fd(kiocb->ki_filp, idx);
	if (!ue)
		return -ENOENT;
	len = total - USER_EVENT_INDEX_SIZE;
	if (len < ue->min_size)
		return -EINVAL;
	if (len > USER_EVENT_MAX_PAYLOAD)
		return -E2BIG;
	/* Nobody listening: accepted, nothing recorded */
	if (likely(!rcu_access_pointer(ue->tp.funcs)))
		return total;
	ret = user_event_emit(ue, i, len);
	return ret ? ret : total;
}
