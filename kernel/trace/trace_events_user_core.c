// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: groups and the end of an event. A group's references
 * and limit; an event's last reference, and its deletion once nothing
 * refers to it and no buffer holds its records.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include "trace_events_user.h"

/*
 * event_mutex protects the table and the count, as trace_events_user.h
 * says; the sysctl writes user_events_max, read with READ_ONCE(). The
 * default group's own reference never drops.
 */
DEFINE_HASHTABLE(user_event_table, 8);
unsigned int user_events_count;
unsigned int user_events_max = 32768;

struct user_event_group user_event_init_group = {
	.system		= USER_EVENTS_SYSTEM,
	.system_multi	= USER_EVENTS_MULTI_SYSTEM,
	.by_index	= XARRAY_INIT(user_event_init_group.by_index, XA_FLAGS_ALLOC1),
	.refs		= REFCOUNT_INIT(1),
};

DEFINE_XARRAY_ALLOC1(user_event_groups);
unsigned int user_groups_reserved;

/**
 * user_group_get() - Take a reference on a group
 * @g: the group
 *
 * Context: any; the caller holds a reference, or event_mutex.
 * Return: @g.
 */
struct user_event_group *user_group_get(struct user_event_group *g)
{
	refcount_inc(&g->refs);
	return g;
}

/**
 * user_group_free() - Free a group, its status page and its names
 * @g: the group: its last reference dropped, or never made whole
 *
 * Context: any; nothing else refers to @g.
 */
void user_group_free(struct user_event_group *g)
{
	if (g->status_page)
		__free_page(g->status_page);
	xa_destroy(&g->by_index);
	kfree(g->system_multi);
	kfree(g->system);
	kfree(g->name);
	kfree(g);
}

/**
 * user_group_put() - Drop a reference on a group, freeing it with the last
 * @g: the group
 *
 * The default group's count never drops to 0: it holds one of its own.
 *
 * Context: any.
 */
void user_group_put(struct user_event_group *g)
{
	if (refcount_dec_and_test(&g->refs))
		user_group_free(g);
}

/**
 * user_group_max() - How many events a group may have
 * @g: the group
 *
 * A tenant group its own limit; the default group what
 * kernel.user_events_max leaves of the groups' limits, so that no group
 * can take what another was given.
 *
 * Context: event_mutex held, under which the groups' limits change.
 * Return: that number; 0 when the groups' limits leave nothing.
 */
unsigned int user_group_max(struct user_event_group *g)
{
	unsigned int max = READ_ONCE(user_events_max);

	if (g->name)
		return g->max_events;
	return max > user_groups_reserved ? max - user_groups_reserved : 0;
}

/**
 * user_group_get_of_inode() - Get the group that a file belongs to
 * @inode: the file's; i_private is its group's id, 0 for the default group
 *
 * The group of a user_events_data or user_events_status.
 *
 * Context: Takes event_mutex for a tenant group's file.
 * Return: the group, held; or NULL if it was removed meanwhile.
 */
struct user_event_group *user_group_get_of_inode(struct inode *inode)
{
	unsigned long id = (unsigned long)inode->i_private;
	struct user_event_group *g;

	if (!id)
		return user_group_get(&user_event_init_group);
	guard(mutex)(&event_mutex);
	/* removed meanwhile (ids are not reused soon: cyclic) */
	g = xa_load(&user_event_groups, id);
	return g ? user_group_get(g) : NULL;
}

/**
 * user_group_find() - Find a tenant group by its name
 * @name: the name, which need not be NUL-terminated
 * @len: its length
 *
 * Context: event_mutex held.
 * Return: the group, not held; or NULL.
 */
struct user_event_group *user_group_find(const char *name, size_t len)
{
	struct user_event_group *g;
	unsigned long id;

	lockdep_assert_held(&event_mutex);
	xa_for_each(&user_event_groups, id, g)
		if (strlen(g->name) == len && !strncmp(g->name, name, len))
			return g;
	return NULL;
}

#define USER_GROUP_MAX_NAME	32

/**
 * user_group_name_ok() - Is a name one that a tenant group may have?
 * @name: the name, which need not be NUL-terminated
 * @len: its length
 *
 * ASCII letters and digits, up to USER_GROUP_MAX_NAME: "user_events_NAME",
 * "user_events_NAME_multi" and their "_retired" systems are then nobody
 * else's, but for "multi" and "retired" (the default group's). Not
 * isalnum() alone: it takes Latin-1 letters too.
 *
 * Context: any.
 * Return: true if so.
 */
