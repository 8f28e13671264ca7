/* The status page every event needs: without it, no events */
static int __init trace_events_user_init_early(void)
{
	user_init_group.status_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!user_init_group.status_page) {
		pr_warn("no memory for the status page: user_events is off\n");
		return -ENOMEM;
	}
	user_init_group.status_bytes = page_address(user_init_group.status_page);
	return 0;
}
