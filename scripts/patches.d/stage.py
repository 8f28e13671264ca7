"""
stage.py FINAL OUTDIR: write the earlier stages of trace_events_user.c that
the patch series adds one by one, each FINAL less one feature:

  OUTDIR/dynevents.c  everything but the perf and eBPF consumer
  OUTDIR/printfmt.c   that, less dynamic_events
  OUTDIR/core.c       that, less the print format

Every rule removes or replaces text that must occur exactly as written
(as many times as given); when FINAL changes so that a rule no longer
matches, this fails naming it, and the rule is updated with the change.
"""
import os
import sys

final, outdir = sys.argv[1], sys.argv[2]
src = open(final).read()

def rm(s, old, new='', count=1):
    n = s.count(old)
    if n != count:
        sys.exit('stage.py: expected %d of %r in the source, found %d'
                 % (count, old[:60], n))
    return s.replace(old, new)

def cut(s, start, end, new=''):
    """remove from start marker up to and including end marker"""
    if s.count(start) != 1 or end not in s[s.find(start):]:
        sys.exit('stage.py: no single %r ... %r in the source' % (start[:40], end[:40]))
    a = s.index(start)
    b = s.index(end, a) + len(end)
    return s[:a] + new + s[b:]

# ---- S3: without perf and eBPF
s = src
s = rm(s, "\t/* BPF_ITER programs run once per write, not once per try */\n\tbool\t\t\tbpf_ran;\n\tbool\t\t\tbpf_keep;\t/* what they said of perf's sample */\n")
s = rm(s, "\tbool\t\t\tbpf_iter;\t/* flag BPF_ITER */\n")
s = rm(s, "\tint\t\t\tperf_users;\n")
s = cut(s, "#ifdef CONFIG_PERF_EVENTS\n/*\n * BPF_ITER", "#endif\n\n")
s = rm(s, "\treturn (ue->ftrace_users ? EVENT_STATUS_FTRACE : 0) |\n\t       (ue->perf_users ? EVENT_STATUS_PERF : 0);\n",
       "\treturn ue->ftrace_users ? EVENT_STATUS_FTRACE : 0;\n")
s = cut(s, "#ifdef CONFIG_PERF_EVENTS\n\tcase TRACE_REG_PERF_REGISTER:", "\t\treturn 0;\n#endif\n",
        "\tdefault:\n\t\t/* no perf consumer yet */\n\t\treturn -EOPNOTSUPP;\n")
s = cut(s, "/* Is @flag in the comma-separated @flags", "\treturn false;\n}\n\n")
s = rm(s, '\tue->bpf_iter = user_flags_have(d->flags, "BPF_ITER");\n')
s = rm(s, '\t[EVENT_BIT_PERF] = "perf",\n')
open(os.path.join(outdir, 'dynevents.c'), 'w').write(s)

# ---- S2: without dynamic_events
s = rm(s, '#include "trace_dynevent.h"\n')
s = rm(s, "\tstruct dyn_event\tdevent;\n")
s = cut(s, "static struct dyn_event_operations user_event_ops;\n", "return container_of(ev, struct user_event, devent);\n}\n\n")
s = rm(s, "\tdyn_event_init(&ue->devent, &user_event_ops);\n\treturn dyn_event_add(&ue->devent, call);\n", "\treturn 0;\n")
s = rm(s, "\tdyn_event_remove(&ue->devent);\n")
s = cut(s, "/* dynamic_events --------", "\treturn !argc || user_event_args_match(ue, argc, argv);\n}\n\n")
s = cut(s, "/* The \"u:\" command of dynamic_events;", "core_initcall(trace_events_user_init_early);\n\n")
open(os.path.join(outdir, 'printfmt.c'), 'w').write(s)

# ---- S1: without the print format
s = cut(s, "static void user_field_fmt(struct seq_buf *s,", "\tue->call.print_fmt = fmt;\n\treturn 0;\n}\n\n")
old = "/* Print format and output " + "-" * 48 + " */\n"
s = rm(s, old, "/* Output " + "-" * (len(old) - 14) + " */\n")
s = rm(s, "\tret = user_event_set_print_fmt(ue);\n\tif (ret)\n\t\treturn ret;\n")
open(os.path.join(outdir, 'core.c'), 'w').write(s)
