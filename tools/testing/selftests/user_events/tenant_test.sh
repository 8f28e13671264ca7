#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tenant_test.sh: a tenant group with a trace buffer of its own, used the
# way a container uses it. The host makes the group (buffer_kb=, uid=,
# gid=); each "container" is a mount namespace with the group's directory
# bind-mounted at /sys/kernel/tracing, run as uid 65534 with no
# capabilities. There, with the standard tools:
#
#   - the directory holds what a tracer reads and none of an instance's
#     files that reach further (tracer, options, snapshot, marker);
#   - cat trace_pipe, and trace-cmd record -d / report, show exactly the
#     records the container's clients wrote through both ABIs, every field;
#   - each refusal (triggers, kernel symbols in filters, a buffer past its
#     bound, other systems' events) fails with its errno and changes nothing;
#   - the host's buffer keeps its own records and enables, and records the
#     group's events when it enables them itself, whatever the tenant does;
#   - a tenant that reads too slowly loses its own records only, counted in
#     its per_cpu/cpuN/stats;
#   - two tenants with buffers see only their own events;
#   - the buffer is charged to the memory cgroup of the process that made
#     the group, also when the tenant resizes it, and removing the group
#     while a container has the directory mounted and trace_pipe open ends
#     the read and gives the memory back.
#
# Tools: $TRACE_CMD (default: from PATH), unshare and setpriv (util-linux).
# Prints KTAP; exits 0 when every check passed, 1 otherwise, 4 (skip) when
# not run as root.

dir=$(cd "$(dirname "$0")" && pwd)
T=/sys/kernel/tracing
TRACE_CMD=${TRACE_CMD:-trace-cmd}

. "$dir/ktap.sh"
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root"
fi
for t in unshare setpriv "$TRACE_CMD"; do
	command -v "$t" > /dev/null || ktap_bail "no $t"
done
tool_timeout=$(ue_scale_s "${CLIENTS_TOOL_TIMEOUT:-600}")

# What the containers run, where uid 65534 can read it
work=$(mktemp -d /tmp/tenant_test.XXXXXX)
chmod 1777 "$work"
cg_mnt=
cp "$dir/ue_emit" "$work/"
desc='tev u32 n; char[8] s; __rel_loc char[] msg'

cleanup() {
	local g
	for g in tbufa tbufb; do
		[ -d "$T/user_groups/$g" ] || continue
		echo 0 > "$T/user_groups/$g/events/enable" 2> /dev/null
		echo "-:user_events_$g/tev" >> "$T/dynamic_events" 2> /dev/null
		echo "!$g" >> "$T/user_events_groups" 2> /dev/null
	done
}
cleanup
trap 'cleanup; [ -n "$cg_mnt" ] && umount "$cg_mnt"; rm -rf "$work"' EXIT

# in_ns GROUP SCRIPT OUT: SCRIPT (bash) as the group's container: its own
# mount namespace, the group's directory at /sys/kernel/tracing, uid and
# gid 65534, no capabilities; output in OUT, its status returned
in_ns() {
	timeout "$tool_timeout" unshare -m sh -c '
		mount --bind "$1" /sys/kernel/tracing &&
		exec setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all bash "$2"' \
		_ "$T/user_groups/$1" "$2" > "$3" 2>&1
}

# ns_script NAME: a script file for in_ns, from standard input, after a
# prologue that gives it $work, $desc and err() (the strerror of a write)
ns_script() {
	{
		echo "work=$work; desc='$desc'; cd \$work"
		cat <<'EOP'
T=/sys/kernel/tracing
# err FILE VALUE: write VALUE; print "ok" or the error's text
err() {
	if out=$( (printf "%s\n" "$2" > "$1") 2>&1); then echo ok; else echo "${out##*: }"; fi
}
# erra FILE VALUE: the same, appended (O_TRUNC of set_event clears it)
erra() {
	if out=$( (printf "%s\n" "$2" >> "$1") 2>&1); then echo ok; else echo "${out##*: }"; fi
}
EOP
		cat
	} > "$work/$1"
	chmod 644 "$work/$1"
	echo "$work/$1"
}

