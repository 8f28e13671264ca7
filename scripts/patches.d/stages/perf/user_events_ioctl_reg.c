static long user_events_ioctl_reg(struct file *file,
				  struct user_status_reg __user *ureg)
{
	char *desc __free(kfree) = NULL;
	struct user_event_fd *ufd = file->private_data;
	struct user_status_reg reg;
	struct user_event *ue;
	int widx;
	u32 size;

	if (get_user(size, &ureg->size))
		return -EFAULT;
	if (size != sizeof(reg))
		return -EINVAL;
	if (copy_from_user(&reg, ureg, sizeof(reg)))
		return -EFAULT;
	desc = user_desc_from_user(u64_to_user_ptr(reg.name_args));
	if (IS_ERR(desc))
		return PTR_ERR(no_free_ptr(desc));

	scoped_guard(mutex, &event_mutex) {
		bool created = false;

		ue = user_event_find_or_create(ufd->group, desc, 0, &created);
		if (IS_ERR(ue))
			return PTR_ERR(ue);
		widx = user_event_fd_add(ufd, ue, created);
		if (widx < 0) {
			if (created)
				user_event_destroy(ue);
			return widx;
		}
		reg.status_index = ue->index;
	}
	reg.write_index = widx;
	if (put_user(reg.status_index, &ureg->status_index) ||
	    put_user(reg.write_index, &ureg->write_index))
		return -EFAULT;
	return 0;
}
