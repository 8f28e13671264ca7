/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <uapi/linux/user_events.h>

struct task_struct;

#ifdef CONFIG_USER_EVENTS
#include <linux/atomic.h>
#include <linux/sched.h>

/*
 * The status page is one page shared by every process and needs no per-task
 * state. The enable bits of the enable-bit ABI live in each process's own
 * memory: task_struct.user_event_mm is the process's set of them, shared by
 * its threads. A task whose process has none costs one load at fork and exec
 * and one compare-and-exchange at exit, which marks it so that a concurrent
 * first registration in its process does not adopt it.
 */
#define USER_EVENT_MM_EXITED ((struct user_event_mm *)1UL)

void user_event_mm_fork(struct task_struct *t, unsigned long clone_flags);
void user_event_mm_leave(struct task_struct *t, bool exiting);

static inline void user_events_fork(struct task_struct *t,
				    unsigned long clone_flags)
{
	/* dup_task_struct() copied the parent's pointer, which is not the child's */
	if (unlikely(READ_ONCE(t->user_event_mm) ||
		     READ_ONCE(current->user_event_mm)))
		user_event_mm_fork(t, clone_flags);
}

static inline void user_events_execve(struct task_struct *t)
{
	if (unlikely(READ_ONCE(t->user_event_mm)))
		user_event_mm_leave(t, false);
}

static inline void user_events_exit(struct task_struct *t)
{
	if (READ_ONCE(t->user_event_mm) ||
	    cmpxchg(&t->user_event_mm, NULL, USER_EVENT_MM_EXITED))
		user_event_mm_leave(t, true);
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