# recs FILE: the fields of FILE's tev records, each ended by '|'
recs() {
	sed -n 's/.* tev: //p' "$1" | tr '\n' '|'
}

# make_group NAME KB: a group with a buffer of KB KiB per CPU for uid 65534
make_group() {
	echo "$1 max=16 buffer_kb=$2 uid=65534 gid=65534" >> "$T/user_events_groups"
}

# The host's own records, before any tenant did anything
echo 'host record before' > "$T/trace_marker"
host_enable_before=$(cat "$T/events/enable")
host_size_before=$(cat "$T/buffer_size_kb")

if ! make_group tbufa 64; then
	ktap_bail "could not make a group with a buffer"
fi
if grep -qx 'tbufa max=16 events=0 buffer_kb=64' "$T/user_events_groups"; then
	pass "groups_file_shows_buffer"
else
	fail "groups_file_shows_buffer"
	comment "$T/user_events_groups"
fi

# 1. What the container sees
s=$(ns_script files.sh <<'EOF'
id -u; id -g
grep CapEff /proc/self/status
grep -c ' /sys/kernel/tracing tracefs ' /proc/mounts
for f in trace trace_pipe buffer_size_kb buffer_total_size_kb tracing_on \
	 trace_clock set_event events/enable events/header_page \
	 events/header_event per_cpu/cpu0/trace_pipe_raw per_cpu/cpu0/stats \
	 per_cpu/cpu0/trace user_events_data user_events_status; do
	[ -e "$T/$f" ] && echo "has $f"
done
for f in current_tracer set_ftrace_filter options trace_options snapshot \
	 trace_marker trace_marker_raw free_buffer instances \
	 per_cpu/cpu0/snapshot per_cpu/cpu0/buffer_size_kb \
	 buffer_subbuf_size_kb available_tracers set_event_pid \
	 set_event_notrace_pid; do
	[ -e "$T/$f" ] && echo "extra $f"
done
echo "mkdir: $( (mkdir $T/instances2) 2>&1 | sed 's/.*: //')"
EOF
)
in_ns tbufa "$s" "$work/files.out"
if [ "$(sed -n 1,2p "$work/files.out" | tr '\n' ' ')" = "65534 65534 " ] &&
	grep -q 'CapEff:	0000000000000000' "$work/files.out" &&
	[ "$(grep -c '^has ' "$work/files.out")" = 15 ] &&
	! grep -q '^extra ' "$work/files.out" &&
	grep -q '^mkdir: Operation not permitted' "$work/files.out"; then
	pass "container_sees_its_files_only"
else
	fail "container_sees_its_files_only"
	comment "$work/files.out"
fi

# 2. trace_pipe: the records of both ABIs, every field, and nothing else
s=$(ns_script pipe.sh <<'EOF'
./ue_emit -n 0 -D $T "$desc" || exit 1
echo 1 > $T/events/user_events_tbufa/tev/enable || exit 1
cat $T/trace_pipe > pipe.txt &
cat=$!
./ue_emit -n 2 -I n -D $T "$desc" n=1 s=ab msg=hello &&
./ue_emit -n 1 -b -D $T "$desc" n=10 s=cd 'msg=from bits' || exit 1
for i in $(seq 1 400); do
	[ "$(grep -c ' tev: ' pipe.txt)" -ge 3 ] && break
	sleep 0.05
done
kill $cat
sed -n 's/.* tev: //p' pipe.txt
EOF
)
in_ns tbufa "$s" "$work/pipe.out"
printf '%s\n' 'n=1 s=ab msg=hello' 'n=2 s=ab msg=hello' 'n=10 s=cd msg=from bits' \
	> "$work/pipe.want"
if cmp -s "$work/pipe.out" "$work/pipe.want"; then
	pass "trace_pipe_shows_both_abis"
else
	fail "trace_pipe_shows_both_abis"
	comment "$work/pipe.out"
fi

