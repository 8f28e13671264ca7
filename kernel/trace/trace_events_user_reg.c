// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: making and finding events. The consumers of an event
 * and its status byte; an event made from its description, or found again
 * (both ABIs and dynamic_events); the u: command of dynamic_events.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include "trace_events_user.h"

/*
 * The u: command of dynamic_events: filled in and registered at boot
 * (user_event_dyn_register()); not const, dyn_event_register() links it
 * into its list
 */
static struct dyn_event_operations user_event_ops;
/* The next USER_EVENT_REG_MULTI_FORMAT event's name suffix; event_mutex */
static u64 user_event_multi_id;

static struct user_event *to_user_event(struct dyn_event *ev)
{
	return container_of(ev, struct user_event, devent);
}

/* Tell the status byte and the enable bits of @ue that its consumers changed */
static void user_event_update_status(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);
	if (ue->index)
		WRITE_ONCE(ue->group->status_bytes[ue->index],
			   user_event_status(ue));
	user_event_update_enablers(ue);
}

/**
 * user_event_consumer_reg() - The class->reg of every user event
 * @call: the event's trace event
 * @type: what attaches or detaches (TRACE_REG_*)
 * @data: the ftrace trace_event_file, or perf's data
 *
 * Attaches and detaches the consumers and updates the status byte and the
 * enable bits. A group's own trace buffer (trace_tenant_create()) enables
 * the events of this class alone.
 *
 * Context: event_mutex held.
 * Return: 0, or what attaching a probe returned.
 */
int user_event_consumer_reg(struct trace_event_call *call,
			    enum trace_reg type, void *data)
{
	struct user_event *ue = call->data;
	int ret = 0;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		ret = user_event_attach(ue, type, data);
		break;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		/* once per event: perf counts its own opens */
		ret = user_event_attach(ue, type, call);
		break;
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	}

	user_event_update_status(ue);
	/* the trace event cannot be removed from inside its own detach */
	if (user_event_unused(ue))
		schedule_work(&user_event_reap_work);
	return ret;
}

/* Events: creation and deletion ------------------------------------------ */

/*
 * Events of one name in one group hash alike: "name", and every
 * "name.<id>" of multi-format
 */
static u32 user_name_key(struct user_event_group *g, const char *name)
{
	return full_name_hash(g, name, strcspn(name, "."));
}

/**
 * user_event_find() - Find an event of a group by its name
 * @g: the group
 * @name: the event's name
 *
 * Context: event_mutex held.
 * Return: the event, not held; or NULL.
 */
struct user_event *user_event_find(struct user_event_group *g,
				   const char *name)
{
	struct user_event *ue;

	lockdep_assert_held(&event_mutex);
	hash_for_each_possible(user_event_table, ue, node, user_name_key(g, name))
		if (ue->group == g && !strcmp(ue->name, name))
			return ue;
	return NULL;
}

/* The multi-format event of @g named @d->name.<id> with @d's fields */
static struct user_event *user_event_find_multi(struct user_event_group *g,
						struct user_spec *d)
{
	size_t len = strlen(d->name);
	struct user_event *ue;

	lockdep_assert_held(&event_mutex);
	hash_for_each_possible(user_event_table, ue, node,
			       user_name_key(g, d->name))
		if (ue->group == g && ue->multi && !strncmp(ue->name, d->name, len) &&
		    ue->name[len] == '.' && !strcmp(ue->args, d->args))
			return ue;
	return NULL;
}

/* Is @flag in the comma-separated @flags (unknown flags are ignored)? */
static bool user_flags_have(const char *flags, const char *flag)
{
	size_t len = strlen(flag);

	while (flags && *flags) {
		if (!strncmp(flags, flag, len) &&
		    (flags[len] == ',' || !flags[len]))
			return true;
		flags = strchr(flags, ',');
		if (flags)
			flags++;
	}
	return false;
}

