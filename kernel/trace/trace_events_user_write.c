// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the write path. A write() or writev() of [write index]
 * [payload] to user_events_data, and a batch of records to a batch fd
 * (DIAG_IOCSBATCH), recorded into every attached consumer: ftrace
 * buffers, perf and eBPF. Everything a write calls is here or inline in
 * trace_events_user.h.
 */

#define pr_fmt(fmt) "user_events: " fmt

#include "trace_events_user.h"

/* Writing ---------------------------------------------------------------- */

/* Are the __data_loc/__rel_loc fields of a @size-byte record sound? */
static bool user_event_locs_valid(struct user_event *ue, const u8 *rec,
				  u32 size)
{
	int i;

	for (i = 0; i < ue->nr_fields; i++)
		if (ue->fields[i].kind >= UF_LOC_STR &&
		    !user_loc_valid(&ue->fields[i], rec, size))
			return false;
	return true;
}

/* user_event_copy() of what is not user memory (io_uring fixed buffers: bvecs) */
static noinline bool user_event_copy_iter(void *dst,
					  const struct iov_iter *from,
					  size_t len)
{
	struct iov_iter rest = *from;

	iov_iter_advance(&rest, USER_EVENT_INDEX_SIZE);
	return copy_from_iter(dst, len, &rest) == len;
}

/*
 * Where the payload of a writev() starts, past the index: in segment *@iov
 * at offset *@off (the next segment when the index ends one). Returns the
 * segments left from there.
 */
static unsigned long user_event_payload_iov(const struct iov_iter *from,
					    const struct iovec **iov,
					    size_t *off)
{
	size_t skip = from->iov_offset + USER_EVENT_INDEX_SIZE;
	const struct iovec *v = iter_iov(from);
	unsigned long nr = from->nr_segs;

	for (; nr && skip >= v->iov_len; v++, nr--)
		skip -= v->iov_len;
	*iov = v;
	*off = skip;
	return nr;
}

#ifdef CONFIG_PERF_EVENTS
/*
 * user_event_payload_iov() of the segments that hold the @len payload bytes
 * only: a batch's record is followed by the next one in the same iovecs
 */
static unsigned long user_event_payload_segs(const struct iov_iter *from,
					     size_t len,
					     const struct iovec **iov,
					     size_t *off)
{
	unsigned long nr = user_event_payload_iov(from, iov, off);
	size_t skip = *off;
	unsigned long n;

	for (n = 0; n < nr && len; n++, skip = 0)
		len -= min((*iov)[n].iov_len - skip, len);
	return n;
}
#endif

/*
 * user_event_copy() of a payload that is not one piece of user memory: user
 * iovecs segment by segment, at a fraction of the cost of copy_from_iter()
 * on a copy of the iterator; what is not user memory by the latter
 */
static noinline bool user_event_copy_iov(void *dst, const struct iov_iter *from,
					 size_t len)
{
	const struct iovec *iov;
	unsigned long nr;
	void __user *src;
	size_t off, n;

	if (unlikely(!iter_is_iovec(from)))
		return user_event_copy_iter(dst, from, len);
	nr = user_event_payload_iov(from, &iov, &off);
	for (; len && nr; iov++, nr--, off = 0) {
		n = min(iov->iov_len - off, len);
		src = iov->iov_base + off;
		if (__copy_from_user_inatomic(dst, src, n))
			return false;
		dst += n;
		len -= n;
	}
	return !len;
}

/*
 * Copy the @len payload bytes of a write, which follow its index in @from,
 * to @dst. @from is left as it is: every consumer copies from it. A write()
 * is one user buffer, the common writev() the index and the payload in one
 * segment each: for both the writer found the payload, @src (see
 * user_index_from_iter()), copied here; other shapes by
 * user_event_copy_iov(). Page faults are disabled (the caller's doing):
 * returns false on a missing page.
 */
static __always_inline bool user_event_copy(void *dst,
					    const struct iov_iter *from,
					    const void __user *src, size_t len)
{
	if (likely(src))
		return !__copy_from_user_inatomic(dst, src, len);
	return user_event_copy_iov(dst, from, len);
}

/*
 * Copy the payload into the record @entry reserved for it and check its
 * __data_loc/__rel_loc fields: false when the record is to be dropped, @w
 * telling why (a missing page: the write is retried; bad locs: EFAULT).
 * @at_src: the caller knows the payload is at @w->src (a batch's record).
 */
static __always_inline bool user_event_fill(struct user_event *ue,
					    struct trace_entry *entry,
					    const struct iov_iter *from,
					    size_t len,
					    struct user_event_write *w,
					    bool at_src)
{
	if (unlikely(at_src ? __copy_from_user_inatomic(entry + 1, w->src, len) :
			      !user_event_copy(entry + 1, from, w->src, len))) {
		w->stop = USER_EVENT_FAULTED;
		return false;
	}
	if (ue->nr_locs &&
	    !user_event_locs_valid(ue, (u8 *)entry, sizeof(*entry) + len)) {
		w->stop = -EFAULT;
		return false;
	}
	return true;
}

/*
 * The flags of a trace_event_file that make its records go through
 * trace_event_buffer_reserve() and trace_event_buffer_commit(): a filter,
 * triggers (hist included), soft disable, pid filtering.
 */
#define USER_FTRACE_GENERIC	(EVENT_FILE_FL_FILTERED |		\
				 EVENT_FILE_FL_SOFT_DISABLED |		\
				 EVENT_FILE_FL_TRIGGER_MODE |		\
				 EVENT_FILE_FL_TRIGGER_COND |		\
				 EVENT_FILE_FL_PID_FILTER)

/*
 * Can a record for @file go into its ring buffer directly, as trace_marker's
 * do? Only when nothing that the generic layer does would act on it: none of
 * the flags above, no stack traces asked of the instance, no tp_printk, no
 * trace_export taking events.
 */
static __always_inline bool user_ftrace_can_direct(struct trace_event_file *file)
{
	return !(READ_ONCE(file->flags) & USER_FTRACE_GENERIC) &&
	       !(file->tr->trace_flags &
		 (TRACE_ITER_STACKTRACE | TRACE_ITER_USERSTACKTRACE)) &&
	       !static_branch_unlikely(&trace_event_exports_enabled) &&
	       likely(!tracepoint_printk);
}

