static int user_status_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct user_event_group *g = ((struct seq_file *)file->private_data)->private;
	unsigned long size = vma->vm_end - vma->vm_start;

	if (vma->vm_pgoff || size > PAGE_SIZE)
		return -EINVAL;

	/* Data to read only: neither now nor after a later mprotect() */
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);

	return remap_pfn_range(vma, vma->vm_start, page_to_pfn(g->status_page),
			       PAGE_SIZE, vma->vm_page_prot);
}