/* May @g have no more events? */
static bool user_events_full(struct user_event_group *g)
{
	return user_events_count >= READ_ONCE(user_events_max) ||
	       g->nr_events >= user_group_max(g);
}

/* Take what @d owns and lay the fields out after the common header */
static struct user_event *user_event_alloc(struct user_event_group *g,
					   struct user_spec *d,
					   unsigned int how)
{
	struct user_event *ue = kzalloc(sizeof(*ue), GFP_KERNEL_ACCOUNT);
	u32 offset = sizeof(struct trace_entry);
	int i;

	if (!ue)
		return NULL;

	user_events_count++;
	ue->group = user_group_get(g);
	g->nr_events++;
	if (how & UE_REG_MULTI) {
		ue->name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx", d->name,
				     user_event_multi_id++);
		if (!ue->name) {
			user_event_free(ue);
			return NULL;
		}
		kfree(d->name);
	} else {
		ue->name = d->name;
	}

	ue->multi = how & UE_REG_MULTI;
	ue->persist = how & UE_REG_PERSIST;
	ue->auto_del = !(how & (UE_REG_KEEP | UE_REG_PERSIST));
	INIT_LIST_HEAD(&ue->enablers);
	mutex_init(&ue->enablers_lock);

	ue->flags = d->flags;
	ue->bpf_iter = user_flags_have(d->flags, "BPF_ITER");
	ue->args = d->args;
	ue->fields = d->fields;
	ue->nr_fields = d->nr_fields;
	memset(d, 0, sizeof(*d));

	for (i = 0; i < ue->nr_fields; i++) {
		ue->fields[i].offset = offset;
		offset += ue->fields[i].size;
		ue->nr_locs += ue->fields[i].kind >= UF_LOC_STR;
	}
	ue->min_size = offset - sizeof(struct trace_entry);

	refcount_set(&ue->refs, 1);
	ue->tp.name = ue->name;
	return ue;
}

/*
 * The type of @ue, registered on fmt: what prints a record of that type
 * (ftrace_find_event()) is fmt's, which the trace event core takes to be a
 * trace_event_call's (print_event_fields(), eprobes): while @ue lives, one
 * of its class, fields and name; call gets the type's number.
 */
static int user_event_register_type(struct user_event *ue)
{
	struct trace_event_call *fmt = &ue->fmt;

	fmt->class = &ue->class;
	fmt->name = ue->name;
	fmt->print_fmt = ue->call.print_fmt;
	fmt->event.funcs = &user_event_funcs;
	fmt->data = ue;
	/*
	 * The type ids (TRACE_EVENT_TYPE_MAX) are one pool for every trace
	 * event, dynamic ones of all kinds: a group's limit does not hold one.
	 * Retired events hold theirs: see user_event_find_or_create().
	 */
	if (!register_trace_event(&fmt->event))
		return -ENOSPC;
	ue->call.event.type = fmt->event.type;
	return 0;
}

static int user_event_add_trace_call(struct user_event *ue)
{
	struct trace_event_call *call = &ue->call;
	int ret;

	INIT_LIST_HEAD(&ue->class.fields);
	ue->class.system = ue->multi ? ue->group->system_multi :
				       ue->group->system;
	ue->class.reg = user_event_consumer_reg;
	ue->class.fields_array = user_event_fields_alloc(ue);
	if (!ue->class.fields_array)
		return -ENOMEM;

	call->class = &ue->class;
	/* for tp_printk (output_printk()); see user_event_remove_call() */
	call->event.funcs = &user_event_funcs;
	/* counts what holds it (trace_event_dyn_busy()), as of dynamic events */
	call->flags = TRACE_EVENT_FL_TRACEPOINT | TRACE_EVENT_FL_DYNAMIC;
	call->tp = &ue->tp;
	call->data = ue;

	ret = user_event_set_print_fmt(ue);
	if (ret)
		return ret;
	ret = user_event_register_type(ue);
	if (ret)
		return ret;
	ret = trace_add_event_call(call);
	if (ret) {
		unregister_trace_event(&ue->fmt.event);
		return ret;
	}

	dyn_event_init(&ue->devent, &user_event_ops);
	return dyn_event_add(&ue->devent, call);
}