/* A record of @ue went into an ftrace buffer: see user_event_unused() */
static __always_inline void user_event_mark_in_buffer(struct user_event *ue)
{
	if (unlikely(!READ_ONCE(ue->in_buffer)))
		WRITE_ONCE(ue->in_buffer, true);
}

/*
 * The record of user_event_ftrace() without the generic layer: reserved
 * and committed on its file's ring buffer @buffer, the common header filled as
 * trace_event_buffer_reserve() fills it: from @trace_ctx, or copied from
 * @hdr, which has the event's type. @run: a record of
 * user_batch_ftrace_run(), its payload at @w->src, its event marked as
 * having records in the buffer already (see user_batch_direct()).
 */
static __always_inline void
user_event_ftrace_record(struct trace_buffer *buffer, struct user_event *ue,
			 struct iov_iter *from, size_t len,
			 struct user_event_write *w,
			 const struct trace_entry *hdr, unsigned int trace_ctx,
			 bool run)
{
	struct ring_buffer_event *event;
	struct trace_entry *entry;

	event = ring_buffer_lock_reserve(buffer, sizeof(*entry) + len);
	if (!event)
		return;
	entry = ring_buffer_event_data(event);
	if (!hdr) {
		tracing_generic_entry_update(entry, ue->call.event.type,
					     trace_ctx);
	} else {
		memcpy(entry, hdr, sizeof(*entry));
	}
	if (!user_event_fill(ue, entry, from, len, w, run)) {
		ring_buffer_discard_commit(buffer, event);
		return;
	}
	/* as __buffer_unlock_commit() does: the task's comm is to be saved */
	__this_cpu_write(trace_taskinfo_save, true);
	ring_buffer_unlock_commit(buffer);
	if (!run)
		user_event_mark_in_buffer(ue);
	w->recorded++;
}

/*
 * user_event_ftrace_record() in the context of now: the flags, the preempt
 * count and the pid. With @hdr, a batch run's (user_batch_run()): its
 * records' common header, filled at its first ftrace record (until then
 * its type is 0, which no event has).
 */
static __always_inline void
user_event_ftrace_direct(struct trace_event_file *file, struct user_event *ue,
			 struct iov_iter *from, size_t len,
			 struct user_event_write *w, struct trace_entry *hdr)
{
	struct trace_buffer *buffer = file->tr->array_buffer.buffer;
	unsigned int trace_ctx = 0;

	/* before the reserve, which raises the preempt count */
	if (!hdr)
		trace_ctx = tracing_gen_ctx_dec();
	else if (unlikely(!hdr->type))
		tracing_generic_entry_update(hdr, ue->call.event.type,
					     tracing_gen_ctx_dec());
	else
		hdr->type = ue->call.event.type;
	user_event_ftrace_record(buffer, ue, from, len, w, hdr, trace_ctx, false);
}

/* user_event_ftrace() through trace_event_buffer_reserve() and commit() */
static noinline void user_event_ftrace_generic(struct trace_event_file *file,
					       struct user_event *ue,
					       struct iov_iter *from,
					       size_t len,
					       struct user_event_write *w)
{
	/* filled by the reserve: no need to clear it on every write first */
	struct trace_event_buffer fbuffer __uninitialized;
	struct trace_entry *entry;

	if (trace_trigger_soft_disabled(file))
		return;
	entry = trace_event_buffer_reserve(&fbuffer, file, sizeof(*entry) + len);
	if (!entry)
		return;
	if (!user_event_fill(ue, entry, from, len, w, false)) {
		__trace_event_discard_commit(fbuffer.buffer, fbuffer.event);
		return;
	}
	trace_event_buffer_commit(&fbuffer);
	/* a soft-disabled file's record only fed its triggers: discarded */
	if (!(READ_ONCE(file->flags) & EVENT_FILE_FL_SOFT_DISABLED))
		user_event_mark_in_buffer(ue);
	w->recorded++;
}

/*
 * The ftrace consumer: one record per attached trace_event_file. Inline in
 * the writers (user_event_call_probe()), its address the probe's.
 */
static __always_inline void user_event_ftrace(void *data,
					      struct user_event *ue,
					      struct iov_iter *from, size_t len,
					      struct user_event_write *w,
					      struct trace_entry *hdr)
{
	struct trace_event_file *file = data;

	if (likely(user_ftrace_can_direct(file)))
		user_event_ftrace_direct(file, ue, from, len, w, hdr);
	else
		user_event_ftrace_generic(file, ue, from, len, w);
}

#ifdef CONFIG_PERF_EVENTS
/*
 * BPF_ITER: the eBPF programs get the writer's data where it is, described
 * by a struct user_bpf_context, instead of a copy (a ubuf's payload is at
 * @src, which the writer found). Their context is laid out as a record is
 * for any tracepoint program: it starts with the struct pt_regs pointer
 * that the helpers (bpf_perf_event_output(), bpf_get_stack(), ...) read
 * there, the struct user_bpf_context is where a record's first field would
 * be (USER_BPF_CONTEXT_OFFSET), and zeroes follow up to the end of the
 * event's fields, as far as the attach let the program read
 * (trace_event_get_offsets()). Returns whether the perf events should
 * still get their sample (as a program's return value decides for any
 * tracepoint). Without CONFIG_BPF_EVENTS there are none.
 */
