/*
 * The fd's events; index i is write index i. New events are appended in
 * place (published by the release of count); a full array is replaced by
 * one twice its size, the old one freed by RCU, so appending is amortised
 * O(1); finding an event the fd registered before is linear in its events.
 */
struct user_event_refs {
	struct rcu_head		rcu;
	int			count;		/* in use, read with acquire */
	int			size;
	struct user_event	*events[] __counted_by(size);
};
