// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the enable bits (the ABI of Linux 6.4 and later). Each
 * process's registered bits (struct user_enabler), found by its memory
 * (struct user_event_mm, followed with an mmu notifier), kept up to date
 * as the events' consumers change, copied at fork() and dropped when the
 * memory goes. A word whose page is not there is faulted in and written
 * on the tracer's way back to user space, or by a worker.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include "trace_events_user.h"

/* Enable bits ------------------------------------------------------------ */

/*
 * A bit that could not be written without a page fault: to retry on the
 * way back to user space of the task that changed its state
 * (user_enabler_fault_now()), or in a worker
 */
struct user_enabler_fault {
	struct callback_head	twork;
	struct delayed_work	work;
	struct user_event_mm	*umm;		/* holds a reference */
	/* whose fault it is; NULL once it was unlinked: both of its locks */
	struct user_enabler	*e;
	/* the page went again after the fault, before the write */
	int			tries;
	/* the fault would have waited: the next try in 1 << @waits ms */
	unsigned int		waits;
};

/* Each address space's struct user_event_mm by its mm_struct; RCU to read */
static DEFINE_HASHTABLE(user_event_mms, 8);
static DEFINE_SPINLOCK(user_event_mm_lock);

/* Those whose memory went, their enablers not dropped yet: event_mutex does */
static LLIST_HEAD(user_event_mms_released);
static void user_event_mm_drop_fn(struct work_struct *work);
static DECLARE_WORK(user_event_mm_drop_work, user_event_mm_drop_fn);

/* Unregistering the notifier waits for its readers: not in exit() */
static void user_event_mm_free_work(struct work_struct *work)
{
	struct user_event_mm *umm =
		container_of(work, struct user_event_mm, free_work);

	mmu_notifier_unregister(&umm->mn, umm->mm);
	mmdrop(umm->mm);
	mutex_destroy(&umm->lock);
	/* the notifier's SRCU is not the hash's RCU */
	kfree_rcu(umm, rcu);
}

static void user_event_mm_put(struct user_event_mm *umm)
{
	if (refcount_dec_and_test(&umm->refs))
		queue_work(system_unbound_wq, &umm->free_work);
}

/*
 * munmap() or mremap() of enable words: the kernel never writes them
 * again, whatever is mapped there later. Runs under the mmap_lock, maybe
 * where it must not sleep: it only marks them.
 */
static int user_event_mm_invalidate(struct mmu_notifier *mn,
				    const struct mmu_notifier_range *range)
{
	struct user_event_mm *umm = container_of(mn, struct user_event_mm, mn);
	struct user_enabler *e;

	if (range->event != MMU_NOTIFY_UNMAP)
		return 0;
	rcu_read_lock();
	list_for_each_entry_rcu(e, &umm->enablers, mm_link)
		if (e->addr >= range->start && e->addr < range->end)
			WRITE_ONCE(e->unmapped, true);
	rcu_read_unlock();
	return 0;
}

static void user_event_mm_notifier_release(struct mmu_notifier *mn,
					   struct mm_struct *mm);

static const struct mmu_notifier_ops user_event_mm_ops = {
	.invalidate_range_start = user_event_mm_invalidate,
	.release = user_event_mm_notifier_release,
};

/*
 * The u32 that holds bit @bit of the @size-byte word at @addr, and the bit
 * in it: an 8-byte word is two u32s, so every update is a 4-byte one.
 */
static unsigned long user_word_of_bit(unsigned long addr, u8 size, u8 bit,
				      u32 *mask)
{
	*mask = BIT(bit % 32);
	if (size == sizeof(u64)) {
		bool high = bit >= 32;

		if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
			high = !high;
		addr += high ? sizeof(u32) : 0;
	}
	return addr;
}

/*
 * Set or clear @mask in the u32 at @uaddr of @mm, whose mmap_lock the
 * caller holds read-locked, if the page is there writable. Returns -EFAULT
 * if it is not (absent, swapped out, copy-on-write, read-only or unmapped).
 */
static int user_word_write(struct mm_struct *mm, unsigned long uaddr,
			   u32 mask, bool set)
{
	struct page *page;
	u32 *word, old, new;

	if (pin_user_pages_remote(mm, uaddr, 1, FOLL_WRITE | FOLL_NOFAULT,
				  &page, NULL) != 1)
		return -EFAULT;
	word = kmap_local_page(page) + offset_in_page(uaddr);
	old = READ_ONCE(*word);
	do {
		new = set ? old | mask : old & ~mask;
	} while (new != old && !try_cmpxchg(word, &old, new));
	kunmap_local(word);
	unpin_user_pages_dirty_lock(&page, 1, new != old);
	return 0;
}

/*
 * Make the anonymous page at @uaddr of @mm, there but write-protected since
 * a fork(), writable where that waits for nobody: the fault gives it to @mm
 * alone, reused or copied. Only such a page: one absent, swapped out or a
 * file's is left to the worker. Never in a shared mapping (its filesystem
 * may wait) nor where a userfaultfd may be asked, and
 * FAULT_FLAG_RETRY_NOWAIT makes a fault that would wait give up instead.
 * It may still allocate and reclaim: never under event_mutex, which every
 * tracer waits on.
 */
static bool user_word_unshare(struct mm_struct *mm, unsigned long uaddr)
{
	unsigned int flags = FAULT_FLAG_WRITE | FAULT_FLAG_ALLOW_RETRY |
			     FAULT_FLAG_RETRY_NOWAIT;
	struct vm_area_struct *vma = vma_lookup(mm, uaddr);
	struct page *page;
	bool anon;

	lockdep_assert_not_held(&event_mutex);
	if (!vma || (vma->vm_flags & (VM_SHARED | VM_WRITE)) != VM_WRITE ||
	    userfaultfd_armed(vma))
		return false;
	if (get_user_pages_remote(mm, uaddr, 1, FOLL_NOFAULT, &page, NULL) != 1)
		return false;
	anon = PageAnon(page);
	put_page(page);
	if (!anon)
		return false;
	if (mm != current->mm)
		flags |= FAULT_FLAG_REMOTE;
	return !(handle_mm_fault(vma, uaddr, flags, NULL) &
		 (VM_FAULT_ERROR | VM_FAULT_RETRY));
}