static bool user_event_bpf_iter(struct trace_event_call *call,
				struct iov_iter *from, const void __user *src,
				size_t len)
{
	int size = clamp_t(int, ALIGN(trace_event_get_offsets(call), sizeof(u64)),
			   USER_BPF_CONTEXT_OFFSET + sizeof(struct user_bpf_context),
			   PERF_MAX_TRACE_SIZE);
	struct user_bpf_context *ctx;
	struct user_bpf_iter iter;
	struct pt_regs *regs;
	int rctx;
	bool keep;
	size_t off;
	void *buf;

	if (!iter_is_ubuf(from) && !iter_is_iovec(from))
		return true;

	buf = perf_trace_buf_alloc(size, &regs, &rctx);
	if (!buf)
		return true;
	perf_fetch_caller_regs(regs);
	memset(buf, 0, size);
	*(struct pt_regs **)buf = regs;

	ctx = buf + USER_BPF_CONTEXT_OFFSET;
	ctx->data_len = len;
	if (iter_is_ubuf(from)) {
		ctx->data_type = USER_BPF_DATA_USER;
		ctx->udata = (const void __force *)src;
	} else {
		iter.nr_segs = user_event_payload_segs(from, len, &iter.iov,
						       &off);
		iter.iov_offset = off;
		ctx->data_type = USER_BPF_DATA_ITER;
		ctx->iter = &iter;
	}

	keep = trace_call_bpf(call, buf);
	perf_swevent_put_recursion_context(rctx);
	return keep;
}

/*
 * The perf sample of a write: the record in perf's buffer (with perf's u32
 * size in front, the whole u64-aligned), handed to perf_tp_event() or, with
 * @bpf, to the eBPF programs of @call first.
 */
static __always_inline void user_event_perf_record(struct trace_event_call *call,
						   struct user_event *ue,
						   struct iov_iter *from,
						   size_t len,
						   struct user_event_write *w,
						   struct hlist_head *head,
						   bool bpf)
{
	int size = ALIGN(sizeof(struct trace_entry) + len + sizeof(u32),
			 sizeof(u64)) - sizeof(u32);
	/* both set by perf_trace_buf_alloc() when it returns a buffer */
	struct pt_regs *regs __uninitialized;
	int rctx __uninitialized;
	struct trace_entry *entry;

	entry = perf_trace_buf_alloc(size, &regs, &rctx);
	if (!entry)
		return;
	perf_fetch_caller_regs(regs);
	if (!user_event_fill(ue, entry, from, len, w, false)) {
		perf_swevent_put_recursion_context(rctx);
		return;
	}
	if (bpf)
		perf_trace_run_bpf_submit(entry, size, rctx, call, 1, regs,
					  head, NULL);
	else
		perf_trace_buf_submit(entry, size, rctx, call->event.type, 1,
				      regs, head, NULL);
	w->recorded++;
}

/*
 * user_event_perf() with eBPF programs attached: they run on the record
 * (the standard tracepoint context), or, for BPF_ITER events, on the
 * iovecs first, with a copy made only for the perf samples.
 */
static noinline void user_event_perf_bpf(struct trace_event_call *call,
					 struct user_event *ue,
					 struct iov_iter *from, size_t len,
					 struct user_event_write *w)
{
	struct hlist_head *head = this_cpu_ptr(call->perf_events);

	if (!ue->bpf_iter) {
		user_event_perf_record(call, ue, from, len, w, head, true);
		return;
	}
	if (!w->bpf_ran) {
		w->bpf_ran = true;
		w->bpf_keep = user_event_bpf_iter(call, from, w->src, len);
	}
	if (w->bpf_keep && !hlist_empty(head))
		user_event_perf_record(call, ue, from, len, w, head, false);
}

/*
 * The perf consumer: one raw sample for the perf events open on this CPU.
 * Inline in the writers (user_event_call_probe()), its address the probe's.
 */
static __always_inline void user_event_perf(void *data,
					    struct user_event *ue,
					    struct iov_iter *from, size_t len,
					    struct user_event_write *w)
{
	struct trace_event_call *call = data;
	struct hlist_head *head;

	if (unlikely(bpf_prog_array_valid(call))) {
		user_event_perf_bpf(call, ue, from, len, w);
		return;
	}
	head = this_cpu_ptr(call->perf_events);
	if (!hlist_empty(head))
		user_event_perf_record(call, ue, from, len, w, head, false);
}
#endif

/**
 * user_event_attach() - Hook a consumer's probe on or off an event
 * @ue: the event
 * @type: TRACE_REG_REGISTER or TRACE_REG_UNREGISTER, or their perf kinds
 * @data: the probe's data
 *
 * Hook the probe of a consumer on (TRACE_REG_REGISTER,
 * TRACE_REG_PERF_REGISTER) or off @ue, and count the consumers of that
 * kind. The probes are called inline, known by their addresses
 * (user_event_call_probe()), never through them.
 *
 * Context: event_mutex held, which the counts are under.
 * Return: 0, or the errno of tracepoint_probe_register(), the count then
 * unchanged; -EINVAL for any other @type.
 */
int user_event_attach(struct user_event *ue, enum trace_reg type, void *data)
{
	bool on = type == TRACE_REG_REGISTER;
	int *users = &ue->ftrace_users;
	void *probe = user_event_ftrace;
	int ret = 0;

	lockdep_assert_held(&event_mutex);
	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		break;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		on = type == TRACE_REG_PERF_REGISTER;
		users = &ue->perf_users;
		probe = user_event_perf;
		break;
#endif
	default:
		WARN_ON_ONCE(1);
		return -EINVAL;
	}
	if (on)
		ret = tracepoint_probe_register(&ue->tp, probe, data);
	else
		tracepoint_probe_unregister(&ue->tp, probe, data);
	/* read under an event's enablers_lock alone: user_event_status() */
	if (!ret)
		WRITE_ONCE(*users, *users + (on ? 1 : -1));
	return ret;
}

/*
 * One consumer's probe. The two kinds that attach (user_event_consumer_reg()),
 * ftrace and perf, are called directly, their bodies inline in the writer:
 * no call through the pointer, no probe prologue, on the path of every
 * record. The probe's address tells which, and only a probe of ours is
 * called: a removal that could not allocate a smaller array leaves
 * tp_stub_func in its place, with the data of the consumer that is gone.
 * @hdr: see user_event_ftrace_direct().
 */
static __always_inline void user_event_call_probe(const struct tracepoint_func *f,
						  struct user_event *ue,
						  struct iov_iter *i,
						  size_t len,
						  struct user_event_write *w,
						  struct trace_entry *hdr)
{
	if (likely(f->func == (void *)user_event_ftrace))
		user_event_ftrace(f->data, ue, i, len, w, hdr);
#ifdef CONFIG_PERF_EVENTS
	else if (f->func == (void *)user_event_perf)
		user_event_perf(f->data, ue, i, len, w);
#endif
}