bool user_group_name_ok(const char *name, size_t len)
{
	size_t i;

	if (!len || len > USER_GROUP_MAX_NAME ||
	    (len == 5 && !strncmp(name, "multi", 5)) ||
	    (len == 7 && !strncmp(name, "retired", 7)))
		return false;
	for (i = 0; i < len; i++)
		if (!isascii(name[i]) || !isalnum(name[i]))
			return false;
	return true;
}

/**
 * user_group_of_system() - Is a system that of a tenant group's events?
 * @sys: the system, which need not be NUL-terminated
 * @len: its length
 * @g: set to that group, NULL if there is none
 *
 * Is @sys user_events_GROUP? A multi-format system is not: "GROUP_multi"
 * is no group's name.
 *
 * Context: event_mutex held.
 * Return: true if so, @g then set; else false, @g left as it was.
 */
bool user_group_of_system(const char *sys, size_t len,
			  struct user_event_group **g)
{
	size_t pre = strlen(USER_EVENTS_SYSTEM) + 1;

	lockdep_assert_held(&event_mutex);
	if (len <= pre || strncmp(sys, USER_EVENTS_SYSTEM "_", pre) ||
	    !user_group_name_ok(sys + pre, len - pre))
		return false;
	*g = user_group_find(sys + pre, len - pre);
	return true;
}

/**
 * user_event_free() - Free an event and what it owns
 * @ue: the event, which nothing lists or refers to any more
 *
 * Its group's reference goes; it no longer counts in its group nor in
 * user_events_count.
 *
 * Context: event_mutex held (the counts).
 */
void user_event_free(struct user_event *ue)
{
	kfree(ue->call.print_fmt);
	kfree(ue->class.fields_array);
	kfree(ue->name);
	kfree(ue->flags);
	kfree(ue->args);
	user_event_fields_free(ue->fields, ue->nr_fields);
	mutex_destroy(&ue->enablers_lock);
	ue->group->nr_events--;
	user_group_put(ue->group);
	kfree(ue);
	user_events_count--;
}

/**
 * user_event_remove_call() - Take an event's call out of tracefs and the core
 * @ue: the event
 *
 * Take call out of tracefs and the trace event core; the type stays with
 * fmt. event_remove() unregisters call->event when it
 * has funcs, which call has only for tp_printk: with no consumer and no
 * writer (no fd holds @ue), nothing prints through it now.
 *
 * Context: event_mutex held (trace_remove_event_call()).
 * Return: 0, or the errno of trace_remove_event_call(), call's funcs then
 * restored.
 */
int user_event_remove_call(struct user_event *ue)
{
	int ret;

	ue->call.event.funcs = NULL;
	ret = trace_remove_event_call(&ue->call);
	if (ret)
		ue->call.event.funcs = &user_event_funcs;
	return ret;
}

/**
 * user_event_unlist() - Unlist an event
 * @ue: the event, nothing attached to it
 *
 * Its name, dynamic_events line and status byte are free for others.
 *
 * Context: event_mutex held (dyn_event_remove()).
 */
void user_event_unlist(struct user_event *ue)
{
	dyn_event_remove(&ue->devent);
	hash_del(&ue->node);
	if (ue->index) {
		/* Nothing is attached, so the byte is 0 for the slot's next owner */
		WRITE_ONCE(ue->group->status_bytes[ue->index], 0);
		xa_erase(&ue->group->by_index, ue->index);
	}
}

/**
 * user_event_busy() - Is an event held, by an fd, an enabler or what holds
 *	its trace event (an eprobe on it, a trigger naming it, a perf
 *	event), or consumed?
 * @ue: the event
 *
 * An exited process's enablers count until dropped: callers that ask for
 * the user drop them first (user_event_mm_drop_released()).
 *
 * Context: event_mutex held.
 * Return: true if so.
 */
bool user_event_busy(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);
	/* what holds its trace event (an eprobe, a trigger, perf) */
	return refcount_read(&ue->refs) != 1 || user_event_status(ue) ||
	       trace_event_dyn_busy(&ue->call);
}