/* A status-page byte for @ue, set to its state */
static int user_event_add_slot(struct user_event *ue)
{
	u32 index;
	int ret;

	ret = xa_alloc(&ue->group->by_index, &index, ue,
		       XA_LIMIT(1, PAGE_SIZE - 1), GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret == -EBUSY ? -EMFILE : ret;
	ue->index = index;
	WRITE_ONCE(ue->group->status_bytes[index], user_event_status(ue));
	return 0;
}

/**
 * user_event_adopt() - Register an existing event again
 * @ue: the event
 * @how: how it is registered (UE_REG_*)
 *
 * Through the status page or dynamic_events it gets a status byte and
 * stays until deleted, as if it had been created there; an enable-bit
 * registration changes nothing but with USER_EVENT_REG_PERSIST.
 *
 * Context: event_mutex held.
 * Return: 0, or the errno of taking a status byte (-EMFILE when none is
 * free).
 */
int user_event_adopt(struct user_event *ue, unsigned int how)
{
	if ((how & UE_REG_SLOT) && !ue->index) {
		int ret = user_event_add_slot(ue);

		if (ret)
			return ret;
	}
	if (how & (UE_REG_KEEP | UE_REG_PERSIST))
		ue->auto_del = false;
	ue->persist |= how & UE_REG_PERSIST;
	return 0;
}

static struct user_event *user_event_create_spec(struct user_event_group *g,
						 struct user_spec *d,
						 unsigned int how)
{
	struct user_event *ue;
	int ret;

	if (user_events_full(g))
		return ERR_PTR(-EMFILE);

	ue = user_event_alloc(g, d, how);
	if (!ue)
		return ERR_PTR(-ENOMEM);

	ret = how & UE_REG_SLOT ? user_event_add_slot(ue) : 0;
	if (ret) {
		user_event_free(ue);
		return ERR_PTR(ret);
	}

	ret = user_event_add_trace_call(ue);
	if (ret) {
		if (ue->index)
			xa_erase(&g->by_index, ue->index);
		user_event_free(ue);
		return ERR_PTR(ret);
	}

	hash_add(user_event_table, &ue->node, user_name_key(g, ue->name));
	return ue;
}

/*
 * Look at the buffers for retired events that may go, letting go of
 * event_mutex meanwhile (see user_retired_reclaim()): @g stays, held
 */
static void user_retired_reclaim_unlocked(struct user_event_group *g,
					  bool all)
{
	lockdep_assert_held(&event_mutex);
	user_group_get(g);
	mutex_unlock(&event_mutex);
	user_retired_reclaim(g, all);
	mutex_lock(&event_mutex);
	user_group_put(g);
}

/**
 * user_event_find_or_create() - Find an event of a group, or create it
 * @g: the group
 * @cmd: the command as the user gave it
 * @skip: bytes of @cmd before the description
 * @how: a UE_REG_* mask
 * @created: set to true when the event is made here, to false when making
 *           it failed; left as it was otherwise
 *
 * Create the event of @g that @cmd describes, or find it if it exists with
 * its fields. Retired events count against the limits and hold their type
 * ids: for want of room, or when the type ids ran out, it looks for those
 * no buffer holds records of any more, which go at once (those of @g only,
 * unless kernel.user_events_max is reached or the type ids ran out), then
 * starts over: at most once for each of the two. It lets go of event_mutex
 * meanwhile: the caller must hold nothing that others must not see half
 * made.
 *
 * Context: event_mutex held; let go of and taken again while it looks at
 * the buffers.
 * Return: the event, not held; or an ERR_PTR() of -EADDRINUSE (it exists
 * with other fields), or of the errno of parsing @cmd, or of adopting or
 * making the event.
 */
struct user_event *user_event_find_or_create(struct user_event_group *g,
					     const char *cmd,
					     int skip, unsigned int how,
					     bool *created)
{
	struct user_spec d;
	struct user_event *ue;
	/* 1: looked for @g's retired events, 2: for every group's */
	int looked = 0, ret;
	bool all;

	lockdep_assert_held(&event_mutex);
again:
	ret = user_event_parse(cmd, skip, false, &d);
	if (ret)
		return ERR_PTR(ret);

	/* an event that exited processes held is gone, as after their exit */
	user_event_mm_drop_released(true);
	if (how & UE_REG_MULTI)
		ue = user_event_find_multi(g, &d);
	else
		ue = user_event_find(g, d.name);

	if (ue) {
		ret = strcmp(ue->args, d.args) ? -EADDRINUSE : 0;
		if (ret)
			user_event_parse_err(&(struct user_parse){ .cmd = cmd },
					     USER_ERR_OTHER_FIELDS, NULL);
		user_event_spec_free(&d);
		if (!ret && !(how & UE_REG_ADOPT_LATER))
			ret = user_event_adopt(ue, how);
		return ret ? ERR_PTR(ret) : ue;
	}

	/* only the group's own retired events make room in it */
	all = user_events_count >= READ_ONCE(user_events_max);
	if (!looked && user_events_full(g) &&
	    (all ? !list_empty(&user_retired_events) : g->nr_retired)) {
		user_event_spec_free(&d);
		user_retired_reclaim_unlocked(g, all);
		looked = all ? 2 : 1;
		goto again;
	}
	ue = user_event_create_spec(g, &d, how);
	user_event_spec_free(&d);
	/* the type ids: every group's retired events hold theirs */
	if (looked < 2 && PTR_ERR_OR_ZERO(ue) == -ENOSPC &&
	    !list_empty(&user_retired_events)) {
		user_retired_reclaim_unlocked(g, true);
		looked = 2;
		goto again;
	}
	if (PTR_ERR_OR_ZERO(ue) == -ENOSPC)
		user_event_parse_err(&(struct user_parse){ .cmd = cmd }, USER_ERR_NO_TYPE_ID,
				     NULL);
	*created = !IS_ERR(ue);
	return ue;
}

/* dynamic_events --------------------------------------------------------- */

/*
 * Past "u:", "SYSTEM/" names the event's system as dynamic_events shows it:
 * user_events, or user_events_GROUP for a tenant group's event. @g is set
 * to that group (NULL if there is none) and the length of "SYSTEM/" is
 * returned; 0 without one, @g left as it was; -EINVAL for any other system,
 * a multi-format one too: those events are made by DIAG_IOCSREG alone.
 */
static int user_system_of_command(const char *cmd, struct user_event_group **g)
{
	size_t len = strcspn(cmd, "/: \t");

	lockdep_assert_held(&event_mutex);
	if (cmd[len] != '/')
		return 0;
	if (len == strlen(USER_EVENTS_SYSTEM) &&
	    !strncmp(cmd, USER_EVENTS_SYSTEM, len)) {
		*g = &user_event_init_group;
		return len + 1;
	}
	if (!user_group_of_system(cmd, len, g))
		return -EINVAL;
	return len + 1;
}

static int user_event_create(const char *raw_command)
{
	struct user_event_group *g = &user_event_init_group;
	int skip = strlen(USER_EVENTS_PREFIX), ret;
	struct user_event *ue;
	bool created = false;

	if (!str_has_prefix(raw_command, USER_EVENTS_PREFIX))
		return -ECANCELED;
	/* the feature is off: its set-up failed at boot */
	if (!user_event_init_group.status_bytes)
		return -ENODEV;
	guard(mutex)(&event_mutex);
	/* "u:SYSTEM/name fields", as dynamic_events shows events */
	ret = user_system_of_command(raw_command + skip, &g);
	if (ret < 0) {
		user_event_parse_err(&(struct user_parse){ .cmd = raw_command, .skip = skip },
				     USER_ERR_BAD_SYSTEM, NULL);
		return ret;
	}
	skip += ret;
	if (!g)
		return -ENOENT;
	ue = user_event_find_or_create(g, raw_command, skip,
				       UE_REG_SLOT | UE_REG_KEEP, &created);
	return PTR_ERR_OR_ZERO(ue);
}

/*
 * The default group's events as "u:name[:flags] fields", the form Linux 6.4
 * and later show (an ABI); a tenant group's and multi-format events with
 * their system, "u:SYSTEM/name[:flags] fields", as probes show theirs.
 * Written back after "!", a line deletes its event; one without a system
 * also every other type's event of that name whose match takes it
 * (dyn_event_release() asks each type), as "-:name" does for every type:
 * "!u:user_events/name" or "-:user_events/name" deletes this one alone.
 */
static int user_event_show(struct seq_file *m, struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);

	seq_puts(m, USER_EVENTS_PREFIX);
	if (ue->group != &user_event_init_group || ue->multi)
		seq_printf(m, "%s/", ue->class.system);
	seq_puts(m, ue->name);
	if (ue->flags)
		seq_printf(m, ":%s", ue->flags);
	if (ue->args[0])
		seq_printf(m, " %s", ue->args);
	seq_putc(m, '\n');
	return 0;
}

