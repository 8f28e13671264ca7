# gdb -batch -x scripts/bench-profile.py (run by scripts/bench-profile).
# Connects to QEMU's gdb stub, breaks on getpgid(0x7777xxxx) (ue_bench -p
# marks each profiled write so), single-steps to the next write() or
# writev() and through it back to user space, and writes, per marked write,
# the guest instructions of each kernel function: self (executed in it) and
# inclusive (in it and in what it called), and the call sequence; and the
# user-space instructions from the mark to the system call, per function of
# the (static) program when USERMAP names its symbols.
# Environment: SYSMAP (System.map), PORT, OUT (report file), USERMAP
# (`nm -n` of the program, optional).
import bisect
import collections
import os

import gdb

KERNEL = 0xffff800000000000
MARK, MARK_MASK = 0x77770000, 0xffff0000
WRITES = (1, 20)        # write, writev

addrs, names = [], []
with open(os.environ["SYSMAP"]) as f:
    for line in f:
        a, t, n = line.split()[:3]
        if t in "tTwW":
            addrs.append(int(a, 16))
            names.append(n)
order = sorted(range(len(addrs)), key=lambda i: addrs[i])
addrs = [addrs[i] for i in order]
names = [names[i] for i in order]
starts = set(addrs)
syscall_entry = addrs[names.index("entry_SYSCALL_64")]

# the program's functions (a static, non-PIE executable: addresses as linked)
uaddrs, unames = [], []
if os.environ.get("USERMAP"):
    with open(os.environ["USERMAP"]) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTi":
                uaddrs.append(int(parts[0], 16))
                unames.append(parts[2])


def sym(pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return names[i] if i >= 0 else "?"


def usym(pc):
    i = bisect.bisect_right(uaddrs, pc) - 1
    return unames[i] if i >= 0 else "?"


def reg(r):
    return int(gdb.parse_and_eval("$" + r)) & 0xffffffffffffffff


def step():
    gdb.execute("stepi", to_string=True)


getpgid = addrs[names.index("__x64_sys_getpgid")]
gdb.execute("set pagination off")
gdb.execute("set confirm off")
# a loaded host answers late: gdb's 2 s default lost the packets' order
gdb.execute("set remotetimeout 600")
gdb.execute("target remote :%s" % os.environ["PORT"])
# pt_regs->di, at 0x70, is the pid asked for: the mark
gdb.execute("break *0x%x if (*(long *)($rdi + 0x70) & 0x%x) == 0x%x"
            % (getpgid, MARK_MASK, MARK))

out = open(os.environ["OUT"], "w")
while True:
    try:
        gdb.execute("continue", to_string=True)
        mark = int(gdb.parse_and_eval("*(long *)($rdi + 0x70)")) & 0xffffffff
    except gdb.error:
        break           # the guest is gone: ue_bench is done
    # to the marked write's system call: whatever else the CPU does before
    # (an interrupt, another task) is stepped over
    # (user: the user-space instructions from the mark to that system call:
    # the caller's loop, a library's work, libc's wrapper)
    skipped = 0
    while True:
        while reg("pc") >= KERNEL:
            step()
        user = 0
        ucount = collections.Counter()
        while reg("pc") < KERNEL:
            if uaddrs:
                ucount[usym(reg("pc"))] += 1
            step()
            user += 1
        if reg("pc") == syscall_entry and reg("rax") in WRITES:
            break
        skipped += 1
    selfc = collections.Counter()
    incl = collections.Counter()
    runs = []
    stack = []
    total = 0
    while True:
        p = reg("pc")
        if p < KERNEL:
            break
        s = sym(p)
        if p in starts and (not stack or stack[-1] != s):
            stack.append(s)
        elif s in stack:
            while stack[-1] != s:
                stack.pop()
        else:
            stack.append(s)
        selfc[s] += 1
        for f in set(stack):
            incl[f] += 1
        if runs and runs[-1][0] == s and runs[-1][2] == len(stack):
            runs[-1][1] += 1
        else:
            runs.append([s, 1, len(stack)])
        total += 1
        step()
    out.write("## %#x: %d instructions from the system call's entry back to"
              " user space (%d other kernel entries before it; %d user-space"
              " instructions from the mark to the system call)\n\n"
              % (mark, total, skipped, user))
    out.write("### self, inclusive\n\n")
    for f, n in sorted(incl.items(), key=lambda x: -x[1]):
        out.write("%6d %6d  %s\n" % (selfc[f], n, f))
    if ucount:
        out.write("\n### user space from the mark, self\n\n")
        for f, n in sorted(ucount.items(), key=lambda x: -x[1]):
            out.write("%6d  %s\n" % (n, f))
    out.write("\n### sequence (function, instructions)\n\n")
    for f, n, d in runs:
        out.write("%s%s %d\n" % ("  " * min(d, 30), f, n))
    out.write("\n")
    out.flush()
    gdb.write("profile: %#x: %d\n" % (mark, total))