# 3. trace-cmd record -d and report, unmodified, in the container
s=$(ns_script tc.sh <<EOF
$TRACE_CMD record -d -o \$work/tc.dat -e 'user_events_tbufa:*' sh -c \\
	"./ue_emit -n 2 -I n -D \$T '\$desc' n=5 s=ef msg=recorded &&
	 ./ue_emit -n 1 -b -D \$T '\$desc' n=7 s=gh 'msg=bits recorded'" > tc.log 2>&1 ||
	{ cat tc.log; exit 1; }
$TRACE_CMD report -i \$work/tc.dat 2> /dev/null | sed -n 's/.* tev: *//p'
EOF
)
in_ns tbufa "$s" "$work/tc.out"
printf '%s\n' 'n=5 s=ef msg=recorded' 'n=6 s=ef msg=recorded' 'n=7 s=gh msg=bits recorded' \
	> "$work/tc.want"
if cmp -s "$work/tc.out" "$work/tc.want"; then
	pass "trace_cmd_records_and_reports"
else
	fail "trace_cmd_records_and_reports"
	comment "$work/tc.out"
fi

# 4. Refusals, each with its errno, and nothing changed
make_group tbufb 64 || ktap_bail "could not make a second group"
"$work/ue_emit" -n 0 -D "$T/user_groups/tbufb" "$desc" ||
	ktap_bail "could not register in the second group"
# a uprobe the host names after the group's system: not the tenant's to enable
hostprobe=no
if echo 'p:user_events_tbufa/hostprobe /bin/sh:0x0' >> "$T/dynamic_events" &&
	[ -d "$T/events/user_events_tbufa/hostprobe" ]; then
	hostprobe=yes
fi
s=$(ns_script refuse.sh <<'EOF'
ev=$T/events/user_events_tbufa/tev
echo 1 > $ev/enable
size=$(cat $T/buffer_size_kb)
echo "trigger stacktrace: $(err $ev/trigger stacktrace)"
echo "trigger snapshot: $(err $ev/trigger snapshot)"
echo "trigger other system: $(err $ev/trigger 'enable_event:user_events_tbufb:tev')"
echo "hist: $(err $ev/trigger 'hist:keys=common_stacktrace')"
echo 'n != 12345' > $ev/filter
echo "function filter: $(err $ev/filter 'n.function == schedule')"
echo "system function filter: $(err $T/events/user_events_tbufa/filter 'n.function == schedule')"
echo "filter kept: $(cat $ev/filter)"
# neither is in effect: a record still passes
./ue_emit -n 1 -D $T "$desc" n=99 s=ok msg=passes
echo "recorded: $(grep -c 'tev: n=99 ' $T/trace)"
echo "trigger: $(grep -v '^#' $ev/trigger)."
echo "past bound: $(err $T/buffer_size_kb 65)"
echo "size kept: $([ "$(cat $T/buffer_size_kb)" = "$size" ] && echo yes)"
echo "within bound: $(err $T/buffer_size_kb 8)"
echo "other group set_event: $(erra $T/set_event 'user_events_tbufb:tev')"
echo "kernel set_event: $(erra $T/set_event 'sched:sched_switch')"
echo "set_event: $(cat $T/set_event)"
echo "other group dir: $([ -e $T/events/user_events_tbufb ] || echo absent)"
echo "kernel dir: $([ -e $T/events/sched ] || echo absent)"
echo "host's probe: $([ -e $T/events/user_events_tbufa/hostprobe ] || echo absent)"
echo 0 > $ev/filter
EOF
)
in_ns tbufa "$s" "$work/refuse.out"
cat > "$work/refuse.want" <<'EOF'
trigger stacktrace: Operation not permitted
trigger snapshot: Operation not permitted
trigger other system: Operation not permitted
hist: Operation not permitted
function filter: Operation not permitted
system function filter: Operation not permitted
filter kept: n != 12345
recorded: 1
trigger: .
past bound: File too large
size kept: yes
within bound: ok
other group set_event: Invalid argument
kernel set_event: Invalid argument
set_event: user_events_tbufa:tev
other group dir: absent
kernel dir: absent
host's probe: absent
EOF
echo '-:user_events_tbufa/hostprobe' >> "$T/dynamic_events" 2> /dev/null
if [ $hostprobe = no ]; then
	fail "refusals_with_their_errno"
	echo "# the host could not make a uprobe in the group's system"
elif cmp -s "$work/refuse.out" "$work/refuse.want"; then
	pass "refusals_with_their_errno"