/*
 * Set or clear @mask in the u32 at @uaddr of @mm, whose mmap_lock the
 * caller holds read-locked, without waiting for a page: -EFAULT when the
 * bit does not already have the wanted value and the page is not there
 * writable (absent, swapped out, copy-on-write, read-only or unmapped),
 * unless @unshare and user_word_unshare() makes it writable at once.
 */
static int user_word_update(struct mm_struct *mm, unsigned long uaddr,
			    u32 mask, bool set, bool unshare)
{
	struct page *page;
	bool same;
	u32 *word;

	mmap_assert_locked(mm);
	if (!user_word_write(mm, uaddr, mask, set))
		return 0;
	/* a child after fork() shares the parent's page, and its bits */
	if (get_user_pages_remote(mm, uaddr, 1, FOLL_NOFAULT, &page, NULL) != 1)
		return -EFAULT;
	word = kmap_local_page(page) + offset_in_page(uaddr);
	same = !!(READ_ONCE(*word) & mask) == set;
	kunmap_local(word);
	put_page(page);
	if (same)
		return 0;
	if (!unshare || !user_word_unshare(mm, uaddr))
		return -EFAULT;
	return user_word_write(mm, uaddr, mask, set);
}

/*
 * Make @e's bit say whether @e's event has consumers, if that needs no
 * fault, with its process's mmap_lock read-held by the caller (and its
 * memory held): 0 (written, or nothing to write) or -EFAULT (the page is
 * not there writable)
 */
static int user_enabler_write_locked(struct user_enabler *e, bool set)
{
	struct mm_struct *mm = e->umm->mm;
	unsigned long uaddr;
	u32 mask;

	lockdep_assert_held(&e->ue->enablers_lock);
	mmap_assert_locked(mm);
	/* munmap() marks under the mmap_lock, before it lets go of the range */
	if (e->unregistering || e->unchecked || READ_ONCE(e->unmapped))
		return 0;
	uaddr = user_word_of_bit(e->addr, e->size, e->bit, &mask);
	return user_word_update(mm, uaddr, mask, set, false);
}

/*
 * Make @e's bit say whether @e's event has consumers, if that needs no
 * fault and no wait: 0 (written, or nothing to write), -EFAULT (the page is
 * not there writable) or -EAGAIN (the process's mmap_lock is taken, or
 * wanted, by a writer: an mmap(), munmap() or mprotect() of its own, or a
 * thread of it waits for a page with the lock held). The callers hold
 * locks that every tracer may wait on, and a process must not make tracers
 * wait for its mmap_lock.
 */
static int user_enabler_write(struct user_enabler *e, bool set)
{
	struct mm_struct *mm = e->umm->mm;
	int ret;

	lockdep_assert_held(&e->ue->enablers_lock);
	/* The process is gone: nobody reads the bit any more */
	if (e->unregistering || e->unchecked || !mmget_not_zero(mm))
		return 0;
	if (!mmap_read_trylock(mm)) {
		mmput_async(mm);
		return -EAGAIN;
	}
	ret = user_enabler_write_locked(e, set);
	mmap_read_unlock(mm);
	/* the last user's exit_mmap() must not run under our locks */
	mmput_async(mm);
	return ret;
}

/**
 * user_enabler_find() - Find the enabler of a bit in a process's memory
 * @umm: the process's enable bits
 * @addr: the word's address, as registered
 * @bit: the bit
 *
 * Context: event_mutex or @umm->lock held (every change takes both, but
 * for fork()'s copy into a child that nobody can look up yet).
 * Return: the enabler, or NULL.
 */
struct user_enabler *
user_enabler_find(struct user_event_mm *umm, unsigned long addr, u8 bit)
{
	struct user_enabler *e;

	/* every change takes both */
	lockdep_assert(lockdep_is_held(&event_mutex) ||
		       lockdep_is_held(&umm->lock));
	list_for_each_entry(e, &umm->enablers, mm_link)
		if (e->addr == addr && e->bit == bit)
			return e;
	return NULL;
}

/*
 * Write the state of the event of @f's enabler as it is now, under the
 * event's enablers_lock, so that an update is never lost to an enable and
 * a disable racing: with no fault (the locks are ones an event_mutex
 * holder may wait on), after the word was faulted in (@faulted: the
 * caller still holds the mmap_lock it faulted under, so that no other
 * thread of the process can keep the write from it), or not at all (the
 * word could not be faulted in: unmapped or read-only now, nothing to
 * write). Returns 0 when @f is done (a later status change queues
 * another); else -EFAULT: the page went again before the write, to be
 * tried again unless @last.
 */
static int user_enabler_fault_done_locked(struct user_enabler_fault *f,
					  bool faulted, bool last)
{
	struct user_enabler *e;
	int ret = 0;

	lockdep_assert_held(&f->umm->lock);
	e = f->e;
	/* unlinked since (user_enabler_unlink()) */
	if (!e)
		return 0;

	guard(mutex)(&e->ue->enablers_lock);
	if (faulted)
		ret = user_enabler_write_locked(e, user_event_status(e->ue));
	if (ret && !last)
		return ret;
	/* each forgets the other: @e may be unlinked and freed at once */
	e->fault = NULL;
	f->e = NULL;
	return 0;
}

/* user_enabler_fault_done_locked(), taking @f's process's lock */
static int user_enabler_fault_done(struct user_enabler_fault *f,
				   bool faulted, bool last)
{
	guard(mutex)(&f->umm->lock);
	return user_enabler_fault_done_locked(f, faulted, last);
}

/*
 * Can an enable word be at @vma (NULL: nothing mapped)? It must be
 * writable, and not in a shared mapping of a file whose pages are made
 * writable by its file system (->page_mkwrite(): FUSE asks its daemon, a
 * frozen file system waits to be thawed), which the kernel's faults for
 * the bit would wait on, on behalf of a tracer. tmpfs, memfd and
 * MAP_SHARED | MAP_ANONYMOUS memory have no ->page_mkwrite().
 */
