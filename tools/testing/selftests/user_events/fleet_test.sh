#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fleet_test.sh: user events collected off the machine by trace-cmd's
# network mode, as a fleet ships them to a collector. In this machine, only
# over its loopback (127.0.0.1; vsock's loopback, CID 1, for -V): a
# collector runs "trace-cmd listen", the traced side "trace-cmd record -N"
# while ue_emit writes events through both ABIs, in the default group and
# a tenant group, with a __rel_loc string, a multi-format event, negative
# s8/s16 fields and every other field type. Then the two sides of a late
# event: one created after the recording started (what happens today), and
# the same event pre-registered with "user_events register -f" before it
# (the answer).
#
# The files the collector received, and what every field must read, go to
# $VM_EXPORT/fleet (scripts/vm-run --export; else a directory under /tmp),
# where fleet_report.sh decodes them with another trace-cmd: make check runs
# it on the host, whose trace-cmd never saw this machine's tracefs. The
# checks here are those of this side: the collector listening, each
# recording done and its file received, its writers done, and the late
# event's writer finding nobody attached.
#
# Tools: $TRACE_CMD (default trace-cmd from PATH); the user_events command
# next to this test ($USER_EVENTS_CMD). Prints KTAP; exits 0 when every
# check passed, 1 otherwise, 4 (skip) when not run as root. Every wait is
# for a condition, bounded by a time that USER_EVENTS_TIMEOUT_SCALE
# multiplies (ktap.sh's ue_wait); one that expires says what it waited for.

dir=$(cd "$(dirname "$0")" && pwd)
tracefs=/sys/kernel/tracing
ue=$dir/ue_emit
uecmd=${USER_EVENTS_CMD:-$dir/user_events}
TRACE_CMD=${TRACE_CMD:-trace-cmd}
port=${FLEET_PORT:-18633}
vport=${FLEET_VSOCK_PORT:-18634}

. "$dir/ktap.sh"
# a recording's run, at most (FLEET_TOOL_TIMEOUT, default 600 s, times the
# factor): a bound for a hang only
tool_timeout=$(ue_scale "${FLEET_TOOL_TIMEOUT:-600}")
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root"
fi

# The events: default group, status page and enable bits; multi-format;
# a tenant group, both ABIs
st_desc='fleet_st s8 a_s8; s16 a_s16; u32 seq; s32 a_s32; u64 a_u64;'
st_desc+=' char[8] a_tag; __rel_loc char[] a_rel; __data_loc char[] a_dloc'
st_vals=(a_s8=-100 a_s16=-30000 seq=1 a_s32=-2000000000
	 a_u64=18000000000000000000 a_tag=node-7 "a_rel=rel loc string"
	 "a_dloc=data loc string")
bits_desc='fleet_bits s8 b_s8; s16 b_s16; __rel_loc char[] b_rel; u16 b_u16'
bits_vals=(b_s8=-1 b_s16=-2 "b_rel=enable bit" b_u16=65535)
multi_desc='fleet_multi s16 m_s16; __rel_loc char[] m_rel; s8 m_s8'
multi_vals=(m_s16=-12345 "m_rel=multi format" m_s8=-128)
# the field types the others have not: as written, and as decoded (bytes
# in hex, two digits a byte)
types_desc='fleet_types u8 t_u8; s64 t_s64; char t_char; short t_short; int t_int;'
types_desc+=' unsigned char t_uchar; unsigned short t_ushort; unsigned int t_uint;'
types_desc+=' unsigned char[4] t_hex; struct fleet_pair t_struct 6; __data_loc u8[] t_bytes'
types_vals=(t_u8=200 t_s64=-9000000000000000000 t_char=-5 t_short=-1234 t_int=-123456
	    t_uchar=250 t_ushort=65535 t_uint=4294967295 t_hex=0xdeadbeef
	    t_struct=0x0102030405fe t_bytes=0xcafe)
