"""
stage.py [--stamp] REPO OUTDIR: write the earlier stages of the files that
the patch series adds one feature at a time, each the final file less
features:

  OUTDIR/uapi.h       include/uapi/linux/user_events.h without the
                      enable-bit ABI (struct user_reg, the
                      USER_EVENTS_STATUS_ABI block it is in, and the rest)
  OUTDIR/bits.c       trace_events_user.c without tenant groups
  OUTDIR/perf.c       that, less the enable-bit ABI
  OUTDIR/dynevents.c  that, less the perf and eBPF consumer
  OUTDIR/printfmt.c   that, less dynamic_events
  OUTDIR/core.c       that, less the print format
  OUTDIR/stages.log   what each rule did

The rules work on top-level items found by name (citems.py): functions,
structs, variables, macros, sections. They drop items whole, replace them
with the versions in stages/<stage>/ (which are what that stage's patch
adds), drop struct members, and statements, parameters and arguments of
functions, named by an identifier they hold (or keep the body of an if
whose test the stage lacks), and only where nothing else can say it, edit
exact text inside one item. So a
change to a comment, or to a function no rule names, never breaks a stage;
a change to an item that a rule cuts fails here with a message naming the
item and what was not found, and the rule is updated with the change.

Each replacement has a stamp of the final item it replaces in
stages/stamps: when that item changes, a note names it (a fix there may be
needed in the earlier version too); --stamp records the items as they are.

Each stage is checked: it must not keep dead code (every static function,
variable, macro, enumerator and struct it defines is used in it, unless it
is unused in the final file too), nor use a name that the final files
define and the stage (or its uapi header) does not, such as a new ioctl
number in code a rule keeps. Either names what to cut with the feature.
"""
import hashlib
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from citems import Cut, CutError, dangling, defined, unused  # noqa: E402

stamp = sys.argv[1:2] == ['--stamp']
repo, outdir = sys.argv[1 + stamp], sys.argv[2 + stamp]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'stages')
log = []
stamps_path = os.path.join(here, 'stamps')
stamps = {l.split(' ')[1]: l.strip() for l in open(stamps_path)} \
    if os.path.exists(stamps_path) else {}
stamps_now, changed = {}, []


def F(path):
    """Replacement text kept in stages/"""
    return open(os.path.join(here, path)).read()


def replace(cut, name, path):
    """Put the version of item @name in stages/@path in its place. The
    stamp of the item it replaces tells when that item has changed since
    (a fix there may be needed in the earlier version too)"""
    stamp = hashlib.sha1(cut.one(name).text.encode()).hexdigest()[:16]
    stamps_now[path] = '%s %s %s' % (stamp, path, name)
    if stamps.get(path, '').split(' ')[0] != stamp:
        changed.append('%s (stages/%s)' % (name, path))
    cut.replace(name, F(path))


def title(cut, before, text):
    """Retitle the section above @before: "/* text ----- */", 78 wide"""
    cut.comment('comment before ' + before,
                '/* %s %s */\n' % (text, '-' * (78 - 7 - len(text))))


def done(cut, name, final, gone=frozenset()):
    """Check and write the stage @name; @gone: names of the final uapi
    header that the stage's header lacks"""
    text = cut.result()
    log.append('== %s\n%s\n' % (name, '\n'.join(cut.log)))
    dead = sorted(set(unused(text, name, ('pr_fmt',))) -
                  set(unused(final, 'final', ('pr_fmt',))))
    if dead:
        raise CutError('%s: defined but not used in this stage: %s '
                       '(drop them with the feature)' % (name, ', '.join(dead)))
    gone = (defined(final, 'final') - defined(text, name)) | gone
    left = dangling(text, gone)
    if left:
        raise CutError('%s: uses what this stage does not define: %s '
                       '(cut the uses with the feature)' % (name, ', '.join(left)))
    open(os.path.join(outdir, name), 'w').write(text)
    return text


