/*
 * A write of index @idx and @len payload bytes, on @file: its event in
 * *@uep when the payload is to be recorded (returns 0), else an errno.
 */
static int user_event_write_check(struct file *file, int idx, size_t len,
				  struct user_event **uep)
{
	struct user_event *ue;

	ue = user_event_of_fd(file, idx);
	if (unlikely(!ue))
		return idx < 0 ? -EINVAL : -ENOENT;
	if (len < ue->min_size)
		return -EINVAL;
	*uep = ue;
	return 0;
}
