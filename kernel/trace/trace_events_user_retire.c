// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: retired events. An event deleted while an ftrace buffer
 * may hold its records keeps its type, so that its records still print,
 * until no buffer holds them; a worker looks at the buffers.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include "trace_events_user.h"

/* Retired events --------------------------------------------------------- */

/*
 * A deletion asked for (user_event_delete()) of an event whose records an
 * ftrace buffer may hold does not clear those buffers, as the removal of a
 * trace event does (trace_remove_event_call()): the event is retired. Its
 * name and status byte are free at once, and it is listed nowhere; its
 * trace event (call) goes, its type stays registered on fmt, so that trace
 * and trace_pipe print its records with its fields, and fmt is listed in
 * tracefs as a format only (TRACE_EVENT_FL_IGNORE_ENABLE, no reg: no
 * enable, filter, trigger or id file, nothing attaches to it), as
 * events/<system>_retired/<name>_<type>/format, for trace-cmd and the like.
 *
 * It goes, and its type with it, once no buffer holds records of it: for
 * each trace array it was enabled in (those whose buffers the core would
 * have cleared), the array is gone, or none of the unread records of its
 * buffer and of its snapshot buffer, on any possible CPU, online or not,
 * is of its type (no record of it can be written since: no fd holds it).
 * The records are looked at, with the ring buffer's iterator, as reading
 * trace does, not inferred: a CPU's part of a buffer may hold records of
 * two trace clocks (a clock change resets the online CPUs only), a
 * consuming read leaves older records on its reader page than the ones
 * overwrites take, and a snapshot swaps its parts with the buffer's, all
 * CPUs' or one's, which time stamps and counters each get wrong somewhere.
 * A look that a writer or a reader disturbed (a record of the part was
 * overwritten or read meanwhile, the iterator started over, or it read
 * past as many records as the part held twice over) keeps the event until
 * the next: a part overwritten without pause keeps it until it is quieter,
 * cleared or removed. So does a snapshot allocated, which a latency
 * tracer or a snapshot trigger may swap at any time, under no lock a look
 * can hold: until it is freed. A worker looks every USER_RETIRED_CHECK
 * while there are retired events, at the buffers only they may still be
 * in, and less and less often (up to USER_RETIRED_CHECK_MAX) while its
 * looks are disturbed.
 *
 * A look holds trace_types_lock, under which buffers are resized, trace
 * arrays removed and snapshots allocated, so that the buffers stay as
 * they are; not event_mutex: tracers that enable or disable events do
 * not wait for it. One look runs at a time (user_retired_look_mutex). A
 * registration that needs the room looks without event_mutex too, then
 * starts over (user_event_find_or_create()).
 *
 * A reader may still want the format of records it took out of a buffer
 * (trace-cmd extract reads the data, clears the buffer, then reads every
 * format): the event goes user_retired_grace seconds (the
 * kernel.user_events_retired_grace sysctl, read at each check) after its
 * buffers were found free of its records, unless its group needs the room
 * (a registration that would fail for want of it: see
 * user_event_find_or_create()).
 *
 * A retired event counts against user_events_max and its group's limit
 * until it goes: what a group's deletions leave in buffers is bounded by
 * its limit, and charged to the deleter's memory cgroup.
 */
#define USER_RETIRED_CHECK	HZ
#define USER_RETIRED_CHECK_MAX	(8 * HZ)

/* One look at the buffers at a time */
static DEFINE_MUTEX(user_retired_look_mutex);
/* The worker's next check; event_mutex */
static unsigned long user_retired_delay = USER_RETIRED_CHECK;
/* Events retired so far: a look decides on those retired before it */
static u64 user_retired_seq;
/* Looks started so far; user_retired_look_mutex */
static u64 user_retired_looks;

/* Retired events: deleted, their records still in a buffer; event_mutex */
LIST_HEAD(user_retired_events);

/* kernel.user_events_retired_grace, in seconds: at most a day */
unsigned int user_retired_grace = 60;

#define USER_RETIRED_SUFFIX	"_retired"

/*
 * One trace array whose buffer may hold records of a retired event: known
 * by its address, never dereferenced after the retirement (it may be
 * removed since: then it is not in ftrace_trace_arrays; one made later at
 * that address, which holds no such record, is checked in its place, which
 * can only delay). NULL once the buffer holds none of them.
 */
struct user_retired_buf {
	struct trace_array	*tr;
};