/*
 * The largest payload the consumer of probe @f records. ftrace: what
 * ring_buffer_max_event_size() says of its buffer (sub-buffer size,
 * buffer_subbuf_size_kb) less the common header and room for the time
 * stamp the ring buffer adds to an event's full length when the clock
 * moved too far since the last event (ring_buffer_max_event_size() leaves
 * room for one in absolute time stamp mode only).
 */
static size_t user_event_consumer_max(const struct tracepoint_func *f)
{
	struct trace_event_file *file = f->data;

	if (f->func == (void *)user_event_ftrace)
		return ring_buffer_max_event_size(file->tr->array_buffer.buffer) -
		       sizeof(u64) - sizeof(struct trace_entry);
#ifdef CONFIG_PERF_EVENTS
	/* perf (and eBPF): the record and perf's u32 size in PERF_MAX_TRACE_SIZE */
	if (f->func == (void *)user_event_perf)
		return USER_EVENT_PERF_MAX;
#endif
	/* a stub that user_event_call_probe() skips */
	return SIZE_MAX;
}

/*
 * Is a @len-byte payload more than any write takes, or more than one of the
 * consumers of probe array @f (NULL: none) records? Then nobody gets it:
 * the write fails before any consumer has a record. @f is the array the
 * probes are then called from (user_event_call_probes()), so that a
 * consumer attached since is checked too: a perf event would otherwise get
 * a record larger than perf_trace_buf_alloc() takes, and it WARNs.
 */
static noinline bool user_event_too_big(const struct tracepoint_func *f,
					size_t len)
{
	if (len > USER_EVENT_MAX_PAYLOAD)
		return true;
	for (; f && f->func; f++)
		if (len > user_event_consumer_max(f))
			return true;
	return false;
}

/*
 * Call every attached consumer, as a tracepoint would, pages not faulted.
 * False when there is none. A payload larger than what every consumer
 * takes (USER_EVENT_FITS_ALL) is checked against the consumers of the
 * array that gets it, whichever attached since the write began: one that
 * is too big for any of them is -E2BIG in @w->stop, and nobody records it.
 */
static __always_inline bool user_event_call_probes(struct user_event *ue,
						   struct iov_iter *i,
						   size_t len,
						   struct user_event_write *w)
{
	struct tracepoint_func *f;

	preempt_disable_notrace();
	f = rcu_dereference_sched(ue->tp.funcs);
	if (unlikely(len > USER_EVENT_FITS_ALL) && user_event_too_big(f, len)) {
		preempt_enable_notrace();
		w->stop = -E2BIG;
		return true;
	}
	if (unlikely(!f)) {
		preempt_enable_notrace();
		return false;
	}
	pagefault_disable();
	do {
		user_event_call_probe(f, ue, i, len, w, NULL);
	} while ((++f)->func && !w->stop);
	pagefault_enable();
	preempt_enable_notrace();
	return true;
}

/*
 * A write whose probes stopped on an error, or on a missing page: the copy
 * runs with page faults disabled; a missing page makes the probe drop its
 * record, and the whole write is retried once the pages are in. Once a
 * consumer has committed, a retry would duplicate its record: a fault after
 * that (the page was reclaimed in between) fails the write.
 */
static noinline int user_event_emit_retry(struct user_event *ue,
					  struct iov_iter *i, size_t len,
					  struct user_event_write *w)
{
	int tries;

	for (tries = 1; tries < USER_EVENT_FAULT_TRIES; tries++) {
		if (w->stop != USER_EVENT_FAULTED)
			return w->stop;
		if (w->recorded || fault_in_iov_iter_readable(i, iov_iter_count(i)))
			return -EFAULT;
		w->stop = 0;
		user_event_call_probes(ue, i, len, w);
	}
	return w->stop != USER_EVENT_FAULTED ? w->stop : -EFAULT;
}

/*
 * Record a write of @len payload bytes, at @src when they are one piece of
 * user memory, with an index of the enable-bit ABI (@bits) or of the status
 * page: 0 or an errno
 */
static __always_inline int user_event_emit(struct user_event *ue,
					   struct iov_iter *i,
					   const void __user *src, size_t len,
					   bool bits)
{
	struct user_event_write w = { .src = src };

	/*
	 * Nobody listening: a status-page index is accepted with nothing
	 * recorded; an enable-bit index is refused, as Linux 6.5+ does. Rare
	 * for a client that tests its byte or bit before writing.
	 */
	if (unlikely(!user_event_call_probes(ue, i, len, &w)))
		return bits ? -EBADF : 0;
	if (unlikely(w.stop))
		return user_event_emit_retry(ue, i, len, &w);
	return 0;
}

/* The slot of write index @idx in @refs (may be NULL), 0 for none */
static __always_inline unsigned long
user_event_slot_in(const struct user_event_refs *refs, int idx)
{
	/*
	 * Pairs with the release in user_event_fd_add(): counted slots are
	 * set. A negative index is out of range too.
	 */
	if (refs && (unsigned int)idx < (unsigned int)smp_load_acquire(&refs->count))
		return refs->slots[idx];
	return 0;
}

/* The slot of write index @idx of @file, 0 for none */
static __always_inline unsigned long user_event_slot_of_fd(struct file *file,
							   int idx)
{
	struct user_event_fd *ufd = file->private_data;
	struct user_event_refs *refs;
	unsigned long slot;

	/* The fd holds a reference on each of its events until release */
	rcu_read_lock_sched();
	refs = rcu_dereference_sched(ufd->refs);
	slot = user_event_slot_in(refs, idx);
	rcu_read_unlock_sched();
	return slot;
}

/*
 * Is a load of @size bytes at the user address @p unaligned where the
 * architecture wants it aligned? Then the caller copies the bytes instead
 * (__copy_from_user_inatomic(): a run of a batch has page faults off).
 * Compiled away where unaligned loads are cheap (x86, arm64, ...).
 */
