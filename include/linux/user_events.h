/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <uapi/linux/user_events.h>

struct task_struct;

#ifdef CONFIG_USER_EVENTS
#include <linux/mmu_notifier.h>
#include <linux/sched.h>

/*
 * The status page is one page shared by every process and needs no per-task
 * state. The enable bits of the enable-bit ABI live in each process's own
 * memory and are kept by that memory (its mm_struct, through an mmu
 * notifier), not by its tasks: a thread, a vfork() child, an exec() and an
 * exit cost nothing here; a fork() copying memory that has no mmu notifier
 * costs two loads. task_struct.user_event_mm is not used.
 */
void user_event_mm_fork(struct task_struct *t);

static inline void user_events_fork(struct task_struct *t,
				    unsigned long clone_flags)
{
	/* a copy of the memory gets a copy of its bits */
	if (unlikely(!(clone_flags & CLONE_VM) && current->mm &&
		     mm_has_notifiers(current->mm)))
		user_event_mm_fork(t);
}

/* The memory's release drops its bits (exit_mmap()) */
static inline void user_events_execve(struct task_struct *t)
{
}

static inline void user_events_exit(struct task_struct *t)
{
}
#else
static inline void user_events_fork(struct task_struct *t,
				    unsigned long clone_flags)
{
}

static inline void user_events_execve(struct task_struct *t)
{
}

static inline void user_events_exit(struct task_struct *t)
{
}
#endif

#endif /* _LINUX_USER_EVENTS_H */