static bool user_word_vma_ok(struct vm_area_struct *vma)
{
	if (!vma || !(vma->vm_flags & VM_WRITE))
		return false;
	/* a driver's I/O or raw page frames: no page to pin, never written */
	if (vma->vm_flags & (VM_IO | VM_PFNMAP))
		return false;
	/* memfd_secret(): the kernel may not pin its pages, nor map them */
	if (vma_is_secretmem(vma))
		return false;
	return !(vma->vm_flags & VM_SHARED) || !vma->vm_ops ||
	       !vma->vm_ops->page_mkwrite;
}

/*
 * Fault the word at @uaddr of @mm in, writable, for its enable bit, with
 * the mmap_lock read-held: what a write to it would fault, but not
 * waiting (FAULT_FLAG_RETRY_NOWAIT) for I/O nor for the process's
 * userfaultfd, which could park every worker. No ->page_mkwrite(), which
 * the flag does not reach: see user_word_vma_ok(). 0, -EAGAIN when it
 * would have waited, or -EFAULT (gone, or not writable).
 */
static int user_word_fault(struct mm_struct *mm, unsigned long uaddr)
{
	unsigned int flags = FAULT_FLAG_WRITE | FAULT_FLAG_ALLOW_RETRY |
			     FAULT_FLAG_RETRY_NOWAIT;
	struct vm_area_struct *vma = vma_lookup(mm, uaddr);
	vm_fault_t ret;

	mmap_assert_locked(mm);
	lockdep_assert_not_held(&event_mutex);
	if (!user_word_vma_ok(vma))
		return -EFAULT;
	if (mm != current->mm)
		flags |= FAULT_FLAG_REMOTE;
	ret = handle_mm_fault(vma, uaddr, flags, NULL);
	if (ret & VM_FAULT_ERROR)
		return -EFAULT;
	return ret & VM_FAULT_RETRY ? -EAGAIN : 0;
}

/*
 * Fault the word of @f's enabler in, writable, then write its event's
 * state (user_enabler_fault_done()) under the same mmap_lock: 0 when done
 * (or given up), -EAGAIN when the fault would have waited or the
 * mmap_lock was taken (the worker does not wait for it either: a process
 * whose lock is held for long would park one worker per enabler), -EFAULT
 * when the page went again before the write (given up instead if @last).
 * Sleeps; the caller holds no lock.
 */
static int user_enabler_fault_in(struct user_enabler_fault *f, bool last)
{
	struct mm_struct *mm = f->umm->mm;
	unsigned long uaddr;
	int ret = -EFAULT;
	bool found;
	u32 mask;

	if (!mmget_not_zero(mm))
		return 0;

	scoped_guard(mutex, &f->umm->lock) {
		found = f->e && !f->e->unmapped;
		if (found)
			uaddr = user_word_of_bit(f->e->addr, f->e->size, f->e->bit,
						 &mask);
	}

	if (found && !mmap_read_trylock(mm)) {
		ret = -EAGAIN;
	} else if (found) {
		ret = user_word_fault(mm, uaddr);
		if (ret != -EAGAIN)
			ret = user_enabler_fault_done(f, !ret, last);
		mmap_read_unlock(mm);
	} else {
		ret = user_enabler_fault_done(f, false, last);
	}
	mmput(mm);
	return ret;
}

/* The write of user_enabler_fault_in_new(), under its mmap_lock */
static int user_enabler_write_new(struct user_event_mm *umm,
				  unsigned long addr, u8 bit, u32 id)
{
	struct user_enabler *e;
	unsigned long uaddr;
	u32 mask;

	guard(mutex)(&umm->lock);
	e = user_enabler_find(umm, addr, bit);
	/* nothing else removes it while unchecked: as if unmapped */
	if (!e || e->id != id || !e->ue || READ_ONCE(e->unmapped))
		return -EFAULT;
	guard(mutex)(&e->ue->enablers_lock);
	uaddr = user_word_of_bit(addr, e->size, bit, &mask);
	if (user_word_update(umm->mm, uaddr, mask, user_event_status(e->ue),
			     false))
		return -EAGAIN;
	/* written: consumers and fork() see it from now on */
	WRITE_ONCE(e->unchecked, false);
	return 0;
}

/**
 * user_enabler_fault_in_new() - Bring the bit of a new enabler up to date
 * @umm: the calling process's enable bits
 * @addr: the word's address
 * @bit: the bit
 * @id: the enabler's id, as registered (another thread may have
 *	unregistered it and registered the same bit anew meanwhile)
 *
 * The word of the enabler (@addr, @bit) that the calling process just
 * registered in its @umm, checked (user_word_vma_ok()), faulted in
 * writable and its event's state written, under one hold of the
 * process's own mmap_lock: no other thread of it can keep the write from
 * it. The enabler was watched before (user_enabler_prepare()), so that an
 * munmap() by another thread meanwhile marks it; it stays unchecked until
 * this writes its bit, so that neither a consumer nor a fork() uses a word
 * that was remapped before it was watched.
 *
 * Context: no lock held (the fault may wait).
 * Return: 0 when done; -EAGAIN when it should be tried again (the page
 * went again before the write; after the last try, see
 * user_enabler_update_new()); -EFAULT when the word is not mapped writable
 * where it may be, or unmapped meanwhile, or the errno of its fault
 * (-EFAULT: a page past the end of its file, say; -ENOMEM; -EINTR: a
 * fatal signal), nothing then written.
 */