types_want=("${types_vals[@]:0:8}" t_hex=deadbeef t_struct=0102030405fe t_bytes=cafe)
group=fleet
gdir=$tracefs/user_groups/$group
gst_desc='fleet_gst s8 g_s8; __rel_loc char[] g_rel'
gst_vals=(g_s8=-7 "g_rel=tenant status page")
gbits_desc='fleet_gbits s16 h_s16; __rel_loc char[] h_rel'
gbits_vals=(h_s16=-32768 "h_rel=tenant enable bit")
# a record whose string looks like a multi-format event's format: the
# collector's trace-dat-dotnames must rename formats, never records
trap_desc='fleet_trap __rel_loc char[] t_rel'
trap_vals=($'t_rel=name: fleet_trap.1f\nID: 1\nformat:\n')
# the late event and the event recorded beside it
late_desc='fleet_late s16 l_s16; __rel_loc char[] l_rel'
late_vals=(l_s16=-4242 "l_rel=late but decoded")
anchor_desc='fleet_anchor u32 n'

# setup, collector up, then per recording (main, vsock, late today,
# pre-registered): recorded with its writers done, file received; the
# late event's writer finding nobody, its pre-registration and its deletion
plan=$((2 + 4 * 2 + 3))
ktap_plan "$plan"

tmp=$(mktemp -d /tmp/fleet_test.XXXXXX) || exit 1
out=${VM_EXPORT:+$VM_EXPORT/fleet}
out=${out:-$tmp/export}
rm -rf "$out"
mkdir -p "$out" "$tmp/coll" "$tmp/vcoll"
expect=$out/expect
: > "$expect"
listen_pid=
vlisten_pid=

delete_all() {
	local e

	for e in fleet_st fleet_bits fleet_types fleet_trap fleet_late fleet_anchor; do
		[ -d "$tracefs/events/user_events/$e" ] || continue
		echo 0 > "$tracefs/events/user_events/$e/enable" 2>/dev/null
	done
	# No records left in a buffer: the deletions remove the events at once.
	# Else they are retired, and their directories go after the grace,
	# maybe while the next scenario's trace-cmd lists the systems.
	: > "$tracefs/trace"
	for e in fleet_st fleet_bits fleet_types fleet_trap fleet_late fleet_anchor; do
		echo "-:$e" >> "$tracefs/dynamic_events" 2>/dev/null
	done
	for e in fleet_gst fleet_gbits; do
		echo "-:user_events_$group/$e" >> "$tracefs/dynamic_events" 2>/dev/null
	done
	echo "!$group" >> "$tracefs/user_events_groups" 2>/dev/null
	# a buffer of another instance may still have held records: retired
	# events go once none does; the next trace-cmd must not list them going.
	# Every tool of the scenario is done and has read the formats it wanted
	retired_gone "the retired events to go before the next scenario" || true
}
cleanup() {
	[ -n "$listen_pid" ] && kill "$listen_pid" 2>/dev/null
	[ -n "$vlisten_pid" ] && kill "$vlisten_pid" 2>/dev/null
	"$TRACE_CMD" reset > /dev/null 2>&1
	delete_all
	rm -rf "$tmp"
}
trap cleanup EXIT

[ -w "$tracefs/user_events_data" ] || ktap_bail "no $tracefs/user_events_data"
[ -x "$ue" ] || ktap_bail "no $ue (make -C $dir)"
[ -x "$uecmd" ] || ktap_bail "no $uecmd (make -C $dir)"
command -v "$TRACE_CMD" > /dev/null || ktap_bail "no $TRACE_CMD"
[ -r /proc/net/tcp ] || ktap_bail "no TCP/IP in this kernel (CONFIG_INET)"

# expect SCENARIO MARKER FIELD=VALUE...: what fleet_report.sh must find in
# the decoded record of SCENARIO's file whose line contains MARKER
expect() {
	local scen=$1 marker=$2 v

	shift 2
	for v in "$@"; do
		printf '%s\t%s\t%s\n' "$scen" "$marker" "$v" >> "$expect"
	done
}