static __always_inline bool user_load_unaligned(const void __user *p,
						size_t size)
{
	return !IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) &&
	       !IS_ALIGNED((unsigned long)p, size);
}

/*
 * The index at @p, a user address that passed access_ok() when the write
 * or its iterator was made (vfs_write(), import_ubuf(), import_iovec()):
 * the index as an unsigned value, or -EFAULT.
 */
static __always_inline s64 user_index_from_user(const int __user *p)
{
	int idx;

	if (user_load_unaligned(p, sizeof(idx)))
		return __copy_from_user_inatomic(&idx, p, sizeof(idx)) ?
		       -EFAULT : (u32)idx;
	if (can_do_masked_user_access())
		p = masked_user_access_begin(p);
	else if (!user_read_access_begin(p, sizeof(*p)))
		return -EFAULT;
	unsafe_get_user(idx, p, efault);
	user_read_access_end();
	return (u32)idx;
efault:
	user_read_access_end();
	return -EFAULT;
}

/* user_index_from_iter() of the iterators whose payload is not one piece */
static noinline s64 user_index_from_iter_slow(const struct iov_iter *i)
{
	struct iov_iter head;
	int idx;

	if (iter_is_iovec(i) && iter_iov_len(i) >= sizeof(idx))
		return user_index_from_user(iter_iov_addr(i));
	/* split over segments, or not user memory */
	head = *i;
	if (copy_from_iter(&idx, sizeof(idx), &head) != sizeof(idx))
		return -EFAULT;
	return (u32)idx;
}

/*
 * The write index: the first 4 bytes of @i, as an unsigned value, or
 * -EFAULT. When the @len payload bytes past it are one piece of user
 * memory (a ubuf, or the common writev() of the index and the payload in
 * one segment each), *@src is where they are, for the consumers' copy;
 * else NULL. @i stays where it is: the consumers copy from past the index.
 */
static __always_inline s64 user_index_from_iter(const struct iov_iter *i,
						size_t len,
						const void __user **src)
{
	const struct iovec *iov = i->__iov;

	if (likely(iter_is_iovec(i) && i->nr_segs == 2 && !i->iov_offset &&
		   iov->iov_len == USER_EVENT_INDEX_SIZE &&
		   iov[1].iov_len == len)) {
		*src = iov[1].iov_base;
		return user_index_from_user(iov->iov_base);
	}
	if (iter_is_ubuf(i)) {
		*src = i->ubuf + i->iov_offset + USER_EVENT_INDEX_SIZE;
		return user_index_from_user(i->ubuf + i->iov_offset);
	}
	*src = NULL;
	return user_index_from_iter_slow(i);
}

/*
 * The event of the @slot that write index @idx has, in *@uep, for a write
 * of @len payload bytes: 0; or an errno
 */
static __always_inline int user_event_of_slot(unsigned long slot, int idx,
					      size_t len,
					      struct user_event **uep)
{
	struct user_event *ue;

	if (unlikely(!slot))
		return idx < 0 ? -EINVAL : -ENOENT;
	ue = user_slot_event(slot);
	if (len < ue->min_size)
		return -EINVAL;
	*uep = ue;
	return 0;
}

/*
 * The event of write index @idx of @file, in *@uep, for a write of @len
 * payload bytes, and in *@bits whether the index is of the enable-bit ABI
 * (else of the status page): 0; or an errno
 */
static __always_inline int user_event_of_write(struct file *file, int idx,
					       size_t len,
					       struct user_event **uep,
					       bool *bits)
{
	unsigned long slot = user_event_slot_of_fd(file, idx);

	*bits = slot & USER_SLOT_BIT_ABI;
	return user_event_of_slot(slot, idx, len, uep);
}

/* Batches ---------------------------------------------------------------- */

/*
 * A batch is what a write() or writev() of a batch fd (DIAG_IOCSBATCH)
 * carries, all of it: records back to back, each a u32 of its size and
 * the bytes of a single write of that size, the write index (of the fd the
 * batch fd was made from) and the payload. No value multiplexes the data
 * path: the fd says what its writes are, so the rest of a short write,
 * written again as it is, is records too. Each record is checked and
 * recorded as that write alone would be, by the same code, with one
 * difference: a record of an event nobody listens to is skipped, once
 * checked, whatever the ABI of its index (a batch is filled before it is
 * written; the event may have lost its consumers in between). The first
 * record that fails ends the batch: the records before it are recorded
 * and their bytes returned, as a short write; the first record's errno is
 * the call's. Every size is the writer's, checked against the bytes the
 * call was given before anything is read past it.
 */
#define USER_BATCH_HEAD_SIZE	sizeof(struct user_batch_rec)
/* A record's head and write index, read before the rest */
#define USER_BATCH_MIN_REC	(USER_BATCH_HEAD_SIZE + USER_EVENT_INDEX_SIZE)

/* A record's head and write index, as they lie in memory */
union user_batch_head {
	u64	both;
	u32	word[2];	/* the size, then the write index */
};

/*
 * The head of the record at @p, the first 8 of at least as many bytes of a
 * buffer that passed access_ok(), read as one u64 in *@head: 0 or -EFAULT.
 * Records lie at any address: see user_load_unaligned().
 */
static __always_inline int user_batch_read_head(const char __user *p,
						u64 *head)
{
	const u64 __user *h = (const u64 __user *)p;

	if (user_load_unaligned(h, sizeof(*head)))
		return __copy_from_user_inatomic(head, h, sizeof(*head)) ?
		       -EFAULT : 0;
	if (can_do_masked_user_access())
		h = masked_user_access_begin(h);
	else if (!user_read_access_begin(h, sizeof(*h)))
		return -EFAULT;
	unsafe_get_user(*head, h, efault);
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}

/* The size and the write index in a head that user_batch_read_head() read */
static __always_inline void user_batch_split_head(u64 head, u32 *size,
						  u32 *idx)
{
	union user_batch_head h = { .both = head };

	*size = h.word[0];
	*idx = h.word[1];
}

/*
 * Is @size, read at a record with @rem (at least USER_BATCH_MIN_REC) bytes
 * from its start, the size of one? One comparison: a size under the
 * index's wraps to more than any @rem.
 */
