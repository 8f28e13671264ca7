// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the files of tracefs. user_events_data (registration
 * by either ABI, deletion, batch fds), user_events_status (the status page
 * and its listing), user_events_groups (tenant groups) and the set-up at
 * boot.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include "trace_events_user.h"

/* user_events_data ------------------------------------------------------- */

/*
 * The fd's write index for @ue through the ABI @bits tells, taking a
 * reference when it is new. Only an event that existed before (@created
 * false) can already be in the array.
 */
static int user_event_fd_add(struct user_event_fd *ufd, struct user_event *ue,
			     bool created, bool bits)
{
	unsigned long slot = (unsigned long)ue | (bits ? USER_SLOT_BIT_ABI : 0);
	struct user_event_refs *old, *refs;
	int i, count;

	lockdep_assert_held(&event_mutex);
	old = rcu_dereference_protected(ufd->refs, lockdep_is_held(&event_mutex));
	count = old ? old->count : 0;
	for (i = 0; !created && i < count; i++)
		if (old->slots[i] == slot)
			return i;

	refs = old;
	if (!old || count == old->size) {
		int size = old ? 2 * old->size : 8;

		refs = kmalloc(struct_size(refs, slots, size), GFP_KERNEL_ACCOUNT);
		if (!refs)
			return -ENOMEM;
		refs->size = size;
		refs->count = count;
		if (old)
			memcpy(refs->slots, old->slots, count * sizeof(*old->slots));
	}

	refs->slots[count] = slot;
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

/* Copy a description from user space: E2BIG past USER_EVENT_MAX_DESC */
static char *user_desc_from_user(const char __user *udesc)
{
	long len = strnlen_user(udesc, USER_EVENT_MAX_DESC + 1);

	if (!len)
		return ERR_PTR(-EFAULT);
	if (len > USER_EVENT_MAX_DESC)
		return ERR_PTR(-E2BIG);
	return strndup_user(udesc, USER_EVENT_MAX_DESC);
}

/*
 * Register @desc on @file's fd, @how (UE_REG_*), and link @e to it when
 * given (the enable-bit ABI; the process's now, or freed on an error).
 * Returns the write index or -errno. What @e would be refused for is
 * checked first, then the event is found or made, which may let go of
 * event_mutex, and only then is @e watched: a watched enabler must have
 * its event by then (fork() copies it, exit frees it).
 */
static int user_event_fd_register(struct file *file, const char *desc,
				  unsigned int how, struct user_enabler *e,
				  struct user_event **uep)
{
	struct user_event_fd *ufd = file->private_data;
	bool created = false;
	struct user_event *ue;
	int widx;

	lockdep_assert_held(&event_mutex);
	if (e) {
		widx = user_enabler_check(e);
		if (widx) {
			kfree(e);
			return widx;
		}
	}

	ue = user_event_find_or_create(ufd->group, desc, 0,
				       how | (e ? UE_REG_ADOPT_LATER : 0),
				       &created);
	if (IS_ERR(ue)) {
		kfree(e);
		return PTR_ERR(ue);
	}

	/* user_enabler_prepare() may drop a stale enabler's reference on it */
	refcount_inc(&ue->refs);
	if (e) {
		widx = user_enabler_prepare(e);
		if (widx)
			goto out;
		widx = created ? 0 : user_event_adopt(ue, how);
		if (widx)
			goto undo;
	}

	widx = user_event_fd_add(ufd, ue, created, !!e);
	if (widx < 0)
		goto undo;

	if (e) {
		guard(mutex)(&e->umm->lock);
		user_enabler_add_event(e, ue);
	}
	*uep = ue;
	goto out;
undo:
	if (e)
		user_enabler_drop_mm(e);
out:
	if (widx < 0 && created) {
		/* made here, under event_mutex all along: nothing else holds it */
		refcount_dec(&ue->refs);
		WARN_ON_ONCE(user_event_destroy(ue));
	} else {
		user_event_put(ue);
	}
	return widx;
}

/* DIAG_IOCSREG with a struct user_status_reg: the status page */
static long user_data_ioctl_reg_status(struct file *file,
				       struct user_status_reg __user *ureg)
{
	char *desc __free(kfree) = NULL;
	struct user_event *ue;
	struct user_status_reg reg;
	int widx;

	if (copy_from_user(&reg, ureg, sizeof(reg)))
		return -EFAULT;
	desc = user_desc_from_user(u64_to_user_ptr(reg.name_args));
	if (IS_ERR(desc))
		return PTR_ERR(no_free_ptr(desc));

	scoped_guard(mutex, &event_mutex) {
		widx = user_event_fd_register(file, desc,
					      UE_REG_SLOT | UE_REG_KEEP, NULL, &ue);
		if (widx < 0)
			return widx;
		reg.status_index = ue->index;
	}
	reg.write_index = widx;
	if (put_user(reg.status_index, &ureg->status_index) ||
	    put_user(reg.write_index, &ureg->write_index))
		return -EFAULT;
	return 0;
}

/* The fields of an enable bit: its word's size, the bit, the address */
static int user_bit_check(struct user_reg *reg)
{
	if (reg->enable_size != sizeof(u32) && reg->enable_size != sizeof(u64))
		return -EINVAL;
	if (reg->enable_bit >= BITS_PER_BYTE * reg->enable_size ||
	    !IS_ALIGNED(reg->enable_addr, reg->enable_size))
		return -EINVAL;
	/* a 32-bit kernel has no address of more than 32 bits */
	if (reg->enable_addr != (unsigned long)reg->enable_addr)
		return -EFAULT;
	/* tagged (arm64 TBI/MTE, x86 LAM): the enabler keeps the address */
	reg->enable_addr = untagged_addr(reg->enable_addr);
	if (!access_ok(u64_to_user_ptr(reg->enable_addr), reg->enable_size))
		return -EFAULT;
	/* whether the word is mapped writable: once it is watched */
	return 0;
}

/* The struct of the enable-bit ABI: 28 bytes, or more with a zero tail */
static int user_reg_bits_from_user(struct user_reg *reg,
				   void __user *uarg, u32 size)
{
	int ret;

	if (size > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(reg, sizeof(*reg), uarg, size);
	if (ret)
		return ret;
	if (reg->flags & ~(USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT))
		return -EINVAL;
	if ((reg->flags & USER_EVENT_REG_PERSIST) && !perfmon_capable())
		return -EPERM;
	return user_bit_check(reg);
}

/*
 * Drop the enabler (@addr, @bit, @id) that the calling process just
 * registered, whose write index could not be stored or whose word could
 * not be faulted in: as if never registered, but for the file's write
 * index, which the file holds until it is closed. It is still unchecked:
 * its bit was never written, nor did a fork() copy it, and nothing but
 * this thread removes it (the id tells it from a later one all the same).
 */
static void user_enabler_drop_new(struct user_event_mm *umm,
				  unsigned long addr, u8 bit, u32 id)
{
	struct user_enabler *e;

	guard(mutex)(&event_mutex);
	e = user_enabler_find(umm, addr, bit);
	if (e && e->id == id && !e->unregistering)
		user_enabler_remove(e);
}

/* DIAG_IOCSREG with a struct user_reg: the enable bit */
static long user_data_ioctl_reg_bits(struct file *file, void __user *uarg,
				     u32 size)
{
	struct user_enabler *e __free(kfree) = NULL, *linked;
	char *desc __free(kfree) = NULL;
	struct user_event_mm *umm;
	unsigned int how = 0;
	struct user_reg reg;
	struct user_event *ue;
	int widx, tries, ret;
	unsigned long addr;
	u32 id;
	u8 bit;

	widx = user_reg_bits_from_user(&reg, uarg, size);
	if (widx)
		return widx;

	desc = user_desc_from_user(u64_to_user_ptr(reg.name_args));
	if (IS_ERR(desc))
		return PTR_ERR(no_free_ptr(desc));

	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	addr = reg.enable_addr;
	bit = reg.enable_bit;
	e->addr = addr;
	e->bit = bit;
	e->size = reg.enable_size;
	/* until user_enabler_fault_in_new() writes its bit */
	e->unchecked = true;

	/* before an event is made for it, and out of event_mutex */
	ret = user_word_check(addr);
	if (ret)
		return ret;

	umm = user_event_mm_find_or_create();
	if (IS_ERR(umm))
		return PTR_ERR(umm);

	if (reg.flags & USER_EVENT_REG_PERSIST)
		how |= UE_REG_PERSIST;
	if (reg.flags & USER_EVENT_REG_MULTI_FORMAT)
		how |= UE_REG_MULTI;

	scoped_guard(mutex, &event_mutex) {
		/* the process's now, or freed */
		linked = no_free_ptr(e);
		widx = user_event_fd_register(file, desc, how, linked, &ue);
		if (widx < 0)
			return widx;
		/* linked: only event_mutex holders unlink it */
		id = linked->id;
	}

	/* before the bit is written: an EFAULT here leaves nothing behind */
	if (put_user(widx, (u32 __user *)(uarg +
			offsetof(struct user_reg, write_index)))) {
		user_enabler_drop_new(umm, addr, bit, id);
		return -EFAULT;
	}

	/*
	 * Right when we return: the word checked, faulted in writable here (a
	 * copy-on-write page after fork() broken), so that consumers update
	 * it as they attach from now on, and its bit written
	 */
	for (tries = 0; tries < USER_EVENT_FAULT_TRIES; tries++) {
		ret = user_enabler_fault_in_new(umm, addr, bit, id);
		if (ret != -EAGAIN)
			break;
	}
	if (ret == -EAGAIN) {
		user_enabler_update_new(umm, addr, bit, id);
	} else if (ret) {
		/* not mapped writable, or never writable (past its file's end) */
		user_enabler_drop_new(umm, addr, bit, id);
		return ret;
	}
	return 0;
}

static long user_data_ioctl_reg(struct file *file, void __user *uarg)
{
	u32 size;

	if (get_user(size, (u32 __user *)uarg))
		return -EFAULT;
	if (size == sizeof(struct user_status_reg))
		return user_data_ioctl_reg_status(file, uarg);
	if (size >= sizeof(struct user_reg))
		return user_data_ioctl_reg_bits(file, uarg, size);
	return -EINVAL;
}

/* DIAG_IOCSUNREG: stop updating a bit of the calling process, and clear it */
static long user_data_ioctl_unreg(struct file *file,
				  struct user_unreg __user *uarg)
{
	struct user_event_fd *ufd = file->private_data;
	struct user_event_group *group = ufd->group;
	struct user_event_mm *umm;
	struct user_enabler *e;
	struct user_unreg unreg;
	u32 size;
	int ret;

	if (get_user(size, &uarg->size))
		return -EFAULT;
	if (size < sizeof(unreg))
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;

	ret = copy_struct_from_user(&unreg, sizeof(unreg), uarg, size);
	if (ret)
		return ret;
	if (unreg.__reserved || unreg.__reserved2)
		return -EINVAL;

	/* as user_bit_check() keeps them: no enabler has any other address */
	if (unreg.disable_addr != (unsigned long)unreg.disable_addr)
		return -ENOENT;
	unreg.disable_addr = untagged_addr(unreg.disable_addr);

	scoped_guard(mutex, &event_mutex) {
		umm = user_event_mm_find(current->mm);
		if (!umm)
			return -ENOENT;
		e = user_enabler_find(umm, unreg.disable_addr,
				      unreg.disable_bit);
		/* nor one of an event of another group than the file's */
		if (!e || e->unregistering || !e->ue || e->ue->group != group)
			return -ENOENT;
		/*
		 * Only this thread removes it now: the process cannot drop its
		 * enablers while one of its threads is here, and a new
		 * registration at the address does not replace it
		 */
		guard(mutex)(&e->umm->lock);
		/* nor one whose registration has not written its bit yet */
		if (e->unchecked)
			return -ENOENT;
		guard(mutex)(&e->ue->enablers_lock);
		e->unregistering = true;
	}

	user_enabler_clear(e);
	scoped_guard(mutex, &event_mutex)
		user_enabler_remove(e);
	return 0;
}

static long user_data_ioctl_del(struct file *file, const char __user *uname)
{
	char *name __free(kfree) = strndup_user(uname, USER_EVENT_MAX_FULL_NAME + 1);
	struct user_event_fd *ufd = file->private_data;
	struct user_event *ue;

	if (IS_ERR(name))
		return PTR_ERR(no_free_ptr(name));
	guard(mutex)(&event_mutex);
	user_event_mm_drop_released(true);
	ue = user_event_find(ufd->group, name);
	if (!ue)
		return -ENOENT;
	if (ue->persist && !perfmon_capable())
		return -EPERM;
	/* no buffer is cleared: its records stay readable, and everyone's */
	return user_event_delete(ue);
}

static long user_data_ioctl(struct file *file, unsigned int cmd,
			    unsigned long uarg)
{
	switch (cmd) {
	case DIAG_IOCSBATCH:
		return user_data_ioctl_batch(file, uarg);
	case DIAG_IOCSREG:
		return user_data_ioctl_reg(file, (void __user *)uarg);
	case DIAG_IOCSDEL:
		return user_data_ioctl_del(file, (const char __user *)uarg);
	case DIAG_IOCSUNREG:
		return user_data_ioctl_unreg(file,
					     (struct user_unreg __user *)uarg);
	}
	return -ENOTTY;
}

#ifdef CONFIG_COMPAT
/*
 * 32-bit processes: the ioctl numbers encode the size of a pointer, 4
 * bytes there; the structs have one layout for both (struct
 * user_status_reg's u64 is 8-aligned, the others are packed) and their
 * addresses are u64s.
 */
#define DIAG_IOCSREG32	_IOC(_IOC_READ | _IOC_WRITE, DIAG_IOC_MAGIC, 0, \
			     sizeof(compat_uptr_t))
#define DIAG_IOCSDEL32	_IOC(_IOC_WRITE, DIAG_IOC_MAGIC, 1, sizeof(compat_uptr_t))
#define DIAG_IOCSUNREG32 _IOC(_IOC_WRITE, DIAG_IOC_MAGIC, 2, sizeof(compat_uptr_t))

static long user_data_compat_ioctl(struct file *file, unsigned int cmd,
				   unsigned long uarg)
{
	switch (cmd) {
	case DIAG_IOCSREG32:
		cmd = DIAG_IOCSREG;
		break;
	case DIAG_IOCSDEL32:
		cmd = DIAG_IOCSDEL;
		break;
	case DIAG_IOCSUNREG32:
		cmd = DIAG_IOCSUNREG;
		break;
	case DIAG_IOCSBATCH:
		/* a value, not an address: the same number in both */
		return user_data_ioctl(file, cmd, uarg);
	default:
		return -ENOTTY;
	}
	return user_data_ioctl(file, cmd, (unsigned long)compat_ptr(uarg));
}
#endif

static int user_data_open(struct inode *inode, struct file *file)
{
	struct user_event_fd *ufd = kzalloc(sizeof(*ufd), GFP_KERNEL_ACCOUNT);

	if (!ufd)
		return -ENOMEM;
	ufd->group = user_group_get_of_inode(inode);
	if (!ufd->group) {
		kfree(ufd);
		return -ENODEV;
	}
	file->private_data = ufd;
	/* no file position: write() need not lock or move one */
	return stream_open(inode, file);
}

static int user_data_release(struct inode *inode, struct file *file)
{
	struct user_event_fd *ufd = file->private_data;
	struct user_event_refs *refs;
	int i;

	/* The fd is gone: nobody else can see its array any more */
	refs = rcu_dereference_protected(ufd->refs, true);
	if (refs) {
		/* an enable-bit event nothing else holds goes before close() returns */
		guard(mutex)(&event_mutex);
		for (i = 0; i < refs->count; i++)
			user_event_put(user_slot_event(refs->slots[i]));
	}
	user_group_put(ufd->group);
	kfree(refs);
	kfree(ufd);
	return 0;
}

static const struct file_operations user_data_fops = {
	.open = user_data_open, .release = user_data_release,
	.write		= user_data_write,
	.write_iter	= user_data_write_iter,
	.unlocked_ioctl	= user_data_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= user_data_compat_ioctl,
#endif
};

/* user_events_status ----------------------------------------------------- */

/* A mapping of a group's status page holds the group (and so the page) */
static void user_status_vm_open(struct vm_area_struct *vma)
{
	user_group_get(vma->vm_private_data);
}

static void user_status_vm_close(struct vm_area_struct *vma)
{
	user_group_put(vma->vm_private_data);
}

static const struct vm_operations_struct user_status_vm_ops = {
	.open	= user_status_vm_open,
	.close	= user_status_vm_close,
};

static int user_status_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct user_event_group *g = ((struct seq_file *)file->private_data)->private;
	unsigned long size = vma->vm_end - vma->vm_start;
	int ret;

	if (vma->vm_pgoff || size > PAGE_SIZE)
		return -EINVAL;

	/* Data to read only: neither now nor after a later mprotect() */
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);

	ret = remap_pfn_range(vma, vma->vm_start, page_to_pfn(g->status_page),
			      PAGE_SIZE, vma->vm_page_prot);
	if (ret)
		return ret;
	vma->vm_private_data = g;
	vma->vm_ops = &user_status_vm_ops;
	user_status_vm_open(vma);
	return 0;
}