else
	fail "refusals_with_their_errno"
	diff "$work/refuse.want" "$work/refuse.out" | comment
fi
if [ "$(cat "$T/user_groups/tbufa/buffer_size_kb")" -le 12 ] &&
	[ "$(cat "$T/buffer_size_kb")" = "$host_size_before" ]; then
	pass "tenant_resize_is_its_own"
else
	fail "tenant_resize_is_its_own"
fi

# 5. The host: its records and enables as they were; the group's events in
# its own buffer when it enables them, both ABIs, with the tenant off
if grep -q 'host record before' "$T/trace" && ! grep -q ' tev: ' "$T/trace" &&
	[ "$(cat "$T/events/enable")" = "$host_enable_before" ] &&
	[ "$(cat "$T/events/user_events_tbufa/tev/enable")" = 0 ]; then
	pass "host_buffer_unchanged"
else
	fail "host_buffer_unchanged"
fi
echo 1 > "$T/events/user_events_tbufa/tev/enable"
s=$(ns_script hostsees.sh <<'EOF'
echo 0 > $T/tracing_on
echo > $T/trace
./ue_emit -n 1 -D $T "$desc" n=21 s=ho msg=host &&
./ue_emit -n 1 -b -D $T "$desc" n=22 s=ho msg=host
grep -c ' tev: ' $T/trace
echo 1 > $T/tracing_on
EOF
)
in_ns tbufa "$s" "$work/hostsees.out"
echo 0 > "$T/events/user_events_tbufa/tev/enable"
if [ "$(cat "$work/hostsees.out")" = 0 ] &&
	[ "$(recs "$T/trace")" = 'n=21 s=ho msg=host|n=22 s=ho msg=host|' ]; then
	pass "host_records_group_events_itself"
else
	fail "host_records_group_events_itself"
	comment "$work/hostsees.out"
fi

# 6. A slow tenant loses its own records only, counted in its stats
host_overrun=$(cat "$T"/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n }')
s=$(ns_script slow.sh <<'EOF'
echo 8 > $T/buffer_size_kb
echo 1 > $T/events/user_events_tbufa/tev/enable
./ue_emit -n 3000 -I n -D $T "$desc" n=1 s=lost "msg=$(printf '%0200d' 0)" || exit 1
cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n }'
echo 0 > $T/events/user_events_tbufa/tev/enable
EOF
)
in_ns tbufa "$s" "$work/slow.out"
host_overrun2=$(cat "$T"/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n }')
if [ "$(cat "$work/slow.out")" -gt 0 ] 2> /dev/null && [ "$host_overrun" = "$host_overrun2" ]; then
	pass "slow_tenant_loses_its_own"
else
	fail "slow_tenant_loses_its_own"
	comment "$work/slow.out"
	echo "# host overrun $host_overrun then $host_overrun2"
fi

# 7. Two tenants at once: each its own
s=$(ns_script two.sh <<'EOF'
echo > $T/trace
echo 1 > $T/events/user_events_tbufb/tev/enable
./ue_emit -n 1 -D $T "$desc" n=31 s=bb msg=b
sed -n 's/.* tev: //p' $T/trace
ls $T/events | grep user_events
EOF
)
in_ns tbufb "$s" "$work/two_b.out"
echo 1 > "$T/user_groups/tbufa/events/user_events_tbufa/tev/enable"
echo > "$T/user_groups/tbufa/trace"
"$work/ue_emit" -n 1 -D "$T/user_groups/tbufa" "$desc" n=41 s=aa msg=a
if [ "$(tr '\n' '|' < "$work/two_b.out")" = 'n=31 s=bb msg=b|user_events_tbufb|' ] &&
	[ "$(recs "$T/user_groups/tbufa/trace")" = 'n=41 s=aa msg=a|' ]; then
	pass "two_tenants_each_their_own"
else
	fail "two_tenants_each_their_own"
	comment "$work/two_b.out"
fi
cleanup

# 8. Charged to the maker's memory cgroup; removal while mounted and open
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg" ]; then
	cg=$(mktemp -d /tmp/tenant_cg.XXXXXX)
	mount -t cgroup2 none "$cg" || ktap_bail "no cgroup2"
	cg_mnt=$cg
