#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cli_test.sh: the user_events command (tools/tracing/user_events) as a
# shell script uses it: register, emit typed values and find them decoded
# in trace (several events in one write too), status with the status byte
# decoded, format, delete, and the exit codes it documents (0 ok, 1
# usage, 2 the kernel refused, naming the errno, 3 no access to the files,
# 4 no such event), also as uid 65534;
# and --abi: emit through the enable bit (the default: a write while
# nothing is attached records nothing, an event it creates goes when it
# exits, user_events_data is all it needs) or the status page, register
# through the status page (the default) or persistent through the enable
# bit (CAP_PERFMON), delete either way.
#
# The command: $USER_EVENTS_CMD, else user_events next to this test, else
# the one built in tools/tracing/user_events, else from PATH.
#
# Prints KTAP; exits 0 when every check passed, 1 otherwise, 4 (skip) when
# not run as root or without the command.

dir=$(cd "$(dirname "$0")" && pwd)
tracefs=/sys/kernel/tracing
ev_dir=$tracefs/events/user_events

. "$dir/ktap.sh"
ue=${USER_EVENTS_CMD:-}
for c in "$ue" "$dir/user_events" "$dir/../../../tracing/user_events/user_events" \
	 "$(command -v user_events)"; do
	if [ -n "$c" ] && [ -x "$c" ]; then
		ue=$c
		break
	fi
done
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root"
fi
if [ ! -x "$ue" ]; then
	ktap_skip_all "no user_events command (build tools/tracing/user_events)"
fi


tmp=$(mktemp -d /tmp/cli_test.XXXXXX) || exit 1
out=$tmp/out
err=$tmp/err

# run EXPECTED_STATUS DESCRIPTION CMD...: the command's exit status must be
# EXPECTED_STATUS; its output is kept in $out and $err
run() {
	local want=$1 what=$2 rc

	shift 2
	"$@" > "$out" 2> "$err"
	rc=$?
	if [ "$rc" = "$want" ]; then
		pass "$what"
	else
		fail "$what (exit $rc, expected $want)"
		comment "$out" "$err"
	fi
}

# check DESCRIPTION CONDITION...: a shell condition
check() {
	local what=$1

	shift
	if "$@"; then
		pass "$what"
	else
		fail "$what"
	fi
}

in_trace() {
	grep -qF -- "$1" $tracefs/trace
}

trace_count() {
	grep -cF -- "$1" $tracefs/trace
}

status_line() {
	"$ue" status | awk -v n="$1" '$4 == n'
}

# gone EVENT: its directory disappears (ue_wait: 60 s times the factor)
gone() {
	ue_wait 300 "events/user_events/$1 to go" test ! -d "$ev_dir/$1"
}

ev=cli_test_ev
desc="$ev u32 count; s16 delta; char[8] tag; unsigned char[4] raw;"
desc+=" __rel_loc char[] msg; __data_loc char[] dmsg"

mode_dir=$(stat -c %a $tracefs)
mode_status=$(stat -c %a $tracefs/user_events_status)
mode_data=$(stat -c %a $tracefs/user_events_data)
restore_modes() {
	chmod "$mode_status" $tracefs/user_events_status
	chmod "$mode_data" $tracefs/user_events_data
	chmod "$mode_dir" $tracefs
}

