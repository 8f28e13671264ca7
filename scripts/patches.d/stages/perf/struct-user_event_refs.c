/*
 * The fd's events; index i is write index i. New events are appended in
 * place (published by the release of count); a full array is replaced by
 * one twice its size, the old one freed by RCU, so registering is O(1).
 */
struct user_event_refs {
	struct rcu_head		rcu;
	int			count;		/* in use, read with acquire */
	int			size;
	struct user_event	*events[] __counted_by(size);
};
