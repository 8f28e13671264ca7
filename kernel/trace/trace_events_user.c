// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: trace events created and written by user processes.
 *
 * Skeleton: the two tracefs files and the shared read-only status page.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/tracefs.h>
#include <linux/user_events.h>

#include "trace.h"

/* One zeroed page, one status byte per event, mapped into every user */
static struct page *status_page;

static int user_status_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;

	if (vma->vm_pgoff || size > PAGE_SIZE)
		return -EINVAL;

	/* Readers only: neither now nor after a later mprotect() */
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE);

	return remap_pfn_range(vma, vma->vm_start, page_to_pfn(status_page),
			       PAGE_SIZE, vma->vm_page_prot);
}

static int user_status_show(struct seq_file *m, void *unused)
{
	seq_puts(m, "\nActive: 0\nBusy: 0\n");
	seq_printf(m, "Max: %lu\n", PAGE_SIZE);
	return 0;
}

static int user_status_open(struct inode *inode, struct file *file)
{
	return single_open(file, user_status_show, NULL);
}

static const struct file_operations user_status_fops = {
	.open		= user_status_open,
	.mmap		= user_status_mmap,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static const struct file_operations user_data_fops = {
	.open		= nonseekable_open,
};

static int __init trace_events_user_init(void)
{
	int ret;

	status_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!status_page)
		return -ENOMEM;

	ret = tracing_init_dentry();
	if (ret)
		return ret;

	if (!tracefs_create_file("user_events_status", TRACE_MODE_WRITE,
				 NULL, NULL, &user_status_fops) ||
	    !tracefs_create_file("user_events_data", TRACE_MODE_WRITE,
				 NULL, NULL, &user_data_fops)) {
		pr_warn("could not create tracefs files\n");
		return -ENODEV;
	}

	return 0;
}

fs_initcall(trace_events_user_init);