fi
echo +memory > "$cg/cgroup.subtree_control" 2> /dev/null
mkdir -p "$cg/tenant_maker"
kb=1024
before=$(cat "$cg/tenant_maker/memory.current")
sh -c "echo \$\$ > $cg/tenant_maker/cgroup.procs &&
	echo 'tbufa max=16 buffer_kb=$kb uid=65534 gid=65534' >> $T/user_events_groups" ||
	ktap_bail "could not make the group in a memory cgroup"
made=$(cat "$cg/tenant_maker/memory.current")
ncpu=$(grep -c '^processor' /proc/cpuinfo)
if [ $((made - before)) -ge $((ncpu * kb * 1024 * 9 / 10)) ]; then
	pass "buffer_charged_to_maker"
else
	fail "buffer_charged_to_maker"
	echo "# memory.current $before then $made, $ncpu CPUs of $kb KiB"
fi

# the tenant, in another cgroup, resizes it: the maker's cgroup follows
s=$(ns_script shrink.sh <<'EOF'
echo 256 > $T/buffer_size_kb && echo ok
EOF
)
in_ns tbufa "$s" "$work/shrink.out"
small=$(cat "$cg/tenant_maker/memory.current")
s=$(ns_script grow.sh <<'EOF'
echo 1024 > $T/buffer_size_kb && echo ok
EOF
)
in_ns tbufa "$s" "$work/grow.out"
big=$(cat "$cg/tenant_maker/memory.current")
step=$((ncpu * 700 * 1024))
if [ "$(cat "$work/shrink.out" "$work/grow.out")" = "$(printf 'ok\nok')" ] &&
	[ "$small" -le $((made - step)) ] && [ "$big" -ge $((small + step)) ]; then
	pass "tenant_resize_charged_to_maker"
else
	fail "tenant_resize_charged_to_maker"
	echo "# memory.current $made, $small after 256 KiB, $big after 1024 KiB"
fi

s=$(ns_script removed.sh <<'EOF'
./ue_emit -n 0 -D $T "$desc" || exit 1
echo 1 > $T/events/user_events_tbufa/tev/enable
./ue_emit -n 1 -D $T "$desc" n=51 s=rm msg=before
exec 3<> $T/buffer_size_kb
touch reading
cat $T/trace_pipe > removed.txt
echo "read ended: $?"
touch ended
while [ ! -e done ]; do sleep 0.05; done
echo "grow: $( (echo 1024 >&3) 2>&1 | sed 's/.*: //')"
echo "after: $(ls $T 2> /dev/null | wc -l) $( (cat $T/trace) 2>&1 | sed 's/.*: //')"
EOF
)
rm -f "$work/reading" "$work/ended" "$work/done"
in_ns tbufa "$s" "$work/removed.out" &
ns=$!
ue_wait 60 "the container's reader" test -e "$work/reading"
ue_wait 60 "the reader's first record" grep -q 'n=51' "$work/removed.txt"
echo 0 > "$T/user_groups/tbufa/events/enable"
echo '-:user_events_tbufa/tev' >> "$T/dynamic_events"
if echo '!tbufa' >> "$T/user_events_groups"; then
	removed=yes
fi
# the container still has the directory mounted and buffer_size_kb open
ue_wait 60 "the reader to end" test -e "$work/ended"
after=$(cat "$cg/tenant_maker/memory.current")
touch "$work/done"
wait $ns
if [ "$removed" = yes ] && grep -q '^read ended: 0' "$work/removed.out" &&
	grep -q '^grow: No such device' "$work/removed.out" &&
	grep -q '^after: 0 No such file or directory' "$work/removed.out" &&
	[ ! -e "$T/user_groups/tbufa" ]; then
	pass "removed_while_mounted_and_open"
else
	fail "removed_while_mounted_and_open"
	comment "$work/removed.out"
fi
if [ $((after - before)) -lt $((ncpu * kb * 1024 / 4)) ]; then
	pass "removal_frees_the_buffer"
else
	fail "removal_frees_the_buffer"
	echo "# memory.current $before, $made with the group, $after after it"
fi
rmdir "$cg/tenant_maker" 2> /dev/null

ktap_done