cleanup() {
	restore_modes
	for e in $ev cli_test_new cli_test_nobody cli_test_nobody2 cli_test_persist \
		 cli_test_f1 cli_test_f2; do
		[ -d $ev_dir/$e ] || continue
		echo 0 > $ev_dir/$e/enable
		echo "-:$e" >> $tracefs/dynamic_events
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
: > $tracefs/trace

# Usage and help
run 0 "--help exits 0" "$ue" --help
check "--help documents commands, exit codes and examples" \
	grep -q "Exit status" "$out"
check "--help documents --abi and the default of emit and of register" \
	test -n "$(grep -F -- "--abi=bits|status" "$out")" \
	-a -n "$(grep "default of emit" "$out")" -a -n "$(grep "default of register" "$out")"
run 1 "--abi of another value: exit 1" "$ue" --abi=other status
run 1 "no command: exit 1" "$ue"
run 1 "unknown command: exit 1" "$ue" frobnicate
run 1 "register without a description: exit 1" "$ue" register

# Registering
run 0 "register '$desc'" "$ue" register "$desc"
check "the event's directory exists" test -d $ev_dir/$ev
run 0 "register again with the same fields" "$ue" register "$desc"
run 2 "register with other fields: exit 2" "$ue" register "$ev u64 other"
check "the message names EADDRINUSE" grep -q EADDRINUSE "$err"
run 2 "register a bad name: exit 2" "$ue" register "1bad u32 x"

# register -f: a file of descriptions, comments and blank lines skipped;
# every line tried, a failing one named, the status the first failure's
printf '%s\n' "# the events of a service" "cli_test_f1 u32 a; __rel_loc char[] s" "" \
	"   # indented comment" "1bad u32 x" "cli_test_f2 s16 b" > "$tmp/events"
run 2 "register -f with a bad line: exit 2" "$ue" register -f "$tmp/events"
check "register -f names the bad line (5)" grep -q "events:5: not registered" "$err"
check "register -f registered the lines around it" \
	test -d $ev_dir/cli_test_f1 -a -d $ev_dir/cli_test_f2
check "register -f kept the fields" \
	grep -q "^u:cli_test_f1 u32 a; __rel_loc char\[\] s$" $tracefs/dynamic_events
run 0 "register -f from standard input, the events already there: exit 0" \
	sh -c "grep -v 1bad '$tmp/events' | '$ue' register -f -"
run 1 "register -f of a missing file: exit 1" "$ue" register -f "$tmp/none"
run 1 "register -f without a file: exit 1" "$ue" register -f
run 1 "register with two descriptions: exit 1" "$ue" register "a u32 x" "b u32 y"
check "the message names EINVAL" grep -q EINVAL "$err"

# format
run 0 "format $ev" "$ue" format $ev
check "format prints the description" grep -qxF -- "$desc" "$out"
check "format lists msg as __rel_loc char[] at offset 26" \
	grep -Eq '^msg +__rel_loc char\[\] +26 +4 ' "$out"
run 4 "format of an unknown event: exit 4" "$ue" format cli_test_none

# status
check "status: $ev listed, status 0x00 and no consumer" \
	test "$(status_line $ev | awk '{print $2 $3}')" = "0x00-"
echo 1 > $ev_dir/$ev/enable
check "status after enable: 0x01 ftrace" \
	test "$(status_line $ev | awk '{print $2 $3}')" = "0x01ftrace"
run 0 "status exits 0" "$ue" status
check "status prints the totals" grep -q '^Max: ' "$out"

# emit
run 0 "emit $ev with every field" "$ue" emit $ev count=5 delta=-3 tag=abc \
	raw=0xdeadbeef msg="hello world" dmsg=bye
check "trace shows every value decoded" \
	in_trace "$ev: count=5 delta=-3 tag=abc raw=deadbeef msg=hello world dmsg=bye"
run 0 "emit -n 3 with a hex value" "$ue" emit -n 3 $ev count=0x10
check "trace holds the 3 records, fields not given empty" \
	test "$(trace_count "$ev: count=16 delta=0 tag= raw=00000000 msg= dmsg=")" = 3
run 0 "emit of several events in one write (a batch)" "$ue" emit -n 2 $ev count=31 -- \
	$ev count=32 tag=two
check "each record of the batch in trace, each twice" \
	test "$(trace_count "$ev: count=31 ")" = 2 -a \
	"$(trace_count "$ev: count=32 delta=0 tag=two ")" = 2
run 1 "emit with an empty event between --: exit 1" "$ue" emit $ev count=1 -- -- $ev
run 1 "emit a bad integer: exit 1" "$ue" emit $ev count=abc
check "the message names the field and what it expects" \
	grep -q "count.*integer" "$err"
run 1 "emit an unknown field: exit 1" "$ue" emit $ev nosuch=1
run 1 "emit a value out of range: exit 1" "$ue" emit $ev delta=70000
run 4 "emit an unknown event: exit 4" "$ue" emit cli_test_none x=1
echo 0 > $ev_dir/$ev/enable
run 0 "emit with nothing attached (the kernel refuses the enable bit's write): exit 0" \
	"$ue" emit $ev count=77
run 0 "--abi=status emit with nothing attached: exit 0" "$ue" --abi=status emit $ev count=78
echo 1 > $ev_dir/$ev/enable
check "neither recorded anything" test "$(trace_count "$ev: count=7")" = 0
run 0 "--abi=status emit" "$ue" --abi=status emit $ev count=79 tag=page
check "its record is in trace" in_trace "$ev: count=79 delta=0 tag=page"
run 0 "emit a whole description (enable bit)" \
	"$ue" emit 'cli_test_new u64 seq; __rel_loc char[] who' seq=1 who=me
check "the event it created went when it exited" gone cli_test_new
run 0 "--abi=status emit a whole description creates the event" \
	"$ue" --abi=status emit 'cli_test_new u64 seq; __rel_loc char[] who' seq=1 who=me
check "cli_test_new stays (nothing recorded: not enabled)" \
	test -d $ev_dir/cli_test_new -a "$(trace_count 'cli_test_new:')" = 0
echo 1 > $ev_dir/cli_test_new/enable
"$ue" emit cli_test_new seq=18446744073709551615 who=max
check "emit by name after: the u64 maximum in trace" \
	in_trace "cli_test_new: seq=18446744073709551615 who=max"

# As uid 65534, with access to the two files and to the directory only
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}
run 3 "uid 65534 without access: exit 3" nobody "$ue" status
check "the message says EACCES and who to ask" grep -q "EACCES.*administrator" "$err"
chmod 666 $tracefs/user_events_data
chmod a+rx $tracefs
echo 'u:cli_test_nobody u32 uid' >> $tracefs/dynamic_events
echo 1 > $ev_dir/cli_test_nobody/enable
run 0 "uid 65534 with access to user_events_data only: emit (enable bit)" \
	nobody "$ue" emit 'cli_test_nobody u32 uid' uid=65534