static bool user_event_is_busy(struct dyn_event *ev)
{
	/* dynamic_events walks the events: none goes meanwhile (no reaping) */
	user_event_mm_drop_released(false);
	return user_event_busy(to_user_event(ev));
}

static int user_event_dyn_free(struct dyn_event *ev)
{
	return user_event_delete(to_user_event(ev));
}

/*
 * Do the fields of "!u:name fields" (split in @argv) match @ue's? They are
 * parsed after a name of one letter: a multi-format event's "name.<id>"
 * is no name a description may have
 */
static bool user_event_args_match(struct user_event *ue, int argc,
				  const char **argv)
{
	struct user_spec d;
	char *cmd;
	size_t len = 3;
	bool match;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cmd = kmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!cmd)
		return false;
	strscpy(cmd, "e", len);
	for (i = 0; i < argc; i++) {
		strlcat(cmd, " ", len);
		strlcat(cmd, argv[i], len);
	}
	match = false;
	if (!user_event_parse(cmd, 0, true, &d)) {
		match = !strcmp(d.args, ue->args);
		user_event_spec_free(&d);
	}
	kfree(cmd);
	return match;
}

/*
 * "-:SYSTEM/name" and "!u:SYSTEM/name[:flags] [fields]" (a line of
 * dynamic_events) reach the event of that system alone; a tenant group's
 * name is no system of ours, another type's event may have it. Without a
 * system, as in "-:name", an event of user_events, and every other type's
 * of that name too: dyn_event_release() asks each type. Flags and fields,
 * when given, must be the event's.
 */
static bool user_event_match(const char *system, const char *event,
			     int argc, const char **argv, struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);
	size_t len = strcspn(event, ":");

	if (!system ? ue->group != &user_event_init_group :
	    strcmp(system, ue->class.system))
		return false;
	if (strlen(ue->name) != len || strncmp(event, ue->name, len))
		return false;
	if (event[len] && strcmp(event + len + 1, ue->flags ?: ""))
		return false;
	return !argc || user_event_args_match(ue, argc, argv);
}

/**
 * user_event_dyn_register() - Register the u: command of dynamic_events
 *
 * Context: boot, from the initcall.
 * Return: 0, or the errno of dyn_event_register().
 */
int __init user_event_dyn_register(void)
{
	struct dyn_event_operations *ops = &user_event_ops;

	ops->create = user_event_create;
	ops->show = user_event_show;
	ops->is_busy = user_event_is_busy;
	ops->free = user_event_dyn_free;
	ops->match = user_event_match;
	return dyn_event_register(ops);
}
