/* The status page every event needs: without it, no events */
static int __init trace_events_user_init_early(void)
{
	status_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!status_page) {
		pr_warn("no memory for the status page: user_events is off\n");
		return -ENOMEM;
	}
	status_bytes = page_address(status_page);
	return 0;
}
