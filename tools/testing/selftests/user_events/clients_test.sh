#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# clients_test.sh: the unmodified clients of the distribution (perf,
# trace-cmd, bpftrace) against user events that ue_emit writes. Each tool
# records while ue_emit writes; its output must show the values written,
# every field type decoded (signed types negative, strings as text, bytes as
# hex), and once every tool has exited the events' status bytes are 0 again.
#
# Tools: $PERF, $TRACE_CMD, $BPFTRACE (default: from PATH). bpftrace needs the
# kernel's headers for the field types (u32, s8, ...): BPFTRACE_KERNEL_SOURCE
# (the source tree) and BPFTRACE_KERNEL_BUILD (its object directory with
# include/generated) unless the kernel has BTF; scripts/vm-run sets them for
# the kernel it boots, so the test runs bpftrace with the environment it gets.
#
# Prints KTAP; exits 0 when every check passed, 1 otherwise, 4 (skip) when
# not run as root.

dir=$(cd "$(dirname "$0")" && pwd)
tracefs=/sys/kernel/tracing
ue=$dir/ue_emit
PERF=${PERF:-perf}
TRACE_CMD=${TRACE_CMD:-trace-cmd}
BPFTRACE=${BPFTRACE:-bpftrace}
start=$SECONDS

. "$dir/ktap.sh"
# each tool's run, at most (CLIENTS_TOOL_TIMEOUT, default 600 s, times the
# factor): a bound for a hang only, bpftrace's start took over 120 s in a
# guest slowed five times
tool_timeout=$(ue_scale "${CLIENTS_TOOL_TIMEOUT:-600}")
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root"
fi

# The events. clients_cnt and clients_bpf are what bpftrace 0.17 can read:
# no __rel_loc, no struct, and every field at its natural alignment (bpftrace
# lays the tracepoint struct out as C would; the kernel packs the fields).
cnt_desc='clients_cnt u32 count; __data_loc char[] msg'
cnt_msg='hello user events'
all_desc='clients_all u8 a_u8; s8 a_s8; u16 a_u16; s16 a_s16; u32 a_u32;'
all_desc+=' s32 a_s32; u64 a_u64; s64 a_s64; char a_char; short a_short;'
all_desc+=' int a_int; unsigned char a_uchar; unsigned short a_ushort;'
all_desc+=' unsigned int a_uint; char[8] a_chars; unsigned char[4] a_uchars;'
all_desc+=' __data_loc char[] a_dstr; __rel_loc char[] a_rstr;'
all_desc+=' struct clients_pair a_struct 6; __data_loc unsigned char[] a_dbytes'
bpf_desc='clients_bpf s64 b_s64; u64 b_u64; u32 b_u32; s32 b_s32; int b_int;'
bpf_desc+=' unsigned int b_uint; __data_loc char[] b_dstr; u16 b_u16; s16 b_s16;'
bpf_desc+=' short b_short; unsigned short b_ushort; u8 b_u8; s8 b_s8;'
bpf_desc+=' char b_char; unsigned char b_uchar; char[8] b_chars'
events="clients_cnt clients_all clients_bpf"