/* Who an EVENT_BIT_* stands for, in the listing */
static const char * const user_consumer_names[BITS_PER_BYTE] = {
	[EVENT_BIT_FTRACE] = "ftrace",
	[EVENT_BIT_PERF] = "perf",
	[EVENT_BIT_OTHER] = "other",
};

/* "3:name[:FLAGS][ # Used by ftrace perf]" */
static void user_status_show_one(struct seq_file *m, struct user_event *ue)
{
	unsigned long status = user_event_status(ue);
	int bit;

	seq_printf(m, "%u:%s%s%s%s", ue->index, ue->name, ue->flags ? ":" : "",
		   ue->flags ?: "", status ? " # Used by" : "");
	for_each_set_bit(bit, &status, BITS_PER_BYTE)
		seq_printf(m, " %s", user_consumer_names[bit]);
	seq_putc(m, '\n');
}

/* The events of the file's group that have a status byte */
static int user_status_show(struct seq_file *m, void *unused)
{
	struct user_event_group *g = m->private;
	struct user_event *ue;
	unsigned long index;
	int active = 0, busy = 0;

	guard(mutex)(&event_mutex);
	xa_for_each(&g->by_index, index, ue) {
		user_status_show_one(m, ue);
		active++;
		busy += !!user_event_status(ue);
	}
	seq_printf(m, "\nActive: %d\nBusy: %d\nMax: %lu\n", active, busy,
		   PAGE_SIZE);
	return 0;
}