static __always_inline bool user_batch_size_valid(u32 size, size_t rem)
{
	return (size_t)size - USER_EVENT_INDEX_SIZE <= rem - USER_BATCH_MIN_REC;
}

/*
 * A batch of @count bytes at @buf, of @data's events, when it is one
 * record: that record's write, as user_data_write() makes it, with the
 * batch's rule for an event nobody listens to (skipped, as for an index of
 * the status page). The bytes taken or an errno; 0 when the batch is not
 * one whole record, or its head cannot be read here (a fault:
 * user_data_write_batch_ubuf() takes it, and fails it as it should).
 */
static __always_inline ssize_t user_batch_write_one(struct file *data,
						    const char __user *buf,
						    size_t count)
{
	size_t len = count - USER_BATCH_MIN_REC;
	/* set whole by iov_iter_ubuf() */
	struct iov_iter i __uninitialized;
	struct user_event *ue;
	bool bits;
	u32 size, idx;
	u64 head;
	int ret;

	/* less than a head wraps */
	if (len > USER_EVENTS_BATCH_MAX - USER_BATCH_MIN_REC ||
	    user_batch_read_head(buf, &head))
		return 0;
	user_batch_split_head(head, &size, &idx);
	if (size != count - USER_BATCH_HEAD_SIZE)
		return 0;
	ret = user_event_of_write(data, (int)idx, len, &ue, &bits);
	if (unlikely(ret))
		return ret;
	iov_iter_ubuf(&i, ITER_SOURCE, (void __user *)buf + USER_BATCH_HEAD_SIZE,
		      size);
	ret = user_event_emit(ue, &i, buf + USER_BATCH_MIN_REC, len, false);
	return ret < 0 ? ret : count;
}

/*
 * A batch in one user buffer, being recorded: the next record's head at
 * @p, the batch's end at @end. A run that stopped on a missing page
 * leaves what is needed to go on out of its section: the record's event
 * @ue (NULL: the head's page is missing), its payload's length @len and
 * its write as the probes left it, @w.
 */
struct user_batch {
	const char __user	*p;
	const char __user	*end;
	struct user_event	*ue;
	size_t			len;
	struct user_event_write	w;
};

/*
 * Do the records of @ue, a record of @len payload bytes first, whose probe
 * array is @f, go to one ftrace file only, into its ring buffer directly
 * (user_ftrace_can_direct()), to be recorded by user_batch_ftrace_run()? It
 * does not mark the event as having records in the buffer: the event must
 * have them already (ue->in_buffer is never cleared). A record over
 * USER_EVENT_FITS_ALL goes the other way, which checks its size.
 */
static __always_inline bool user_batch_direct(const struct tracepoint_func *f,
					      const struct user_event *ue,
					      size_t len)
{
	return f->func == (void *)user_event_ftrace && !f[1].func &&
	       len <= USER_EVENT_FITS_ALL && READ_ONCE(ue->in_buffer) &&
	       user_ftrace_can_direct(f->data);
}

/*
 * The records at @b->p, the first of head @same (its size and write index,
 * checked), of event @ue, whose probe array is @f, that user_batch_direct()
 * let go to its one ftrace file, the run's common header @hdr filled: each
 * recorded by user_event_ftrace_record() as long as it is of the same
 * index, the same array, the file's flags still allow it, and its size
 * needs no more than the checks here. Ends at the batch's end, at
 * need_resched(), at a record of another kind (left to the caller's loop,
 * which reads its head again), or at a record that failed: its errno or
 * USER_EVENT_FAULTED in @b->w.stop, its length in @b->len. The instance's
 * options and the global hooks are as user_batch_direct() read them, once
 * for these records, as a single write reads them once. @i: the run's
 * iterator.
 */
static noinline void user_batch_ftrace_run(struct user_batch *b, u64 same,
					   struct user_event *ue,
					   const struct tracepoint_func *f,
					   struct trace_entry hdr,
					   struct iov_iter *i)
{
	const char __user *p = b->p, *end = b->end;
	struct trace_event_file *file = f->data;
	/* a file's instance is its own for good, its buffer read per record */
	struct trace_array *tr = file->tr;
	struct user_event_write w;
	u32 size, idx, at;
	size_t len;
	u64 head;

	user_batch_split_head(same, &size, &idx);
	len = size - USER_EVENT_INDEX_SIZE;
	hdr.type = ue->call.event.type;
	do {
		if (end - p < USER_BATCH_MIN_REC || user_batch_read_head(p, &head))
			break;
		/* a head as the last one's: checked but for the bytes left */
		if (head != same) {
			user_batch_split_head(head, &size, &at);
			if (!user_batch_size_valid(size, end - p) || at != idx)
				break;
			len = size - USER_EVENT_INDEX_SIZE;
			if (len < ue->min_size || len > USER_EVENT_FITS_ALL)
				break;
			same = head;
		} else if (len > end - p - USER_BATCH_MIN_REC) {
			break;
		}
		if (rcu_access_pointer(ue->tp.funcs) != f ||
		    READ_ONCE(file->flags) & USER_FTRACE_GENERIC)
			break;
		w = (struct user_event_write) {
			.src = p + USER_BATCH_MIN_REC,
		};
		user_event_ftrace_record(tr->array_buffer.buffer, ue, i, len, &w,
					 &hdr, 0, true);
		if (unlikely(w.stop)) {
			b->w = w;
			b->len = len;
			break;
		}
		p += USER_BATCH_MIN_REC + len;
	} while (p != end && !need_resched());
	b->p = p;
}