int user_enabler_fault_in_new(struct user_event_mm *umm, unsigned long addr,
			      u8 bit, u32 id)
{
	struct mm_struct *mm = current->mm;
	struct user_enabler *e;
	bool unlocked = false;
	unsigned long uaddr;
	u32 mask;
	int ret;

	scoped_guard(mutex, &umm->lock) {
		e = user_enabler_find(umm, addr, bit);
		/* nothing else removes it while unchecked: as if unmapped */
		if (!e || e->id != id)
			return -EFAULT;
		uaddr = user_word_of_bit(addr, e->size, bit, &mask);
	}
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	ret = user_word_vma_ok(vma_lookup(mm, uaddr)) ?
	      fixup_user_fault(mm, uaddr, FAULT_FLAG_WRITE, &unlocked) : -EFAULT;
	if (!ret)
		ret = user_enabler_write_new(umm, addr, bit, id);
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Free @f, done or given up: its enabler, if it still has one, no longer
 * points at it (whichever path gave up: the memory gone, the tries spent)
 */
static void user_enabler_fault_free(struct user_enabler_fault *f)
{
	struct user_enabler *e;

	scoped_guard(mutex, &f->umm->lock) {
		e = f->e;
		if (e) {
			guard(mutex)(&e->ue->enablers_lock);
			if (e->fault == f)
				e->fault = NULL;
		}
	}
	user_event_mm_put(f->umm);
	kfree(f);
}

static void user_enabler_fault_work(struct work_struct *work)
{
	struct user_enabler_fault *f =
		container_of(to_delayed_work(work), struct user_enabler_fault,
			     work);

	unsigned int ms = 0;

	switch (user_enabler_fault_in(f, f->tries + 1 >= USER_EVENT_FAULT_TRIES)) {
	case -EAGAIN:
		ms = min(1U << f->waits, USER_ENABLER_FAULT_WAIT_MAX);
		if (ms < USER_ENABLER_FAULT_WAIT_MAX)
			f->waits++;
		break;
	case -EFAULT:
		f->tries++;
		break;
	default:
		user_enabler_fault_free(f);
		return;
	}
	queue_delayed_work(system_unbound_wq, &f->work, msecs_to_jiffies(ms));
}

static void user_enabler_fault_queue_work(struct user_enabler_fault *f)
{
	INIT_DELAYED_WORK(&f->work, user_enabler_fault_work);
	queue_delayed_work(system_unbound_wq, &f->work, 0);
}

/*
 * On the way back to user space of the task whose attach or detach (or
 * fork()) changed the state, holding no lock: a copy-on-write page of
 * anonymous memory is made writable here (user_word_unshare()), then the
 * bit written, so that it is right when that call returns. A page that
 * needs a fault that waits goes to the worker, and so does a process whose
 * mmap_lock, or whose enablers' lock, is taken (a registration of its own
 * faulting its word in, a fork() copying its enablers): the tracer waits
 * for neither.
 */
static void user_enabler_fault_now(struct callback_head *twork)
{
	struct user_enabler_fault *f =
		container_of(twork, struct user_enabler_fault, twork);
	struct mm_struct *mm = f->umm->mm;
	unsigned long uaddr;
	bool found;
	int ret;
	u32 mask;

	if (!mutex_trylock(&f->umm->lock))
		goto later;
	found = f->e && !f->e->unmapped && mmget_not_zero(mm);
	if (found)
		uaddr = user_word_of_bit(f->e->addr, f->e->size, f->e->bit,
					 &mask);
	else
		/* unlinked, unmapped or the memory gone: nothing to write */
		user_enabler_fault_done_locked(f, false, false);
	mutex_unlock(&f->umm->lock);
	if (!found)
		goto done;
	if (!mmap_read_trylock(mm)) {
		mmput(mm);
		goto later;
	}
	user_word_unshare(mm, uaddr);
	ret = -EAGAIN;
	if (mutex_trylock(&f->umm->lock)) {
		ret = user_enabler_fault_done_locked(f, true, false);
		mutex_unlock(&f->umm->lock);
	}
	mmap_read_unlock(mm);
	mmput(mm);
	if (ret)
		goto later;
done:
	/* done: its enabler no longer points at it */
	user_event_mm_put(f->umm);
	kfree(f);
	return;
later:
	user_enabler_fault_queue_work(f);
}

/*
 * A fault for an enabler of @mm: charged to @mm's memory cgroup, whose
 * process asked for the bit, not to the tracer's, whose attach makes it.
 * Under the locks of every tracer, that cgroup's reclaim does not run: at
 * its limit (or with no free memory at hand), the fault is not charged,
 * rather than the update lost (one at a time per enabler, whose own
 * memory the process was charged for).
 */
static struct user_enabler_fault *user_enabler_fault_alloc(struct mm_struct *mm)
{
	struct mem_cgroup *memcg, *old;
	struct user_enabler_fault *f;

	memcg = get_mem_cgroup_from_mm(mm);
	old = set_active_memcg(memcg);
	f = kzalloc(sizeof(*f), GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
	set_active_memcg(old);
	mem_cgroup_put(memcg);
	return f ?: kzalloc(sizeof(*f), GFP_KERNEL);
}

/*
 * Bring @e's bit up to date: now if its page is there writable, else
 * later, out of the caller's locks (an event_mutex holder may wait on
 * them): on the calling task's way back to user space
 * (user_enabler_fault_now()) when it has one, else from a worker that may
 * fault the page in (consumers attach from contexts that must not wait for
 * another process's page, nor sleep on its userfaultfd). One fault at a
 * time per enabler: it writes the state as it is when it runs.
 */
static void user_enabler_update(struct user_enabler *e)
{
	struct user_enabler_fault *f;

	lockdep_assert_held(&e->ue->enablers_lock);
	if (e->fault || !user_enabler_write(e, user_event_status(e->ue)))
		return;
	f = user_enabler_fault_alloc(e->umm->mm);
	if (!f) {
		pr_warn_ratelimited("enable bit %u at 0x%lx not updated\n",
				    e->bit, e->addr);
		return;
	}
	e->fault = f;
	refcount_inc(&e->umm->refs);
	f->umm = e->umm;
	f->e = e;
	if (!(current->flags & (PF_KTHREAD | PF_IO_WORKER))) {
		init_task_work(&f->twork, user_enabler_fault_now);
		/* fails once the task is past exit_task_work() */
		if (!task_work_add(current, &f->twork, TWA_RESUME))
			return;
	}
	user_enabler_fault_queue_work(f);
}

/**
 * user_event_update_enablers() - Update the bits of an event's enablers
 * @ue: the event, whose consumers changed
 *
 * Bring the bit of every enabler of @ue up to date.
 *
 * Context: event_mutex held.
 */
void user_event_update_enablers(struct user_event *ue)
{
	struct user_enabler *e;

	lockdep_assert_held(&event_mutex);
	guard(mutex)(&ue->enablers_lock);
	list_for_each_entry(e, &ue->enablers, event_link)
		user_enabler_update(e);
}

/**
 * user_enabler_update_new() - Leave a new enabler's bit to be written later
 * @umm: the calling process's enable bits
 * @addr: the word's address
 * @bit: the bit
 * @id: the enabler's id, as registered
 *
 * For the registration of the enabler (@addr, @bit), whose tries to write
 * its bit (user_enabler_fault_in_new()) all found the page gone again,
 * its word checked each time: no longer unchecked, its bit written as a
 * consumer's attach would, on the way back to user space or from the
 * worker.
 *
 * Context: no lock held.
 */
void user_enabler_update_new(struct user_event_mm *umm, unsigned long addr,
			     u8 bit, u32 id)
{
	struct user_enabler *e;

	guard(mutex)(&umm->lock);
	e = user_enabler_find(umm, addr, bit);
	if (!e || e->id != id || !e->ue)
		return;
	guard(mutex)(&e->ue->enablers_lock);
	WRITE_ONCE(e->unchecked, false);
	user_enabler_update(e);
}

/* A child's mmu_notifier_register() in a worker: user_event_mm_alloc() */
struct user_event_mm_notifier_work {
	struct delayed_work	work;
	struct completion	done;
	struct mmu_notifier	*mn;
	struct mm_struct	*mm;
	/* the lock was taken: the next try in 1 << @waits ms */
	unsigned int		waits;
	int			ret;
};

/*
 * mmap_write_lock() that does not wait, which mmap_lock.h has not: as
 * mmap_write_lock_killable() takes it, for mmap_write_unlock()
 */
static bool user_mmap_write_trylock(struct mm_struct *mm)
{
	bool ret;

	__mmap_lock_trace_start_locking(mm, true);
	ret = down_write_trylock(&mm->mmap_lock);
	if (ret)
		mm_lock_seqcount_begin(mm);
	__mmap_lock_trace_acquire_returned(mm, true, ret);
	return ret;
}

/*
 * The worker does not wait for the mmap_lock: another process may hold it
 * (a read of the child's /proc/PID/mem) as long as it likes, and parking
 * workers of system_unbound_wq would hold up everyone's
 */
static void user_event_mm_notifier_fn(struct work_struct *work)
{
	struct user_event_mm_notifier_work *w =
		container_of(to_delayed_work(work),
			     struct user_event_mm_notifier_work, work);
	unsigned int ms;

	if (!user_mmap_write_trylock(w->mm)) {
		ms = min(1U << w->waits, USER_ENABLER_FAULT_WAIT_MAX);
		if (ms < USER_ENABLER_FAULT_WAIT_MAX)
			w->waits++;
		queue_delayed_work(system_unbound_wq, &w->work,
				   msecs_to_jiffies(ms));
		return;
	}
	w->ret = __mmu_notifier_register(w->mn, w->mm);
	mmap_write_unlock(w->mm);
	complete(&w->done);
}

/*
 * mmu_notifier_register(), the mmap_lock taken killably, with the caller's
 * signals blocked (but SIGKILL and SIGSTOP, which cannot be) and task work
 * kept from taking the signal path (io_uring's completions):
 * mm_take_all_locks() gives up with -EINTR as soon as a signal is pending,
 * and a process that gets signals or completions more often than its
 * mappings can be walked (a profiling timer) would never have its
 * notifier. They are handled once it is registered. What still interrupts
 * it (a fatal signal, a stop, the freezer) leaves -EINTR.
 */
static int user_event_mm_notifier_register(struct mmu_notifier *mn,
					   struct mm_struct *mm)
{
	sigset_t old = current->blocked, all;
	int ret;

	sigfillset(&all);
	set_current_blocked(&all);
	scoped_guard(no_notify_signal) {
		ret = mmap_write_lock_killable(mm);
		if (!ret) {
			ret = __mmu_notifier_register(mn, mm);
			mmap_write_unlock(mm);
		}
	}
	set_current_blocked(&old);
	return ret;
}

/* A child's memory (@mm): user_event_mm_alloc() */
static int user_event_mm_notifier_register_child(struct mmu_notifier *mn,
						 struct mm_struct *mm)
{
	struct user_event_mm_notifier_work w = { .mn = mn, .mm = mm };

	INIT_DELAYED_WORK_ONSTACK(&w.work, user_event_mm_notifier_fn);
	init_completion(&w.done);
	queue_delayed_work(system_unbound_wq, &w.work, 0);
	wait_for_completion(&w.done);
	/* its function may still be returning */
	flush_delayed_work(&w.work);
	destroy_delayed_work_on_stack(&w.work);
	return w.ret;
}

/*
 * The enable bits of @mm, listening to its munmap()s: the caller's own
 * memory (@child false), or a new child's in fork(), which does not run
 * yet. Takes @mm's mmap_lock for writing: not under event_mutex.
 *
 * When user_event_mm_notifier_register() is interrupted all the same, a
 * registration returns -ERESTARTNOINTR (restart_syscall(): the stop may be
 * over, a SIGCONT ignored, by the time it returns): the stop or the freeze
 * ends and the call is made again. A fork cannot: it is past its
 * last failure path, and a child left without its enablers would keep its
 * bits as the parent's were. A worker has no signals: it registers the
 * child's notifier then, while the parent waits.
 */
static struct user_event_mm *user_event_mm_alloc(struct mm_struct *mm,
						 bool child)
{
	struct user_event_mm *umm = kzalloc(sizeof(*umm), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!umm)
		return ERR_PTR(-ENOMEM);
	mmgrab(mm);
	umm->mm = mm;
	mutex_init(&umm->lock);
	INIT_LIST_HEAD(&umm->enablers);
	INIT_HLIST_NODE(&umm->node);
	refcount_set(&umm->refs, 1);
	INIT_WORK(&umm->free_work, user_event_mm_free_work);
	umm->mn.ops = &user_event_mm_ops;
	ret = user_event_mm_notifier_register(&umm->mn, mm);
	if (ret == -EINTR)
		ret = child ? user_event_mm_notifier_register_child(&umm->mn, mm) :
			      restart_syscall();
	if (ret) {
		mmdrop(mm);
		mutex_destroy(&umm->lock);
		kfree(umm);
		return ERR_PTR(ret);
	}
	return umm;
}

/**
 * user_event_mm_find() - The enable bits of a memory
 * @mm: the memory, or NULL
 *
 * The caller uses @mm (current's, or one it holds with mmget()): they stay
 * until its release. Memory without any mmu notifier, as most is, has none
 * and is not looked up.
 *
 * Context: any task, under no lock or any (an RCU read-side lookup).
 * Return: the enable bits of @mm, or NULL.
 */
struct user_event_mm *user_event_mm_find(struct mm_struct *mm)
{
	struct user_event_mm *umm;

	if (!mm || !mm_has_notifiers(mm))
		return NULL;
	rcu_read_lock();
	hash_for_each_possible_rcu(user_event_mms, umm, node, (unsigned long)mm)
		if (umm->mm == mm)
			break;
	rcu_read_unlock();
	return umm;
}

/* List @umm for its memory; false if another got there first */
static bool user_event_mm_add(struct user_event_mm *umm)
{
	bool first;

	spin_lock(&user_event_mm_lock);
	first = !user_event_mm_find(umm->mm);
	if (first)
		hash_add_rcu(user_event_mms, &umm->node, (unsigned long)umm->mm);
	spin_unlock(&user_event_mm_lock);
	return first;
}

/**
 * user_event_mm_find_or_create() - The calling process's enable bits
 *
 * Made on its first enable-bit registration: every thread of it (and a
 * vfork() child, which shares the memory) finds the same ones.
 *
 * Context: the registering task; sleeps (allocates, registers a notifier).
 * Return: the enable bits; ERR_PTR(-ENOMEM), or ERR_PTR(-ERESTARTNOINTR)
 * when a stop or the freezer came first (the call is then made again).
 */
struct user_event_mm *user_event_mm_find_or_create(void)
{
	struct user_event_mm *umm = user_event_mm_find(current->mm), *mine;

	if (umm)
		return umm;
	mine = user_event_mm_alloc(current->mm, false);
	if (IS_ERR(mine))
		return mine;
	if (user_event_mm_add(mine))
		return mine;
	/* another thread's first registration was quicker */
	user_event_mm_put(mine);
	return user_event_mm_find(current->mm);
}

/* @e is @umm's: the mmu notifier marks it when its word is unmapped */
static void user_enabler_add_mm(struct user_enabler *e,
				struct user_event_mm *umm)
{
	lockdep_assert_held(&umm->lock);
	e->umm = umm;
	e->id = ++umm->next_id;
	list_add_tail_rcu(&e->mm_link, &umm->enablers);
	WRITE_ONCE(umm->nr_enablers, umm->nr_enablers + 1);
}

/**
 * user_enabler_add_event() - Link an enabler to its event
 * @e: the enabler, on its process's list
 * @ue: the event
 *
 * @e follows @ue's consumers, and holds a reference on it: one that the
 * caller holds (an fd's, or the parent's enabler's), so no event_mutex.
 *
 * Context: @e->umm->lock held.
 */
void user_enabler_add_event(struct user_enabler *e,
			    struct user_event *ue)
{
	lockdep_assert_held(&e->umm->lock);
	guard(mutex)(&ue->enablers_lock);
	e->ue = ue;
	refcount_inc(&ue->refs);
	list_add_tail(&e->event_link, &ue->enablers);
}

/**
 * user_enabler_drop_mm() - Undo user_enabler_add_mm()
 * @e: the enabler, which never had an event; freed
 *
 * Context: event_mutex held.
 */
void user_enabler_drop_mm(struct user_enabler *e)
{
	lockdep_assert_held(&event_mutex);
	guard(mutex)(&e->umm->lock);
	list_del_rcu(&e->mm_link);
	WRITE_ONCE(e->umm->nr_enablers, e->umm->nr_enablers - 1);
	/* the notifier may be looking at it */
	kfree_rcu(e, rcu);
}

/*
 * Watch the word of a new enabler: on @umm's list, so that an munmap() by
 * another thread from then on marks it. Whether the word is mapped
 * writable is checked after, out of event_mutex, as its fault is
 * (user_enabler_fault_in_new()): checked the other way round, an munmap()
 * and a new mapping at the same address in between would go unseen, and
 * the new mapping get the bit.
 */
static void user_enabler_watch(struct user_enabler *e,
			       struct user_event_mm *umm)
{
	guard(mutex)(&umm->lock);
	user_enabler_add_mm(e, umm);
}

/* Unlink and free @e: the reference it held on its event is the caller's */
static struct user_event *user_enabler_unlink(struct user_enabler *e)
{
	struct user_event *ue = e->ue;

	lockdep_assert_held(&event_mutex);
	scoped_guard(mutex, &e->umm->lock) {
		list_del_rcu(&e->mm_link);
		WRITE_ONCE(e->umm->nr_enablers, e->umm->nr_enablers - 1);
		scoped_guard(mutex, &ue->enablers_lock) {
			list_del(&e->event_link);
			/* the fault queued for it finds it gone */
			if (e->fault)
				e->fault->e = NULL;
		}
	}
	kfree_rcu(e, rcu);
	return ue;
}

/**
 * user_enabler_remove() - Unlink and free an enabler
 * @e: the enabler
 *
 * Its event goes if nothing else refers to it (user_event_put()).
 *
 * Context: event_mutex held.
 */
void user_enabler_remove(struct user_enabler *e)
{
	user_event_put(user_enabler_unlink(e));
}

/**
 * user_event_mm_drop_released() - Drop the enablers of released memories
 * @reap: an event nothing refers to any more goes now, else from the reaper
 *
 * Those user_event_mm_notifier_release() handed on. Called from the worker,
 * and wherever a user asks for an event by its name or asks whether it is
 * busy, before it looks (a registration, a deletion, dynamic_events, a
 * group's removal), so that
 * an event they held is free to be deleted or registered anew as soon as
 * the process has been waited for (unless another task held its memory as
 * it exited), as if its exit had dropped them. user_event_busy() and
 * user_event_destroy() do not call it: their callers do, where it
 * matters. Not @reap where the caller may be walking the events
 * (dynamic_events).
 *
 * Context: event_mutex held.
 */
void user_event_mm_drop_released(bool reap)
{
	struct user_event_mm *umm, *next;
	struct user_enabler *e, *tmp;
	struct llist_node *list;
	struct user_event *ue;

	lockdep_assert_held(&event_mutex);
	if (llist_empty(&user_event_mms_released))
		return;
	list = llist_del_all(&user_event_mms_released);
	llist_for_each_entry_safe(umm, next, list, released) {
		list_for_each_entry_safe(e, tmp, &umm->enablers, mm_link) {
			ue = user_enabler_unlink(e);
			if (reap) {
				user_event_put(ue);
				continue;
			}
			/* the event's own reference stays: never 0 */
			refcount_dec(&ue->refs);
			if (user_event_unused(ue))
				schedule_work(&user_event_reap_work);
		}
		user_event_mm_put(umm);
	}
}

static void user_event_mm_drop_fn(struct work_struct *work)
{
	guard(mutex)(&event_mutex);
	user_event_mm_drop_released(true);
}

/*
 * The memory is going: its last user exited or exec()ed (exit_mmap()), or
 * @umm was never listed and its notifier is being unregistered. Nothing
 * writes its bits again: a write takes the memory with mmget_not_zero(),
 * which fails from now on. The enablers are dropped under event_mutex, which
 * this must not take: the last mmput() may be anyone's, under any tracing
 * lock (uprobes' register_for_each_vma() holds event_mutex and
 * dup_mmap_sem, a trace_pipe reader's user stack trace trace_event_sem).
 * So it only unlists @umm and hands it on; a spinlock is all it takes.
 * Called once per listing.
 */
static void user_event_mm_notifier_release(struct mmu_notifier *mn,
					   struct mm_struct *mm)
{
	struct user_event_mm *umm = container_of(mn, struct user_event_mm, mn);

	scoped_guard(spinlock, &user_event_mm_lock) {
		if (hlist_unhashed(&umm->node))
			return;
		/* and unhashed: no second release */
		hash_del_rcu(&umm->node);
	}
	/* its listing's reference goes with the enablers */
	llist_add(&umm->released, &user_event_mms_released);
	queue_work(system_unbound_wq, &user_event_mm_drop_work);
}

/*
 * Did fork() copy the range of the word at @addr into @mm, the child's,
 * whose mmap_lock the caller read-holds? Not when it is MADV_DONTFORK
 * (VM_DONTCOPY): whatever the child maps there later is not the word.
 */
static bool user_event_mm_has_word(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;

	mmap_assert_locked(mm);
	vma = vma_lookup(mm, addr);
	return vma && (vma->vm_flags & VM_WRITE);
}

/*
 * A fork() copies the parent's enablers for the child's copy of its memory:
 * the same words, whose bits the kernel keeps up to date in the child too.
 * Under the parent's lock and each event's, not event_mutex: a fork does
 * not wait for registrations, deletions and consumers of every event. The
 * copies are allocated before, one per enabler the parent has then (and a
 * few for ones registered before its lock is taken): the parent's lock,
 * which the faults of its bits and its own registrations take, is not held
 * across up to USER_EVENT_MAX_ENABLERS allocations. Enablers registered
 * meanwhile may not be copied, as if registered after. The copies and the
 * child's state are the child's, charged to its memory cgroup (which
 * CLONE_INTO_CGROUP may have made another than the parent's): at its
 * limit, the child gets fewer copies, and the kernel log says so.
 */
static void user_event_mm_dup(struct user_event_mm *parent,
			      struct mm_struct *mm)
{
	unsigned int n = READ_ONCE(parent->nr_enablers), short_by = 0;
	struct mem_cgroup *memcg, *old;
	struct user_enabler *e, *c, *tmp;
	struct user_event_mm *umm;
	LIST_HEAD(spare);

	memcg = get_mem_cgroup_from_mm(mm);
	old = set_active_memcg(memcg);
	/* and a few for enablers registered before the lock is taken */
	for (n += 8; n; n--) {
		c = kmalloc(sizeof(*c), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!c)
			break;
		list_add(&c->mm_link, &spare);
	}
	umm = list_empty(&spare) ? ERR_PTR(-ENOMEM) :
				   user_event_mm_alloc(mm, true);
	set_active_memcg(old);
	mem_cgroup_put(memcg);
	if (IS_ERR(umm)) {
		pr_warn_ratelimited("fork: no enable bits copied (no memory)\n");
		goto out;
	}
	/* a new memory: nobody else lists one for it */
	WARN_ON_ONCE(!user_event_mm_add(umm));

	/*
	 * The child's mmap_lock first, as a fault takes it before an mm's
	 * enablers: another process may hold it a while (a read of the
	 * child's /proc/PID/mem), and then only this fork waits, holding
	 * none of the locks that tracers take
	 */
	mmap_read_lock(mm);
	mutex_lock(&parent->lock);
	/* the child's, which only its notifier sees yet: a second of the class */
	mutex_lock_nested(&umm->lock, SINGLE_DEPTH_NESTING);
	list_for_each_entry(e, &parent->enablers, mm_link) {
		/*
		 * Being registered (no event yet, or its word not checked
		 * yet), or the word gone. One being unregistered is
		 * copied: the unregistration is the parent's, and the child's
		 * copy of the word may hold the bit as it was before the parent
		 * cleared it, which only an enabler of its own will ever clear.
		 * The parent's keeps its event meanwhile: it goes under our lock.
		 */
		if (!e->ue || e->unchecked || e->unmapped ||
		    !user_event_mm_has_word(mm, e->addr))
			continue;
		if (list_empty(&spare)) {
			short_by++;
			continue;
		}

		c = list_first_entry(&spare, struct user_enabler, mm_link);
		list_del(&c->mm_link);
		*c = *e;
		c->fault = NULL;
		c->unregistering = false;
		c->ue = NULL;

		user_enabler_add_mm(c, umm);
		/* the parent's enabler holds a reference meanwhile */
		user_enabler_add_event(c, e->ue);
		/* a consumer may have come or gone since the memory was copied */
		scoped_guard(mutex, &e->ue->enablers_lock)
			user_enabler_update(c);
	}

	mutex_unlock(&umm->lock);
	mutex_unlock(&parent->lock);
	mmap_read_unlock(mm);
out:
	if (short_by)
		pr_warn_ratelimited("fork: %u enable bits not copied\n",
				    short_by);
	list_for_each_entry_safe(c, tmp, &spare, mm_link)
		kfree(c);
}

/**
 * user_event_mm_fork - give a new process a copy of its parent's enable bits
 * @t: the task, not running yet, with a copy of current's memory
 *
 * Tasks that share the memory (threads, vfork()) share its bits and need
 * nothing: user_events_fork() calls this only for a copy, and only when
 * the parent's memory has an mmu notifier, ours or another's.
 *
 * Context: fork(), in the parent, before @t runs; sleeps.
 */
void user_event_mm_fork(struct task_struct *t)
{
	/* current uses its memory: its bits stay meanwhile */
	struct user_event_mm *parent = user_event_mm_find(current->mm);

	/* none left to copy: the child's memory needs no notifier of ours */
	if (parent && t->mm && READ_ONCE(parent->nr_enablers))
		user_event_mm_dup(parent, t->mm);
}

/**
 * user_enabler_check() - Tell what user_enabler_prepare() would refuse
 * @e: a new enabler of the calling process, not linked yet
 *
 * What user_enabler_prepare() would refuse @e for, told before an event is
 * made for it. Prepared after, it is checked again. The calling process
 * has enable bits (user_event_mm_find_or_create()). Its word's mapping is
 * checked before, without event_mutex (user_word_check()).
 *
 * Context: event_mutex held.
 * Return: 0; -EADDRINUSE or -ENOSPC.
 */
int user_enabler_check(struct user_enabler *e)
{
	struct user_event_mm *umm = user_event_mm_find(current->mm);
	struct user_enabler *old;
	bool stale;

	lockdep_assert_held(&event_mutex);
	old = user_enabler_find(umm, e->addr, e->bit);
	/* ->unchecked changes under @umm->lock: either value will do */
	stale = old && old->unmapped && !old->unregistering &&
		!READ_ONCE(old->unchecked);
	if (old && !stale)
		return -EADDRINUSE;
	if (umm->nr_enablers - stale >= USER_EVENT_MAX_ENABLERS)
		return -ENOSPC;
	return 0;
}

/**
 * user_word_check() - May the calling process have an enable word here?
 * @addr: the word's address
 *
 * Checked before a registration makes an event (user_word_vma_ok()), and
 * again once its enabler is watched (user_enabler_fault_in_new()). Under
 * the calling process's own mmap_lock, which another of its threads may
 * hold for long: never under event_mutex, which every tracer waits on.
 *
 * Context: no lock held.
 * Return: 0, -EFAULT, or -EINTR (a fatal signal).
 */
int user_word_check(unsigned long addr)
{
	struct mm_struct *mm = current->mm;

	bool ok;

	lockdep_assert_not_held(&event_mutex);
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	ok = user_word_vma_ok(vma_lookup(mm, addr));
	mmap_read_unlock(mm);
	return ok ? 0 : -EFAULT;
}

/**
 * user_enabler_prepare() - Watch a new enabler of the calling process
 * @e: the enabler, not linked yet
 *
 * Watched (user_enabler_watch()), or -errno and @e freed. A stale enabler
 * of the same bit (its word unmapped since, and not being unregistered)
 * is removed: @e replaces it.
 *
 * Context: event_mutex held.
 * Return: 0; or -EADDRINUSE or -ENOSPC, @e then freed.
 */
int user_enabler_prepare(struct user_enabler *e)
{
	struct user_event_mm *umm = user_event_mm_find(current->mm);
	struct user_enabler *old;

	/* umm's list and nr_enablers change under event_mutex too */
	lockdep_assert_held(&event_mutex);
	old = user_enabler_find(umm, e->addr, e->bit);
	/*
	 * a word unmapped since: the new one at that address replaces it, once
	 * its own registration is done with it (which then fails with EFAULT)
	 */
	if (old && old->unmapped && !old->unregistering &&
	    !READ_ONCE(old->unchecked)) {
		user_enabler_remove(old);
		old = NULL;
	}
	if (old || umm->nr_enablers >= USER_EVENT_MAX_ENABLERS) {
		kfree(e);
		return old ? -EADDRINUSE : -ENOSPC;
	}
	user_enabler_watch(e, umm);
	return 0;
}

/**
 * user_enabler_clear() - Clear the bit of an enabler being unregistered
 * @e: the enabler, of the calling process
 *
 * Clear the bit of @e, which DIAG_IOCSUNREG is removing: in the caller's
 * own memory, faulting it in if need be, never once the word's range was
 * unmapped. @e stays on its process's list meanwhile, so the notifier
 * marks it if the range goes, also while fixup_user_fault() let go of the
 * mmap_lock.
 *
 * Context: event_mutex not held (user_word_unshare()).
 */
void user_enabler_clear(struct user_enabler *e)
{
	struct mm_struct *mm = current->mm;
	unsigned long uaddr;
	bool unlocked;
	int tries;
	u32 mask;

	uaddr = user_word_of_bit(e->addr, e->size, e->bit, &mask);
	mmap_read_lock(mm);
	for (tries = 0; tries < USER_EVENT_FAULT_TRIES; tries++) {
		if (READ_ONCE(e->unmapped) ||
		    !user_word_update(mm, uaddr, mask, false, true))
			break;
		unlocked = false;
		/* a word gone is no error: nothing to clear */
		if (fixup_user_fault(mm, uaddr, FAULT_FLAG_WRITE, &unlocked))
			break;
	}
	mmap_read_unlock(mm);
}