# Per field of clients_all: check name, field, value written, value the
# tools print (byte arrays and structs through __print_hex_str(), which
# libtraceevent prints as the kernel's trace file does: "deadbeef")
all_fields=(
	"u8 a_u8 200 200"
	"s8 a_s8 -100 -100"
	"u16 a_u16 60000 60000"
	"s16 a_s16 -30000 -30000"
	"u32 a_u32 4000000000 4000000000"
	"s32 a_s32 -2000000000 -2000000000"
	"u64 a_u64 18000000000000000000 18000000000000000000"
	"s64 a_s64 -9000000000000000000 -9000000000000000000"
	"char a_char -5 -5"
	"short a_short -1234 -1234"
	"int a_int -123456 -123456"
	"unsigned_char a_uchar 250 250"
	"unsigned_short a_ushort 65535 65535"
	"unsigned_int a_uint 4294967295 4294967295"
	"char_array a_chars abcdefg abcdefg"
	"unsigned_char_array a_uchars 0xdeadbeef deadbeef"
	"data_loc_string a_dstr hello_data_loc hello_data_loc"
	"rel_loc_string a_rstr hello_rel_loc hello_rel_loc"
	"struct a_struct 0x0102030405fe 0102030405fe"
	"data_loc_bytes a_dbytes 0xcafe cafe"
)
# The same for clients_bpf, which bpftrace prints as "field=value"
bpf_fields=(
	"u8 b_u8 200 200"
	"s8 b_s8 -100 -100"
	"u16 b_u16 60000 60000"
	"s16 b_s16 -30000 -30000"
	"u32 b_u32 4000000000 4000000000"
	"s32 b_s32 -2000000000 -2000000000"
	"u64 b_u64 18000000000000000000 18000000000000000000"
	"s64 b_s64 -9000000000000000000 -9000000000000000000"
	"char b_char -5 -5"
	"short b_short -1234 -1234"
	"int b_int -123456 -123456"
	"unsigned_char b_uchar 250 250"
	"unsigned_short b_ushort 65535 65535"
	"unsigned_int b_uint 4294967295 4294967295"
	"char_array b_chars abcdefg abcdefg"
	"data_loc_string b_dstr hello_bpf_loc hello_bpf_loc"
)
# bpftrace takes one format string: built in pieces to keep lines short
bpf_fmt='clients_bpf: b_s64=%lld b_u64=%llu b_u32=%u b_s32=%d b_int=%d b_uint=%u'
bpf_fmt+=' b_dstr=%s b_u16=%u b_s16=%d b_short=%d b_ushort=%u b_u8=%u b_s8=%d'
bpf_fmt+=' b_char=%d b_uchar=%u b_chars=%s\n'
bpf_args='args->b_s64, args->b_u64, args->b_u32, args->b_s32, args->b_int, args->b_uint,'
bpf_args+=' str(args->b_dstr), args->b_u16, args->b_s16, args->b_short, args->b_ushort,'
bpf_args+=' args->b_u8, args->b_s8, args->b_char, args->b_uchar, args->b_chars'
bpf_prog="tracepoint:user_events:clients_bpf { printf(\"$bpf_fmt\", $bpf_args); }"
cnt_prog='tracepoint:user_events:clients_cnt {
	printf("count=%u msg=%s\n", args->count, str(args->msg)); }'