/*
 * One run of @b's records, from its next one: each checked and its probes
 * called as user_event_emit() checks and calls them, a record nobody
 * listens to skipped. A run is one section without preemption nor page
 * faults, to the batch's end or to where the scheduler wants the CPU
 * (need_resched()); the caller then calls cond_resched() and starts the
 * next.
 * The run's state is in locals, @b written back at its end. The fd's slots
 * are looked up once, under the run's RCU read side (preemption off), and
 * a slot once for the records of its index that follow one another (a
 * published slot does not change). The probes get one iterator for the
 * run, of the user buffer: with each record's payload at @w.src, one piece
 * of user memory, they copy from there and look at the iterator's type
 * only. The ftrace records' common header is filled once, at the run's
 * first ftrace record: what tracing_gen_ctx_dec() says in the run is the
 * same for each (preemption is off and a need_resched() ends the run,
 * interrupts are as the write found them), and so is the pid. The records
 * of an event whose one consumer is an ftrace file that takes them
 * directly go to user_batch_ftrace_run() (user_batch_direct()).
 * Returns 0 with @b past the run's records; else @b is at a record that
 * stops it: its errno, or USER_EVENT_FAULTED for a missing page (see
 * struct user_batch).
 */
static __always_inline int user_batch_run(struct user_event_fd *ufd,
					  struct user_batch *b)
{
	const char __user *p = b->p, *end = b->end;
	struct trace_entry hdr = { .type = 0 };
	const struct tracepoint_func *f;
	const struct user_event_refs *refs;
	struct user_event *ue = NULL, *last = NULL;
	/* set whole by iov_iter_ubuf() */
	struct iov_iter i __uninitialized;
	unsigned int count = 0;
	u32 size, idx, last_idx = 0;
	size_t len = 0;
	u64 head;
	int ret;

	iov_iter_ubuf(&i, ITER_SOURCE, (void __user *)p, end - p);
	preempt_disable_notrace();
	pagefault_disable();
	refs = rcu_dereference_sched(ufd->refs);
	if (refs)
		/* as user_event_slot_in() reads it, once for the whole run */
		count = smp_load_acquire(&refs->count);
	do {
		if (unlikely(end - p < USER_BATCH_MIN_REC)) {
			ret = -EINVAL;
			break;
		}
		if (unlikely(user_batch_read_head(p, &head))) {
			ue = NULL;
			ret = USER_EVENT_FAULTED;
			break;
		}
		user_batch_split_head(head, &size, &idx);
		if (unlikely(!user_batch_size_valid(size, end - p))) {
			ret = -EINVAL;
			break;
		}
		len = size - USER_EVENT_INDEX_SIZE;
		if (last && idx == last_idx) {
			ue = last;
			if (unlikely(len < ue->min_size)) {
				ret = -EINVAL;
				break;
			}
		} else {
			ret = user_event_of_slot(idx < count ?
						 refs->slots[idx] : 0,
						 idx, len, &ue);
			if (unlikely(ret))
				break;
			last = ue;
			last_idx = idx;
		}
		f = rcu_dereference_sched(ue->tp.funcs);
		if (unlikely(len > USER_EVENT_FITS_ALL) &&
		    user_event_too_big(f, len)) {
			ret = -E2BIG;
			break;
		}
		/* nobody listening, whatever the ABI: skipped */
		ret = 0;
		if (!f) {
			p += USER_BATCH_MIN_REC + len;
			continue;
		}
		if (user_batch_direct(f, ue, len)) {
			if (unlikely(!hdr.type))
				tracing_generic_entry_update(&hdr,
							     ue->call.event.type,
							     tracing_gen_ctx_dec());
			b->p = p;
			b->w.stop = 0;
			user_batch_ftrace_run(b, head, ue, f, hdr, &i);
			ret = b->w.stop;
			if (unlikely(ret)) {
				p = b->p;
				len = b->len;
				break;
			}
			/* none taken (the file's flags changed): as below */
			if (b->p != p) {
				p = b->p;
				continue;
			}
		}
		b->w = (struct user_event_write) {
			.src = p + USER_BATCH_MIN_REC,
		};
		do {
			user_event_call_probe(f, ue, &i, len, &b->w, &hdr);
		} while ((++f)->func && !b->w.stop);
		ret = b->w.stop;
		if (unlikely(ret))
			break;
		p += USER_BATCH_MIN_REC + len;
	} while (p != end && !need_resched());
	pagefault_enable();
	preempt_enable_notrace();
	b->p = p;
	b->ue = ue;
	b->len = len;
	return ret;
}

/*
 * A batch of @count bytes at @buf, a buffer that passed access_ok(), of
 * @data's events: the bytes taken, or the first record's errno. A missing
 * page is faulted in out of the runs' sections: a payload's as a lone
 * write's (user_event_emit_retry()), a head's before the run is tried
 * again from it.
 */
static noinline ssize_t user_data_write_batch_ubuf(struct file *data,
						   const char __user *buf,
						   size_t count)
{
	struct user_batch b __uninitialized;
	/* set whole by iov_iter_ubuf() */
	struct iov_iter i __uninitialized;
	const char __user *at;
	int ret = 0, tries = 0;

	if (count > USER_EVENTS_BATCH_MAX)
		return -EMSGSIZE;

	b.p = buf;
	b.end = buf + count;
	while (b.p != b.end) {
		at = b.p;
		ret = user_batch_run(data->private_data, &b);
		if (b.p != at)
			tries = 0;
		if (likely(!ret)) {
			if (b.p != b.end)
				cond_resched();
			continue;
		}
		if (ret != USER_EVENT_FAULTED)
			break;
		if (b.ue) {
			iov_iter_ubuf(&i, ITER_SOURCE,
				      (void __user *)b.p + USER_BATCH_HEAD_SIZE,
				      USER_EVENT_INDEX_SIZE + b.len);
			ret = user_event_emit_retry(b.ue, &i, b.len, &b.w);
			if (ret)
				break;
			b.p += USER_BATCH_MIN_REC + b.len;
			continue;
		}
		if (++tries >= USER_EVENT_FAULT_TRIES ||
		    fault_in_readable(b.p, USER_BATCH_MIN_REC)) {
			ret = -EFAULT;
			break;
		}
	}

	/* b.p is at the failed record's head */
	if (ret && b.p == buf)
		return ret;
	return b.p - buf;
}

/*
 * A batch in an iterator that is not one user buffer (a writev() of several
 * segments, io_uring): as user_data_write_batch_ubuf(), each record in an
 * iterator of its own, that of a single write of it
 */