static int user_status_open(struct inode *inode, struct file *file)
{
	struct user_event_group *g = user_group_get_of_inode(inode);
	int ret;

	if (!g)
		return -ENODEV;
	ret = single_open(file, user_status_show, g);
	if (ret)
		user_group_put(g);
	return ret;
}

static int user_status_release(struct inode *inode, struct file *file)
{
	user_group_put(((struct seq_file *)file->private_data)->private);
	return single_release(inode, file);
}

static const struct file_operations user_status_fops = {
	.mmap		= user_status_mmap,
	.open		= user_status_open,
	.read		= seq_read,
	.release	= user_status_release,
};

/* Groups ----------------------------------------------------------------- */

/*
 * Tenant groups: each has a directory user_groups/NAME/ with its own
 * user_events_data and user_events_status, and events of its own
 * (system user_events_NAME) that its files alone reach. Made and removed
 * through user_events_groups by CAP_PERFMON or CAP_SYS_ADMIN, in its
 * writer and in its opener. See "Containers and groups" in
 * Documentation/trace/user_events.rst.
 */
/* A group's limit of events unless its command gives one */
#define USER_GROUP_EVENTS	1024
/* The largest buffer_kb= of a group's own trace buffer: 1 GiB per CPU */
#define USER_GROUP_BUFFER_KB_MAX	SZ_1M