# 1 setup + (record, status, count/msg, fields) for perf and trace-cmd
# + (run, status, one-liner, fields) for bpftrace + status and deletion
# + an auto-deleted event under perf record (record, gone, decoded)
# + a tenant group's event (create, record and count per tool, removed)
plan=$((1 + 2 * (3 + ${#all_fields[@]}) + 3 + ${#bpf_fields[@]} + 2 + 3 + 8))
ktap_plan "$plan"


tmp=$(mktemp -d /tmp/clients_test.XXXXXX) || exit 1

delete_events() {
	local e

	for e in $events; do
		[ -d "$tracefs/events/user_events/$e" ] || continue
		echo 0 > "$tracefs/events/user_events/$e/enable" 2>/dev/null
		echo "!u:$e" >> "$tracefs/dynamic_events" 2>/dev/null
	done
}
# the tenant group "clients" and its event
group=clients
gdir=$tracefs/user_groups/$group
delete_group() {
	echo 0 > "$tracefs/events/user_events_$group/clients_cnt/enable" 2>/dev/null
	echo "-:user_events_$group/clients_cnt" >> "$tracefs/dynamic_events" 2>/dev/null
	echo "!$group" >> "$tracefs/user_events_groups" 2>/dev/null
}
cleanup() {
	# a trace-cmd record that stopped midway leaves tracing off
	"$TRACE_CMD" reset > /dev/null 2>&1
	echo 1 > "$tracefs/tracing_on"
	delete_events
	delete_group
	rm -rf "$tmp"
}
trap cleanup EXIT

[ -w "$tracefs/user_events_data" ] || ktap_bail "no $tracefs/user_events_data"
[ -x "$ue" ] || ktap_bail "no $ue (make -C $dir)"

# Values "with_spaces" are written with spaces
values() {
	local f name value

	for f in "$@"; do
		read -r _ name value _ <<< "$f"
		echo "$name=${value//_/ }"
	done
}
mapfile -t all_values < <(values "${all_fields[@]}")
mapfile -t bpf_values < <(values "${bpf_fields[@]}")

# emit_script FILE CNT [DESC VALUES...]: a script that writes clients_cnt
# three times (count 1, 2, 3) if CNT is 1, then one record of DESC (if any),
# each after waiting for a consumer; the first writer saves the status byte
# it saw in FILE.status; FILE.done is touched when all went well
emit_script() {
	local file=$1 cnt=$2 desc=${3:-} status

	shift 2
	[ $# -gt 0 ] && shift
	status=$(printf '> %q' "$file.status")
	{
		echo '#!/bin/bash'
		echo 'set -e'
		if [ "$cnt" = 1 ]; then
			printf '%q ' "$ue" -w -s -n 3 -I count "$cnt_desc" \
				count=1 "msg=$cnt_msg"
			echo "$status"
			status=
		fi
		if [ -n "$desc" ]; then
			printf '%q ' "$ue" -w -s "$desc" "$@"
			echo "${status:->/dev/null}"
		fi
		printf 'touch %q\n' "$file.done"
	} > "$file"
	chmod +x "$file"
}

# line_has LINE FIELD EXPECTED: LINE shows FIELD=EXPECTED ("_" for spaces),
# or FIELD=EXPECTED without the spaces
line_has() {
	local line=" $1 " want=${3//_/ }

	line=${line//$'\t'/ }
	[[ $line == *" $2=$want "* ]] || [[ $line == *" $2=${want// /} "* ]]
}

# check_fields TOOL OUTPUT MARKER FIELDS...: one check per field of the first
# line of OUTPUT that contains MARKER. Without such a line (the tool failed)
# the first check fails, saying so, and the others are skipped for it.
check_fields() {
	local tool=$1 out=$2 marker=$3 line f label name want why

	shift 3
	line=$(grep -m1 -F -- "$marker" "$out")
	line=${line%"${line##*[! ]}"}
	if [ -z "$line" ]; then
		why="no line with '$marker' in the output of $tool"
		read -r label _ <<< "$1"
		fail "${tool}_$label"
		echo "# $why: the other $(($# - 1)) field checks are skipped; the output:"
		comment "$out"
		shift
		for f in "$@"; do
			read -r label _ <<< "$f"
			skip "${tool}_$label" "$why"
		done
		return
	fi
	for f in "$@"; do
		read -r label name _ want <<< "$f"
		if line_has "$line" "$name" "$want"; then
			pass "${tool}_$label"
			continue
		fi
		fail "${tool}_$label"
		echo "# expected '$name=${want//_/ }' in:"
		echo "# $line"
	done
}

# check_cnt TOOL OUTPUT MARKER: the three clients_cnt records, in order
check_cnt() {
	local tool=$1 out=$2 marker=$3 got want i

	got=$(grep -F -- "$marker" "$out" | sed 's/.*\(count=\)/\1/; s/[[:space:]]*$//')
	want=$(for i in 1 2 3; do echo "count=$i msg=$cnt_msg"; done)
	if [ "$got" = "$want" ]; then
		pass "${tool}_count_msg"
	else
		fail "${tool}_count_msg"
		echo "# expected count=1..3 msg=$cnt_msg; $tool printed:"
		comment "$out"
	fi
}

# check_status TOOL FILE MASK: the status byte the writer saw right after its
# writes, with TOOL attached, has a bit of MASK set
check_status() {
	local tool=$1 file=$2 mask=$3 st

	st=$(sed -n 's/^status=//p' "$file" 2>/dev/null | tail -n 1)
	if [ -n "$st" ] && [ $((st & mask)) != 0 ]; then
		pass "${tool}_status_bit"
		echo "# status byte with $tool attached: $st"
	else
		fail "${tool}_status_bit"
		echo "# status byte with $tool attached: '${st:-none}', want a bit of $mask"
	fi
}

# --- the events ---------------------------------------------------------
delete_events
ok=1
for desc in "$cnt_desc" "$all_desc" "$bpf_desc"; do
	if ! echo "u:$desc" >> "$tracefs/dynamic_events"; then
		ok=0
	elif [ ! -f "$tracefs/events/user_events/${desc%% *}/format" ]; then
		ok=0
	fi
done
if [ $ok = 1 ]; then
	pass create_events
else
	fail create_events
	comment "$tracefs/dynamic_events" "$tracefs/error_log"
fi

# --- perf record / perf script ------------------------------------------
emit_script "$tmp/emit-perf" 1 "$all_desc" "${all_values[@]}"
if run_tool "perf record" "$tmp/perf-record.out" "$PERF" record -N \
	-o "$tmp/perf.data" -e user_events:clients_cnt \
	-e user_events:clients_all -- "$tmp/emit-perf" &&
	[ -f "$tmp/emit-perf.done" ]; then
	pass perf_record
else
	fail perf_record
	comment "$tmp/perf-record.out"
fi
check_status perf "$tmp/emit-perf.status" 2
run_tool "perf script" "$tmp/perf-script.out" "$PERF" script -i "$tmp/perf.data" ||
	comment "$tmp/perf-script.out"
check_cnt perf "$tmp/perf-script.out" "user_events:clients_cnt:"
check_fields perf "$tmp/perf-script.out" "user_events:clients_all:" "${all_fields[@]}"

# --- perf record of an event deleted automatically -----------------------
# An enable-bit event without PERSIST goes once its writer has exited and
# perf record has stopped: perf.data keeps its format, so perf script still
# decodes the records written before.
keep_desc='clients_keep u32 n; __rel_loc char[] s'
# perf attaches when it opens the event, records once its workload runs
"$ue" -b -w -f "$tmp/keep.go" -n 5 -I n "$keep_desc" n=7 s=kept \
	> "$tmp/keep-emit.out" 2>&1 &
keep_pid=$!
ue_wait 300 "ue_emit to create events/user_events/clients_keep" \
	test -d "$tracefs/events/user_events/clients_keep"
if run_tool "perf record (auto-deleted event)" "$tmp/keep-record.out" \
	"$PERF" record -a -N -o "$tmp/keep.data" -e user_events:clients_keep -- \
	sh -c "touch $tmp/keep.go; while kill -0 $keep_pid 2>/dev/null; do sleep 0.1; done" &&
	wait "$keep_pid"; then
	pass perf_record_auto_deleted
else
	fail perf_record_auto_deleted
	comment "$tmp/keep-record.out" "$tmp/keep-emit.out"
fi
if ue_wait 300 "events/user_events/clients_keep to go (its writer exited, perf stopped)" \
	test ! -d "$tracefs/events/user_events/clients_keep"; then
	pass auto_deleted_after_perf
else
	fail auto_deleted_after_perf
fi
run_tool "perf script (auto-deleted event)" "$tmp/keep-script.out" \
	"$PERF" script -i "$tmp/keep.data" || comment "$tmp/keep-script.out"
ok=1
for n in 7 8 9 10 11; do
	grep -q "clients_keep:.*n=$n s=kept" "$tmp/keep-script.out" || ok=0
done
if [ $ok = 1 ] && [ "$(grep -c 'clients_keep:' "$tmp/keep-script.out")" = 5 ]; then
	pass perf_script_decodes_deleted_event
else
	fail perf_script_decodes_deleted_event
	comment "$tmp/keep-script.out"
fi

# --- trace-cmd record / trace-cmd report ----------------------------------
emit_script "$tmp/emit-tc" 1 "$all_desc" "${all_values[@]}"
: > "$tracefs/trace"
retired_gone "the retired events to go before trace-cmd record"
if run_tool "trace-cmd record" "$tmp/tc-record.out" "$TRACE_CMD" record \
	-o "$tmp/trace.dat" -e user_events:clients_cnt \
	-e user_events:clients_all "$tmp/emit-tc" &&
	[ -f "$tmp/emit-tc.done" ]; then
	pass trace-cmd_record
else
	fail trace-cmd_record
	comment "$tmp/tc-record.out"
fi
check_status trace-cmd "$tmp/emit-tc.status" 1
run_tool "trace-cmd report" "$tmp/tc-report.out" "$TRACE_CMD" report \
	-i "$tmp/trace.dat" || comment "$tmp/tc-report.out"
check_cnt trace-cmd "$tmp/tc-report.out" " clients_cnt:"
check_fields trace-cmd "$tmp/tc-report.out" " clients_all:" "${all_fields[@]}"

# --- bpftrace ---------------------------------------------------------------
# bpftrace as users run it: with BTF, or with the kernel's headers where the
# system says they are (scripts/vm-run exports BPFTRACE_KERNEL_SOURCE/BUILD
# for the kernel it boots, as a distribution's /lib/modules would have them)
echo "# bpftrace: BPFTRACE_KERNEL_SOURCE=${BPFTRACE_KERNEL_SOURCE:-(unset)}" \
	"BPFTRACE_KERNEL_BUILD=${BPFTRACE_KERNEL_BUILD:-(unset)}"

# The one-liner: count and the __data_loc string of every write
emit_script "$tmp/emit-bpf1" 1
if run_tool "bpftrace" "$tmp/bpf1.out" "$BPFTRACE" -e "$cnt_prog" \
	-c "/bin/bash $tmp/emit-bpf1" && [ -f "$tmp/emit-bpf1.done" ]; then
	pass bpftrace_run
else
	fail bpftrace_run
	comment "$tmp/bpf1.out"
fi
check_status bpftrace "$tmp/emit-bpf1.status" 255
check_cnt bpftrace "$tmp/bpf1.out" "count="

# Every field type bpftrace can read
emit_script "$tmp/emit-bpf2" 0 "$bpf_desc" "${bpf_values[@]}"
if ! run_tool "bpftrace" "$tmp/bpf2.out" "$BPFTRACE" -e "$bpf_prog" \
	-c "/bin/bash $tmp/emit-bpf2" || [ ! -f "$tmp/emit-bpf2.done" ]; then
	comment "$tmp/bpf2.out"
fi
check_fields bpftrace "$tmp/bpf2.out" "clients_bpf:" "${bpf_fields[@]}"

# --- a tenant group's event, by its system --------------------------------
# ue_emit writes clients_cnt through the group's own files; each tool names
# the event user_events_clients:clients_cnt
delete_group
if echo "$group" >> "$tracefs/user_events_groups" &&
	echo "u:user_events_$group/$cnt_desc" >> "$tracefs/dynamic_events" &&
	[ -f "$tracefs/events/user_events_$group/clients_cnt/format" ]; then
	pass group_create
else
	fail group_create
	comment "$tracefs/user_events_groups" "$tracefs/dynamic_events"
fi
# group_emit FILE: a script writing clients_cnt three times in the group
group_emit() {
	{
		echo '#!/bin/bash'
		echo 'set -e'
		printf '%q ' "$ue" -D "$gdir" -w -n 3 -I count "$cnt_desc" \
			count=1 "msg=$cnt_msg"
		echo
		printf 'touch %q\n' "$1.done"
	} > "$1"
	chmod +x "$1"
}
gev=user_events_$group:clients_cnt
group_emit "$tmp/g-perf"
if run_tool "perf record (group)" "$tmp/g-perf-record.out" "$PERF" record -N \
	-o "$tmp/g.data" -e "$gev" -- "$tmp/g-perf" && [ -f "$tmp/g-perf.done" ]; then
	pass perf_record_group
else
	fail perf_record_group
	comment "$tmp/g-perf-record.out"
fi
run_tool "perf script (group)" "$tmp/g-perf-script.out" "$PERF" script \
	-i "$tmp/g.data" || comment "$tmp/g-perf-script.out"
check_cnt perf_group "$tmp/g-perf-script.out" "$gev:"
group_emit "$tmp/g-tc"
retired_gone
if run_tool "trace-cmd record (group)" "$tmp/g-tc-record.out" "$TRACE_CMD" \
	record -o "$tmp/g.dat" -e "$gev" "$tmp/g-tc" && [ -f "$tmp/g-tc.done" ]; then
	pass trace-cmd_record_group
else
	fail trace-cmd_record_group
	comment "$tmp/g-tc-record.out"
fi
run_tool "trace-cmd report (group)" "$tmp/g-tc-report.out" "$TRACE_CMD" report \
	-i "$tmp/g.dat" || comment "$tmp/g-tc-report.out"
check_cnt trace-cmd_group "$tmp/g-tc-report.out" " clients_cnt:"
group_emit "$tmp/g-bpf"
if run_tool "bpftrace (group)" "$tmp/g-bpf.out" "$BPFTRACE" \
	-e "${cnt_prog/tracepoint:user_events:/tracepoint:user_events_$group:}" \
	-c "/bin/bash $tmp/g-bpf" && [ -f "$tmp/g-bpf.done" ]; then
	pass bpftrace_run_group
else
	fail bpftrace_run_group
	comment "$tmp/g-bpf.out"
fi
check_cnt bpftrace_group "$tmp/g-bpf.out" "count="
delete_group
if [ ! -d "$gdir" ] && [ ! -d "$tracefs/events/user_events_$group" ]; then
	pass group_removed
else
	fail group_removed
	comment "$tracefs/user_events_groups"
fi

# --- after every tool: nobody attached, and the events go away ------------
ok=1
for desc in "$cnt_desc" "$all_desc" "$bpf_desc"; do
	st=$("$ue" -n 0 -s "$desc" 2>&1)
	echo "# ${desc%% *}: $st"
	[ "$st" = "status=0" ] || ok=0
done
if [ $ok = 1 ]; then
	pass status_zero_after_tools
else
	fail status_zero_after_tools
	comment "$tracefs/user_events_status"
fi

ok=1
for e in $events; do
	echo "!u:$e" >> "$tracefs/dynamic_events" || ok=0
	[ -d "$tracefs/events/user_events/$e" ] && ok=0
done
if [ $ok = 1 ]; then
	pass delete_events
else
	fail delete_events
	comment "$tracefs/dynamic_events"
fi

echo "# took $((SECONDS - start)) s"
ktap_done
