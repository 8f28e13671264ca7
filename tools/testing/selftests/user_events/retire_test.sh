#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# retire_test.sh: a deleted event's records, after the deletion, in what the
# distribution's tools read. A deletion used to empty every buffer the event
# had been enabled in; now the event is retired: its records stay, decoded
# with its fields, its format under events/user_events_retired/NAME_ID/, and
# its name registers again at once with other fields and a new type.
#
#   - a perf.data file that perf record wrote before the deletion decodes
#     with perf script after it (perf keeps the formats in its file);
#   - trace-cmd extract, after the deletion, saves the ftrace buffer with
#     the retired event's format, and trace-cmd report decodes its records;
#     extract clears the buffer before it reads the formats, which stay a
#     while for such readers: kernel.user_events_retired_grace seconds (60
#     unless changed), a sysctl that takes 0 to a day (EINVAL else) and
#     applies at once;
#   - the name's new incarnation, recorded by perf and ftrace, decodes with
#     its own format, beside the old records.
#
# Tools: $PERF, $TRACE_CMD (default: from PATH). Prints KTAP; exits 0 when
# every check passed, 1 otherwise, 4 (skip) when not run as root.

dir=$(cd "$(dirname "$0")" && pwd)
tracefs=/sys/kernel/tracing
ue=$dir/ue_emit
PERF=${PERF:-perf}
TRACE_CMD=${TRACE_CMD:-trace-cmd}

. "$dir/ktap.sh"
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root"
fi
# run_tool's bound, for a hang: CLIENTS_TOOL_TIMEOUT (600 s) times the factor
tool_timeout=$(ue_scale "${CLIENTS_TOOL_TIMEOUT:-600}")

old_desc='rt_del u32 n; __rel_loc char[] s'
new_desc='rt_del u64 m'
grace_file=/proc/sys/kernel/user_events_retired_grace
grace_saved=$(cat "$grace_file")
ktap_plan 16

tmp=$(mktemp -d /tmp/retire_test.XXXXXX) || exit 1
cleanup() {
	echo 0 2>/dev/null > "$tracefs/events/user_events/rt_del/enable"
	echo '!u:rt_del' 2>/dev/null >> "$tracefs/dynamic_events"
	echo '-:user_events_rtg/rt_a' 2>/dev/null >> "$tracefs/dynamic_events"
	echo '!rtg' 2>/dev/null >> "$tracefs/user_events_groups"
	echo > "$tracefs/trace"
	[ -n "$grace_saved" ] && echo "$grace_saved" > "$grace_file"
	rm -rf "$tmp"
}
trap cleanup EXIT

# check NAME FILE PATTERN...: each extended regex matches a line of FILE
check() {
	local name=$1 file=$2 p

	shift 2
	for p in "$@"; do
		if ! grep -Eq -- "$p" "$file"; then
			fail "$name"
			echo "# no line matches '$p' in:"
			comment "$file"
			return
		fi
	done
	pass "$name"
}

# check_now: have the kernel look for retired events it can remove, now:
# it does before refusing an event for want of room, here in a group of its
# own with a limit of one (which hurries only that group's retired events)
check_now() {
	echo 'rtg max=1' >> "$tracefs/user_events_groups"
	echo 'u:user_events_rtg/rt_a u32 x' >> "$tracefs/dynamic_events"
	echo 'u:user_events_rtg/rt_b u32 x' 2>/dev/null >> "$tracefs/dynamic_events"
	echo '-:user_events_rtg/rt_a' >> "$tracefs/dynamic_events"
	echo '!rtg' >> "$tracefs/user_events_groups"
}

# the grace as the kernel starts with it (the tests that change it put it back)
if [ "$grace_saved" = 60 ]; then
	pass grace_default_60
else
	fail grace_default_60
	echo "# $grace_file: '$grace_saved'"
fi

# --- the first incarnation, recorded by perf and by ftrace ------------------
echo 0 2>/dev/null > "$tracefs/events/user_events/rt_del/enable"
echo '!u:rt_del' 2>/dev/null >> "$tracefs/dynamic_events"
echo > "$tracefs/trace"
if echo "u:$old_desc" >> "$tracefs/dynamic_events"; then
	pass create
else
	fail create
	comment "$tracefs/error_log"
fi
old_id=$(cat "$tracefs/events/user_events/rt_del/id" 2>/dev/null)

# perf attaches at the workload's exec; the writer waits for its status byte
if run_tool "perf record" "$tmp/rec1.out" "$PERF" record -N -o "$tmp/old.data" \
	-e user_events:rt_del -- "$ue" -w -n 3 -I n "$old_desc" n=1 s=perf; then
	pass perf_record_old
else
	fail perf_record_old
	comment "$tmp/rec1.out"
fi
echo 1 > "$tracefs/events/user_events/rt_del/enable"
"$ue" -n 3 -I n "$old_desc" n=11 s=ftrace
echo 0 > "$tracefs/events/user_events/rt_del/enable"
echo rt_marker > "$tracefs/trace_marker"

# --- deleted: retired, not emptied ------------------------------------------
if echo '!u:rt_del' >> "$tracefs/dynamic_events" &&
	[ ! -d "$tracefs/events/user_events/rt_del" ] &&
	[ -f "$tracefs/events/user_events_retired/rt_del_$old_id/format" ]; then
	pass delete_retires