/**
 * user_event_destroy() - Delete an event now, type and all, unless it is busy
 * @ue: the event
 *
 * The caller knows that no buffer holds a record of it, and has cleared
 * the marks that would make trace_remove_event_call() clear buffers
 * (user_event_forget_enabled()), or knows it was never enabled (a
 * registration that failed). Exited processes' enablers count, as in
 * user_event_busy(): a caller that wants them not to drops them first.
 *
 * Context: event_mutex held.
 * Return: 0, @ue then freed; -EBUSY, or the errno of
 * user_event_remove_call().
 */
int user_event_destroy(struct user_event *ue)
{
	int ret;

	if (user_event_busy(ue))
		return -EBUSY;
	ret = user_event_remove_call(ue);
	if (ret)
		return ret;
	unregister_trace_event(&ue->fmt.event);
	user_event_unlist(ue);
	user_event_free(ue);
	return 0;
}

/**
 * user_event_forget_enabled_in() - Forget an event was enabled in a trace array
 * @ue: the event, with no consumer
 * @tr: the trace array
 *
 * Forget that call of @ue was ever enabled (EVENT_FILE_FL_WAS_ENABLED) in
 * @tr, by which trace_remove_event_call() marks the trace arrays whose
 * buffers are to be cleared so that no record of a type gone or reused
 * stays behind: @ue's records, where they may be, are seen to here.
 * Nothing sets the flag again: @ue has no consumer.
 *
 * Context: trace_types_lock held.
 */
void user_event_forget_enabled_in(struct user_event *ue,
				  struct trace_array *tr)
{
	struct trace_event_file *file;

	lockdep_assert_held(&trace_types_lock);
	list_for_each_entry(file, &tr->events, list)
		if (file->event_call == &ue->call)
			clear_bit(EVENT_FILE_FL_WAS_ENABLED_BIT, &file->flags);
}

/**
 * user_event_forget_enabled() - Forget that an event was ever enabled
 * @ue: the event, with no consumer
 *
 * user_event_forget_enabled_in() of every trace array.
 *
 * Context: event_mutex held; takes trace_types_lock.
 */
void user_event_forget_enabled(struct user_event *ue)
{
	struct trace_array *tr;

	lockdep_assert_held(&event_mutex);
	guard(mutex)(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		user_event_forget_enabled_in(ue, tr);
}

/*
 * Delete @ue if it is an enable-bit event nothing refers to any more, and
 * no buffer holds a record of it (user_event_unused()): no buffer is
 * cleared for it, the kernel's records stay. What holds its trace event
 * (trace_event_dyn_busy()) keeps it until that lets go: an eprobe does so
 * without detaching from it, so nothing tells us.
 *
 * Return: true if @ue is unused but held so, for the caller to try again
 * later (user_event_reap_held_work).
 */
static bool user_event_reap(struct user_event *ue)
{
	if (!user_event_unused(ue))
		return false;
	if (trace_event_dyn_busy(&ue->call))
		return true;
	user_event_forget_enabled(ue);
	user_event_destroy(ue);
	return false;
}

static void user_event_reap_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(user_event_reap_held_work, user_event_reap_fn);

/**
 * user_event_put() - Drop a reference an fd or an enabler held on an event
 * @ue: the event
 *
 * An enable-bit event left with no reference and no consumer then goes,
 * unless a buffer may hold a record of it (user_event_unused()); one that
 * an eprobe still holds is looked at again every second, and goes once
 * the eprobe has (user_event_reap()).
 *
 * Context: event_mutex held.
 */
void user_event_put(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);
	refcount_dec(&ue->refs);
	if (user_event_reap(ue))
		schedule_delayed_work(&user_event_reap_held_work, HZ);
}

/*
 * The enable-bit events whose last consumer detached since, and those held
 * by what holds their trace event: these are looked at again every second
 * while there are any.
 */
static void user_event_reap_fn(struct work_struct *work)
{
	struct user_event *ue;
	struct hlist_node *tmp;
	bool held = false;
	int bkt;

	guard(mutex)(&event_mutex);
	hash_for_each_safe(user_event_table, bkt, tmp, ue, node)
		held |= user_event_reap(ue);
	if (held)
		schedule_delayed_work(&user_event_reap_held_work, HZ);
}

DECLARE_WORK(user_event_reap_work, user_event_reap_fn);