/* What a command that makes a group asks for */
struct user_group_spec {
	unsigned int	max;
	unsigned int	buffer_kb;
	kuid_t		uid;
	kgid_t		gid;
};

/* The next group's id (cyclic, not reused soon); event_mutex */
static u32 user_group_next_id;

static struct dentry *user_groups_dir;

/*
 * user_groups/NAME/, its owner's with all in it, and its two files, which
 * know @g by its id
 */
static int user_group_add_files(struct user_event_group *g,
				const struct user_group_spec *spec)
{
	void *id = (void *)(unsigned long)g->id;

	g->dir = tracefs_create_owned_dir(g->name, user_groups_dir, spec->uid,
					  spec->gid);
	if (!g->dir)
		return -ENOMEM;
	if (!tracefs_create_file("user_events_status", TRACE_MODE_WRITE,
				 g->dir, id, &user_status_fops) ||
	    !tracefs_create_file("user_events_data", TRACE_MODE_WRITE,
				 g->dir, id, &user_data_fops)) {
		tracefs_remove(g->dir);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The group's own trace buffer in its directory: the events of its
 * systems, at most buffer_kb KiB per CPU, charged to the memory cgroup of
 * the caller (who makes the group). Named by its path, which no instance's
 * name can be.
 */
static int user_group_add_buffer(struct user_event_group *g)
{
	char *name __free(kfree) = NULL, *systems __free(kfree) = NULL;
	struct trace_array *tr;

	lockdep_assert_held(&event_mutex);
	name = kasprintf(GFP_KERNEL_ACCOUNT, "user_groups/%s", g->name);
	/*
	 * The shortest first: event_in_systems() takes the first match. And
	 * "ftrace", whose events are formats only (none can be enabled), which
	 * decoders such as trace-cmd read.
	 */
	systems = kasprintf(GFP_KERNEL_ACCOUNT,
			    "ftrace,%s,%s,%s_retired,%s_retired", g->system,
			    g->system_multi, g->system, g->system_multi);
	if (!name || !systems)
		return -ENOMEM;
	tr = trace_tenant_create(name, systems, g->dir,
				 (unsigned long)g->buffer_kb * SZ_1K,
				 user_event_consumer_reg);
	if (IS_ERR(tr))
		return PTR_ERR(tr);
	g->tr = tr;
	return 0;
}

static int user_group_create(const char *name, size_t len,
			     const struct user_group_spec *spec)
{
	unsigned int max = spec->max;
	struct user_event_group *g;
	int ret;

	lockdep_assert_held(&event_mutex);
	if (!user_groups_dir)
		return -ENODEV;
	if (!user_group_name_ok(name, len) || !max)
		return -EINVAL;
	if (user_group_find(name, len))
		return -EEXIST;
	/* what the default group has stays its own */
	if (max > user_group_max(&user_event_init_group) ||
	    user_event_init_group.nr_events > user_group_max(&user_event_init_group) - max)
		return -ENOSPC;

	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return -ENOMEM;

	xa_init_flags(&g->by_index, XA_FLAGS_ALLOC1);
	refcount_set(&g->refs, 1);
	g->max_events = max;
	g->name = kstrndup(name, len, GFP_KERNEL_ACCOUNT);
	g->system = kasprintf(GFP_KERNEL_ACCOUNT, "%s_%.*s",
			      USER_EVENTS_SYSTEM, (int)len, name);
	g->system_multi = kasprintf(GFP_KERNEL_ACCOUNT, "%s_%.*s_multi",
				    USER_EVENTS_SYSTEM, (int)len, name);
	g->status_page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!g->name || !g->system || !g->system_multi || !g->status_page) {
		user_group_free(g);
		return -ENOMEM;
	}
	g->status_bytes = page_address(g->status_page);

	ret = xa_alloc_cyclic(&user_event_groups, &g->id, g, xa_limit_32b,
			      &user_group_next_id, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		user_group_free(g);
		return ret;
	}

	g->buffer_kb = spec->buffer_kb;
	ret = user_group_add_files(g, spec);
	if (!ret && g->buffer_kb) {
		ret = user_group_add_buffer(g);
		if (ret)
			tracefs_remove(g->dir);
	}
	if (ret) {
		xa_erase(&user_event_groups, g->id);
		user_group_free(g);
		return ret;
	}

	user_groups_reserved += max;
	return 0;
}

/*
 * Busy while it has events, an open file or a mapping of its page. Its
 * retired events stay, holding it, until no buffer holds their records.
 */
static int user_group_remove(const char *name, size_t len)
{
	struct user_event_group *g;

	lockdep_assert_held(&event_mutex);
	user_event_mm_drop_released(true);
	g = user_group_find(name, len);
	if (!g)
		return -ENOENT;
	if (g->nr_events != g->nr_retired ||
	    refcount_read(&g->refs) != 1 + g->nr_retired)
		return -EBUSY;
	xa_erase(&user_event_groups, g->id);
	user_groups_reserved -= g->max_events;
	/* its files still open read nothing, and free the rest when closed */
	if (g->tr)
		trace_tenant_remove(g->tr);
	g->tr = NULL;
	tracefs_remove(g->dir);
	user_group_put(g);
	return 0;
}

/* One word of a command that makes a group: "max=", "buffer_kb=", "uid=", "gid=" */
static int user_group_word(const char *word, struct user_group_spec *spec)
{
	unsigned int val;
	const char *v;

	v = strchr(word, '=');
	if (!v || kstrtouint(v + 1, 10, &val))
		return -EINVAL;
	if (str_has_prefix(word, "max=")) {
		spec->max = val;
	} else if (str_has_prefix(word, "buffer_kb=")) {
		if (!val || val > USER_GROUP_BUFFER_KB_MAX)
			return -EINVAL;
		spec->buffer_kb = val;
	} else if (str_has_prefix(word, "uid=")) {
		spec->uid = make_kuid(current_user_ns(), val);
		if (!uid_valid(spec->uid))
			return -EINVAL;
	} else if (str_has_prefix(word, "gid=")) {
		spec->gid = make_kgid(current_user_ns(), val);
		if (!gid_valid(spec->gid))
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	return 0;
}

/*
 * "NAME [max=EVENTS] [buffer_kb=KB] [uid=UID] [gid=GID]" makes a group,
 * "!NAME" removes it
 */
static int user_group_command(const char *cmd)
{
	struct user_group_spec spec = {
		.max = USER_GROUP_EVENTS,
		.uid = GLOBAL_ROOT_UID,
		.gid = GLOBAL_ROOT_GID,
	};
	char word[32];
	bool remove = false;
	const char *name;
	size_t len;
	int ret;

	cmd = skip_spaces(cmd);
	if (*cmd == '!') {
		remove = true;
		cmd = skip_spaces(cmd + 1);
	}
	name = cmd;
	len = strcspn(cmd, " \t");
	for (cmd = skip_spaces(cmd + len); *cmd; cmd = skip_spaces(cmd)) {
		size_t wlen = strcspn(cmd, " \t");

		if (remove || wlen >= sizeof(word))
			return -EINVAL;
		memcpy(word, cmd, wlen);
		word[wlen] = '\0';
		ret = user_group_word(word, &spec);
		if (ret)
			return ret;
		cmd += wlen;
	}
	guard(mutex)(&event_mutex);
	return remove ? user_group_remove(name, len) :
			user_group_create(name, len, &spec);
}

/* What perfmon_capable() asks of the caller, of whoever opened @file */
static bool user_file_perfmon_capable(struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

static ssize_t user_groups_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	/*
	 * The writer and the opener: a privileged program handed an fd that
	 * someone without the right opened (as its standard output, say) must
	 * not make or remove groups for them
	 */
	if (!perfmon_capable() || !user_file_perfmon_capable(file))
		return -EPERM;
	return trace_parse_run_command(file, ubuf, count, ppos,
				       user_group_command);
}

/*
 * "NAME max=EVENTS events=N", a line per group, " retired=R" when R of the
 * N are retired, and " buffer_kb=KB" when it has a trace buffer
 */
static int user_groups_show(struct seq_file *m, void *unused)
{
	struct user_event_group *g;
	unsigned long id;

	guard(mutex)(&event_mutex);
	xa_for_each(&user_event_groups, id, g) {
		seq_printf(m, "%s max=%u events=%u", g->name, g->max_events,
			   g->nr_events);
		if (g->nr_retired)
			seq_printf(m, " retired=%u", g->nr_retired);
		if (g->buffer_kb)
			seq_printf(m, " buffer_kb=%u", g->buffer_kb);
		seq_putc(m, '\n');
	}
	return 0;
}

static int user_groups_open(struct inode *inode, struct file *file)
{
	return single_open(file, user_groups_show, NULL);
}

/* Commands are appended (O_APPEND or not): no seeking */
static const struct file_operations user_groups_fops = {
	.open = user_groups_open, .release = single_release,
	.write		= user_groups_write,
	.read		= seq_read,
};

/* Without them, the default group works as before */
static void __init user_groups_init(void)
{
	user_groups_dir = tracefs_create_dir("user_groups", NULL);
	if (!user_groups_dir ||
	    !tracefs_create_file("user_events_groups", TRACE_MODE_WRITE, NULL,
				 NULL, &user_groups_fops))
		pr_warn("could not create the files of groups\n");
}

/* Set-up at boot --------------------------------------------------------- */

/*
 * Boot-time set-up failed: no events, ever (the u: command checks the
 * status bytes first, and nothing can have made one before the files exist).
 */
static void __init user_events_off(const char *why)
{
	pr_warn("%s: user_events is off\n", why);
	user_event_init_group.status_bytes = NULL;
	__free_page(user_event_init_group.status_page);
	user_event_init_group.status_page = NULL;
}

/*
 * The "u:" command of dynamic_events (ops->free runs under event_mutex),
 * and the status page every event needs: without it, no events.
 */
static int __init trace_events_user_init_early(void)
{
	int ret;

	user_event_init_group.status_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!user_event_init_group.status_page) {
		pr_warn("no memory for the status page: user_events is off\n");
		return -ENOMEM;
	}
	user_event_init_group.status_bytes = page_address(user_event_init_group.status_page);
	ret = user_event_dyn_register();
	if (ret)
		user_events_off("could not register the u: command");
	return ret;
}
core_initcall(trace_events_user_init_early);

/* kernel.user_events_retired_grace: at most a day */
static unsigned int user_retired_grace_max = 24 * 60 * 60;

static struct ctl_table user_event_sysctls[] = {
	{
		.procname	= "user_events_max",
		.data		= &user_events_max,
		.maxlen		= sizeof(user_events_max),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{
		.procname	= "user_events_retired_grace",
		.data		= &user_retired_grace,
		.maxlen		= sizeof(user_retired_grace),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &user_retired_grace_max,
	},
};

static int __init trace_events_user_init(void)
{
	struct dentry *status, *data = NULL;

	if (!user_event_init_group.status_page)
		return -ENOMEM;
	if (tracing_init_dentry()) {
		user_events_off("no tracefs");
		return -ENODEV;
	}
	status = tracefs_create_file("user_events_status", TRACE_MODE_WRITE,
				     NULL, NULL, &user_status_fops);
	if (status)
		data = tracefs_create_file("user_events_data", TRACE_MODE_WRITE,
					   NULL, NULL, &user_data_fops);
	if (!data) {
		tracefs_remove(status);
		user_events_off("could not create its tracefs files");
		return -ENODEV;
	}
	register_sysctl_init("kernel", user_event_sysctls);
	user_groups_init();
	return 0;
}
fs_initcall(trace_events_user_init);
