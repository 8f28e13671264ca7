static int user_event_consumer_reg(struct trace_event_call *call,
				   enum trace_reg type, void *data)
{
	struct user_event *ue = call->data;
	int ret = 0;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		ret = user_event_attach(ue, user_event_ftrace, data, &ue->ftrace_users,
					type == TRACE_REG_REGISTER);
		break;
	default:
		/* no perf consumer yet */
		return -EOPNOTSUPP;
	}
	user_event_update_status(ue);
	return ret;
}