run 3 "... --abi=status emit: exit 3" \
	nobody "$ue" --abi=status emit 'cli_test_nobody u32 uid' uid=1
check "the message names user_events_status" grep -q user_events_status "$err"
run 2 "... --abi=bits register, persistent without CAP_PERFMON: exit 2" \
	nobody "$ue" --abi=bits register 'cli_test_nobody2 u32 x'
check "the message names EPERM" grep -q EPERM "$err"
chmod 666 $tracefs/user_events_status
run 0 "uid 65534 with access to both files: --abi=status emit" \
	nobody "$ue" --abi=status emit 'cli_test_nobody u32 uid' uid=65534
restore_modes
check "both records are in trace" test "$(trace_count "cli_test_nobody: uid=65534")" = 2

# A persistent event through the enable bit
run 0 "--abi=bits register: persistent" "$ue" --abi=bits register 'cli_test_persist u32 x'
# a window (scaled) in which a wrong deletion after the exit would show
sleep "$(ue_scale 0.5)"
check "the event outlives the command" test -d $ev_dir/cli_test_persist
check "status does not list it (no status byte)" test -z "$(status_line cli_test_persist)"
echo 1 > $ev_dir/cli_test_persist/enable
run 0 "emit into it by name" "$ue" emit cli_test_persist x=3
check "its record is in trace" in_trace "cli_test_persist: x=3"
echo 0 > $ev_dir/cli_test_persist/enable
run 0 "--abi=bits delete it (CAP_PERFMON)" "$ue" --abi=bits delete cli_test_persist
check "its directory is gone" test ! -d $ev_dir/cli_test_persist

# delete
run 2 "delete while enabled: exit 2" "$ue" delete $ev
check "the message names EBUSY" grep -q EBUSY "$err"
echo 0 > $ev_dir/$ev/enable
run 0 "--abi=status delete $ev" "$ue" --abi=status delete $ev
check "its directory is gone" test ! -d $ev_dir/$ev
run 2 "delete it again: exit 2" "$ue" delete $ev
check "the message names ENOENT" grep -q ENOENT "$err"

ktap_done