# writer NAME ARGS...: ue_emit ARGS in the background, registered first,
# waiting for its consumer and then for $tmp/go, which the recording's
# command touches (trace-cmd enables the events before it turns tracing
# on: a record written in between is dropped); $tmp/NAME.done once it
# wrote, its output in $tmp/NAME.out
writers=()
writer() {
	local name=$1

	shift
	( "$ue" -w -f "$tmp/go" "$@" > "$tmp/$name.out" 2>&1 &&
		touch "$tmp/$name.done" ) &
	writers+=($!)
}

# wait_writers: every writer started so far has exited
wait_writers() {
	[ ${#writers[@]} = 0 ] || wait "${writers[@]}"
	writers=()
}

# wait_for PATH...: until each exists
wait_for() {
	local p

	for p in "$@"; do
		ue_wait 300 "$p to exist" test -e "$p" || return 1
	done
}

# listening PORT: a TCP socket of this machine listens on PORT
listening() {
	local hex

	hex=$(printf '%04X' "$1")
	grep -q ":$hex 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# collector_done PID: the collector PID has finished the last recording's
# file and waits for the next connection: it sleeps in accept() (its wchan),
# with no child left (the readers of the CPUs' data it forks). It runs with
# --debug (see below), so the collector itself handles a connection and
# puts the file together before it accepts another.
collector_done() {
	[ -z "$(pgrep -P "$1")" ] && [[ $(cat "/proc/$1/wchan" 2>/dev/null) == *accept* ]]
}

# received SCENARIO PID DIR LOG: once the collector PID finished writing (a
# recording ends before its file is complete), the one new trace.*.dat of
# DIR becomes $out/SCENARIO.dat; passes when it is there and is a trace-cmd
# file, fails when the collector is still writing. A failure says why in
# $out/SCENARIO.notreceived, so that fleet_report.sh does not fail the
# checks that read the file again.
received() {
	local scen=$1 pid=$2 d=$3 log=$4 f why=

	if ! ue_wait 300 "the collector to finish the file of $scen (back in accept(), no child)" \
		collector_done "$pid"; then
		why="the collector was still writing it"
	else
		f=$(ls "$d"/trace.*.dat 2>/dev/null | head -n 1)
		if [ -z "$f" ]; then
			why="the collector wrote no file"
		elif [ ! -s "$f" ] || ! head -c 10 "$f" | grep -q tracing; then
			why="the collector's $(basename "$f") is not a trace-cmd file"
		fi
	fi
	if [ -z "$why" ]; then
		mv "$f" "$out/$scen.dat"
		pass "${scen}_file_received"
		echo "# $scen: the collector wrote $(basename "$f")," \
			"$(stat -c %s "$out/$scen.dat") bytes"
	else
		fail "${scen}_file_received"
		echo "# $scen: $why"
		echo "$why" > "$out/$scen.notreceived"
		ls -l "$d" | sed 's/^/# /'
		kill -0 "$pid" 2>/dev/null || echo "# the collector (pid $pid) is gone"
		echo "# trace-cmd's processes (the collector is $pid):"
		ps -eo pid,ppid,stat,args | grep -E '[t]race-cmd|PPID' | sed 's/^/# /'
		echo "# the collector's log:"
		grep -v ' msg \(received\|send\):' "$log" | tail -n 20 | sed 's/^/# /'
		# not the next scenario's file
		mkdir -p "$d/not-$scen"
		mv "$d"/trace.*.dat "$d/not-$scen/" 2>/dev/null
	fi
}

# record SCENARIO GO-SCRIPT DONE-FILES -- RECORD-ARGS...: trace-cmd record
# RECORD-ARGS running GO-SCRIPT (which touches $tmp/go and waits for the
# writers); passes when it exited 0 and every DONE-FILE exists
record() {
	local scen=$1 go=$2 dones=() rc f ok=1

	shift 2
	while [ "$1" != -- ]; do
		dones+=("$1")
		shift
	done
	shift
	echo "# $scen: trace-cmd record $*"
	timeout -k "$(ue_scale 10)" "$tool_timeout" "$TRACE_CMD" record "$@" "$go" \
		> "$tmp/$scen-record.out" 2>&1
	rc=$?
	# 124: timeout stopped it; 137: and had to kill it
	[ $rc = 124 ] || [ $rc = 137 ] &&
		echo "# wait expired after $tool_timeout s (factor $ue_factor):" \
			"trace-cmd record of $scen to finish"
	for f in "${dones[@]}"; do
		[ -e "$f" ] || ok=0
	done
	if [ $rc = 0 ] && [ $ok = 1 ]; then
		pass "${scen}_recorded"
	else
		fail "${scen}_recorded (trace-cmd exit $rc)"
		comment "$tmp/$scen-record.out"
		for f in "$tmp"/*.out; do
			echo "# $f:"
			comment "$f"
		done
	fi
}

# go_script FILE DONE-FILES...: touch $tmp/go, then wait for the files
# (ktap.sh's ue_wait; an expiry ends the script, and the recording fails)
go_script() {
	local file=$1 f

	shift
	{
		echo '#!/bin/bash'
		printf 'UE_TIMING_ONLY=1 . %q\n' "$dir/ktap.sh"
		printf 'touch %q\n' "$tmp/go"
		for f in "$@"; do
			printf 'ue_wait 300 %q test -e %q || exit 1\n' "the writer's ${f##*/}" "$f"
		done
	} > "$file"
	chmod +x "$file"
}

# --- set-up: the tenant group, the collectors ---------------------------------
delete_all
"$TRACE_CMD" reset > /dev/null 2>&1
ok=1
echo "$group" >> "$tracefs/user_events_groups" || ok=0
[ -d "$gdir" ] || ok=0
ip link set lo up 2>/dev/null
if [ $ok = 1 ]; then
	pass setup_group
else
	fail setup_group
	comment "$tracefs/user_events_groups"
fi

# --debug: without it trace-cmd listen gives up on a recorder that sends
# nothing for 5 s (libtracecmd's MSG_WAIT_MSEC), takes what comes after for
# unexpected messages and leaves an empty file: seen on a loaded machine,
# a 0-byte file and the collector's log full of "Message: cmd=3 size=8192".
# With it the collector waits as long as the recorder takes, and handles
# each connection itself, in turn (this test makes one at a time).
"$TRACE_CMD" listen --debug -p "$port" -d "$tmp/coll" > "$tmp/listen.log" 2>&1 &
listen_pid=$!
"$TRACE_CMD" listen --debug -V -p "$vport" -d "$tmp/vcoll" > "$tmp/vlisten.log" 2>&1 &
vlisten_pid=$!
if ue_wait 300 "trace-cmd listen on TCP port $port" listening "$port" &&
	kill -0 "$vlisten_pid" 2>/dev/null; then
	pass collectors_listening
else
	fail collectors_listening
	comment "$tmp/listen.log" "$tmp/vlisten.log"
fi

# --- main: every ABI and group, over TCP -------------------------------------
writer st -s -n 3 -I seq "$st_desc" "${st_vals[@]}"
writer bits -b -n 2 "$bits_desc" "${bits_vals[@]}"
writer multi -M -n 2 "$multi_desc" "${multi_vals[@]}"
writer gst -D "$gdir" -n 2 "$gst_desc" "${gst_vals[@]}"
writer gbits -D "$gdir" -b -n 2 "$gbits_desc" "${gbits_vals[@]}"
writer trap -n 1 "$trap_desc" "${trap_vals[@]}"
writer types -n 1 "$types_desc" "${types_vals[@]}"
# every event exists before the recording starts (its format is copied then)
wait_for "$tracefs/events/user_events/fleet_st" "$tracefs/events/user_events/fleet_bits" \
	"$tracefs/events/user_events/fleet_trap" "$tracefs/events/user_events/fleet_types" \
	"$tracefs/events/user_events_$group/fleet_gst" \
	"$tracefs/events/user_events_$group/fleet_gbits"
multi_made() {
	compgen -G "$tracefs/events/user_events_multi/fleet_multi.*" > /dev/null
}
ue_wait 300 "events/user_events_multi/fleet_multi.* to exist" multi_made
go_script "$tmp/go-main" "$tmp"/{st,bits,multi,gst,gbits,trap,types}.done
record main "$tmp/go-main" "$tmp"/{st,bits,multi,gst,gbits,trap,types}.done -- \
	-N "127.0.0.1:$port" -t -e user_events -e user_events_multi \
	-e "user_events_$group"
received main "$listen_pid" "$tmp/coll" "$tmp/listen.log"
for seq in 1 2 3; do
	expect main " fleet_st:" "seq=$seq"
done
expect main " fleet_st:" "${st_vals[@]}"
expect main " fleet_bits:" "${bits_vals[@]}"
expect main " fleet_types:" "${types_want[@]}"
# The multi-format event's name (fleet_multi.ID) has a dot, which the
# libtraceevent of trace-cmd and perf (1.7 in Debian 12) cannot parse:
# fleet_report.sh checks its format travelled and its records arrived,
# then decodes them in a copy renamed by trace-dat-dotnames (main_dotnames)
printf 'main\tfleet_multi\t2\t%s\n' "$multi_desc" > "$out/main.multi"
expect main_dotnames " fleet_multi_" "${multi_vals[@]}"
printf 'main_dotnames\t fleet_multi_\t2\n' > "$out/main_dotnames.count"
# the record that looks like a format: decoded, its dot kept, in both
expect main " fleet_trap:" "t_rel=name:"
expect main_dotnames " fleet_trap:" "t_rel=name:"
printf 'main_dotnames\tname: fleet_trap.1f\t1\n' >> "$out/main_dotnames.count"
expect main " fleet_gst:" "${gst_vals[@]}"
expect main " fleet_gbits:" "${gbits_vals[@]}"
wait_writers

# --- vsock: the same over vsock's loopback -----------------------------------
rm -f "$tmp/go" "$tmp"/*.done
writer vst -n 2 "$st_desc" "${st_vals[@]}"
wait_for "$tracefs/events/user_events/fleet_st"
go_script "$tmp/go-vsock" "$tmp/vst.done"
record vsock "$tmp/go-vsock" "$tmp/vst.done" -- \
	-V "1:$vport" -e user_events:fleet_st
received vsock "$vlisten_pid" "$tmp/vcoll" "$tmp/vlisten.log"
expect vsock " fleet_st:" "${st_vals[@]}"
wait_writers

# --- late, today: created after the recording started ------------------------
# The recording enables all of user_events at its start. fleet_late is
# created afterwards: nothing enabled it, its writer finds nobody attached.
# Enabled by hand while the recording runs, its records reach the
# collector, whose copy of the formats has no fleet_late.
rm -f "$tmp/go" "$tmp"/*.done
delete_all
writer anchor -n 2 -I n "$anchor_desc" n=1
wait_for "$tracefs/events/user_events/fleet_anchor"
{
	echo '#!/bin/bash'
	printf 'UE_TIMING_ONLY=1 . %q\n' "$dir/ktap.sh"
	printf 'touch %q\n' "$tmp/go"
	# no consumer: ue_emit -w gives up (exit 1) after 3 s times the factor
	printf '%q -b -w -t 3 %q' "$ue" "$late_desc"
	printf ' %q' "${late_vals[@]}"
	printf ' > %q 2>&1 && touch %q\n' "$tmp/late0.out" "$tmp/late0.recorded"
	printf 'touch %q\n' "$tmp/late0.done"
	# the same event, enabled by hand once it exists
	printf '( %q -b -w -n 3 %q' "$ue" "$late_desc"
	printf ' %q' "${late_vals[@]}"
	printf ' > %q 2>&1 && touch %q ) &\n' "$tmp/late1.out" "$tmp/late1.done"
	printf 'ue_wait 300 %q test -d %q\n' "events/user_events/fleet_late to exist" \
		"$tracefs/events/user_events/fleet_late"
	printf 'echo 1 > %q\n' "$tracefs/events/user_events/fleet_late/enable"
	printf 'wait\n'
	printf 'ue_wait 300 %q test -e %q || exit 1\n' "the writer's anchor.done" \
		"$tmp/anchor.done"
} > "$tmp/go-late"
chmod +x "$tmp/go-late"
record late "$tmp/go-late" "$tmp/late0.done" "$tmp/late1.done" "$tmp/anchor.done" -- \
	-N "127.0.0.1:$port" -t -e user_events
received late "$listen_pid" "$tmp/coll" "$tmp/listen.log"
# created after the recording enabled user_events: nothing attached to it,
# its writer gave up waiting for a consumer
if [ ! -e "$tmp/late0.recorded" ] &&
	grep -q 'wait expired.*a consumer of fleet_late' "$tmp/late0.out" 2>/dev/null; then
	pass late_writer_found_nobody
else
	fail late_writer_found_nobody
	comment "$tmp/late0.out"
	[ -e "$tmp/late0.recorded" ] && echo "late0_attached" >> "$out/late.facts"
fi
for n in 1 2; do
	expect late " fleet_anchor:" "n=$n"
done
# fleet_late: its records are in the file (fleet_report.sh counts them)
# but no line decodes them
printf 'late\tfleet_late\t3\n' > "$out/late.undecoded"
wait_writers

# --- pre-registered: user_events register -f before recording ----------------
rm -f "$tmp/go" "$tmp"/*.done
delete_all
{
	echo "# the events this service writes, registered before collection"
	echo "$late_desc"
	echo ""
	echo "$anchor_desc"
} > "$tmp/events.txt"
if "$uecmd" register -f "$tmp/events.txt" > "$tmp/register.out" 2>&1 &&
	[ -d "$tracefs/events/user_events/fleet_late" ] &&
	[ -d "$tracefs/events/user_events/fleet_anchor" ]; then
	pass preregister_file
else
	fail preregister_file
	comment "$tmp/register.out"
fi
{
	echo '#!/bin/bash'
	printf 'touch %q\n' "$tmp/go"
	# the service starts after the collection: enable bits, no PERSIST
	printf '%q -b -w -n 3 %q' "$ue" "$late_desc"
	printf ' %q' "${late_vals[@]}"
	printf ' > %q 2>&1 && touch %q\n' "$tmp/pre.out" "$tmp/pre.done"
} > "$tmp/go-pre"
chmod +x "$tmp/go-pre"
record pre "$tmp/go-pre" "$tmp/pre.done" -- \
	-N "127.0.0.1:$port" -t -e user_events
received pre "$listen_pid" "$tmp/coll" "$tmp/listen.log"
expect pre " fleet_late:" "${late_vals[@]}"
printf 'pre\t fleet_late:\t3\n' > "$out/pre.count"
# registered persistent: it stays until deleted, then it is gone (at once:
# no buffer holds its records, so it is not retired, see delete_all)
: > "$tracefs/trace"
"$uecmd" delete fleet_late > /dev/null 2>&1
"$uecmd" delete fleet_anchor > /dev/null 2>&1
if [ ! -d "$tracefs/events/user_events/fleet_late" ]; then
	pass preregistered_deleted
else
	fail preregistered_deleted
fi

echo "# the collector's log (less --debug's messages):"
grep -v ' msg \(received\|send\):' "$tmp/listen.log" | comment | tail -n 20
ktap_done