else
	fail delete_retires
	ls "$tracefs/events/user_events_retired" 2>&1 | comment -
fi
check trace_after_delete "$tracefs/trace" 'rt_del: n=12 s=ftrace$' \
	'tracing_mark_write: rt_marker$'
run_tool "perf script" "$tmp/script1.out" "$PERF" script -i "$tmp/old.data"
check perf_script_after_delete "$tmp/script1.out" \
	'user_events:rt_del: n=1 s=perf$' 'user_events:rt_del: n=3 s=perf$'
# the grace: past a day, or what is not an unsigned int, is EINVAL and
# changes nothing; both ends are taken
bad=
for v in 86401 4294967295 4294967296 -1 abc ''; do
	err=$( { echo "$v" > "$grace_file"; } 2>&1 )
	case $err in
	*"Invalid argument"*) ;;
	*) bad="$bad '$v' (${err:-taken}, not EINVAL)" ;;
	esac
	[ "$(cat "$grace_file")" = "$grace_saved" ] || bad="$bad '$v' changed it"
done
for v in 86400 0 3600; do
	echo "$v" > "$grace_file" && [ "$(cat "$grace_file")" = "$v" ] || bad="$bad $v refused"
done
if [ -z "$bad" ]; then
	pass grace_sysctl_range
else
	fail grace_sysctl_range
	echo "# wrong:$bad"
fi
# the buffer is clean from the extract on, and the grace starts then: an
# hour (set above), so that no guest is slow enough to spend it here
run_tool "trace-cmd extract" "$tmp/extract1.out" "$TRACE_CMD" extract -o "$tmp/ext1.dat" ||
	comment "$tmp/extract1.out"
run_tool "trace-cmd report" "$tmp/report1.out" "$TRACE_CMD" report -i "$tmp/ext1.dat"
check trace_cmd_after_delete "$tmp/report1.out" \
	"rt_del_$old_id: +n=11 s=ftrace\$" "rt_del_$old_id: +n=13 s=ftrace\$" 'rt_marker'
# the extract cleared the buffer, then read the formats: they stay the grace
check_now
if [ -f "$tracefs/events/user_events_retired/rt_del_$old_id/format" ]; then
	pass format_kept_after_extract
else
	fail format_kept_after_extract
fi

# --- the name again, other fields, a new type -------------------------------
if echo "u:$new_desc" >> "$tracefs/dynamic_events" &&
	new_id=$(cat "$tracefs/events/user_events/rt_del/id") &&
	[ "$new_id" != "$old_id" ]; then
	pass reregister
else
	fail reregister
	echo "# ids: old $old_id, new ${new_id:-none}"
fi
if run_tool "perf record" "$tmp/rec2.out" "$PERF" record -N -o "$tmp/new.data" \
	-e user_events:rt_del -- "$ue" -w -n 2 -I m "$new_desc" m=5; then
	pass perf_record_new
else
	fail perf_record_new
	comment "$tmp/rec2.out"
fi
run_tool "perf script" "$tmp/script2.out" "$PERF" script -i "$tmp/new.data"
check perf_script_new "$tmp/script2.out" 'user_events:rt_del: m=5$' \
	'user_events:rt_del: m=6$'
run_tool "perf script" "$tmp/script3.out" "$PERF" script -i "$tmp/old.data"
check perf_script_old_again "$tmp/script3.out" 'user_events:rt_del: n=2 s=perf$'
echo 1 > "$tracefs/events/user_events/rt_del/enable"
"$ue" -n 1 "$new_desc" m=99
echo 0 > "$tracefs/events/user_events/rt_del/enable"
run_tool "trace-cmd extract" "$tmp/extract2.out" "$TRACE_CMD" extract -o "$tmp/ext2.dat" ||
	comment "$tmp/extract2.out"
run_tool "trace-cmd report" "$tmp/report2.out" "$TRACE_CMD" report -i "$tmp/ext2.dat"
check trace_cmd_new "$tmp/report2.out" 'rt_del: +m=99$'

# --- the kernel's trace: the second incarnation retired, a third ----------
echo 1 > "$tracefs/events/user_events/rt_del/enable"
"$ue" -n 1 "$new_desc" m=100
echo 0 > "$tracefs/events/user_events/rt_del/enable"
# retired in turn; a third incarnation with the first one's fields
echo '!u:rt_del' >> "$tracefs/dynamic_events"
echo "u:$old_desc" >> "$tracefs/dynamic_events"
echo 1 > "$tracefs/events/user_events/rt_del/enable"
"$ue" -n 1 "$old_desc" n=21 s=third
echo 0 > "$tracefs/events/user_events/rt_del/enable"
check trace_both "$tracefs/trace" 'rt_del: m=100$' 'rt_del: n=21 s=third$'

# --- the first incarnation, its grace cut short -----------------------------
# A new grace applies to the events waiting: at 0, the worker's next check
# removes it (it checks every second). Not before: while it stayed, the
# name's new incarnations had types of their own.
echo 0 > "$grace_file"
if ue_wait 300 "user_events_retired/rt_del_$old_id to go at a grace of 0" \
	test ! -e "$tracefs/events/user_events_retired/rt_del_$old_id"; then
	pass gone_at_grace_0
else
	fail gone_at_grace_0
fi
echo "$grace_saved" > "$grace_file"

ktap_done
