static int user_status_open(struct inode *inode, struct file *file)
{
	return single_open(file, user_status_show, &user_init_group);
}