def uapi(final):
    # ---- the uapi header before the enable-bit ABI
    c = Cut(final, 'uapi.h')
    c.comment('file comment', F('uapi/file-comment.h'))
    c.drop('USER_EVENTS_MULTI_SYSTEM', 'enum user_reg_flag',
           'struct user_unreg', 'DIAG_IOCSUNREG')
    # #ifdef USER_EVENTS_STATUS_ABI: #define user_reg user_status_reg,
    # #else struct user_reg, the 28-byte struct of the enable bit
    c.drop_block('user_reg')
    c.comment('DIAG_IOCSREG',
              '/* Register an event (struct user_status_reg *) */\n')
    c.edit('DIAG_IOCSREG', 'struct user_reg *)', 'struct user_status_reg *)')
    # uapi names are for user space: no dead-code check; but nothing of
    # the final header that this one lacks may be named in it
    text = c.result()
    log.append('== uapi.h\n%s\n' % '\n'.join(c.log))
    gone = defined(final, 'uapi') - defined(text, 'uapi.h')
    left = dangling(text, gone)
    if left:
        raise CutError('uapi.h: uses what this stage does not define: %s '
                       '(cut the uses with the feature)' % ', '.join(left))
    open(os.path.join(outdir, 'uapi.h'), 'w').write(text)
    return gone


def nogroups(final, gone):
    # ---- bits.c: without tenant groups; the default group is the only one
    c = Cut(final, 'bits.c')
    c.comment('struct user_event_group',
              F('nogroups/struct-user_event_group-comment.c'))
    c.drop_member('struct user_event_group', 'nr_events', 'nr_retired', 'name',
                  'id', 'max_events', 'refs', 'dir')
    c.edit('user_init_group', '\t.refs\t\t= REFCOUNT_INIT(1),\n', '')
    for f in ('user_group_get', 'user_group_put', 'user_group_max',
              'user_group_of_system', 'user_group_of_inode'):
        c.drop_prototype(f)
    # an event counts against its group, and holds it
    for f, ident in (('user_event_release_memory', 'nr_events'),
                     ('user_event_release_memory', 'user_group_put'),
                     ('user_event_alloc', 'nr_events')):
        c.drop_stmt(f, ident)
    c.drop_stmt('user_event_alloc', 'user_group_get', new='\tue->group = g;\n')
    c.comment('user_events_full', '/* May no more events be made? */\n')
    c.edit('user_events_full',
           '\treturn user_events_count >= READ_ONCE(user_events_max) ||\n'
           '\t       g->nr_events >= user_group_max(g);\n',
           '\treturn user_events_count >= READ_ONCE(user_events_max);\n')
    c.drop_param('user_events_full', 'g')
    c.edit('user_events_full', 'user_events_full()', 'user_events_full(void)')
    c.drop_arg('user_event_create_spec', 'user_events_full', 0)
    for f in ('user_event_retire', 'user_retired_remove'):
        c.drop_stmt(f, 'nr_retired')
    # "u:SYSTEM/name": user_events (or user_events_multi, to delete) alone
    c.comment('user_system_of_command',
              '/*\n * Past "u:", "SYSTEM/" names the event\'s system as '
              'dynamic_events shows it:\n * user_events. Its length is '
              'returned; 0 without one; -EINVAL for any\n * other system.'
              '\n */\n')
    c.edit('user_system_of_command',
           '\tif (!user_group_of_system(cmd, len, g))\n\t\treturn -EINVAL;\n'
           '\treturn len + 1;\n', '\treturn -EINVAL;\n')
    c.edit('user_event_create', '\tif (!g)\n\t\treturn -ENOENT;\n', '')
    c.comment('user_event_match',
              '/*\n * "-:SYSTEM/name" and "!u:SYSTEM/name[:flags] [fields]" '
              '(a line of\n * dynamic_events) reach the event of that system '
              'alone. Without a system,\n * as in "-:name", an event of '
              'user_events, and every other type\'s of that\n * name too: '
              'dyn_event_release() asks each type. Flags and fields, when\n'
              ' * given, must be the event\'s.\n */\n')
    # the listing: a multi-format event's with its system, others without
    c.comment('user_event_show',
              '/*\n * The events of user_events as "u:name[:flags] fields", '
              'the form Linux 6.4\n * and later show (an ABI); multi-format '
              'events with their system,\n * "u:user_events_multi/name.<id> '
              'fields". Written back after "!", a line\n * deletes its event; '
              'one without a system also every other type\'s event of\n * '
              'that name whose match takes it (dyn_event_release() asks each '
              'type),\n * as "-:name" does for every type: '
              '"!u:user_events/name" or\n * "-:user_events/name" deletes '
              'this one alone.\n */\n')
    c.edit('user_event_show',
           '\tif (ue->group != &user_init_group || ue->multi)\n',
           '\tif (ue->multi)\n')
    c.edit('user_event_match',
           '\tif (!system ? ue->group != &user_init_group :\n'
           '\t    strcmp(system, ue->class.system))\n',
           '\tif (system && strcmp(system, ue->class.system))\n')
    c.drop_param('user_events_ioctl_unreg', 'file')
    c.drop_arg('user_events_ioctl', 'user_events_ioctl_unreg', 0)
    c.edit('user_events_ioctl_unreg',
           '\tstruct user_event_fd *ufd = file->private_data;\n'
           '\tstruct user_event_group *group = ufd->group;\n', '')
    c.edit('user_events_ioctl_unreg',
           '\t\t/* nor one of an event of another group than the file\'s */\n'
           '\t\tif (!e || e->unregistering || !e->ue || e->ue->group != group)\n',
           '\t\tif (!e || e->unregistering)\n')
    c.drop_stmt('user_events_open', 'user_group_of_inode',
                new='\tufd->group = &user_init_group;\n')
    c.edit('user_events_open',
           '\tif (!ufd->group) {\n\t\tkfree(ufd);\n\t\treturn -ENODEV;\n\t}\n', '')
    c.drop_stmt('user_events_release', 'user_group_put')
    c.drop('user_status_vm_open', 'user_status_vm_close', 'user_status_vm_ops',
           'user_status_release')
    replace(c, 'user_status_mmap', 'nogroups/user_status_mmap.c')
    replace(c, 'user_status_open', 'nogroups/user_status_open.c')
    c.edit('user_status_fops', '= user_status_release,', '= single_release,')
    c.drop_section('USER_GROUP_MAX_NAME')
    c.drop_stmt('trace_events_user_init', 'user_groups_init')
    return done(c, 'bits.c', final, gone)