struct user_retired {
	struct list_head	link;		/* in user_retired_events */
	struct user_event	*ue;
	u64			seq;		/* user_retired_seq when retired */
	/* when every buffer was first found free of its records; 0: not yet */
	unsigned long		clean_at;
	/* fmt's class: <system>_retired, no reg, fields of its own */
	struct trace_event_class class;
	char			*system;
	char			*name;		/* <name>_<type> */
	int			nr_bufs;
	struct user_retired_buf	bufs[] __counted_by(nr_bufs);
};

static void user_retired_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(user_retired_work, user_retired_work_fn);

/* Was call of @ue ever enabled in @tr? Then its buffer may hold records. */
static struct trace_event_file *user_event_file_in(struct user_event *ue,
						   struct trace_array *tr)
{
	struct trace_event_file *file;

	lockdep_assert_held(&trace_types_lock);
	list_for_each_entry(file, &tr->events, list)
		if (file->event_call == &ue->call)
			return test_bit(EVENT_FILE_FL_WAS_ENABLED_BIT,
					&file->flags) ? file : NULL;
	return NULL;
}

/* How many trace arrays may hold records of @ue */
static int user_event_nr_buffers(struct user_event *ue)
{
	struct trace_array *tr;
	int n = 0;

	lockdep_assert_held(&event_mutex);
	if (!READ_ONCE(ue->in_buffer))
		return 0;
	guard(mutex)(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		n += !!user_event_file_in(ue, tr);
	return n;
}

static void user_retired_free(struct user_retired *r)
{
	kfree(r->system);
	kfree(r->name);
	kfree(r);
}

/* What retiring @ue, whose records @nr trace arrays may hold, takes */
static struct user_retired *user_retired_alloc(struct user_event *ue, int nr)
{
	struct user_retired *r;

	r = kzalloc(struct_size(r, bufs, nr), GFP_KERNEL_ACCOUNT);
	if (!r)
		return NULL;

	r->nr_bufs = nr;
	r->ue = ue;
	r->system = kasprintf(GFP_KERNEL_ACCOUNT, "%s" USER_RETIRED_SUFFIX,
			      ue->class.system);
	r->name = kasprintf(GFP_KERNEL_ACCOUNT, "%s_%d", ue->name,
			    ue->fmt.event.type);
	if (!r->system || !r->name) {
		user_retired_free(r);
		return NULL;
	}

	INIT_LIST_HEAD(&r->class.fields);
	r->class.system = r->system;
	r->class.fields_array = ue->class.fields_array;
	return r;
}

/*
 * Make fmt the format of retired @ue, or (@undo) the live event's again:
 * @r's class, with the fields call had (call goes), and @r's name. Under
 * trace_event_sem, which what prints through fmt holds.
 */
static void user_retired_set_format(struct user_event *ue,
				    struct user_retired *r, bool undo)
{
	struct trace_event_call *fmt = &ue->fmt;

	guard(rwsem_write)(&trace_event_sem);
	if (!undo) {
		list_splice_init(&ue->class.fields, &r->class.fields);
		fmt->class = &r->class;
		fmt->name = r->name;
		fmt->flags = TRACE_EVENT_FL_IGNORE_ENABLE;
	} else {
		list_splice_init(&r->class.fields, &ue->class.fields);
		fmt->class = &ue->class;
		fmt->name = ue->name;
		fmt->flags = 0;
	}
}

/*
 * Note in @r each trace array whose buffer may hold records of @ue. The
 * marks of call are cleared: its removal clears no buffer.
 */
static void user_retired_note_buffers(struct user_event *ue, struct user_retired *r)
{
	struct trace_array *tr;
	int i = 0;

	lockdep_assert_held(&event_mutex);
	guard(mutex)(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list) {
		/* trace arrays come and go under event_mutex: nr_bufs is right */
		if (!user_event_file_in(ue, tr) || WARN_ON_ONCE(i == r->nr_bufs))
			continue;
		r->bufs[i++].tr = tr;
		user_event_forget_enabled_in(ue, tr);
	}
}

/* Retire @ue, which is not busy, and whose records @nr trace arrays may hold */
static int user_event_retire(struct user_event *ue, int nr)
{
	struct user_retired *r;
	int ret;

	lockdep_assert_held(&event_mutex);
	r = user_retired_alloc(ue, nr);
	if (!r)
		return -ENOMEM;

	user_retired_set_format(ue, r, false);
	ret = trace_add_event_call(&ue->fmt);
	if (ret) {
		user_retired_set_format(ue, r, true);
		user_retired_free(r);
		return ret;
	}

	ue->retired = r;
	user_retired_note_buffers(ue, r);

	/* cannot fail: nothing is attached, and event_mutex is held */
	ret = user_event_remove_call(ue);
	if (WARN_ON_ONCE(ret))
		return ret;

	user_event_unlist(ue);
	ue->group->nr_retired++;
	r->seq = ++user_retired_seq;
	list_add_tail(&r->link, &user_retired_events);
	/* unless pending: retirements in a row must not keep putting it off */
	user_retired_delay = USER_RETIRED_CHECK;
	schedule_delayed_work(&user_retired_work, USER_RETIRED_CHECK);
	return 0;
}

/*
 * One look at a trace array's buffers: the types of the records seen, and
 * of those the retired events ask about (@wanted), how many are not seen
 * yet: the look stops when none is left, as every one of them is held.
 */
struct user_retired_look {
	unsigned long		*types;
	unsigned long		*wanted;
	unsigned long		left;
};

/*
 * Records of the part of @buf of @cpu let go of (overwritten or read)
 * since it was last reset: the iterator does not see them go
 */
static unsigned long user_retired_gone(struct trace_buffer *buf, int cpu)
{
	return ring_buffer_overrun_cpu(buf, cpu) +
	       ring_buffer_read_events_cpu(buf, cpu);
}

/*
 * Set in @types the type of each unread record of the part of @buf of
 * @cpu (online or not). False when a writer or a reader disturbed the
 * look (see the section's comment): then the part may hold anything. A
 * writer that overwrites the page the iterator is on sends it back to
 * that page's start, and the iterator may then find the buffer's end
 * there, the pages after it never read; so any record let go of during
 * the look disturbs it.
 */
static bool user_retired_scan_cpu(struct trace_buffer *buf, int cpu,
				  struct user_retired_look *look)
{
	unsigned long entries = ring_buffer_entries_cpu(buf, cpu);
	unsigned long gone = user_retired_gone(buf, cpu);
	struct ring_buffer_iter *iter;
	struct ring_buffer_event *event;
	struct trace_entry *ent;
	unsigned long budget;
	bool done = false;

	/* read apart from each other: a count that wrapped is disturbed */
	if (!entries)
		return true;
	if (entries > LONG_MAX / 4)
		return false;
	budget = 2 * entries + 64;
	iter = ring_buffer_read_start(buf, cpu, GFP_KERNEL);
	if (!iter)
		return false;
	while (budget--) {
		event = ring_buffer_iter_peek(iter, NULL);
		if (!event) {
			done = ring_buffer_iter_empty(iter);
			if (done)
				break;
			/*
			 * It gives up after a few steps without a record
			 * (pages, time extends): on from where it stopped
			 */
			continue;
		}
		ent = ring_buffer_event_data(event);
		if (!__test_and_set_bit(ent->type, look->types) &&
		    test_bit(ent->type, look->wanted) && !--look->left)
			break;
		ring_buffer_iter_advance(iter);
		if (!(budget & 1023))
			cond_resched();
	}
	done = done && !ring_buffer_iter_dropped(iter);
	ring_buffer_read_finish(iter);
	/* every type asked for was seen: what else it holds does not matter */
	return !look->left ||
	       (done && user_retired_gone(buf, cpu) == gone);
}

/* user_retired_scan_cpu() of every possible CPU of @buf (may be NULL) */
static bool user_retired_scan(struct trace_buffer *buf,
			      struct user_retired_look *look)
{
	int cpu;

	if (!buf)
		return true;
	for_each_possible_cpu(cpu) {
		if (!look->left)
			break;
		if (!user_retired_scan_cpu(buf, cpu, look))
			return false;
	}
	return true;
}

/*
 * One check: the trace arrays, and for each the types that the retired
 * events ask about (taken under event_mutex), then the types of the
 * records its buffers hold (looked at under trace_types_lock alone)
 */
struct user_retired_view {
	int			nr;
	struct trace_array	**tr;
	/* per array: NULL if no retired event asks about it */
	unsigned long		**wanted;
	/* per array: NULL if not looked at, then its types, or all set */
	unsigned long		**types;
};

static void user_retired_view_free(struct user_retired_view *v)
{
	int i;

	for (i = 0; v->types && i < v->nr; i++)
		bitmap_free(v->types[i]);
	for (i = 0; v->wanted && i < v->nr; i++)
		bitmap_free(v->wanted[i]);
	kfree(v->types);
	kfree(v->wanted);
	kfree(v->tr);
}

/* Index of @tr in @v, or v->nr if it is not there (it was removed) */
static int user_retired_view_find(struct user_retired_view *v,
				  struct trace_array *tr)
{
	int i;

	for (i = 0; i < v->nr; i++)
		if (v->tr[i] == tr)
			break;
	return i;
}

/* The trace arrays, and the types each retired event asks about */
static int user_retired_view(struct user_retired_view *v)
{
	struct trace_array *tr;
	struct user_retired *r;
	int i = 0, j, k;

	lockdep_assert_held(&event_mutex);
	lockdep_assert_held(&trace_types_lock);
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		v->nr++;
	v->tr = kcalloc(v->nr, sizeof(*v->tr), GFP_KERNEL);
	v->wanted = kcalloc(v->nr, sizeof(*v->wanted), GFP_KERNEL);
	v->types = kcalloc(v->nr, sizeof(*v->types), GFP_KERNEL);
	if (!v->tr || !v->wanted || !v->types)
		return -ENOMEM;
	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		v->tr[i++] = tr;
	list_for_each_entry(r, &user_retired_events, link) {
		for (j = 0; j < r->nr_bufs; j++) {
			k = user_retired_view_find(v, r->bufs[j].tr);
			if (!r->bufs[j].tr || k == v->nr)
				continue;
			if (!v->wanted[k])
				v->wanted[k] = bitmap_zalloc(TRACE_EVENT_TYPE_MAX + 1,
							     GFP_KERNEL);
			if (!v->wanted[k])
				return -ENOMEM;
			__set_bit(r->ue->fmt.event.type, v->wanted[k]);
		}
	}
	return 0;
}

/*
 * Set the types of the records trace array @i of @v holds, unread, in its
 * buffer and its snapshot buffer: every type when it cannot tell (a
 * snapshot allocated, a look disturbed), which it returns false for.
 * Without memory it is left unknown, which holds every retired event.
 */
static bool user_retired_look(struct user_retired_view *v, int i)
{
	struct trace_array *tr = v->tr[i];
	struct user_retired_look look = { .wanted = v->wanted[i] };
	bool known;

	lockdep_assert_held(&trace_types_lock);
	if (!look.wanted)
		return true;
	look.types = bitmap_zalloc(TRACE_EVENT_TYPE_MAX + 1, GFP_KERNEL);
	if (!look.types)
		return false;
	look.left = bitmap_weight(look.wanted, TRACE_EVENT_TYPE_MAX + 1);
	known = user_retired_scan(tr->array_buffer.buffer, &look);
#ifdef CONFIG_TRACER_MAX_TRACE
	known = known && (!look.left || (!tr->allocated_snapshot &&
		user_retired_scan(tr->max_buffer.buffer, &look)));
#endif
	if (!known)
		bitmap_fill(look.types, TRACE_EVENT_TYPE_MAX + 1);
	v->types[i] = look.types;
	return known;
}

/*
 * Does buffer @b of @r still (maybe) hold records of it? Without a view
 * (@v NULL), as far as the looks before knew: yes.
 */
static bool user_retired_buf_may_hold(struct user_retired *r,
				      struct user_retired_buf *b,
				      struct user_retired_view *v)
{
	int i;

	if (!v)
		return true;
	i = user_retired_view_find(v, b->tr);

	/* the trace array was removed, its buffer with it */
	if (i == v->nr)
		return false;
	return !v->types[i] || test_bit(r->ue->fmt.event.type, v->types[i]);
}

/*
 * May @r's event go? Every buffer is free of its records (it lets go of
 * those that are), since user_retired_grace seconds unless @hurry.
 */
static bool user_retired_settle(struct user_retired *r,
				struct user_retired_view *v, bool hurry)
{
	bool done = true;
	int i;

	for (i = 0; i < r->nr_bufs; i++) {
		if (!r->bufs[i].tr)
			continue;
		if (user_retired_buf_may_hold(r, &r->bufs[i], v))
			done = false;
		else
			r->bufs[i].tr = NULL;
	}
	if (!done || hurry)
		return done;
	/* 0 is "not yet" */
	if (!r->clean_at)
		r->clean_at = jiffies ?: 1;
	return time_after_eq(jiffies, r->clean_at +
			     (unsigned long)READ_ONCE(user_retired_grace) * HZ);
}

/* No buffer holds records of @r's event: it goes, and its type */
static void user_retired_remove(struct user_retired *r)
{
	struct user_event *ue = r->ue;

	/* fmt cannot be enabled: no buffer is cleared; its type is freed */
	if (WARN_ON_ONCE(trace_remove_event_call(&ue->fmt))) {
		list_move_tail(&r->link, &user_retired_events);
		return;
	}
	list_del(&r->link);
	ue->group->nr_retired--;
	user_retired_free(r);
	user_event_free(ue);
}

/*
 * Remove the retired events (of those retired by @seq) whose buffers are
 * free of their records, as @v (or, NULL, the looks before) found them:
 * past their grace, or at once those of group @room_for or (@all) of
 * every group
 */
static void user_retired_apply(struct user_retired_view *v, u64 seq,
			       struct user_event_group *room_for, bool all)
{
	struct user_retired *r, *tmp;
	LIST_HEAD(done);

	lockdep_assert_held(&event_mutex);
	/* those retired since asked about nothing: not looked for */
	list_for_each_entry_safe(r, tmp, &user_retired_events, link)
		if (r->seq <= seq &&
		    user_retired_settle(r, v, all || r->ue->group == room_for))
			list_move_tail(&r->link, &done);
	list_for_each_entry_safe(r, tmp, &done, link)
		user_retired_remove(r);
}

/**
 * user_retired_reclaim() - Remove the retired events no buffer holds records of
 * @room_for: the group that needs the room, or NULL
 * @all: every group needs it
 *
 * Look at the buffers, then remove the retired events that no buffer
 * holds records of any more: past their grace, or at once those of group
 * @room_for, which needs the room, or of every group (@all:
 * kernel.user_events_max is reached, or the trace event type ids ran
 * out). Called without event_mutex (see the section's comment). For a
 * registration (@room_for), a look that started after it came and ended
 * while it waited stands for its own.
 *
 * Context: event_mutex not held; takes it, and trace_types_lock.
 * Return: false when a look was disturbed, or memory lacked; else true.
 */
bool user_retired_reclaim(struct user_event_group *room_for, bool all)
{
	u64 looks = READ_ONCE(user_retired_looks), seq;
	struct user_retired_view v = { };
	bool known = true;
	int i, ret;

	lockdep_assert_not_held(&event_mutex);
	guard(mutex)(&user_retired_look_mutex);
	if (room_for && user_retired_looks != looks) {
		guard(mutex)(&event_mutex);
		user_retired_apply(NULL, user_retired_seq, room_for, all);
		return true;
	}
	user_retired_looks++;
	mutex_lock(&event_mutex);
	mutex_lock(&trace_types_lock);
	seq = user_retired_seq;
	ret = user_retired_view(&v);
	mutex_unlock(&event_mutex);
	for (i = 0; !ret && i < v.nr; i++)
		known &= user_retired_look(&v, i);
	mutex_unlock(&trace_types_lock);
	if (!ret) {
		guard(mutex)(&event_mutex);
		user_retired_apply(&v, seq, room_for, all);
	}
	user_retired_view_free(&v);
	return !ret && known;
}

static void user_retired_work_fn(struct work_struct *work)
{
	bool known = user_retired_reclaim(NULL, false);

	guard(mutex)(&event_mutex);
	/* looks that writers or readers disturb: less and less often */
	if (known)
		user_retired_delay = USER_RETIRED_CHECK;
	else
		user_retired_delay = min(2 * user_retired_delay,
					 USER_RETIRED_CHECK_MAX);
	if (!list_empty(&user_retired_events))
		schedule_delayed_work(&user_retired_work, user_retired_delay);
}

/**
 * user_event_delete() - A deletion asked for (DIAG_IOCSDEL, dynamic_events)
 * @ue: the event
 *
 * @ue goes now if no buffer may hold a record of it, else it is retired.
 * No buffer is cleared.
 *
 * Context: event_mutex held.
 * Return: 0; -EBUSY while it is busy, or the errno of its retirement or of
 * its deletion.
 */
int user_event_delete(struct user_event *ue)
{
	int nr;

	/* dynamic_events may be walking the events: none is reaped */
	user_event_mm_drop_released(false);
	if (user_event_busy(ue))
		return -EBUSY;
	nr = user_event_nr_buffers(ue);
	if (nr)
		return user_event_retire(ue, nr);
	user_event_forget_enabled(ue);
	return user_event_destroy(ue);
}