static noinline ssize_t user_data_write_batch_iter(struct file *data,
						   struct iov_iter *from)
{
	size_t total = iov_iter_count(from);
	const void __user *src;
	struct user_event *ue;
	bool bits;
	struct iov_iter rec;
	u32 head[2], size;
	size_t rem;
	s64 idx;
	int ret = 0;

	if (iter_is_ubuf(from))
		return user_data_write_batch_ubuf(data, from->ubuf +
						  from->iov_offset, total);

	if (total > USER_EVENTS_BATCH_MAX)
		return -EMSGSIZE;
	while ((rem = iov_iter_count(from))) {
		if (rem < USER_BATCH_MIN_REC) {
			ret = -EINVAL;
			break;
		}

		/* the head whole first, as user_data_write_batch_ubuf() */
		rec = *from;
		if (copy_from_iter(head, sizeof(head), &rec) != sizeof(head)) {
			ret = -EFAULT;
			break;
		}
		size = head[0];
		if (!user_batch_size_valid(size, rem)) {
			ret = -EINVAL;
			break;
		}

		rec = *from;
		iov_iter_advance(&rec, USER_BATCH_HEAD_SIZE);
		iov_iter_truncate(&rec, size);
		idx = user_index_from_iter(&rec, size - USER_EVENT_INDEX_SIZE,
					   &src);
		if (idx < 0) {
			ret = idx;
			break;
		}

		ret = user_event_of_write(data, (int)idx,
					  size - USER_EVENT_INDEX_SIZE, &ue, &bits);
		if (ret)
			break;
		ret = user_event_emit(ue, &rec, src,
				      size - USER_EVENT_INDEX_SIZE, false);
		if (ret)
			break;

		iov_iter_advance(from, USER_BATCH_HEAD_SIZE + size);
		cond_resched();
	}

	if (ret && rem == total)
		return ret;
	return total - rem;
}

/**
 * user_data_write_iter() - Write a record to user_events_data from an iterator
 * @kiocb: the write's, of a user_events_data file
 * @i: the write index, then the payload
 *
 * writev(), and every write that is not one user buffer (io_uring).
 *
 * Context: the writing task; may fault its pages in.
 * Return: the bytes written, all of @i; or -errno.
 */
ssize_t user_data_write_iter(struct kiocb *kiocb, struct iov_iter *i)
{
	size_t total = iov_iter_count(i);
	size_t len = total - USER_EVENT_INDEX_SIZE;
	const void __user *src;
	struct user_event *ue;
	bool bits;
	s64 idx;
	int ret;

	if (total < USER_EVENT_INDEX_SIZE)
		return -EINVAL;
	idx = user_index_from_iter(i, len, &src);
	if (unlikely(idx < 0))
		return idx;
	ret = user_event_of_write(kiocb->ki_filp, (int)idx, len, &ue, &bits);
	if (unlikely(ret))
		return ret;
	ret = user_event_emit(ue, i, src, len, bits);
	return ret < 0 ? ret : len + USER_EVENT_INDEX_SIZE;
}

/**
 * user_data_write() - Write one record to user_events_data
 * @file: a user_events_data file
 * @buf: the write index, then the payload, in user memory
 * @count: the bytes at @buf
 * @ppos: not used: the file has no position
 *
 * write(): one user buffer, without the kiocb and iov_iter set-up of
 * writev().
 *
 * Context: the writing task; may fault its pages in.
 * Return: @count, or -errno.
 */
ssize_t user_data_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	size_t len = count - USER_EVENT_INDEX_SIZE;
	/* set whole by iov_iter_ubuf() */
	struct iov_iter i __uninitialized;
	struct user_event *ue;
	bool bits;
	s64 idx;
	int ret;

	if (count < USER_EVENT_INDEX_SIZE)
		return -EINVAL;
	/* vfs_write() checked access_ok() of the buffer */
	idx = user_index_from_user((const int __user *)buf);
	if (unlikely(idx < 0))
		return idx;
	ret = user_event_of_write(file, (int)idx, len, &ue, &bits);
	if (unlikely(ret))
		return ret;
	iov_iter_ubuf(&i, ITER_SOURCE, (void __user *)buf, count);
	ret = user_event_emit(ue, &i, buf + USER_EVENT_INDEX_SIZE, len, bits);
	return ret < 0 ? ret : count;
}

/*
 * A batch fd (DIAG_IOCSBATCH) holds the user_events_data file it was made
 * from, whose events and write indexes its records name
 */
static ssize_t user_batch_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	struct file *data = file->private_data;
	ssize_t one;

	if (!count)
		return 0;
	/* vfs_write() checked access_ok() of the buffer */
	one = user_batch_write_one(data, buf, count);
	return one ?: user_data_write_batch_ubuf(data, buf, count);
}

static ssize_t user_batch_write_iter(struct kiocb *kiocb, struct iov_iter *i)
{
	if (!iov_iter_count(i))
		return 0;
	return user_data_write_batch_iter(kiocb->ki_filp->private_data, i);
}

static int user_batch_release(struct inode *inode, struct file *file)
{
	fput(file->private_data);
	return 0;
}

static const struct file_operations user_batch_fops = {
	.release	= user_batch_release,
	.write		= user_batch_write,
	.write_iter	= user_batch_write_iter,
};

/**
 * user_data_ioctl_batch() - DIAG_IOCSBATCH: make a batch fd
 * @file: the user_events_data file
 * @flags: must be 0
 *
 * A new fd, write-only and close-on-exec, every write of which is a batch
 * of records of @file's events. Only from a @file open for writing: the
 * batch fd's writes are not checked against user_events_data's mode again.
 *
 * Context: the ioctl's task.
 * Return: the fd; -EINVAL for @flags, -EBADF for a @file not open for
 * writing, or the errno of anon_inode_getfd().
 */
long user_data_ioctl_batch(struct file *file, unsigned long flags)
{
	int fd;

	if (flags)
		return -EINVAL;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	/* the batch fd's own reference: its records name @file's indexes */
	get_file(file);
	fd = anon_inode_getfd("[user_events_batch]", &user_batch_fops, file,
			      O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fput(file);
	return fd;
}
