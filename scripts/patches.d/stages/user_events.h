/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <uapi/linux/user_events.h>

struct task_struct;

/*
 * The status page is one page shared by every process and needs no
 * per-task state: fork, exec and exit have nothing to do. The hooks stay
 * because the core kernel calls them.
 */
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

#endif /* _LINUX_USER_EVENTS_H */