def stages(final, gone):
    # ---- perf.c: without the enable-bit ABI
    c = Cut(final, 'perf.c')
    c.comment('file comment', F('perf/file-comment.c'))
    c.drop('#include <linux/mmu_notifier.h>', '#include <linux/sched/mm.h>',
           '#include <linux/sched/signal.h>', '#include <linux/sysctl.h>',
           '#include <linux/workqueue.h>')
    c.drop_member('struct user_event', 'multi', 'persist', 'auto_del',
                  'enablers', 'enablers_lock')
    c.drop_member('struct user_event', 'index',
                  new='\tu32\t\t\tindex;\t\t/* status byte */\n')
    c.comment('user_event_table', F('perf/event_mutex-comment.c'))
    c.drop('user_events_count', 'user_events_max', 'user_event_multi_id',
           'USER_EVENT_MAX_ENABLERS')

    # the fd's array holds events, not slots with an ABI bit
    replace(c, 'struct user_event_refs', 'perf/struct-user_event_refs.c')
    c.drop('USER_SLOT_BIT_ABI', 'user_slot_event')
    replace(c, 'user_event_slot_of_fd', 'perf/user_event_of_fd.c')
    replace(c, 'user_event_write_check', 'perf/user_event_write_check.c')
    # with the status page alone, nobody listening is always accepted
    c.comment('user_event_emit',
              '/*\n * Record a write of @len payload bytes, at @src when they '
              'are one piece of\n * user memory: 0 or an errno\n */\n')
    c.drop_param('user_event_emit', 'bits')
    c.edit('user_event_emit',
           '\t/*\n'
           '\t * Nobody listening: a status-page index is accepted with nothing\n'
           '\t * recorded; an enable-bit index is refused, as Linux 6.5+ does. Rare\n'
           '\t * for a client that tests its byte or bit before writing.\n'
           '\t */\n'
           '\tif (unlikely(!user_event_call_probes(ue, i, len, &w)))\n'
           '\t\treturn bits ? -EBADF : 0;\n'
           '\tif (unlikely(w.stop))\n',
           '\t/* Nobody listening: accepted, nothing recorded */\n'
           '\tif (user_event_call_probes(ue, i, len, &w) && unlikely(w.stop))\n')
    c.drop_arg('user_events_write_iter', 'user_event_emit', 4)
    c.drop_arg('user_events_write', 'user_event_emit', 4)
    replace(c, 'user_event_fd_add', 'perf/user_event_fd_add.c')
    replace(c, 'user_events_release', 'perf/user_events_release.c')

    # the section "Enable bits", and the consumers without them
    c.drop_section('struct user_event_mm')
    c.drop_prototype('user_event_update_enablers')
    c.comment('user_event_update_status',
              '/* Tell the status byte of @ue that its consumers changed */\n')
    c.drop_stmt('user_event_update_status', 'user_event_update_enablers')
    c.unwrap_stmt('user_event_update_status', 'index')

    # auto-deletion and PERSIST
    c.drop('user_event_unused',
           'user_event_reap_fn', 'user_event_reap_work',
           'user_event_reap', 'user_event_put', 'user_event_adopt')
    c.comment('user_event_busy', '/* Is @ue held by an fd, or has it a consumer? */\n')
    c.drop_stmt('user_event_consumer_reg', 'user_event_unused')
    c.drop_stmt('user_events_ioctl_del', 'persist')

    # MULTI_FORMAT and the user_events_max sysctl
    replace(c, 'user_name_key', 'perf/user_name_key.c')
    c.drop('user_event_find_multi', 'user_event_sysctls')
    c.drop_stmt('user_event_release_memory', 'user_events_count')
    c.drop_stmt('user_event_release_memory', 'enablers_lock')
    c.drop_stmt('user_event_add_trace_call', 'system_multi',
                new='\tue->class.system = ue->group->system;\n')
    c.drop_member('struct user_event_group', 'system_multi')
    c.edit('user_init_group',
           '\t.system_multi\t= USER_EVENTS_MULTI_SYSTEM,\n', '')
    c.drop_stmt('trace_events_user_init', 'user_event_sysctls')
    c.comment('user_event_show',
              '/*\n * "u:name[:flags] fields", the form Linux 6.4 and later '
              'show. Written back\n * after "!", a line deletes its event, '
              'and also every other type\'s event\n * of that name whose '
              'match takes it (dyn_event_release() asks each\n * type), as '
              '"-:name" does: "!u:user_events/name" or "-:user_events/name"'
              '\n * deletes this one alone.\n */\n')
    c.drop_stmt('user_event_show', 'multi')
    c.edit('user_event_show',
           '\tseq_puts(m, USER_EVENTS_PREFIX);\n\tseq_puts(m, ue->name);\n',
           '\tseq_printf(m, "%s%s", USER_EVENTS_PREFIX, ue->name);\n')

    # creating: always with a status byte, so no UE_GET_* flags
    c.drop('UE_GET_SLOT')
    c.drop_param('user_event_alloc', 'how')
    c.drop_stmt('user_event_alloc', 'user_events_count')
    for member in ('multi', 'persist', 'auto_del', 'enablers',
                   'enablers_lock'):
        c.drop_stmt('user_event_alloc', member)
    c.drop_stmt('user_event_alloc', 'UE_GET_MULTI',
                new='\tue->name = d->name;\n')
    c.drop_param('user_event_create_spec', 'how')
    # no limit: retired events wait for their grace
    c.drop('user_events_full')
    c.edit('user_event_create_spec',
           '\t/* retired events count: those no buffer holds any more go first */\n'
           '\tif (user_events_full() && !list_empty(&user_retired_events))\n'
           '\t\tuser_retired_reclaim(g);\n'
           '\tif (user_events_full())\n'
           '\t\treturn ERR_PTR(-EMFILE);\n', '')
    c.comment('USER_RETIRED_CHECK', F('perf/retired-comment.c'))
    c.comment('user_retired_done',
              '/*\n * May @r\'s event go? Every buffer is free of its records '
              '(it lets go of\n * those that are), since USER_RETIRED_GRACE.\n */\n')
    c.drop_param('user_retired_done', 'hurry')
    c.edit('user_retired_done', '\tif (!done || hurry)\n', '\tif (!done)\n')
    c.edit('user_retired_reclaim',
           ' * Remove the retired events that no buffer holds records of any more: past\n'
           ' * their grace, or at once those of group @room_for, which needs the room\n'
           ' * (of every group when kernel.user_events_max is reached)\n',
           ' * Remove the retired events that no buffer holds records of any more, past\n'
           ' * their grace\n')
    c.drop_param('user_retired_reclaim', 'room_for')
    c.drop_prototype('user_retired_reclaim')
    c.edit('user_retired_reclaim', 'user_retired_reclaim()', 'user_retired_reclaim(void)')
    c.drop_stmt('user_retired_reclaim', 'user_events_count')
    c.drop_arg('user_retired_reclaim', 'user_retired_done', 2)
    c.drop_arg('user_retired_work_fn', 'user_retired_reclaim', 0)
    c.drop_arg('user_event_create_spec', 'user_event_alloc', 2)
    c.drop_stmt('user_event_create_spec', 'UE_GET_SLOT',
                new='\tret = user_event_add_slot(ue);\n')
    c.unwrap_stmt('user_event_create_spec', 'index')
    c.comment('user_event_find_or_create', F('perf/user_event_find_or_create-comment.c'))
    c.drop_param('user_event_find_or_create', 'how')
    c.drop_stmt('user_event_find_or_create', 'UE_GET_MULTI',
                new='\tue = user_event_find(g, d.name);\n')
    c.drop_stmt('user_event_find_or_create', 'user_event_adopt')
    c.drop_arg('user_event_find_or_create', 'user_event_create_spec', 2)
    c.drop_arg('user_event_create', 'user_event_find_or_create', 3)
    c.unwrap_stmt('user_event_unlist', 'index')

    # registering: the status page only
    c.drop('user_event_fd_register')
    replace(c, 'user_events_ioctl_reg', 'perf/user_events_ioctl_reg.c')
    c.drop('user_bit_check', 'user_reg_bits_from_user',
           'user_events_ioctl_reg_bits', 'user_events_ioctl_reg_any',
           'user_events_ioctl_unreg', 'DIAG_IOCSUNREG32')
    c.drop_stmt('user_events_ioctl', 'DIAG_IOCSUNREG')
    c.drop_stmt('user_events_ioctl', 'user_events_ioctl_reg_any',
                new='\t\treturn user_events_ioctl_reg(file, '
                    '(void __user *)uarg);\n')
    c.drop_stmt('user_events_compat_ioctl', 'DIAG_IOCSUNREG32')
    # the enablers of released memories, dropped where events are looked at
    # (after the comment() rules above, which start from the final items)
    c.drop_prototype('user_event_mm_drop_released')
    for f in ('user_event_find_or_create', 'user_event_busy',
              'user_events_ioctl_del'):
        c.drop_stmt(f, 'user_event_mm_drop_released')
    s = done(c, 'perf.c', final, gone)

    # ---- dynevents.c: without perf and eBPF
    c = Cut(s, 'dynevents.c')
    c.drop_member('struct user_event_write', 'bpf_ran', 'bpf_keep')
    c.drop_member('struct user_event', 'bpf_iter', 'perf_users')
    c.drop_block('user_event_perf')
    c.comment('user_event_call_probe',
              '/*\n * One consumer\'s probe. The kind that attaches '
              '(user_event_consumer_reg()), ftrace,\n * is called directly, its body '
              'inline in the writer: no call through the\n * pointer, no probe '
              'prologue, on the path of every record. The probe\'s\n * address '
              'tells it, and only a probe of ours is called: a removal that\n'
              ' * could not allocate a smaller array leaves tp_stub_func in its '
              'place,\n * with the data of the consumer that is gone.\n */\n')
    c.edit('user_event_call_probe',
           '#ifdef CONFIG_PERF_EVENTS\n'
           '\telse if (f->func == (void *)user_event_perf)\n'
           '\t\tuser_event_perf(f->data, ue, i, len, w);\n'
           '#endif\n', '')
    c.edit('user_event_consumer_max',
           '#ifdef CONFIG_PERF_EVENTS\n'
           '\t/* perf (and eBPF): the record and perf\'s u32 size in '
           'PERF_MAX_TRACE_SIZE */\n'
           '\tif (f->func == (void *)user_event_perf)\n'
           '\t\treturn USER_EVENT_PERF_MAX;\n'
           '#endif\n', '')
    c.drop_stmt('user_event_status', 'perf_users',
                new='\treturn ue->ftrace_users ? EVENT_STATUS_FTRACE : 0;\n')
    replace(c, 'user_event_consumer_reg', 'dynevents/user_event_consumer_reg.c')
    c.drop('user_flags_have')
    c.drop_stmt('user_event_alloc', 'bpf_iter')
    c.edit('user_consumer_names', '\t[EVENT_BIT_PERF] = "perf",\n', '')
    s = done(c, 'dynevents.c', final, gone)

    # ---- printfmt.c: without dynamic_events
    c = Cut(s, 'printfmt.c')
    c.drop('#include "trace_dynevent.h"')
    c.drop_member('struct user_event', 'devent')
    c.drop('to_user_event')
    c.drop_stmt('user_event_add_trace_call', 'dyn_event_init')
    c.drop_stmt('user_event_add_trace_call', 'dyn_event_add',
                new='\treturn 0;\n')
    c.drop_stmt('user_event_unlist', 'dyn_event_remove')
    c.edit('user_event_delete', '(DIAG_IOCSDEL, dynamic_events)', '(DIAG_IOCSDEL)')
    c.drop_section('user_system_of_command')
    c.drop_prototype('user_event_ops')
    # the early initcall keeps making the status page, without the u: command
    replace(c, 'trace_events_user_init_early',
            'printfmt/trace_events_user_init_early.c')
    c.comment('user_events_off', '/* Boot-time set-up failed: no events, ever */\n')
    s = done(c, 'printfmt.c', final, gone)

    # ---- core.c: without the print format
    c = Cut(s, 'core.c')
    c.drop('user_field_fmt', 'user_event_set_print_fmt')
    title(c, 'user_field_fmt', 'Output')
    c.edit('user_event_add_trace_call',
           '\tret = user_event_set_print_fmt(ue);\n\tif (ret)\n\t\treturn ret;\n',
           '')
    done(c, 'core.c', final, gone)


try:
    gone = uapi(open(os.path.join(repo, 'include/uapi/linux/user_events.h')).read())
    final = open(os.path.join(repo, 'kernel/trace/trace_events_user.c')).read()
    # the enable-bit patch has the final uapi header
    stages(nogroups(final, frozenset()), gone)
except CutError as e:
    sys.exit('stage.py: %s' % e)
finally:
    open(os.path.join(outdir, 'stages.log'), 'w').write('\n'.join(log))
if stamp:
    open(stamps_path, 'w').write(''.join(
        l + '\n' for _, l in sorted(stamps_now.items())))
elif changed:
    print('stage.py: changed in the final file since their earlier versions '
          'were written: %s. If a change fixes what the earlier version has '
          'too, fix it there; then run scripts/patches.d/stage.py --stamp %s '
          'DIR.' % (', '.join(changed), repo), file=sys.stderr)
